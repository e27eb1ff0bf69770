"""Bare literals whose unit would depend on which sibling is read first.

A bare literal in a sum, ``Min``/``Max``, ``Piecewise`` branches or a comparison takes the unit
of its siblings (``L_M + N*L_F + 1``: one cycle when ``L_M`` and ``L_F`` are in cycles). When the
siblings are in units of one dimension but of different scale (``L_M`` in kcycle, ``N*L_F`` in
cycle) the literal would mean 1 kcycle or 1 cycle depending on the order of the terms, so a value
would change with a unit declaration that should change no value. :func:`ambiguous_literal` finds
such a literal, so the model is refused where it is written (and ``evaluate.scaling`` refuses it
again where an expansion of several equations puts it there).

A ``floor``/``ceiling`` of an argument in a unit of a dimension and a scale other than 1 (``floor(t)``,
t in us) is refused likewise (:class:`ScaledWholePart`): whole microseconds or whole seconds would be
a choice of the declaration. symgpu takes the whole part of the base-unit value (``evaluate.scaling``),
the one reading under which a derived closed form's floor keeps the model's meaning; a ratio
(``floor(t/L)``, t in us and L in ns) is a pure number and has no such choice.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import pint
import sympy

from symgpu.memo import memoised
from symgpu.units import quantities

#: relative difference of two scales taken as equal (``repr`` round trips of exact factors)
SAME_SCALE = 1e-12


@dataclass(frozen=True)
class Ambiguous:
    """A bare literal among siblings whose units differ in scale.

    Attributes:
        literal: the literal.
        parent: the sum, Min/Max, Piecewise or comparison it sits in.
        siblings: (sibling, its unit) for each sibling with a unit, in the order walked.
    """

    literal: sympy.Basic
    parent: sympy.Basic
    siblings: tuple[tuple[sympy.Basic, pint.Unit], ...]
    #: for a sibling whose own terms differ in scale (``Max(c, L)``, ``(c + L)*2``), those terms' units
    mixed: tuple[tuple[sympy.Basic, tuple[pint.Unit, ...]], ...] = ()

    @property
    def written(self) -> str:
        """The literal as the file writes it (``5`` of ``x - 5``, which the sum holds as -5)."""
        shown = sympy.sstr(self.literal, order="none")
        return shown[1:] if getattr(self.parent, "is_Add", False) and shown.startswith("-") else shown

    @property
    def hint(self) -> str:
        """What to write instead: a constant symbol in each unit the literal could be in."""
        inner = dict(self.mixed)
        found = [u for s, unit in self.siblings for u in inner.get(s, (unit,))]
        units = list({literal_scale(u): u for u in found if not u.dimensionless}.values())
        if not units:
            return HINT
        shown = " or ".join(f'k = "{self.written} {u:~}"' for u in units)
        return f"declare those symbols in one unit, or give the number its unit through a constant symbol written in its place ({shown})"

    def text(self) -> str:
        """One sentence: the literal, where it sits, the siblings and their units."""
        inner = dict(self.mixed)
        shown = ", ".join(f"'{sympy.sstr(s, order='none')}' in " + (" and ".join(f"{v:~}" for v in inner[s]) if s in inner else f"{u:~}")
                          for s, u in self.siblings)
        return (f"the bare literal {self.written} in '{sympy.sstr(self.parent, order='none')}' sits beside terms "
                f"in units of different scale ({shown}): which of them it is in would change the value")


@dataclass(frozen=True)
class ScaledWholePart:
    """A ``floor``/``ceiling`` whose argument is in a unit of a dimension and a scale other than 1.

    Attributes:
        whole: the floor or ceiling.
        unit: its argument's unit as declared.
    """

    whole: sympy.Basic
    unit: pint.Unit

    def text(self) -> str:
        """One sentence: the floor, its argument's unit, and why the unit decides its value."""
        base = base_unit(self.unit)
        return (f"'{sympy.sstr(self.whole, order='none')}' takes the whole part of a value in {self.unit:~}, whose scale is "
                f"{unit_scale(self.unit):g} {base:~}: whole {self.unit:~} and whole {base:~} differ, and symgpu counts in {base:~}")

    @property
    def hint(self) -> str:
        """What to write instead. Where the scale comes from two units of one dimension in the argument (``KiB/SM`` over
        ``B/block``: a count of blocks per SM, 1024 times the number written), the symbols declared in one unit of it: a
        constant of the argument's unit would count whole groups of 1024 blocks (an outside tester's finding, round 13, F8)."""
        mixed = _one_dimension_twice(self.unit)
        if mixed:
            finest = min(mixed, key=unit_scale)
            return (f"declare the symbols in {' and in '.join(f'{u:~}' for u in mixed)} in one unit (all in {finest:~}, say): "
                    f"the whole part is then taken of a count in {base_unit(self.unit):~}, as meant")
        return (f"divide the argument by a constant symbol of the unit meant (e.g. one_unit = \"1 {self.unit:~}\", "
                f"{type(self.whole).__name__}(x/one_unit)*one_unit), or declare its symbols in {base_unit(self.unit):~}")


