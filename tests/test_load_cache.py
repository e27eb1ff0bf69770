"""What model loading keeps in the store (Min/Max verdicts, parsed TOML, that the model passed its checks) gives back exactly what
building afresh gives."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu.model import loader, substitution
from symgpu.proofs import unordered
from symgpu import memo, store
from symgpu.entry_kinds import CHECKED, MINMAX, TOML


def test_a_kept_min_max_verdict_builds_what_sympy_builds(monkeypatch: pytest.MonkeyPatch, empty_store) -> None:
    a, b = sympy.symbols("a_kept b_kept", positive=True)
    # a cube root is outside the cheap proof's arithmetic (rationals and square roots): it leaves both to SymPy (and the store)
    kept, dominated = (a, 2 * sympy.cbrt(b) + 1), (a, a + sympy.cbrt(b))
    assert not unordered.keeps_every_argument(kept) and not unordered.keeps_every_argument(dominated)
    first = substitution.min_max(sympy.Min, kept)
    assert substitution.min_max(sympy.Min, dominated) == a
    substitution.save()
    # a later process: the verdict comes from the store, and only for the undominated arguments
    memo.clear_all()
    assert len(substitution.settled()) == 1
    again = substitution.min_max(sympy.Min, kept)
    assert again is not first and sympy.srepr(again) == sympy.srepr(first) == sympy.srepr(sympy.Min(*kept))
    assert substitution.min_max(sympy.Min, dominated) == a


#: a Min whose arguments the cheap proof cannot evaluate (a cube root) and SymPy keeps, nested in one it collapses
STORED_RHS = "Min(P_peak, (I*B*P_peak**2)**(1/3), Max(I*B, (I*B*P_peak**2)**(1/3)))"


def test_models_built_from_kept_verdicts_equal_models_built_afresh(monkeypatch: pytest.MonkeyPatch, empty_store,
                                                                   write_model) -> None:
    paths = [write_model(rhs=STORED_RHS), *(loader.resolve(m) for m in ("hong_kim_2009", "volkov_2016", "occupancy"))]
    for path in paths:
        afresh = symgpu.model.Model(loader.read_definition(path))
        memo.clear_all()
        kept = symgpu.model.Model(loader.read_definition(path))
        assert len(substitution.settled()) > 0
        for name, equation in afresh.equations.items():
            assert sympy.srepr(kept.equations[name].rhs) == sympy.srepr(equation.rhs), f"{path}: {name}"


def test_a_kept_parse_of_a_model_file_reads_back_the_same_definition(monkeypatch: pytest.MonkeyPatch, empty_store) -> None:
    for model_id in symgpu.list_models():
        path = loader.resolve(model_id)
        monkeypatch.setenv("SYMGPU_NO_CACHE", "1")
        direct = loader.read_definition(path)
        monkeypatch.delenv("SYMGPU_NO_CACHE")
        first = loader.read_definition(path)  # parses and keeps (in memory until flushed)
        store.flush()
        assert list(empty_store.rglob("*.txt")), "nothing was kept"
        assert loader.read_definition(path) == first == direct, model_id


def test_a_kept_parse_that_is_damaged_is_ignored(empty_store, write_model) -> None:
    path = write_model()
    first = loader.read_definition(path)
    store.flush()
    entries = list(empty_store.rglob("*.txt"))
    assert entries, "nothing was kept"
    for entry in entries:
        entry.write_text("garbage", encoding="utf-8")
    assert loader.read_definition(path) == first


@pytest.mark.parametrize("body", ['{"model": null}', '{"model": {"id": "a", "id": "b"}}', "[1, 2]"])
def test_a_kept_parse_with_a_valid_checksum_but_not_toml_shaped_is_ignored(empty_store, write_model, body) -> None:
    """An entry rewritten with a correct checksum but a body TOML cannot give (a null, a repeated
    key, no table at the top) is parsed again from the file, not blamed on it."""

    path = write_model()
    first = loader.read_definition(path)
    store.flush()
    entries = [e for e in empty_store.rglob("*.txt") if TOML.name in e.parts]
    assert entries, "nothing was kept"
    for entry in entries:
        key = entry.read_text(encoding="utf-8").split("\n", 1)[0].split()[-2]
        store.put(TOML, key, body)
        assert store.get(TOML, key) == body  # the checksum is valid
    assert loader.read_definition(path) == first


def _snapshot(folder) -> dict[str, int]:
    """Every path under ``folder`` with its modification time (ns)."""
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in sorted(folder.rglob("*"))}


def test_loading_a_model_writes_nothing_to_the_cache_folder(empty_store, write_model) -> None:
    path = write_model(rhs=STORED_RHS)
    before = _snapshot(empty_store)
    # cold, for a question: parses and builds what it reads (here every equation, so the checks left run too), and cold,
    # whole (as `symgpu check` builds it): each keeps what it found in memory only
    symgpu.load(path).expression("P")
    symgpu.load(path, whole=True)
    assert _snapshot(empty_store) == before and not list(empty_store.rglob("*.txt"))
    assert store.pending() > 0
    assert store.flush() > 0  # the command line does this after a command's work
    kinds = {p.relative_to(store.folder()).parts[0] for p in empty_store.rglob("*.txt")}
    assert kinds == {TOML.name, MINMAX.name, CHECKED.name}
    # warm: the entries are read, and nothing is written, touched or added
    memo.clear_all()
    before = _snapshot(empty_store)
    symgpu.load(path)
    symgpu.load("hong_kim_2009")
    assert _snapshot(empty_store) == before


def test_load_without_cache_reads_no_entry(empty_store, write_model) -> None:
    """An authentic entry that says another peak is used by ``load`` and ignored by ``load(..., cache=False)``."""
    import hashlib
    import json
    import sys
    import tomllib

    path = write_model()
    raw = path.read_bytes()
    other = tomllib.loads(raw.decode("utf-8").replace('P_peak = "100 TFLOP/s"', 'P_peak = "1 TFLOP/s"'))
    store.put(TOML, store.digest(TOML.version, sys.version, hashlib.sha256(raw).hexdigest()), json.dumps(other))
    store.flush()
    memo.clear_all()
    assert str(symgpu.load(path, cache=False).presets["toy"]["P_peak"]) == "100000000000000.0 FLOP / s"
    assert store.pending() == 0
    memo.clear_all()
    assert str(symgpu.load(path).presets["toy"]["P_peak"]) == "1000000000000.0 FLOP / s"
