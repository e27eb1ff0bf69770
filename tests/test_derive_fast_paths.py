"""The engine's fast paths give what the general machinery gives: linear roots without
``sympy.solve``, expectations refuted at a point (or proved by expansion) before ``simplify``,
the diff's normal form memoised, regime tables and steps built unevaluated (evaluated, they
are SymPy's), feasibility sampled in one pass, products of floors kept from ``simplify`` (they
are what it gives), relations shown once whichever way round they are stated."""

from __future__ import annotations

import random

import pytest
import sympy

import symgpu
from symgpu.compare import normalize
from symgpu.derive import feasibility, jobs, regime_conditions, regime_split, requests, roots, signs
from symgpu.proofs import forms, relations
from symgpu import memo

a, b, c = sympy.symbols("a b c", positive=True)
x = sympy.Symbol("x", real=True)


def test_linear_roots_agree_with_sympy_solve():
    for target in (a * x - b, a / (x - b) - c, (a * x + b) / (c * x + 1) - a, x / a + b / (a + c) - 1):
        mine = roots.linear_roots(target, x)
        assert mine is not None and len(mine) == 1
        (theirs,) = sympy.solve(target, x)
        assert sympy.cancel(mine[0] - theirs) == 0


def test_linear_roots_leave_other_equations_to_sympy_solve():
    assert roots.linear_roots(x**2 - a, x) is None  # quadratic
    assert roots.linear_roots(sympy.sqrt(x) - a, x) is None  # not rational in x
    assert roots.linear_roots(sympy.floor(x) - a, x) is None
    assert roots.linear_roots(sympy.Min(a, x) - b, x) is None


def test_linear_root_at_a_pole_is_not_returned():
    # x/(x - b) - b/(x - b) is 1 wherever it is defined: x = b zeroes the numerator and the denominator
    target = x / (x - b) - b / (x - b)
    assert sympy.solve(target, x) == []
    assert roots.linear_roots(target, x) in (None, [])



def test_a_numerator_free_of_the_variable_has_no_root_as_sympy_solve_and_solveset_say():
    # slopes of regimes with no critical point: c/(x + 1)**2, (a - b)/(x**2 + 1), a*b/x vanish nowhere
    for target in (c / (x + 1) ** 2, (a - b) / (x**2 + 1), a * b / x, (a - b) / (x + 1) ** 2 + 0 * x):
        assert sympy.solve(target, x) == []
        assert not isinstance(sympy.solveset(target, x, sympy.S.Reals), sympy.FiniteSet)
        assert roots.linear_roots(target, x) == [] and roots.real_roots(target, x) == []


def test_memoised_roots_are_those_solved_afresh_and_each_equation_is_solved_once():
    n = sympy.Symbol("n", nonnegative=True)
    equations = [sympy.Eq(n**2 - a * n, b), n**2 - a, sympy.Eq(sympy.sqrt(n), a + b), sympy.Eq(n, n + 1), a * n - b]
    fresh = []
    for equation in equations:
        memo.clear_all()
        fresh.append(roots.real_roots(equation, n))
    memo.clear_all()
    first = [roots.real_roots(equation, n) for equation in equations]
    solved = memo.tallies()["derive.roots.solve"]
    again = [roots.real_roots(equation, n) for equation in equations]
    assert first == again == fresh
    # by hand: a*n - b is linear (no sympy.solve); n = n + 1 has no root; n**2 - a = 0 at n = ±sqrt(a) (the domain filter comes after)
    assert fresh[4] == [b / a] and fresh[3] == [] and sympy.sqrt(a) in fresh[1]
    assert solved == 3  # the three nonlinear equations, once each
    assert memo.tallies()["derive.roots.solve"] == 3  # asked again: nothing solved
    found = {s.name: s for s in memo.stats()}["derive.roots.found"]
    assert (found.misses, found.hits) == (5, 5)
    # the same equation in another variable is another question
    assert roots.real_roots(sympy.Eq(a * n - b, 0), n) == [b / a] and roots.real_roots(a * n - b, a) == [b / n]
    # a caller may change the list it gets: the memo keeps its own
    first[4].append(sympy.Integer(7))
    assert roots.real_roots(equations[4], n) == [b / a]

