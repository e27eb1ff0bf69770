"""Model-file shape errors name the file, the key and the fix; nothing is half-loaded."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import errors


def load(path):
    return symgpu.Model(symgpu.model.loader.read_definition(path))


def test_tiny_model_loads(write_model):
    model = load(write_model())
    assert model.evaluate("P", preset="toy", I=10).to("TFLOP/s").magnitude == pytest.approx(20)


def test_invalid_toml_reports_line(write_model, tmp_path):
    path = write_model("schema_version = 1\n[model\n")
    with pytest.raises(errors.ModelFileError, match=rf"^{tmp_path}/tiny\.toml: invalid TOML: .*\(at line 2"):
        load(path)


def test_newer_schema_version_is_refused(write_model, tmp_path):
    text = write_model().read_text().replace("schema_version = 1", "schema_version = 7")
    with pytest.raises(errors.ModelFileError, match=r": schema_version: version 7 is newer than this symgpu supports \(1\); upgrade symgpu$"):
        load(write_model(text))


def test_model_id_must_match_file_stem(write_model):
    with pytest.raises(errors.ModelFileError, match=r": \[model\]\.id: id 'tiny' differs from the file stem 'other'; rename the file to tiny\.toml or set id = \"other\"$"):
        load(write_model(name="other"))


def test_unknown_key_is_named_with_allowed_keys(write_model):
    text = write_model().read_text().replace('role = "output"', 'role = "output"\nunits = "s"')
    with pytest.raises(errors.ModelFileError, match=r": \[symbols\.P\]: unknown key 'units'; allowed keys: assumptions, description"):
        load(write_model(text))


def test_missing_required_key(write_model):
    text = write_model().read_text().replace('description = "peak throughput"\n', "")
    with pytest.raises(errors.ModelFileError, match=r": \[symbols\.P_peak\]: missing required key 'description'$"):
        load(write_model(text))


def test_unknown_unit_names_symbol(write_model):
    text = write_model().read_text().replace('unit = "B/s"', 'unit = "GBs"')
    with pytest.raises(errors.ModelFileError, match=r": \[symbols\.B\]\.unit: unknown unit 'GBs'"):
        load(write_model(text))


def test_unknown_reference_in_source(write_model):
    text = write_model().read_text().replace('ref = "toy2026", locator = "Eq. (1)"', 'ref = "nobody1999", locator = "Eq. (1)"')
    with pytest.raises(errors.ModelFileError, match=r": equation attainable\.source\.ref: unknown reference 'nobody1999'; declare it under \[references\.nobody1999\]"):
        load(write_model(text))


def test_symbol_defined_twice_is_refused(write_model):
    extra = '''
[[equations]]
id = "again"
defines = "P"
rhs = "P_peak"
source = { ref = "toy2026", locator = "Eq. (2)" }
'''
    with pytest.raises(errors.ModelFileError, match=r": equation again: 'P' is already defined by equation attainable; give the alternative form its own symbol"):
        load(write_model(extra_equation=extra))


def test_equations_may_not_form_a_cycle(write_model):
    extra = '''
[[equations]]
id = "intensity"
defines = "I"
rhs = "P/B"
source = { ref = "toy2026", locator = "Eq. (2)" }
'''
    with pytest.raises(errors.ModelFileError, match=r": equation attainable: equations form a cycle: P -> I -> P; an implicit relation must keep one side as an input symbol"):
        load(write_model(extra_equation=extra))


def test_piecewise_needs_otherwise_last(write_model):
    text = write_model().read_text().replace('rhs = "Min(P_peak, I*B)"', 'cases = [ { id = "memory_bound", when = "I*B < P_peak", value = "I*B" } ]')
    with pytest.raises(errors.ModelFileError, match=r": equation attainable\.cases: the last case \('memory_bound'\) must have when = \"otherwise\""):
        load(write_model(text))


def test_preset_value_with_wrong_dimension_names_preset_and_symbol(write_model):
    with pytest.raises(errors.UnitMismatchError, match=r": \[presets\.toy\]\.values\.P_peak: P_peak = '100 TB/s' has dimension \[information\]/\[time\], but P_peak is \[operation\]/\[time\] \(unit FLOP/s\); correct the value's unit$"):
        load(write_model(peak="100 TB/s"))


def test_preset_value_for_unknown_symbol(write_model):
    text = write_model().read_text() + 'X = "1 s"\n'
    with pytest.raises(errors.ModelFileError, match=r": \[presets\.toy\]\.values\.X: unknown symbol 'X'"):
        load(write_model(text))


def test_constant_needs_a_value(write_model):
    text = write_model().read_text().replace('unit = "FLOP/B"', 'unit = "FLOP/B"\nrole = "constant"')
    with pytest.raises(errors.ModelFileError, match=r": \[symbols\.I\]: a constant needs a 'value'"):
        load(write_model(text))


def test_unknown_model_id_lists_the_models_and_where_user_folders_go():
    with pytest.raises(errors.UsageError, match=r"^unknown model 'nope' \(models: .*interval_analysis.*\); give a model id "
                                                 r"or a path to a \.toml file \(folders of your own go in \$SYMGPU_MODEL_PATH\)$"):
        symgpu.load("nope")


def test_an_unknown_model_id_that_differs_in_case_or_spelling_suggests_the_model_first():
    # an outside tester's finding: 'Prior_Hong_Kim' listed the first 10 ids, not prior_hong_kim among them
    with pytest.raises(errors.UsageError, match=r"^unknown model 'Prior_Hong_Kim' \(did you mean prior_hong_kim[,?]"):
        symgpu.load("Prior_Hong_Kim")
    with pytest.raises(errors.UsageError, match=r"^unknown model 'volkov2016' \(did you mean volkov_2016[,?]"):
        symgpu.load("volkov2016")


def test_a_model_in_a_symgpu_model_path_folder_loads_by_id_and_is_listed(write_model, monkeypatch):
    folder = write_model(write_model().read_text().replace('id = "tiny"', 'id = "my_roofline"'), name="my_roofline").parent
    monkeypatch.setenv("SYMGPU_MODEL_PATH", str(folder))
    assert "my_roofline" in symgpu.list_models() and "interval_analysis" in symgpu.list_models()
    assert symgpu.load("my_roofline").path == str(folder / "my_roofline.toml")


def test_every_equation_file_has_a_matching_stem():
    for model_id in symgpu.list_models():
        assert symgpu.model.loader.read_definition(symgpu.model.loader.resolve(model_id)).id == model_id


RIDGE_DERIVATION = '''
[[derivations]]
id = "ridge_point"
op = "boundary"
quantity = "P"
variable = "I"
'''


def ridge_case(derivation: str, expect: str) -> str:
    """A validation case on a derivation of the tiny model, as TOML text."""
    return f'''
[[validation]]
id = "ridge"
preset = "toy"
derivation = "{derivation}"
expect = {{ {expect} }}
source = {{ ref = "toy2026", locator = "Fig. 1" }}
'''


def test_validation_case_on_unknown_derivation_is_refused(write_model):
    text = write_model().read_text() + ridge_case("nope", 'result = "50 FLOP/B"')
    with pytest.raises(errors.ModelFileError, match=r": validation ridge\.derivation: unknown derivation 'nope'; derivations: none$"):
        load(write_model(text))


def test_validation_case_on_a_derivation_checks_result_or_location_only(write_model):
    text = write_model().read_text() + RIDGE_DERIVATION + ridge_case("ridge_point", 'I = "50 FLOP/B"')
    with pytest.raises(errors.ModelFileError, match=r": validation ridge\.expect\.I: a case on a derivation checks 'result' or 'location', not 'I'$"):
        load(write_model(text))


def test_validation_case_checks_a_derived_number(write_model):
    text = write_model().read_text() + RIDGE_DERIVATION + ridge_case("ridge_point", 'result = "50 FLOP/B"')
    model = load(write_model(text))
    (result,) = symgpu.validate(model)
    assert result.ok and result.status == "pass" and result.computed == pytest.approx(50)


def test_a_symbol_named_like_an_evaluate_keyword_is_evaluated_through_values(write_model):
    text = write_model().read_text().replace("[symbols.I]", "[symbols.preset]").replace("I*B", "preset*B")
    model = load(write_model(text))
    # 10 FLOP/B x B of the toy preset; the symbol 'preset' is reachable through values=
    assert model.evaluate("P", "toy", values={"preset": 10}).magnitude == pytest.approx(
        10 * model.preset("toy")["B"].magnitude)


def test_a_value_given_both_as_keyword_and_in_values_is_refused(write_model):
    model = load(write_model())
    with pytest.raises(errors.UsageError, match=r"^I given both in values= and as a keyword; give each value once$"):
        model.evaluate("P", "toy", values={"I": 1}, I=2)


@pytest.mark.parametrize("table, entry, key, what, allowed", [
    ("derivations", "derivation", "op", "operation", "solve, boundary"),
    ("plots", "plot", "kind", "plot kind", "curve, asymptotes, regime_map"),
])
def test_an_unknown_request_tag_is_named_with_the_allowed_ones(write_model, table, entry, key, what, allowed):
    text = write_model().read_text() + f'\n[[{table}]]\nid = "x"\n{key} = "guess"\n'
    with pytest.raises(errors.ModelFileError, match=rf": {entry} x\.{key}: unknown {what} 'guess'; use one of: {allowed}"):
        load(write_model(text))
