"""Shared fixtures: bundled models and a tiny model written to a temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import symgpu
from symgpu import memo

# The suite never reads or writes the user's cache: a fresh, empty cache folder per run, removed
# when the run ends.
CACHE = tempfile.mkdtemp(prefix="symgpu-test-cache-")
os.environ["SYMGPU_CACHE_DIR"] = CACHE
os.environ.pop("SYMGPU_NO_CACHE", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _DOCS.build is not None:  # a background build of the docs site this process started (docs_site below)
        _DOCS.build.wait()
    shutil.rmtree(CACHE, ignore_errors=True)
    if _DOCS.own is not None:
        shutil.rmtree(_DOCS.own, ignore_errors=True)

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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "clears_for_good: the test's memo.clear_all() are not undone when it ends (a test "
                            "that proves what a clear lets go: the entries kept to be put back would hold it)")


@pytest.fixture(autouse=True)
def _clears_undone(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test runs in :func:`symgpu.memo.undoing_clears`: a test that clears the memos (``memo.clear_all()``,
    ``empty_store``) starts cold, and after it the memos hold again what they held before its clear (what it put in
    is dropped), so the tests after it do not pay to warm them again (~1 s of CPU per clear). Autouse and first of
    the test's fixtures, it is torn down last: the environment the test changed (``monkeypatch``) is back before the
    memos are. A test that does not clear pays one context manager; one marked ``clears_for_good`` clears as
    without it."""
    if request.node.get_closest_marker("clears_for_good") is not None:
        yield
        return
    with memo.undoing_clears():
        yield


@pytest.fixture
def empty_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh cache folder, with nothing read from the store yet in this process (the memos cleared): what a test
    finds in the store is what it put there, not what another test of the run kept in the shared one."""
    monkeypatch.setenv("SYMGPU_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SYMGPU_NO_CACHE", raising=False)
    memo.clear_all()
    return tmp_path


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


@pytest.fixture
def refused_whole(cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> Callable[..., symgpu.ModelFileError]:
    """Assert that the paths that build a model file whole refuse it, all with one message, and return the error:
    ``symgpu.load(path, whole=True)`` raises ``kind`` (its message matching ``match``), ``symgpu check`` prints each
    of its problems as a FAIL line and ``symgpu report`` stops with it. (A question's load builds and checks only
    what the question reads (issue 31), so a defect in a part no question reads is found by these paths.)"""

    def refused(path: Path, kind: type[symgpu.ModelFileError] = symgpu.ModelFileError, match: str | None = None) -> symgpu.ModelFileError:
        with pytest.raises(kind, match=match) as info:
            symgpu.load(path, whole=True)
        problems = [f"FAIL {problem}" for problem in getattr(info.value, "problems", (info.value,))]
        code, out, _ = cli("check", path)
        assert code == 1 and [line for line in out.splitlines() if line.startswith("FAIL ")] == problems, out
        code, out, err = cli("report", path, "-o", tmp_path / "refused_report")
        assert code == 2 and out == "" and err == f"symgpu: error: {info.value}\n", err
        return info.value

    return refused


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


class _DocsBuild:
    """This process's docs site build: its folder, the temporary folder it made for it (removed when
    the run ends; None when the folder is the run's shared one) and the background build it started."""

    folder: Path | None = None
    own: Path | None = None
    build: subprocess.Popen[bytes] | None = None


_DOCS = _DocsBuild()


def docs_folder(config: pytest.Config) -> Path:
    """Where the documentation site is built, once per test run: in a folder of the run's base
    temporary folder that every xdist worker shares (a worker's own is ``BASE/popen-gwN``), else
    (``-n 0``) in a temporary folder of this process, removed when the run ends. Each run's folder is
    new: no build of an earlier run or another checkout is ever found there."""
    if _DOCS.folder is None:
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        base = Path(config.option.basetemp) if worker and config.option.basetemp else None
        if base is not None and base.name == f"popen-{worker}":
            _DOCS.folder = base.parent / "docs-site"
        else:
            _DOCS.folder = _DOCS.own = Path(tempfile.mkdtemp(prefix="symgpu-test-docs-"))
    return _DOCS.folder


def _docs_extra_missing() -> list[str]:
    import importlib.util

    import docs_site as site

    return [m for m in site.DOCS_MODULES if importlib.util.find_spec(m) is None]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start building the docs site in the background as soon as a test to run needs it (the
    ``docs_site`` fixture waits for that build)."""
    if session.config.option.collectonly or not any("docs_site" in getattr(item, "fixturenames", ()) for item in session.items):
        return
    if not _docs_extra_missing():
        import docs_site as site

        _DOCS.build = site.start(docs_folder(session.config))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A background build of the docs site still running when nobody will wait for it is stopped: this
    process's own (its tests are done: ``-x`` stopped them, say), or an interrupted run's; one the run's
    other workers share is waited for (pytest_unconfigure)."""
    if _DOCS.build is not None and (_DOCS.own is not None or exitstatus == pytest.ExitCode.INTERRUPTED):
        import docs_site as site

        site.stop(_DOCS.build)


@pytest.fixture(scope="session")
def docs_site(request: pytest.FixtureRequest) -> Path:
    """The documentation site, built once per test run with warnings as errors (tests/docs_site.py:
    started when the tests were collected, shared by the xdist workers); skipped where the docs extra
    (``pip install -e ".[docs]"``) is not installed."""
    import docs_site as site

    missing = _docs_extra_missing()
    if missing:
        pytest.skip(f"the docs extra is not installed (no {', '.join(missing)}): pip install -e '.[docs]'")
    folder = docs_folder(request.config)
    done = site.built(folder)
    assert done.returncode == 0, f"sphinx -W failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return folder / "html"
