"""Reports: report content, Markdown/LaTeX/JSON rendering, plots (one matplotlib style) and
atomic file writing."""
