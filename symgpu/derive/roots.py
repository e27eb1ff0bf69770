"""Closed-form real roots of one equation in one unknown: a direct linear solve, a polynomial of
numbers' exact real roots, else ``sympy.solve``/``sympy.solveset`` over the reals, memoised; and a root's cases where SymPy
returns one as a ``Piecewise`` defined only where its conditions hold (an equation with
``Abs``: ``Piecewise((r, cond), (nan, True))``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

from symgpu.memo import Memo, Tally
from symgpu.derive import rational_solve
from symgpu.derive.transcendental_roots import bisected_roots, transcendental_in
from symgpu.proofs import exact_signs

_UNDEFINED = (sympy.nan, sympy.zoo)


def _real_dummy(var: sympy.Symbol) -> sympy.Symbol:
    return sympy.Dummy(var.name, real=True)


#: :func:`together_parts` per expression: at a point an extremum asks of each meeting of two regimes whether to solve it with
#: the numbers first (:func:`numerator_poly`) and whether its numerator is a product of linear factors
#: (:func:`symgpu.derive.point_roots._linear_factors`), each from the same ``together`` of the same difference
_PARTS: Memo[sympy.Basic, tuple[sympy.Expr, sympy.Expr]] = Memo("derive.roots.together_parts", 4096)


def together_parts(target: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """``sympy.fraction(sympy.together(target))``, memoised per expression (both are deterministic, their results immutable)."""
    found = _PARTS.get(target)
    if found is None:
        numerator, denominator = sympy.fraction(sympy.together(target))
        found = _PARTS[target] = (numerator, denominator)
    return found


def numerator_poly(target: sympy.Expr, var: sympy.Symbol) -> tuple[sympy.Poly, sympy.Expr] | None:
    """``target``'s numerator as a polynomial in ``var`` and its denominator, where ``target`` is rational in
    ``var``; None where it is not."""
    if target.is_rational_function(var) is not True:
        return None
    numerator, denominator = together_parts(target)
    try:
        return sympy.Poly(numerator, var), denominator
    except sympy.PolynomialError:
        return None


def linear_roots(target: sympy.Expr, var: sympy.Symbol) -> list[sympy.Expr] | None:
    """The roots of ``target = 0`` when ``target`` is rational in ``var`` with a numerator of
    degree 1 in it: ``[-c0/c1]`` (``[]`` where that root zeroes the common denominator, as
    ``sympy.solve`` would drop it, and for a numerator of degree 0); None in every other case
    (left to ``sympy.solve``). Linear equations are most boundaries and knees: solving them
    directly skips ``sympy.solve``'s general machinery (its simplification and solution checks)."""
    parts = numerator_poly(target, var)
    if parts is None:
        return None
    poly, denominator = parts
    if poly.degree() != 1:
        return [] if poly.degree() == 0 else None  # a numerator free of var: no root (nor from solve, solveset)
    slope, offset = poly.all_coeffs()
    if sympy.cancel(slope) == 0:
        return None
    top, bottom = sympy.factor_terms(-offset), sympy.factor_terms(slope)  # common factors out, cheaply
    if bottom.could_extract_minus_sign():
        top, bottom = -top, -bottom
    root = top / bottom
    if var in denominator.free_symbols and sympy.cancel(denominator.xreplace({var: root})) == 0:
        return []
    return [root]


#: what :func:`real_root_cases` found, per (equation, variable): a model's variants and operations solve the same equations again
_FOUND: Memo[tuple[sympy.Basic, sympy.Symbol], tuple[tuple[Any, sympy.Basic], ...] | None] = Memo("derive.roots.found", 4096)
_SOLVES = Tally("derive.roots.solve")  # calls of sympy.solve for roots (a linear equation and a memoised one need none)


