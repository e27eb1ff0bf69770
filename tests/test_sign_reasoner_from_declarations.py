"""The sign reasoner of :mod:`symgpu.proofs.signs` works from plain data (symbols with their
assumption words, constant values, extra relations), with no model; a verdict store handed to it is
asked before any factoring and given each verdict that needed work; a model's reasoner
(:func:`symgpu.derive.signs.reasoner`) reads exactly the model's declarations."""

from __future__ import annotations

import sympy

from conftest import FIXTURES
import symgpu
from symgpu import memo
from symgpu.derive import signs
from symgpu.proofs.sign_records import Declared, Verdict
from symgpu.proofs.signs import SignReasoner

x = sympy.Symbol("x", real=True, positive=True)
y = sympy.Symbol("y", real=True, positive=True)
c = sympy.Symbol("c", real=True)  # a constant declared with no sign


class Kept:
    """A verdict store in memory, recording what it was asked and given."""

    def __init__(self, verdicts: dict | None = None) -> None:
        self.verdicts = dict(verdicts or {})
        self.asked: list = []

    def get(self, expr, positives):
        self.asked.append(expr)
        return self.verdicts.get((expr, positives))

    def put(self, expr, positives, verdict):
        self.verdicts[(expr, positives)] = verdict


def declared(constants=()) -> Declared:
    return Declared(symbols=((x, frozenset({"positive"})), (y, frozenset({"positive"})), (c, frozenset())), constants=constants)


def test_a_constant_of_positive_value_declared_without_a_sign_is_positive_for_the_reasoner():
    assert SignReasoner(declared(((c, 2.5),))).sign(c * x) == 1
    assert SignReasoner(declared()).sign(c * x) is None  # no value: c may be negative
    assert SignReasoner(declared(((c, -2.5),))).sign(c * x) is None  # a negative value is not used


def test_a_constant_declared_positive_keeps_its_own_symbol():
    reasoner = SignReasoner(declared(((x, 3.0), (c, 1.0))))
    assert set(reasoner.constants) == {c}  # x is declared positive: no stand-in needed
    assert reasoner.back(reasoner.constants[c]) == c


def test_an_extra_relation_decides_what_the_declarations_leave_open():
    assert SignReasoner(declared()).sign(x - y) is None
    reasoner = SignReasoner(declared(), [sympy.StrictGreaterThan(x, y)])
    assert reasoner.sign(x - y) == 1
    assert reasoner.decide(sympy.StrictLessThan(x, y)) is False
    assert reasoner.copy().sign(x - y) == 1


def test_declared_positive_reads_the_declared_words_by_name():
    d = Declared(symbols=((sympy.Symbol("n", integer=True, nonnegative=True), frozenset({"integer", "nonnegative"})),
                          (x, frozenset({"positive"}))))
    assert d.declared_positive("x") and not d.declared_positive("n") and not d.declared_positive("undeclared")


def test_a_verdict_store_is_given_each_verdict_that_needed_factoring_and_no_other():
    memo.clear_all()
    kept = Kept()
    reasoner = SignReasoner(declared(), verdicts=kept)
    worked = (x + 1) ** 2 - x**2 - 2 * x  # 1, but only once expanded: intervals and points cannot tell
    assert reasoner.sign(worked) == 1
    assert reasoner.sign(x + 1) == 1  # the enclosure of x + 1 is (1, oo): decided at once
    assert kept.verdicts == {(worked, ()): Verdict(1)}


def test_a_kept_verdict_is_answered_before_any_factoring():
    memo.clear_all()
    worked = (x + 1) ** 2 - x**2 - 2 * x
    # a store that (wrongly) keeps -1: the reasoner answers what is kept, so it asked first
    kept = Kept({(worked, ()): Verdict(-1)})
    assert SignReasoner(declared(), verdicts=kept).sign(worked) == -1
    assert kept.asked == [worked]
    memo.clear_all()


def test_a_models_reasoner_reads_exactly_its_constants_of_positive_value_without_a_declared_sign():
    hk = symgpu.load("hong_kim_2009")
    # independently of the declared words: SymPy's assumptions on the model's symbols
    expected = {hk.symbols[name] for name, value in hk.constants.items()
                if float(value.magnitude) > 0 and hk.symbols[name].is_positive is not True}
    reasoner = signs.reasoner(hk)
    assert expected and set(reasoner.constants) == expected
    assert reasoner.verdicts is signs.DISK


