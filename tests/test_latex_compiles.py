"""Every generated LaTeX report compiles with pdflatex (CI installs a minimal TeX Live:
texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended lmodern)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import symgpu
from symgpu.report import measurements, render

FIXTURES = Path(__file__).resolve().parent / "fixtures"

PDFLATEX = shutil.which("pdflatex")
TEX_FILES = sorted(render.REPORTS.glob("*/*.tex"))


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (Debian: texlive-latex-base "
                    "texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended lmodern)")
@pytest.mark.parametrize("tex", TEX_FILES, ids=[p.stem for p in TEX_FILES])
def test_report_compiles(tex: Path, tmp_path: Path) -> None:
    work = tmp_path / tex.parent.name
    shutil.copytree(tex.parent, work)
    result = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex.name],
        cwd=work, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=120, check=False,
    )
    pdf = work / tex.with_suffix(".pdf").name
    tail = "\n".join(result.stdout.splitlines()[-25:])
    assert result.returncode == 0 and pdf.is_file() and pdf.stat().st_size > 0, f"pdflatex failed on {tex.name}:\n{tail}"


def test_there_are_reports_to_compile() -> None:
    assert TEX_FILES, "no reports/*/*.tex: run `symgpu report --all`"


def _compile(folder: Path, name: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    result = subprocess.run(
        [str(PDFLATEX), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", name],
        cwd=folder, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=120, check=False,
    )
    return result, folder / Path(name).with_suffix(".pdf").name


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed")
def test_measurement_section_renders_escaped_and_compiles(tmp_path: Path) -> None:
    model = symgpu.load(str(FIXTURES / "tiny_measured.toml"))
    report = render.render_report(model, formats=["tex"])
    for name, data in report.files.items():
        (tmp_path / name).write_bytes(data)
    tex = report.files["tiny_measured.tex"].decode("utf-8")
    section = tex[tex.index(r"\section{Model vs measurement}"):]
    # the same comparison the Markdown report shows: table row, plot, caption with LaTeX specials escaped
    comparison = measurements.sections(model)[0].comparison
    assert f"RMS relative error {100 * comparison.rms_relative:.1f}" in section
    assert r"\includegraphics[width=0.85\linewidth]{tiny_measured_measured_alpha_0_series.pdf}" in section
    assert r"100\% of peak \& \textasciitilde{}5 \$ per\_warp \#1 \{braces\}" in section
    assert (tmp_path / "tiny_measured_measured_alpha_0_series.pdf").read_bytes().startswith(b"%PDF")
    result, pdf = _compile(tmp_path, "tiny_measured.tex")
    tail = "\n".join(result.stdout.splitlines()[-25:])
    assert result.returncode == 0 and pdf.is_file() and pdf.stat().st_size > 0, f"pdflatex failed:\n{tail}"
