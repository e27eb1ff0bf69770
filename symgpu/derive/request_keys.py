"""The derivation store's key of one request: the request and only the parts of its model that it can read.

A model's stored derivations used to be keyed by the whole model's content, so a variant
(``extends``) derived again every request it inherits. The key here is made of

* the request (or the operation's arguments) as plain data, and the engine (symgpu's source);
* the model's *view* from the request: every symbol and equation reachable from a name the
  request's text mentions (a symbol, an equation id, a case id; a limiter name where the request
  omits that limiter from every equation that has one), following every name in a reached
  equation's expressions (right-hand side, cases' conditions and values, limiters, ``valid_when``)
  to a fixed point: each reached symbol's name, unit, role, assumptions and value (a constant's),
  and each reached equation's whole record (its source and notes included: steps cite them), in
  file order; and the values of every preset the request names (all of them, as built:
  inherited and unit-converted). A symbol's description, LaTeX and source are not read by a
  derivation and are not in the key.

Names are found as identifiers in the text, so the view holds at least every name a parser or
a lookup could find there. The engine reads two other things of the model, neither of which
is in this key: the names of every equation's limiters and cases (regime labels), which a
stored derivation records and checks itself where it is reused (:mod:`.name_reads`), and the
model's id, which only error messages and the derivation's ``model`` field carry (the latter
is set to the reading model's id when an entry is read).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from symgpu import store
from symgpu.entry_kinds import DERIVATIONS
from symgpu.memo import MemoFamily

if TYPE_CHECKING:
    from symgpu.model import Model

#: an identifier in a request's or an equation's text (symbol names, equation ids, limiter and case names)
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
#: an omitted limiter without its equation, as the request's omit pairs print (``('', 'issue_bound')``)
_UNSCOPED = re.compile(r"[(\[]''\s*,\s*'([A-Za-z_][A-Za-z_0-9]*)'[)\]]")
#: per live model (weakly: they go with the model), its keys by the request's text (a report asks ~25)
_KEYS: MemoFamily[str, str] = MemoFamily("derive.request_keys.keys", 4096)


def request_key(model: Model, parts: tuple[Any, ...]) -> str:
    """The store key of the derivation of ``parts`` (plain data: the request or the operation's
    arguments) in ``model``: equal in two models exactly when the request and its view are."""
    text = repr(parts)
    kept = _KEYS.of(model)
    key = kept.get(text)
    if key is None:
        key = kept[text] = store.digest(DERIVATIONS.version, "request", text, view(model, text), store.engine_digest())
    return key


def view(model: Model, text: str) -> str:
    """What a derivation asked in ``text`` can read of ``model`` (see the module docstring), as text."""
    symbols, equations = reached(model, text)
    presets = sorted(set(_NAME.findall(text)) & set(model.presets))
    lines = [repr((d.name, d.unit, d.role, d.assumptions, d.value)) for n, d in model.symbol_definitions.items() if n in symbols]
    lines += [repr(d) for d in model.definition.equations if d.id in equations]
    lines += [f"preset {p}: " + repr(sorted((k, repr(v)) for k, v in model.presets[p].items())) for p in presets]
    return "\n".join(lines)


def reached(model: Model, text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The symbols and equation ids reachable from the names in ``text``.

    A limiter name reaches the equations with a limiter of that name only where ``text`` holds
    an omitted limiter without its equation (``('', name)``: the engine then drops that limiter
    of every equation); otherwise limiter names are regime labels (:mod:`.name_reads`)."""
    names = set(_NAME.findall(text))
    anywhere = set(_UNSCOPED.findall(text))
    symbols: set[str] = names & set(model.symbols)
    equations: set[str] = set()
    definitions = {d.id: d for d in model.definition.equations}  # the records alone: no equation is built to be read
    defining = {d.defines: d for d in definitions.values()}
    for definition in definitions.values():
        limiters = {n for n, _ in definition.limiters}
        cases = {c.id for c in definition.cases}
        if definition.id in names or anywhere & limiters or names & cases:
            equations.add(definition.id)
    known = set(model.symbols)
    open_equations, open_symbols = sorted(equations), sorted(symbols)
    while open_equations or open_symbols:
        if open_symbols:
            found_definition = defining.get(open_symbols.pop())
            if found_definition is not None and found_definition.id not in equations:
                equations.add(found_definition.id)
                open_equations.append(found_definition.id)
            continue
        for found in set(_NAME.findall(_expressions(definitions[open_equations.pop()]))) & known:
            if found not in symbols:
                symbols.add(found)
                open_symbols.append(found)
    return frozenset(symbols), frozenset(equations)


def _expressions(definition: Any) -> str:
    """The expression texts of an equation's record (all that is parsed into its expressions)."""
    parts = [definition.defines, definition.rhs, *definition.valid_when, *(t for _, t in definition.limiters)]
    parts += [text for case in definition.cases for text in (case.when, case.value)]
    return "\n".join(parts)


__all__ = ["reached", "request_key", "view"]
