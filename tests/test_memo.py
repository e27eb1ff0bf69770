"""symgpu.memo: bounded memos with names and counts, and the one reset every test and benchmark uses."""

from __future__ import annotations

import gc
import importlib
import importlib.util

import pytest
import sympy

from symgpu import memo
from symgpu.derive import signs
from symgpu.proofs import forms
from symgpu.evaluate import scaling
from symgpu import units
import symgpu


@pytest.fixture
def scratch():
    """Memos made by a test, taken out of the registry afterwards (their names are then free)."""
    made: list[str] = []

    def make(name: str, maxsize: int, **kw) -> memo.Memo:
        made.append(name)
        return memo.Memo(name, maxsize, **kw)

    yield make
    for name in made:
        memo.forget(name)


def test_a_memo_holds_at_most_its_bound_and_is_emptied_when_a_new_key_would_exceed_it(scratch):
    m = scratch("test.bounded", 3)
    for k in range(3):
        m[k] = k * k
    assert len(m) == 3 and list(m) == [0, 1, 2]
    m[1] = 10  # a key already there: replaced, nothing evicted
    assert len(m) == 3 and m[1] == 10
    m[3] = 9  # a fourth key: the memo is emptied first (clear when full)
    assert len(m) == 1 and list(m) == [3]
    for k in range(100):
        m[k] = k
        assert len(m) <= 3


def test_lookups_count_hits_and_misses_and_clear_resets_them(scratch):
    m = scratch("test.counts", 8)
    assert "a" not in m and m.get("a") is None  # two misses
    m["a"] = 1
    assert "a" in m and m.get("a") == 1 and m["a"] == 1  # two hits; [] is not counted
    assert m.setdefault("b", 2) == 2 and m.setdefault("b", 3) == 2  # a miss then a hit
    assert m.stats() == memo.MemoStats("test.counts", 2, 8, 3, 3)
    m.clear()
    assert m.stats() == memo.MemoStats("test.counts", 0, 8, 0, 0)


def test_stats_is_a_frozen_record_per_registered_memo_sorted_by_name(scratch):
    scratch("test.stats", 2)["x"] = 1
    found = memo.stats()
    assert [s.name for s in found] == sorted(s.name for s in found)
    mine = next(s for s in found if s.name == "test.stats")
    assert (mine.size, mine.maxsize) == (1, 2)
    with pytest.raises(AttributeError):
        mine.size = 5  # type: ignore[misc]


def test_a_weak_memo_lets_its_keys_go(scratch):
    class Key:
        pass

    m = scratch("test.weak", 4, weak=True)
    key = Key()
    m[key] = "value"
    assert len(m) == 1
    del key
    gc.collect()
    assert len(m) == 0


@pytest.mark.parametrize(("name", "maxsize", "match"), [
    ("test.zero", 0, "maxsize is 0, but it should be at least 1"),
    ("proofs.signs.verdicts", 4, "exists already"),
])
def test_a_memo_without_room_or_with_a_taken_name_is_refused(name, maxsize, match):
    with pytest.raises(ValueError, match=match):
        memo.Memo(name, maxsize)


def test_memoised_computes_once_per_arguments_and_stays_bounded():
    calls: list[tuple] = []

    @memo.memoised("test.memoised", 2, typed=True)
    def twice(x):
        calls.append((x,))
        return 2 * x

    try:
        assert twice(1) == 2 and twice(1) == 2 and calls == [(1,)]
        assert twice(1.0) == 2.0 and len(calls) == 2  # typed: 1 and 1.0 are different keys
        assert twice(3) == 6 and len(twice.memo) == 1  # a third key empties the memo first
        assert twice.memo.stats() == memo.MemoStats("test.memoised", 1, 2, 1, 3)
    finally:
        memo.forget("test.memoised")


