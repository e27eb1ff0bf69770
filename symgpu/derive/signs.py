"""A model's sign reasoner: :class:`symgpu.proofs.signs.SignReasoner` under the model's declared
assumptions and constants, its verdicts kept on disk.

The reasoning itself is model-free (:mod:`symgpu.proofs.signs`); this adapter reads what a model
declares into :class:`~symgpu.proofs.sign_records.Declared` and hands the reasoner :data:`DISK`, which
keeps the verdicts that needed factoring or ``simplify`` in :mod:`symgpu.store` (entry kind
:data:`symgpu.entry_kinds.SIGNS`), so another process does not pay for them again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import store
from symgpu.derive import result_form
from symgpu.entry_kinds import SIGNS
from symgpu.memo import Memo
from symgpu.proofs.sign_records import Declared, Verdict
from symgpu.proofs.signs import SignReasoner

if TYPE_CHECKING:
    from symgpu.model import Model

__all__ = ["DISK", "declared", "reasoner", "sign_key"]

#: the only texts a stored sign verdict may be (anything else is recomputed)
_VERDICTS: dict[str, Verdict] = {"1": Verdict(1), "-1": Verdict(-1), "0": Verdict(0), "None": Verdict(None)}


def sign_key(expr: sympy.Basic, positives: Iterable[sympy.Expr] = (), *, engine: str | None = None) -> str:
    """The on-disk key of the sign verdict of ``expr`` (after the reasoner's substitutions)
    given the known-positive ``positives``: their ``srepr`` (symbol assumptions included) and
    the engine's digest (``engine``; default :func:`symgpu.store.engine_digest`, this engine's),
    so verdicts of an edited engine are never reused."""
    return store.digest(SIGNS.version, engine or store.engine_digest(), sympy.srepr(expr), *(sympy.srepr(p) for p in positives))


#: :func:`sign_key` of the expressions looked up, by (expression, positives): a verdict not found is computed and put
#: under the same key (``srepr`` of a large expression is most of a lookup's time)
_KEYS: Memo[tuple[sympy.Basic, tuple[sympy.Expr, ...]], str] = Memo("derive.signs.keys", 4096)


def _key(expr: sympy.Basic, positives: tuple[sympy.Expr, ...]) -> str:
    found = _KEYS.get((expr, positives))
    if found is None:
        found = _KEYS[(expr, positives)] = sign_key(expr, positives)
    return found


class _DiskVerdicts:
    """Sign verdicts in :mod:`symgpu.store` (a :class:`~symgpu.proofs.sign_records.VerdictStore`)."""

    def get(self, expr: sympy.Basic, positives: tuple[sympy.Expr, ...]) -> Verdict | None:
        return _VERDICTS.get(store.get(SIGNS, _key(expr, positives)) or "")

    def put(self, expr: sympy.Basic, positives: tuple[sympy.Expr, ...], verdict: Verdict) -> None:
        store.put(SIGNS, _key(expr, positives), str(verdict.sign))


#: the store every model's reasoner keeps its verdicts in
DISK = _DiskVerdicts()


#: each model's declarations, read once (weak keys: a model's entry goes with the model)
_DECLARED: Memo[Any, Declared] = Memo("derive.signs.declared", 1024, weak=True)


def declared(model: Model) -> Declared:
    """What ``model`` declares, as the reasoner reads it: its symbols with their assumption
    words, and its constants' values (their signs, and their exact values in base units, by which an expression of
    constants alone has its sign: ``lit_2_us >= lit_2p5_us`` is false)."""
    found = _DECLARED.get(model)
    if found is None:
        exact = ((model.symbols[name], result_form.exact_value(model, model.symbols[name])) for name in model.constants)
        found = _DECLARED[model] = Declared(
            symbols=tuple((model.symbols[name], frozenset(definition.assumptions)) for name, definition in model.symbol_definitions.items()),
            constants=tuple((model.symbols[name], float(value.magnitude)) for name, value in model.constants.items()),
            exact=tuple((symbol, known[1]) for symbol, known in exact if known is not None),
        )
    return found


def reasoner(model: Model, extra: Iterable[sympy.Basic] = ()) -> SignReasoner:
    """A sign reasoner under ``model``'s declared assumptions and the ``extra`` relations, its
    verdicts kept on disk."""
    return SignReasoner(declared(model), extra, verdicts=DISK)