def _one_dimension_twice(unit: pint.Unit) -> list[pint.Unit]:
    """The units of one dimension and different scales that ``unit`` is written with (``KiB`` and ``B`` in
    ``block*KiB/(B*SM)``), else empty."""
    registry = quantities.registry()
    parts = [registry.Unit(name) for name in unit._units]
    for part in parts:
        same = [p for p in parts if p.dimensionality == part.dimensionality and not p.dimensionless]
        if len(same) > 1 and not all(same_scale(unit_scale(p), unit_scale(same[0])) for p in same):
            return same
    return []


HINT = "declare those symbols in one unit, or give the number a unit through a constant symbol (e.g. one_cycle = \"1 cycle\")"


@memoised("units.literal_units.scales", 512)
def unit_scale(unit: pint.Unit) -> float:
    """The base-unit value of 1 ``unit`` (``MiB/B`` too: 2**20)."""
    return float(quantities.in_base_units(quantities.registry().Quantity(1, unit)).magnitude)


def base_unit(unit: pint.Unit) -> pint.Unit:
    """The coherent base unit of ``unit``'s dimension: ``unit`` itself where its scale is 1."""
    if same_scale(unit_scale(unit), 1.0):
        return unit
    return cast(pint.Unit, quantities.in_base_units(quantities.registry().Quantity(1, unit)).units)


def literal_scale(unit: pint.Unit) -> float:
    """The base-unit value of a bare literal beside terms in ``unit`` (1 beside pure numbers)."""
    return 1.0 if unit.dimensionless else unit_scale(unit)


def scale_follows_dimension(found: Iterable[pint.Unit]) -> bool:
    """Whether every product of powers of ``found`` (a model's declared units) that has one dimension has one scale:
    no product of them is a pure number of a scale other than 1 (``kcycle/cycle``, ``GB/B``, ``GFLOP/s`` over
    ``Hz*FLOP/cycle``, ``percent``). Then the scale of any expression of the model's symbols is a function of its
    dimension, so a bare literal read beside terms of scale 1 (a base unit, or ``ns*GB/s``) is read at scale 1
    beside any term of its dimension that a derivation or an expansion puts it by; where not, a product of powers
    can give a term of its dimension another scale (``q*c/k``, c in cycle and k in kcycle: 0.001 B for q in B).

    Exact: the products of one dimension differ by a pure-number product, and the pure-number products are the
    integer combinations of a basis of the null space of the dimension matrix, each of whose scales must be 1
    (the scales as exact fractions, :func:`quantities.base_factor`)."""
    return _scale_follows_dimension(tuple(sorted({f"{u}": u for u in found}.items())))


@memoised("units.literal_units.scale_follows_dimension", 256)
def _scale_follows_dimension(named: tuple[tuple[str, pint.Unit], ...]) -> bool:
    found = [unit for _, unit in named]
    return all(_scale_of(found, vector) == 1 for vector in _pure_products(found))


def consistent_unit(unit: pint.Unit, found: Iterable[pint.Unit]) -> pint.Unit | None:
    """A unit of ``unit``'s dimension in which a number given in ``unit`` keeps :func:`scale_follows_dimension` of
    ``found`` (a model's units, where it holds) true: ``unit`` itself where it does so already (``cycle`` beside
    ``ns`` and ``GHz``), else one of ``found`` of that dimension (the shortest named: ``ns`` for ``us``), else a
    product of integer powers of ``found`` of that dimension and scale (``GHz*ns`` for ``kcycle``); None where only
    a fractional power gives one."""
    units = list({f"{u}": u for u in found}.values())
    if scale_follows_dimension([*units, unit]) or not scale_follows_dimension(units):
        return unit
    same = [u for u in units if u.dimensionality == unit.dimensionality]
    if same:
        return min(same, key=lambda u: (len(f"{u:~}"), f"{u:~}"))
    # NOTE: a pure-number product with a power of ``unit`` in it has a scale other than 1 (else the two would agree)
    vector = next(v for v in _pure_products([*units, unit]) if v[-1] != 0)
    powers = [-x / vector[-1] for x in vector[:-1]]
    if any(p.denominator != 1 for p in powers):
        return None
    product = quantities.registry().dimensionless
    for u, p in zip(units, powers):
        product = product * u ** int(p) if p else product
    return cast(pint.Unit, product)


