"""One registry of derivation operations (``symgpu.model.operations.SPECS``): the schema's op list,
the reader's field checks and the engine's handlers, API methods and CLI commands follow it; a
``[[derivations]]`` entry is read into its typed ``Question`` (and checked) when the model loads."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
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


# ------------------------------------------------ the API, the command line and the registry agree
# NOTE: the API methods and the commands stay written by hand: generated ones would lose their mypy
# signatures and their help texts. These tests hold them to the registry instead.

#: a command's options that say how the answer is shown, not what is asked.
PRESENTATION = frozenset({"help", "model", "unit", "clock", "full", "json"})
#: a command option -> the ``[[derivations]]`` field it is written as.
CLI_FIELD = {"quantity": "quantity", "preset": "preset", "set": "inputs", "substitute": "substitute", "assume": "assume",
             "keep": "stop_at", "for_": "variable", "over": "variable", "var": "variable", "target": "target",
             "between": "between", "kind": "kind", "grid": "grid", "to": "to", "direction": "direction",
             "omit": "omit_limiters", "relation": "relation", "case": "case"}
#: (operation, API keyword or command option) with no ``[[derivations]]`` field, and why.
NOT_A_FIELD = {
    ("fixed_point", "method"): "how the answer is found (a numeric root even with a closed form), not what is asked",
    ("fixed_point", "numeric"): "the command's spelling of method='numeric'",
    ("boundary", "preset"): "the point the certificate checks at and the command evaluates at; a file's boundary is symbolic",
    ("boundary", "values"): "as preset",
    ("boundary", "set"): "as preset",
    ("limit", "preset"): "pins the inputs that are 0 there before the limit; not offered in model files yet",
    ("limit", "values"): "as preset",
    ("limit", "set"): "as preset",
}
#: fields of an operation that its ``symgpu.derive`` function does not take, and where they are asked instead.
NOT_IN_THE_FUNCTION = {
    "expect": "the file's golden answer, checked by run_request",
    "expect_value": "as expect",
    "expect_regime": "as expect",
    "limiters_from": "the API's omit takes 'equation.limiter' or (equation, limiter) itself",
    "point": "the file's other name of to",
    "ratio": "symgpu.derive.limit_ratio",
}
#: API fields with no command option yet, and why.
NOT_ON_THE_COMMAND_LINE: dict[str, str] = {}
FRONT_DOORS = [op for op in operations.SPECS if op not in WITHOUT_FRONT_DOOR]


def _api_fields(op: str) -> set[str]:
    from symgpu.derive.options import REQUEST_FIELD

    parameters = list(inspect.signature(getattr(symgpu.derive, op)).parameters.values())[1:]  # after the model
    return {REQUEST_FIELD[p.name] for p in parameters if p.kind is not p.VAR_KEYWORD and (op, p.name) not in NOT_A_FIELD}


def _cli_fields(op: str) -> set[str]:
    from symgpu.cli import app

    sub = next(a for a in app.create_parser()._actions if isinstance(a, argparse._SubParsersAction))
    dests = {a.dest for a in sub.choices[op.replace("_", "-")]._actions}
    return {CLI_FIELD[d] for d in dests - PRESENTATION if (op, d) not in NOT_A_FIELD}


@pytest.mark.parametrize("op", FRONT_DOORS)
def test_every_api_keyword_and_command_option_is_a_field_of_the_operation_or_listed_with_a_reason(op):
    reads = set(operations.SPECS[op].reads)
    assert _api_fields(op) <= reads, f"symgpu.derive.{op} takes {sorted(_api_fields(op) - reads)}, not fields of op = {op!r}"
    assert _cli_fields(op) <= reads, f"symgpu {op} has options for {sorted(_cli_fields(op) - reads)}, not fields of op = {op!r}"


@pytest.mark.parametrize("op", FRONT_DOORS)
def test_every_field_of_the_operation_is_asked_by_the_api_unless_the_file_alone_gives_it(op):
    unreached = set(operations.SPECS[op].reads) - _api_fields(op) - set(NOT_IN_THE_FUNCTION) - {"over", "for"}
    assert not unreached, f"op = {op!r} reads {sorted(unreached)}, which symgpu.derive.{op} does not take"


@pytest.mark.parametrize("op", FRONT_DOORS)
def test_the_command_asks_what_the_api_asks_but_the_listed_fields(op):
    cli, api = _cli_fields(op), _api_fields(op)
    assert cli - api <= set(NOT_IN_THE_FUNCTION), f"symgpu {op} asks {sorted(cli - api)}, which symgpu.derive.{op} does not"
    assert api - cli <= set(NOT_ON_THE_COMMAND_LINE), f"symgpu {op} lacks options for {sorted(api - cli - set(NOT_ON_THE_COMMAND_LINE))}"


@pytest.mark.parametrize("op", FRONT_DOORS)
def test_the_model_method_takes_the_operations_leading_arguments_with_its_defaults(op):
    from symgpu.derive.options import REQUEST_FIELD

    method = [p for p in inspect.signature(getattr(symgpu.Model, op)).parameters.values() if p.kind is not p.VAR_KEYWORD][1:]
    function = list(inspect.signature(getattr(symgpu.derive, op)).parameters.values())[1:]
    assert [(REQUEST_FIELD[p.name], p.default) for p in method] == [(REQUEST_FIELD[p.name], p.default) for p in function[:len(method)]]
    assert REQUEST_FIELD[method[0].name] == "quantity"


def test_a_derivations_entry_and_the_same_keywords_give_one_options_record():
    from symgpu.derive.options import Options

    fields = (("quantity", "P"), ("variable", "I"), ("substitute", {"M": "N"}), ("assume", ["I > 1"]), ("stop_at", ["Q"]),
              ("limiters_from", "attainable"), ("omit_limiters", ["P_peak"]), ("preset", "toy"), ("inputs", {"B": "2"}),
              ("case", "memory_bound"), ("relation", ">="))
    read = Options.read(operations.Question.of("q", "solve", fields))
    given = Options.of(substitute={"M": "N"}, assume=["I > 1"], stop_at=["Q"], omit=[("attainable", "P_peak")],
                       preset="toy", values={"B": "2"}, case="memory_bound", relation=">=")
    assert read == given
    assert read.rewrites() == {"substitute": {"M": "N"}, "assume": ("I > 1",), "stop_at": ("Q",), "omit": (("attainable", "P_peak"),)}
    assert read.point() == {"preset": "toy", "values": {"B": "2"}}


def test_options_not_given_stay_apart_from_empty_ones():
    from symgpu.derive.options import Options

    assert Options.of().keywords() == {"substitute": None, "assume": None, "stop_at": (), "omit": (), "preset": None, "values": None}
    assert Options.of(substitute={}, assume=[], values={}).keywords() == {
        "substitute": {}, "assume": (), "stop_at": (), "omit": (), "preset": None, "values": {}}
    assert not Options.of(values={}).at_a_point and Options.of(values={"B": 1}).at_a_point and Options.of(preset="p").at_a_point


def test_the_options_record_cannot_be_changed():
    from symgpu.derive.options import Options

    with pytest.raises(dataclasses.FrozenInstanceError):
        Options.of().preset = "p"  # type: ignore[misc]


@pytest.mark.parametrize("op, arguments", [("boundary", ("t_P",)), ("extremum", ("P_K0", "N")), ("limit", ("Q_K0", "N")),
                                           ("fixed_point", ("P_K0", "N"))])
def test_a_misspelt_keyword_of_an_operation_is_a_type_error_naming_it_before_anything_runs(ia, op, arguments):
    with pytest.raises(TypeError, match=rf"^{op}\(\) got an unexpected keyword argument 'substitue'$"):
        getattr(symgpu.derive, op)(ia, *arguments, substitue={"M": "N"})
