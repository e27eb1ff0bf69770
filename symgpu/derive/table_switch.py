"""Where the regime of a quantity defined by cases changes at a point, as its regime table names the regimes
(the case and the limiters inside it), for a ``boundary`` asked without ``--between``: read by
:func:`symgpu.derive.results.applying_boundaries` for a value whose case does not switch, or whose label (the first
pair of regimes that gave that value in closed form) names regimes that do not hold there.

Sim et al.'s Texec over n at fermi with alpha = 10 keeps its case ``cwp_at_most_mwp`` across n = 18, where its
arithmetic rate ``Max(18/n, 1)`` switches from ``latency_bound`` to ``throughput_bound``: a change of regime the
table names (``cwp_at_most_mwp+latency_bound+...`` to ``cwp_at_most_mwp+throughput_bound+...``), which the case
alone does not show; and the first of the 676 pairs that meet at ``n = alu_lat*alu_thru`` in closed form is two
``cwp_above_mwp`` regimes, neither of which holds there."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from symgpu.derive import at_point, regime_split
from symgpu.evaluate import active

if TYPE_CHECKING:
    from symgpu.model import Model


def table(model: Model, quantity: str, variable: str) -> Callable[[], Sequence[Any]]:
    """The quantity's regime table over ``variable`` (:func:`symgpu.derive.regime_split.regimes`), built on the
    first call only: a point whose values the first rule settles never needs it."""
    built: list[Sequence[Any]] = []

    def found() -> Sequence[Any]:
        if not built:
            built.append(regime_split.regimes(model, quantity, over=variable).regimes)
        return built[0]
    return found


def switch(model: Model, found: Callable[[], Sequence[Any]], variable: str, b: float, preset: str | None,
           values: Mapping[str, Any]) -> str | None:
    """``below|above``: the regimes of the table ``found`` (:func:`table`) that hold just below ``variable = b`` and
    just above it (:func:`symgpu.evaluate.active.boundary_sides`; at ``b`` itself for the upper side where both sides
    agree: a regime that holds there only), equal ones joined by `` = ``, where no regime holds on both sides: the
    regime changes there. None where it does not (the same regime on both sides, or none on one)."""
    around = active.boundary_sides(model, variable, b)
    names = [_names(model, found(), preset, {**values, variable: x}) for x in around]
    if names[0] == names[1] and around[0] != b:
        names[1] = _names(model, found(), preset, {**values, variable: b})
    if not names[0] or not names[1] or set(names[0]) & set(names[1]):
        return None
    return "|".join(" = ".join(side) for side in names)


def _names(model: Model, found: Sequence[Any], preset: str | None, values: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(regime.name for regime, _, _ in at_point.holding(model, found, preset, values))