def test_expressions_that_differ_at_an_admissible_point_are_refuted():
    assert requests.differ_at_a_point(a + b, a - b)
    assert requests.differ_at_a_point(sympy.sqrt(a * b), a)


def test_an_expression_equal_to_zero_is_never_refuted_by_its_rounding_residue():
    # cos(a)**2 + sin(a)**2 - 1 evaluates to a tiny residue, not 0, at 30 digits
    assert not requests.differ_at_a_point(sympy.cos(a) ** 2 + sympy.sin(a) ** 2 - 1, sympy.Integer(0))
    assert not requests.differ_at_a_point(sympy.sqrt(2) * sympy.sqrt(3) * sympy.sqrt(a) - sympy.sqrt(6 * a), sympy.Integer(0))


def test_equal_expressions_are_never_refuted_at_a_point():
    # the two forms of the smaller root of a*x**2 - (a*c + b)*x + b*c (cancellation-free and textbook)
    disc = (a * c + b) ** 2 - 4 * a * b * c
    textbook = ((a * c + b) - sympy.sqrt(disc)) / (2 * a)
    stable = 2 * b * c / ((a * c + b) + sympy.sqrt(disc))
    assert not requests.differ_at_a_point(textbook, stable)
    assert not requests.differ_at_a_point(sympy.sqrt(a**2), a)
    assert requests.proved_equal(textbook, stable)
    assert not requests.proved_equal(textbook, stable + 1)


def test_normal_form_with_a_shared_memo_is_the_fresh_one():
    n = sympy.Symbol("n", positive=True)
    first = a + sympy.Max(4 + sympy.Max(0, 33 - a), 444 - (n - 1) * (a + 4))
    second = 2 * sympy.Min(first, b) + c
    memo: dict[sympy.Basic, sympy.Basic] = {}
    assert normalize(first, memo) == normalize(first)
    assert normalize(second, memo) == normalize(second)
    assert first in memo  # the subexpression was normalised once and reused


def test_opposite_conditions_are_found_and_others_refuted_at_a_point():
    h = (a * x - b) / (c + x)
    assert regime_conditions.cancel_to_zero(h, -h)
    assert regime_conditions.cancel_to_zero(h, (b - a * x) / (x + c))
    assert regime_conditions.cancel_to_zero(h, sympy.Mul(-1, a * x - b, evaluate=False) / (c + x))
    assert not regime_conditions.cancel_to_zero(h, -h + 1 / (c + x))
    assert not regime_conditions.cancel_to_zero(h, h)


def test_a_solve_regimes_identity_check_answers_as_sympys_cancel():
    """``solve`` asks whether a regime's value equals the other side (``sympy.cancel(side - value) == 0``) through
    ``cancel_to_zero(side, -value)``, refuted first at exact points: the same verdict as ``sympy.cancel`` for Hong &
    Kim's MWP regimes against 0, another regime's value, their own value written otherwise (identities) and N."""
    derivation = symgpu.load("hong_kim_2009").regimes("MWP")
    values = [r.expression for r in regime_split.regime_list(derivation)]
    assert len(values) >= 3
    n = sympy.Symbol("N", positive=True)
    for value in values:
        for side in [sympy.Integer(0), sympy.together(value), sympy.expand(value), n, *values]:
            assert regime_conditions.cancel_to_zero(side, -value) == (sympy.cancel(side - value) == 0), (side, value)
    assert regime_conditions.cancel_to_zero(sympy.expand(values[0]), -values[0])  # an identity: both say 0


@pytest.fixture(scope="module")
def occupancy_split():
    """The regimes of occupancy ``active_blocks_per_SM`` without the barrier limit (118 regimes)."""
    derivation = symgpu.load("occupancy").regimes("active_blocks_per_SM", substitute={"barrier_limit_applies": "0"})
    return derivation, regime_split.regime_list(derivation)


