"""Base units: the exact factor from a declared unit to symgpu's coherent base units, and the
rewrite of an expression so that base-unit magnitudes in give the base-unit magnitude out.

NOTE: this is the one place where unit scaling is written; every evaluation path (compiled
functions, exact evaluation, regime checks, plots) goes through it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pint
import sympy
from sympy.core.parameters import global_parameters

from symgpu import errors, units
from symgpu.memo import memoised
from symgpu.evaluate.state import state_of
from symgpu.proofs import forms, whole_parts
from symgpu.units import literal_units

if TYPE_CHECKING:
    from symgpu.model import Model


@memoised("evaluate.scaling.unit_scale", 512)
def unit_scale(unit: pint.Unit) -> sympy.Rational:
    """Factor taking a magnitude in ``unit`` to the registry's coherent base units, exactly.

    Dimensionless units keep their real scale too: ``8 bit/B`` is the pure number 1.
    """
    factor = units.base_factor(unit)
    return sympy.Rational(factor.numerator, factor.denominator)


def symbol_scale(model: Model, name: str) -> float:
    """Factor from symbol ``name``'s declared unit to coherent base units, as a float."""
    return float(unit_scale(model.units[name]))


def base_expression(model: Model, expr: sympy.Basic) -> sympy.Basic:
    """Rewrite ``expr`` so that, fed base-unit magnitudes, it returns the base-unit magnitude.

    Products need no change (base units are coherent). Bare literals in sums, Min/Max,
    Piecewise branches and comparisons are in the declared unit of their siblings, so they
    are multiplied by that unit's scale; where the siblings are dimensionless the literal is
    a pure number (``1 - L2/ws`` with L2 in MiB and ws in B is one minus the ratio, not
    2**20 minus it). ``floor``/``ceiling`` act on the base-unit value of their argument (a pure
    number's value: ``floor(t/L)``, t in us, L in ns, counts whole L in t).
    """
    return _Rescaler(model).walk(expr)[0]


