"""The README's examples cannot drift: every ``>>>`` example runs as a doctest (floats compared at
the digits the README prints), and every cheap ``symgpu`` command of its ```bash blocks runs
in-process through :func:`symgpu.cli.app.main` with the exit code the README promises."""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
from pathlib import Path

import pytest

from symgpu.cli import app

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")

#: README commands not run here, by their first words, and why.
SKIPPED = {
    "report --all": "renders every report into the checkout's reports/ (about 25 s cold); tests/test_reports_uptodate.py checks them",
    "report-comparison": "rewrites the checkout's reports/prior_models (about 6 s); tests/test_prior_models.py covers it",
    "report my_model.toml": "a placeholder for the reader's own model file",
    "solve MODEL QUANTITY": "placeholder names (MODEL, QUANTITY, VAR)",
    "fit": "least-squares fits with multi-start (seconds to tens of seconds); tests/test_measure.py and test_volkov_h100.py fit",
    "measured volkov_2016_h100 dram_throughput --data data/h100/stream_read_vs_warps_ilp2_ilp4_model.csv --preset-file mine.toml":
        "reads mine.toml, the file the skipped fit above writes",
    "repl": "an interactive console",
}
#: commands the README says fail, and their exit code.
EXPECTED_EXIT = {"check equations/as_printed/interval_analysis_as_printed.toml": 1}
#: options whose value is an output file: redirected into the test's temporary folder.
OUTPUTS = ("--plot", "-o", "--output")


def bash_commands(text: str) -> list[list[str]]:
    """The ``symgpu ...`` commands of the ```bash blocks, continuation lines joined, comments and
    ``&&``-chained non-symgpu commands (``pip install``) dropped, each command once."""
    commands: list[list[str]] = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words[:1] == ["symgpu"] and words[1:] not in commands:
                    commands.append(words[1:])
    return commands


def skip_reason(words: list[str]) -> str:
    line = " ".join(words)
    return next((why for start, why in SKIPPED.items() if line == start or line.startswith(start + " ")), "")


COMMANDS = bash_commands(README)
CHEAP = [c for c in COMMANDS if not skip_reason(c)]


def test_the_readme_commands_are_found_and_every_skipped_one_exists():
    assert len(COMMANDS) >= 30 and len(CHEAP) >= 25
    for start in SKIPPED:
        assert any(" ".join(c) == start or " ".join(c).startswith(start + " ") for c in COMMANDS), f"no README command starts {start!r}"


@pytest.mark.parametrize("words", CHEAP, ids=[" ".join(c)[:80] for c in CHEAP])
def test_a_cheap_readme_command_exits_as_the_readme_says(words, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    argv = [str(tmp_path / Path(w).name) if i and words[i - 1] in OUTPUTS else w for i, w in enumerate(words)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = app.main(argv)
    assert code == EXPECTED_EXIT.get(" ".join(words), 0), out.getvalue()[-2000:]
    assert "Traceback" not in out.getvalue()


# ------------------------------------------------------------------------------------------ >>>
#: a float as Python and pint print it
_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?")


def _rounded(text: str) -> str:
    """Every float at 6 significant digits: the README prints pint's reprs rounded."""
    return _FLOAT.sub(lambda m: f"{float(m.group()):.6g}", text)


class RoundingChecker(doctest.OutputChecker):
    """Floats compared at 6 significant digits, whitespace normalised, ``...`` as a wildcard; an
    example the README shows without output (``print(cusp)``: long) is run and not compared."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if not want.strip():
            return True
        flags = optionflags | doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        return super().check_output(_rounded(want), _rounded(got), flags)


def doctest_blocks(text: str) -> list[str]:
    return [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if ">>>" in b]


BLOCKS = doctest_blocks(README)


def test_the_readme_has_its_two_doctest_blocks():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_a_readme_python_example_prints_what_the_readme_shows(index):
    test = doctest.DocTestParser().get_doctest(BLOCKS[index], {}, f"README block {index + 1}", "README.md", 0)
    runner = doctest.DocTestRunner(checker=RoundingChecker(), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()


def test_the_rounding_checker_still_catches_a_wrong_number():
    checker = RoundingChecker()
    assert checker.check_output("<Quantity(972.008671, 'thread')>\n", "<Quantity(972.0086712345679, 'thread')>\n", 0)
    assert not checker.check_output("<Quantity(972.008671, 'thread')>\n", "<Quantity(971.9, 'thread')>\n", 0)
