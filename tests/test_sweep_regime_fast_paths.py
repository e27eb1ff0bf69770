"""The NumPy sweep's regime decisions at full size (one comparison with the exact edge of the
smaller side's tie interval, or two against thresholds with near ties left to the rule) give
exactly evaluate.active's answer, point by point,
on grids large enough to take the fast paths: near ties, NaN, infinities and zeros included."""

from __future__ import annotations

import numpy as np
import pytest

from symgpu.evaluate import active
from symgpu.sweep.decide import _binding, _relation

#: relative offsets around a tie: inside TIE, between TIE and the fast path's 4 TIE, and beyond
OFFSETS = (0.0, 3e-13, -3e-13, 1e-12, -1e-12, 2e-12, -2e-12, 4e-12, -4e-12, 5e-12, -5e-12, 1e-6, -1e-6)
SPECIAL = (np.nan, np.inf, -np.inf, 0.0, -0.0)


def _sides(rows: int, columns: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A full-size left side (rows x columns) near a per-column right side, with special values planted."""
    rng = np.random.default_rng(seed)
    right = rng.choice([1.0, -3.5, 1e-300, 7e300, 0.0, 2.0], size=(1, columns))
    right[0, :len(SPECIAL)] = SPECIAL
    factors = rng.choice(np.array(OFFSETS), size=(rows, columns)) + 1.0
    left = right * factors
    left[rng.random((rows, columns)) < 0.02] = np.nan
    left[rng.random((rows, columns)) < 0.02] = np.inf
    left[rng.random((rows, columns)) < 0.02] = 0.0
    scattered = rng.random((rows, columns)) < 0.3
    left[scattered] = rng.normal(size=int(np.count_nonzero(scattered)))
    return left, right


@pytest.mark.parametrize("op", active.RELATIONS)
@pytest.mark.parametrize("seed", [0, 1])
def test_relation_at_full_size_is_the_rule_point_by_point(op: str, seed: int) -> None:
    left, right = _sides(96, 128, seed)
    want = active.relation_holds(op, left, right)
    assert np.array_equal(np.broadcast_to(_relation(op, left, right), want.shape), want)
    # the smaller side on the left (the relation flipped inside), and both sides full size
    assert np.array_equal(np.broadcast_to(_relation(op, right, left), want.shape), active.relation_holds(op, right, left))
    full = np.array(np.broadcast_to(right, left.shape))
    assert np.array_equal(np.broadcast_to(_relation(op, left, full), want.shape), want)


@pytest.mark.parametrize("kind", ["min", "max"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binding_at_full_size_into_a_buffer_is_the_rule_point_by_point(kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = (64, 100)
    low = [rng.choice([1.0, 2.0, 5.0, np.inf, np.nan, 0.0], size=(1, 100)), np.float64(2.0), rng.random((1, 100)) + 1.0]
    base = np.broadcast_to(low[2], shape)
    full = [base * (1.0 + rng.choice(np.array(OFFSETS), size=shape)), rng.random(shape) * 3.0]
    full[0][rng.random(shape) < 0.02] = np.nan
    for rows in ([full[0], *low], [*low, full[0]], [full[0], low[0], full[1], low[2]], [low[1], full[1], full[0], low[0]]):
        want = active.binding_index(np.broadcast_arrays(*rows), kind)
        into = np.full(shape[0] * shape[1], 99, dtype=np.int16)
        got = _binding(kind, rows, shape, into, np.empty(2 * into.size, dtype=bool))
        assert np.array_equal(got, want)
        assert np.array_equal(into.reshape(shape), want)