def test_occupancy_regime_steps_read_like_the_table_and_evaluate_to_sympys_piecewise(occupancy_split):
    derivation, found = occupancy_split
    steps = {s.operation: s.expression for s in derivation.steps if s.operation.startswith("regime ")}
    assert len(found) > 50 and len(steps) == len(found)
    for regime in found:
        step = steps[f"regime {regime.name}"]
        (value, condition), = step.args
        assert value == regime.expression and set(sympy.And.make_args(condition)) == set(regime.conditions)
        assert sympy.Piecewise(*step.args) == sympy.Piecewise((regime.expression, sympy.And(*regime.conditions)))


def test_a_large_regime_table_is_one_piece_per_regime_with_sympys_values(occupancy_split):
    derivation, found = occupancy_split
    assert len(found) > regime_split.EVALUATED_TABLE
    assert [(p.expr, set(sympy.And.make_args(p.cond))) for p in derivation.result.args] == \
        [(r.expression, set(r.conditions)) for r in found]
    model = symgpu.load("occupancy")
    # SymPy's own evaluation of the whole table (which merges pieces) is not asked for: on this table it ran for
    # minutes; each point's pieces are evaluated by SymPy instead (the first piece whose condition holds)
    for preset, inputs in (("cc_8_6", {"threads_per_block": 256, "regs_per_thread": 40, "smem_per_block": 4096}),
                           ("cc_1_3", {"threads_per_block": 128, "regs_per_thread": 18, "smem_per_block": 3960}),
                           ("cc_9_0", {"threads_per_block": 1024, "regs_per_thread": 64, "smem_per_block": 0})):
        magnitudes = {k: sympy.Rational(str(q.to(model.units[k]).magnitude))
                      for k, q in {**model.constants, **model.presets[preset]}.items()}
        values = {model.symbols[k]: v for k, v in {**magnitudes, **inputs}.items() if model.symbols[k] in derivation.result.free_symbols}
        table = derivation.result.xreplace(values)
        by_sympy = sympy.Piecewise(*((e.xreplace(values), c.xreplace(values)) for e, c in derivation.result.args))
        assert table == by_sympy and table.is_Integer, preset


def test_feasibility_is_proved_by_a_sample_and_never_refuted_by_missing_one():
    model = symgpu.load("occupancy")
    threads = model.symbols["threads_per_block"]
    assert feasibility.witnesses(model, [[threads > 10], [threads > 10, threads < 5], []]) == [True, None, True]


def test_a_condition_that_cannot_be_compiled_leaves_only_its_regimes_undecided(occupancy_split):
    model = symgpu.load("occupancy")
    _, found = occupancy_split
    regimes = [[c.relational for c in r.raw] for r in found[:30]]
    plain = feasibility.witnesses(model, regimes)
    assert True in plain
    unknown = sympy.Function("f")(model.symbols["threads_per_block"]) > 0  # no NumPy function: one by one
    assert feasibility.witnesses(model, regimes + [[unknown]]) == plain + [None]


def test_symbols_of_one_name_are_sampled_apart():
    model = symgpu.load("occupancy")
    first, second = sympy.Dummy("x"), sympy.Dummy("x")
    assert feasibility.witnesses(model, [[first > second], [first > first]]) == [True, None]


def _nested_monomial(rng, depth):
    x, y = sympy.Symbol("x", positive=True), sympy.Symbol("y")
    n, m, z = sympy.Symbol("n", integer=True, positive=True), sympy.Symbol("m", integer=True), sympy.Symbol("z", negative=True)
    atoms = [x, y, n, m, z, sympy.Integer(2), sympy.Rational(1, 3), sympy.Integer(-1)]
    out = sympy.Integer(1)
    for _ in range(rng.randint(1, 3)):
        if depth and rng.random() < 0.4:
            factor = rng.choice([sympy.floor, sympy.ceiling])(_nested_monomial(rng, depth - 1))
        else:
            factor = rng.choice(atoms)
        out *= factor ** rng.choice([1, 2, -1, -2])
    return out