def _pure_products(found: list[pint.Unit]) -> list[list[Fraction]]:
    """A basis of the integer vectors of powers of ``found`` whose product is a pure number: of the null space of the
    dimension matrix (rows the dimensions, columns ``found``), by Gauss-Jordan elimination in fractions, each basis
    vector scaled to integers."""
    dims = sorted({d for unit in found for d in dict(unit.dimensionality)})
    # NOTE: an exponent pint holds as a float (a square root's 0.5) read as the nearest fraction of a small denominator
    rows = [[_fraction(dict(unit.dimensionality).get(d, 0)) for unit in found] for d in dims]
    pivots: list[int] = []
    for column in range(len(found)):
        pivot = next((r for r in range(len(pivots), len(rows)) if rows[r][column] != 0), None)
        if pivot is None:
            continue
        top = len(pivots)
        rows[top], rows[pivot] = rows[pivot], rows[top]
        rows[top] = [x / rows[top][column] for x in rows[top]]
        for r in range(len(rows)):
            if r != top and rows[r][column] != 0:
                rows[r] = [x - rows[r][column] * y for x, y in zip(rows[r], rows[top])]
        pivots.append(column)
    basis = []
    for free in (c for c in range(len(found)) if c not in pivots):
        vector = [Fraction(0)] * len(found)
        vector[free] = Fraction(1)
        for row, column in enumerate(pivots):
            vector[column] = -rows[row][free]
        common = math.lcm(*(x.denominator for x in vector))
        basis.append([x * common for x in vector])
    return basis


def _scale_of(found: list[pint.Unit], powers: list[Fraction]) -> Fraction:
    """The exact scale of the product of ``found`` to ``powers``, raised to the power that makes every unit name's
    exponent in it whole (a power of a scale is 1 exactly where the scale is: ``kB**0.5`` over ``B**0.5`` gives 1000)."""
    exponents: dict[str, Fraction] = {}
    for unit, power in zip(found, powers):
        for name, exponent in unit._units.items():
            exponents[name] = exponents.get(name, Fraction(0)) + _fraction(exponent) * power
    whole = math.lcm(*(e.denominator for e in exponents.values()))
    scale = Fraction(1)
    for name, exponent in exponents.items():
        scale *= quantities.base_factor(quantities.registry().Unit(name)) ** int(exponent * whole)
    return scale


def whole_powers(unit: pint.Unit) -> bool:
    """Whether every unit name of ``unit`` has a whole exponent (``warp/SM``; not ``warp**0.5/SM**0.5``, which no
    quantity text names)."""
    return all(_fraction(exponent).denominator == 1 for exponent in unit._units.values())


def _fraction(exponent: Any) -> Fraction:
    """A unit exponent pint holds (an int, or a float: a square root's 0.5) as the nearest fraction of a small denominator."""
    return Fraction(float(exponent)).limit_denominator(1000)


def same_scale(first: float, second: float) -> bool:
    """True when two unit scales are equal up to :data:`SAME_SCALE`."""
    return abs(first - second) <= SAME_SCALE * max(abs(first), abs(second))


def differ_in_scale(found: tuple[pint.Unit, ...]) -> bool:
    """True when two of ``found`` have one dimension but different scales (``kcycle`` and ``cycle``).

    NOTE: siblings of different dimensions are not compared: the model check refuses those in a
    file, and a derived expression (a solve's root with its target put in as a number) may hold them
    on purpose, with its literals in base units.
    """
    for index, first in enumerate(found):
        for second in found[index + 1:]:
            if first.dimensionality == second.dimensionality and not same_scale(literal_scale(first), literal_scale(second)):
                return True
    return False


def ambiguous_literal(expr: sympy.Basic, declared: Mapping[str, pint.Unit]) -> Ambiguous | ScaledWholePart | None:
    """The first bare literal of ``expr`` whose siblings' units differ in scale, or the first floor or
    ceiling of a value in a scaled unit of a dimension (:class:`ScaledWholePart`), else None.

    Args:
        expr: an expression or condition (as written, or built).
        declared: each symbol's name -> its declared unit.
    """
    if _base_scale_only(expr.free_symbols, declared):
        return None
    walker = _Walker(declared)
    walker.unit(expr)
    return walker.found


def ambiguous_case_values(values: list[sympy.Basic], parent: sympy.Basic,
                          declared: Mapping[str, pint.Unit]) -> Ambiguous | ScaledWholePart | None:
    """:func:`ambiguous_literal` of a case table's values taken together (the branches of the Piecewise
    they make: a bare literal case beside cases in units of different scale), ``parent`` named as where."""
    if _base_scale_only(set().union(*[v.free_symbols for v in values]), declared):
        return None
    walker = _Walker(declared)
    walker.siblings(parent, values)
    return walker.found