def real_roots(equation: sympy.Basic, var: sympy.Symbol) -> list[Any] | None:
    """The real roots of ``equation`` (or ``expression = 0``) for ``var``: :func:`linear_roots`,
    else :func:`numeric_real_roots` (numbers only), else ``sympy.solve``, then ``sympy.solveset`` over the reals where it found none (``var``
    replaced by a fresh real stand-in while solving); None where nothing gives a closed form.
    A root of a squared radical equation whose check the assumptions leave open is among them
    (:func:`real_root_cases` gives it with the condition it needs)."""
    found = real_root_cases(equation, var)
    return None if found is None else [root for root, _ in found]


def real_root_cases(equation: sympy.Basic, var: sympy.Symbol) -> list[tuple[Any, sympy.Basic]] | None:
    """:func:`real_roots` as ``[(root, condition)]``: the condition ``true``, except for a candidate
    of a squared radical equation ``P + Q*sqrt(R) = 0`` whose ``P*Q <= 0`` the assumptions leave
    open (:func:`_squared_roots`): a root only where that holds (elsewhere it is a root of the
    squared equation alone, ``P - Q*sqrt(R) = 0``). Memoised per (equation, variable), the whole
    input: the roots are immutable expressions."""
    key = (equation, var)
    if key in _FOUND:
        found = _FOUND[key]
        return None if found is None else list(found)
    free = _real_dummy(var)
    eq = equation.xreplace({var: free})
    target = eq.lhs - eq.rhs if isinstance(eq, sympy.Eq) else eq
    roots: list[tuple[Any, sympy.Basic]] | None
    if not isinstance(target, sympy.Basic) or free not in target.free_symbols:
        roots = []
    else:
        linear = linear_roots(target, free)  # its [] is final: a rational function whose reduced numerator is free of var
        exact = numeric_real_roots(target, free) if linear is None else linear
        roots = None if exact is None else _unconditional(exact)
        if roots is None and transcendental_in(target, free):  # no sympy.solve: Lambert's W at best, and minutes
            roots = _numeric_roots(target, free, var)
        elif roots is None:
            unusable = False
            try:
                _SOLVES.add()
                roots = _radical_roots(target, free) if under_radical(target, free) else _unconditional(rational_solve.solved(target, free))
            except NotImplementedError:
                roots = None
            except _NoUsableForm:
                roots, unusable = None, True
            if not unusable and (roots is None or roots == []):
                try:
                    solution = sympy.solveset(target, free, sympy.S.Reals)
                except (NotImplementedError, TypeError, ValueError):
                    solution = None
                if isinstance(solution, sympy.FiniteSet):
                    roots = _unconditional(list(solution))
        if roots is not None and any(isinstance(r, sympy.Basic) and r.has(sympy.LambertW) for r, _ in roots):
            roots = None  # Lambert's W (x**2 = 3*log(x)): no form symgpu evaluates or checks; at a point, numeric_solve
        if roots is not None:
            back = {free: var}
            roots = [(r.xreplace(back) if isinstance(r, sympy.Basic) else r, c.xreplace(back)) for r, c in roots]
    _FOUND[key] = None if roots is None else tuple(roots)
    return roots


def _numeric_roots(target: sympy.Expr, free: sympy.Symbol, var: sympy.Symbol) -> list[tuple[Any, sympy.Basic]] | None:
    """The real roots of ``target = 0`` with ``free`` (``var``'s real stand-in) inside a ``log``/``exp`` and outside it: of
    numbers alone, each factor's (:func:`symgpu.derive.transcendental_roots.bisected_roots` for a factor of that kind, in
    ``var``'s declared range); None where such a factor holds another symbol (no closed form: at a point the numbers are put in
    first).

    NOTE: ``sympy.solve`` on ``x - 2 = 2.0005 - x - 0.0001*log(x)`` (where two cases of a Min meet) ran past 5 minutes."""
    lower = sympy.Integer(0) if var.is_nonnegative else -sympy.oo
    found: list[Any] = [sympy.Integer(0)] if var.is_nonnegative and not var.is_positive and target.xreplace({free: 0}) == 0 else []
    for factor in sympy.Mul.make_args(sympy.factor_terms(target)):
        if free not in factor.free_symbols:
            continue
        part = bisected_roots(factor, free, lower, lambda g: real_roots(g, free)) if transcendental_in(factor, free) \
            else real_roots(factor, free)
        if part is None:
            return None
        found.extend(part)
    return _unconditional(list(dict.fromkeys(found)))


