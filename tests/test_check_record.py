"""A warm load (issue 31): a record in the store that a model's definition passed every load-time check lets
a later process skip the checks and build each equation when first read; the model it gets is the one the
checked build gives, and a record that does not match exactly (tampered, forged, another body, a file
changed on disk) is ignored: the checks run and give the same errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import errors, memo, store
from symgpu.entry_kinds import CHECKED
from symgpu.model import Model, check_record, loader
from symgpu.model.records import LazyEquations

REPO = Path(__file__).resolve().parent.parent
#: the bundled models compared part by part, warm against checked
BUNDLED = ("volkov_2016", "hong_kim_2009", "occupancy", "mdm_2019", "interval_analysis")


@pytest.fixture
def empty_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh cache folder, nothing read from the store yet in this process."""
    monkeypatch.setenv("SYMGPU_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SYMGPU_NO_CACHE", raising=False)
    memo.clear_all()
    return tmp_path / "cache"


def checks_run() -> int:
    return memo.tallies()["model.build.checked"]


def build(path: Path) -> Model:
    """The model of ``path`` built as a new process would build it (nothing kept in memory)."""
    memo.clear_all()
    return Model(loader.read_definition(path))


def record_files(cache: Path) -> list[Path]:
    return sorted((cache / store.folder().name / "checked").rglob("*.txt")) if cache.exists() else []


def parts(model: Model) -> dict[str, str]:
    """Everything a built model holds that a question reads, as text (SymPy trees by ``srepr``)."""
    out = {"quantities": repr(model.quantities), "symbols": sympy.srepr(tuple(model.symbols.values())),
           "units": repr(model.units), "constants": repr(model.constants), "presets": repr(model.presets),
           "literals": repr(model.literal_constants), "plots": repr(model.plots),
           "validation": repr(model.validation_inputs), "defining": repr(list(model.defining))}
    for name, eq in model.equations.items():
        out[name] = sympy.srepr((eq.lhs, eq.rhs, tuple((c.id, c.condition, c.value) for c in eq.cases),
                                 tuple(eq.limiters), eq.valid_when)) + repr(eq.definition)
    return out


@pytest.mark.parametrize("model_id", BUNDLED)
def test_a_warm_build_skips_the_checks_and_gives_the_checked_model(empty_store: Path, model_id: str) -> None:
    path = loader.resolve(model_id)
    with store.using(store.Settings(enabled=False)):
        checked = build(path)
        assert checks_run() == 1 and not isinstance(checked.equations, LazyEquations)
    build(path)  # the cold build of the first process, whose record the flush writes
    assert store.flush() >= 1 and len(record_files(empty_store)) == 1
    warm = build(path)
    assert checks_run() == 0
    assert isinstance(warm.equations, LazyEquations) and isinstance(warm.defining, LazyEquations)
    assert parts(warm) == parts(checked)


@pytest.mark.parametrize("model_id", ("volkov_2016", "hong_kim_2009"))
def test_a_warm_model_builds_only_the_equations_a_question_reads(empty_store: Path, model_id: str) -> None:
    path = loader.resolve(model_id)
    build(path)
    store.flush()
    warm = build(path)
    built = warm.equations._built  # noqa: SLF001 (what the lazy view has built so far)
    assert built == {}  # not one, not even for the plots' checks (they passed)
    quantity = warm.quantities[0]
    needed = {eq.id for eq in warm.dependencies(quantity)}
    assert set(built) == needed and len(needed) < len(warm.quantities)
    assert warm.equations[next(iter(needed))] is warm.defining[warm.equations[next(iter(needed))].definition.defines]


def test_a_tampered_or_forged_record_is_ignored_and_the_checks_run(empty_store: Path, write_model) -> None:
    path = write_model()
    build(path)
    store.flush()
    (record,) = record_files(empty_store)
    head, body = record.read_text(encoding="utf-8").split("\n", 1)
    assert body == check_record.PASSED
    for text in (f"{head}\n{check_record.PASSED} ", f"{'0' * len(head)}\n{check_record.PASSED}", f"{head}\nok", ""):
        record.write_text(text, encoding="utf-8")
        build(path)
        assert checks_run() == 1, text
        store.flush()  # the cold build's own record, written again
    build(path)
    assert checks_run() == 0
    # an authentic record (written by symgpu) whose body is no verdict: ignored too
    store.put(CHECKED, check_record.key(loader.read_definition(path)), check_record.PASSED + "\n")
    build(path)
    assert checks_run() == 1


def test_a_model_file_changed_on_disk_is_checked_again_and_refused_as_a_cold_load_refuses_it(empty_store: Path, write_model) -> None:
    path = write_model()
    build(path)
    store.flush()
    build(path)
    assert checks_run() == 0  # warm
    write_model(rhs="Min(P_peak, B)")  # B/s beside FLOP/s
    with store.using(store.Settings(enabled=False)):
        with pytest.raises(errors.UnitMismatchError) as cold:
            build(path)
    with pytest.raises(errors.UnitMismatchError) as warm:
        build(path)
    assert checks_run() == 1 and str(warm.value) == str(cold.value) and "B/s" in str(cold.value)
    store.flush()
    assert len(record_files(empty_store)) == 1  # a file that fails its checks is never remembered
    with pytest.raises(errors.UnitMismatchError) as again:
        build(path)
    assert str(again.value) == str(cold.value)


def test_symgpu_load_imports_neither_the_derivation_engine_nor_the_evaluator() -> None:
    code = ("import sys, symgpu; symgpu.load('occupancy'); "
            "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith(('symgpu.derive', 'symgpu.evaluate'))}))")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert symgpu.load("occupancy").evaluate  # the methods import them when asked
