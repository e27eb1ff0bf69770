"""An extremum over a positive variable that the quantity divides by: towards its open end at 0 the
quantity may grow or fall without bound, by regime, where the limit of the whole cannot be taken (Hong & Kim's
``Synch_cost`` over ``Active_SMs`` fell to -1e10 where ``NpWB < 1``, beyond the minimum shown, -1483.8). The
fixture ``diverging_at_zero`` is that question in miniature: ``y = K*(Min(a, c, L/n) - 1)/n`` with
``L = p**2 + q**2 - 2`` of either sign. Expected values by hand and by brute force over ``Model.evaluate``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu import derive, errors
from symgpu.evaluate import active

MODEL = Path(__file__).parent / "fixtures" / "diverging_at_zero.toml"


def _scan(model: symgpu.Model, values: dict[str, float]) -> np.ndarray:
    xs = np.geomspace(1e-6, 1e6, 4801)
    return np.asarray(model.evaluate("y", values={**values, "n": xs}).magnitude, dtype=float)


def _holds(model: symgpu.Model, answer: derive.Derivation, values: dict[str, float]) -> bool:
    return all(active.condition_true(model, c, None, values) for c in answer.extra.valid_when or ())


def test_the_minimum_is_not_claimed_where_the_quantity_falls_without_bound_towards_zero() -> None:
    model = symgpu.load(MODEL)
    answer = model.extremum("y", over="n", kind="min")
    # Min(a, c) = 0.8 < 1: near n = 0 y = 7*(0.8 - 1)/n -> -oo (-1.4e6 at n = 1e-6), so there is no minimum there;
    # the closed form's -K/(4*L) = -7/12 (L = 4 + 1 - 2 = 3) must not be claimed there
    falling = {"a": 0.8, "c": 3.0, "p": 2.0, "q": 1.0, "K": 7.0}
    ys = _scan(model, falling)
    assert ys[0] == pytest.approx(7 * (0.8 - 1) / 1e-6) and ys.min() < -1e6
    assert not _holds(model, answer, falling)
    assert answer.extra.elsewhere and "no minimum" in answer.extra.elsewhere
    # Min(a, c) = 2 >= 1: y = 7*(3/n - 1)/n past n = 3/2 has its minimum at n = 2*L = 6, y = 7*(3 - 6)/36 = -7/12,
    # and y >= 0 for n <= 3
    bounded = {**falling, "a": 2.0}
    assert _holds(model, answer, bounded)
    value = float(derive.evaluate_result(model, answer, None, **bounded).magnitude)
    where = float(derive.evaluate_result(model, answer, None, which="location", **bounded).magnitude)
    assert value == pytest.approx(-7 / 12, rel=1e-12) and where == pytest.approx(6.0, rel=1e-12)
    assert _scan(model, bounded).min() >= value - 1e-9


def test_the_maximum_is_refused_where_its_one_critical_point_is_a_minimum_wherever_it_lies_in_the_domain() -> None:
    # y = K*(L/n - 1)/n where L/n binds: y' = K*(n - 2L)/n**3 = 0 at n = 2L, y''(2L) = K/(8*L**3): positive wherever
    # the location 2L is positive, so the critical point is a minimum, never a maximum (its old conditions, L > 0 and
    # (L)**3 < 0 once factored, held nowhere together); elsewhere y grows without bound as n -> 0 (Min(a, c) > 1) or
    # stays below its supremum (Min(a, c) <= 1: y < 0 approaching 0 as n -> oo, or y = 0 only at Min(a, c) = 1)
    model = symgpu.load(MODEL)
    with pytest.raises(errors.DerivationError, match=r"no maximum over n in closed form .*grows without bound as n -> 0 where"):
        model.extremum("y", over="n", kind="max")
    # by brute force: no scanned point inside the scan beats both its ends at points of every kind
    for a, p in ((2.0, 2.0), (0.8, 2.0), (2.0, 0.5), (0.8, 0.5), (0.6, 1.5)):  # L = p**2 - 1: 3, 3, -0.75, -0.75, 1.25
        ys = _scan(model, {"a": a, "c": 3.0, "p": p, "q": 1.0, "K": 7.0})
        best = int(np.argmax(ys))
        assert best in (0, ys.size - 1) or ys[best] <= max(ys[0], ys[-1]) + 1e-12 * abs(ys[best])
