"""A model file may extend another: inherit everything, override by id, and be checked on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

import symgpu
from conftest import read_fixture
from symgpu import cli, errors

REPO = Path(__file__).resolve().parent.parent

VARIANT = read_fixture("tiny_capped")


def test_variant_inherits_symbols_presets_and_overrides_equations_by_id(write_model, tmp_path):
    write_model()
    (tmp_path / "tiny_capped.toml").write_text(VARIANT)
    base = symgpu.load(tmp_path / "tiny.toml")
    variant = symgpu.load(tmp_path / "tiny_capped.toml")
    assert variant.definition.extends == "tiny"
    assert set(variant.symbols) == set(base.symbols)
    assert list(variant.equations) == ["attainable"]
    assert variant.equations["attainable"].definition.source.locator == "Eq. (1'), variant"
    assert set(variant.presets) == {"toy", "slow"}
    high = {"I": 1000}
    assert variant.evaluate("P", preset="toy", **high).magnitude == pytest.approx(base.evaluate("P", preset="toy", **high).magnitude / 2)
    assert variant.evaluate("P", preset="slow", I=10).to("TFLOP/s").magnitude == pytest.approx(10)


def test_variant_is_unit_checked_on_its_own(write_model, tmp_path, refused_whole):
    write_model()
    (tmp_path / "tiny_capped.toml").write_text(VARIANT.replace("Min(P_peak/2, I*B)", "Min(P_peak/2, B)"))
    refused = refused_whole(tmp_path / "tiny_capped.toml", errors.UnitMismatchError,
                            r"tiny_capped\.toml: equation attainable: arguments of 'Min\(B, P_peak/2\)' disagree")
    with pytest.raises(errors.UnitMismatchError) as read:  # and by a question that reads the equation
        symgpu.load(tmp_path / "tiny_capped.toml").expression("P")
    assert str(read.value) == str(refused)


def test_unknown_base_model_is_a_clear_error(tmp_path):
    (tmp_path / "tiny_capped.toml").write_text(VARIANT)
    with pytest.raises(errors.ModelFileError, match=r"tiny_capped\.toml: \[model\]\.extends: unknown base model 'tiny'; bundled models: "):
        symgpu.load(tmp_path / "tiny_capped.toml")


def test_models_extending_each_other_are_refused(tmp_path):
    (tmp_path / "a.toml").write_text(VARIANT.replace('id = "tiny_capped"', 'id = "a"').replace('extends = "tiny"', 'extends = "b"'))
    (tmp_path / "b.toml").write_text(VARIANT.replace('id = "tiny_capped"', 'id = "b"').replace('extends = "tiny"', 'extends = "a"'))
    with pytest.raises(errors.ModelFileError, match=r"\[model\]\.extends: models extend each other in a cycle: a -> b -> a"):
        symgpu.load(tmp_path / "a.toml")


def test_interval_notes_as_printed_variant_fails_every_thread_formula(capsys):
    path = REPO / "equations" / "as_printed" / "interval_analysis_as_printed.toml"
    code = cli.main(["check", str(path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    failed = [line.split(": equation ")[1].split(":")[0] for line in out if line.startswith("FAIL")]
    assert failed == ["P_sat", "P_loop", "P_K0", "P_K1", "P_perthd"]
    for line in out:
        assert line.endswith("has dimension [clock]*[thread]/[time], but " + line.split(": equation ")[1].split(":")[0] + " is [thread]; a clock conversion (phi) may be missing")
