"""The extremum certificate's scan evaluates the quantity where two arguments of a Min/Max meet, nested ones too (a Min inside
a Max inside a sum), exactly and just beside: a peak narrower than the scan's step cannot slip between its points (outside
tester round 13c F11: mintent's 0.0005 us wide bump, max 2250.25 ns at x = 2.00025 us; mintent2's, 4500 ns at 1.5 us)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from symgpu import cli
from symgpu.derive.certify_path import Asked, _Point, meeting_points
from symgpu import api

MODEL = "\n".join([
    "schema_version = 1",
    'model = {{ id = "{id}", title = "A tent with a narrow bump", summary = "Min/Max only.", references = ["me"] }}',
    'references.me = {{ authors = ["T"], title = "Z", venue = "notes", year = 2026 }}',
    'symbols.x = {{ description = "phase length", unit = "us", assumptions = ["positive"] }}',
    'symbols.q = {{ description = "stall", unit = "ns", role = "output" }}',
    'equations = [{{ id = "zz", defines = "q", rhs = "{rhs}", source = {{ ref = "me", locator = "1" }} }}]',
    'presets.g = {{ description = "empty", source = {{ ref = "me", locator = "t" }}, values = {{}} }}', ""])

MINTENT = "Min(x, 4.001 - x) + Max(0, 1000*Min(x - 2, 2.0005 - x))"
MINTENT2 = "Min(x, 8 - x) + Max(0, 6*Min(x - 1, 2 - x))"
DIP = "Max(x, 4.001 - x) - Max(0, 1000*Min(x - 2, 2.0005 - x))"


def _write(tmp_path: Path, name: str, rhs: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(MODEL.format(id=name, rhs=rhs))
    return path


STEP = Fraction(1, 100000)  # the brute force's grid: x = k*STEP us, k an integer


def _exact(text: str | int | Fraction) -> Fraction:
    return Fraction(text)


def _in_steps(text: str | int | Fraction) -> int:
    """A constant in whole grid steps (exact: the constants are multiples of STEP), small enough that no sum below overflows."""
    steps = Fraction(text) / STEP
    assert steps.denominator == 1 and abs(steps) < 2**31, text
    return int(steps)


# Each quantity in us, by hand, once: `c` lifts a constant, `lo`/`hi` are Min/Max. With Fractions it is the quantity itself; with
# an int64 array of grid indices k and constants in steps it is the quantity at k*STEP divided by STEP (Min, Max, sums and
# positive multiples commute with the scaling), exactly: |k|, |c| < 2**31 (asserted) and the multipliers 1000 and 6 keep every
# intermediate below 2**43, far from int64's 2**63.
def _mintent(x: Any, c: Callable[[str | int | Fraction], Any] = _exact, lo: Any = min, hi: Any = max) -> Any:
    return lo(x, c("4.001") - x) + hi(c(0), 1000 * lo(x - c(2), c("2.0005") - x))


def _mintent2(x: Any, c: Callable[[str | int | Fraction], Any] = _exact, lo: Any = min, hi: Any = max) -> Any:
    return lo(x, c(8) - x) + hi(c(0), 6 * lo(x - c(1), c(2) - x))


def _dip(x: Any, c: Callable[[str | int | Fraction], Any] = _exact, lo: Any = min, hi: Any = max) -> Any:
    return hi(x, c("4.001") - x) - hi(c(0), 1000 * lo(x - c(2), c("2.0005") - x))


def _brute(f: Callable[..., Any], lo: Fraction, hi: Fraction, kind: str) -> tuple[Fraction, Fraction]:
    """The first grid point lo, lo + STEP, ... <= hi where f is largest (smallest), and f there: every point evaluated exactly,
    in int64 grid steps; a sample of points (and every point near the answer) is checked against f in Fractions."""
    first = _in_steps(lo)
    ks = np.arange(first, first + int((hi - lo) / STEP) + 1, dtype=np.int64)  # the points lo + k*STEP <= hi
    assert abs(int(ks[-1])) < 2**31
    values = f(ks, _in_steps, np.minimum, np.maximum)
    assert values.dtype == np.int64
    at = int(np.argmax(values) if kind == "max" else np.argmin(values))  # the first of equals, as max()/min() pick
    sample = set(range(0, len(ks), 997)) | set(range(max(at - 200, 0), min(at + 201, len(ks)))) | {len(ks) - 1}
    for i in sorted(sample):
        assert f(int(ks[i]) * STEP) == int(values[i]) * STEP, i
    return int(ks[at]) * STEP, int(values[at]) * STEP


def test_the_nested_min_meeting_point_is_in_the_certificates_scan(tmp_path: Path) -> None:
    model = api.load(_write(tmp_path, "mintent", MINTENT))
    at = meeting_points(model, Asked("extremum", "q", "x", preset="g"), _Point("preset g", "g", {}))
    where, _ = _brute(_mintent, Fraction(1), Fraction(4), "max")
    assert where == Fraction("2.00025")
    for point in (2.00025, 2.0005):  # the inner Min's meeting point, and the outer Min's (4.001/2)
        assert np.isclose(at, point, rtol=1e-12, atol=0).any()
    assert np.isclose(at, 2.00025 * (1 + 1e-9), rtol=1e-13, atol=0).any()  # and just beside it


@pytest.mark.parametrize(("name", "rhs", "kind", "at_us"), [
    ("mintent", MINTENT, "max", "2.00025"),
    ("mintent2", MINTENT2, "max", "1.5"),
    ("dip", DIP, "min", "2.00025"),
])
def test_extremum_of_a_nested_min_max_cusp_is_the_brute_force_one(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                                                   rhs: str, kind: str, at_us: str) -> None:
    f = {"mintent": _mintent, "mintent2": _mintent2, "dip": _dip}[name]
    where, value = _brute(f, Fraction(1, 100), Fraction(7), kind)
    assert where == Fraction(at_us)
    code = cli.main(["extremum", str(_write(tmp_path, name, rhs)), "q", "--over", "x", f"--{kind}"])
    out = capsys.readouterr().out
    assert code in (0, None), out
    assert f"value: {float(value * 1000):g} ns at x = {float(where):g} us" in out