@pytest.mark.parametrize("fast, general, tally", [
    (forms.small_simplify, sympy.simplify, "proofs.forms.simplify"),
    (forms.factored, sympy.factor, "proofs.forms.factor"),
], ids=["simplify", "factor"])
def test_products_of_floors_that_skip_simplify_or_factor_are_what_it_gives(fast, general, tally):
    rng = random.Random(7)
    checked = 0
    for _ in range(150):
        expr = _nested_monomial(rng, 2)
        memo.clear_all()
        got = fast(expr)
        if memo.tallies()[tally] == 0:  # skipped: SymPy's simplify or factor did not run
            checked += 1
            assert got == general(expr) == expr
    assert checked > 60


def _integer_part_with_a_sum(rng):
    """``floor``/``ceiling`` of a product with a sum of two or three symbols in it, drawn from symbols of every kind, so
    that the sum sometimes shares a symbol with the product's other factors (which the shortcut leaves to SymPy)."""
    x, y = sympy.Symbol("x", positive=True), sympy.Symbol("y")
    n, m, z = sympy.Symbol("n", integer=True, positive=True), sympy.Symbol("m", integer=True), sympy.Symbol("z", negative=True)
    symbols = [x, y, n, m, z]
    total = sympy.Add(*rng.sample(symbols, rng.randint(2, 3)))
    inner = total * _nested_monomial(rng, 1) * rng.choice(symbols) ** rng.choice([-1, -2, 1])
    outer = rng.choice([sympy.floor, sympy.ceiling])(inner)
    return outer * _nested_monomial(rng, 1) if rng.random() < 0.5 else outer


def test_integer_parts_of_sums_apart_that_skip_simplify_are_what_it_gives():
    """A sum of symbols inside an integer part, apart from the product's other factors (the occupancy calculator's
    ``ceiling((smem_per_block + smem_reserved_per_block)/smem_alloc_unit)``), is given back without SymPy's simplify
    only where simplify gives it back unchanged: each of 500 seeded expressions the shortcut takes is compared with
    ``sympy.simplify`` run on it."""
    rng = random.Random(31)
    taken = refused = 0
    for _ in range(500):
        expr = _integer_part_with_a_sum(rng)
        if not isinstance(expr, (sympy.floor, sympy.ceiling, sympy.Mul, sympy.Pow)):
            continue  # the integer part evaluated on construction
        if forms._monomial_of_integer_parts(expr):
            taken += 1
            assert _same_form(sympy.simplify(expr), expr), expr
        else:
            refused += 1
    assert taken > 60 and refused > 60
    a, b, u = sympy.symbols("a b u", positive=True)
    assert not forms._monomial_of_integer_parts(sympy.ceiling((a + b) / a))  # 1 + ceiling(b/a): simplify may take the 1 out
    assert not forms._monomial_of_integer_parts(sympy.floor((a + b) ** 2 / u))  # a sum to a power
    assert not forms._monomial_of_integer_parts(sympy.floor((a + 2 * b) / u))  # a coefficient
    assert not forms._monomial_of_integer_parts((a + b) / u)  # a sum outside an integer part


def test_a_sum_is_still_factored():
    x = sympy.Symbol("x", positive=True)
    assert forms.factored(x**2 - 1) == (x - 1) * (x + 1)


def test_a_sum_inside_a_floor_still_goes_to_simplify():
    x, y = sympy.symbols("x y", positive=True)
    for expr in (sympy.floor(y**2 / (x + y)**2) / y, x * sympy.floor((x + 1)**-2)**2, 2 * sympy.ceiling(y**2 / (x + y)**2) / 3):
        memo.clear_all()
        assert forms.small_simplify(expr) == sympy.simplify(expr) != expr
        assert memo.tallies()["proofs.forms.simplify"] == 1


def test_a_relation_stated_twice_either_way_round_is_shown_once():
    x, y = sympy.symbols("x y", positive=True)
    shown: list = []
    seen: set = set()
    either = sympy.Or(sympy.Eq(x, 1), y > 2)
    for relation in (x > y, y < x, sympy.Ge(x, y), either, either, 2 * x > y):
        relations.add_new_relation(relation, shown, seen)
    assert shown == [x > y, sympy.Ge(x, y), either, 2 * x > y]