def literal_branches(model: Model, branches: Sequence[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """A Piecewise's (value, condition) branches that a derivation built, whose bare numbers are
    base-unit magnitudes (an end ``L_M = 1/5000000``, 200 ns), written as the model's equations write a
    bare number beside a branch with a declared unit: in that unit (:func:`base_expression` multiplies
    such a literal by the unit's scale, so it is divided by it here; 200 beside ``x/Theta_M`` in ns).
    Branches without a declared unit among them are returned as they are (a lone number is read in
    base units)."""
    rescaler = _Rescaler(model)
    try:
        reference = next((u for value, _ in branches if not getattr(value, "is_number", True)
                          for u in [rescaler.unit(value)] if u is not None), None)
    except (KeyError, AttributeError):  # a symbol of no declared unit: nothing to go by
        return list(branches)
    if reference is None:
        return list(branches)
    scale = _literal_scale(reference)
    return [(value / scale if getattr(value, "is_number", False) else value, condition) for value, condition in branches]


def literal_scale(model: Model, expr: sympy.Basic) -> sympy.Rational:
    """The factor :func:`base_expression` puts on a bare number beside ``expr`` (its sibling in a sum,
    ``Min``/``Max`` or relation): the scale of ``expr``'s declared unit; 1 where that unit is dimensionless
    or ``expr`` is a pure number."""
    unit = _Rescaler(model).unit(expr)
    return sympy.Integer(1) if unit is None else _literal_scale(unit)


def scaled_number_side(model: Model, relation: sympy.Basic) -> bool:
    """Whether ``relation`` compares an expression with a bare number (not 0) that :func:`base_expression` reads in a
    scaled declared unit (``X/(Theta_M*eta_M) <= 200``, an assumed end ``L_M <= 200`` at a location: 200 ns). Tidied
    (both sides multiplied by ``Theta_M*eta_M``), the number would become a pure factor of a product, read in no unit."""
    if not isinstance(relation, sympy.core.relational.Relational):
        return False
    sides = [(a, b) for a, b in ((relation.lhs, relation.rhs), (relation.rhs, relation.lhs)) if b.is_number and b != 0]
    try:
        return any((u := _Rescaler(model).unit(a)) is not None and _literal_scale(u) != 1 for a, _ in sides)
    except (KeyError, AttributeError):  # a symbol of no declared unit: nothing to go by
        return False


def literals_read_in(model: Model, expr: sympy.Basic) -> tuple[pint.Unit, ...]:
    """The declared units the bare literals of ``expr``'s value are read in (``2499 - B``, B in cycle: cycle), one per
    scale, in the order found; the literals of conditions (a Piecewise's, a relation's) are left out: they decide a case,
    not the unit of the value; and so are infinities, infinite in every unit. Empty where no bare literal sits beside a term with a unit."""
    rescaler = _Rescaler(model)
    found: dict[sympy.Rational, pint.Unit] = {}
    for node, values in _value_nodes(expr):
        if node.is_Add or isinstance(node, (sympy.Min, sympy.Max, sympy.Piecewise)):
            walked = [rescaler.unit(v) for v in values]
            reference = next((u for u in walked if u is not None), None)
            if reference is not None and not reference.dimensionless and any(
                    u is None and not literal_units.zero_literal(v) and not _infinite(v) for v, u in zip(values, walked)):
                found.setdefault(_literal_scale(reference), reference)
    return tuple(found.values())


def _infinite(value: sympy.Basic) -> bool:
    """Whether ``value`` is an infinity (``oo``, ``-oo``, ``zoo``: a limit's value in a case), which is infinite in
    every unit: read in none."""
    return bool(getattr(value, "is_number", False) and value.is_infinite)


def _value_nodes(expr: sympy.Basic) -> Iterator[tuple[sympy.Basic, list[sympy.Basic]]]:
    """Each node of ``expr``'s value with its value arguments (a Piecewise's values), depth first; the conditions (a
    Piecewise's, a relation's) left out: they decide a case, not the unit of the value."""
    todo = [expr]
    while todo:
        node = todo.pop()
        if not isinstance(node, sympy.Basic) or isinstance(node, (sympy.core.relational.Relational, sympy.logic.boolalg.Boolean)):
            continue
        values = [v for v, _ in node.args] if isinstance(node, sympy.Piecewise) else list(node.args)
        yield node, values
        todo.extend(values)


def written_unit(model: Model, expr: sympy.Basic, declared: str) -> str:
    """The unit ``expr`` is written in: ``declared``, unless every bare number of its value is read in one other unit of
    that dimension (``2499 - B``, B in cycle, solved for A in kcycle: 2499 cycles, so the formula is in cycle), whose
    text (a symbol's declared text where one has it) is returned where it reads back as that unit; else ``declared``
    (the value is the same in either: the text only names the unit it is shown in)."""
    try:
        read_in, unit = literals_read_in(model, expr), units.unit(declared)
    except (KeyError, AttributeError, errors.SymgpuError, pint.errors.PintError):  # a symbol of no declared unit
        return declared
    if len(read_in) != 1 or read_in[0].dimensionality != unit.dimensionality or unit_scale(read_in[0]) == unit_scale(unit):
        return declared
    text = next((model.unit_text(n) for n in sorted(model.units) if model.units[n] == read_in[0]), f"{read_in[0]}")
    try:  # pint's text of a product of symbols' units may be one the unit grammar refuses (B ** 0.5 * GiB ** 0.5 / s)
        units.unit(text)
    except (ValueError, errors.SymgpuError, pint.errors.PintError):
        return declared
    return text


#: the SI prefixes tried, in this order, for the name of a formula's unit of the declared one's dimension (:func:`symbols_unit`)
_PREFIXES = ("n", "u", "m", "k", "M", "G", "T", "p", "P", "f")


def symbols_unit(model: Model, expr: sympy.Basic, declared: str) -> str:
    """The unit ``expr``'s value is in when each symbol is read in its declared unit (an expression with no bare number
    beside a term with a unit: those are :func:`written_unit`'s): ``declared`` where that is its scale (or where no one
    unit is: siblings of a sum, Min/Max or Piecewise in units of different scales, a whole part of a scaled unit), else a
    unit of the same dimension and that scale, named as a symbol of the model declares it or as ``declared`` with an SI
    prefix (``N_exec*d_iota/Theta_M``, d_iota in B/thread and Theta_M in GB/s, declared in s: ns); ``declared`` where none
    is found."""
    try:
        return declared if literals_read_in(model, expr) else _named_scale(model, expr, declared, units.unit(declared))
    except (KeyError, AttributeError, ValueError, TypeError, errors.SymgpuError, pint.errors.PintError):  # a symbol of no
        return declared  # declared unit, a unit no walk reads: the form of the answer is never a reason to refuse it


def _named_scale(model: Model, expr: sympy.Basic, declared: str, unit: pint.Unit) -> str:
    """:func:`symbols_unit`'s unit, once ``expr`` is known to have no bare number beside a term with a unit."""
    rescaler = _Rescaler(model)
    formula = rescaler.unit(expr)
    if formula is None or not literal_units.whole_powers(formula) or formula.dimensionality != unit.dimensionality \
            or unit_scale(formula) == unit_scale(unit) or not _one_scale(rescaler, expr):
        return declared
    scale = unit_scale(formula)
    named = next((model.unit_text(n) for n in sorted(model.units)
                  if model.units[n].dimensionality == unit.dimensionality and unit_scale(model.units[n]) == scale), None)
    if named is not None:
        return named
    base = f"{units.in_base_units(1 * formula).units:~}".replace(" ", "")  # the dimension's coherent unit (GB*ns/s: B)
    for text in (*(p + declared for p in _PREFIXES), *(p + base for p in ("", *_PREFIXES))):
        try:
            candidate = units.unit(text)
        except (ValueError, errors.SymgpuError, pint.errors.PintError):  # no such prefixed unit (nKiB)
            continue
        if candidate.dimensionality == unit.dimensionality and unit_scale(candidate) == scale:
            return text
    own = f"{formula:~}".replace(" ", "")  # the symbols' own units multiplied out (inflight/L, KiB over ns: KiB/ns)
    return own if unit_scale(units.unit(own)) == scale else declared


def _one_scale(rescaler: _Rescaler, expr: sympy.Basic) -> bool:
    """Whether every sum, Min/Max and Piecewise value of ``expr`` has its terms in units of one scale, and every whole part
    reads a pure number or a base-scale unit: then reading each symbol in its declared unit gives one unit for the value."""
    for node, values in _value_nodes(expr):
        if node.is_Add or isinstance(node, (sympy.Min, sympy.Max, sympy.Piecewise)):
            scales = {unit_scale(u) for u in (rescaler.unit(v) for v in values) if u is not None and not u.dimensionless}
            if len(scales) > 1:
                return False
        if isinstance(node, (sympy.floor, sympy.ceiling)):
            inside = rescaler.unit(node.args[0])
            if inside is not None and not inside.dimensionless and unit_scale(inside) != 1:
                return False
    return True


def in_base_units(model: Model, expr: sympy.Basic) -> bool:
    """True when every symbol of ``expr`` is declared in base units (scale 1): then
    :func:`base_expression` would give ``expr`` back (every literal's scale is 1 too)."""
    return all(unit_scale(model.units[s.name]) == 1 for s in forms.free_symbols(expr))


class _Rescaler:
    """Walks an expression tracking the declared pint unit of every node."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.ureg = units.registry()
        self.done = state_of(model).rewritten  # bounded per model (``evaluate.state.rewritten``)
        self.units = state_of(model).units  # bounded per model (``evaluate.state.units``)

    def walk(self, expr: Any) -> tuple[Any, Any]:
        """(``expr`` rewritten for base units, its declared unit or ``None``), once per node.

        NOTE: expanded quantities share sub-expressions (one object substituted in several
        places, and in several quantities: see ``Model._expand``), so results are kept per
        model, keyed by object identity (the node is kept too, so its id is never reused).
        """
        found = self.done.get(id(expr))
        if found is None:
            found = self.done[id(expr)] = (expr, self._rewrite(expr))
        return found[1]

    def unit(self, expr: Any) -> Any:
        """``walk(expr)[1]``, the node's declared unit (``None`` for a pure number), without rebuilding the nodes: the
        same unit arithmetic over the same nodes in the same order, with the same checks that raise (a symbol of no
        declared unit, an ambiguous bare literal, a unit pint cannot raise to the power), but no node built again (the
        rebuilt relations and ``And``\ s of a 228-row regime table, whose unit alone a result's form reads). A node
        rewritten already gives the unit its walk found; the rest are kept per model by object identity, as :meth:`walk`
        keeps its nodes (``evaluate.state.units``)."""
        found = self.done.get(id(expr))
        if found is not None:
            return found[1][1]
        kept = self.units.get(id(expr))
        if kept is None:
            kept = self.units[id(expr)] = (expr, self._unit(expr))
        return kept[1]

    def _unit(self, expr: Any) -> Any:
        """:meth:`_rewrite`'s unit, node by node as it finds it (see :meth:`unit`)."""
        one = self.ureg.dimensionless
        if isinstance(expr, sympy.logic.boolalg.BooleanAtom) or expr.is_Number or expr.is_NumberSymbol:
            return None
        if expr.is_Symbol:
            return self.model.units[expr.name]
        if expr.is_Mul:
            unit = one
            for arg in expr.args:
                u = self.unit(arg)
                unit = unit * (u if u is not None else one)
            return unit
        if expr.is_Pow:
            u = self.unit(expr.args[0])
            self.unit(expr.args[1])
            return None if u is None else (u ** float(expr.args[1]) if expr.args[1].is_Rational else one)
        if isinstance(expr, (sympy.Min, sympy.Max, sympy.core.relational.Relational)) or expr.is_Add:
            return self._siblings_unit(expr, list(expr.args))
        if isinstance(expr, sympy.Piecewise):
            found = [self.unit(v) for v, _ in expr.args]
            reference = next((u for u in found if u is not None), None)
            _refuse_ambiguous(self.model, expr, [(v, u) for (v, _), u in zip(expr.args, found)])
            if reference is not None:
                _literal_scale(reference)
            for _, condition in expr.args:
                self.unit(condition)
            return reference
        if isinstance(expr, (sympy.floor, sympy.ceiling)):
            u = self.unit(expr.args[0])
            return None if u is None else literal_units.base_unit(u)
        if isinstance(expr, (sympy.And, sympy.Or, sympy.Not, sympy.Abs, sympy.exp, sympy.log)):
            found = [self.unit(a) for a in expr.args]
            return found[0] if isinstance(expr, sympy.Abs) else None
        return None

    def _rewrite(self, expr: Any) -> tuple[Any, Any]:
        one = self.ureg.dimensionless
        unit: pint.Unit | None  # the node's declared unit; None for pure numbers
        if isinstance(expr, sympy.logic.boolalg.BooleanAtom) or expr.is_Number or expr.is_NumberSymbol:
            return expr, None
        if expr.is_Symbol:
            return expr, self.model.units[expr.name]
        if expr.is_Mul:
            args, unit = [], one
            for arg in expr.args:
                new, u = self.walk(arg)
                args.append(new)
                unit = unit * (u if u is not None else one)
            return expr.func(*args), unit
        if expr.is_Pow:
            base, u = self.walk(expr.args[0])
            exponent, _ = self.walk(expr.args[1])
            unit = None if u is None else (u ** float(expr.args[1]) if expr.args[1].is_Rational else one)
            return expr.func(base, exponent), unit
        if isinstance(expr, (sympy.Min, sympy.Max)):
            # NOTE: evaluate=False: the model already built this Min/Max; evaluating it again
            # (SymPy's search for dominated arguments) costs seconds and changes no value.
            return self.siblings(expr, list(expr.args), lambda *a: expr.func(*a, evaluate=False))
        if isinstance(expr, sympy.core.relational.Relational):
            return self.siblings(expr, list(expr.args), lambda *a: relation(expr.func, *a))
        if expr.is_Add:
            return self.siblings(expr, list(expr.args), lambda *a: expr.func(*a))
        if isinstance(expr, sympy.Piecewise):
            walked = [self.walk(v) for v, _ in expr.args]
            reference = next((u for _, u in walked if u is not None), None)
            _refuse_ambiguous(self.model, expr, [(v, u) for (v, _), (_, u) in zip(expr.args, walked)])
            scale = _literal_scale(reference) if reference is not None else 1
            pieces = [((v * scale if u is None else v), self.walk(c)[0]) for (v, u), (_, c) in zip(walked, expr.args)]
            return sympy.Piecewise(*pieces, evaluate=False), reference
        if isinstance(expr, (sympy.floor, sympy.ceiling)):
            # NOTE: the whole part of the argument's base-unit value, never of its declared-unit value:
            # a derived closed form's floor stands for a floor of the model, whose argument the model
            # check holds to a base-scale unit (units.literal_units.scaled_whole_part), and the
            # derivation's algebra keeps base-unit values, not declared ones (floor(t/(3 L_M)), t in us
            # and L_M in ns, is 1010 at 1 ms and 330 ns, not 1000)
            arg, u = self.walk(expr.args[0])  # the node as SymPy builds it, without its assumption queries where proved
            return whole_parts.built(expr.func, arg), (None if u is None else literal_units.base_unit(u))
        if isinstance(expr, (sympy.And, sympy.Or, sympy.Not, sympy.Abs, sympy.exp, sympy.log)):
            walked = [self.walk(a) for a in expr.args]
            unit = walked[0][1] if isinstance(expr, sympy.Abs) else None
            return expr.func(*[w for w, _ in walked]), unit
        return expr, None

    def _siblings_unit(self, expr: Any, args: list[Any]) -> Any:
        """:meth:`siblings`' unit, without the rebuilt node."""
        found = [self.unit(a) for a in args]
        reference = next((u for u in found if u is not None), None)
        if reference is None:
            return None
        _refuse_ambiguous(self.model, expr, list(zip(args, found)))
        _literal_scale(reference)
        return None if isinstance(expr, sympy.core.relational.Relational) else reference

    def siblings(self, expr: Any, args: list[Any], rebuild: Any) -> tuple[Any, Any]:
        walked = [self.walk(a) for a in args]
        reference = next((u for _, u in walked if u is not None), None)
        if reference is None:
            return rebuild(*[w for w, _ in walked]), None
        _refuse_ambiguous(self.model, expr, [(a, u) for a, (_, u) in zip(args, walked)])
        scale = _literal_scale(reference)
        new = [w * scale if u is None else w for w, u in walked]
        unit = None if isinstance(expr, sympy.core.relational.Relational) else reference
        return rebuild(*new), unit


def relation(func: Any, *sides: Any) -> Any:
    """``func(*sides)``: a relation rebuilt from its rescaled sides, which SymPy evaluates as it builds
    it (``is_gt``, ``is_eq`` under the assumptions: tens of milliseconds for a side with a Min/Max).
    The same relation recurs in the near-tie tests of every relation of a model (each input's
    ``s != floor(s)``, ``|s| > 2**53``), so the result, which depends on the sides alone, is built
    once per process (:func:`_built_relation`); under ``sympy.evaluate(False)`` it is built as it is."""
    if not global_parameters.evaluate:
        return func(*sides)
    return _built_relation(func, sides)


@memoised("evaluate.scaling.relations", 4096)
def _built_relation(func: Any, sides: tuple[Any, ...]) -> Any:
    if _undecidable(func, sides):
        return func(*sides, evaluate=False)  # what SymPy builds where it decides nothing
    return func(*sides)


def _undecidable(func: Any, sides: tuple[Any, ...]) -> bool:
    """Whether ``func(*sides)`` is a near-tie test of one input (:func:`symgpu.evaluate.stepwise.may_be_unequal`'s) that
    no sound evaluation can decide, so SymPy builds it as it is (``Ne`` and the inequalities build
    ``func(*sides, evaluate=False)`` where their comparison is undecided): ``s != floor(s)`` of a real symbol ``s`` that
    may or may not be an integer, and ``s > c`` or ``Max(s, -s) > c`` of a positive number ``c`` and a real symbol ``s``
    not declared nonpositive, which can be below and beyond ``c``. Each costs SymPy 1-3 ms of assumptions queries to
    leave undecided, for every input of every relation whose test is compiled."""
    if len(sides) != 2 or not all(isinstance(side, sympy.Basic) for side in sides):
        return False
    left, right = sides
    if func is sympy.Ne:
        return isinstance(left, sympy.Symbol) and right == sympy.floor(left, evaluate=False) and left.is_real is True \
            and left.is_integer is None
    if func is not sympy.StrictGreaterThan or not (right.is_Number and right.is_positive is True):
        return False
    symbol = left
    if isinstance(left, sympy.Max) and len(left.args) == 2:
        symbol = next((a for a in left.args if isinstance(a, sympy.Symbol) and -a in left.args), None)
    return isinstance(symbol, sympy.Symbol) and symbol.is_real is True and symbol.is_nonpositive is not True


def _refuse_ambiguous(model: Model, parent: Any, walked: list[tuple[Any, Any]]) -> None:
    """Refuse a bare literal among siblings whose units differ in scale: which sibling's unit it
    took would decide its value (the model check refuses it per equation; an expansion of several
    equations can still bring such siblings together). The refusal names the model's file and the
    equations that write the number, as they write it (a derivation may have moved it: ``Y = X + 1``
    solved for an input of X holds ``-1 + Z - A``)."""
    with_units = tuple((a, u) for a, u in walked if u is not None)
    literal = next((a for a, u in walked if u is None and not literal_units.zero_literal(a)), None)
    if literal is None or len(with_units) < 2:
        return
    if not literal_units.differ_in_scale(tuple(u for _, u in with_units)):
        return
    ambiguous = literal_units.Ambiguous(literal, parent, with_units)
    size = abs(literal) if getattr(literal, "is_Number", False) else None
    writing = [eq for eq in model.equations.values()
               if size is not None and any(abs(n) == size for n in eq.rhs.atoms(sympy.Number))]
    where = "; ".join(f"equation {eq.id} writes {ambiguous.written} in '{eq.definition.rhs or eq.rhs}'" for eq in writing)
    raise errors.EvaluationError(f"{model.path}: {where + ': ' if where else ''}{ambiguous.text()} (where the model's equations are "
                                 f"substituted into each other); {ambiguous.hint}")


def _literal_scale(reference: pint.Unit) -> sympy.Rational:
    """The base-unit value of a bare literal whose siblings are in ``reference``: that unit's
    scale, but 1 where the siblings are dimensionless (a ratio of prefixed units such as
    MiB/B is a pure number, and a literal beside it is one too)."""
    return sympy.Integer(1) if reference.dimensionless else unit_scale(reference)
