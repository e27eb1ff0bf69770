"""A Min/Max that ``symgpu.proofs.unordered`` proves keeps every argument is exactly what SymPy builds:
over every Min/Max of every bundled model (and of their expanded quantities), over random
expressions, and never for arguments SymPy can order."""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import symgpu
from symgpu.model import Model, loader, substitution
from symgpu.proofs import unordered
from symgpu import memo
from unordered_expressions import ATOMS, combiner, k, square, w, x, y, z



def _sympy_keeps_every_argument(args: tuple[Any, ...]) -> bool:
    """SymPy's own verdict, for Min and for Max: the evaluated node is the unevaluated one."""
    return all(sympy.srepr(f(*args)) == sympy.srepr(f(*args, evaluate=False)) for f in (sympy.Min, sympy.Max))


def test_every_proved_min_max_of_the_bundled_models_is_what_sympy_builds():
    """Every Min/Max node of every bundled model (its equations and expanded quantities): one the
    check proves keeps every argument is what SymPy builds from those arguments (a wrong proof
    would leave such a node, built unevaluated, in the model)."""
    asked: set[tuple[Any, ...]] = set()
    memo.clear_all()
    for model_id in loader.list_models():
        model = Model(loader.read_definition(loader.resolve(model_id)))
        expressions = [e.rhs for e in model.equations.values()] + [model.expression(name) for name in model.defining]
        for expr in expressions:
            asked.update(tuple(node.args) for node in sympy.preorder_traversal(expr) if isinstance(node, (sympy.Min, sympy.Max)))
    proved = [args for args in asked if unordered.keeps_every_argument(args)]
    assert len(proved) >= 50, (len(proved), len(asked))  # the check decides most of them
    wrong = [args for args in proved if not _sympy_keeps_every_argument(args)]
    assert not wrong, wrong
    built = [(f, args) for args in asked for f in (sympy.Min, sympy.Max) if unordered.built(f, args) is not None]
    assert len(built) >= 2 * len(proved)
    assert not [(f, args) for f, args in built if sympy.srepr(unordered.built(f, args)) != sympy.srepr(f(*args))]


@pytest.mark.parametrize("args", [
    (x, x + 1),                         # ordered by the expression
    (x, 2 * x),                         # ordered by x's sign
    (x, w),                             # positive against negative
    (k, sympy.Integer(0)),              # nonnegative against 0
    (sympy.Integer(1), sympy.Integer(2)),
    (x, sympy.Max(x, y)),               # a nested Max SymPy collapses
    (x, sympy.oo),
], ids=str)
def test_arguments_sympy_can_order_are_never_proved_unordered(args: tuple[Any, ...]):
    assert not unordered.keeps_every_argument(args)
    assert not _sympy_keeps_every_argument(args)


def test_unrelated_arguments_are_proved_and_built_as_sympy_builds_them():
    args = (x / y, k + 1, z, y * k - x)
    assert unordered.keeps_every_argument(args)
    assert _sympy_keeps_every_argument(args)
    assert sympy.srepr(substitution.min_max(sympy.Min, args)) == sympy.srepr(sympy.Min(*args))
    assert not unordered.keeps_every_argument((x, x))  # a repeated argument is left to SymPy


@pytest.mark.parametrize("func, args", [
    (sympy.Max, (sympy.Max(x, -x), sympy.Max(z, -z))),           # flattened into one Max of four
    (sympy.Max, (sympy.Max(x - y, y - x), sympy.Min(z, k), w)),   # a Min among a Max's arguments
    (sympy.Min, (sympy.Max(z, k), sympy.Max(z, x / y))),         # a common argument factored out by SymPy
    (sympy.Min, (sympy.Min(x, z), sympy.Max(x, y), k)),          # an argument found in a nested Max dropped there
    (sympy.Max, (sympy.Integer(3), sympy.Min(z, sympy.Integer(1)), k)),  # a nested Min below a number
], ids=str)
def test_nested_min_max_is_built_as_sympy_builds_it(func: Any, args: tuple[Any, ...]):
    """With a Min or Max among the arguments, SymPy flattens and collapses before its search for
    dominated arguments: ``built`` runs those steps as SymPy does, so the node it gives (where it
    gives one) is SymPy's, argument for argument, and ``substitution.min_max`` gives the same."""
    expected = sympy.srepr(func(*args))  # SymPy's own build, compared as text
    node = unordered.built(func, args)
    assert node is None or sympy.srepr(node) == expected
    memo.clear_all()
    assert sympy.srepr(substitution.min_max(func, args)) == expected


