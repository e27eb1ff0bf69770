"""Per-model derived state of the numeric layer: one typed companion object per model.

What ``evaluate/`` derives from a model (compiled functions, evaluation plans, expressions
rewritten for base units) is kept in the model's :class:`ModelState`, obtained by
:func:`state_of`, never as attributes on the model. The companions are held in one bounded memo
with weak keys (``evaluate.state.models``): a model's state goes with the model, and
:func:`symgpu.memo.clear_all` empties it with every other cache. The companion's mappings are
members of memo families (``evaluate.state.compiled``, ``evaluate.state.rewritten``, ``evaluate.state.units``): bounded per
model like every memo, counted by :func:`symgpu.memo.stats`. Everything in them can be computed
again, so dropping it never changes a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from symgpu.memo import Memo, MemoFamily

if TYPE_CHECKING:
    from symgpu.model import Model


#: the most compiled functions, plans and base-unit expressions kept per model (a report of the largest model keeps ~300)
MAX_KEPT = 4096
#: the most rewritten nodes kept per model (a report of the largest model keeps ~500)
MAX_REWRITTEN = 50_000

_COMPILED: MemoFamily[tuple[Any, ...], Any] = MemoFamily("evaluate.state.compiled", MAX_KEPT)
_REWRITTEN: MemoFamily[int, tuple[Any, tuple[Any, Any]]] = MemoFamily("evaluate.state.rewritten", MAX_REWRITTEN)
_UNITS: MemoFamily[int, tuple[Any, Any]] = MemoFamily("evaluate.state.units", MAX_REWRITTEN)


@dataclass(frozen=True, eq=False)
class ModelState:
    """What ``evaluate/`` keeps for one model.

    Attributes:
        compiled: compiled functions, plans and base-unit expressions, keyed by a tuple whose
            first item names what was compiled (``"equation"``, ``"condition"``, ``"plan"``...).
        rewritten: expression nodes rewritten for base units, by object identity
            (:class:`symgpu.evaluate.scaling` keeps the node with its rewrite, so an id is never reused).
        units: the declared units of expression nodes found without rewriting them (``scaling._Rescaler.unit``), by
            object identity, each with its node.
    """

    compiled: Memo[tuple[Any, ...], Any]
    rewritten: Memo[int, tuple[Any, tuple[Any, Any]]]
    units: Memo[int, tuple[Any, Any]]


#: every live model's state, by model (weakly: the state goes with the model; the bound counts live models only)
_STATES: Memo[Any, ModelState] = Memo("evaluate.state.models", 1024, weak=True)


def state_of(model: Model) -> ModelState:
    """The state ``evaluate/`` keeps for ``model`` (made empty on first use)."""
    found = _STATES.get(model)
    if found is None:
        found = _STATES[model] = ModelState(_COMPILED.of(model), _REWRITTEN.of(model), _UNITS.of(model))
    return found


__all__ = ["ModelState", "state_of"]
