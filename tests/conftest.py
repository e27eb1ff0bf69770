"""Shared fixtures: bundled models and a tiny model written to a temporary folder."""

from __future__ import annotations

import os
import shutil
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import symgpu

# The suite never reads or writes the user's cache: a fresh, empty cache folder per run, removed
# when the run ends.
CACHE = tempfile.mkdtemp(prefix="symgpu-test-cache-")
os.environ["SYMGPU_CACHE_DIR"] = CACHE
os.environ.pop("SYMGPU_NO_CACHE", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(CACHE, ignore_errors=True)

REPO = Path(__file__).resolve().parent.parent
EQUATIONS = REPO / "equations"
#: Small model files shared by the tests (each file stem is its model id).
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def read_fixture(name: str) -> str:
    """The text of ``tests/fixtures/<name>.toml``."""
    return (FIXTURES / f"{name}.toml").read_text(encoding="utf-8")


def tiny_text(*, rhs: str = "Min(P_peak, I*B)", peak: str = "100 TFLOP/s", extra_equation: str = "") -> str:
    """The tiny roofline model (``tests/fixtures/tiny.toml``) with another right-hand side,
    peak or an extra equation."""
    return (read_fixture("tiny").replace('rhs = "Min(P_peak, I*B)"', f'rhs = "{rhs}"')
            .replace('P_peak = "100 TFLOP/s"', f'P_peak = "{peak}"')
            .replace("\n\n[presets.toy]\n", "\n" + textwrap.dedent(extra_equation) + "\n[presets.toy]\n"))


def toy_header(model_id: str, title: str, summary: str) -> str:
    """The opening of a small test model's TOML text: the schema, its [model] table and its one reference (toy2026)."""
    return (f'schema_version = 1\n\n[model]\nid = "{model_id}"\ntitle = "{title}"\nsummary = "{summary}"\nreferences = ["toy2026"]\n\n'
            '[references.toy2026]\nauthors = ["A. Author"]\ntitle = "A toy"\nvenue = "tests"\nyear = 2026\n')


@pytest.fixture(scope="session")
def ia() -> symgpu.Model:
    """The bundled interval-analysis model."""
    return symgpu.load("interval_analysis")


@pytest.fixture
def write_model(tmp_path: Path) -> Callable[..., Path]:
    """Write a variant of the tiny model (or raw text) to ``tmp_path/tiny.toml``."""

    def write(raw: str | None = None, *, rhs: str = "Min(P_peak, I*B)", peak: str = "100 TFLOP/s",
              extra_equation: str = "", name: str = "tiny") -> Path:
        text = raw if raw is not None else tiny_text(rhs=rhs, peak=peak, extra_equation=extra_equation)
        path = tmp_path / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``symgpu ARGS...`` in-process: (exit code, stdout, stderr)."""
    from symgpu.cli import app

    def run(*argv: str) -> tuple[int, str, str]:
        code = app.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def assert_one_line_refusal(code: int, out: str, err: str, *words: str) -> None:
    """A refusal: non-zero exit, nothing on stdout, one line on stderr (no traceback) holding each of ``words``."""
    assert code != 0
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    for word in words:
        assert word in lines[0], (word, lines[0])


def bisect_sign_change(f: Callable[[float], float], low: float, high: float) -> float:
    """Where ``f`` changes sign in [low, high], by 200 halvings (plain floats: an oracle independent of symgpu's roots)."""
    assert (f(low) < 0) != (f(high) < 0), "no sign change between the ends"
    for _ in range(200):
        mid = (low + high) / 2
        if (f(mid) < 0) == (f(low) < 0):
            low = mid
        else:
            high = mid
    return (low + high) / 2


def assert_readable(out: str, max_bytes: int = 4000) -> None:
    """Default human output: no line over 200 characters and a bounded size."""
    assert out.strip(), "no output"
    assert max(len(line) for line in out.splitlines()) <= 200
    assert len(out) <= max_bytes


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documentation site, built once per session with warnings as errors (tests/docs_site.py);
    skipped where the docs extra (``pip install -e ".[docs]"``) is not installed."""
    import importlib.util

    import docs_site as site

    missing = [m for m in site.DOCS_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"the docs extra is not installed (no {', '.join(missing)}): pip install -e '.[docs]'")
    root = tmp_path_factory.mktemp("docs")
    done = site.build(root / "html", root / "doctrees")
    assert done.returncode == 0, f"sphinx -W failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return root / "html"
