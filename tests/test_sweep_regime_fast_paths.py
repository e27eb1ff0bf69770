"""The NumPy sweep's regime decisions at full size (one comparison with the exact edge of the
smaller side's tie interval, or two against thresholds with near ties left to the rule) give
exactly evaluate.active's answer, point by point,
on grids large enough to take the fast paths: near ties, NaN, infinities and zeros included."""

from __future__ import annotations

import numpy as np
import pytest

from symgpu.evaluate import active
from symgpu.sweep.decide import _binding, _holds, _relation

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


def _outer_sides(rows: int, columns: int, seed: int, apart: bool) -> tuple[np.ndarray, np.ndarray]:
    """Two sides over different axes (rows x 1 and 1 x columns) whose outer product is large:
    ``apart``: every left value far above every right one (the relation the same everywhere),
    else overlapping, with near ties and a NaN planted."""
    rng = np.random.default_rng(seed)
    right = rng.random((1, columns)) + 1.0
    left = rng.random((rows, 1)) + (10.0 if apart else 1.0)
    if not apart:
        left[:len(OFFSETS), 0] = right[0, 0] * (1.0 + np.array(OFFSETS))
        left[-1, 0] = np.nan
    return left, right


@pytest.mark.parametrize("op", active.RELATIONS)
@pytest.mark.parametrize("apart", [True, False])
def test_relation_of_two_sides_over_fewer_axes_is_the_rule_point_by_point(op: str, apart: bool) -> None:
    left, right = _outer_sides(80, 90, 3, apart)
    for a, b in ((left, right), (right, left)):
        want = active.relation_holds(op, *np.broadcast_arrays(a, b))
        got = _relation(op, a, b)
        assert np.array_equal(np.broadcast_to(got, want.shape), want)
        if apart:  # decided from the sides' extremes: one value
            assert np.ndim(got) == 0


@pytest.mark.parametrize("kind", ["and", "or"])
@pytest.mark.parametrize("apart", [True, False])
def test_and_or_stopped_early_is_the_rule_point_by_point(kind: str, apart: bool) -> None:
    left, right = _outer_sides(80, 90, 4, apart)
    full = np.broadcast_to(right, (80, 90)) * (1.0 + np.random.default_rng(5).choice(np.array(OFFSETS), size=(80, 90)))
    out = [left, right, np.ascontiguousarray(full), left + 100.0]  # over the rows only: 3 > 0 everywhere
    relations = [("rel", ">", 0, 1, None), ("rel", "<", 0, 1, None), ("rel", ">=", 2, 1, None), ("rel", "==", 2, 1, None),
                 ("rel", ">", 3, 0, None), ("rel", "<", 3, 0, None)]
    sides = {0: np.broadcast_to(left, (80, 90)), 1: np.broadcast_to(right, (80, 90)), 2: full, 3: np.broadcast_to(out[3], (80, 90))}
    by_hand = {r: active.relation_holds(r[1], sides[r[2]], sides[r[3]]) for r in relations}
    combine = np.logical_and if kind == "and" else np.logical_or
    for parts in ((relations[2], relations[0]), (relations[1], relations[3]), (relations[0], relations[1], relations[3]),
                  (relations[3], ("const", kind == "and")), (relations[2], relations[4]), (relations[2], relations[5])):
        want = by_hand[parts[0]] if parts[0][0] == "rel" else np.bool_(parts[0][1])
        for part in parts[1:]:
            want = combine(want, by_hand[part] if part[0] == "rel" else np.bool_(part[1]))
        got = _holds((kind, parts), out)
        assert np.array_equal(np.broadcast_to(got, (80, 90)), np.broadcast_to(want, (80, 90)))
