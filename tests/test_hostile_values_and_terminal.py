"""Issue 30 (silently accepted values; terminal and size): profiler exports with NaN, percentages
over 100, decimal commas or a metric column twice are refused; a printed preset block is valid TOML
whatever the data path; kernel names reach the terminal as printable characters only; a message
lists at most the first 10 alternatives; a user model hidden by a bundled id is warned about."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from symgpu import errors
from symgpu.cli import main
from symgpu.kernel import ncu
from symgpu.measure import fit

from conftest import FIXTURES

REPO = Path(__file__).resolve().parent.parent
NCU_SAMPLE = REPO / "data" / "ncu" / "scale_h100_raw_synthetic.csv"
MAX_MESSAGE = 4000


def _export(replace: tuple[str, str] | None = None, *, duplicate: bool = False) -> str:
    lines = NCU_SAMPLE.read_text(encoding="utf-8").splitlines()
    header, unit_row, first = lines[0], lines[1], lines[2]
    if duplicate:
        header += ',"dram__bytes_read.sum"'
        unit_row += ',"byte"'
        first += ',"1"'
    if replace:
        first = first.replace(*replace, 1)
    return "\n".join([header, unit_row, first]) + "\n"


# ---------------------------------------------------------------- profiler exports
@pytest.mark.parametrize("cell, needle", [
    ('"85.31"', None),  # the sample as it is
    ('"nan"', "not a finite number"),
    ('"inf"', "not a finite number"),
    ('"185.31"', "outside 0..100 %"),
    ('"-5"', "outside 0..100 %"),
    ('"85,31"', "decimal comma"),
])
def test_a_percentage_cell_is_read_only_when_it_is_a_finite_share(cell, needle):
    text = _export(('"85.31"', cell))
    if needle is None:
        (launch, *_) = ncu.parse(text, source="x.csv")
        assert launch.metric("sm__warps_active.avg.pct_of_peak_sustained_active").magnitude == pytest.approx(0.8531)
        return
    with pytest.raises(errors.UsageError, match=r"^x\.csv:3: metric 'sm__warps_active\.avg\.pct_of_peak_sustained_active' = .*" + needle):
        ncu.parse(text, source="x.csv")


@pytest.mark.parametrize("cell, needle", [
    ('"1,205,410"', None), ('"NaN"', "not a finite number"), ('"12,5"', "decimal comma"), ('"1e999"', "not a finite number"),
    ('"' + "9" * 5000 + '"', "not a finite number"),
])
def test_a_metric_cell_is_a_finite_number_with_commas_only_between_thousands(cell, needle):
    text = _export(('"46,336"', cell))
    if needle is None:
        assert ncu.parse(text, source="x.csv")[0].metric("gpu__time_duration.sum").magnitude == 1_205_410
        return
    with pytest.raises(errors.UsageError, match=needle):
        ncu.parse(text, source="x.csv")


def test_a_metric_exported_twice_is_refused_naming_it():
    with pytest.raises(errors.UsageError, match=r"^x\.csv:1: column dram__bytes_read\.sum appears more than once"):
        ncu.parse(_export(duplicate=True), source="x.csv")


# ---------------------------------------------------------------- the printed preset block
@pytest.mark.parametrize("data_path", ['we"ird\\path.csv', "new\nline\x7f\x1b.csv", "caf\udcc3.csv"])
def test_the_printed_preset_block_reads_back_as_toml_whatever_the_data_path(data_path):
    result = fit.FitResult.__new__(fit.FitResult)
    parameter = fit.FittedParameter.__new__(fit.FittedParameter)
    for name, value in {"name": "a", "value": 747.73, "unit_text": "cycle", "stderr": 1.0, "low": 745.0, "high": 750.0}.items():
        object.__setattr__(parameter, name, value)
    fields = {"parameters": (parameter,), "data_path": data_path, "selection": (("alpha", 0.0),), "quantity": "q", "model_id": "m",
              "preset": "p", "date": "2025-01-01", "rms_relative": 0.01, "max_relative": 0.02, "points": 3}
    for name, value in fields.items():
        object.__setattr__(result, name, value)
    block = fit.preset_toml(result, "x")
    read = tomllib.loads(block)["presets"]["x"]
    assert read["values"] == {"a": "747.73 cycle"} and read["based_on"] == "p"


@pytest.mark.parametrize("preset_id", ["café", "a b", "x]\n[evil", ""])
def test_a_preset_id_that_is_not_a_toml_bare_key_is_refused(preset_id):
    with pytest.raises(errors.UsageError, match=r"^--preset-id .*: use ASCII letters, digits and underscores"):
        fit.preset_toml(fit.FitResult.__new__(fit.FitResult), preset_id)


# ---------------------------------------------------------------- terminal and size
def test_ansi_and_bidi_characters_in_a_kernel_name_are_printed_escaped(tmp_path, capsys):
    name = "evil\x1b[2J\x1b]0;pwned\x07\u202ekernel"
    path = tmp_path / "ptxas.txt"
    path.write_text(f"ptxas info    : Compiling entry function '{name}' for 'sm_90'\n"
                    "ptxas info    : Used 32 registers, 0 bytes smem\n", encoding="utf-8")
    assert main(["kernel", str(path), "-t", "128", "--cc", "cc_9_0"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "evil\\x1b[2J\\x1b]0;pwned\\x07\\u202ekernel" in out
    assert main(["kernel", str(path), "-t", "128", "--cc", "cc_9_0", "-k", "nope\x1b[31m"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\u202e" not in err and err.count("\n") == 1


def test_a_file_of_many_kernels_gets_a_short_message_listing_the_first_ten(tmp_path, capsys):
    path = tmp_path / "ptxas.txt"
    path.write_text("".join(f"ptxas info    : Compiling entry function 'k{i}' for 'sm_90'\nptxas info    : Used 8 registers\n"
                            for i in range(50_000)), encoding="utf-8")
    assert main(["kernel", str(path), "-t", "128", "--cc", "cc_9_0"]) == 2
    err = capsys.readouterr().err
    assert len(err) < MAX_MESSAGE and "50000 kernels" in err and "(first 10 of 50000)" in err and err.count("\n") == 1


def test_an_unknown_id_among_ten_thousand_user_models_gets_a_short_message(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    for i in range(10_000):
        (folder / f"user_model_{i:05d}.toml").touch()
    monkeypatch.setenv("SYMGPU_MODEL_PATH", str(folder))
    assert main(["show", "no_such_model"]) == 2
    err = capsys.readouterr().err
    assert len(err) < MAX_MESSAGE and "first 10 of" in err and err.count("\n") == 1


def test_a_user_model_with_a_bundled_id_is_warned_about_not_silently_hidden(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    mine = folder / "hong_kim_2009.toml"
    mine.write_text((FIXTURES / "tiny.toml").read_text(encoding="utf-8").replace('id = "tiny"', 'id = "hong_kim_2009"'), encoding="utf-8")
    monkeypatch.setenv("SYMGPU_MODEL_PATH", str(folder))
    assert main(["show", "hong_kim_2009"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("symgpu: warning: model 'hong_kim_2009' is read from ") and str(mine) in err and "not used" in err
    assert err.count("\n") == 1


def test_an_error_message_is_one_line_of_printable_characters_however_long_its_input(capsys):
    assert main(["show", "x\u202e\x1b" * 5000]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) <= MAX_MESSAGE + 100 and "\x1b" not in err and "\u202e" not in err