def test_conditions_of_a_root_are_tidied_only_when_none_is_refuted():
    hk = symgpu.load("hong_kim_2009")
    s = hk.symbols
    ctx = signs.reasoner(hk)
    undecided = [sympy.StrictGreaterThan(s["N"], s["Mem_LD"] / s["Departure_del_coal"]), sympy.GreaterThan(s["N"] * s["Issue_cycles"], s["Mem_LD"])]
    refuted = sympy.StrictLessThan(s["Mem_LD"] + s["Issue_cycles"], 0)  # a sum of positive symbols is never negative
    proved = sympy.StrictGreaterThan(s["Mem_LD"], 0)
    conditions = [*undecided, proved]
    general = [signs.reasoner(hk).tidy(c) for c in conditions]
    assert sympy.false not in general
    assert ctx.tidy_unless_refuted(conditions) == general
    general = [signs.reasoner(hk).tidy(c) for c in (*undecided, refuted)]
    assert sympy.false in general
    assert ctx.tidy_unless_refuted([*undecided, refuted]) == [sympy.false]


def test_regimes_left_unsimplified_are_the_same_regimes_with_their_values_as_built():
    hk = symgpu.load("hong_kim_2009")
    job, _ = jobs.start(hk, "regimes", "MWP", "")
    expr, _ = job.quantity_expression("MWP", None, ())
    built = regime_split._regimes(job, expr, None, frozenset(), record=False, simplified=False)
    shown = regime_split._regimes(job, expr, None, frozenset(), record=False)
    assert [(r.name, r.conditions, r.raw) for r in built] == [(r.name, r.conditions, r.raw) for r in shown]
    assert [job.ctx.nice(r.expression) for r in built] == [r.expression for r in shown]
    assert any(a.expression != b.expression for a, b in zip(built, shown))  # some value is simplified only on request


def _kleene(condition: sympy.Basic, leaves: dict) -> bool | None:
    """Three-valued truth of an And/Or/Not tree from its leaves' known verdicts (True, False, None)."""
    if isinstance(condition, sympy.logic.boolalg.BooleanAtom):  # SymPy reduced it (a and not a)
        return bool(condition)
    if isinstance(condition, sympy.Not):
        inner = _kleene(condition.args[0], leaves)
        return None if inner is None else not inner
    if isinstance(condition, (sympy.And, sympy.Or)):
        parts = [_kleene(a, leaves) for a in condition.args]
        decisive, other = (False, True) if isinstance(condition, sympy.And) else (True, False)
        return decisive if decisive in parts else (other if all(v is other for v in parts) else None)
    return leaves[condition]


def test_a_condition_is_refuted_or_proved_exactly_when_its_parts_decide_it():
    hk = symgpu.load("hong_kim_2009")
    s = hk.symbols
    share = s["Mem_LD"] / (s["Mem_LD"] + s["N"])  # between 0 and 1 for positive Mem_LD and N (SymPy does not see it)
    proved, refuted = sympy.StrictLessThan(share, 1), sympy.StrictGreaterThan(share, 1)
    undecided = sympy.StrictGreaterThan(s["N"], s["Mem_LD"] / s["Departure_del_coal"])
    other = sympy.GreaterThan(s["N"] * s["Issue_cycles"], s["Mem_LD"])  # undecided too
    leaves = {proved: True, refuted: False, undecided: None, other: None}
    leaves.update({sympy.Not(c): None if v is None else not v for c, v in list(leaves.items())})  # SymPy writes not(a < b) as a >= b
    pairs = [sympy.And(a, b) for a in leaves for b in leaves if a != b] + [sympy.Or(a, b) for a in leaves for b in leaves if a != b]
    conditions = [*leaves, *pairs, *[sympy.Not(c) for c in (*leaves, *pairs)], sympy.Or(sympy.Not(sympy.And(undecided, proved)), refuted)]
    ctx = signs.reasoner(hk)
    for condition in conditions:
        truth = _kleene(condition, leaves)
        assert ctx.refuted(condition) is (truth is False), condition
        assert ctx.proved(condition) is (truth is True), condition