def numeric_real_roots(target: sympy.Expr, var: sympy.Symbol) -> list[Any] | None:
    """The distinct real roots of ``target = 0`` where ``target`` holds no symbol but ``var`` and is rational in it
    with rational coefficients and no factor shared by its numerator and denominator (their roots would be none:
    the equation has no value there; left to ``sympy.solve``, which drops them): its numerator's, exactly (:func:`exact_real_roots`: ``CRootOf`` where no radicals do); None otherwise (left to
    ``sympy.solve``).

    NOTE: prior_sim's arithmetic_throughput = 15 at maxwell, alpha = 8, in its latency-bound regime is the cubic
    ``256 n**2 (n - 1) = 15 (368 n**2 + 54 n - 54)`` with three real roots: ``sympy.solve`` gives Cardano's radicals
    through ``I`` (the casus irreducibilis), which a point's regime conditions cannot decide, and the symbolic solve
    that then followed ran for minutes."""
    if target.free_symbols != {var}:
        return None
    numerator, denominator = sympy.fraction(sympy.together(target))
    try:  # a factor shared with the denominator: its roots are no roots (no value there), left to sympy.solve
        if denominator.has(var) and sympy.degree(sympy.gcd(numerator, denominator), var) >= 1:
            return None
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, TypeError, ValueError):
        return None
    parts = numerator_poly(sympy.cancel(target), var)
    if parts is None or parts[0].degree() < 1 or parts[0].domain not in (sympy.ZZ, sympy.QQ):
        return None
    exact = exact_real_roots(parts[0])
    return None if exact is None else list(dict.fromkeys(exact))


def _unconditional(roots: list[Any]) -> list[tuple[Any, sympy.Basic]]:
    return [(r, sympy.true) for r in roots]


def under_radical(target: sympy.Expr, var: sympy.Symbol) -> bool:
    """Does ``var`` sit under a fractional power (a square root) in ``target``?"""
    return any(p.exp.is_Rational and not p.exp.is_Integer and var in p.base.free_symbols for p in target.atoms(sympy.Pow))


def _radical_roots(target: sympy.Expr, var: sympy.Symbol) -> list[tuple[Any, sympy.Basic]]:
    """``sympy.solve``'s roots of ``target = 0`` with ``var`` under a root, the functions free of
    ``var`` (Volkov's ``log(ilp/ilp_ref)``) standing as symbols of their sign while it solves and
    checks, then put back; each with the condition it needs (:func:`_squared_roots`; ``true`` for the others).

    NOTE: ``sympy.solve`` squares the radical away (``unrad``) and then checks every candidate,
    simplifying the equation with the candidate put in: with the ``log`` in it that took minutes on
    Volkov's H100 loaded-latency root solved for ``n`` (10 s without), and it folded the ``log``
    into the root's other factors, ``log(ilp**(s_fork*(c - theta))*...)``, an exponent with units."""
    frozen = {f: sympy.Dummy(positive=True) if f.is_positive else sympy.Dummy(negative=True) if f.is_negative else sympy.Dummy(real=True)
              for f in target.atoms(sympy.core.function.Application) if f.free_symbols and var not in f.free_symbols}
    equation = target.xreplace(frozen)
    split = one_square_root(equation, var)
    powered = None if split is not None else _power_roots(equation, var)
    solved = (_squared_roots(equation, var, split) if split is not None else _unconditional(powered) if powered is not None
              else _unconditional(sympy.solve(equation, var, dict=False)))
    back = {d: f for f, d in frozen.items()}
    return [(c.xreplace(back) if isinstance(c, sympy.Basic) else c, w.xreplace(back)) for c, w in solved]


