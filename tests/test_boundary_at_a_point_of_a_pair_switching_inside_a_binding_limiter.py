"""``boundary --between A B`` at a point, where A and B are regimes of a nested Min inside a Max that binds on both
sides (``c*x`` reaching its cap ``B`` under ``Max(L/x, ..., d)``), is answered where the two change places, not refused
with "do not meet" (an outside tester's finding, round 14b F3); a pair that never changes places there is refused naming
what does switch; and the certificate at a point with no pair named says what was checked: the regime scan, each change
bisected, and the closed form's values that are no switch there.

Expected values are computed here, independently: an exact ``Fraction`` scan of the binding leaf (the argument that gives
the value, followed from the outermost Min/Max down), each change bisected (the helpers of
``test_boundary_at_a_point_is_every_change_of_the_binding_argument``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction as F
from pathlib import Path

import pytest

from tests.test_boundary_at_a_point_is_every_change_of_the_binding_argument import _changes, _model, _pick, _values

T = 'rhs = "Max(L/x, Min(B, c*x), d)"'


def _t_leaf(v: dict[str, F]) -> Callable[[F], str]:
    def leaf(x: F) -> str:
        inner = _pick([("B", v["B"]), ("c*x", v["c"] * x)], largest=False)
        return _pick([("L/x", v["L"] / x), inner, ("d", v["d"])], largest=True)[0]
    return leaf


def _b1_leaf(v: dict[str, F]) -> Callable[[F], str]:
    def leaf(x: F) -> str:
        return _pick([_pick([("a/x", v["a"] / x), ("b", v["b"])], True), ("c+d*x", v["c"] + v["d"] * x)], False)[0]
    return leaf


def _swaps(leaf: Callable[[F], str], pair: set[str], top: float) -> list[float]:
    """The changes of the binding leaf (:func:`_changes`) between the two leaves of ``pair``."""
    return [x for x in _changes(leaf, top) if {leaf(F(x) * (1 - F(1, 10**6))), leaf(F(x) * (1 + F(1, 10**6)))} == pair]


@pytest.mark.parametrize(("rhs", "preset", "leaf_of", "between", "leaves", "regimes"), [
    # T at L=100, B=40, c=2, d=30: c*x under the Max until it reaches B at x = 20, the Max binding through the Min on both sides
    (T, {"L": "100", "B": "40", "c": "2", "d": "30"}, _t_leaf, ("min_arg1+max_arg3", "min_arg2+max_arg3"), {"c*x", "B"},
     {19: "min_arg2+max_arg3 = c*x", 21: "min_arg1+max_arg3 = B"}),
    # the tester's shJ B1 at a=100, b=5, c=2, d=1: a/x falls to b at x = 20 under the Max, the Min binding through it on both sides
    ('rhs = "Min(Max(a/x, b), c + d*x)"', {"a": "100", "b": "5", "c": "2", "d": "1"}, _b1_leaf,
     ("max_arg2+min_arg2", "max_arg1+min_arg2"), {"a/x", "b"}, {19: "max_arg2+min_arg2 = a/x", 21: "max_arg1+min_arg2 = b"}),
])
def test_a_pair_changing_places_inside_a_binding_limiter_is_answered_where_it_does(
        cli, tmp_path: Path, rhs: str, preset: dict[str, str], leaf_of: Callable[..., Callable[[F], str]], between: tuple[str, str],
        leaves: set[str], regimes: dict[int, str]) -> None:
    expected = _swaps(leaf_of({k: F(v) for k, v in preset.items()}), leaves, 200)
    assert expected == pytest.approx([20], rel=1e-9)
    path = _model(tmp_path, "nested", rhs, preset)
    for x, named in regimes.items():  # the pair's names, as the model's own regime table gives them on each side
        code, out, err = cli("regimes", path, "Q", "--preset", "p", "--set", f"x={x}")
        assert code == 0 and f"active: {named}" in out, out + err
    code, out, err = cli("boundary", path, "Q", "--for", "x", "--preset", "p", "--between", *between)
    assert code == 0, err
    assert _values(out) == pytest.approx(expected, rel=1e-7)


def test_a_pair_that_never_changes_places_is_refused_naming_what_switches(cli, tmp_path: Path) -> None:
    """At B=4, c=2, d=10 the Min (at most 4) never binds under the Max (d = 10): the only switch is L/x -> d at x = 10."""
    leaf = _t_leaf({"L": F(100), "B": F(4), "c": F(2), "d": F(10)})
    assert _swaps(leaf, {"c*x", "B"}, 200) == []
    assert _changes(leaf, 200) == pytest.approx([10], rel=1e-9)
    path = _model(tmp_path, "shC", T, {"L": "100", "B": "4", "c": "2", "d": "10"})
    code, out, err = cli("boundary", path, "Q", "--for", "x", "--preset", "p", "--between", "min_arg1+max_arg3", "min_arg2+max_arg3")
    assert code == 1 and "value:" not in out and len(err.strip().splitlines()) == 1, out + err
    found = re.search(r"do not meet .*\(at x = ([0-9.e+-]+) the regime switches from L/x to d: a switch the question does not name\)", err)
    assert found is not None, err
    assert float(found.group(1)) == pytest.approx(10, rel=1e-9)


def test_the_certificate_at_a_point_names_the_scan_and_the_switches_it_checked(cli, tmp_path: Path) -> None:
    """T at L=100, B=40, c=2, d=30, no pair named: the certificate gives the values the scan found (those of the value line),
    not a count of the closed form's pairs, and each closed-form value it calls no switch is none (the leaf is the same on
    both sides)."""
    leaf = _t_leaf({"L": F(100), "B": F(40), "c": F(2), "d": F(30)})
    expected = _changes(leaf, 200)
    path = _model(tmp_path, "shC", T, {"L": "100", "B": "40", "c": "2", "d": "30"})
    code, out, err = cli("boundary", path, "Q", "--for", "x", "--preset", "p", "--full")
    assert code == 0, err
    checked = next(line for line in out.splitlines() if "checked numerically" in line)
    assert "-point scan of the regime over x" in checked and "each change bisected" in checked and " of 13 " not in checked, checked
    switches = re.search(r"it switches at x = ([0-9., ]+), the regime differing on the two sides", checked)
    assert switches is not None, checked
    assert [float(s) for s in switches.group(1).split(",")] == pytest.approx(expected, rel=1e-5)
    assert _values(out) == pytest.approx(expected, rel=1e-7)
    others = re.search(r"the closed form's ([0-9., ]+) (?:is no switch|are no switches) here", checked)
    # (at a point the regimes that hold nowhere there are screened before pairing: the closed form may name none that is no switch)
    for x in (F(s.strip()) for s in (others.group(1).split(",") if others else ())):
        assert leaf(x * (1 - F(1, 10**4))) == leaf(x * (1 + F(1, 10**4))), x
