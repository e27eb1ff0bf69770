"""Issue 30: what a report says does not change with the last bits of floating-point results,
which differ between NumPy/SymPy/SciPy versions: JSON values are the printed values, and a
regime map decides points on a boundary the same way whatever those bits are."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu.numbers import number_text, round_sig
from symgpu.report import plot_specs, plot_values, plots


@pytest.mark.parametrize("value", [972.0086705202312, 9442.3699422, 0.000123456789, 25500.0, 1234567.0, 2.5e13, -3.14159265])
def test_a_json_value_is_the_number_the_text_prints(value):
    assert round_sig(value) == float(number_text(value))


def _regime_map(model: symgpu.Model, plot_id: str):
    spec = next(s for s in plot_specs.plan(model, None) if s.id == plot_id)
    values = plot_values.PlotValues(model, spec)
    x, y = (plot_values.axis_range(values.centers()[name]) for name in spec.variables)
    return spec, values, np.meshgrid(x, y)


def test_regime_map_points_on_the_boundary_keep_their_regime_when_their_last_bits_change():
    model = symgpu.load("interval_analysis")
    spec, values, (X, Y) = _regime_map(model, "regimes_t_P_P_d_iota")
    branches = plot_values.regime_branches(model, spec.quantity)
    active = plots.active_branch(model, spec.quantity, values, branches, (X, Y))
    # the grid is centred on the knee P*d_iota = L_iota*Theta_M/phi: its anti-diagonal lies on the boundary
    on_boundary = np.fliplr(np.eye(*X.shape, dtype=bool))
    assert set(active[on_boundary].tolist()) == {[name for name, _, _ in branches].index("bandwidth_bound")}  # '>' fails on a tie
    for direction in (np.inf, -np.inf):  # one unit in the last place up, then down: what another library version might give
        moved = plots.active_branch(model, spec.quantity, values, branches, (np.nextafter(X, direction), np.nextafter(Y, direction)))
        assert np.array_equal(moved, active)


class _BoundsGiven:
    """Stands in for a plot's values: P_peak is 1 everywhere, I*B is the plotted variable itself."""

    def function(self, term, unit_of=None):
        return (lambda v: np.ones_like(v)) if str(term) == "P_peak" else (lambda v: v)


def test_min_max_bounds_that_tie_go_to_the_first_declared_bound_whatever_the_last_bits(write_model):
    model = symgpu.load(write_model(rhs="Min(P_peak, I*B)"))
    quantity = next(iter(model.defining))
    names = [str(term) for _, term, _ in plot_values.regime_branches(model, quantity)]
    peak, memory = names.index("P_peak"), names.index("B*I")
    near = np.array([1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0), 0.5, 2.0])
    active = plots.active_branch(model, quantity, _BoundsGiven(), plot_values.regime_branches(model, quantity), (near,))  # type: ignore[arg-type]
    assert active.tolist() == [0, 0, 0, memory, peak]