def test_a_tally_counts_until_clear_all_and_is_listed_by_name():
    first, second = memo.Tally("test.tally_b"), memo.Tally("test.tally_a")
    try:
        for _ in range(3):
            first.add()
        second.add()
        found = memo.tallies()
        assert (found["test.tally_b"], found["test.tally_a"]) == (3, 1)
        assert list(found) == sorted(found)
        with pytest.raises(ValueError, match="tally 'test.tally_a' exists already"):
            memo.Tally("test.tally_a")
        memo.clear_all()
        assert memo.tallies()["test.tally_b"] == memo.tallies()["test.tally_a"] == 0
    finally:
        memo.forget("test.tally_b")
        memo.forget("test.tally_a")
    assert "test.tally_a" not in memo.tallies()
    memo.forget("test.tally_a")  # forgetting a name not there is no error


def test_each_expensive_step_is_tallied_once_per_call():
    x = sympy.Symbol("x_tallied", positive=True)
    memo.clear_all()
    forms.factored(x**2 + 2 * x + 1)
    forms.factored(x**2 + 2 * x + 1)  # memoised: no second call
    forms.factored(x**3)  # a monomial: its own factored form
    forms.small_simplify(sympy.sin(x) ** 2 + sympy.cos(x) ** 2)
    done = memo.tallies()
    assert (done["proofs.forms.factor"], done["proofs.forms.simplify"]) == (1, 1)


def test_clear_all_empties_every_registered_memo_filled_through_the_public_api():
    x = sympy.Symbol("x", positive=True)
    model = symgpu.load("occupancy")
    signs.reasoner(model).sign((x + 1) ** 2 - x**2 - 2 * x)
    forms.factored(x**2 + 2 * x + 1)
    scaling.unit_scale(units.registry().Unit("GB/s"))
    filled = {s.name for s in memo.stats() if s.size}
    assert {"proofs.signs.verdicts", "proofs.forms.factored", "evaluate.scaling.unit_scale", "model.catalog.loaded"} <= filled
    memo.clear_all()
    assert all(s.size == 0 and s.hits == s.misses == 0 for s in memo.stats())


def test_each_memo_is_named_after_the_module_it_lives_in():
    for name in [*memo.registered(), *memo.tallies()]:
        if not name.startswith("test."):
            assert importlib.util.find_spec("symgpu." + name.rsplit(".", 1)[0]) is not None, name


@pytest.mark.clears_for_good  # the model must go with the clear: kept to be put back, it would stay
def test_a_models_evaluate_state_is_one_companion_emptied_by_clear_all_and_gone_with_the_model(write_model):
    from symgpu.evaluate.state import ModelState, state_of

    model = symgpu.load(write_model())
    model.evaluate("P", preset="toy", I=10)
    state = state_of(model)
    assert isinstance(state, ModelState) and state.compiled and state_of(model) is state
    assert not hasattr(model, "_compiled")
    memo.clear_all()
    assert state_of(model) is not state and not state_of(model).compiled
    again = model.evaluate("P", preset="toy", I=10)
    assert state_of(model).compiled and again is not None
    states = memo.registered()["evaluate.state.models"]
    assert isinstance(states, memo.Memo)
    held = len(states)
    memo.clear_all()  # the catalog holds the model no more
    state_of(model)
    del model
    gc.collect()
    assert len(states) == 0 < held


def _stats(name: str) -> memo.MemoStats:
    return next(s for s in memo.stats() if s.name == name)


@pytest.mark.clears_for_good  # the model must go with the clear: kept to be put back, it would stay
def test_a_models_expansions_are_counted_by_stats_emptied_by_clear_all_and_gone_with_the_model(write_model):
    model = symgpu.load(write_model())
    memo.clear_all()
    first = model.expression("P")
    assert not hasattr(model, "_expanded")
    assert _stats("model.build.expanded").size == 1 and _stats("model.build.expanded").owners == 1
    assert model.expression("P") is first  # kept: the second call is a hit
    assert _stats("model.build.expanded").hits == 1
    memo.clear_all()
    assert _stats("model.build.expanded") == memo.MemoStats("model.build.expanded", 0, 4096, 0, 0, owners=0)
    assert model.expression("P") == first  # computed again: the same expression
    memo.clear_all()  # the catalog holds the model no more
    model.expression("P")
    held = _stats("model.build.expanded").owners
    del model, first
    gc.collect()
    assert _stats("model.build.expanded").owners == 0 < held


