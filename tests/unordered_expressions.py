"""Random expressions of symbols of every declared kind (positive, nonnegative integer, real, negative), shared by
the tests of :mod:`symgpu.proofs.unordered`: each test names the operations its expressions are built of."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sympy
from hypothesis import strategies as st

x, y = sympy.symbols("x y", positive=True)
k = sympy.Symbol("k", integer=True, nonnegative=True)
z = sympy.Symbol("z", real=True)
w = sympy.Symbol("w", negative=True)

ATOMS = st.sampled_from([x, y, k, z, w, sympy.Integer(0), sympy.Integer(1), sympy.Integer(3), sympy.Rational(1, 2)])


def square(e: Any) -> Any:
    return e**2


def combiner(*, divisors: Sequence[Any], unary: Sequence[Callable[[Any], Any]] = (),
             binary: Sequence[Callable[..., Any]] = ()) -> Callable[[st.SearchStrategy[Any]], st.SearchStrategy[Any]]:
    """One level of nesting (for ``st.recursive``): a sum, difference or product of two children, a quotient by one of
    ``divisors``, each of ``unary`` of one child and each of ``binary`` (``sympy.Min``) of two."""
    def combine(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.tuples(children, children).map(lambda p: p[0] + p[1]),
            st.tuples(children, children).map(lambda p: p[0] - p[1]),
            st.tuples(children, children).map(lambda p: p[0] * p[1]),
            st.tuples(children, st.sampled_from(list(divisors))).map(lambda p: p[0] / p[1]),
            *[children.map(f) for f in unary],
            *[st.tuples(children, children).map(lambda p, f=f: f(*p)) for f in binary],
        )
    return combine


def expressions(*, divisors: Sequence[Any], unary: Sequence[Callable[[Any], Any]] = (),
                binary: Sequence[Callable[..., Any]] = (), max_leaves: int = 5) -> st.SearchStrategy[Any]:
    """``ATOMS`` nested by :func:`combiner` up to ``max_leaves`` leaves."""
    return st.recursive(ATOMS, combiner(divisors=divisors, unary=unary, binary=binary), max_leaves=max_leaves)
