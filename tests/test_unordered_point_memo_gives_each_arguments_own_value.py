"""``unordered.keeps_every_argument`` evaluates a point's arguments through one memo of node values (the arguments of a
magnitude ``Max(x, -x)`` share all of ``x``): at every point each argument's value, the symbol values drawn and the
point passed over (no real value there) or refused (a node outside the arithmetic) are exactly those of evaluating
each argument alone, as it did before, so its verdicts are unchanged. Checked over the Min/Max arguments of Hong &
Kim's expanded quantities and near-tie test (whose sides share their Min/Max) and over random expressions."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symgpu.model import Model, loader
from symgpu.proofs import sample_points, surds, unordered
from unordered_expressions import expressions, square, x, y, z


#: the seeded points compared per argument tuple (the first of keeps_every_argument's)
POINTS = 12


def _evaluated(args: tuple[Any, ...], point: dict[sympy.Symbol, Fraction], seed: int, shared: bool) -> tuple[Any, ...]:
    """Each argument's value at ``point`` in order (or the exception that ends the point), and the point as drawn:
    with one memo for every argument (``shared``) or each argument evaluated alone."""
    draws = sample_points.Draws(seed)
    memo: dict[sympy.Basic, surds.Number] | None = {} if shared else None
    found: list[Any] = []
    try:
        for a in args:
            found.append(unordered.value(a, point, draws, unordered.POOL, memo) if shared else unordered.value(a, point, draws))
    except (ZeroDivisionError, surds.NotReal, surds.Unsupported) as exc:
        found.append(type(exc))
    return tuple(found), tuple(sorted(point.items(), key=lambda p: sympy.srepr(p[0])))


def _same_at_every_point(args: tuple[Any, ...]) -> None:
    starts: list[dict[sympy.Symbol, Fraction]] = [{} for _ in range(POINTS)]
    starts += [dict(p) for p, _ in unordered._one_large_points(args)][:POINTS]
    for i, start in enumerate(starts):
        alone = _evaluated(args, dict(start), len(args) + i, shared=False)
        together = _evaluated(args, dict(start), len(args) + i, shared=True)
        assert together == alone, (args, i)


def _min_max_arguments(expr: sympy.Basic) -> list[tuple[Any, ...]]:
    return [tuple(node.args) for node in sympy.preorder_traversal(expr) if isinstance(node, (sympy.Min, sympy.Max))]


def test_hong_kim_min_max_arguments_take_the_same_values_with_the_shared_memo():
    from symgpu.evaluate import ties
    model = Model(loader.read_definition(loader.resolve("hong_kim_2009")))
    quantity = model.expression("Exec_cycles_app")
    near = ties.near_condition(model, [quantity])
    assert near is not None
    asked = dict.fromkeys(_min_max_arguments(quantity) + _min_max_arguments(near)
                          + [(m, -m) for m in (quantity.atoms(sympy.Min) | quantity.atoms(sympy.Max))])
    assert len(asked) >= 20
    for args in asked:
        _same_at_every_point(args)


_EXPRESSIONS = expressions(divisors=[x, y, z, sympy.Integer(2), x - 1], unary=[sympy.sqrt, sympy.floor, square], max_leaves=6)


@settings(max_examples=200, deadline=None, database=None, derandomize=True)  # the same examples every run
@given(st.lists(_EXPRESSIONS, min_size=1, max_size=3))
def test_random_arguments_take_the_same_values_with_the_shared_memo(args: list[Any]):
    """Shared parts (an argument and its negation), divisions by 0, roots of negative numbers and nodes outside the
    arithmetic (floor) end a point at the same argument either way."""
    _same_at_every_point(tuple(args) + tuple(-a for a in args))