@pytest.fixture
def family():
    """Memo families made by a test, taken out of the registry afterwards."""
    made: list[str] = []

    def make(name: str, maxsize: int, **kw) -> memo.MemoFamily:
        made.append(name)
        return memo.MemoFamily(name, maxsize, **kw)

    yield make
    for name in made:
        memo.forget(name)


class _Owner:
    """A weakly referenceable owner (a model stands here)."""


def test_each_owner_of_a_family_has_its_own_memo_bounded_and_emptied_when_full_alone(family):
    f = family("test.family", 2)
    a, b = _Owner(), _Owner()
    assert isinstance(f.of(a), memo.Memo) and f.of(a) is f.of(a) and f.of(a) is not f.of(b)
    f.of(a)[1] = "a1"
    f.of(a)[2] = "a2"
    f.of(b)[1] = "b1"
    f.of(a)[3] = "a3"  # a's third key empties a's memo only
    assert list(f.of(a)) == [3] and list(f.of(b)) == [1]


def test_a_familys_stats_sum_its_owners_memos_and_clear_all_empties_them_all(family):
    f = family("test.family.stats", 8)
    a, b = _Owner(), _Owner()
    held = f.of(a)
    held["x"] = 1
    f.of(b)["y"] = 2
    f.of(b)["z"] = 3
    assert held.get("x") == 1 and f.of(b).get("w") is None and "y" in f.of(b)  # 2 hits, 1 miss
    assert f.stats() == memo.MemoStats("test.family.stats", 3, 8, 2, 1, owners=2)
    assert _stats("test.family.stats") == f.stats()  # registered: stats() lists the family as one
    memo.clear_all()
    assert len(held) == 0 and f.of(a) is not held  # a holder sees its memo empty; the owner starts afresh
    assert f.stats() == memo.MemoStats("test.family.stats", 0, 8, 0, 0, owners=1)


def test_a_family_lets_its_owners_go_and_refuses_a_bound_below_one_or_a_taken_name(family):
    f = family("test.family.weak", 4)
    owner = _Owner()
    f.of(owner)["k"] = "v"
    assert f.stats().owners == 1
    del owner
    gc.collect()
    assert f.stats().owners == 0 and f.stats().size == 0
    with pytest.raises(ValueError, match="maxsize is 0, but it should be at least 1"):
        memo.MemoFamily("test.family.zero", 0)
    with pytest.raises(ValueError, match="exists already"):
        memo.MemoFamily("test.family.weak", 4)


@pytest.mark.parametrize(("name", "maxsize"), [
    ("evaluate.state.compiled", 4096), ("evaluate.state.rewritten", 50_000), ("evaluate.state.units", 50_000),
    ("model.build.expanded", 4096),
    ("model.build.substituted", 4096), ("model.build.reachable", 4096), ("derive.request_keys.keys", 4096),
    ("report.plot_values.functions", 2048), ("report.latex.printed", 8192), ("report.latex.printers", 64),
])
def test_every_growing_per_model_mapping_is_a_registered_memo_family_with_its_bound(name, maxsize):
    importlib.import_module("symgpu." + name.rsplit(".", 1)[0])
    found = memo.registered()[name]
    assert isinstance(found, memo.MemoFamily) and found.maxsize == maxsize


def test_a_models_evaluate_state_holds_members_of_the_compiled_and_rewritten_families(write_model):
    from symgpu.evaluate.state import state_of

    model = symgpu.load(write_model())
    memo.clear_all()
    model.evaluate("P", preset="toy", I=10)
    scaling.base_expression(model, model.expression("P"))
    state = state_of(model)
    assert isinstance(state.compiled, memo.Memo) and isinstance(state.rewritten, memo.Memo)
    assert _stats("evaluate.state.compiled").size == len(state.compiled) > 0
    assert _stats("evaluate.state.rewritten").size == len(state.rewritten) > 0
    memo.clear_all()
    assert len(state.compiled) == len(state.rewritten) == 0