def _power_roots(target: sympy.Expr, var: sympy.Symbol) -> list[Any] | None:
    """The roots of ``target = 0`` where ``var`` sits under fractional powers of itself alone
    (``alpha**(3/2)``, ``alpha**(1/3)``): ``var = u**q`` with ``q`` the least common denominator of
    those exponents and ``u >= 0`` (a real value of ``var**(p/q)`` needs ``var >= 0``), which makes
    ``target`` rational in ``u``; the roots ``u`` of its numerator that are not refuted real and
    nonnegative and do not zero its denominator, each as ``u**q``. None where ``var`` sits under any
    other root or power (a base other than ``var`` itself), or ``u``'s numerator is no polynomial.
    A numerator of numbers only gives its real roots exactly (``Poly.real_roots``); one in symbols of
    degree 3 or more with more than two terms has only Cardano's (or no) formula, whose realness the
    assumptions cannot decide: :class:`_NoUsableForm` (no closed form; at a point the numbers decide,
    :func:`symgpu.derive.point_roots.roots_here`).

    NOTE: ``sympy.solve`` on ``alpha**(3/2)*alu_lat + mem_lat = n/mem_thru`` squares the radical
    away and then checks each root of the cubic by simplifying the equation with the root put in:
    that ran for minutes with no end (Volkov with a superlinear ALU chain). The substituted equation
    is the same equation for ``u >= 0``, ``(u**2)**(3/2) = u**3``, so a root of its numerator that is
    real, nonnegative and leaves its denominator nonzero is a root, with no check to simplify. One
    whose sign the assumptions leave open is kept, as ``sympy.solve`` keeps a candidate its check
    leaves undecided; the answer's checks at points then decide it."""
    powers = {p for p in target.atoms(sympy.Pow) if var in p.base.free_symbols and not p.exp.is_Integer}
    if not powers or any(p.base != var or not p.exp.is_Rational for p in powers):
        return None
    q = int(sympy.ilcm(1, *[p.exp.q for p in powers]))
    u = sympy.Dummy("u", nonnegative=True)
    num, den = sympy.together(target.xreplace({var: u ** q})).as_numer_denom()
    if num == 0 or not (num.is_polynomial(u) and den.is_polynomial(u)):
        return None  # an identity (every value a root) is no list of roots
    poly = sympy.Poly(num, u)
    numbers_only = num.free_symbols == {u}
    candidates = exact_real_roots(poly) if numbers_only else None
    if candidates is None:
        if not numbers_only and poly.degree() >= 3 and len(poly.terms()) > 2:
            raise _NoUsableForm  # Cardano's formula in symbols: its realness undecided, and minutes in every step after
        candidates = sympy.solve(num, u, dict=False, check=False)
    kept: list[Any] = []
    for candidate in candidates:
        if candidate.has(sympy.nan, sympy.zoo) or candidate.is_extended_real is False or candidate.is_negative:
            continue
        if den.has(u) and sympy.cancel(den.xreplace({u: candidate})) == 0:
            continue
        kept.append(candidate ** q)
    return kept


def exact_real_roots(poly: sympy.Poly) -> list[Any] | None:
    """A polynomial of numbers' real roots, exactly (``CRootOf`` where no radicals do), each sign decided;
    None where its coefficients are not rational (``sqrt(2)``: then ``sympy.solve``'s roots)."""
    try:
        return list(poly.real_roots())
    except (sympy.polys.polyerrors.PolynomialError, sympy.polys.polyerrors.DomainError, NotImplementedError):
        return None


class _NoUsableForm(Exception):
    """The roots have no closed form worth using (:func:`_power_roots`): none is given, and
    ``sympy.solve``/``solveset`` are not tried on the original equation either (minutes, no end)."""


