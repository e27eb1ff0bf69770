"""Normal forms for comparing expressions of two models: bounded-time simplification, limits and reachable Piecewise branches."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any
import sympy
from symgpu.derive import limits
from symgpu.model import Model



#: Seconds allowed for one sympy.simplify / solve call before the unsimplified form is kept.
SIMPLIFY_SECONDS = 8.0


#: Differences with more operations than this are shown unsimplified.
MAX_OPS = 300


# ============================================================================ symbolic helpers
class _Timeout(Exception):
    pass


def _bounded(function: Callable[[], Any], fallback: Any, seconds: float = SIMPLIFY_SECONDS) -> tuple[Any, bool]:
    """Run ``function``; return ``(fallback, False)`` if it takes longer than ``seconds``.

    The limit uses SIGALRM, so it applies only in the main thread (elsewhere it is unlimited).
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return function(), True

    def alarm(signum: int, frame: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return function(), True
    except _Timeout:
        return fallback, False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def normalize(expr: sympy.Basic, memo: dict[sympy.Basic, sympy.Basic] | None = None) -> sympy.Basic:
    """Canonical form for comparing Min/Max expressions: terms added to (and positive factors
    multiplying) a Min/Max are moved inside it, ``1/Max`` of positive arguments becomes ``Min``
    of reciprocals (and vice versa), nested Min/Max are flattened, arguments expanded.

    ``a + Max(b, c)`` -> ``Max(a + b, a + c)``; ``2*Min(x, y)`` -> ``Min(2*x, 2*y)``. With this,
    ``alpha*alu + Max(4 + Max(0, 33 - alpha*alu), 444 - (n - 1)*(alpha*alu + 4))`` and
    ``Max(37, alpha*alu + 4, 440 - (n - 2)*(alpha*alu + 4))`` become the same expression.

    ``memo`` (subexpression -> its normal form) may be shared between calls: the two models'
    expressions of one quantity repeat most of their subexpressions, and normalising a
    Min/Max (SymPy compares its arguments pairwise) is the expensive part.
    """
    if not isinstance(expr, sympy.Basic) or not expr.args:
        return expr
    memo = {} if memo is None else memo
    found = memo.get(expr)
    if found is None:
        found = memo[expr] = _normalize(expr, memo)
    return found


def _normalize(expr: sympy.Basic, memo: dict[sympy.Basic, sympy.Basic]) -> sympy.Basic:
    if isinstance(expr, (sympy.Min, sympy.Max)):
        args = [normalize(a, memo) for a in expr.args]
        flat: list[sympy.Basic] = []
        for arg in args:
            flat.extend(arg.args if type(arg) is type(expr) else (arg,))
        return type(expr)(*[sympy.expand(a) for a in flat])
    args = [normalize(a, memo) for a in expr.args]
    if isinstance(expr, sympy.Add):
        inside = [a for a in args if isinstance(a, (sympy.Min, sympy.Max))]
        if len(inside) == 1:
            rest = sympy.Add(*[a for a in args if a is not inside[0]])
            return normalize(type(inside[0])(*[rest + a for a in inside[0].args]), memo)
        return sympy.expand(sympy.Add(*args))
    if isinstance(expr, sympy.Pow) and isinstance(args[0], (sympy.Min, sympy.Max)) and args[1] == -1 \
            and all(a.is_positive for a in args[0].args):
        flipped = sympy.Max if isinstance(args[0], sympy.Min) else sympy.Min
        return normalize(flipped(*[1 / a for a in args[0].args]), memo)
    if isinstance(expr, sympy.Mul):
        inside = [a for a in args if isinstance(a, (sympy.Min, sympy.Max))]
        rest = sympy.Mul(*[a for a in args if not isinstance(a, (sympy.Min, sympy.Max))])
        if len(inside) == 1 and rest.is_positive:
            return normalize(type(inside[0])(*[rest * a for a in inside[0].args]), memo)
        return sympy.Mul(*args)
    try:
        return expr.func(*args)
    except (TypeError, ValueError):
        return expr


def _assumed_sign(value: sympy.Expr) -> int | None:
    """The sign of ``value`` from the symbols' declared assumptions alone (None: undecided)."""
    if value.is_zero:
        return 0
    if value.is_extended_positive:
        return 1
    return -1 if value.is_extended_negative else None


def limit(expr: sympy.Expr, var: sympy.Symbol, point: Any = sympy.oo) -> sympy.Expr:
    """``sympy.limit``, falling back to replacing each Min/Max of ``var`` by the argument that
    dominates as ``var -> point`` (:func:`symgpu.derive.limits.far_branches`: the argument that
    beats every other one, decided by the limit of their difference under the declared
    assumptions). Expressions with Min/Max always take the second route: ``sympy.limit``
    mishandles them (it returns oo for ``n/Max(L, (n - 1)*(1 - 1/L) + 1)``).

    Raises:
        errors.DerivationError: neither works (e.g. the dominant argument depends on the sign of
            a symbol with no declared sign).
    """
    point = sympy.sympify(point, strict=True)
    if not expr.has(sympy.Min, sympy.Max):
        try:
            result = sympy.limit(expr, var, point)
            if not result.has(sympy.Limit):
                return result
        except (NotImplementedError, ValueError, TypeError, AttributeError):
            pass
    far = limits.far_branches(expr, var, point, _assumed_sign, where=f"limit as {var} -> {sympy.sstr(point)}: ",
                              hint="; state the sign of the arguments' difference with an assumption, or substitute a value")
    return sympy.simplify(sympy.limit(far, var, point))


def _unify(models: Sequence[Model], exprs: Sequence[sympy.Basic]) -> list[sympy.Basic]:
    """Replace each model's symbols by one shared symbol per name (assumptions: the union)."""
    shared: dict[str, sympy.Symbol] = {}
    names = sorted({s.name for e in exprs for s in e.free_symbols})
    for name in names:
        flags: set[str] = set()
        for model in models:
            if name in model.symbol_definitions:
                flags |= set(model.symbol_definitions[name].assumptions)
        kw = {"positive": True} if "positive" in flags else ({"nonnegative": True} if "nonnegative" in flags else {"real": True})
        shared[name] = sympy.Symbol(name, **kw)
    # only the symbols that change: an identity entry would still rebuild (and re-evaluate) every Min/Max above it
    return [e.xreplace({s: shared[s.name] for s in e.free_symbols if s != shared[s.name]}) for e in exprs]


def _conjuncts(condition: sympy.Basic) -> set[sympy.Basic]:
    return set(condition.args) if isinstance(condition, sympy.And) else {condition}


def reachable(expr: sympy.Piecewise) -> list[tuple[sympy.Basic, sympy.Basic]]:
    """Branches of a Piecewise that can be selected (first match wins): a branch whose
    condition contains all conjuncts of an earlier condition is shadowed and dropped, and so is
    everything after a ``True`` condition."""
    out: list[tuple[sympy.Basic, sympy.Basic]] = []
    for value, condition in expr.args:
        if condition is sympy.false:
            continue
        if any(earlier is sympy.true or _conjuncts(earlier) <= _conjuncts(condition) for _, earlier in out):
            continue
        out.append((value, condition))
    return out


def _simplify(expr: sympy.Basic) -> tuple[sympy.Basic, bool]:
    """Simplify with a time limit; a Piecewise is simplified branch by branch (its conditions
    are kept as written: SymPy's condition simplification is slow and fails on Min/Max)."""

    def run() -> sympy.Basic:
        if isinstance(expr, sympy.Piecewise):
            pieces = [(sympy.simplify(v), c) for v, c in reachable(expr)]
            return sympy.Piecewise(*pieces, evaluate=False) if len(pieces) > 1 else pieces[0][0]
        return sympy.simplify(expr)

    try:
        return _bounded(run, expr)
    except (ValueError, TypeError, NotImplementedError, RecursionError):
        return expr, False
