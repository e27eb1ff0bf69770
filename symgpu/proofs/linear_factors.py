"""``sympy.factor`` of a polynomial found through a variable it is linear in.

A polynomial ``p = a*x + b`` of degree 1 in ``x`` is its content ``c = gcd(a, b)`` (free of
``x``) times ``q = p/c``, and ``q`` is irreducible: a factor of it free of ``x`` divides both
``a/c`` and ``b/c``, whose gcd is 1. So ``p``'s irreducible factors are ``c``'s and ``q``: one
gcd and the factoring of a smaller polynomial in fewer variables, where SymPy's Wang algorithm
spends most of its time proving the large factor irreducible. The sides of Hong & Kim's tidied
eq23/eq24 conditions (degree 1 in most of their 10-13 variables, 20-50 terms) took 0.1-0.3 s
each in ``sympy.factor`` and take 20-40 ms so.

NOTE: the result is ``sympy.factor(p)`` itself, not an equivalent form. Factorisation over the
integers is unique up to the sign of each factor, and SymPy normalises each irreducible factor
the same way wherever it finds it (``dmp_zz_factor``/``dmp_zz_wang``: primitive, with a positive
coefficient on its leading term in the lexicographic order of the generators); ``q`` is
normalised so here, and ``p``'s integer coefficient is then fixed by ``p`` itself. The factors
are multiplied as ``factor`` multiplies them (``_keep_coeff`` of the coefficient and the ``Mul``
of the powers, which SymPy orders canonically). The lexicographic order of a factor's variables
is the same in ``p`` and alone because SymPy sorts generators by a key of each one's name
(``_sort_gens``): the route is taken only where those keys differ, every generator is a symbol
and the coefficients are integers; elsewhere None is returned and the caller uses ``sympy.factor``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sympy
from sympy.core.exprtools import _keep_coeff
from sympy.polys.domains import ZZ
from sympy.polys.orderings import lex
from sympy.polys.polyerrors import BasePolynomialError
from sympy.polys.rings import PolyElement, PolyRing, sring

#: how SymPy's ``_sort_gens`` splits a generator's name into its name and numeric index
_GEN_NAME = re.compile(r"^(.*?)(\d*)$")

#: polynomials with fewer terms go to ``sympy.factor`` directly (quick there already)
MIN_TERMS = 4


def factor(expr: sympy.Expr) -> sympy.Expr | None:
    """``sympy.factor(expr)`` for a sum, or a product of integers and (powers of) sums, that is a
    polynomial over the integers in symbols, with a sum of at least :data:`MIN_TERMS` terms linear
    in one of them; None where this route does not apply. A product's factors are factored one
    by one, as ``factor`` does (no product is multiplied out)."""
    if not isinstance(expr, (sympy.Add, sympy.Mul)) or not _plain(expr):
        return None
    coeff = sympy.Integer(1)
    parts: list[tuple[PolyElement, int]] = []
    for part in sympy.Mul.make_args(expr):
        base, k = part.as_base_exp()
        if part.is_Integer:
            coeff *= part
            continue
        if part.is_number:  # a fraction or float: left to factor
            return None
        if not (k.is_Integer and k > 0):
            return None
        built = ring_of(base)  # sring(base), built by the ring's arithmetic
        if built is None:
            try:
                built = sring(base)  # Poly(base)'s generators and domain (the same construction), as a sparse polynomial
            except BasePolynomialError:
                return None
        ring, poly = built
        if not ring.domain.is_ZZ or ring.order != lex:
            return None
        parts.append((poly, int(k)))
    gens = list(dict.fromkeys(g for poly, _ in parts for g in poly.ring.symbols))
    if not _ordered_alike(gens) or not any(len(p) >= MIN_TERMS and any(p.degree(g) == 1 for g in p.ring.gens) for p, _ in parts):
        return None
    powers: dict[sympy.Expr, int] = {}
    for poly, k in parts:
        c, factors = _factor_list(poly)
        coeff *= c**k
        for irreducible, j in factors:
            shown = irreducible.as_expr()
            powers[shown] = powers.get(shown, 0) + j * k
    return _keep_coeff(coeff, sympy.Mul(*[f**j for f, j in powers.items()]))


def ring_of(expr: sympy.Expr) -> tuple[PolyRing, PolyElement] | None:
    """``sring(expr)`` for a polynomial over the integers in symbols, each of which it holds after expansion, built
    without expanding ``expr`` in SymPy: ``sring`` expands it (``Expr.expand``: 40-50 ms for the products of
    Hong & Kim's tidied conditions) and reads the expansion's terms, while the ring of its symbols builds the same
    polynomial by its own arithmetic on the sparse representation (``PolyRing.from_expr``: sums, products and
    positive integer powers of its generators and integers). The ring is ``sring``'s: its generators are the
    symbols of ``expr`` (each with a nonzero power in some term, checked: a symbol that cancels, ``x - x``, is no
    generator of ``sring``'s), ordered as ``sring`` orders them (``sring`` of their sum, which holds each once: the
    order is a key of each one's name where those keys differ, as :func:`_ordered_alike` asks), over ``ZZ`` (every
    number converted to an integer exactly, no float), in ``lex`` order. None where
    that is not shown (a fraction, a float, a function or a negative power in ``expr``, alike keys): ``sring``
    decides. Proved against ``sring`` (tests/test_polynomials_built_as_sring_and_expand_build_them.py)."""
    symbols = expr.free_symbols
    if not symbols or not all(isinstance(s, sympy.Symbol) and s.is_commutative for s in symbols) or expr.has(sympy.Float) \
            or not _ordered_alike(list(symbols)):
        return None
    ring, _ = sring(sympy.Add(*symbols))
    if not ring.domain.is_ZZ or ring.order != lex:
        return None
    try:
        poly = ring.from_expr(expr)
    except (ValueError, BasePolynomialError):
        return None
    if any(poly.degree(g) <= 0 for g in ring.gens):
        return None
    return ring, poly


def _plain(expr: sympy.Expr) -> bool:
    """Is ``expr`` built of sums, products, integer powers, symbols and numbers only? (A quick
    refusal: building a ``Poly`` of an expression with a large ``Min`` inside costs as much as
    ``sympy.factor`` of it, which would then run anyway.)"""
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow):
            if not node.exp.is_Integer:
                return False
        elif not isinstance(node, (sympy.Add, sympy.Mul, sympy.Symbol, sympy.Number)):
            return False
    return True


def _ordered_alike(gens: Sequence[sympy.Basic]) -> bool:
    """Are ``gens`` symbols whose ``_sort_gens`` keys (name and numeric index) all differ, so
    that any subset of them is sorted in the same relative order?"""
    keys = set()
    for gen in gens:
        if not isinstance(gen, sympy.Symbol):
            return False
        found = _GEN_NAME.match(str(gen))
        if found is None:
            return False
        name, index = found.groups()
        keys.add((name, int(index) if index else 0))
    return len(keys) == len(gens)


def _factor_list(p: PolyElement) -> tuple[sympy.Expr, list[tuple[PolyElement, int]]]:
    """``Poly.factor_list()`` of ``p`` (a sparse polynomial over the integers in the lexicographic order of its ring's
    generators, as ``sring`` builds it), the factors in ``p``'s ring: through the first generator ``p`` is linear in,
    else SymPy's.

    The arithmetic (the gcd that finds the content, the division by it) runs on SymPy's sparse polynomials
    (:class:`~sympy.polys.rings.PolyElement`): ``Poly``'s dense recursive form of a polynomial in 10-13 variables
    spends most of a gcd walking empty levels (Hong & Kim's tidied conditions: 0.29 s of ``Poly`` construction,
    ``gcd`` and ``exquo`` for 51 factorings, 0.07 s so). The factors are ``Poly.factor_list``'s: each is normalised
    here (primitive, positive leading coefficient in the generators' lexicographic order, the normal form both
    representations give), so the list does not depend on the sign of the gcd either representation returns, and
    the coefficient is then fixed by ``p``."""
    x = next((g for g in p.ring.gens if p.degree(g) == 1), None)
    if x is None:
        return _dense_factor_list(p)
    a = p.diff(x)
    b = p - a * x
    content = a.gcd(b)
    q = p.exquo(content)
    if abs(q.content()) != 1:  # gcd over the integers takes the integer content too; never taken
        return _dense_factor_list(p)
    sign = 1
    if q.LC < 0:  # SymPy's normal form of an irreducible factor: positive leading coefficient
        q, sign = -q, -1
    coeff, factors = _factor_list(content)
    return sign * coeff, factors + [(q, 1)]


def _dense_factor_list(p: PolyElement) -> tuple[sympy.Expr, list[tuple[PolyElement, int]]]:
    """SymPy's ``Poly.factor_list`` of ``p``, its factors back in ``p``'s ring."""
    coeff, factors = sympy.Poly.from_dict(p.to_dict(), *p.ring.symbols, domain=ZZ).factor_list()
    return coeff, [(p.ring.from_dict(f.rep.to_dict()), k) for f, k in factors]