def test_a_part_that_cannot_refute_the_condition_is_not_decided():
    hk = symgpu.load("hong_kim_2009")
    s = hk.symbols
    undecided = sympy.StrictGreaterThan(s["N"], s["Mem_LD"] / s["Departure_del_coal"])
    last = sympy.GreaterThan(s["N"] * s["Issue_cycles"], s["Mem_LD"])
    ctx = signs.reasoner(hk)
    both = sympy.And(undecided, last)
    first = both.args[0]  # And keeps its parts in SymPy's order
    # needs both proved: the first is not (shown open by exact values at admissible points, SignReasoner._open: it takes
    # both signs), so neither is decided
    assert not ctx.refuted(sympy.Not(both))
    assert ctx._open(first) and first not in ctx._decided and both.args[1] not in ctx._decided
    assert ctx.decide(first) is None  # what showing it open stands for
    assert ctx.tidy_unless_refuted([sympy.Not(both)]) == [sympy.Not(both)]
    assert both.args[1] not in ctx._decided


def test_every_reasoner_of_a_model_reads_its_constants_alike_so_memoised_forms_are_reused():
    hk = symgpu.load("hong_kim_2009")
    memo.clear_all()
    first, second = signs.reasoner(hk), signs.reasoner(hk)
    assert first.constants and first.constants == second.constants
    s = hk.symbols
    expr = (s["Issue_cycles"] * s["N"] + s["Mem_LD"]) / (s["Threads_per_warp"] * s["N"]) - s["Mem_LD"] / (s["Threads_per_warp"] * s["N"])
    fresh = first.nice(expr)
    assert sympy.simplify(fresh - expr) == 0
    # the second reasoner's simplify of the same expression is the memoised one: never recomputed
    simplified = memo.tallies()["proofs.forms.simplify"]
    assert simplified > 0  # the first reasoner did simplify
    assert second.nice(expr) == fresh
    assert memo.tallies()["proofs.forms.simplify"] == simplified


def test_folded_common_subexpressions_are_named_as_renaming_sympys_x1_x2_would():
    from symgpu.derive import summary
    x1 = sympy.Symbol("x1", positive=True)  # a model symbol called x1: the first name is x₂, as cse skips x1
    root = 2 * c / (a * b + c * x1 + sympy.sqrt((a * b + c * x1) ** 2 - 4 * a * b * c))
    for expr in (sympy.Min(a, b / x1, c / (x1 + 1), root), sympy.Piecewise((root, a > b * x1), (root**2, True))):
        replacements, reduced = sympy.cse(expr, symbols=sympy.numbered_symbols("x", start=1))
        names = {s: sympy.Symbol(str(s).translate(summary._SUBSCRIPTS)) for s, _ in replacements}
        expected = [f"{names[s]} = {sympy.sstr(v.xreplace(names))}" for s, v in replacements] + [sympy.sstr(reduced[0].xreplace(names))]
        width = len(sympy.sstr(expr)) - 1  # folded, and no line shortened
        assert summary.fold(expr, width) == expected and expected[0].startswith("x₂ = ") and len(expected) > 2


def test_a_fixed_points_mins_are_those_sympy_builds_from_the_same_arguments():
    # the split and the result are built through model.substitution.min_max (the search for a
    # dominated argument skipped where sample points prove there is none): the same as sympy.Min
    memo.clear_all()
    volkov = symgpu.load("volkov_2016")
    d = symgpu.derive.fixed_point(volkov, "memory_throughput_loaded", "x")
    split = next(step.expression.rhs for step in d.steps if step.operation == "split")
    for built in (split, d.result):
        assert isinstance(built, sympy.Min) and len(built.args) == 4
        assert sympy.srepr(built) == sympy.srepr(sympy.Min(*reversed(built.args)))


def test_the_root_of_a_quadratic_is_picked_once_per_quadratic():
    from symgpu.derive import fixed_points
    memo.clear_all()
    quadratic = (sympy.Integer(1), -3 * a, a**2)  # (a2, a1, disc): roots (3a + a)/2 = 2a and (3a - a)/2 = a
    ends = (sympy.Integer(0), sympy.Rational(3, 2) * a)  # only a, the - root (1), lies inside
    first = fixed_points._pick_root(quadratic, x, *ends)
    again = fixed_points._pick_root(quadratic, x, *ends)
    choices = {s.name: s for s in memo.stats()}["derive.fixed_points.root_choice"]
    assert first == again == 1 and (choices.misses, choices.hits) == (1, 1)


