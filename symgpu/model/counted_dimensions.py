"""An expression's dimension against a symbol's, the dimensions counted as pure numbers (an equation's ``counts``) left out:
the one check behind a derivation's unit checks and substitutions (:mod:`symgpu.derive.jobs`), a caller's solve target, limit
point and assumptions (:meth:`symgpu.model.checks.ModelChecks.as_target`, ``in_one_dimension``) and a model file's requests.

The counts left out are those of the equations the expression is used with: the quantity asked about's own, and those of
every equation it is defined through (:func:`counted`), never another equation's of the model. Where every equation's were left
out, ``solve volkov_2016 Latency --for mem_lat --target 'alu_lat*needed_concurrency/needed_occupancy'`` (cycles times
instructions, for a latency whose equations count no instruction) was taken, and the solution's unit check refused the answer
after, blaming the model's equations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import sympy

from symgpu.model import schema
from symgpu.units import dimensions

__all__ = ["Differs", "counted", "dimension_as", "reading", "without_counts"]

#: a name in an expression's text (a defined quantity among them is one the equation is defined through)
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


class Differs(Exception):
    """An expression of another dimension than the symbol it stands for: ``found`` and ``expected`` as shown
    (:func:`symgpu.units.dimensions.show`)."""

    def __init__(self, found: str, expected: str) -> None:
        super().__init__(f"{found} is not {expected}")
        self.found = found
        self.expected = expected


def counted(definition: schema.ModelDefinition, quantity: Any, stop_at: Iterable[str] = ()) -> frozenset[str]:
    """The dimensions (``"instruction"``, no brackets) that the equations defining ``quantity`` count as pure numbers: its
    own equation (``quantity`` a defined symbol or an equation id) and every one it is defined through (its value, its cases'
    values and conditions), none through a quantity in ``stop_at``; read from the file's texts, so no equation is built.
    An expression (SymPy) counts those of each defined quantity in it; anything else counts none."""
    by_symbol = {e.defines: e for e in definition.equations}
    by_id = {e.id: e for e in definition.equations}
    stop = frozenset(stop_at)
    if isinstance(quantity, sympy.Basic):
        start = [by_symbol[s.name] for s in quantity.free_symbols if isinstance(s, sympy.Symbol) and s.name in by_symbol
                 and s.name not in stop]
    else:
        found = by_symbol.get(str(quantity)) or by_id.get(str(quantity))
        start = [found] if found is not None else []
    out: set[str] = set()
    seen: set[str] = set()
    while start:
        equation = start.pop()
        if equation.defines in seen:
            continue
        seen.add(equation.defines)
        out.update(c.strip("[]") for c in equation.counts)
        texts = [equation.rhs, *(part for case in equation.cases for part in (case.value, case.when))]
        start.extend(by_symbol[n] for text in texts for n in _NAME.findall(str(text)) if n in by_symbol and n not in stop)
    return frozenset(out)


def without_counts(dims: Mapping[sympy.Symbol, Any], counts: Iterable[str]) -> Mapping[sympy.Symbol, Any]:
    """Every symbol's dimension with the dimensions ``counts`` names left out (``dims`` itself where it names none)."""
    counts = tuple(counts)
    return {s: dimensions.without_counts(d, counts) for s, d in dims.items()} if counts else dims


def dimension_as(expr: sympy.Basic, symbol: sympy.Symbol, dims: Mapping[sympy.Symbol, Any]) -> Any:
    """``expr``'s dimension (:func:`reading`), which must be ``symbol``'s, both read in ``dims`` (counts left out:
    :func:`without_counts`).

    Raises:
        dimensions.Mismatch: ``expr``'s own dimensions are inconsistent.
        Differs: it has another dimension than ``symbol``.
    """
    found = reading(expr, dims)
    expected = dims[symbol]
    if found != expected:
        raise Differs(dimensions.show(found), dimensions.show(expected))
    return found


def reading(expr: sympy.Basic, dims: Mapping[sympy.Symbol, Any]) -> Any:
    """Dimension of ``expr``, read from its factored form when the expanded one fails (the 1 in ``Uncoal_per_mw - 1`` takes its neighbour's
    dimension, which expanding loses); a Piecewise's (limits by case) or a Min's part by part (0 and infinities have every dimension).

    Raises:
        dimensions.Mismatch: no form read is consistent (the problem of the expression as given).
    """
    parts = [e for e, _ in expr.args] if isinstance(expr, sympy.Piecewise) else expr.args if isinstance(expr, (sympy.Min, sympy.Max)) else ()
    cases = {reading(e, dims) for e in parts if not e.is_zero and e.is_finite is not False}
    if len(cases) == 1:  # branches (a Min's arguments) that disagree are refused below, on the whole
        return cases.pop()
    try:
        return dimensions.settle(dimensions.dimension_of(expr, dims))
    except dimensions.Mismatch as first:
        problem = first
    numerator, denominator = sympy.fraction(sympy.together(expr))
    for top in _regroupings(numerator):
        for bottom in _regroupings(denominator):
            try:
                return dimensions.settle(dimensions.dimension_of(top / bottom, dims))
            except dimensions.Mismatch:
                continue
    whole = _whole_part(numerator, denominator)
    if whole is not None:  # (a*(alpha + 1) + m*n)/(a*(alpha + 1)): the model's bare 1 beside m*n/(a*(alpha + 1))
        try:
            return dimensions.settle(dimensions.dimension_of(whole, dims))
        except dimensions.Mismatch:
            pass
    raise problem


def _whole_part(numerator: sympy.Expr, denominator: sympy.Expr) -> sympy.Expr | None:
    """``numerator/denominator`` as ``c + r/denominator`` with ``c`` a nonzero number, where polynomial division leaves
    one (None otherwise): a bare number has its neighbour's dimension (equations/README.md), and ``together`` hides it
    in the fraction (Volkov's ``CWP_full_sim = mem_lat/((alpha + 1)*arithmetic_time) + 1``, in warp/SM, as ``alu_thru
    -> oo``: ``(alu_lat*(alpha + 1) + mem_lat*n)/(alu_lat*(alpha + 1))``, refused as inconsistent, blaming the model)."""
    gens = sorted(numerator.free_symbols | denominator.free_symbols, key=sympy.default_sort_key)
    if not gens or denominator.is_number:
        return None
    try:
        (quotient,), remainder = sympy.reduced(sympy.expand(numerator), [sympy.expand(denominator)], *gens)
    except sympy.PolynomialError:
        return None
    if not quotient.is_number or quotient == 0:
        return None
    return quotient + remainder / denominator


def _regroupings(expr: sympy.Expr, limit: int = 40) -> list[sympy.Expr]:
    """``expr`` as written, factored, and with each pair of its terms' common factor
    collected (``D*U*u - D*U`` -> ``D*U*(u - 1)``)."""
    forms = [expr, sympy.factor(expr)]
    terms = sympy.Add.make_args(sympy.expand(expr))
    for i, first in enumerate(terms):
        for second in terms[i + 1:]:
            common = sympy.gcd(first, second)
            if common.is_number or len(forms) >= limit:
                continue
            forms.append(sympy.collect(sympy.expand(expr), common))
    return forms
