"""The shape checks of one parsed model file: its tables (keys, types, ids, references between
entries) into a :class:`~symgpu.model.schema.ModelDefinition`, a variant's entries merged into its
base's. Reading the file and finding the base are :mod:`symgpu.model.loader`'s job."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from symgpu import resources
from symgpu.model import operations, schema, toml_reader

_RESERVED_PRESET_KEYS = {"description", "source", "based_on", "values", "notes"}
#: A model id (file stem, ``extends``) and any other id (preset, equation...): ASCII, never a path.
MODEL_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$")
ENTRY_ID = toml_reader.ENTRY_ID


class DefinitionReader(toml_reader.TableReader):
    """Shape checks with messages that name the file and the key path."""

    def __init__(self, path: str, stem: str, base: schema.ModelDefinition | None = None) -> None:
        self.path = path
        self.stem = stem
        self.base = base

    def model(self, data: dict[str, Any]) -> schema.ModelDefinition:
        self.unknown(data, {"schema_version", "model", "references", "symbols", "equations", "derivations", "presets", "validation", "plots", "errata", "measurements", "tables", "occupancy"}, "top level")
        version = self.take(data, "schema_version", int, "top level")
        if version > schema.SCHEMA_VERSION:
            raise self.fail("schema_version", f"version {version} is newer than this symgpu supports ({schema.SCHEMA_VERSION})", "upgrade symgpu")
        if version < 1:
            raise self.fail("schema_version", f"version {version} does not exist", f"write schema_version = {schema.SCHEMA_VERSION}")
        meta = self.table(self.take(data, "model", dict, "top level"), "[model]")
        self.unknown(meta, {"id", "title", "summary", "references", "extends"}, "[model]")
        model_id = self.take(meta, "id", str, "[model]")
        if not MODEL_ID.match(model_id):
            raise self.fail("[model].id", f"id {toml_reader.cut(model_id)!r} is not a plain model id", "use letters, digits, '_' and '-' (the id names the file and the report folder)")
        if model_id != self.stem:
            raise self.fail("[model].id", f"id '{model_id}' differs from the file stem '{self.stem}'", f"rename the file to {model_id}.toml or set id = \"{self.stem}\"")
        references = self.references(self.take(data, "references", dict, "top level", required=False, default={}))
        if self.base is not None:
            references = merge(self.base.references, references, "key")
        refs = {r.key for r in references}
        cited = self.strings(meta, "references", "[model]")
        for key in cited:
            if key not in refs:
                raise self.fail("[model].references", f"unknown reference '{key}'", f"declare it under [references.{key}]")
        ordered = tuple(sorted(references, key=lambda r: (r.key not in cited, cited.index(r.key) if r.key in cited else 0)))
        variant = self.base is not None
        symbols = self.symbols(self.take(data, "symbols", dict, "top level", required=not variant, default={}))
        equations = self.equations(self.take(data, "equations", list, "top level", required=not variant, default=[]), refs)
        presets = self.presets(self.take(data, "presets", dict, "top level", required=False, default={}), refs)
        validation = self.validation(self.take(data, "validation", list, "top level", required=False, default=[]), refs)
        derivations = self.derivations(self.take(data, "derivations", list, "top level", required=False, default=[]))
        plots = self.plots(self.take(data, "plots", list, "top level", required=False, default=[]))
        known_cases = {c.id for c in validation} | ({c.id for c in self.base.validation} if self.base is not None else set())
        errata = self.errata(self.take(data, "errata", list, "top level", required=False, default=[]), refs, known_cases)
        measurements = self.measurements(self.take(data, "measurements", list, "top level", required=False, default=[]), refs)
        tables = self.tables(self.take(data, "tables", list, "top level", required=False, default=[]), refs)
        occupancy = self.occupancy(self.take(data, "occupancy", dict, "top level", required=False, default=None), refs,
                                   self.base.occupancy if self.base is not None else None)
        if self.base is not None:
            measurements = merge(self.base.measurements, measurements, "id")
            tables = merge(self.base.tables, tables, "id")
            plots = merge(self.base.plots, plots, "id")
            errata = merge(self.base.errata, errata, "id")
            symbols = merge(self.base.symbols, symbols, "name")
            equations = merge(self.base.equations, equations, "id")
            presets = merge(self.base.presets, presets, "id")
            validation = merge(self.base.validation, validation, "id")
            derivations = merge(self.base.derivations, derivations, "id")
        return schema.ModelDefinition(
            id=model_id,
            path=self.path,
            title=self.take(meta, "title", str, "[model]"),
            summary=" ".join(self.take(meta, "summary", str, "[model]").split()),
            references=ordered,
            symbols=symbols,
            equations=equations,
            presets=presets,
            validation=validation,
            derivations=derivations,
            extends=self.take(meta, "extends", str, "[model]", required=False, default=""),
            primary_reference=cited[0] if cited else (self.base.primary_reference if self.base is not None else ""),
            plots=plots,
            errata=errata,
            measurements=measurements,
            tables=tables,
            occupancy=occupancy,
        )

    def references(self, data: dict[str, Any]) -> tuple[schema.Reference, ...]:
        out = []
        for key, entry in data.items():
            where = f"[references.{key}]"
            entry = self.table(entry, where)
            self.unknown(entry, {"authors", "title", "venue", "year", "url", "doi", "note"}, where)
            out.append(schema.Reference(
                key=key,
                authors=self.strings(entry, "authors", where),
                title=self.take(entry, "title", str, where),
                venue=self.take(entry, "venue", str, where, required=False, default=""),
                year=self.take(entry, "year", int, where, required=False, default=None),
                url=self.take(entry, "url", str, where, required=False, default=""),
                doi=self.take(entry, "doi", str, where, required=False, default=""),
                note=self.take(entry, "note", str, where, required=False, default=""),
            ))
        return tuple(out)

    def symbols(self, data: dict[str, Any]) -> tuple[schema.SymbolDefinition, ...]:
        out = []
        for name, entry in data.items():
            where = f"[symbols.{name}]"
            if not name.isascii() or not name.isidentifier() or name.startswith("_"):
                shown = toml_reader.cut(name.encode("ascii", "backslashreplace").decode("ascii"))
                raise self.fail(f"[symbols.{shown}]", f"symbol name '{shown}' is not a plain ASCII identifier",
                                "use ASCII letters, digits and underscores, not starting with '_' (look-alike letters from other scripts are refused)")
            entry = self.table(entry, where)
            self.unknown(entry, {"description", "unit", "role", "latex", "assumptions", "value", "source"}, where)
            role = self.take(entry, "role", str, where, required=False, default="input")
            if role not in schema.ROLES:
                raise self.fail(f"{where}.role", f"unknown role '{role}'", f"use one of: {', '.join(schema.ROLES)}")
            assumptions = self.strings(entry, "assumptions", where)
            for item in assumptions:
                if item not in schema.ASSUMPTIONS:
                    raise self.fail(f"{where}.assumptions", f"unknown assumption '{item}'", f"use any of: {', '.join(schema.ASSUMPTIONS)}")
            value = self.take(entry, "value", (str, int, float), where, required=False, default="")
            if role == "constant" and value == "":
                raise self.fail(where, "a constant needs a 'value'", "write e.g. value = \"32 thread/warp\"")
            if role != "constant" and value != "":
                raise self.fail(f"{where}.value", f"only constants carry a value (role is '{role}')", "put hardware values in a preset, or set role = \"constant\"")
            out.append(schema.SymbolDefinition(
                name=name,
                description=self.take(entry, "description", str, where),
                unit=str(self.take(entry, "unit", (str, int), where)),
                role=role,
                latex=self.take(entry, "latex", str, where, required=False, default=""),
                assumptions=assumptions,
                value=str(value),
                source=self.take(entry, "source", str, where, required=False, default=""),
            ))
        return tuple(out)

    def equations(self, data: list[Any], refs: set[str]) -> tuple[schema.EquationDefinition, ...]:
        out = []
        allowed = {"id", "defines", "rhs", "cases", "limiters", "source", "counts", "valid_when", "assumes", "note"}
        for where, eq_id, entry in self.entries(data, "equations", "equation", allowed):
            has_rhs, has_cases = "rhs" in entry, "cases" in entry
            if has_rhs == has_cases:
                raise self.fail(where, "give exactly one of 'rhs' and 'cases'")
            cases: tuple[schema.CaseDefinition, ...] = ()
            if has_cases:
                cases = self.cases(self.take(entry, "cases", list, where), where)
            limiters = self.take(entry, "limiters", dict, where, required=False, default={})
            for key, value in limiters.items():
                if not isinstance(value, str):
                    raise self.fail(f"{where}.limiters.{key}", f"expected an expression string, found {toml_reader._kind(value)}")
            out.append(schema.EquationDefinition(
                id=eq_id,
                defines=self.take(entry, "defines", str, where),
                source=self.source(entry, where, refs),
                rhs=self.take(entry, "rhs", str, where, required=False, default=""),
                cases=cases,
                limiters=tuple(limiters.items()),
                counts=self.strings(entry, "counts", where),
                valid_when=self.strings(entry, "valid_when", where),
                assumes=self.strings(entry, "assumes", where),
                note=self.take(entry, "note", str, where, required=False, default=""),
            ))
        return tuple(out)

    def cases(self, data: list[Any], where: str) -> tuple[schema.CaseDefinition, ...]:
        out = []
        if not data:
            raise self.fail(f"{where}.cases", "no cases given")
        for index, entry in enumerate(data):
            here = f"{where}.cases[{index}]"
            entry = self.table(entry, here)
            self.unknown(entry, {"id", "when", "value", "note"}, here)
            out.append(schema.CaseDefinition(
                id=self.take(entry, "id", str, here),
                when=self.take(entry, "when", str, here),
                value=self.take(entry, "value", str, here),
                note=self.take(entry, "note", str, here, required=False, default=""),
            ))
        if out[-1].when.strip() != "otherwise":
            raise self.fail(f"{where}.cases", f"the last case ('{out[-1].id}') must have when = \"otherwise\"", "a piecewise model must say what holds outside its listed cases")
        for case in out[:-1]:
            if case.when.strip() == "otherwise":
                raise self.fail(f"{where}.cases", f"case '{case.id}' says 'otherwise' but is not the last case")
        return tuple(out)

    def presets(self, data: dict[str, Any], refs: set[str]) -> tuple[schema.PresetDefinition, ...]:
        out = []
        for preset_id, entry in data.items():
            where = f"[presets.{toml_reader.cut(preset_id)}]"
            if not ENTRY_ID.match(preset_id):
                raise self.fail(where, f"preset id {toml_reader.cut(ascii(preset_id))} is not a plain id", "use ASCII letters, digits, '_', '.' and '-' (preset ids name report files)")
            entry = self.table(entry, where)
            self.unknown(entry, _RESERVED_PRESET_KEYS, where)
            values = self.table(self.take(entry, "values", dict, where, required=False, default={}), f"{where}.values")
            for key, value in values.items():
                if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                    raise self.fail(f"{where}.values.{key}", f"expected a quantity string or number, found {toml_reader._kind(value)}")
            notes = self.table(self.take(entry, "notes", dict, where, required=False, default={}), f"{where}.notes")
            out.append(schema.PresetDefinition(
                id=preset_id,
                description=self.take(entry, "description", str, where),
                source=self.source(entry, where, refs),
                values=tuple((k, str(v)) for k, v in values.items()),
                based_on=self.take(entry, "based_on", str, where, required=False, default=""),
                notes=tuple((k, str(v)) for k, v in notes.items()),
            ))
        ids = {p.id for p in out} | ({p.id for p in self.base.presets} if self.base is not None else set())
        for preset in out:
            if preset.based_on and preset.based_on not in ids:
                raise self.fail(f"[presets.{preset.id}].based_on", f"unknown preset '{preset.based_on}'", f"presets: {', '.join(sorted(ids))}")
        return tuple(out)

    def validation(self, data: list[Any], refs: set[str]) -> tuple[schema.ValidationCase, ...]:
        out = []
        allowed = {"id", "preset", "inputs", "expect", "source", "rel_tol", "abs_tol", "erratum", "note", "derivation"}
        for where, case_id, entry in self.entries(data, "validation", "validation", allowed):
            inputs = self.table(self.take(entry, "inputs", dict, where, required=False, default={}), f"{where}.inputs")
            expect = self.table(self.take(entry, "expect", dict, where), f"{where}.expect")
            if not expect:
                raise self.fail(f"{where}.expect", "no expected values given")
            for key, value in list(inputs.items()) + list(expect.items()):
                if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                    raise self.fail(f"{where}.{key}", f"expected a quantity string or number, found {toml_reader._kind(value)}")
            out.append(schema.ValidationCase(
                id=case_id,
                preset=self.take(entry, "preset", str, where, required=False, default=""),
                inputs=tuple(inputs.items()),
                expect=tuple((k, str(v)) for k, v in expect.items()),
                source=self.source(entry, where, refs),
                rel_tol=toml_reader._float(self.take(entry, "rel_tol", (int, float), where, required=False, default=None)),
                abs_tol=toml_reader._float(self.take(entry, "abs_tol", (int, float), where, required=False, default=None)),
                erratum=self.take(entry, "erratum", str, where, required=False, default=""),
                note=self.take(entry, "note", str, where, required=False, default=""),
                derivation=self.take(entry, "derivation", str, where, required=False, default=""),
            ))
        return tuple(out)

    def tagged(self, entry: dict[str, Any], key: str, what: str, allowed: tuple[str, ...], where: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """A request entry's ``key`` (one of ``allowed``, else an error naming ``what``) and its other
        fields, frozen (``id`` and ``key`` left out)."""
        tag = self.take(entry, key, str, where)
        if tag not in allowed:
            raise self.fail(f"{where}.{key}", f"unknown {what} '{tag}'", f"use one of: {', '.join(allowed)}")
        return tag, tuple((k, toml_reader._freeze(v)) for k, v in entry.items() if k not in ("id", key))

    def derivations(self, data: list[Any]) -> tuple[schema.DerivationRequest, ...]:
        out = []
        for where, request_id, entry in self.entries(data, "derivations", "derivation"):
            op, fields = self.tagged(entry, "op", "operation", schema.DERIVATION_OPS, where)
            out.append(schema.DerivationRequest(id=request_id, op=op, fields=fields, question=self.question(request_id, op, fields, where)))
        return tuple(out)

    def question(self, request_id: str, op: str, fields: tuple[tuple[str, Any], ...], where: str) -> operations.Question:
        """The typed record of a derivation entry: a field its operation does not read, or a
        required one missing, is an error naming the field and the fields allowed."""
        spec = operations.SPECS[op]
        allowed = f"fields of op = \"{op}\": {', '.join(sorted(spec.allowed))}"
        unknown = spec.unknown(fields)
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}", f"unknown field '{unknown[0]}' for op = \"{op}\"", allowed)
        missing = spec.missing(fields)
        if missing is not None:
            raise self.fail(where, f"missing required field '{missing[0]}'" + (f" (or {' or '.join(missing[1:])})" if missing[1:] else ""), allowed)
        try:
            return operations.Question.of(request_id, op, fields)
        except (TypeError, ValueError) as error:
            raise self.fail(where, f"a field has the wrong shape: {error}", allowed) from None

    def errata(self, data: list[Any], refs: set[str], case_ids: set[str]) -> tuple[schema.Erratum, ...]:
        out = []
        for where, erratum_id, entry in self.entries(data, "errata", "erratum", {"id", "source", "text", "evidence", "cases"}):
            cases = self.strings(entry, "cases", where)
            for case in cases:
                if case not in case_ids:
                    raise self.fail(f"{where}.cases", f"unknown validation case '{case}'")
            out.append(schema.Erratum(
                id=erratum_id,
                source=self.source(entry, where, refs),
                text=self.take(entry, "text", str, where),
                evidence=self.take(entry, "evidence", str, where),
                cases=cases,
            ))
        return tuple(out)

    def plots(self, data: list[Any]) -> tuple[schema.PlotRequest, ...]:
        out = []
        for where, plot_id, entry in self.entries(data, "plots", "plot"):
            if not _plot_ids_ok(plot_id):
                raise self.fail(f"{where}.id", f"plot id '{plot_id}' must be letters, digits and underscores (it names files)")
            kind, fields = self.tagged(entry, "kind", "plot kind", schema.PLOT_KINDS, where)
            out.append(schema.PlotRequest(id=plot_id, kind=kind, fields=fields))
        return tuple(out)

    def measurements(self, data: list[Any], refs: set[str]) -> tuple[schema.MeasurementRequest, ...]:
        out = []
        allowed = {"id", "data", "quantity", "column", "preset", "variable", "where", "caption", "source"}
        for where, entry_id, entry in self.entries(data, "measurements", "measurement", allowed):
            if not _plot_ids_ok(entry_id):
                raise self.fail(f"{where}.id", f"id '{entry_id}' must be letters, digits and underscores (it names files)")
            path = self.take(entry, "data", str, where)
            if Path(path).is_absolute() or ".." in Path(path).parts or not resources.measured_file(path).is_file():
                raise self.fail(f"{where}.data", f"'{path}' is not a file inside the repository", "give a path relative to the repository root, e.g. data/h100/x.csv")
            filters = self.table(self.take(entry, "where", dict, where, required=False, default={}), f"{where}.where")
            for key, value in filters.items():
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise self.fail(f"{where}.where.{key}", f"expected a number (in the column's unit), found {toml_reader._kind(value)}")
            out.append(schema.MeasurementRequest(
                id=entry_id, data=path, quantity=self.take(entry, "quantity", str, where), source=self.source(entry, where, refs),
                preset=self.take(entry, "preset", str, where, required=False, default=""),
                variable=self.take(entry, "variable", str, where, required=False, default=""),
                column=self.take(entry, "column", str, where, required=False, default=""),
                where=tuple((k, float(v)) for k, v in filters.items()),
                caption=self.take(entry, "caption", str, where, required=False, default=""),
            ))
        return tuple(out)

    def tables(self, data: list[Any], refs: set[str]) -> tuple[schema.TableRequest, ...]:
        out = []
        for where, table_id, entry in self.entries(data, "tables", "table", {"id", "title", "presets", "columns", "source", "caption"}):
            presets, columns = self.strings(entry, "presets", where), self.strings(entry, "columns", where)
            for key, names in (("presets", presets), ("columns", columns)):
                if not names:
                    raise self.fail(f"{where}.{key}", f"no {key} given", f"list at least one: {key} = [\"...\"]")
            out.append(schema.TableRequest(
                id=table_id, title=self.take(entry, "title", str, where), presets=presets, columns=columns,
                source=self.source(entry, where, refs), caption=self.take(entry, "caption", str, where, required=False, default=""),
            ))
        return tuple(out)


    def occupancy(self, data: dict[str, Any] | None, refs: set[str], base: schema.OccupancyMapping | None) -> schema.OccupancyMapping | None:
        """The ``[occupancy]`` table; a variant's is merged into its base's (the variant's entries win per name)."""
        if data is None:
            return base
        where = "[occupancy]"
        data = self.table(data, where)
        self.unknown(data, {"symbols", "presets", "source"}, where)
        pairs = []
        for key in ("symbols", "presets"):
            inherited: tuple[tuple[str, str], ...] = getattr(base, key) if base is not None else ()
            table = self.table(self.take(data, key, dict, where, required=not inherited, default={}), f"{where}.{key}")
            if not table and not inherited:
                raise self.fail(f"{where}.{key}", f"no {key} given", f"map at least one: [occupancy.{key}] NAME = \"...\"")
            for name, value in table.items():
                if not isinstance(value, str) or not value:
                    raise self.fail(f"{where}.{key}.{name}", f"expected the occupancy model's {'name' if key == 'symbols' else 'preset id'} as text, found {type(value).__name__}")
            own = dict(table)
            pairs.append(tuple((name, own.pop(name, value)) for name, value in inherited) + tuple(own.items()))
        if base is not None and "source" not in data:
            return schema.OccupancyMapping(symbols=pairs[0], presets=pairs[1], source=base.source)
        return schema.OccupancyMapping(symbols=pairs[0], presets=pairs[1], source=self.source(data, where, refs))


def _plot_ids_ok(text: str) -> bool:
    return text.replace("_", "").isalnum()


def merge(base: tuple[Any, ...], own: tuple[Any, ...], key: str) -> tuple[Any, ...]:
    """Base entries in order, each replaced by the variant's entry with the same key; new ones appended."""
    replacements = {getattr(item, key): item for item in own}
    merged = [replacements.pop(getattr(item, key), item) for item in base]
    return tuple(merged) + tuple(item for item in own if getattr(item, key) in replacements)