def _simplify_inputs() -> list[sympy.Expr]:
    """Expressions of the shapes the extremum questions simplify (Volkov's slopes at a cusp, a tidied bound, a root
    of a slope), monomials, floors of sums, a log, a Min, roots and quotients of sums, atoms, seeded nested monomials
    and seeded random rational functions."""
    lat, thru, issue, mem = sympy.symbols("alu_lat_s alu_thru_s issue_thru_s mem_thru_s", positive=True)
    alpha = sympy.Symbol("alpha_s", nonnegative=True)
    fixed = [-(-issue + mem) / mem, (issue - mem) / mem, -thru / (thru - issue), -lat / mem, thru / mem, a * b**-2,
             lat * issue / (alpha + 1) - issue * (alpha * lat + mem) / (alpha + 1)**2,
             issue * (-lat * thru / (thru - issue) + mem) / (-thru / (thru - issue) + 1), mem * (alpha * lat + issue),
             sympy.floor(a / (a + b)) / b, sympy.floor(a * b**2) * c, c * sympy.log(a / b), sympy.Min(a, b) * c / c**2]
    rng = random.Random(29)
    atoms = [a, b, c, sympy.Integer(2), sympy.Rational(1, 3)]
    for _ in range(8):
        numerator = sum(rng.choice(atoms) * rng.choice(atoms) * rng.choice((-1, 1)) for _ in range(3))
        fixed.append(numerator / (rng.choice(atoms) + rng.choice(atoms)) + rng.choice(atoms) / rng.choice(atoms))
    n, z = sympy.Symbol("n", positive=True), sympy.Symbol("z", real=True)
    fixed += [-a / (a - b), (b - c) / c, -(-b + c) / c, c * n / (a + sympy.sqrt(a**2 + 4 * b * c)), sympy.sqrt(z**2),
              (a**2 - b**2) / (a - b), sympy.Integer(3), a]
    nested = random.Random(11)
    return fixed + [_nested_monomial(nested, 2) for _ in range(60)]


def _same_form(got: sympy.Basic, want: sympy.Basic) -> bool:
    """The same expression, printed the same (not ``srepr``: SymPy's cache may hand back an equal symbol declared with
    other but equivalent assumption words, ``positive`` beside ``real, positive``, which ``srepr`` spells out)."""
    return bool(got == want) and sympy.sstr(got) == sympy.sstr(want) and type(got) is type(want)


def test_simplified_is_sympys_simplify_run_once_per_expression():
    memo.clear_all()
    inputs = _simplify_inputs()
    for expr in inputs * 2:  # the second time from the memo (or the monomial shortcut)
        assert _same_form(forms.simplified(expr), sympy.simplify(expr))
    run = memo.tallies()["proofs.forms.simplify"]
    assert run == len({e for e in inputs if e.args and not forms._monomial_of_integer_parts(e)})  # once each, none for an atom or monomial
    assert sum(forms.simplified(e) != e for e in inputs) >= 10  # simplify changes many of them


def test_small_simplify_through_the_shared_memo_is_what_it_was():
    """``small_simplify`` as it was (SymPy's simplify called afresh) against it now (through ``forms.simplified``,
    whose result the rational solver's root check may have filled): the same form for every input."""
    memo.clear_all()
    for expr in _simplify_inputs():
        forms.simplified(expr)  # the memo filled first, as a solved root's check fills it
        if forms._monomial_of_integer_parts(expr) or sympy.count_ops(expr) > 120:
            want = expr if forms._monomial_of_integer_parts(expr) else sympy.cancel(expr)
        else:
            want = forms._logs_of_powers_undone(sympy.simplify(expr), expr)
        assert _same_form(forms.small_simplify(expr), want)


