"""Sign reasoning under the symbols' declared assumptions and extra relations, with no model in sight.

:class:`SignReasoner` decides signs and relations from what is ``Declared`` (:mod:`.sign_records`: the symbols with their
assumptions, the constants' values) and any extra relations (``X > Y`` is used by writing ``X = Y + d`` with a positive ``d``):
interval enclosures, SymPy's assumptions, refutation at admissible points, bounds part by part, then factoring and ``simplify``.
Verdicts are memoised per expression; a caller may hand down a ``VerdictStore`` that keeps them between processes
(:mod:`symgpu.derive.signs` keeps them in :mod:`symgpu.store`). It also tidies conditions (positive factors cancelled, solved
for a variable) and simplifies knowing positive constants are positive.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sympy

from symgpu.memo import Memo, Tally
from symgpu.proofs import equalities, exact_signs, forms, intervals, rational_value, relations, sign_parts
from symgpu.proofs.sign_records import Declared, Verdict, VerdictStore
from symgpu.proofs.tidy_conditions import ConditionTidier

__all__ = ["SignReasoner", "positive_standin"]

#: sign verdicts by expression (the expression already carries every substitution used)
_SIGN_CACHE: Memo[Any, int | None] = Memo("proofs.signs.verdicts", 20000)
#: a power of a sum above this is not expanded for a weak sign ((a + b + c + d)**20: 1,771 terms)
MAX_EXPANDED_POWER = 4
#: calls of ``sympy.factor`` for a sign the cheap decisions left open
_FACTORINGS = Tally("proofs.signs.factor")


#: the positive stand-in of each constant symbol, shared by every reasoner: the same expression
#: then reads the same under each job, so the memoised verdicts and forms are reused (bounded:
#: a stand-in made again after a clear is a new Dummy, so only reuse of memoised verdicts is lost)
_STANDINS: Memo[sympy.Symbol, sympy.Dummy] = Memo("proofs.signs.standins", 20000)


def positive_standin(symbol: sympy.Symbol) -> sympy.Dummy:
    """The one positive Dummy that stands for the constant ``symbol`` (of positive value) while signs are decided."""
    if symbol not in _STANDINS:
        _STANDINS[symbol] = sympy.Dummy(symbol.name, positive=True)
    return _STANDINS[symbol]


class SignReasoner(ConditionTidier):
    """Sign reasoning under declared and extra assumptions.

    Attributes:
        forward: symbol -> replacement used while deciding signs (``X -> Y + d``).
        backward: dummy -> expression that undoes ``forward`` (``d -> X - Y``).
        sentences: human-readable assumptions in force.
        declared: the declarations it started from (plain data, shared by its copies).
        verdicts: where verdicts outlive the process, or None (kept in memory only).
        constants: constant of positive value -> its positive stand-in (``constants_back`` undoes it).
        by_parts: a sign with a Min/Max inside is sought part by part (:mod:`~symgpu.proofs.sign_parts`)
            before the general path; False: the general path alone (tests compare the two; its
            verdicts are memoised apart, and it is meant to run without ``verdicts``).
    """

    def __init__(self, declared: Declared, extra: Iterable[sympy.Basic] = (), verdicts: VerdictStore | None = None, *,
                 by_parts: bool = True) -> None:
        self.declared = declared
        self.verdicts = verdicts
        self.by_parts = by_parts
        self.forward: dict[sympy.Symbol, sympy.Expr] = {}
        self.backward: dict[sympy.Symbol, sympy.Expr] = {}
        self.relations: list[sympy.Basic] = []
        self.positives: list[sympy.Expr] = []  # expressions known positive (forward-substituted)
        self.sentences: list[str] = []
        self.constants: dict[sympy.Symbol, sympy.Symbol] = {}
        self.constants_back: dict[sympy.Symbol, sympy.Symbol] = {}
        #: tidied conditions by (condition, variable), valid while the assumptions stay as they are
        self._tidied: dict[tuple[sympy.Basic, sympy.Symbol | None], Any] = {}
        self._decided: dict[sympy.Basic, bool | None] = {}  # verdicts on relations, likewise
        #: ``forward`` put into each (sub)expression met, valid while ``forward`` stays as it is
        self._forwarded: dict[sympy.Basic, tuple[sympy.Basic, bool]] = {}
        for symbol in declared.positive_constants():
            dummy = positive_standin(symbol)
            self.constants[symbol] = dummy
            self.constants_back[dummy] = symbol
            self.forward[symbol] = dummy
            self.backward[dummy] = symbol
        #: each constant's exact base-unit value, by the constant and by its positive stand-in
        self.exact = {k: sympy.Rational(v.numerator, v.denominator) for s, v in declared.exact for k in (s, self.constants.get(s, s))}
        for relation in extra:
            self.add(relation)

    def nice(self, expr: Any) -> Any:
        """Simplify ``expr`` knowing that constants with positive values are positive (one
        simplify, of the expression with those constants as positive symbols)."""
        if not isinstance(expr, sympy.Basic):
            return expr
        return forms.nice(expr.xreplace(self.constants)).xreplace(self.constants_back)

    def branch_form(self, expr: Any) -> Any:
        """:func:`~symgpu.proofs.forms.branch_form` of ``expr``, knowing (as :meth:`nice`) that
        constants with positive values are positive."""
        if not isinstance(expr, sympy.Basic):
            return expr
        return forms.branch_form(expr.xreplace(self.constants)).xreplace(self.constants_back)

    def copy(self) -> SignReasoner:
        other = SignReasoner(self.declared, verdicts=self.verdicts, by_parts=self.by_parts)
        other.constants, other.constants_back = dict(self.constants), dict(self.constants_back)
        other.forward, other.backward = dict(self.forward), dict(self.backward)  # its exact values: the declared ones, as here
        other.relations, other.positives, other.sentences = list(self.relations), list(self.positives), list(self.sentences)
        return other

    def add(self, relation: sympy.Basic, sentence: str | None = None) -> bool:
        """Use ``relation`` (``X > Y``, ``X >= Y``, ``<``, ``<=``) from now on; True if usable."""
        if relation is sympy.true:
            return True
        if isinstance(relation, sympy.Not) and isinstance(relation.args[0], sympy.Eq):
            relation = sympy.Ne(*relation.args[0].args)
        if isinstance(relation, sympy.Ne):
            # X != 0 with X nonnegative (declared, or proved from the declarations) means X > 0
            for side, other in ((relation.lhs, relation.rhs), (relation.rhs, relation.lhs)):
                if other == 0 and _nonnegative(side.xreplace(self.forward)):
                    return self.add(sympy.StrictGreaterThan(side, 0), sentence or f"{side} > 0 ({side} != 0 and {side} >= 0)")
        if not isinstance(relation, sympy.core.relational.Relational) or isinstance(relation, (sympy.Eq, sympy.Ne)):
            self.sentences.append(sentence or f"{sympy.sstr(relation)} (recorded, not used for sign reasoning)")
            return False
        if isinstance(relation, (sympy.StrictGreaterThan, sympy.GreaterThan)):
            big, small = relation.lhs, relation.rhs
        else:
            big, small = relation.rhs, relation.lhs
        strict = isinstance(relation, (sympy.StrictGreaterThan, sympy.StrictLessThan))
        self._tidied.clear()  # a new relation may decide or reshape conditions tidied before
        self._decided.clear()
        big = big.xreplace(self.forward)
        small = small.xreplace(self.forward)
        delta = sympy.Dummy("d", positive=True) if strict else sympy.Dummy("d", nonnegative=True)
        used = False
        if isinstance(big, sympy.Symbol) and big not in small.free_symbols and not isinstance(big, sympy.Dummy) and big not in self.constants:
            self._replace(big, small + delta, delta, big - small)
            used = True
        elif isinstance(small, sympy.Symbol) and small not in big.free_symbols and not isinstance(small, sympy.Dummy) and small not in self.constants:
            self._replace(small, big - delta, delta, big - small)
            used = True
        elif strict and small == 0:
            self.positives.append(big)
            used = True
        self.relations.append(relation)
        self.sentences.append(sentence or sympy.sstr(relation))
        return used

    def _replace(self, symbol: sympy.Symbol, replacement: sympy.Expr, delta: sympy.Symbol, meaning: sympy.Expr) -> None:
        self._forwarded.clear()
        for key, value in list(self.forward.items()):
            self.forward[key] = value.xreplace({symbol: replacement})
        self.forward[symbol] = replacement
        self.backward[delta] = meaning.xreplace(self.backward)
        # expressions already known positive are stored forward-substituted: keep them in step
        self.positives = [p.xreplace({symbol: replacement}) for p in self.positives]

    def _forward(self, expr: sympy.Basic) -> sympy.Basic:
        """``expr.xreplace(self.forward)``, each subexpression rebuilt once while ``forward`` stays as it is: a sign asked of many
        expressions sharing a Min/Max (:func:`symgpu.derive.limits._lift`'s sums) rebuilds it (SymPy comparing its arguments
        again) only the first time. The same rebuilding as ``xreplace`` (deterministic), so the same expression."""
        if not self.forward:
            return expr
        return forms.xreplaced(expr, self.forward, self._forwarded)[0]

    def back(self, expr: Any) -> Any:
        """Undo the forward substitution (dummies back to the declared symbols)."""
        if not isinstance(expr, sympy.Basic) or not self.backward:
            return expr
        out = expr
        for _ in range(len(self.backward) + 1):
            if not any(d in out.free_symbols for d in self.backward):
                break
            out = forms.xreplaced(out, self.backward, {})[0]  # ``xreplace``, each Min/Max built once per process
        return out

    def nonnegative(self, expr: Any) -> bool:
        """``expr >= 0`` proved (structurally, floor/ceiling included) under the assumptions. As in :meth:`sign`, a sign the
        declarations alone prove holds under the extra relations too, and reading one can hide it (MDM's ``LLCMissRate <= 1``
        read as ``LLCMissRate = 1 - d``): the expression as it stands is asked too, with only the constants' stand-ins put in."""
        if not isinstance(expr, sympy.Basic):
            return False
        if self.sign(expr) in (0, 1) or _nonnegative(forwarded := self._forward(expr)):
            return True
        plain = forms.xreplaced(expr, self.constants, {})[0] if self.constants else expr
        return plain != forwarded and _nonnegative(plain)

    def sign(self, expr: Any) -> int | None:
        """+1, -1 or 0 if the sign of ``expr`` is proved; None if undecided."""
        if not isinstance(expr, sympy.Basic):
            expr = sympy.sympify(expr, strict=True)
        if expr.has(sympy.nan, sympy.zoo):
            return None
        if (known := rational_value.sign_at(expr, self.exact)) is not None:
            return known
        e = self._forward(expr)
        found = self._cached_sign(e, tuple(self.positives))
        if found is None:
            # a sign the declarations alone prove holds under the extra relations too, and reading a relation
            # can hide one: ``BW < X`` read as ``BW = X - d`` leaves ``BW**2/X`` as ``(X - d)**2/X``, which may be 0
            # for all the declarations of ``X`` and ``d`` say (BW's positivity is gone). So the expression as it
            # stands is asked too, with only the constants' stand-ins put in (the cusp where Volkov's ILP memory
            # bound meets its issue bound lost its side so)
            plain = forms.xreplaced(expr, self.constants, {})[0] if self.constants else expr
            if plain != e:
                found = self._cached_sign(plain, ())
        return found

    def _cached_sign(self, e: sympy.Basic, positives: tuple[sympy.Expr, ...]) -> int | None:
        """The sign of ``e`` (forward-substituted already), with ``positives`` known positive: memoised
        per process and, where a store is handed down, between processes."""
        key: tuple[Any, ...] = (e, positives) if self.by_parts else (e, positives, False)
        if key in _SIGN_CACHE:
            return _SIGN_CACHE[key]
        # cheap first: interval arithmetic over the declared ranges may prove the sign; exact values of two different signs at
        # admissible points refute every sign claim, so neither factoring nor simplify is tried (both quicker than a store)
        found = intervals.sign(e)
        if found is not None or exact_signs.refuted(e, positives):
            _SIGN_CACHE[key] = found
            return found
        # kept between processes (by the caller's store): the verdict depends only on the expression and the known positives
        stored = self.verdicts.get(e, positives) if self.verdicts is not None else None
        if stored is not None:
            _SIGN_CACHE[key] = stored.sign
            return stored.sign
        found = self._sign(e, enclosed=True)  # its enclosure proved no sign above
        if found is None:
            for p in positives:
                if e == p:
                    found = 1
                    break
                if not e.has(*p.atoms(sympy.floor, sympy.ceiling) or {p}):
                    continue
                s = self._sign(sympy.cancel(e / p))
                if s in (1, -1):
                    found = s
                    break
        _SIGN_CACHE[key] = found
        if self.verdicts is not None:
            self.verdicts.put(e, positives, Verdict(found))
        return found

    def weak_sign(self, expr: sympy.Basic) -> int | None:
        """+1 where ``expr >= 0`` is proved, -1 where ``expr <= 0`` is, for an ``expr`` that may be 0 (its :meth:`sign` None): structurally,
        as it stands or with its terms collected and common factors taken out (``sympy.factor_terms`` of its expansion); else None."""
        if (known := rational_value.sign_at(expr, self.exact)) is not None:
            return known
        e = self._forward(expr)
        key = (e, tuple(self.positives), "weak")
        if key in _SIGN_CACHE:
            return _SIGN_CACHE[key]
        found: int | None = None
        if exact_signs.both_ways(e):
            pass  # a positive and a negative value at admissible points: no form of it is proved >= 0 or <= 0 (nor by SymPy)
        elif _nonnegative(e):
            found = 1
        elif _nonnegative(-e):
            found = -1
        elif not e.has(sympy.Min, sympy.Max, sympy.Piecewise) and sympy.count_ops(e) < 200 \
                and not any(f.exp.is_Integer and abs(f.exp) > MAX_EXPANDED_POWER and f.base.is_Add for f in e.atoms(sympy.Pow)):
            tidy = sympy.factor_terms(sympy.expand(e))
            found = 1 if _nonnegative(tidy) else (-1 if _nonnegative(-tidy) else None)
        _SIGN_CACHE[key] = found
        return found

    def sign_refuted(self, expr: sympy.Basic) -> bool:
        """True where ``expr`` takes two of the signs -, 0, + at points the assumptions admit (:func:`~symgpu.proofs.exact_signs.refuted`,
        exact values at a few points): :meth:`sign` of ``expr``, or of any form of it equal where defined (``nice``), is None."""
        return exact_signs.refuted(self._forward(expr), self.positives)

    def _sign(self, e: sympy.Basic, enclosed: bool = False) -> int | None:
        # cheap decisions first: interval arithmetic over the declared ranges (``enclosed``: asked of this same ``e``
        # already, no sign proved), then SymPy's assumptions; factoring and simplify only when both leave the sign open
        found = None if enclosed else intervals.sign(e)
        if found is None:
            found = exact_signs.basic_sign(e)
        if found is None and self.by_parts and e.has(sympy.Min, sympy.Max):  # bounded part by part: no Min/Max multiplied out
            found = sign_parts.sign_from_parts(e, self.sign, _nonnegative)
        if found is not None:
            return found
        tries = [e]
        try:
            _FACTORINGS.add()
            tries.append(sympy.factor(sympy.together(e)))
        except (sympy.PolynomialError, TypeError, ValueError, NotImplementedError):
            pass
        found = exact_signs.basic_sign(tries[-1]) if len(tries) > 1 else None
        if found is not None:
            return found
        try:
            num, den = sympy.fraction(tries[-1])
            sn, sd = exact_signs.factor_sign(num), exact_signs.factor_sign(den)
            if sn is not None and sd is not None and sd != 0:
                return sn * sd
        except (TypeError, ValueError):
            pass
        # NOTE: not for a Min/Max inside: SymPy's simplify rebuilds each Min/Max and searches its
        # arguments for dominated ones again (1.3 s for one 29-operation expression of Huang's GTO
        # IPC, the whole cost of asking its alpha -> oo limit); such an expression's sign was
        # sought part by part above (sign_from_parts)
        if sympy.count_ops(e) < 40 and e.has(sympy.Pow) and not e.has(sympy.Min, sympy.Max):
            try:
                found = exact_signs.basic_sign(forms.small_simplify(e))
                if found is not None:
                    return found
            except (TypeError, ValueError, NotImplementedError, RecursionError):
                pass
        return None

    def decide(self, condition: Any) -> bool | None:
        """True/False if ``condition`` is proved or refuted under the assumptions, else None."""
        if isinstance(condition, sympy.core.relational.Relational) and condition in self._decided:
            return self._decided[condition]  # decided before (a regime table asks for each row's conditions)
        if condition in (True, sympy.true):
            return True
        if condition in (False, sympy.false):
            return False
        if isinstance(condition, sympy.And):
            results = [self.decide(c) for c in condition.args]
            if False in results or all(r is True for r in results):
                return False not in results
            return False if equalities.refute(condition.args, self.relations, self.decide) else None
        if isinstance(condition, sympy.Or):
            results = [self.decide(c) for c in condition.args]
            return True if True in results else (False if all(r is False for r in results) else None)
        if isinstance(condition, sympy.Not):
            inner = self.decide(condition.args[0])
            return None if inner is None else not inner
        if not isinstance(condition, sympy.core.relational.Relational):
            return None
        if condition not in self._decided:
            self._decided[condition] = self._decide_relation(condition)
        return self._decided[condition]

    def refuted(self, condition: Any) -> bool:
        """``self.decide(condition) is False``, deciding only the parts that answer it: an ``And`` is refuted by its first refuted
        part, an ``Or`` needs every part refuted (none shown open first, :meth:`_open`), a ``Not`` its part proved (:meth:`proved`)."""
        if isinstance(condition, sympy.And):
            return any(self.refuted(c) for c in condition.args) or equalities.refute(condition.args, self.relations, self.decide)
        if isinstance(condition, sympy.Or):
            return not any(map(self._open, condition.args)) and all(self.refuted(c) for c in condition.args)
        if isinstance(condition, sympy.Not):
            return self.proved(condition.args[0])
        return self.decide(condition) is False

    def proved(self, condition: Any) -> bool:
        """``self.decide(condition) is True``, deciding only the parts that answer it (the dual of :meth:`refuted`)."""
        if isinstance(condition, sympy.And):
            return not any(map(self._open, condition.args)) and all(self.proved(c) for c in condition.args)
        if isinstance(condition, sympy.Or):
            return any(self.proved(c) for c in condition.args)
        if isinstance(condition, sympy.Not):
            return self.refuted(condition.args[0])
        return self.decide(condition) is True

    def _open(self, condition: Any) -> bool:
        """Is ``decide(condition)`` None, shown without deciding it? A relation (no extra one in force) whose sides' difference
        takes two signs at admissible points (exact values, as :meth:`sign` reads them; an inequality's also a positive and a
        negative one, as :meth:`weak_sign` reads them) after a constant's exact value. Hong & Kim's eq23/eq24 switch: 50 ms."""
        if not isinstance(condition, sympy.core.relational.Relational) or self.relations or self.positives or condition in self._decided:
            return False
        gap = condition.lhs - condition.rhs
        if rational_value.sign_at(gap, self.exact) is not None:
            return False
        gap = self._forward(gap)
        return exact_signs.refuted(gap) and (isinstance(condition, (sympy.Eq, sympy.Ne)) or exact_signs.both_ways(gap))

    def _decide_relation(self, condition: sympy.Basic) -> bool | None:
        s = self.sign(condition.lhs - condition.rhs)
        if s is None:
            for rel in self.relations:
                if relations.same_relation(rel, condition):
                    return True
            # a difference that may be 0 has no sign, but its weak sign proves a non-strict relation (L_DRAMService*SMs*
            # MSHRs/2 + ... >= 0 of nonnegative inputs) and refutes the strict one the other way (... < 0)
            upward = {sympy.GreaterThan: (1, True), sympy.StrictLessThan: (1, False),
                      sympy.LessThan: (-1, True), sympy.StrictGreaterThan: (-1, False)}.get(type(condition))
            if upward is not None and self.weak_sign(condition.lhs - condition.rhs) == upward[0]:
                return upward[1]
            return None
        if isinstance(condition, sympy.StrictGreaterThan):
            return s > 0
        if isinstance(condition, sympy.GreaterThan):
            return s >= 0
        if isinstance(condition, sympy.StrictLessThan):
            return s < 0
        if isinstance(condition, sympy.LessThan):
            return s <= 0
        if isinstance(condition, sympy.Eq):
            return s == 0
        if isinstance(condition, sympy.Ne):
            return s != 0
        return None

def _nonnegative(e: Any) -> bool:
    return exact_signs.nonnegative(e)