def test_a_relation_added_after_a_sign_was_asked_is_used_when_the_min_is_met_again():
    z = sympy.Symbol("z", real=True, positive=True)
    d = Declared(symbols=((x, frozenset({"positive"})), (y, frozenset({"positive"})), (z, frozenset({"positive"}))))
    reasoner = SignReasoner(d)
    gap = sympy.Min(x - z, y - z)  # x > z and y > z make both arguments positive; either alone does not
    assert reasoner.sign(gap) is None
    reasoner.add(sympy.StrictGreaterThan(x, z))
    assert reasoner.sign(gap) is None
    reasoner.add(sympy.StrictGreaterThan(y, z))
    assert reasoner.sign(gap) == 1


def test_the_relations_are_put_into_sums_sharing_a_max_as_sympy_xreplace_puts_them():
    z = sympy.Symbol("z", real=True, positive=True)
    d = Declared(symbols=((x, frozenset({"positive"})), (y, frozenset({"positive"})), (z, frozenset({"positive"}))))
    reasoner = SignReasoner(d, [sympy.StrictGreaterThan(x, y + 1), sympy.StrictGreaterThan(z, x)])
    shared = sympy.Max(y + 1, x * z, sympy.Min(x, z - 1))
    for expr in (shared, x + shared, 1 / shared - y, shared * (z - x) + sympy.Max(x, z)):
        assert reasoner._forward(expr) == expr.xreplace(reasoner.forward)


class _PlainForward(SignReasoner):
    """A reasoner putting its relations in with SymPy's ``xreplace`` alone (every Min/Max rebuilt by SymPy each time): the old path."""

    def _forward(self, expr: sympy.Basic) -> sympy.Basic:
        return expr.xreplace(self.forward)


def test_a_condition_over_a_min_is_tidied_as_with_sympy_xreplace_putting_the_relations_in():
    z = sympy.Symbol("z", real=True, positive=True)
    w = sympy.Symbol("w", real=True, positive=True)
    d = Declared(symbols=tuple((s, frozenset({"positive"})) for s in (x, y, z, w)))
    relations = [sympy.StrictGreaterThan(x, y + 1), sympy.StrictGreaterThan(z, x)]
    shared = sympy.Min(x * w / z, (y + w) / (x + z), z * y / (x + w))
    conditions = [sympy.StrictGreaterThan(-shared + sympy.Min(x * w / z, y + 1), 0), sympy.GreaterThan(shared, y / w),
                  sympy.StrictLessThan(x * shared - z, w * sympy.Max(x, y * z)), sympy.LessThan(w - x, y),
                  sympy.StrictGreaterThan(sympy.Max(x + y, w) / (z - y), shared)]
    for var in (None, w, y):
        fast, plain = SignReasoner(d, relations), _PlainForward(d, relations)
        assert fast.forward.keys() == plain.forward.keys() == {x, z}  # the relations rewrite symbols: there is something to put in
        assert [fast.tidy(cond, var) for cond in conditions] == [plain.tidy(cond, var) for cond in conditions]


def test_a_sign_is_refuted_under_the_declarations_and_not_once_a_relation_fixes_it():
    assert SignReasoner(declared()).sign_refuted(x - y)  # x = 1, y = 2 and x = 2, y = 1 are both allowed
    assert not SignReasoner(declared()).sign_refuted(x + y)
    assert not SignReasoner(declared(), [sympy.StrictGreaterThan(x, y)]).sign_refuted(x - y)  # x - y = d > 0 then


def test_a_relation_that_rewrites_a_positive_symbol_keeps_its_declared_sign():
    # y < 2*x is read as y = 2*x - d with d > 0: the rewritten y is no longer positive by its form,
    # yet y is declared positive (the cusp where Volkov's ILP memory bound meets its issue bound was
    # lost so: BW**2/... had no sign once BW < SMs*bytes_per_inst*clock*issue_thru was assumed)
    reasoner = SignReasoner(declared(), [sympy.StrictGreaterThan(2 * x, y)])
    assert reasoner.forward[y] != y  # the relation did rewrite y
    assert reasoner.sign(y) == 1 and reasoner.sign(y**2 / x) == 1
    assert reasoner.sign(y - 2 * x) == -1  # the relation itself still decides
    # tidying cancels the positive factor y**2 (kept as (2*x - d)**2 it was not cancelled)
    assert reasoner.tidy(sympy.LessThan(c * y**2, x * y**2)) == sympy.GreaterThan(x, c)


