"""One registry of plot kinds (``symgpu.model.plot_kinds.KINDS``): the schema's kind list, the
fields each kind reads, its record and the report's documentation follow it, and no other module
of symgpu lists the kinds."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import symgpu
from symgpu.model import plot_kinds, schema
from symgpu.report import plot_specs


def test_the_schema_kind_list_follows_the_registry():
    assert schema.PLOT_KINDS == tuple(plot_kinds.KINDS) == plot_kinds.NAMES


@pytest.mark.parametrize("kind", list(plot_kinds.KINDS))
def test_each_kind_record_has_exactly_the_fields_its_spec_reads(kind):
    spec = plot_kinds.KINDS[kind]
    assert spec.record.kind == kind
    assert {f.name for f in dataclasses.fields(spec.record)} - {"id"} == set(spec.reads)
    assert set(plot_kinds.REQUIRED) <= set(spec.reads)
    assert spec.description and "\n" not in spec.description


def test_every_field_a_kind_reads_is_documented_for_report_writers():
    documented = plot_specs.__doc__ or ""
    for field in sorted({f for spec in plot_kinds.KINDS.values() for f in spec.reads}):
        assert f"``{field}``" in documented, field


def test_a_field_only_some_kinds_read_is_documented_with_those_kinds():
    documented = plot_specs.__doc__ or ""
    every = {f for spec in plot_kinds.KINDS.values() for f in spec.reads}
    for field in sorted(every):
        readers = [name for name, spec in plot_kinds.KINDS.items() if field in spec.reads]
        if len(readers) < len(plot_kinds.KINDS):
            assert f"``{field}`` ({', '.join(readers)})\n" in documented, field


def _literals_listing_kinds(tree: ast.AST) -> list[int]:
    """Lines of tuple, list, set or dict literals naming two or more plot kinds."""
    names = set(plot_kinds.KINDS)
    lines = []
    for node in ast.walk(tree):
        items = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else []
        kinds = {item.value for item in items if isinstance(item, ast.Constant) and item.value in names}
        if len(kinds) >= 2:
            lines.append(node.lineno)
    return lines


def test_the_scan_finds_a_listing_of_the_kinds():
    assert _literals_listing_kinds(ast.parse('KINDS = ("curve", "regime_map")\nSIZES = {"curve": 1, "asymptotes": 1}')) == [1, 2]
    assert _literals_listing_kinds(ast.parse('ONE = ("curve", "x")')) == []


def test_no_module_but_the_registry_lists_the_plot_kinds():
    package = Path(symgpu.__file__).parent
    registry = Path(plot_kinds.__file__)
    found = {str(path.relative_to(package)): lines for path in sorted(package.rglob("*.py")) if path != registry
             for lines in [_literals_listing_kinds(ast.parse(path.read_text(encoding="utf-8")))] if lines}
    assert found == {}


def test_the_registry_and_its_records_cannot_be_changed_at_run_time():
    with pytest.raises(TypeError):
        plot_kinds.KINDS["bars"] = plot_kinds.KINDS["curve"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        plot_kinds.KINDS["curve"].variables = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        plot_kinds.CurvePlot(id="p", quantity="P", variables=("I",)).x = "B"  # type: ignore[misc]
