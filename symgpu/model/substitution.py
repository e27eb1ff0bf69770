"""Building Min/Max once per argument tuple, and ``xreplace`` that uses it.

``Min(a, b, ...)`` searches its arguments for dominated ones, comparing every pair under the
symbols' assumptions: tens of milliseconds for the nested limits of a large model, and most
of the time of loading models and of expanding their quantities. The same Min/Max is built
again and again (by every quantity that substitutes it, by variants of a model that share
equations), so :func:`min_max` keeps each result: SymPy builds the same expression from the
same arguments, so callers get exactly what ``Min(*args)`` gives.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.core.parameters import global_parameters

#: the most Min/Max results kept (the whole table is dropped when it is full)
MAX_KEPT = 4096
_KEPT: dict[tuple[Any, tuple[Any, ...]], sympy.Basic] = {}


def min_max(func: Any, args: tuple[Any, ...]) -> sympy.Basic:
    """``func(*args)`` for ``func`` Min or Max, built once per argument tuple.

    Under ``sympy.evaluate(False)`` nothing is kept or reused (the node is built as it is).
    """
    if not global_parameters.evaluate:
        return func(*args)  # type: ignore[no-any-return]
    key = (func, tuple(args))
    found = _KEPT.get(key)
    if found is None:
        if len(_KEPT) >= MAX_KEPT:
            _KEPT.clear()
        found = _KEPT[key] = func(*args)
    return found


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
            else:
                result = (node.func(*args), True)
        done[id(node)] = (node, result)
        return result

    return walk(expr)[0] if rule else expr
