"""An inequality whose quantity no layer-by-layer inversion isolates (Volkov's latency-bound root
x_latency_root_ilp = 2*n*ilp*C/(A*C + n*ilp + sqrt((A*C - n*ilp)**2 + 4*b*n*ilp*C)), equations/volkov_2016_ilp.toml)
is answered at a point from the roots of its equation and the sign beside them (outside tester round 5, F17).

Expected values by brute force over Model.evaluate (bisection of x_latency_root_ilp(n) - target), never from the answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import symgpu

from conftest import FIXTURES

MODEL, QUANTITY = "volkov_2016_ilp", "x_latency_root_ilp"
AT = ("-p", "h100_fit_alpha0", "-s", "alpha=0", "-s", "ilp=1")


def _x(model: symgpu.Model, preset: str, values: dict[str, float], n: float) -> float:
    return float(model.evaluate(QUANTITY, preset, values={**values, "n": n}).magnitude)


def _crossing(preset: str, values: dict[str, float], target: float) -> float:
    """Where x_latency_root_ilp reaches ``target``, bisected on the evaluate path (it rises with n: checked at the ends)."""
    model = symgpu.load(MODEL)
    lo, hi = 1e-3, 1e4
    assert _x(model, preset, values, lo) < target < _x(model, preset, values, hi)
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _x(model, preset, values, mid) < target else (lo, mid)
    return (lo + hi) / 2


@pytest.mark.parametrize("relation, side", [(">=", ">="), (">", ">"), ("<=", "<="), ("<", "<")])
def test_each_relation_is_the_side_of_the_one_crossing_where_it_holds(cli: Any, relation: str, side: str):
    # x rises with n: x >= 0.05 exactly above the crossing (the tester's 41.47727, eval 0.0499928 at 41.47, 0.0500027 at 41.48)
    root = _crossing("h100_fit_alpha0", {"alpha": 0.0, "ilp": 1.0}, 0.05)
    assert root == pytest.approx(41.4772718855, rel=1e-9)
    code, out, err = cli("solve", MODEL, QUANTITY, "--for", "n", "--target", "0.05", "--relation", relation, *AT, "--json")
    assert code == 0, out + err
    answer = json.loads(out)
    assert answer["value"] == pytest.approx(root, rel=1e-9)
    assert answer["extra"]["relation"].startswith(f"n {side} ")


def test_the_smallest_value_meeting_it_is_the_crossing(cli: Any):
    root = _crossing("kepler", {"alpha": 8.0, "ilp": 2.0}, 0.05)
    code, out, err = cli("solve", MODEL, QUANTITY, "--for", "n", "--target", "0.05", "--relation", ">=", "--kind", "min",
                         "-p", "kepler", "-s", "alpha=8", "-s", "ilp=2", "--json")
    assert code == 0, out + err
    assert json.loads(out)["value"] == pytest.approx(root, rel=1e-9)


def test_a_target_beyond_the_asymptote_is_met_by_no_n_and_said_so(cli: Any):
    # x tends to c_ipc = 0.0899 (eval at n = 1e9) and never reaches 0.1: the closed form's root 10.04 is a squared form's
    model = symgpu.load(MODEL)
    assert _x(model, "h100_fit_alpha0", {"alpha": 0.0, "ilp": 1.0}, 1e9) < 0.09
    code, out, err = cli("solve", MODEL, QUANTITY, "--for", "n", "--target", "0.1", "--relation", ">=", *AT)
    assert code == 1 and "value:" not in out and len(err.strip().splitlines()) == 1, out + err
    assert "no admissible n satisfies x_latency_root_ilp >= 1/10" in err, err


def test_without_a_point_the_refusal_says_where_it_is_answered(cli: Any):
    code, out, err = cli("solve", MODEL, QUANTITY, "--for", "n", "--target", "0.05", "--relation", ">=")
    assert code == 2 and len(err.strip().splitlines()) == 1, out + err
    assert "cannot isolate n in the product" in err and "at a point (--preset, --set) it is answered from the roots" in err, err


def test_a_target_of_zero_keeps_its_crossing(cli: Any):
    # tests/fixtures/rootz.toml: y = sqrt(x**2 + 3x + 5) - 2x at preset p. y = 0 where x**2 + 3x + 5 = 4x**2, i.e.
    # 3x**2 - 3x - 5 = 0, x = (3 + sqrt(69))/6 = 1.88443731 (the other root is negative), and y falls through 0 there:
    # y(1) = 3 - 2 > 0, y(3) = sqrt(23) - 6 < 0. A target of 0 gave the residual no scale, so the crossing was dropped.
    root = (3 + 69 ** 0.5) / 6
    model = symgpu.load(str(FIXTURES / "rootz.toml"))
    assert float(model.evaluate("y", "p", x=1).magnitude) > 0 > float(model.evaluate("y", "p", x=3).magnitude)
    code, out, err = cli("solve", str(FIXTURES / "rootz.toml"), "y", "--for", "x", "--target", "0", "--relation", ">=", "-p", "p",
                         "--json")
    assert code == 0, out + err
    answer = json.loads(out)
    assert answer["value"] == pytest.approx(root, rel=1e-9)
    assert answer["extra"]["relation"].startswith("x <= ")
