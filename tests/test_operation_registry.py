"""One registry of derivation operations (``symgpu.model.operations.SPECS``): the schema's op list,
the reader's field checks and the engine's handlers, API methods and CLI commands follow it; a
``[[derivations]]`` entry is read into its typed ``Question`` (and checked) when the model loads."""

from __future__ import annotations

import dataclasses
import re

import pytest

import symgpu
from symgpu.cli import derive_commands
from symgpu.derive import requests
from symgpu.model import operations, schema

#: registry operations with no API method or CLI command of their own, and why: each is reached
#: through ``[[derivations]]`` (``Model.run_request``, ``symgpu derive MODEL ID``) only.
WITHOUT_FRONT_DOOR = {
    "simplify": "rewrites an expression text of the file's own; symgpu.derive.simplify_expression for Python callers",
    "substitute": "a model file's worked rewrite; symgpu.derive.substitute for Python callers",
}


def test_the_engine_has_a_handler_for_exactly_the_registry_operations():
    assert set(requests.OPERATIONS) == set(operations.SPECS)


def test_the_schema_op_list_and_the_engine_fields_follow_the_registry():
    assert schema.DERIVATION_OPS == tuple(operations.SPECS)
    assert requests.FIELDS == frozenset(f for spec in operations.SPECS.values() for f in spec.reads)
    assert requests.DOCUMENTATION == operations.DOCUMENTATION


@pytest.mark.parametrize("op", list(operations.SPECS))
def test_every_operation_has_an_api_method_and_a_cli_command_unless_listed_with_a_reason(op):
    command = op.replace("_", "-")
    has_method, has_command = callable(getattr(symgpu.Model, op, None)), command in derive_commands.RUN
    if op in WITHOUT_FRONT_DOOR:
        assert not has_method and not has_command, f"{op} has a front door now: take it off WITHOUT_FRONT_DOOR"
    else:
        assert has_method, f"symgpu.Model has no method {op}"
        assert has_command, f"symgpu has no command {command}"


def test_every_operation_command_is_a_registry_operation_named_after_it():
    assert set(derive_commands.OPERATION_COMMANDS) <= set(operations.SPECS)
    ops = {name for name, run in derive_commands.RUN.items() if name not in ("derive", "repl")}
    assert ops == {op.replace("_", "-") for op in derive_commands.OPERATION_COMMANDS}


def test_every_spec_reads_its_required_fields_and_says_what_it_does():
    for spec in operations.SPECS.values():
        assert spec.description and "\n" not in spec.description
        assert all(set(group) <= set(spec.reads) for group in spec.required), spec.name
        assert not set(spec.documents) & set(spec.reads), spec.name


def test_every_bundled_derivation_is_read_into_its_question_when_the_model_loads():
    for model_id in symgpu.list_models():
        model = symgpu.load(model_id)
        for request in model.definition.derivations:
            assert request.question is not None, f"{model_id}:{request.id}"
            by_hand = dataclasses.replace(request, question=None)
            assert requests.Question.read(model, by_hand) == request.question


def _with_derivation(write_model, body: str):
    from conftest import tiny_text

    return write_model(tiny_text() + '\n[[derivations]]\nid = "q"\n' + body)


def test_a_field_the_operation_does_not_read_is_a_load_error_naming_the_file_entry_field_and_allowed(write_model):
    path = _with_derivation(write_model, 'op = "boundary"\nquantity = "P"\nvariable = "I"\nto = "oo"\n')
    with pytest.raises(symgpu.ModelFileError) as caught:
        symgpu.load(path, cache=False)
    text = str(caught.value)
    assert text.startswith(f"{path}: derivation q.to: unknown field 'to' for op = \"boundary\"; ")
    assert re.search(r'fields of op = "boundary": .*\bbetween\b.*\bvariable\b', text)


def test_a_misspelt_field_is_a_load_error_not_a_run_time_one(write_model):
    path = _with_derivation(write_model, 'op = "solve"\nquantity = "P"\nvaraible = "I"\n')
    with pytest.raises(symgpu.ModelFileError, match=r"derivation q\.varaible: unknown field 'varaible' for op = \"solve\""):
        symgpu.load(path, cache=False)


def test_a_missing_required_field_is_a_load_error_naming_it_and_its_other_names(write_model):
    path = _with_derivation(write_model, 'op = "limit"\nquantity = "P"\nto = "oo"\n')
    with pytest.raises(symgpu.ModelFileError, match=r"derivation q: missing required field 'variable' \(or over or for\); "
                                                    r'fields of op = "limit": '):
        symgpu.load(path, cache=False)


def test_a_list_field_given_as_text_is_a_load_error(write_model):
    path = _with_derivation(write_model, 'op = "boundary"\nquantity = "P"\nvariable = "I"\nstop_at = "P"\n')
    with pytest.raises(symgpu.ModelFileError, match=r"derivation q: a field has the wrong shape: expected a list"):
        symgpu.load(path, cache=False)


def test_a_request_built_by_hand_is_checked_when_it_runs(ia):
    request = schema.DerivationRequest("q", "limit", (("quantity", "P_K0"),))
    with pytest.raises(symgpu.UsageError, match=r"^interval_analysis: derivation q: missing required field 'variable' \(fields: "):
        symgpu.derive.run_request(ia, request)


def test_the_question_read_at_load_is_kept_out_of_equality_and_repr():
    fields = (("quantity", "P"), ("variable", "I"))
    read = schema.DerivationRequest("q", "boundary", fields, operations.Question.of("q", "boundary", fields))
    assert read == schema.DerivationRequest("q", "boundary", fields)
    assert repr(read) == repr(schema.DerivationRequest("q", "boundary", fields))  # the stored derivations' key


def test_the_registry_cannot_be_changed_at_run_time():
    with pytest.raises(TypeError):
        operations.SPECS["integrate"] = operations.SPECS["limit"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        operations.SPECS["limit"].reads = ()  # type: ignore[misc]