def test_a_flattened_max_of_unordered_magnitudes_is_built_without_sympys_search():
    """``Max(Max(a, -a), Max(b, -b))`` with ``a``, ``b`` unrelated: proved, built as SymPy's
    ``Max(a, -a, b, -b)``."""
    node = unordered.built(sympy.Max, (sympy.Max(x - y, y - x), sympy.Max(z, -z)))
    assert node is not None
    assert set(node.args) == {x - y, y - x, z, -z}
    assert sympy.srepr(node) == sympy.srepr(sympy.Max(x - y, y - x, z, -z))


def test_arguments_sympy_can_order_are_never_built():
    assert unordered.built(sympy.Max, (x, sympy.Max(x, y), x + 1)) is None  # x + 1 > x
    assert unordered.built(sympy.Min, (sympy.Max(x, y), sympy.Integer(0))) is None  # positive against 0


_combine = combiner(divisors=[x, y, sympy.Integer(2), x + 1], unary=[sympy.floor, square], binary=[sympy.Min, sympy.Max])
_EXPRESSIONS = st.recursive(ATOMS, _combine, max_leaves=5)


@settings(max_examples=150, deadline=None, database=None, derandomize=True)  # the same examples every run
@given(st.lists(_EXPRESSIONS, min_size=2, max_size=3))
def test_random_arguments_proved_unordered_are_kept_by_sympy(args: list[Any]):
    if unordered.keeps_every_argument(tuple(args)):
        assert _sympy_keeps_every_argument(tuple(args))


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.sampled_from([sympy.Min, sympy.Max]), st.lists(_EXPRESSIONS, min_size=2, max_size=3))
def test_random_nested_min_max_built_is_what_sympy_builds(func: Any, args: list[Any]):
    node = unordered.built(func, tuple(args))
    if node is not None:
        assert sympy.srepr(node) == sympy.srepr(func(*args))


def test_a_substitution_rebuilds_each_min_max_once_and_as_sympy_does():
    """``forms.xreplaced`` (the sign reasoner's substitutions) gives what SymPy's ``xreplace`` gives, a
    rebuilt Min/Max included; the same Min/Max rebuilt again (another substitution of the same
    expression) is the memo's, not SymPy's search again."""
    from symgpu.proofs import forms
    d = sympy.Dummy("d", positive=True)
    expr = sympy.Max(x - y, y - x, z) + sympy.Min(x * k, y + 1, x - z) * y
    rule = {x: y + d}
    memo.clear_all()
    first = forms.xreplaced(expr, rule, {})[0]
    again = forms.xreplaced(expr, rule, {})[0]
    assert sympy.srepr(first) == sympy.srepr(again) == sympy.srepr(expr.xreplace(rule))
    kept = next(s for s in memo.stats() if s.name == "proofs.unordered.min_max")
    assert (kept.misses, kept.hits) == (2, 2)
    with sympy.evaluate(False):  # built as it is, never kept
        assert sympy.srepr(unordered.min_max(sympy.Max, (x, x + 1))) == sympy.srepr(sympy.Max(x, x + 1))


def test_arguments_with_square_roots_are_proved_in_exact_surds_as_sympy_keeps_them():
    """A case value at a root of a quadratic holds a square root: its values at the points are ``a + b*sqrt(r)``,
    compared exactly (symgpu.proofs.surds); a point where a root is of a negative number is passed over."""
    root = (-y + sympy.sqrt(y**2 + 4 * x)) / 2  # of t**2 + y*t = x: above 1 where x > 1 + y, above y where x > 2*y**2
    for args in [(root, y, sympy.Integer(1)), (sympy.sqrt(z), x), (1 / sympy.sqrt(x + y), x * sympy.sqrt(y), k)]:
        assert unordered.keeps_every_argument(args), args
        assert _sympy_keeps_every_argument(args), args
        assert sympy.srepr(substitution.min_max(sympy.Max, args)) == sympy.srepr(sympy.Max(*args))
    for ordered in [(sympy.sqrt(x**2 + 1), x), (sympy.sqrt(x), sympy.sqrt(x) + 1), (sympy.sqrt(-w), w), (root, sympy.sqrt(x))]:
        assert not unordered.keeps_every_argument(ordered), ordered


