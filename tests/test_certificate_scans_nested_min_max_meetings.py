"""The extremum certificate's scan evaluates the quantity where two arguments of a Min/Max meet, nested ones too (a Min inside
a Max inside a sum), exactly and just beside: a peak narrower than the scan's step cannot slip between its points (outside
tester round 13c F11: mintent's 0.0005 us wide bump, max 2250.25 ns at x = 2.00025 us; mintent2's, 4500 ns at 1.5 us)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

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


def _mintent(x: Fraction) -> Fraction:  # in us, by hand
    return min(x, Fraction("4.001") - x) + max(Fraction(0), 1000 * min(x - 2, Fraction("2.0005") - x))


def _brute(f, lo: Fraction, hi: Fraction, step: Fraction, kind: str) -> tuple[Fraction, Fraction]:
    xs = [lo + k * step for k in range(int((hi - lo) / step) + 1)]
    best = (max if kind == "max" else min)(xs, key=f)
    return best, f(best)


def test_the_nested_min_meeting_point_is_in_the_certificates_scan(tmp_path: Path) -> None:
    model = api.load(_write(tmp_path, "mintent", MINTENT))
    at = meeting_points(model, Asked("extremum", "q", "x", preset="g"), _Point("preset g", "g", {}))
    where, _ = _brute(_mintent, Fraction(1), Fraction(4), Fraction(1, 100000), "max")
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
    def f(x: Fraction) -> Fraction:
        if name == "mintent":
            return _mintent(x)
        if name == "mintent2":
            return min(x, 8 - x) + max(Fraction(0), 6 * min(x - 1, 2 - x))
        return max(x, Fraction("4.001") - x) - max(Fraction(0), 1000 * min(x - 2, Fraction("2.0005") - x))
    where, value = _brute(f, Fraction(1, 100), Fraction(7), Fraction(1, 100000), kind)
    assert where == Fraction(at_us)
    code = cli.main(["extremum", str(_write(tmp_path, name, rhs)), "q", "--over", "x", f"--{kind}"])
    out = capsys.readouterr().out
    assert code in (0, None), out
    assert f"value: {float(value * 1000):g} ns at x = {float(where):g} us" in out
