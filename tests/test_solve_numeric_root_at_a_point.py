"""A solve whose unknown sits inside a log and outside it (no closed form) is answered at a point that gives every
other input: the roots bracketed by a scan of the variable and bisected on the evaluate path, then checked like any
answer (round 10's finding: ``solve volkov_2016_h100 dram_throughput --for ilp`` was refused with advice to sweep).
Expected roots by an independent bisection: of Model.evaluate, and of the toy model's formula written here by hand."""

from __future__ import annotations

import math
import re

import pytest

from conftest import bisect_sign_change, toy_header
import symgpu

TOY = toy_header("logm", "log toy", "a quantity with its variable inside a log and outside it") + """
[symbols.y]
description = "the quantity"
unit = "cycle"
role = "output"

[symbols.x]
description = "the variable"
unit = "1"
assumptions = ["positive"]

[symbols.k]
description = "a scale"
unit = "cycle"
assumptions = ["positive"]

[[equations]]
id = "eq1"
defines = "y"
rhs = "k*(x**2 - 3*log(x) + sqrt(x))"
source = { ref = "toy2026", locator = "Eq. (1)" }

[presets.toy]
description = "round numbers"
source = { ref = "toy2026", locator = "Table 1" }
[presets.toy.values]
k = "1 cycle"
"""


def _value_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("  value:"))


def test_ilp_for_a_throughput_target_on_the_h100_fit_is_the_root_bisection_finds(cli):
    code, out, err = cli("--no-cache", "solve", "volkov_2016_h100", "dram_throughput", "--for", "ilp", "--target", "2500",
                         "-p", "h100_fit", "-s", "n=8", "-s", "alpha=0")
    assert code == 0, err
    model = symgpu.load("volkov_2016_h100")
    expected = bisect_sign_change(lambda ilp: model.evaluate("dram_throughput", "h100_fit", values={"n": 8, "alpha": 0, "ilp": ilp})
                                  .to("GB/s").magnitude - 2500, 1, 1000)
    value = float(re.search(r"value: ([0-9.e+-]+) winst/warp", _value_line(out)).group(1))
    assert value == pytest.approx(expected, rel=1e-9)
    assert "method: numeric" in out and "checked numerically at preset h100_fit" in out


def test_both_roots_of_a_user_models_log_equation_are_found(cli, write_model):
    path = write_model(TOY, name="logm")
    code, out, err = cli("--no-cache", "solve", str(path), "y", "--for", "x", "--target", "2", "-p", "toy")
    assert code == 0, err

    def f(x: float) -> float:  # x**2 - 3 log x + sqrt x - 2, by hand: 0 at x = 1, and once more past its minimum
        return x * x - 3 * math.log(x) + math.sqrt(x) - 2

    assert f(1.0) == 0
    lo, hi = 1.1, 2.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (f(mid) < 0) == (f(lo) < 0) else (lo, mid)
    roots = [float(v) for v in re.findall(r"[0-9][0-9.e+-]*", _value_line(out).split("(preset")[0])]
    assert roots[0] == pytest.approx(1.0, rel=1e-12) and roots[1] == pytest.approx(lo, rel=1e-12) and len(roots) == 2


def test_a_root_sympy_gives_through_lamberts_w_is_found_numerically_at_a_point(cli, write_model):
    # x**2 - 3 log x = 2: SymPy's roots go through Lambert's W (of a complex argument), which symgpu neither evaluates nor
    # unit-checks (it refused: "cannot check the dimension of LambertW"); at the preset both roots, by hand bisection here
    path = write_model(TOY.replace("x**2 - 3*log(x) + sqrt(x)", "x**2 - 3*log(x)"), name="logm")
    code, out, err = cli("--no-cache", "solve", str(path), "y", "--for", "x", "--target", "2", "-p", "toy")
    assert code == 0, err

    def f(x: float) -> float:  # falls to its minimum at sqrt(3/2), then rises
        return x * x - 3 * math.log(x) - 2

    expected = []
    for lo, hi in ((0.1, math.sqrt(1.5)), (math.sqrt(1.5), 10.0)):
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if (f(mid) < 0) == (f(lo) < 0) else (lo, mid)
        expected.append(lo)
    roots = [float(v) for v in re.findall(r"[0-9][0-9.e+-]*", _value_line(out).split("(preset")[0])]
    assert roots == pytest.approx(expected, rel=1e-12)


def test_without_a_point_the_solve_is_still_refused_saying_why(cli):
    code, out, err = cli("--no-cache", "solve", "volkov_2016_h100", "dram_throughput", "--for", "ilp", "--target", "2500")
    assert code != 0 and out == "" and "no closed form" in err and "Traceback" not in err


def test_a_target_beyond_the_range_at_the_point_says_so(cli):
    # at n = 8, alpha = 0 dram_throughput rises with ilp towards the preset's c = 3139.56 GB/s (brute force below)
    model = symgpu.load("volkov_2016_h100")
    assert model.evaluate("dram_throughput", "h100_fit", values={"n": 8, "alpha": 0, "ilp": 1e9}).to("GB/s").magnitude < 3500
    code, out, err = cli("--no-cache", "solve", "volkov_2016_h100", "dram_throughput", "--for", "ilp", "--target", "3500",
                         "-p", "h100_fit", "-s", "n=8", "-s", "alpha=0")
    assert code == 1 and "stays below the target 3500" in err
