"""SymPy builds one ``Min``/``Max`` node from the same arguments in any order (it starts from their frozenset and orders
it), so the proofs' Min/Max memo (:func:`symgpu.proofs.unordered.min_max`) is keyed by the set of arguments and the
model's (:func:`symgpu.model.substitution.min_max`, the parser's and a stored derivation's read-back) reuses its nodes:
proved for every Min/Max of every bundled model's equations, in every order of its arguments."""

from __future__ import annotations

import itertools

import sympy

import symgpu
from symgpu.model import loader, substitution
from symgpu.proofs import unordered


def _min_max_nodes() -> list[sympy.Basic]:
    nodes: dict[sympy.Basic, None] = {}
    for model_id in loader.list_models():
        model = symgpu.load(model_id, cache=False, whole=True)
        for equation in model.defining.values():
            for node in sympy.preorder_traversal(equation.rhs):
                if isinstance(node, (sympy.Min, sympy.Max)) and len(node.args) <= 4:
                    nodes[node] = None
    return list(nodes)


def test_sympy_builds_one_min_max_node_in_every_order_of_its_arguments() -> None:
    nodes = _min_max_nodes()
    assert len(nodes) > 20
    for node in nodes:
        built = sympy.srepr(node.func(*node.args))
        for order in itertools.permutations(node.args):
            assert sympy.srepr(node.func(*order)) == built, node
            assert sympy.srepr(node.func(*order, order[0])) == built, node  # an argument repeated


def test_the_models_min_max_reuses_the_proofs_node_built_in_another_order() -> None:
    x, y, z = sympy.symbols("x y z", positive=True)
    args = (x + 2*y, z / x, y)
    proofs = unordered.min_max(sympy.Min, args)
    reordered = args[::-1]
    assert unordered.kept(sympy.Min, reordered) is proofs
    assert substitution.min_max(sympy.Min, reordered) is proofs
    assert sympy.srepr(proofs) == sympy.srepr(sympy.Min(*reordered))
