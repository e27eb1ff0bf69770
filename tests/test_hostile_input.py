"""Issue 12: hostile and broken model files are refused at once, with file, key and reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import symgpu
from symgpu import cli, errors, units
from symgpu.cli import common
from symgpu.model import expressions

from conftest import tiny_text


def _load(path: Path) -> symgpu.Model:
    return symgpu.Model(symgpu.model.loader.read_definition(path))


def _anchored(path: Path, rest: str) -> str:
    return "^" + re.escape(str(path)) + rest + "$"


# ---------------------------------------------------------------- quantities in files
@pytest.mark.parametrize("text, column", [("10**10**10 TFLOP/s", 7), ("2**2**2**2**30 TFLOP/s", 5)])
def test_power_tower_in_a_preset_value_is_refused_by_the_grammar_with_file_and_key(write_model, text, column):
    path = write_model(peak=text)
    message = (r": \[presets\.toy\]\.values\.P_peak: cannot read quantity " + re.escape(repr(text))
               + rf": a power of a power is not allowed; an exponent is a small integer at column {column}; "
               + re.escape('write a number (in FLOP/s) or a quantity such as "1.5 GHz"'))
    with pytest.raises(errors.ModelFileError, match=_anchored(path, message)):
        _load(path)


@pytest.mark.parametrize("unit, problem", [
    ("GB/s)", "cannot read unit 'GB/s)': unexpected ')' at column 5"),
    ("s**s", "cannot read unit 's**s': exponent 's' is not an integer at column 4"),
    ("B^2", "cannot read unit 'B^2': '^' is not a power; write powers with '**' at column 2"),
])
def test_unit_string_outside_the_grammar_names_file_and_symbol(write_model, unit, problem):
    path = write_model(tiny_text(rhs="Min(P_peak, I*B)", peak="1 TFLOP/s", extra_equation="").replace('unit = "B/s"', f'unit = "{unit}"'))
    with pytest.raises(errors.ModelFileError, match=_anchored(path, r": \[symbols\.B\]\.unit: " + re.escape(problem) + "; write a unit such as cycle, B, GB/s, .*")):
        _load(path)


def test_quantity_grammar_keeps_printed_arithmetic_and_refuses_payloads():
    assert units.quantity("(104.866219/27) GB/s").to("GB/s").magnitude == pytest.approx(104.866219 / 27)
    assert units.quantity("388.4 ns * 1.73 GHz").to("cycle").magnitude == pytest.approx(388.4 * 1.73)
    assert units.quantity("2 /cycle").to("1/cycle").magnitude == 2
    assert units.quantity("2**10 B").magnitude == 1024
    with pytest.raises(ValueError, match=r"""^cannot read quantity "__import__\('os'\)": character "'" is not allowed \(numbers, unit names, \* / \*\* and parentheses only\) at column 12$"""):
        units.quantity("__import__('os')")
    with pytest.raises(ValueError, match=r"^cannot read quantity '1e300\*\*9 s': the number is too large \(over 2048 bits\) at column 6$"):
        units.quantity("1e300**9 s")
    with pytest.raises(ValueError, match=r"^cannot read quantity '1e999 GB': exponent 999 is out of range \(limit 330\) at column 1$"):
        units.quantity("1e999 GB")


# ---------------------------------------------------------------- file references
@pytest.mark.parametrize("extends", ["../outside/evil", "/etc/passwd", "..", "sub/dir"])
def test_extends_takes_a_model_id_never_a_path(tmp_path, extends):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.toml").write_text(tiny_text(rhs="P_peak", peak="1 TFLOP/s", extra_equation="").replace('id = "tiny"', 'id = "evil"'), encoding="utf-8")
    folder = tmp_path / "models"
    folder.mkdir()
    path = folder / "variant.toml"
    path.write_text(f'schema_version = 1\n[model]\nid = "variant"\ntitle = "t"\nsummary = "s"\nextends = "{extends}"\n', encoding="utf-8")
    message = (r": \[model\]\.extends: " + re.escape(repr(extends)) + r" is not a model id: extends names a model \(letters, digits, '_', '-'\), never a path; "
               r"write extends = \"<id>\" with the base model's id \(bundled: .*\)")
    with pytest.raises(errors.ModelFileError, match=_anchored(path, message)):
        symgpu.model.loader.read_definition(path)


def test_preset_id_that_would_name_a_file_outside_the_report_folder_is_refused(write_model):
    path = write_model(tiny_text(rhs="P_peak", peak="1 TFLOP/s", extra_equation="").replace("[presets.toy]", '[presets."../../x"]').replace("[presets.toy.values]", '[presets."../../x".values]'))
    with pytest.raises(errors.ModelFileError, match=_anchored(path, r": \[presets\.\.\./\.\./x\]: preset id '\.\./\.\./x' is not a plain id; use ASCII .*")):
        _load(path)


# ---------------------------------------------------------------- values against declared signs
@pytest.mark.parametrize("value, problem", [
    ("nan", "P_peak = 'nan' is not a number (NaN); P_peak is declared positive"),
    ("inf TFLOP/s", "P_peak = 'inf TFLOP/s' is infinite; P_peak is declared positive"),
    ("-3 TFLOP/s", "P_peak = '-3 TFLOP/s' is negative, but P_peak is declared positive"),
    ("0", "P_peak = '0' is zero, but P_peak is declared positive"),
])
def test_check_fails_naming_preset_symbol_value_and_declared_sign(write_model, capsys, value, problem):
    path = write_model(peak=value)
    code = cli.main(["check", str(path)])
    out, err = capsys.readouterr()
    assert code == common.FAILED
    expected = f"FAIL {path}: [presets.toy].values.P_peak: {problem}; give a finite value in FLOP/s that meets the declared assumptions"
    assert out.strip() == expected
    assert err == ""


def test_toml_nan_float_in_a_validation_input_is_refused_with_case_and_symbol(write_model):
    text = tiny_text(rhs="Min(P_peak, I*B)", peak="1 TFLOP/s", extra_equation="") + (
        '\n[[validation]]\nid = "c1"\npreset = "toy"\ninputs = { I = nan }\nexpect = { P = "1 TFLOP/s" }\n'
        'source = { ref = "toy2026", locator = "Table 1" }\n')
    path = write_model(text)
    message = r": validation c1\.inputs\.I: I = 'nan' is not a number \(NaN\); I is declared positive; give a finite value in FLOP/B .*"
    with pytest.raises(errors.ModelFileError, match=_anchored(path, message)):
        _load(path)


# ---------------------------------------------------------------- identifiers
def test_symbol_name_with_a_cyrillic_homoglyph_is_refused(write_model):
    lookalike = "fl\u043eps"
    text = tiny_text(rhs="P_peak", peak="1 TFLOP/s", extra_equation="").replace(
        "[symbols.P_peak]", f'[symbols."{lookalike}"]\ndescription = "look-alike"\nunit = "FLOP/s"\n\n[symbols.P_peak]')
    path = write_model(text)
    message = (r": \[symbols\.fl\\u043eps\]: symbol name 'fl\\u043eps' is not a plain ASCII identifier; use ASCII letters, digits and underscores, "
               r"not starting with '_' \(look-alike letters from other scripts are refused\)")
    with pytest.raises(errors.ModelFileError, match=_anchored(path, message)):
        _load(path)


def test_expression_with_a_homoglyph_never_reaches_python_identifier_normalisation():
    with pytest.raises(errors.ExpressionError, match=r"^f: e: non-ASCII character '\\uff46' at column 1 in '\uff46lops'; expressions use ASCII only .*$"):
        expressions.parse_expression("\uff46lops", {}, path="f", where="e")


# ---------------------------------------------------------------- long expressions
def test_deeply_nested_expression_message_is_cut_around_the_spot_and_names_no_other_models_symbols(write_model):
    path = write_model(rhs="(" * 5000 + "P_peak" + ")" * 5000)
    with pytest.raises(errors.ModelFileError) as caught:
        _load(path)
    message = str(caught.value)
    assert re.match(_anchored(path, r": equation attainable\.rhs: cannot parse \.\.\.'\(+'\.\.\.: too many nested parentheses at column 201; split it into intermediate equations, or drop parentheses that group nothing"), message)
    assert len(message) < len(str(path)) + 400


def test_flat_long_sum_is_refused_for_its_size_not_as_nesting(write_model):
    path = write_model(rhs="+".join(["P_peak"] * 1100))
    with pytest.raises(errors.ModelFileError) as caught:
        _load(path)
    message = str(caught.value)
    assert re.match(_anchored(path, r": equation attainable\.rhs: expression has 1099 arithmetic operators \(limit 500\) in '[P_peak+]+'\.\.\.; split it into intermediate equations \(e\.g\. partial sums\)"), message)
    assert "nested" not in message
    assert len(message) < len(str(path)) + 400


def test_sum_within_the_operator_limit_builds_flat_without_recursion():
    a = symgpu.model.expressions.sympy.Symbol("a")
    assert expressions.parse_expression("+".join(["a"] * 400), {"a": a}) == 400 * a


def test_five_thousand_digit_literal_gets_our_message_not_cpythons(write_model):
    path = write_model(rhs="P_peak*" + "7" * 5000)
    with pytest.raises(errors.ModelFileError) as caught:
        _load(path)
    message = str(caught.value)
    assert re.match(_anchored(path, r": equation attainable\.rhs: number with 5000 digits at column 8 is too long \(limit 40 digits\) in 'P_peak\*7+'\.\.\.; write large .*"), message)
    assert "int_max_str_digits" not in message and len(message) < len(str(path)) + 400


def test_condition_used_as_a_function_argument_is_refused_found_by_fuzzing():
    # exp(False) was accepted, sqrt(x < -1) raised AttributeError (benchmarks/fuzz_models.py)
    x = symgpu.model.expressions.sympy.Symbol("x", positive=True)
    with pytest.raises(errors.ExpressionError, match=r"^f: e: a condition is used as a value in 'exp\(x < -1\)' in 'exp\(x < -1\)'; conditions belong in Piecewise, And, Or, Not, when or valid_when$"):
        expressions.parse_expression("exp(x < -1)", {"x": x}, path="f", where="e")
    with pytest.raises(errors.ExpressionError, match=r"^f: e: a condition is used as a value in 'sqrt\(Not\(x < 1\)\)' in .*$"):
        expressions.parse_expression("sqrt(Not(x < 1))", {"x": x}, path="f", where="e")
