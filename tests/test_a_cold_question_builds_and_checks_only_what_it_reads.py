"""A question's cold load (issue 31: "parse and build only what the question needs"): with no record that the model
passed, ``symgpu.load`` builds each equation when first read, with the equations it is defined through, and checks
each as it is built (its dimensions, the chains from it free of cycles and not too long), with the message the whole
check gives. A defect in a part no question reads is left to ``symgpu check``, ``validate`` and the reports, which
build models whole; a model whose bare literals become constants is built whole; the equations are the ones the
whole build gives, and a cold lazy load keeps no record that the model passed."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

import symgpu
from conftest import FIXTURES, tiny_text
from symgpu import errors, memo, store
from symgpu.model import Model, lazy_build, loader, schema
from symgpu.model.records import LazyEquations
from symgpu.units import literal_units

#: an equation the tiny model's P never reads, in B/s written as FLOP/s
UNREAD_BAD = '''
[symbols.Q]
description = "a quantity no question about P reads"
unit = "FLOP/s"
role = "intermediate"

[[equations]]
id = "unread"
defines = "Q"
rhs = "B"
source = { ref = "toy2026", locator = "Eq. (2)" }
'''


def whole_and_lazy(path: Path) -> tuple[Model, Model]:
    """The model of ``path`` built whole and built for a question, with no record (the cache off)."""
    definition = loader.read_definition(path)
    with store.using(store.Settings(enabled=False)):
        return Model(definition), Model(definition, whole=False)


def built(model: Model) -> set[str]:
    """The ids of the equations a lazy model has built so far."""
    assert isinstance(model.equations, LazyEquations)
    return set(model.equations._built)  # noqa: SLF001 (what the lazy view has built)


def equation_text(equation: object) -> str:
    return sympy.srepr(tuple(getattr(equation, field) for field in ("lhs", "rhs", "cases", "limiters", "valid_when", "assumes")))


@pytest.mark.parametrize("model_id", loader.list_models())
def test_the_lazy_and_whole_builds_give_srepr_equal_equations_for_every_shipped_model(model_id: str) -> None:
    whole, lazy = whole_and_lazy(loader.resolve(model_id))
    assert isinstance(lazy.equations, LazyEquations) and built(lazy) == set()
    assert list(lazy.equations) == list(whole.equations) and list(lazy.defining) == list(whole.defining)
    for key, equation in whole.equations.items():
        assert equation_text(lazy.equations[key]) == equation_text(equation) and lazy.equations[key].definition == equation.definition
    assert lazy.defining.keys() == whole.defining.keys()
    assert all(lazy.defining[name] is lazy.equations[eq.id] for name, eq in whole.defining.items())
    assert (repr(lazy.presets), repr(lazy.constants), repr(lazy.plots), lazy.literal_constants, lazy.quantities) == \
        (repr(whole.presets), repr(whole.constants), repr(whole.plots), whole.literal_constants, whole.quantities)
    assert repr(lazy.validation_inputs) == repr(whole.validation_inputs)  # read when asked, as the whole build read them


def test_a_question_builds_only_the_equations_its_quantity_is_defined_through() -> None:
    _, lazy = whole_and_lazy(loader.resolve("volkov_2016"))
    quantity = "n_needed"
    lazy.expression(quantity)
    needed = {eq.id for eq in lazy.dependencies(quantity)}
    assert built(lazy) == needed and len(needed) < len(lazy.quantities)


def test_a_cold_question_on_a_model_with_a_bad_unread_equation_answers_and_check_reports_it(  # type: ignore[no-untyped-def]
        write_model, cli, refused_whole) -> None:
    path = write_model(tiny_text() + UNREAD_BAD)
    code, out, err = cli("eval", path, "P", "-p", "toy", "--set", "I=10")
    assert (code, out, err) == (0, "P = 2e+13 FLOP/s\n", "")
    refused = refused_whole(path, errors.UnitMismatchError, r"equation unread: 'B' has dimension \[information\]/\[time\], but Q is")
    code, out, err = cli("eval", path, "Q", "-p", "toy")  # a question that reads it: the same message
    assert (code, out, err) == (2, "", f"symgpu: error: {refused}\n")


def test_a_bad_equation_read_through_another_fails_with_the_whole_checks_message(write_model, refused_whole) -> None:  # type: ignore[no-untyped-def]
    path = write_model(tiny_text(rhs="Min(P_peak, I*B, Q)") + UNREAD_BAD)
    refused = refused_whole(path, errors.UnitMismatchError)
    model = symgpu.load(path)
    for _ in range(2):  # every read fails: nothing half-checked is kept
        with pytest.raises(errors.UnitMismatchError) as read:
            model.expression("P")
        assert str(read.value) == str(refused) and "equation unread:" in str(refused)
    assert built(model) == set()


def _ring(tmp_path: Path, length: int) -> Path:
    """The tiny model and x0 using x1, ..., the last using x0: a cycle of ``length`` equations that P does not read."""
    text = tiny_text() + "".join(f'\n[symbols.x{i}]\ndescription = "x"\nunit = "B/s"\nrole = "intermediate"\n' for i in range(length))
    text += "".join(f'\n[[equations]]\nid = "e{i}"\ndefines = "x{i}"\nrhs = "x{(i + 1) % length} + B"\n'
                    'source = { ref = "toy2026", locator = "x" }\n' for i in range(length))
    path = tmp_path / "tiny.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("length", [2, 1500])  # 1500: deeper than Python's stack of 1000 frames
def test_a_cycle_read_fails_cleanly_with_the_cycle_named_and_check_reports_it(tmp_path: Path, refused_whole, length: int) -> None:  # type: ignore[no-untyped-def]
    path = _ring(tmp_path, length)
    refused = refused_whole(path)
    loop = " -> ".join(f"x{i % length}" for i in range(length + 1))
    assert (refused.where, refused.problem) == ("equation e0", f"equations form a cycle: {loop}")
    assert refused.hint == "an implicit relation must keep one side as an input symbol (see the fixed-point derivation)"
    model = symgpu.load(path)
    assert model.evaluate("P", "toy", I=10).to("TFLOP/s").magnitude == pytest.approx(20)  # P reads no x
    for _ in range(2):
        with pytest.raises(errors.ModelFileError) as read:  # not a RecursionError, not a hang
            model.expression("x0")
        assert str(read.value) == str(refused)
    with pytest.raises(errors.ModelFileError) as other:
        model.expression("x1")  # read from elsewhere on the ring: the cycle from there
    loop = " -> ".join(f"x{i % length}" for i in range(1, length + 2))
    assert (other.value.where, other.value.problem, other.value.hint) == ("equation e1", f"equations form a cycle: {loop}", refused.hint)


def records(cache: Path) -> list[Path]:
    """The check records in the cache folder."""
    folder = cache / store.folder().name / "checked"
    return sorted(folder.rglob("*.txt")) if folder.exists() else []


def test_a_cold_lazy_load_keeps_no_record_and_a_whole_one_does(empty_store: Path, write_model) -> None:  # type: ignore[no-untyped-def]
    path = write_model(tiny_text() + UNREAD_BAD.replace('rhs = "B"', 'rhs = "P_peak/2"'))  # a sound equation P does not read
    model = symgpu.load(path)
    assert model.evaluate("P", "toy", I=10).to("TFLOP/s").magnitude == pytest.approx(20)
    store.flush()
    assert records(empty_store) == [] and built(model) == {"attainable"}
    symgpu.load(path, whole=True)
    store.flush()
    assert len(records(empty_store)) == 1


def test_a_question_that_reads_every_equation_runs_the_checks_left_and_keeps_the_record(empty_store: Path, write_model) -> None:  # type: ignore[no-untyped-def]
    path = write_model(tiny_text() + UNREAD_BAD.replace('rhs = "B"', 'rhs = "P_peak/2"'))
    model = symgpu.load(path)
    model.expression("P")
    store.flush()
    assert records(empty_store) == []
    model.expression("Q")  # the last equation: validation cases and plots are checked, and they pass
    store.flush()
    assert len(records(empty_store)) == 1
    memo.clear_all()
    warm = symgpu.load(path)
    assert memo.tallies()["model.build.checked"] == 0 and built(warm) == set()  # the next process: warm, nothing checked again
    assert warm.evaluate("Q", "toy").to("TFLOP/s").magnitude == pytest.approx(50)


def test_a_question_that_reads_every_equation_keeps_no_record_where_an_unread_part_fails(  # type: ignore[no-untyped-def]
        empty_store: Path, write_model) -> None:
    case = '\n[[validation]]\nid = "bad"\npreset = "nope"\nexpect = { P = "1 TFLOP/s" }\nsource = { ref = "toy2026", locator = "x" }\n'
    path = write_model(tiny_text() + case)
    model = symgpu.load(path)
    assert model.evaluate("P", "toy", I=10).to("TFLOP/s").magnitude == pytest.approx(20)  # the question answers
    store.flush()
    assert records(empty_store) == []
    with pytest.raises(errors.ModelFileError, match=r"validation bad\.preset: unknown preset 'nope'"):
        model.validation_inputs  # and the case fails where it is read


def _literal_fixtures() -> list[Path]:
    return sorted(FIXTURES.glob("*.toml")) + [loader.resolve(m) for m in loader.list_models()]


def test_no_equation_that_makes_a_literal_constant_is_cleared_by_the_text_scan() -> None:
    made = 0
    for path in _literal_fixtures():
        try:
            whole, lazy = whole_and_lazy(path)
        except errors.ModelFileError:
            continue  # a fixture refused on purpose
        # every symbol where the model's literals of scale 1 are made constants too (its units give a dimension two scales)
        every = not literal_units.scale_follows_dimension([u for n, u in whole.units.items() if not n.startswith("lit_")])
        scaled = {n for n, u in whole.units.items() if every or not literal_units.same_scale(literal_units.unit_scale(u), 1.0)}
        for constant in whole.literal_constants:
            for equation in constant.equations:
                made += 1
                assert lazy_build.may_make_literal(whole.equations[equation].definition, whole.symbols, scaled), (path, equation)
        if whole.literal_constants:  # read lazily for a question too: those the scan keeps built first make every constant
            assert isinstance(lazy.equations, LazyEquations) and lazy.literal_constants == whole.literal_constants
            assert [equation_text(e) for e in lazy.equations.values()] == [equation_text(e) for e in whole.equations.values()]
    assert made >= 10  # the scaled-literal fixtures were among them


@pytest.mark.parametrize(("rhs", "extra", "may"), [
    ("Min(L, 200)", "", True),         # a number beside L in ns
    ("Min(L, c0)", "", False),         # names only, one with a digit
    ("2*L", "", True),                 # a number (it makes no constant: a product, but the scan does not look)
    ("Min(L, K)", "", False),
    ("Min(L, K)", "1 + K", True),      # a number in a condition
    ("Min(L, K)", "True", True),       # a literal that is no number
    ("Min(L, ｃ0)", "", True),          # beyond ASCII: Python reads names under NFKC
])
def test_the_text_scan_clears_only_equations_without_a_literal_beside_a_scaled_unit(rhs: str, extra: str, may: bool) -> None:
    valid_when = (f"{extra} > 0",) if extra else ()
    eq = schema.EquationDefinition(id="e", defines="T", source=schema.SourceLocator("r", "x"), rhs=rhs, valid_when=valid_when)
    assert lazy_build.may_make_literal(eq, {"L", "K", "T", "c0"}, {"L"}) is may
    # no symbol of a scaled unit used or defined: none can be made (but a name beyond ASCII is not read here)
    assert lazy_build.may_make_literal(eq, {"L", "K", "T", "c0"}, set()) is (not rhs.isascii())
    assert lazy_build.may_make_literal(eq, {"L", "K", "T", "c0"}, {"T"}) is may  # defined in a scaled unit
