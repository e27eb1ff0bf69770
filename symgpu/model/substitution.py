"""Building Min/Max once per argument tuple, and ``xreplace`` that uses it.

``Min(a, b, ...)`` searches its arguments for dominated ones, comparing every pair under the
symbols' assumptions: tens of milliseconds for the nested limits of a large model, and most
of the time of loading models and of expanding their quantities. The same Min/Max is built
again and again (by every quantity that substitutes it, by variants of a model that share
equations), so :func:`min_max` keeps each result: SymPy builds the same expression from the
same arguments, so callers get exactly what ``Min(*args)`` gives.

Most Min/Max of a model keep every argument: SymPy proves no argument dominated, and the
result is the node ``Min(*args, evaluate=False)`` builds. That verdict is kept in
:mod:`symgpu.store` (a list of SHA-256 digests of the arguments' ``srepr``, which spells out
the symbols' assumptions; per symgpu source and SymPy version), so a later process builds
those nodes directly: only digests are read back, and a digest only skips the search for a
result already known to be the unevaluated node.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy.core.parameters import global_parameters

from symgpu import store
from symgpu.entry_kinds import MINMAX
from symgpu.memo import Memo
from symgpu.proofs import unordered, whole_parts

#: the most Min/Max results kept (the whole table is dropped when it is full)
MAX_KEPT = 4096
_KEPT: Memo[tuple[Any, tuple[Any, ...]], sympy.Basic] = Memo("model.substitution.min_max", MAX_KEPT)


def min_max(func: Any, args: tuple[Any, ...]) -> sympy.Basic:
    """``func(*args)`` for ``func`` Min or Max, built once per argument tuple.

    Under ``sympy.evaluate(False)`` nothing is kept or reused (the node is built as it is).
    """
    if not global_parameters.evaluate:
        return func(*args)  # type: ignore[no-any-return]
    key = (func, tuple(args))
    found = _KEPT.get(key)
    if found is None:
        found = unordered.kept(func, key[1])  # the proofs' substitutions keep the same node, SymPy's own
        found = _KEPT[key] = found if found is not None else _build(func, args)
    return found


#: the most digests kept in the one entry of the store kind MINMAX (~65 bytes each)
MAX_SETTLED = 50_000
_DIGEST = re.compile(r"[0-9a-f]{64}")
#: digests of (Min or Max, arguments) that SymPy leaves as built, by store entry: read from the store once
_SETTLED: Memo[str, set[str]] = Memo("model.substitution.settled", 4)
#: such digests found by this process and not yet written
_FOUND: Memo[str, bool] = Memo("model.substitution.found", MAX_SETTLED)


def _build(func: Any, args: tuple[Any, ...]) -> sympy.Basic:
    """``func(*args)``: built unevaluated where :mod:`symgpu.proofs.unordered` proves (after SymPy's own
    flattening and collapse of nested Min/Max: :func:`~symgpu.proofs.unordered.built`), or the store
    says, that SymPy keeps every argument."""
    node = unordered.proved_node(func, args)  # with a nested Min/Max among the arguments: SymPy's flattening and collapse first
    if node is not None:
        return node
    if not store.enabled():
        return func(*args)  # type: ignore[no-any-return]
    digest = store.digest(func.__name__, *(sympy.srepr(a) for a in args))
    if digest in settled():
        return func(*args, evaluate=False)  # type: ignore[no-any-return]
    built = func(*args)
    if type(built) is func and built == func(*args, evaluate=False):
        _FOUND[digest] = True
    return built  # type: ignore[no-any-return]


def _entry() -> str:
    return store.digest(MINMAX.version, store.engine_digest())


def settled() -> set[str]:
    """The digests on disk (read once per process, or after :func:`symgpu.memo.clear_all`; lines
    that are not digests are ignored)."""
    entry = _entry()
    settled = _SETTLED.get(entry)
    if settled is None:
        body = store.get(MINMAX, entry) or ""
        settled = _SETTLED[entry] = {line for line in body.splitlines() if _DIGEST.fullmatch(line)}
    return settled


def save() -> None:
    """Write the verdicts found since the last call (with those read from disk) to the store.

    NOTE: processes writing at once replace each other's entry (atomically): a verdict lost
    that way is only found again by SymPy, never wrong.
    """
    if not len(_FOUND) or not store.enabled():
        _FOUND.clear()
        return
    known = settled()
    known |= set(_FOUND)
    _FOUND.clear()
    if len(known) > MAX_SETTLED:
        known.clear()
    store.put(MINMAX, _entry(), "\n".join(sorted(known)))


def xreplace(expr: sympy.Basic, rule: dict[Any, Any]) -> sympy.Basic:
    """``expr.xreplace(rule)``, node for node as SymPy does it (``Basic._xreplace``), except
    that a rebuilt Min/Max comes from :func:`min_max` and a sub-expression met twice (the same
    object) is rebuilt once."""
    done: dict[int, tuple[Any, tuple[Any, bool]]] = {}

    def walk(node: Any) -> tuple[Any, bool]:
        seen = done.get(id(node))
        if seen is not None:
            return seen[1]
        if node in rule:
            result: tuple[Any, bool] = (rule[node], True)
        else:
            args, changed = [], False
            for arg in node.args:
                if isinstance(arg, sympy.Basic):
                    new, moved = walk(arg)
                    args.append(new)
                    changed |= moved
                else:
                    args.append(arg)
            if not changed:
                result = (node, False)
            elif node.func is sympy.Min or node.func is sympy.Max:
                result = (min_max(node.func, tuple(args)), True)
            else:  # SymPy's node (a floor/ceiling's evaluation skipped where proved)
                result = (whole_parts.rebuilt(node.func, args), True)
        done[id(node)] = (node, result)
        return result

    return walk(expr)[0] if rule else expr