@dataclass(frozen=True)
class RadicalSplit:
    """``target = (P + Q*sqrt(R))/den``: ``P``, ``Q``, ``R`` free of the square root; ``den``
    written in ``S``, the stand-in for ``sqrt(R)``."""

    p: sympy.Expr
    q: sympy.Expr
    r: sympy.Expr
    den: sympy.Expr
    s: sympy.Symbol


def one_square_root(target: sympy.Expr, var: sympy.Symbol) -> RadicalSplit | None:
    """``target`` split around its one square root holding ``var`` (:class:`RadicalSplit`); None where
    ``var`` sits under another root or power too, or the root is not a polynomial factor of
    ``target``'s parts (then ``sympy.solve`` and its checks decide)."""
    radicals = {p for p in target.atoms(sympy.Pow)
                if p.exp.is_Rational and not p.exp.is_Integer and var in p.base.free_symbols}
    if len(radicals) != 1 or next(iter(radicals)).exp != sympy.Rational(1, 2):
        return None
    (radical,) = radicals
    s = sympy.Dummy("S", nonnegative=True)
    num, den = sympy.together(target.xreplace({radical: s})).as_numer_denom()
    try:
        terms = sympy.Poly(sympy.expand(num), s).terms()
    except sympy.PolynomialError:
        return None
    if any(a.has(s) for _, a in terms):
        return None
    r = radical.base
    p = sympy.Add(*[a * r ** (k // 2) for (k,), a in terms if k % 2 == 0])
    q = sympy.Add(*[a * r ** (k // 2) for (k,), a in terms if k % 2 == 1])
    return RadicalSplit(p, q, r, den, s)


def squared_numerator(split: RadicalSplit) -> sympy.Expr:
    """The numerator of ``P**2 - Q**2*R`` (:class:`RadicalSplit`): every root of ``P + Q*sqrt(R) = 0`` is among its roots."""
    return sympy.together(split.p ** 2 - split.q ** 2 * split.r).as_numer_denom()[0]


def _squared_roots(target: sympy.Expr, var: sympy.Symbol, split: RadicalSplit) -> list[tuple[Any, sympy.Basic]]:
    """The roots of ``P + Q*sqrt(R) = 0`` (``target``'s numerator, :class:`RadicalSplit`) among those of
    the squared polynomial ``P**2 - Q**2*R``, each checked by the sign it needs instead of
    ``sympy.solve``'s simplification of ``target`` at the candidate (minutes on Volkov's H100
    loaded-latency root, and undecided at the end), each with the condition it still needs.

    At a candidate ``c``, ``P(c)**2 = Q(c)**2*R(c)``, so ``sqrt(R(c)) = |P(c)/Q(c)|`` and ``c`` is a
    root exactly where ``sqrt(R(c)) = -P(c)/Q(c)``, that is where ``P(c)*Q(c) <= 0``, and where
    ``target``'s denominator, with ``-P(c)/Q(c)`` for the root, is not zero. A candidate whose
    denominator is then identically zero, or whose ``P*Q`` is proved positive (the signs of its
    factors), is no root; one proved ``<= 0`` is (condition ``true``). One the assumptions leave
    open is kept with the condition ``P(c)*Q(c) <= 0``: a caller that takes only unconditional roots
    keeps it as ``sympy.solve`` keeps a candidate its check leaves undecided (the answer's checks at
    points then decide it), and a solve's root records carry the condition, so at a point the numbers
    decide it (Volkov's refined memory throughput: latency root = mem_thru squared has a root for
    ``n`` where mem_thru >= c_ipc too, where the latency root never reaches mem_thru). A candidate
    where ``Q`` is zero is checked by ``sympy.checksol``."""
    squared = squared_numerator(split)
    kept: list[tuple[Any, sympy.Basic]] = []
    for candidate in _squared_candidates(squared, var):
        if getattr(candidate, "is_extended_real", None) is False:  # check=False skips the real stand-in's own check
            continue
        at = {var: candidate}
        p, q = split.p.xreplace(at), split.q.xreplace(at)
        if sympy.cancel(q) == 0:
            if sympy.checksol(target, var, candidate) is not False:
                kept.append((candidate, sympy.true))
            continue
        if sympy.cancel(split.den.xreplace(at).xreplace({split.s: -p / q})) == 0:
            continue
        product = sympy.factor(sympy.cancel(p * q))
        if product.is_number:  # a number: its sign read in 30 digits (complex: no real root)
            value = complex(product.evalf(30))
            if value.imag == 0 and value.real <= 0:
                kept.append((candidate, sympy.true))
        else:
            sign = exact_signs.factor_sign(product)
            if sign != 1:
                kept.append((candidate, sympy.true if sign is not None else _nonpositive(product)))
    return kept


def _squared_candidates(squared: sympy.Expr, var: sympy.Symbol) -> list[Any]:
    """The candidate roots of the squared polynomial ``squared`` (:func:`_squared_roots`): where it holds no
    symbol but ``var`` (at a point, the numbers put in) its real roots exactly (``CRootOf`` or rationals) if its
    coefficients are rational, else (a ``log(2)`` among them) its roots by formula (``sympy.roots``, no
    simplification); ``sympy.solve``'s otherwise.

    NOTE: Volkov's H100 dram_throughput = 1.5 TB/s for alpha at h100_fit, ilp = 2, n = 64: ``sympy.solve``
    simplified the quadratic's coefficients, rationals of 30 digits beside ``log(2)``, for minutes.
    Where ``var`` sits inside a ``log``/``exp`` (or another function) of the squared equation too, it is no
    polynomial in ``var`` and has no closed form: :class:`_NoUsableForm` (Volkov's H100 dram_throughput for ilp,
    ``log(ilp)`` beside ``ilp``: ``sympy.solve`` tried Lambert's W on it for more than 400 s)."""
    if transcendental_in(squared, var):
        raise _NoUsableForm
    if squared.free_symbols == {var}:
        try:
            poly = sympy.Poly(squared, var)
        except sympy.PolynomialError:
            poly = None
        if poly is not None and poly.degree() >= 1:
            exact = exact_real_roots(poly) if poly.domain in (sympy.ZZ, sympy.QQ) else None
            if exact is not None:
                return exact
            formula = sympy.roots(poly, multiple=True)
            if len(formula) == poly.degree():
                return formula
    return list(sympy.solve(squared, var, dict=False, check=False))


def _nonpositive(product: sympy.Expr) -> sympy.Basic:
    """``product <= 0`` with the factors of proved strict sign divided out (the relation turned for a negative one)."""
    sign, open_factors = 1, []
    for factor in sympy.Mul.make_args(product):
        known = exact_signs.basic_sign(factor)
        if known in (1, -1):
            sign *= known
        else:
            open_factors.append(factor)
    rest = sympy.Mul(*open_factors)
    return sympy.Le(rest, 0) if sign == 1 else sympy.Ge(rest, 0)


def cases(root: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Basic]]:
    """``root`` as ``[(value, condition)]``: a ``Piecewise`` that is undefined (nan) in some case
    is a root only where one of its defined cases applies, each case's condition with the earlier
    ones' negations; any other root is ``[(root, True)]``."""
    if not isinstance(root, sympy.Piecewise) or not any(e.has(*_UNDEFINED) for e, _ in root.args):
        return [(root, sympy.true)]
    out: list[tuple[sympy.Expr, sympy.Basic]] = []
    earlier: list[sympy.Basic] = []
    for value, condition in root.args:
        if not value.has(*_UNDEFINED):
            out.append((value, sympy.And(condition, *[sympy.Not(c) for c in earlier])))
        earlier.append(condition)
    return [(v, c) for v, c in out if c is not sympy.false]
