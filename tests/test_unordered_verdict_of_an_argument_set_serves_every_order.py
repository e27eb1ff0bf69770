"""``unordered.keeps_every_argument`` keeps its verdict per argument set: the points it draws follow the arguments'
order, so an order asked later may get the verdict another order found. Either verdict gives the node SymPy builds (a
proof: SymPy keeps every argument, so its node is the unevaluated one; none: SymPy builds it), so every Min/Max and
inequality built through the shared verdict is SymPy's own, whichever order is asked first. Checked over every order
of the Min/Max arguments of Hong & Kim's expanded quantity and near-tie test (SymPy's collapse hands a Max of
magnitudes back reordered) and over random expressions."""

from __future__ import annotations

import itertools
from typing import Any

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symgpu import memo
from symgpu.model import Model, loader
from symgpu.proofs import unordered
from unordered_expressions import expressions, square, x, y


_INEQUALITIES = (sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan)


def _every_order_built_as_sympy_builds_it(args: tuple[Any, ...]) -> None:
    """Each order of ``args`` (the memo emptied first, then filled by the orders before it): each Min/Max of
    :func:`unordered.proved_node` is SymPy's node, and so is each inequality of two of them."""
    memo.clear_all()
    orders = list(itertools.permutations(args))[:4]
    for order in orders:
        for func in (sympy.Min, sympy.Max):
            node = unordered.proved_node(func, order)
            if node is not None:
                assert sympy.srepr(node) == sympy.srepr(func(*order)), (func, order)
        if len(order) == 2:
            for op in _INEQUALITIES:
                assert sympy.srepr(unordered.inequality(op, *order)) == sympy.srepr(op(*order)), (op, order)
    verdicts = {unordered.keeps_every_argument(order, collapsed=True) for order in orders}
    assert len(verdicts) == 1  # one verdict per set, whichever order asks


def test_hong_kim_min_max_arguments_in_every_order_are_built_as_sympy_builds_them():
    from symgpu.evaluate import ties
    model = Model(loader.read_definition(loader.resolve("hong_kim_2009")))
    quantity = model.expression("Exec_cycles_app")
    near = ties.near_condition(model, [quantity])
    assert near is not None
    asked = dict.fromkeys(tuple(node.args) for expr in (quantity, near) for node in sympy.preorder_traversal(expr)
                          if isinstance(node, (sympy.Min, sympy.Max)))
    asked.update(dict.fromkeys((m, -m) for m in quantity.atoms(sympy.Min)))  # magnitudes, as the near-tie test builds them
    assert len(asked) >= 10
    proved = 0
    for args in asked:
        _every_order_built_as_sympy_builds_it(args)
        memo.clear_all()
        proved += unordered.keeps_every_argument(args, collapsed=True)
    assert proved >= 5  # the memo's verdicts include proofs


@settings(max_examples=120, deadline=None, database=None, derandomize=True)  # the same examples every run
@given(st.lists(expressions(divisors=[x, y, sympy.Integer(2), x + 1], unary=[square], binary=[sympy.Min]), min_size=2, max_size=3,
                unique=True))
def test_random_arguments_in_every_order_are_built_as_sympy_builds_them(args: list[Any]):
    _every_order_built_as_sympy_builds_it(tuple(args))
