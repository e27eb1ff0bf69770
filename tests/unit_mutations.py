"""Mutation testing of the unit checker (used by test_unit_mutations.py and benchmarks/mutate_units.py).

For every equation of a model, single mutations are made on its parsed SymPy right-hand side
(or on a declared unit) and the mutated equation is built again as a one-equation model
with :class:`symgpu.model.build.Model` (every symbol declared, presets and limiters left out
so only the unit check can object):

* ``drop``: one factor of a product removed;
* ``invert``: one factor of a product replaced by its reciprocal;
* ``replace``: one symbol replaced by a declared symbol of another dimension;
* ``unit``: one declared unit of a symbol of the equation multiplied by a base unit.

Whether a mutation changes the dimension is decided independently of the checker, by
brute-force scaling: every base dimension gets a random factor, every symbol is scaled by
the factors of its unit, and the equation is dimension-consistent when its right-hand side
scales exactly like its left-hand side (checked at two random points). An equation whose
original form does not pass this test (``ceiling`` of a count, say) is not mutated.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterator
from typing import Any

import sympy

from symgpu import errors
from symgpu.model import build, schema

EXTRA_UNITS = ("cycle", "B", "warp")


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One mutated equation: ``changes`` is the scaling oracle's verdict."""

    model: str
    equation: str
    kind: str
    description: str
    definition: schema.ModelDefinition
    changes: bool


def _dims(model: build.Model, units: dict[str, Any], counts: tuple[str, ...]) -> dict[str, dict[str, float]]:
    skip = {f"[{c.strip('[]')}]" for c in counts}
    return {name: {d: float(p) for d, p in dict(unit.dimensionality).items() if d not in skip} for name, unit in units.items()}


class _Inconsistent(Exception):
    """Raised by the scaling oracle when two parts that must agree scale differently."""


_FREE = None  # a bare number: takes the scaling of what it is added to or compared with


def _homogeneous(lhs: str, rhs: sympy.Basic, dims: dict[str, dict[str, float]], symbols: dict[str, sympy.Symbol], seed: int) -> bool | None:
    """True if ``rhs`` scales like ``lhs`` when every base dimension is scaled by a random factor.

    Two random draws of factors; a symbol scales by the product of its dimensions' factors,
    a product by the product of its factors' scalings, and the parts of a sum, Min/Max,
    comparison or piecewise must scale alike (bare numbers there take their siblings'
    scaling: the checker's documented convention for literals). ``None``: not judged.
    """
    rng = random.Random(seed)
    for _ in range(2):
        factor = {d: rng.uniform(1.7, 3.3) for name in dims for d in dims[name]}
        scale = {name: math.prod(factor[d] ** p for d, p in dims[name].items()) for name in dims}
        try:
            found = _ratio(rhs, scale)
        except _Inconsistent:
            return False
        except _Unjudged:
            return None
        if found is not _FREE and not _same(found, scale[lhs]):
            return False
    return True


class _Unjudged(Exception):
    """The oracle has no rule for a node."""


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def _agree(ratios: list[float | None]) -> float | None:
    fixed = [r for r in ratios if r is not _FREE]
    if any(not _same(r, fixed[0]) for r in fixed[1:]):
        raise _Inconsistent()
    return fixed[0] if fixed else _FREE


def _ratio(expr: sympy.Basic, scale: dict[str, float]) -> float | None:
    """How ``expr`` scales (``_FREE`` for a bare number); raises on inconsistency."""
    if isinstance(expr, sympy.Symbol):
        return scale[expr.name]
    if expr.is_Number or expr in (sympy.true, sympy.false) or expr.is_number:
        return _FREE
    args = expr.args
    if isinstance(expr, sympy.Mul):
        return math.prod(1.0 if r is _FREE else r for r in (_ratio(a, scale) for a in args))
    if isinstance(expr, sympy.Pow):
        base, exponent = args
        if exponent.is_Number:
            found = _ratio(base, scale)
            return _FREE if found is _FREE else found ** float(exponent)
        if _agree([_ratio(base, scale), 1.0]) is None or _agree([_ratio(exponent, scale), 1.0]) is None:
            return 1.0
        return 1.0
    if isinstance(expr, (sympy.Add, sympy.Min, sympy.Max)):
        return _agree([_ratio(a, scale) for a in args])
    if isinstance(expr, (sympy.exp, sympy.log)):
        _agree([_ratio(args[0], scale), 1.0])
        return 1.0
    if isinstance(expr, (sympy.ceiling, sympy.floor, sympy.Abs)):
        return _ratio(args[0], scale)
    if isinstance(expr, sympy.Piecewise):
        values = []
        for value, condition in args:
            _ratio(condition, scale)
            values.append(_ratio(value, scale))
        return _agree(values)
    if isinstance(expr, sympy.core.relational.Relational):
        _agree([_ratio(a, scale) for a in args])
        return _FREE
    if isinstance(expr, sympy.logic.boolalg.BooleanFunction):
        for a in args:
            _ratio(a, scale)
        return _FREE
    raise _Unjudged(type(expr).__name__)


