"""``symgpu sweep --no-checks`` says once on stderr that values outside the ``valid_when`` domains are written, not
blanked (an audit's finding: a negative latency was written without a word), whether the full command or a stored
plan (:mod:`symgpu.cli.sweep_replay`) answers; stdout and the file are as before."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import read_fixture

ROOT = Path(__file__).resolve().parent.parent
#: the command line in a fresh process, saying whether SymPy was imported (the stored plan's path imports none)
PROBE = "import sys; from symgpu.cli import main; code = main(sys.argv[1:]); print('imported sympy', 'sympy' in sys.modules); sys.exit(code)"
NOTE = ("symgpu: note: --no-checks: assumptions and valid_when domains are not checked, so values at points outside a "
        "domain are written as computed, not blanked (NaN)\n")


def _headroom(tmp_path: Path) -> Path:
    """P = P_peak - I*B, valid when I*B <= P_peak (100 TFLOP/s, B = 2 TB/s in preset toy: I <= 50 FLOP/B)."""
    text = (read_fixture("tiny").replace('rhs = "Min(P_peak, I*B)"', 'rhs = "P_peak - I*B"\nvalid_when = ["I*B <= P_peak"]'))
    path = tmp_path / "tiny.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _sweep(path: Path, out: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYMGPU_NO_CACHE"} | {
        "SYMGPU_CACHE_DIR": str(cache), "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    argv = ["sweep", str(path), "P", "-p", "toy", "-g", "I=10:100:10", "-o", str(out), *extra]
    return subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)


def _column(path: Path) -> list[str]:
    with path.open(newline="") as f:
        return [row["P [FLOP/s]"] for row in csv.DictReader(f)]


def test_no_checks_says_once_that_values_outside_the_domain_are_written_by_either_path(tmp_path: Path) -> None:
    model, cache = _headroom(tmp_path), tmp_path / "cache"
    checked = _sweep(model, tmp_path / "checked.csv", cache)
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr  # checks on: no note, the points outside NaN
    full = _sweep(model, tmp_path / "full.csv", cache, "--no-checks")
    assert full.returncode == 0 and "imported sympy True" in full.stdout, full.stderr
    assert full.stderr == NOTE
    again = _sweep(model, tmp_path / "again.csv", cache, "--no-checks")  # the stored plan answers it
    assert again.returncode == 0 and "imported sympy False" in again.stdout, again.stderr
    assert again.stderr == NOTE
    assert (tmp_path / "again.csv").read_bytes() == (tmp_path / "full.csv").read_bytes()
    # what the note warns of: I = 60..100 FLOP/B give P = 100 - 2*I TFLOP/s < 0, written as computed; checked, NaN
    kept, blanked = _column(tmp_path / "full.csv"), _column(tmp_path / "checked.csv")
    for i, (value, checked_value) in enumerate(zip(kept, blanked)):
        intensity = 10 * (i + 1)
        assert float(value) == (100 - 2 * intensity) * 1e12
        assert (checked_value.lower() in ("", "nan")) == (intensity > 50)
