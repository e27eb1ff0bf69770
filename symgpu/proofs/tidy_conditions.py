"""Conditions tidied under the sign reasoner's assumptions: :class:`ConditionTidier`, a base of
:class:`symgpu.proofs.signs.SignReasoner` (a relational made readable: positive factors cancelled, solved for a variable that
enters linearly with a coefficient of known sign, terms moved to their sides; multiplied through by a denominator of no
proved sign, a ``<=``/``>=`` says each factor not proved nonzero is nonzero)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import sympy

from symgpu.proofs import forms, unordered
from symgpu.proofs.sign_records import Declared

__all__ = ["ConditionTidier"]


class ConditionTidier:
    """The tidying half of :class:`~symgpu.proofs.signs.SignReasoner`, which supplies the signs and decisions it reads."""

    declared: Declared
    _tidied: dict[tuple[sympy.Basic, sympy.Symbol | None], Any]

    if TYPE_CHECKING:  # the reasoner's own, read here
        def sign(self, expr: Any) -> int | None: ...

        def decide(self, condition: Any) -> bool | None: ...

        def refuted(self, condition: Any) -> bool: ...

        def back(self, expr: Any) -> Any: ...

        def _forward(self, expr: sympy.Basic) -> sympy.Basic: ...

    def tidy(self, condition: Any, var: sympy.Symbol | None = None) -> Any:
        """A readable equivalent of a relational: positive factors cancelled, solved for ``var`` when it enters linearly with a
        coefficient of known sign, terms moved to their sides. Multiplied through by a denominator of no proved sign, a relation
        ``<=``/``>=`` has an input declared nonnegative in it divided out (at its 0 the relation reads as its limit from above, as
        the evaluation reads it) and says each other factor not proved nonzero is nonzero (where one is 0 the relation has no
        value, and ``0 <= 0`` would hold); ``<``/``>`` hold nowhere it is 0."""
        if not isinstance(condition, sympy.core.relational.Relational) or isinstance(condition, (sympy.Eq, sympy.Ne)):
            return condition
        key = (condition, var)
        if key not in self._tidied:
            self._tidied[key] = self._tidy(condition, var)
        return self._tidied[key]

    def tidy_unless_refuted(self, conditions: Iterable[sympy.Basic]) -> list[Any]:
        """``[self.tidy(c) for c in conditions]``, or ``[false]`` when one of them is refuted: every condition is decided first
        (cheap; :meth:`refuted`, so the parts of an ``And``/``Or``/``Not`` that cannot refute it are not decided), so none is
        tidied (factored) for a root or point dropped anyway: a tidied condition is ``false`` whenever it is refuted."""
        conditions = list(conditions)
        if any(self.refuted(c) for c in conditions):
            return [sympy.false]
        return [self.tidy(c) for c in conditions]

    def _tidy(self, condition: sympy.Basic, var: sympy.Symbol | None) -> Any:
        decided = self.decide(condition)
        if decided is not None:
            return sympy.true if decided else sympy.false
        op = type(condition)
        d = sympy.together(self._forward(condition.lhs - condition.rhs))  # ``xreplace(self.forward)``, each Min/Max rebuilt once
        num, den = sympy.fraction(d)
        sd = self.sign(den)
        if sd == -1:
            op = _flip(op)
        elif sd is None and op not in (sympy.GreaterThan, sympy.LessThan):
            num = num * den  # same sign as num/den where den != 0; where it is 0, 0 < 0 and 0 > 0 do not hold
        elif sd is None:
            # where a factor of den is 0, num*den = 0 would satisfy <= and >= whatever num (Volkov's loaded latency over b
            # at x = 0: x*P <= x*Q held vacuously). An input declared nonnegative is divided out: at its 0 the relation
            # reads as its limit from above, as the evaluation reads alu_thru/alpha at alpha = 0 (alpha*mem_thru <=
            # alu_thru); any other factor not proved nonzero is said nonzero
            kept, nonzero = [], []
            for factor in sympy.Mul.make_args(forms.factored(den)):
                signed = factor.is_number or self.sign(self.back(factor)) in (1, -1)
                if signed or not self._nonnegative_input(factor):
                    kept.append(factor)
                    if not signed:
                        nonzero.append(self.back(factor))
            num = num * sympy.Mul(*kept)
            if nonzero:
                return _strict_where_nonzero(self._tidy_product(op, num, var), nonzero)
        return self._tidy_product(op, num, var)

    def _nonnegative_input(self, factor: sympy.Expr) -> bool:
        """Is ``factor`` a symbol declared nonnegative (not positive), or a power of one?"""
        base = factor.base if isinstance(factor, sympy.Pow) and factor.exp.is_positive else factor
        base = self.back(base)
        return isinstance(base, sympy.Symbol) and any(symbol == base and "nonnegative" in words
                                                     for symbol, words in self.declared.symbols)

    def _tidy_product(self, op: type, num: sympy.Expr, var: sympy.Symbol | None) -> Any:
        """``num OP 0`` tidied: factors of known sign stripped, solved for ``var`` where it enters linearly with a
        coefficient of known sign, else its terms moved to their sides."""
        num, flip = self._strip_factors(forms.factored(num))
        if flip:
            op = _flip(op)
        num = forms.expanded(self.back(num))
        if var is not None and var in num.free_symbols:
            try:
                poly = sympy.Poly(num, var)
            except sympy.PolynomialError:
                poly = None
            if poly is not None and poly.degree() == 1:
                c1, c0 = poly.all_coeffs()
                s1 = self.sign(c1)
                if s1 is not None and s1 != 0:
                    bound = forms.small_simplify(-c0 / c1)
                    return op(var, bound) if s1 > 0 else _flip(op)(var, bound)
        pos = sympy.Add(*[t for t in sympy.Add.make_args(num) if not t.could_extract_minus_sign()])
        neg = -sympy.Add(*[t for t in sympy.Add.make_args(num) if t.could_extract_minus_sign()])
        return unordered.inequality(op, forms.factored(pos), forms.factored(neg))  # op(...): SymPy's node, undecided where proved so

    def _strip_factors(self, expr: sympy.Expr) -> tuple[sympy.Expr, bool]:
        keep, flip = [], False
        for factor in sympy.Mul.make_args(expr):
            # a factor read back first: its sign may need the declarations of the symbols a relation replaced
            # (``BW**2`` is ``(X - d)**2`` under ``BW < X``; :meth:`sign`)
            s = self.sign(self.back(factor))
            if s == 1:
                continue
            if s == -1:
                flip = not flip
                continue
            keep.append(factor)
        return sympy.Mul(*keep), flip


def _strict_where_nonzero(relation: Any, nonzero: list[sympy.Expr]) -> Any:
    """``relation`` (``<=``/``>=``) and each of ``nonzero`` said nonzero; one that is the difference of its sides (up to
    sign) makes it strict instead (``a <= b`` and ``a - b != 0``: ``a < b``)."""
    # only a factor of the relation's own symbols can be the difference of its sides (no expansion of the others)
    alike = [f for f in nonzero if f.free_symbols == relation.free_symbols] if isinstance(relation, (sympy.GreaterThan, sympy.LessThan)) else []
    if alike:
        gap = sympy.expand(relation.lhs - relation.rhs)
        side = next((f for f in alike if sympy.expand(f - gap) == 0 or sympy.expand(f + gap) == 0), None)
        if side is not None:
            strict = sympy.StrictGreaterThan if isinstance(relation, sympy.GreaterThan) else sympy.StrictLessThan
            relation = unordered.inequality(strict, relation.lhs, relation.rhs)
            nonzero = [f for f in nonzero if f is not side]
    return sympy.And(relation, *[sympy.Ne(f, 0) for f in nonzero])


def _flip(op: type) -> type:
    return {sympy.StrictGreaterThan: sympy.StrictLessThan, sympy.StrictLessThan: sympy.StrictGreaterThan,
            sympy.GreaterThan: sympy.LessThan, sympy.LessThan: sympy.GreaterThan}.get(op, op)
