"""A cusp whose own regimes do not hold at the point itself: a case that applies only on a tie
(Hong & Kim's eq22, ``MWP = N`` and ``CWP = N``) gives the value there. The quantity approaches the
cusp's value from both sides without taking it, so the cusp is no extremum: the engine used to
claim it as the minimum (and its certificate refused the claim: "check failed ... please report
it"). It now says there is no minimum, or gives the tie's value where that one is lower.

The model here (``tests/fixtures/cusp_tie.toml``): ``y = Max(x, c**2/x)``, except where ``Min(x, c)``
ties (``x = c``), where a case gives ``k*x``. Off the tie, ``y >= c`` with equality only at ``x = c``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu import errors

from conftest import FIXTURES

#: the model, with the tie case's value k*x (k = 3 at the preset: 6 at the tie, above the c = 2 approached beside it)
CUSP = FIXTURES / "cusp_tie.toml"


def _y(path: Path, x: float, k: float = 3.0) -> float:
    return float(symgpu.load(path).evaluate("y", "toy", values={"x": x, "k": k}).magnitude)


def test_the_premise_the_quantity_approaches_c_and_the_tie_gives_another_value() -> None:
    assert _y(CUSP, 2.0) == 6.0  # the tie: 3*x at x = c = 2
    for step in (1e-3, 1e-6):  # both sides tend to c = 2, from above
        assert 2.0 < _y(CUSP, 2.0 - step) < 2.0 + 2 * step and 2.0 < _y(CUSP, 2.0 + step) < 2.0 + 2 * step


def test_a_cusp_that_is_not_attained_is_no_minimum(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("extremum", CUSP, "y", "--over", "x", "--min", "--preset", "toy")
    assert code == 2 and out == ""
    assert "y has no minimum over x at the given values: it tends to 2 cycle as x -> 2 cycle" in err
    assert "check failed" not in err and "Traceback" not in err
    with pytest.raises(errors.DerivationError, match="it tends to c as x -> c, where two regimes meet"):
        symgpu.load(CUSP).extremum("y", over="x", kind="min", substitute={"k": "3"})


def test_a_tie_value_below_the_approached_one_is_the_minimum() -> None:
    answer = symgpu.load(CUSP).extremum("y", over="x", kind="min", preset="toy", values={"k": 0.5})
    # brute force on the evaluate path: off x = 2 every value is at least 2; at x = 2 it is k*x = 1
    xs = np.geomspace(1e-3, 1e3, 4001)
    assert min(_y(CUSP, x, 0.5) for x in xs[::40]) >= 2.0 and _y(CUSP, 2.0, 0.5) == 1.0
    assert (str(answer.location), str(answer.result), answer.extra.value_at) == ("c", "c*k", 1.0)
    assert answer.certificate is not None and answer.certificate.checks


def test_the_closed_form_says_where_the_tie_wins_and_that_it_is_no_minimum_elsewhere() -> None:
    model = symgpu.load(CUSP)
    answer = model.extremum("y", over="x", kind="min")
    assert str(answer.location) == "c" and str(answer.result) == "c*k"
    assert [str(c) for c in answer.extra.valid_when] == ["k <= 1"]  # k*c beats the approached c only where k <= 1
    [cusp] = answer.extra.approached
    assert (str(cusp.location), str(cusp.value)) == ("c", "c")
    # at k = 3 the tie loses: no minimum, as the evaluate path shows (2 is approached, 6 is taken)
    with pytest.raises(errors.DerivationError, match="no minimum"):
        model.extremum("y", over="x", kind="min", preset="toy")


def test_the_certificate_accepts_no_minimum_only_beside_a_cusp_it_can_see_is_not_attained() -> None:
    from types import MappingProxyType

    from symgpu.derive import certify
    from symgpu.derive.certify_path import Asked, _Point
    model = symgpu.load(CUSP)
    answer = model.extremum("y", over="x", kind="min")
    asked = Asked("extremum", "y", "x")
    at = {k: _Point(f"toy k={k}", "toy", MappingProxyType({"k": k})) for k in (3.0, 0.9)}
    # k = 3: y tends to c = 2 beside x = 2 and is 6 there; a scan whose best is 2.0000001 beats nothing
    assert "tends to 2 as x -> 2 and is 6 there" in certify._approached(model, answer, asked, at[3.0], -1.0, 2.0000001)
    assert certify._approached(model, answer, asked, at[3.0], -1.0, 1.5) is None  # a scan point below 2: not explained
    assert certify._approached(model, answer, asked, at[0.9], -1.0, 2.0) is None  # y(2) = 1.8 < 2: the cusp is attained


def test_a_tie_of_one_equality_leaves_its_neighbours_condition_open_at_the_point(write_model: Callable[..., Path]) -> None:
    # with a tie case "Eq(x, c)" the other case's condition is Ne(x, c): false at x = c, true on both sides
    path = write_model(CUSP.read_text(encoding="utf-8").replace('"And(Eq(m, x), Eq(m, c))"', '"Eq(x, c)"'), name="cusp_tie")
    model = symgpu.load(path)
    assert _y(path, 2.0, 0.5) == 1.0 and _y(path, 2.0 + 1e-6, 0.5) > 2.0  # the premise: 1 at the tie, above 2 beside it
    answer = model.extremum("y", over="x", kind="min", preset="toy", values={"k": 0.5})
    assert (str(answer.location), answer.extra.value_at) == ("c", 1.0)
