"""Bare literals read in a scaled unit, given that unit once and for all as constants of the model.

A bare number beside terms with a unit (in a sum, a ``Min``/``Max``, a ``Piecewise``'s values, a
comparison) is in its siblings' unit (equations/README.md): ``Min(L, 200)`` with L in ns is 200 ns.
``evaluate.scaling`` reads it so where it finds it, but a derivation moves it into other sums and
products (``solve`` puts it beside the target, an extremum into a product), and an expansion of
several equations may put it beside siblings of another unit: there it would be read in another unit.
So when a model is built, each such literal whose unit has a scale other than 1 (ns, us, GB/s, KiB;
never a pure number) is replaced in the equation as written by a constant symbol of that value and
unit (``lit_200_ns``): from then on it is a quantity like any declared constant, read right by every
path. Equations without such a literal are built exactly as before.

A literal read in a unit of scale 1 (``q0 + c3 - 490``, q0 and c3 in cycle) is made one too
(``lit_490_cycle``, :attr:`Literals.every_dimension`) where the model's units give one dimension two
scales (:func:`literal_units.scale_follows_dimension`: kcycle beside cycle, GB beside B, GFLOP/s
beside Hz*FLOP/cycle): there a solve, an expansion or a request's expression can put it beside a
term of its dimension in another scale (solved for c3, beside ``q1 - c2`` in kcycle), which would read
it so. Where they give each dimension one scale it is left bare, soundly: every term of a model's
symbols has the scale its dimension gives (a sum, Min/Max or Piecewise the scale of its terms, a
product or power the product or power of theirs, a floor or ceiling scale 1, whose argument the model
check holds to scale 1), so every term of the literal's dimension has scale 1, and a term of another
dimension beside it is a dimension error, refused. A request's number in a unit that would give a
dimension a second scale (``0.33 us`` for L in ns) is given in a unit that keeps one
(:meth:`Literals.given`: ``lit_330_ns``), so that argument holds for it too; a pure number (a literal
beside a ratio) is read as one beside any term.

NOTE: the walk is over the tree as written (``expressions.parse_expression(as_written=True)``):
``c + (L - 300)``, c in us and L in ns, has its 300 beside L (ns), which the evaluated tree
(``-300 + L + c``) no longer shows. The unit rules are those of ``units.literal_units`` and
``evaluate.scaling`` (products multiply units, a floor's value is in its argument's base unit).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import pint
import sympy

from symgpu import errors
from symgpu.model import substitution
from symgpu.units import literal_units, quantities

#: how a constant's name starts
PREFIX = "lit"


@dataclass(frozen=True)
class LiteralConstant:
    """A bare literal of the model's equations, read in a scaled unit, made a constant.

    Attributes:
        name: the constant's symbol name (``lit_200_ns``).
        value: its magnitude in ``unit`` as text (``200``, ``0.5``).
        unit: the unit its siblings give it.
        equations: ids of the equations that write it.
    """

    name: str
    value: str
    unit: pint.Unit
    equations: tuple[str, ...]

    @property
    def unit_text(self) -> str:
        """The unit, compact (``GB / s``)."""
        return f"{self.unit:~}"

    @property
    def description(self) -> str:
        """One line: which literal it is and why it has this unit."""
        if not self.equations:
            return (f"the number {self.value} given with a request, in the declared unit {self.unit_text} of the symbol it "
                    "is given for (made a constant so that every derivation keeps that unit)")
        return (f"the bare number {self.value} of equation {', '.join(self.equations)}, in its siblings' unit "
                f"{self.unit_text} (made a constant so that every derivation keeps that unit)")

    @property
    def latex(self) -> str:
        """``200\\,\\mathrm{ns}``."""
        shown = re.sub(r"\s*/\s*", "/", self.unit_text).replace(" ", "\\,")
        return f"{self.value}\\,\\mathrm{{{shown}}}"


class Literals:
    """The literal constants of one model, shared by its equations (one per value and unit)."""

    def __init__(self, declared: Mapping[str, pint.Unit]) -> None:
        self.declared = declared
        self.one = quantities.registry().dimensionless
        #: whether a literal read in a unit of scale 1 with a dimension is made a constant too: where the model's units
        #: give one dimension two scales (:func:`literal_units.scale_follows_dimension`; module docstring)
        self.every_dimension = not literal_units.scale_follows_dimension(declared.values())
        #: (value text, unit) -> (symbol, equations writing it), in the order found
        self.found: dict[tuple[str, pint.Unit], tuple[sympy.Symbol, list[str]]] = {}
        self.equation = ""

    def copy(self) -> Literals:
        """Another record of the same constants, to which more may be added without changing this one."""
        twin = Literals(self.declared)
        twin.found = {key: (symbol, list(equations)) for key, (symbol, equations) in self.found.items()}
        return twin

    def constants(self) -> tuple[LiteralConstant, ...]:
        """Every constant made so far, in the order found."""
        return tuple(LiteralConstant(symbol.name, value, unit, tuple(equations))
                     for (value, unit), (symbol, equations) in self.found.items())

    def given(self, value: sympy.Rational, unit: pint.Unit) -> sympy.Expr:
        """A number a request gives in ``unit`` (a scaled one: ``--assume 'L >= 400'``, L in ns) as the
        constant of that value and unit, times its sign (the one an equation's literal of that value
        and unit already made, else a new one, written by no equation). Where the model's units give each
        dimension one scale (not :attr:`every_dimension`: its literals of scale 1 are left bare) and ``unit`` would
        give its dimension another (``0.33 us`` where L is in ns beside B in GB/s: a bare 5 beside ``L*B`` is 5 B,
        beside ``lit_0p33_us*B`` it would be 5 kB), the number is converted exactly to a unit that keeps one scale
        (:func:`literal_units.consistent_unit`: ``lit_330_ns``)."""
        self.equation = ""
        kept = literal_units.consistent_unit(unit, [*self.declared.values(), *(u for _, u in self.found)])
        if kept is None:
            raise errors.UsageError(f"the number {value} {unit:~} would give its dimension a scale no unit of the model has; "
                                    "give it in a unit of a symbol of the model")
        ratio = quantities.base_factor(unit) / quantities.base_factor(kept)
        return cast(sympy.Expr, self._constant(value * sympy.Rational(ratio.numerator, ratio.denominator), kept))

    def rewrite(self, tree: sympy.Basic, equation: str, defined: pint.Unit | None = None) -> sympy.Basic:
        """``tree`` (as written) with each bare literal in a scaled unit replaced by its constant
        (the same object where there is none). ``defined``: the unit of the quantity a right-hand side
        defines, its left side: a right side whose terms have no unit at all (``5``, ``Max(5, 7)``, a
        Piecewise of numbers) is in that unit (``lat = 200`` with lat in ns is 200 ns)."""
        self.equation = equation
        with sympy.evaluate(False):
            new, unit = self._walk(tree)
            return self._in_defined_unit(new, defined) if unit is None and defined is not None else new

    def rewrite_siblings(self, trees: list[sympy.Basic], equation: str, defined: pint.Unit | None = None) -> list[sympy.Basic]:
        """``trees`` (as written) taken as siblings of one another (a case table's values, the arguments
        of a Min/Max with a limiter among them), rewritten as :meth:`rewrite` does (``defined`` too)."""
        self.equation = equation
        with sympy.evaluate(False):
            new, reference = self._siblings(trees)
            return [self._in_defined_unit(tree, defined) for tree in new] if reference is None and defined is not None else new

    # ------------------------------------------------------------------ the walk
    def _walk(self, expr: Any) -> tuple[Any, pint.Unit | None]:
        if isinstance(expr, sympy.logic.boolalg.BooleanAtom) or expr.is_Number or expr.is_NumberSymbol:
            return expr, None
        if isinstance(expr, sympy.Expr) and not expr.free_symbols:
            return expr, None  # a constant written as arithmetic ('1/2') is a bare literal too
        if expr.is_Symbol:
            return expr, self.declared.get(expr.name)
        if expr.is_Mul:
            args, found = self._args(expr.args)
            product = self.one
            for u in found:
                product = product * (u if u is not None else self.one)
            return self._rebuilt(expr, args), product
        if expr.is_Pow:
            (base, exponent), (u, _) = self._args(expr.args)
            power = expr.args[1] if expr.args[1].free_symbols else expr.args[1].doit()
            powered = None if u is None else cast(pint.Unit, u ** float(power) if power.is_Rational else self.one)
            return self._rebuilt(expr, [base, exponent]), powered
        if isinstance(expr, (sympy.Min, sympy.Max)) or expr.is_Add or isinstance(expr, sympy.core.relational.Relational):
            args, reference = self._siblings(list(expr.args))
            relation = isinstance(expr, sympy.core.relational.Relational)
            return self._rebuilt(expr, args), (None if relation else reference)
        if isinstance(expr, sympy.Piecewise):
            values, reference = self._siblings([value for value, _ in expr.args])
            conditions = [self._walk(condition)[0] for _, condition in expr.args]
            if all(v is old for v, (old, _) in zip(values, expr.args)) and all(c is old for c, (_, old) in zip(conditions, expr.args)):
                return expr, reference
            return sympy.Piecewise(*zip(values, conditions), evaluate=False), reference
        if isinstance(expr, sympy.Abs):
            inner, u = self._walk(expr.args[0])
            return self._rebuilt(expr, [inner]), u
        if isinstance(expr, (sympy.floor, sympy.ceiling)):
            inner, u = self._walk(expr.args[0])
            return self._rebuilt(expr, [inner]), (None if u is None else literal_units.base_unit(u))
        args, _ = self._args(expr.args)
        return self._rebuilt(expr, args), None

    def _args(self, args: Any) -> tuple[list[Any], list[pint.Unit | None]]:
        walked = [self._walk(a) for a in args]
        return [w for w, _ in walked], [u for _, u in walked]

    def _siblings(self, args: list[Any]) -> tuple[list[Any], pint.Unit | None]:
        new, found = self._args(args)
        reference = next((u for u in found if u is not None), None)
        if reference is None or not self._kept_in(reference):
            return new, reference
        scale = literal_units.literal_scale(reference)
        # NOTE: named in the simplest of the siblings' units that read it alike (``d`` in ns beside ``ncyc/f``
        # in cycle/GHz: 5 ns), the value the same
        named = min((u for u in found if u is not None and u.dimensionality == reference.dimensionality
                     and literal_units.same_scale(literal_units.literal_scale(u), scale)), key=lambda u: len(f"{u:~}"))
        return [self._constant(w, named) if u is None and not literal_units.zero_literal(w) else w
                for w, u in zip(new, found)], reference

    def _in_defined_unit(self, expr: Any, unit: pint.Unit) -> Any:
        """``expr``, whose terms have no unit, with its bare literals given ``unit`` where that unit has a
        scale other than 1 (the terms of a sum or Min/Max, a Piecewise's values; a function of numbers such as
        ``exp(2)`` is left as it is: the dimension check refuses it beside a unit)."""
        if not self._kept_in(unit):
            return expr
        if isinstance(expr, sympy.Expr) and not expr.free_symbols:
            return expr if literal_units.zero_literal(expr) else self._constant(expr, unit)
        if isinstance(expr, (sympy.Min, sympy.Max, sympy.Abs)) or expr.is_Add:
            return self._rebuilt(expr, [self._in_defined_unit(a, unit) for a in expr.args])
        if isinstance(expr, sympy.Piecewise):
            return sympy.Piecewise(*[(self._in_defined_unit(v, unit), c) for v, c in expr.args], evaluate=False)
        return expr

    def _kept_in(self, unit: pint.Unit) -> bool:
        """Whether a bare literal read in ``unit`` is made a constant: where that unit has a scale other than 1, or has
        a dimension in a model whose units give one dimension two scales (:attr:`every_dimension`); never a pure number."""
        if not literal_units.same_scale(literal_units.literal_scale(unit), 1.0):
            return True
        # NOTE: not in a unit of a fractional power (beside sqrt(w), w in warp/SM): no quantity text names it (as before)
        return self.every_dimension and not unit.dimensionless and literal_units.whole_powers(unit)

    @staticmethod
    def _rebuilt(expr: Any, args: list[Any]) -> Any:
        if all(new is old for new, old in zip(args, expr.args)):
            return expr
        return expr.func(*args, evaluate=False)

    def _constant(self, literal: Any, unit: pint.Unit) -> Any:
        """``literal`` (a bare number) as a positive constant of ``unit`` times its sign (and over a
        denominator where it has no finite decimal: ``1/3`` -> ``lit_1_ns/3``)."""
        with sympy.evaluate(True):  # the walk's evaluate(False) would leave a sum of numbers unsummed ('1/4 + Min(3, 2)')
            value = literal if literal.is_Number else literal.doit()
        if not isinstance(value, sympy.Rational):
            return literal  # a root or another irrational number: left as written (scaling reads it so too)
        size = abs(value)
        denominator = sympy.Integer(1)
        text = decimal(size)
        if text is None:
            text, denominator = str(size.p), sympy.Integer(size.q)
        key = (text, unit)
        if key not in self.found:
            self.found[key] = (sympy.Symbol(self._name(text, unit), positive=True, real=True), [])
        symbol, equations = self.found[key]
        if self.equation and self.equation not in equations:
            equations.append(self.equation)
        sign = -1 if value < 0 else 1
        return sympy.Mul(sign, symbol, 1 / denominator) if sign != 1 or denominator != 1 else symbol

    def _name(self, text: str, unit: pint.Unit) -> str:
        unit_part = re.sub(r"\W+", "_", f"{unit:~}".replace("/", " per ").replace("**", "")).strip("_")
        base = f"{PREFIX}_{text.replace('.', 'p')}_{unit_part}"
        taken = set(self.declared) | {s.name for s, _ in self.found.values()}
        name, index = base, 2
        while name in taken:
            name, index = f"{base}_{index}", index + 1
        return name


def as_written(expr: sympy.Basic, constants: tuple[LiteralConstant, ...]) -> str:
    """``expr`` as a message shows it: each literal constant as the number and unit the file means
    (``L >= 500 ns``, not ``L >= lit_500_ns``)."""
    named = {c.name: sympy.Symbol(f"{c.value} {c.unit_text}") for c in constants}
    return str(expr.xreplace({s: named[s.name] for s in expr.free_symbols if getattr(s, "name", None) in named}))


def decimal(value: sympy.Rational) -> str | None:
    """``value`` (positive) as a finite decimal (``0.5``), or None where it has none (``1/3``)."""
    q = int(value.q)
    twos = fives = 0
    while q % 2 == 0:
        q, twos = q // 2, twos + 1
    while q % 5 == 0:
        q, fives = q // 5, fives + 1
    if q != 1:
        return None
    digits = max(twos, fives)
    if digits == 0:
        return str(value.p)
    # NOTE: in integers: the caller's ``sympy.evaluate(False)`` would leave ``value * 10**digits`` unevaluated
    scaled = int(value.p) * 10**digits // int(value.q)
    whole, fraction = divmod(scaled, 10**digits)
    return f"{whole}.{fraction:0{digits}d}"


def evaluated(tree: sympy.Basic) -> sympy.Basic:
    """The tree as written (rewritten) built again with SymPy's evaluation, as the model's parser builds
    a text (Min/Max through :func:`substitution.min_max`, comparisons ``Eq``/``Ne`` unevaluated)."""
    return _evaluated(tree)


def _evaluated(expr: Any) -> Any:
    if not expr.args or isinstance(expr, sympy.Symbol):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(_evaluated(v), _evaluated(c)) for v, c in expr.args])
    args = [_evaluated(a) for a in expr.args]
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return substitution.min_max(expr.func, tuple(args))
    build: Callable[..., Any] = expr.func
    if isinstance(expr, (sympy.Eq, sympy.Ne)):
        return build(*args, evaluate=False)
    return build(*args)