def _with_roots(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(_combine(children), children.map(sympy.sqrt), children.map(lambda e: 1 / sympy.sqrt(e)))


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.lists(st.recursive(ATOMS, _with_roots, max_leaves=5), min_size=2, max_size=3))
def test_random_arguments_with_square_roots_proved_unordered_are_kept_by_sympy(args: list[Any]):
    if unordered.keeps_every_argument(tuple(args)):
        assert _sympy_keeps_every_argument(tuple(args))


def _capped_near_tie_scales() -> list[tuple[Any, ...]]:
    """The arguments of every ``Min(scale, LARGEST)`` of Hong & Kim's Exec_cycles_app near-tie condition (its case
    relations' magnitudes capped at the largest double)."""
    from symgpu.evaluate import ties
    model = Model(loader.read_definition(loader.resolve("hong_kim_2009")))
    near = ties.near_condition(model, [model.expression("Exec_cycles_app")])
    assert near is not None
    return [tuple(node.args) for node in sympy.preorder_traversal(near)
            if isinstance(node, sympy.Min) and ties.LARGEST in node.args]


def test_a_scale_capped_at_the_largest_double_is_proved_and_built_as_sympy_builds_it():
    """``Min(scale, LARGEST)`` (a float bound) is proved unordered by points beyond every double (each symbol at
    2**1100 in magnitude, against the bound's exact binary value), not left to SymPy's search (0.14 s of Hong & Kim's
    boundary question): the node built is SymPy's own, compared as text."""
    memo.clear_all()
    cases = _capped_near_tie_scales()
    assert len(cases) >= 3
    for args in cases:
        node = unordered.built(sympy.Min, args)
        assert node is not None, args
        assert sympy.srepr(node) == sympy.srepr(sympy.Min(*args))


LARGEST = sympy.Float("1.7976931348623157e308", 17)


@pytest.mark.parametrize("args", [
    (x, sympy.Float(-1.0)),             # positive against a negative float
    (w, sympy.Float(0.5)),              # negative against a positive float
    (k, sympy.Float(-0.5)),             # nonnegative against a negative float
    (x + 1, sympy.Float(1.0)),          # above the float by the expression
    (x, sympy.Float(0.0)),              # positive against a float zero
    (x**2 + 1, sympy.Float(1.0)),
    (sympy.Max(x, 3 * LARGEST), LARGEST),  # a bound beyond the largest double, nested
    (x, sympy.Float("inf")),            # an infinite float: never evaluated
], ids=str)
def test_arguments_sympy_can_order_against_a_float_are_never_proved_unordered(args: tuple[Any, ...]):
    assert not unordered.keeps_every_argument(args)
    for func in (sympy.Min, sympy.Max):
        assert unordered.built(func, args) is None


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.sampled_from([sympy.Min, sympy.Max]), _EXPRESSIONS,
       st.sampled_from([LARGEST, sympy.Float(0.5), sympy.Float(-1.0), sympy.Float(0.0), sympy.Float(1e-300), sympy.Float(2.5)]))
def test_random_arguments_against_a_float_built_are_what_sympy_builds(func: Any, expr: Any, bound: Any):
    """An expression against a float bound (a scale capped at the largest double, or a small float): where the
    proof builds the node (the bound counted as its exact binary value), it is SymPy's own."""
    node = unordered.built(func, (expr, bound))
    if node is not None:
        assert sympy.srepr(node) == sympy.srepr(func(expr, bound))


_INEQUALITIES = [sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan]


