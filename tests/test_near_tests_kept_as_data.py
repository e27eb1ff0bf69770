"""An array evaluation's near-tie test is kept in the cache as a checked tree of NumPy calls: a later process
flags the same points with no SymPy (the fixed cost of ``symgpu kernel --launches``), and a stored tree that
calls anything outside the table, reads past its arguments or holds anything but numbers is refused and the
test built again."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import symgpu
from symgpu import memo, store
from symgpu.entry_kinds import NEAR_TEST
from symgpu.evaluate import stepwise, stored_tests, ties

#: Hong & Kim at table2_example with Comp_insts = 1089: Comp_cycles = 4 (1089 + 6) = 4380 and
#: Mem_cycles = 6 (Mem_LD + 310), equal at Mem_LD = 420 exactly
MEM_LD = [100.0, 419.9999999999, 420.0, 420.0000000001, 500.0, 419.99999999999994]


def _by_hand() -> list[int]:
    """The points where Comp_cycles and Mem_cycles differ, by at most NEAR of the larger (exact arithmetic)."""
    near = Fraction(float(stepwise.NEAR))
    out = []
    for i, m in enumerate(MEM_LD):
        comp, mem = Fraction(4380), 6 * (Fraction(m) + 310)
        if comp != mem and abs(comp - mem) <= near * max(comp, mem):
            out.append(i)
    return out


def _near_points() -> list[int]:
    model = symgpu.load("hong_kim_2009")
    found = ties.unsettled_points(model, "Exec_cycles_app", preset="table2_example",
                                  values={"Mem_LD": np.array(MEM_LD), "Comp_insts": 1089.0})
    assert found is not None
    return [int(i) for i in found]


def test_a_near_tie_test_read_back_from_the_store_flags_the_same_points_with_no_sympy(empty_store: object) -> None:
    # an empty store of its own: another test of the run may have kept this near-tie test in the shared one
    want = _by_hand()
    assert want == [1, 3, 5]
    assert _near_points() == want  # built with SymPy, and kept
    assert memo.tallies()["evaluate.ties.near_conditions"] > 0
    memo.clear_all()  # a later process: only the store is left
    assert _near_points() == want
    assert memo.tallies()["evaluate.ties.near_conditions"] == 0  # not built again with SymPy


def test_a_stored_tree_that_calls_outside_the_table_is_refused_and_the_test_built_again(empty_store: object) -> None:
    model = symgpu.load("hong_kim_2009")
    expr = model.expression("Exec_cycles_app", stop_at=frozenset({"Mem_LD", "Comp_insts"}))
    _near_points()
    body = store.get(NEAR_TEST, stored_tests.key(model, expr))
    assert body is not None and json.loads(body)["tree"][0] in ("f", "m", "b", "k", "u", "r")
    names = json.loads(body)["args"]
    store.put(NEAR_TEST, stored_tests.key(model, expr), json.dumps({"args": names, "tree": ["f", "system", [["c", 1.0]], {}]}))
    assert stored_tests.stored(model, expr) == (False, None)
    memo.clear_all()
    assert _near_points() == _by_hand()
    assert memo.tallies()["evaluate.ties.near_conditions"] > 0  # refused, so built again with SymPy


@pytest.mark.parametrize("data", [
    ["f", "system", [], {}],  # a name outside the table
    ["f", "floor", [["a", 2]], {}],  # an argument past the two given
    ["c", "rm -rf"],  # a constant that is no number
    ["c", 2**60],  # a whole number too large
    ["m", "add", [["a", 0]]],  # a reduce outside the table
    ["r", "add", ["t", [["a", 0], ["a", 1]]]],  # a fold outside the table
    ["f", "select", [], {"out": ["a", 0]}],  # a keyword outside the table
    ["b", "@", ["a", 0], ["a", 1]],  # an operator outside the table
    ["x", 1],
    "not a tree",
])
def test_a_malformed_tree_is_refused(data: object) -> None:
    assert stored_tests.tree_of(data, 2) is None


def test_a_tree_deeper_than_the_limit_is_refused() -> None:
    deep: list = ["a", 0]
    for _ in range(stored_tests.MAX_DEPTH + 2):
        deep = ["u", deep]
    assert stored_tests.tree_of(deep, 1) is None


def test_a_checked_tree_runs_the_calls_it_names() -> None:
    # (a + 1.5) * 2 <= b, and the larger of a, b and 0 folded with maximum: by hand at a = 2, b = 7 and a = 3, b = 8
    tree = stored_tests.tree_of(["t", [["f", "less_equal", [["b", "*", ["b", "+", ["a", 0], ["c", 1.5]], ["c", 2]], ["a", 1]], {}],
                                       ["r", "maximum", ["t", [["a", 0], ["a", 1], ["c", 0.0]]]]]], 2)
    assert tree is not None
    holds, largest = stored_tests.run(tree, [np.array([2.0, 3.0]), np.array([7.0, 8.0])])
    assert holds.tolist() == [True, False] and largest.tolist() == [7.0, 8.0]