def test_an_expression_of_constants_alone_has_the_sign_of_their_exact_values():
    # two literal constants, 2 us and 2.001 us in base units (s): positive symbols to SymPy, ordered by their values;
    # (a + b)/2 - m is 0 exactly where m is their midpoint (round 13, F4: the peak of a tent between two cases)
    from fractions import Fraction
    a, b, m = (sympy.Symbol(n, real=True) for n in ("lit_2_us", "lit_2p001_us", "lit_2p0005_us"))
    values = {a: Fraction(2, 10**6), b: Fraction(2001, 10**9), m: Fraction(20005, 10**10)}
    exact = Declared(constants=tuple((s, float(v)) for s, v in values.items()), exact=tuple(values.items()))
    reasoner = SignReasoner(exact)
    assert SignReasoner(Declared(constants=exact.constants)).sign(a - b) is None  # by their signs alone: open
    assert reasoner.sign(a - b) == -1 and reasoner.decide(sympy.GreaterThan(a, b)) is False
    assert reasoner.sign((a + b) / 2 - m) == 0 and reasoner.weak_sign(m - a) == 1
    assert reasoner.copy().decide(sympy.Eq(2 * m, a + b)) is True
    assert reasoner.sign(a - x) is None  # a symbol beside them: no value to decide by


def test_a_models_reasoner_knows_its_literal_constants_exact_values():
    model = symgpu.load(FIXTURES / "narrow_tent.toml")  # x <= 2, x <= 2.0005, x <= 2.001 with x in us: three literals
    lits = {name: model.symbols[name] for name in ("lit_2_us", "lit_2p0005_us", "lit_2p001_us")}
    reasoner = signs.reasoner(model)
    assert reasoner.decide(sympy.StrictLessThan(lits["lit_2_us"], lits["lit_2p001_us"])) is True
    assert reasoner.sign(lits["lit_2_us"] + lits["lit_2p001_us"] - 2 * lits["lit_2p0005_us"]) == 0


def test_a_sign_only_a_large_input_over_small_others_refutes_is_refuted_before_factoring():
    """Hong & Kim's eq23/eq24 switch, ``(I*(C + Cp + U) + M*(C + U) + Ddu*U*(Upm - 1))/(I*(C + Cp + U))``, is negative
    only where Ddu is large and Upm < 1, which the seeded draws, the corner and ``one_large``'s points (Upm at 1)
    miss: ``sample_points.one_large_over_small``'s points show it (checked here by substitution), so
    ``exact_signs.refuted`` answers no sign without factoring -- the verdict the reasoner's factoring path
    (``_sign``) reaches too."""
    from symgpu.proofs import exact_signs, sample_points
    nonnegative = sympy.symbols("Coal_Mem_insts Comp_insts Uncoal_Mem_insts", nonnegative=True)
    positive = sympy.symbols("Departure_del_uncoal Issue_cycles Mem_LD Uncoal_per_mw", positive=True)
    C, Cp, U = nonnegative
    Ddu, I, M, Upm = positive
    expr = (I * (C + Cp + U) + M * (C + U) + Ddu * U * (Upm - 1)) / (I * (C + Cp + U))
    symbols = sample_points.ordered(expr.free_symbols)
    points = list(sample_points.one_large_over_small(symbols, [sample_points.SMALL.admissible(s) for s in symbols]))
    assert {sympy.sign(expr.subs(point)) for point in points} == {-1, 1}
    memo.clear_all()
    assert exact_signs.refuted(expr)
    reasoner = SignReasoner(Declared(symbols=tuple((s, frozenset({"nonnegative"})) for s in nonnegative)
                                     + tuple((s, frozenset({"positive"})) for s in positive)))
    assert reasoner.sign(expr) is None
    assert reasoner._sign(expr) is None  # the factoring path's verdict: the same