def _single(model: build.Model, eq: schema.EquationDefinition, symbols: tuple[schema.SymbolDefinition, ...]) -> schema.ModelDefinition:
    return dataclasses.replace(model.definition, symbols=symbols, equations=(dataclasses.replace(eq, limiters=()),),
                               presets=(), validation=(), derivations=(), plots=(), errata=())


def mutants(model: build.Model, seed: int = 0) -> Iterator[Mutant]:
    """Every single mutation of every equation of ``model`` that the oracle can judge."""
    for equation in model.equations.values():
        eq = equation.definition
        dims = _dims(model, model.units, eq.counts)
        lhs = eq.defines
        if _homogeneous(lhs, equation.rhs, dims, model.symbols, seed) is not True:
            continue
        pieces = [(i, c.value) for i, c in enumerate(equation.cases)] if equation.cases else [(None, equation.rhs)]
        for index, expr in pieces:
            for kind, description, new in _expression_mutations(expr, model, dims, lhs):
                rhs = _rebuilt(equation, index, new)
                verdict = _homogeneous(lhs, rhs, dims, model.symbols, seed)
                if verdict is None:
                    continue
                yield Mutant(model.id, eq.id, kind, description, _single(model, _with_text(eq, index, new), model.definition.symbols), not verdict)
        for name in sorted({s.name for s in equation.rhs.free_symbols} | {lhs}):
            extra = next(u for u in EXTRA_UNITS if f"[{_base(u)}]" not in dims[name])
            units = dict(model.units)
            units[name] = units[name] * build.units.unit(extra)
            verdict = _homogeneous(lhs, equation.rhs, _dims(model, units, eq.counts), model.symbols, seed)
            if verdict is None:
                continue
            symbols = tuple(dataclasses.replace(s, unit=f"({s.unit})*{extra}") if s.name == name else s for s in model.definition.symbols)
            yield Mutant(model.id, eq.id, "unit", f"unit of {name} times {extra}", _single(model, eq, symbols), not verdict)


def _base(unit: str) -> str:
    return {"cycle": "clock", "B": "information", "warp": "warp"}[unit]


def _expression_mutations(expr: sympy.Expr, model: build.Model, dims: dict[str, dict[str, float]], lhs: str) -> Iterator[tuple[str, str, sympy.Expr]]:
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Mul) and len(node.args) >= 2:
            for factor in node.args:
                if factor.is_Number:
                    continue
                rest = sympy.Mul(*[a for a in node.args if a is not factor])
                yield "drop", f"drop {factor} from {node}", expr.xreplace({node: rest})
                yield "invert", f"invert {factor} in {node}", expr.xreplace({node: rest / factor})
    by_dimension: dict[tuple[tuple[str, float], ...], str] = {}
    for name in sorted(model.symbols):
        if name == lhs:
            continue
        by_dimension.setdefault(tuple(sorted(dims[name].items())), name)
    for symbol in sorted(expr.free_symbols, key=str):
        own = tuple(sorted(dims[symbol.name].items()))
        for key, other in by_dimension.items():
            if key != own and other != lhs:
                yield "replace", f"{symbol} -> {other}", expr.xreplace({symbol: model.symbols[other]})


def _rebuilt(equation: build.Equation, index: int | None, new: sympy.Expr) -> sympy.Basic:
    if index is None:
        return new
    return sympy.Piecewise(*[(new if i == index else c.value, c.condition) for i, c in enumerate(equation.cases)])


def _with_text(eq: schema.EquationDefinition, index: int | None, new: sympy.Expr) -> schema.EquationDefinition:
    text = sympy.sstr(new, order="none")
    if index is None:
        return dataclasses.replace(eq, rhs=text)
    cases = tuple(dataclasses.replace(c, value=text) if i == index else c for i, c in enumerate(eq.cases))
    return dataclasses.replace(eq, cases=cases)


def caught(mutant: Mutant) -> bool:
    """True when building the mutated one-equation model fails the unit check of that equation."""
    try:
        build.Model(mutant.definition)
    except errors.UnitMismatchError as exc:
        return all(p.where.startswith(f"equation {mutant.equation}") for p in getattr(exc, "problems", (exc,)))
    except errors.ModelFileError:
        return False
    return False
