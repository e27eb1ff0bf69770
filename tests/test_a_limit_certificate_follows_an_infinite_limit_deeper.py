"""The limit certificate's deeper approach (:mod:`symgpu.derive.limit_depth`): an infinite limit whose quantity sits on a
constant to the end of the fixed approach passes only where, followed on to the end of the double range, it grows
without bound in IEEE and in exact arithmetic, by :data:`~symgpu.derive.limit_depth.GROWTH` beyond the first approach.
The quantities are written out here (a Max of a constant and a pole, as the generated model ``late_pole`` has), and the
exact values are Python fractions of the same formula."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from symgpu.derive import limit_depth

FIRST = np.array([1.0, 1.0, 1.0, 1.0])  # the fixed approach's tail: the constant still binding


def _exact(formula):
    return lambda xs: np.asarray([float(formula(Fraction(float(x)))) for x in xs])


def _admissible(x: float) -> bool:
    return True


def test_a_pole_past_the_approachs_last_step_passes() -> None:
    pole = lambda x: max(Fraction(1), Fraction(1, 10**15) / x)  # noqa: E731 - Max(c, a/u), c = 1, a = 1e-15
    beyond = limit_depth.grows_beyond(np.inf, 0.0, 1.0, FIRST, lambda xs: np.maximum(1.0, 1e-15 / xs), _admissible, _exact(pole))
    assert beyond == 1e-300  # 1e-15/1e-300 = 1e285 there: beyond GROWTH times the constant 1


def test_growth_towards_an_infinity_passes_with_its_sign() -> None:
    rise = lambda x: max(Fraction(1), x / 10**20)  # noqa: E731
    assert limit_depth.grows_beyond(np.inf, np.inf, 1.0, FIRST, lambda xs: np.maximum(1.0, xs * 1e-20), _admissible, _exact(rise)) == pytest.approx(1e300)
    assert limit_depth.grows_beyond(-np.inf, np.inf, 1.0, FIRST, lambda xs: np.maximum(1.0, xs * 1e-20), _admissible, _exact(rise)) is None


def test_a_quantity_creeping_up_to_a_finite_bound_does_not_pass() -> None:
    creep = lambda x: 2 - x  # noqa: E731 - grows in magnitude as x -> 0, towards 2 only
    assert limit_depth.grows_beyond(np.inf, 0.0, 1.0, FIRST, lambda xs: 2 - xs, _admissible, _exact(creep)) is None


def test_ieee_growth_that_exact_arithmetic_does_not_show_does_not_pass() -> None:
    # rounding garbage: IEEE values that grow while the exact quantity stays at 1
    assert limit_depth.grows_beyond(np.inf, 0.0, 1.0, FIRST, lambda xs: np.maximum(1.0, 1e-15 / xs), _admissible,
                                    _exact(lambda x: Fraction(1))) is None


def test_no_deeper_approach_beside_another_point_or_outside_the_domain() -> None:
    pole = lambda x: max(Fraction(1), Fraction(1, 10**15) / x)  # noqa: E731
    ieee = lambda xs: np.maximum(1.0, 1e-15 / xs)  # noqa: E731
    assert limit_depth.grows_beyond(np.inf, 5.0, 1.0, FIRST, ieee, _admissible, _exact(pole)) is None  # doubles beside 5 stop at 5*2**-52
    assert limit_depth.grows_beyond(np.inf, 0.0, 1.0, FIRST, ieee, lambda x: x > 1e-200, _exact(pole)) is None
