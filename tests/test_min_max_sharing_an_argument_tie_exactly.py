"""A case condition between two ``Min``'s that share an argument (prior_sim's ``CWP > MWP``: ``Min(n, ...)``
against ``Min(n, ...)``) is tied exactly wherever both take the shared argument, so the scalar path and a
sweep decide it in doubles there, with no exact arithmetic; where the equal doubles are the other arguments'
(``x*y = 0.1*3`` against ``z = 0.30000000000000004``) or the shared argument is within rounding of another
one, they are still decided as the decimals given (:func:`symgpu.evaluate.stepwise.shared_tie`)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import FIXTURES

import symgpu
from symgpu.evaluate import ties
from symgpu.sweep import backends, sweep
from symgpu.sweep.run import iter_chunks

BACKENDS = ["numpy"] + (["numba"] if backends.available("numba") else [])
#: n where both Min's take n (0.25, 0.2999: the sides are n exactly), where both take their other argument
#: (5: 0.3 against 0.30000000000000004, equal doubles), and where n is within rounding of those (0.3, its double
#: 0.29999999999999999; 0.30000000000000004)
NS = ["0.25", "0.2999", "5", "0.3", "0.30000000000000004"]
#: the points (indices into NS) where the sides are equal doubles that may be unequal decimals, or n is not clear
#: of the other arguments: those alone are decided exactly
DOUBTFUL = [2, 3, 4]


def expected(quantity: str, n: str) -> float:
    """The value by Fraction arithmetic on the decimals given (the preset's x = 0.1, y = 3, z = 0.30000000000000004)."""
    x, y, z, m = Fraction("0.1"), Fraction(3), Fraction("0.30000000000000004"), Fraction(n)
    p, q = min(m, x * y), min(m, z)
    holds = p > q if quantity == "q" else p >= q
    return 200.0 if holds else 100.0


@pytest.fixture(scope="module")
def model() -> symgpu.Model:
    return symgpu.load(FIXTURES / "shared_min_tie.toml")


@pytest.mark.parametrize("quantity", ["q", "qe"])
def test_scalar_and_array_evaluate_decide_min_s_sharing_an_argument_as_the_decimals_given(model: symgpu.Model,
                                                                                          quantity: str) -> None:
    # by hand: q (P > Q) is 100 everywhere; qe (P >= Q) is 200 where both take n (0.25, 0.2999, 0.3: P = Q = n) and
    # 100 at n = 5 (0.3 < 0.30000000000000004) and at n = 0.30000000000000004 (P = 0.3 < Q = n), though the doubles
    # of the sides are equal at every point
    want = [expected(quantity, n) for n in NS]
    assert [float(model.evaluate(quantity, "p", n=float(n)).magnitude) for n in NS] == want
    assert list(model.evaluate(quantity, "p", n=np.array([float(n) for n in NS])).magnitude) == want


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("quantity", ["q", "qe"])
def test_a_sweep_decides_min_s_sharing_an_argument_as_scalar_evaluate(model: symgpu.Model, quantity: str,
                                                                       backend: str) -> None:
    result = sweep(model, quantity, preset="p", grid=["n=" + ",".join(NS)], backend=backend)
    assert [float(v) for v in result.columns[quantity]] == [expected(quantity, n) for n in NS]


@pytest.mark.parametrize("backend", BACKENDS)
def test_only_points_where_the_shared_argument_is_in_doubt_are_flagged_near_a_tie(model: symgpu.Model,
                                                                                   backend: str) -> None:
    # both Min's taking n, clear of x*y and z, is an exact tie: not flagged (no exact arithmetic there)
    plan = sweep(model, "qe", preset="p", grid=["n=" + ",".join(NS)], backend=backend).plan
    for size in (2, 5):
        flagged = [int(c.start + i) for c in iter_chunks(plan, backend, chunk_size=size) for i in (c.near if c.near is not None else [])]
        assert flagged == DOUBTFUL
    named = ties.unsettled_points(model, "qe", preset="p", values={"n": np.array([float(n) for n in NS])})
    assert named is not None and sorted(named.tolist()) == DOUBTFUL