def _held(m: memo.Memo) -> dict:
    """A memo's entries, read without counting a lookup (``memo[key]`` counts none)."""
    return {key: m[key] for key in m}


def test_undoing_clears_puts_back_each_memo_and_tally_as_it_was_before_the_clear_and_drops_what_came_after(scratch):
    plain, weak = scratch("test.undo.plain", 8), scratch("test.undo.weak", 8, weak=True)
    owner = _Owner()
    plain["a"], plain["b"], weak[owner] = 1, 2, "w"
    assert plain.get("a") == 1 and "z" not in plain and plain.get("y") is None  # 1 hit, 2 misses
    tally = memo.Tally("test.undo.tally")
    try:
        tally.add()
        tally.add()
        before = (_held(plain), plain.stats(), _held(weak), weak.stats(), memo.tallies()["test.undo.tally"])
        with memo.undoing_clears():
            memo.clear_all()  # the block's test starts cold
            assert len(plain) == len(weak) == 0 and plain.stats().hits == 0 and memo.tallies()["test.undo.tally"] == 0
            plain["c"], weak[owner] = 3, "new"  # filled during the block: dropped at its end
            assert "c" in plain
            tally.add()
            memo.clear_all()  # a second clear: the first one's state is what comes back
            plain["d"] = 4
        assert (_held(plain), plain.stats(), _held(weak), weak.stats(), memo.tallies()["test.undo.tally"]) == before
        assert before[0] == {"a": 1, "b": 2} and before[1] == memo.MemoStats("test.undo.plain", 2, 8, 1, 2)
    finally:
        memo.forget("test.undo.tally")


def test_undoing_clears_puts_back_a_familys_owners_and_their_very_memos_but_not_an_owner_gone_meanwhile(family):
    f = family("test.undo.family", 8)
    kept, gone = _Owner(), _Owner()
    held = f.of(kept)
    held["x"], f.of(gone)["y"] = 1, 2
    assert held.get("x") == 1 and held.get("q") is None
    with memo.undoing_clears():
        memo.clear_all()
        assert len(held) == 0 and f.of(kept) is not held  # a holder sees its memo empty; the owner starts afresh
        f.of(kept)["during"] = 3
        del gone
        gc.collect()
    assert f.of(kept) is held and _held(held) == {"x": 1}  # the same memo again, as a holder of it still sees it
    assert f.stats() == memo.MemoStats("test.undo.family", 1, 8, 1, 1, owners=1)  # the owner that died stays gone


def test_undoing_clears_empties_a_memo_made_after_the_clear_and_changes_nothing_without_a_clear(scratch):
    before = scratch("test.undo.before", 4)
    with memo.undoing_clears():
        before["kept"] = 1  # no clear in this block: what it puts in stays, as without the block
    assert _held(before) == {"kept": 1}
    with pytest.raises(RuntimeError, match="in the block"), memo.undoing_clears():
        memo.clear_all()
        later = scratch("test.undo.later", 4)
        later["made"] = 2
        raise RuntimeError("in the block")  # the block ends by an exception: undone all the same
    assert _held(before) == {"kept": 1} and len(later) == 0


def test_nested_blocks_each_undo_their_own_clears(scratch):
    m = scratch("test.undo.nested", 8)
    m["outer"] = 1
    with memo.undoing_clears():
        memo.clear_all()
        m["inner"] = 2
        with memo.undoing_clears():
            memo.clear_all()
            m["innermost"] = 3
        assert _held(m) == {"inner": 2}
    assert _held(m) == {"outer": 1}


def test_every_test_runs_in_a_block_torn_down_after_its_other_fixtures(request, empty_store):
    # fixtures are torn down in the reverse order of their set-up: the environment (monkeypatch, set by empty_store)
    # is restored before the memos are put back
    names = request.fixturenames
    assert names.index("_clears_undone") < min(names.index("monkeypatch"), names.index("empty_store"))