def test_a_solved_root_is_kept_as_sympys_own_simplify_check_keeps_it():
    from symgpu.derive import rational_solve
    var = sympy.Dummy("alpha", real=True)
    lat, thru, issue, mem = sympy.symbols("alu_lat_k alu_thru_k issue_thru_k mem_thru_k", positive=True)
    targets = [-issue * (var * lat + mem) / (var + 1) + thru * (var * lat + mem) / var,
               mem * (var * lat + lat) - thru * (var * lat + mem) / var, issue * var - mem * (var + 1), a * var**2 + b * var - c]
    pairs = [(target, candidate) for target in targets for candidate in sympy.solve(target, var, dict=False, check=False)]
    unsimplified = sympy.Mul(a**2 - b**2, sympy.Pow(a - b, -1), evaluate=False)  # a root that simplifies further (a + b)
    pairs += [(var - unsimplified, unsimplified), ((var**2 - 1) / (var - 1), sympy.Integer(1)), (var * a - b, b / a)]
    kept = []
    for target, candidate in pairs:
        memo.clear_all()
        was = bool(exact_ok(target, var, candidate) and sympy.simplify(candidate) == candidate)
        assert rational_solve._kept(target, var, candidate) == was
        kept.append(was)
    assert True in kept and False in kept


def exact_ok(target: sympy.Expr, var: sympy.Symbol, candidate: sympy.Expr) -> bool:
    """``rational_solve._kept``'s checks before its simplify one (unchanged): the candidate's shape and its root at a point."""
    from symgpu.derive import rational_solve
    from symgpu.proofs import exact_signs
    return isinstance(candidate, sympy.Expr) and var not in candidate.free_symbols and not candidate.has(sympy.nan, sympy.zoo) \
        and exact_signs.modest_powers(candidate) and rational_solve._root_at_a_point(target, var, candidate)


def test_a_sign_asked_with_its_enclosure_known_open_is_the_sign_asked_afresh():
    from symgpu.proofs import intervals
    from symgpu.proofs.sign_records import Declared
    from symgpu.proofs.signs import SignReasoner
    d = sympy.Symbol("d_open", nonnegative=True)
    exprs = [a - b, a * b - c**2, (a - b) / (a + b), sympy.Min(a, b) - c, a * d - b * d + d**2, d - 1, a**2 - 2 * a * b + b**2,
             (a + b)**2 / (a * b) - 4, sympy.floor(a / b) - a / b, a - b - sympy.Min(a - b, c),
             (a + b)**2 - a**2 - 2 * a * b, a**2 + 2 * a * b - (a + b)**2, (a * b + a) / (b + 1) - a, (a - b)**2 + c]
    verdicts = []
    for expr in exprs:
        if intervals.sign(expr) is not None:
            continue
        memo.clear_all()
        fresh = SignReasoner(Declared())._sign(expr)
        memo.clear_all()
        assert SignReasoner(Declared())._sign(expr, enclosed=True) == fresh
        verdicts.append(fresh)
    assert {1, -1, 0, None} <= set(verdicts)  # each verdict met among the signs the intervals leave open


def test_candidates_of_an_extremum_are_merged_where_sympys_cancel_finds_them_equal():
    """``regime_conditions.cancel_to_zero(m, -c)``, as ``extrema`` now merges candidates, against ``sympy.cancel(m - c) ==
    0``, as it did: locations and values equal in another form, unequal ones, infinities, a Min and a floor."""
    pairs = [(a / b + 1, (a + b) / b), ((a - b) / b, a / b - 1), (a / b, b / a), (sympy.oo, a), (sympy.oo, sympy.oo),
             (-sympy.oo, sympy.oo), (sympy.Integer(0), sympy.Integer(0)), (sympy.Min(a, b) * 2, 2 * sympy.Min(a, b)),
             (sympy.Min(a, b), sympy.Min(a, c)), (sympy.floor(a / b), sympy.floor(a / b) + 0 * c), (sympy.floor(a) / b, a / b),
             (a * (b + c), a * b + a * c), (a * (b + c), a * b + c), (sympy.sqrt(a) ** 2, a), (sympy.sqrt(a * b), sympy.sqrt(a) * sympy.sqrt(b))]
    for m, cand in pairs:
        memo.clear_all()
        assert regime_conditions.cancel_to_zero(m, -cand) == (sympy.cancel(m - cand) == 0), (m, cand)
