"""Whole derivations in the on-disk cache: a hit equals the computed derivation, an altered or
forged entry is recomputed (nothing in it is executed), ``--no-cache`` reads and writes
nothing; and the cheap sign refutation only ever answers "undecided" with a proof."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import memo, store
from symgpu.entry_kinds import DERIVATIONS
from symgpu.cli import app
from symgpu.derive import request_keys, requests, signs, stored
from symgpu.proofs import exact_signs
from conftest import tiny_text


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    return tmp_path


def _entries() -> list[Path]:
    folder = store.folder() / DERIVATIONS.name
    return sorted(folder.rglob("*.txt")) if folder.is_dir() else []


def _computed() -> int:
    """Derivations computed in this process since the last memo.clear_all() (every operation starts a job)."""
    return memo.tallies()["derive.jobs.started"]


@pytest.mark.parametrize("model_id, request_id", [
    ("perez_piccoli", "pipes_times_depth"),  # simplify
    ("mdm_2019", "M_md_regime"),  # regimes (Regime objects with their raw conditions)
    ("mdm_2019", "S_MSHR_jump"),  # limit: steps with relations and labels
    ("volkov_2016", "cusp_alu_form"),  # extremum: Derivative(f(alpha), alpha) in its steps
])
def test_a_cache_hit_is_the_derivation_computed(cache, model_id, request_id):
    model = symgpu.load(model_id)
    memo.clear_all()
    fresh = requests.request(model, request_id)
    assert len(_entries()) == 1
    computed = _computed()
    assert computed > 0
    hit = requests.request(model, request_id)
    assert _computed() == computed, "computed although its derivation is cached"
    assert hit == fresh
    assert hit.to_dict() == fresh.to_dict()
    assert hit.regimes == fresh.regimes
    assert requests.expect_holds(hit) is requests.expect_holds(fresh)


def test_the_regimes_command_is_served_from_the_cache(cache, capsys):
    argv = ["regimes", "interval_analysis", "t_P", "--over", "P", "--full"]
    memo.clear_all()
    assert app.main(argv) == 0
    cold = capsys.readouterr().out
    assert len(_entries()) == 1
    computed = _computed()
    assert computed > 0
    assert app.main(argv) == 0
    assert capsys.readouterr().out == cold
    assert _computed() == computed, "regimes were split although they are cached"


def test_the_api_regimes_is_cached_under_its_options(cache):
    model = symgpu.load("mdm_2019")
    memo.clear_all()
    fresh = model.regimes("M")
    with_over = model.regimes("M", over="W")
    assert len(_entries()) == 2  # other options, another entry
    computed = _computed()
    assert computed == 2
    assert model.regimes("M") == fresh
    assert model.regimes("M", over="W") == with_over
    assert model.regimes("M").regimes == fresh.regimes
    assert _computed() == computed, "computed although cached"


def test_logic_left_unsimplified_by_sympy_is_rebuilt_as_written(cache):
    # SymPy's own rewriting (DNF, piecewise folding) can leave a tautology such as
    # ``Eq(r, 0) | a >= b | a < b`` inside a condition; Or(..., evaluate=False) would fold it to True
    model = symgpu.load("occupancy")
    # NOTE: loaded before the condition is built: a model load fills SymPy's bounded cache, and the
    # hand-built Or below (from _from_args, as SymPy's rewriting leaves it) must still be found there
    fresh = requests.request(symgpu.load("perez_piccoli"), "pipes_times_depth")
    r, a, b = (model.symbol(n) for n in ("regs_per_thread", "max_smem_per_block", "smem_per_block"))
    parts = (sympy.Eq(r, 0), sympy.GreaterThan(a, b), sympy.StrictLessThan(a, b))
    assert sympy.Or(*parts, evaluate=False) is sympy.true
    left = sympy.Or._from_args(parts)
    condition = sympy.And._from_args((left, sympy.Ne(r, 0)))
    derivation = type(fresh)("occupancy", "regimes", "x", "", (), sympy.Piecewise((r, condition), (0, True), evaluate=False))
    text = stored.dump(model, derivation)
    assert text is not None
    back = stored.load(model, text)
    assert back == derivation
    (pair, _) = back.result.args
    assert pair.cond.args == condition.args and type(pair.cond.args[0]) is sympy.Or
    assert sympy.Or.make_args(pair.cond.args[0]) == frozenset(parts)


def test_an_altered_entry_is_recomputed(cache):
    model = symgpu.load("perez_piccoli")
    fresh = requests.request(model, "pipes_times_depth")
    (path,) = _entries()
    path.write_text(path.read_text(encoding="utf-8").replace("N_PPipe", "L_Pipe"), encoding="utf-8")
    again = requests.request(model, "pipes_times_depth")
    assert again == fresh
    assert "N_PPipe" in path.read_text(encoding="utf-8")  # overwritten with the recomputed entry


@pytest.mark.parametrize("forged", [
    '{"expr": "__import__(\'os\').system(\'false\')", "names": [], "boolean": false}',
    '{"split": ["eval", ["1"]]}',
    '{"float": [0, "1", 0, 1, 99999999]}',
    '{"pickle": "gASVAAAAAAAAAAA="}',
    # a number to a huge power: evaluating it would hang the reader
    '{"evaluated": ["Pow", [{"expr": "98765432109876543210", "names": [], "boolean": false}, '
    '{"expr": "12345678901234567890", "names": [], "boolean": false}]]}',
])
def test_an_authentic_entry_with_a_hostile_body_is_still_refused_by_the_parser_and_recomputed(cache, forged):
    """Defence in depth: even an entry that carries a valid key (written through ``store.put``,
    which an attacker without the key cannot do) is read only by the whitelist parser."""
    model = symgpu.load("perez_piccoli")
    fresh = requests.request(model, "pipes_times_depth")
    (path,) = _entries()
    key = path.stem
    body = path.read_text(encoding="utf-8").partition("\n")[2]
    start = body.index('"result": ') + len('"result": ')
    end = body.index(', "steps"')
    body = body[:start] + forged + body[end:]
    store.put(DERIVATIONS, key, body)
    assert store.get(DERIVATIONS, key) == body  # the entry is authentic: only the parser stands in the way
    assert stored.load(model, body) is None
    assert requests.request(model, "pipes_times_depth") == fresh


def test_the_key_follows_the_model_content(tmp_path):
    def model(folder: str, peak: str) -> symgpu.Model:
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "tiny.toml"
        path.write_text(tiny_text(peak=peak), encoding="utf-8")
        return symgpu.load(path)

    one, two, same = model("a", "100 TFLOP/s"), model("b", "200 TFLOP/s"), model("c", "100 TFLOP/s")
    parts = ("request", "preset toy, quantity P")  # a request that names the preset and the quantity
    assert request_keys.request_key(one, parts) != request_keys.request_key(two, parts)
    assert request_keys.request_key(one, parts) == request_keys.request_key(same, parts)


def test_no_cache_writes_no_derivation(cache, monkeypatch, capsys):
    monkeypatch.setenv(store.NO_CACHE_ENV, "")
    assert app.main(["--no-cache", "derive", "perez_piccoli", "pipes_times_depth"]) == 0
    assert _entries() == []
    monkeypatch.delenv(store.NO_CACHE_ENV)
    assert app.main(["derive", "perez_piccoli", "pipes_times_depth"]) == 0
    assert len(_entries()) == 1
    capsys.readouterr()


def test_a_derivation_with_dummy_symbols_is_not_stored(cache):
    model = symgpu.load("perez_piccoli")
    fresh = requests.request(model, "pipes_times_depth")
    with_dummy = type(fresh)(fresh.model, fresh.operation, fresh.quantity, fresh.variable, fresh.steps,
                             sympy.Dummy("d", positive=True))
    assert stored.dump(model, fresh) is not None
    assert stored.dump(model, with_dummy) is None


def test_a_symbol_the_format_cannot_hold_is_refused_inside_split_entries(cache):
    # symbols are checked where an expression is written as text: inside a Piecewise and a
    # condition written as its parts, the odd symbol is still found at the text entry it ends in
    model = symgpu.load("perez_piccoli")
    fresh = requests.request(model, "pipes_times_depth")
    d = sympy.Dummy("d", positive=True)
    odd = sympy.Symbol("x_odd", positive=True)  # a plain name but with assumptions: not a label
    value = fresh.result
    hidden = [sympy.Piecewise((value, sympy.And(value > d, value < 7)), (value + 1, True)),
              sympy.Piecewise((value, value > 1), (odd, True)),
              sympy.Tuple(value, sympy.Or(value > 2, sympy.Eq(value, d)))]
    for result in hidden:
        assert stored.dump(model, type(fresh)(fresh.model, fresh.operation, fresh.quantity, fresh.variable, fresh.steps, result)) is None
    plain = sympy.Piecewise((value, sympy.And(value > sympy.Symbol("label"), value < 7)), (value + 1, True))
    assert stored.dump(model, type(fresh)(fresh.model, fresh.operation, fresh.quantity, fresh.variable, fresh.steps, plain)) is not None


# ------------------------------------------------------------------ sign refutation
x, y = sympy.Symbol("x", positive=True), sympy.Symbol("y", positive=True)
n = sympy.Symbol("n", positive=True, integer=True)


def test_opposite_signs_at_admissible_points_refute_a_sign():
    assert exact_signs.refuted(x - y)
    assert exact_signs.refuted(x - sympy.Rational(1, 2))  # x = 1 and x = 1/3 are both allowed


def test_a_difference_that_one_input_outgrows_is_refuted():
    a = sympy.Symbol("a", nonnegative=True)
    b, c = sympy.Symbol("b", positive=True), sympy.Symbol("c", positive=True)
    # Huang's (alpha + 1)*(alu_lat - 1)/(alpha*alu_lat + mem_lat) - 1 = (b - a - c - 1)/(a*b + c):
    # negative at b = 1, positive only where b outgrows a + c + 1 (b = 4096, a = c = 1: 4093/4097),
    # which none of the seeded draws of small values reaches
    assert exact_signs.refuted((a + 1) * (b - 1) / (a * b + c) - 1)


def test_an_expression_of_one_sign_is_never_refuted():
    assert not exact_signs.refuted(x + y)
    assert not exact_signs.refuted(n - sympy.Rational(1, 2))  # n >= 1: the integer assumption is respected
    assert not exact_signs.refuted(sympy.floor(x / y) + 1)


def test_known_positive_expressions_restrict_the_points():
    # with x - y known positive, x - y never changes sign, though it does without it
    assert exact_signs.refuted(x - y)
    assert not exact_signs.refuted(x - y, (x - y,))


def test_a_refuted_sign_is_undecided_by_the_reasoner(ia):
    reasoner = signs.reasoner(ia)
    assert reasoner.sign(x - y) is None
    assert reasoner.sign(x + y) == 1