def _base_scale_only(symbols: Any, declared: Mapping[str, pint.Unit]) -> bool:
    """Is every declared symbol among ``symbols`` in a base-scale unit? (Every product of such units has base
    scale: no two siblings can differ.)"""
    return all(unit_scale(declared[s.name]) == 1.0 for s in symbols if s.name in declared)


def zero_literal(expr: Any) -> bool:
    """A literal 0: zero in every unit, so no sibling's unit changes its value."""
    return bool(getattr(expr, "is_zero", False)) and not getattr(expr, "free_symbols", True)


class _Walker:
    """Tracks the declared unit of every node as ``evaluate.scaling`` does (None: a pure number)."""

    def __init__(self, declared: Mapping[str, pint.Unit]) -> None:
        self.declared = declared
        self.one = quantities.registry().dimensionless
        self.found: Ambiguous | ScaledWholePart | None = None
        #: nodes (by id; the tree outlives the walk) whose own terms are in units of one dimension and different
        #: scales, with those units: a literal beside one (``Max(c, L) - 100``) has no one unit to take
        self.mixed: dict[int, tuple[pint.Unit, ...]] = {}

    def _mixed_in(self, expr: Any, args: Any) -> None:
        """Mark ``expr`` mixed where one of its ``args`` is (a product or power of a mixed sum is too)."""
        inner = [self.mixed[id(a)] for a in args if id(a) in self.mixed]
        if inner:
            self.mixed[id(expr)] = inner[0]

    def unit(self, expr: Any) -> pint.Unit | None:
        if self.found is not None or isinstance(expr, sympy.logic.boolalg.BooleanAtom) or expr.is_Number or expr.is_NumberSymbol:
            return None
        if isinstance(expr, sympy.Expr) and not expr.free_symbols:
            return None  # a constant written as arithmetic ('1/2' read unevaluated) is a bare literal too
        if expr.is_Symbol:
            return self.declared.get(expr.name)
        if expr.is_Mul:
            product = self.one
            for arg in expr.args:
                unit = self.unit(arg)
                product = product * (unit if unit is not None else self.one)
            self._mixed_in(expr, expr.args)
            return product
        if expr.is_Pow:
            base = self.unit(expr.args[0])
            self.unit(expr.args[1])
            self._mixed_in(expr, expr.args[:1])
            exponent = expr.args[1] if expr.args[1].free_symbols else expr.args[1].doit()
            if base is None:
                return None
            powered: Any = base ** float(exponent) if exponent.is_Rational else self.one
            return cast(pint.Unit, powered)
        if isinstance(expr, (sympy.Min, sympy.Max)) or expr.is_Add or isinstance(expr, sympy.core.relational.Relational):
            return self.siblings(expr, expr.args)
        if isinstance(expr, sympy.Piecewise):
            for _, condition in expr.args:
                self.unit(condition)
            return self.siblings(expr, [value for value, _ in expr.args])
        if isinstance(expr, sympy.Abs):
            inner = self.unit(expr.args[0])
            self._mixed_in(expr, expr.args)
            return inner
        if isinstance(expr, (sympy.floor, sympy.ceiling)):
            inner = self.unit(expr.args[0])
            if inner is None:
                return None
            if self.found is None and not inner.dimensionless and not same_scale(unit_scale(inner), 1.0):
                self.found = ScaledWholePart(expr, inner)
            return base_unit(inner)
        for arg in expr.args:
            self.unit(arg)
        return None

    def siblings(self, parent: Any, args: Any) -> pint.Unit | None:
        walked = [(arg, self.unit(arg)) for arg in args]
        with_units = tuple((arg, unit) for arg, unit in walked if unit is not None)
        literal = next((arg for arg, unit in walked if unit is None and not zero_literal(arg)), None)
        # NOTE: a sibling of a pure-number unit is never mixed: a literal beside a ratio is a pure number
        mixed = tuple((arg, self.mixed[id(arg)]) for arg, unit in with_units if id(arg) in self.mixed and not unit.dimensionless)
        units = tuple(unit for _, unit in with_units)
        if self.found is None and literal is not None and (mixed or differ_in_scale(units)):
            self.found = Ambiguous(literal, parent, with_units, mixed)
        relation = isinstance(parent, sympy.core.relational.Relational)
        if not relation and differ_in_scale(units):
            self.mixed[id(parent)] = tuple({literal_scale(u): u for u in units}.values())
        elif not relation and mixed:
            self.mixed[id(parent)] = mixed[0][1]
        return None if relation or not with_units else with_units[0][1]