@settings(max_examples=200, deadline=None, database=None, derandomize=True)  # the same examples every run
@given(st.sampled_from(_INEQUALITIES), _EXPRESSIONS, _EXPRESSIONS)
def test_random_inequalities_are_built_as_sympy_builds_them(op: Any, lhs: Any, rhs: Any):
    try:
        expected = op(lhs, rhs)
    except TypeError:  # SymPy refuses the comparison (a side it proves non-real): not asked of inequality here
        return
    assert sympy.srepr(unordered.inequality(op, lhs, rhs)) == sympy.srepr(expected)


def test_an_inequality_sympy_decides_is_decided_and_one_it_cannot_is_built_unevaluated_without_asking_it():
    for op in _INEQUALITIES:
        assert unordered.inequality(op, x + 1, x) == op(x + 1, x) and op(x + 1, x) in (sympy.true, sympy.false)  # by its form
        assert unordered.inequality(op, x**2 + y, -w) == op(x**2 + y, -w)  # positive against positive: SymPy's own verdict
        undecided = unordered.inequality(op, x * y + 3, 2 * x + z**2)
        assert type(undecided) is op and undecided.args == (x * y + 3, 2 * x + z**2) and undecided == op(x * y + 3, 2 * x + z**2)
    assert unordered.inequality(sympy.Eq, x, y) == sympy.Eq(x, y)  # not an inequality: SymPy's
    with sympy.evaluate(False):
        assert unordered.inequality(sympy.StrictGreaterThan, x + 1, x) == sympy.StrictGreaterThan(x + 1, x, evaluate=False)


def test_a_bound_a_root_stays_below_at_the_draws_is_proved_at_the_extremes_as_sympy_keeps_it():
    """Volkov's loaded fixed point (a quadratic's root, ``2*c*n/(... + sqrt(...))``) against ``mem_thru`` and the other
    bounds: the seeded points put the inputs near each other, where the root stays below ``mem_thru``; one of
    ``sample_points.one_large_over_small``'s points (``mem_thru`` at its smallest) orders the pair the other way, so
    the Min is proved to keep every argument, and it is the Min SymPy builds (after its 30-50 ms search)."""
    model = symgpu.load("volkov_2016")  # its symbols, with their declared assumptions (b and alpha may be 0)
    a, b, c, n, alpha, alu_lat = (model.symbols[name] for name in ("a", "b", "c", "n", "alpha", "alu_lat"))
    mem_thru, alu_thru, issue_thru = (model.symbols[name] for name in ("mem_thru", "alu_thru", "issue_thru"))
    S = model.symbols["SMs"] * model.symbols["bytes_per_inst"] * model.symbols["clock"]
    shift = a + alpha * alu_lat
    root = 2 * c * n / (S * n + c * shift + sympy.sqrt(-4 * S * c * n * (shift - b) + (S * n + c * shift) ** 2))
    args = (root, mem_thru, alu_thru / alpha, issue_thru / (alpha + 1))
    assert unordered.keeps_every_argument(args)
    assert _sympy_keeps_every_argument(args)
    for func in (sympy.Min, sympy.Max):
        assert sympy.srepr(unordered.proved_node(func, args)) == sympy.srepr(func(*args))


_NONNEGATIVE = st.sampled_from([x, y, k, sympy.Integer(1), sympy.Integer(3), sympy.Rational(1, 2)])


def _sums_and_roots(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.tuples(children, children).map(lambda p: p[0] + p[1]), st.tuples(children, children).map(lambda p: p[0] * p[1]),
                     st.tuples(children, st.sampled_from([x, y, x + 1])).map(lambda p: p[0] / p[1]), children.map(sympy.sqrt),
                     st.tuples(children, children).map(lambda p: p[0] / (p[0] + sympy.sqrt(p[0] ** 2 + p[1]))))


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(st.lists(st.recursive(_NONNEGATIVE, _sums_and_roots, max_leaves=5), min_size=1, max_size=3), st.sampled_from([x, y, k]))
def test_random_arguments_against_a_symbol_proved_unordered_are_kept_by_sympy(args: list[Any], bound: Any):
    # a bare symbol among the arguments: the pairs the extremes settle (the symbol at its smallest or largest value)
    args = list(dict.fromkeys(args + [bound]))
    if unordered.keeps_every_argument(tuple(args)):
        assert _sympy_keeps_every_argument(tuple(args))
