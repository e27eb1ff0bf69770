"""Per-model derived state of the numeric layer: one typed companion object per model.

What ``evaluate/`` derives from a model (compiled functions, evaluation plans, expressions
rewritten for base units) is kept in the model's :class:`ModelState`, obtained by
:func:`state_of`, never as attributes on the model. The companions are held in one bounded memo
with weak keys (``evaluate.state.models``): a model's state goes with the model, and
:func:`symgpu.memo.clear_all` empties it with every other cache. Everything in it can be
computed again, so dropping it never changes a result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from symgpu.memo import Memo

if TYPE_CHECKING:
    from symgpu.model import Model


@dataclass(eq=False)
class ModelState:
    """What ``evaluate/`` keeps for one model.

    Attributes:
        compiled: compiled functions, plans and base-unit expressions, keyed by a tuple whose
            first item names what was compiled (``"equation"``, ``"condition"``, ``"plan"``...).
        rewritten: expression nodes rewritten for base units, by object identity
            (:class:`symgpu.evaluate.scaling` keeps the node with its rewrite, so an id is never reused).
    """

    compiled: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    rewritten: dict[int, tuple[Any, tuple[Any, Any]]] = field(default_factory=dict)


#: every live model's state, by model (weakly: the state goes with the model; the bound counts live models only)
_STATES: Memo[Any, ModelState] = Memo("evaluate.state.models", 1024, weak=True)


def state_of(model: Model) -> ModelState:
    """The state ``evaluate/`` keeps for ``model`` (made empty on first use)."""
    found = _STATES.get(model)
    if found is None:
        found = _STATES[model] = ModelState()
    return found


__all__ = ["ModelState", "state_of"]
