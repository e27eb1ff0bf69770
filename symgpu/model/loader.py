"""Read model files (``equations/*.toml``) into :class:`~symgpu.model.schema.ModelDefinition` records.

This is the only module that touches the filesystem for models. It checks the *shape* of
a file (keys, types, ids, references); the SymPy and unit checks happen in
:mod:`symgpu.model` and :mod:`symgpu.units.dimensions`.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from collections.abc import Iterator
from typing import Any

from symgpu import errors
from symgpu.model import schema

#: Repository root (``equations/`` and ``templates/`` live beside the package).
ROOT = Path(__file__).resolve().parents[2]
ENV_EQUATIONS = "SYMGPU_EQUATIONS"
SCHEMA_CHANGES = {1: "first version"}
#: Names a symbol may not take: they are keyword arguments of ``Model.evaluate(name, preset=, checks=, **values)``.
_RESERVED_PRESET_KEYS = {"description", "source", "based_on", "values", "notes"}
#: Largest model file read (the largest bundled file has 75 KB).
MAX_FILE_BYTES = 1 << 20
#: A model id (file stem, ``extends``) and any other id (preset, equation...): ASCII, never a path.
MODEL_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$")
ENTRY_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")


def equations_dir() -> Path:
    """Return the folder of bundled model files (``$SYMGPU_EQUATIONS`` overrides it)."""
    override = os.environ.get(ENV_EQUATIONS)
    return Path(override) if override else ROOT / "equations"


def list_models(folder: Path | None = None) -> list[str]:
    """Return the ids of the bundled models, sorted."""
    folder = equations_dir() if folder is None else folder
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.toml"))


def resolve(id_or_path: str | os.PathLike[str], folder: Path | None = None) -> Path:
    """Map a model id or a path to the model file.

    Raises:
        errors.UsageError: no such model id or file.
    """
    text = os.fspath(id_or_path)
    candidate = Path(text)
    if text.endswith(".toml") or os.sep in text or "/" in text:
        if not candidate.is_file():
            raise errors.UsageError(f"{text}: no such model file")
        return candidate
    folder = equations_dir() if folder is None else folder
    path = folder / f"{text}.toml"
    if not path.is_file():
        known = ", ".join(list_models(folder)) or "none"
        raise errors.UsageError(f"unknown model {text!r} (bundled models: {known}); give a model id or a path to a .toml file")
    return path


def read_definition(path: str | os.PathLike[str], _trail: tuple[str, ...] = (), _first: str = "") -> schema.ModelDefinition:
    """Read and shape-check one model file.

    A file whose ``[model]`` has ``extends = "<id>"`` is a *variant*: it inherits the base
    model's references, symbols, equations, presets, validation cases and derivations;
    entries with the same id (symbol name, equation id, preset id, case id) replace the
    base's, others are added. The base is looked up beside the variant file first, then
    among the bundled models.

    Raises:
        errors.ModelFileError: the file is not valid TOML, does not follow the schema, or
            extends a model that is missing or extends it back.
    """
    path = Path(path)
    shown = _shown(path)
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise errors.ModelFileError(shown, "", f"cannot read file ({exc.strerror})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise errors.ModelFileError(shown, "", f"file is larger than {MAX_FILE_BYTES} bytes", "a model file is text of at most 1 MiB")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise errors.ModelFileError(shown, "", f"file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise errors.ModelFileError(shown, "", f"invalid TOML: {exc}") from None
    except RecursionError:
        raise errors.ModelFileError(shown, "", "invalid TOML: arrays or tables nested too deeply") from None
    except ValueError as exc:  # NOTE: CPython's int-conversion limit, raised through tomllib
        raise errors.ModelFileError(shown, "", f"invalid TOML: a number is too long to read ({type(exc).__name__})", "write numbers of at most a few dozen digits") from None
    base = None
    meta = data.get("model")
    extends = meta.get("extends") if isinstance(meta, dict) else None
    if isinstance(extends, str) and extends:
        if not MODEL_ID.match(extends):
            hint = f"write extends = \"<id>\" with the base model's id (bundled: {', '.join(list_models()) or 'none'})"
            raise errors.ModelFileError(shown, "[model].extends", f"{_cut(extends)!r} is not a model id: extends names a model (letters, digits, '_', '-'), never a path", hint)
        trail = _trail + (path.stem,)
        if extends in trail:
            raise errors.ModelFileError(_first or shown, "[model].extends", f"models extend each other in a cycle: {' -> '.join(trail + (extends,))}")
        base_path = path.parent / f"{extends}.toml"
        if not base_path.is_file():
            base_path = equations_dir() / f"{extends}.toml"
        if not base_path.is_file():
            raise errors.ModelFileError(shown, "[model].extends", f"unknown base model '{extends}'", f"bundled models: {', '.join(list_models()) or 'none'}")
        base = read_definition(base_path, trail, _first or shown)
    return _Reader(shown, path.stem, base).model(data)


def _shown(path: Path) -> str:
    """Path as shown in messages: relative to the repository root when inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


class _Reader:
    """Shape checks with messages that name the file and the key path."""

    def __init__(self, path: str, stem: str, base: schema.ModelDefinition | None = None) -> None:
        self.path = path
        self.stem = stem
        self.base = base

    def fail(self, where: str, problem: str, hint: str = "") -> errors.ModelFileError:
        return errors.ModelFileError(self.path, where, problem, hint)

    # -- primitive getters -------------------------------------------------------------
    def table(self, data: Any, where: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.fail(where, f"expected a table, found {_kind(data)}")
        return data

    def take(self, data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str, *, required: bool = True, default: Any = None) -> Any:
        if key not in data:
            if required:
                raise self.fail(where, f"missing required key '{key}'")
            return default
        value = data[key]
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise self.fail(f"{where}.{key}", f"expected {_kind_name(kind)}, found a boolean")
        if not isinstance(value, kind):
            raise self.fail(f"{where}.{key}", f"expected {_kind_name(kind)}, found {_kind(value)}")
        return value

    def strings(self, data: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = self.take(data, key, (list, str), where, required=False, default=())
        if isinstance(value, str):
            value = [value]
        for item in value:
            if not isinstance(item, str):
                raise self.fail(f"{where}.{key}", f"expected a list of strings, found {_kind(item)} in it")
        return tuple(value)

    def unknown(self, data: dict[str, Any], allowed: set[str], where: str) -> None:
        extra = sorted(set(data) - allowed)
        if extra:
            raise self.fail(where, f"unknown key '{extra[0]}'", f"allowed keys: {', '.join(sorted(allowed))}")

    def entries(self, data: list[Any], array: str, label: str, allowed: set[str] | None = None) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """Yield ``(where, id, entry)`` for an array of tables with unique ``id`` keys.

        ``where`` names the entry as ``<label> <id>`` (or ``<array>[<index>]`` before its id is
        known); unknown keys (when ``allowed`` is given), a missing id and duplicates are errors.
        """
        seen: set[str] = set()
        for index, entry in enumerate(data):
            where = f"{array}[{index}]"
            entry = self.table(entry, where)
            if isinstance(entry.get("id"), str):
                if not ENTRY_ID.match(entry["id"]):
                    raise self.fail(f"{where}.id", f"{label} id {_cut(ascii(entry['id']))} is not a plain id", "use ASCII letters, digits, '_', '.' and '-'")
                where = f"{label} {entry['id']}"
            if allowed is not None:
                self.unknown(entry, allowed, where)
            entry_id = self.take(entry, "id", str, where)
            if entry_id in seen:
                raise self.fail(where, f"duplicate {label} id '{entry_id}'")
            seen.add(entry_id)
            yield where, entry_id, entry

    def source(self, data: dict[str, Any], where: str, refs: set[str], *, required: bool = True) -> schema.SourceLocator:
        if "source" not in data and not required:
            return schema.SourceLocator("", "")
        value = self.take(data, "source", (dict, str), where)
        if isinstance(value, str):
            return schema.SourceLocator("", value)
        self.unknown(value, {"ref", "locator", "kind", "note"}, f"{where}.source")
        ref = self.take(value, "ref", str, f"{where}.source", required=False, default="")
        if ref and ref not in refs:
            raise self.fail(f"{where}.source.ref", f"unknown reference '{ref}'", f"declare it under [references.{ref}] (declared: {', '.join(sorted(refs)) or 'none'})")
        locator = self.take(value, "locator", str, f"{where}.source", required=False, default="")
        note = self.take(value, "note", str, f"{where}.source", required=False, default="")
        kind = self.take(value, "kind", str, f"{where}.source", required=False, default="")
        if not ref and not locator and not note:
            raise self.fail(f"{where}.source", "a source needs 'ref' and 'locator' (or 'kind' and 'note')")
        return schema.SourceLocator(ref or kind, locator or note)

    # -- sections ----------------------------------------------------------------------
    def model(self, data: dict[str, Any]) -> schema.ModelDefinition:
        self.unknown(data, {"schema_version", "model", "references", "symbols", "equations", "derivations", "presets", "validation", "plots", "errata"}, "top level")
        version = self.take(data, "schema_version", int, "top level")
        if version > schema.SCHEMA_VERSION:
            raise self.fail("schema_version", f"version {version} is newer than this symgpu supports ({schema.SCHEMA_VERSION})", "upgrade symgpu")
        if version < 1:
            raise self.fail("schema_version", f"version {version} does not exist", f"write schema_version = {schema.SCHEMA_VERSION}")
        meta = self.table(self.take(data, "model", dict, "top level"), "[model]")
        self.unknown(meta, {"id", "title", "summary", "references", "extends"}, "[model]")
        model_id = self.take(meta, "id", str, "[model]")
        if not MODEL_ID.match(model_id):
            raise self.fail("[model].id", f"id {_cut(model_id)!r} is not a plain model id", "use letters, digits, '_' and '-' (the id names the file and the report folder)")
        if model_id != self.stem:
            raise self.fail("[model].id", f"id '{model_id}' differs from the file stem '{self.stem}'", f"rename the file to {model_id}.toml or set id = \"{self.stem}\"")
        references = self.references(self.take(data, "references", dict, "top level", required=False, default={}))
        if self.base is not None:
            references = _merge(self.base.references, references, "key")
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
        if self.base is not None:
            plots = _merge(self.base.plots, plots, "id")
            errata = _merge(self.base.errata, errata, "id")
            symbols = _merge(self.base.symbols, symbols, "name")
            equations = _merge(self.base.equations, equations, "id")
            presets = _merge(self.base.presets, presets, "id")
            validation = _merge(self.base.validation, validation, "id")
            derivations = _merge(self.base.derivations, derivations, "id")
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
                shown = _cut(name.encode("ascii", "backslashreplace").decode("ascii"))
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
        allowed = {"id", "defines", "rhs", "cases", "limiters", "source", "counts", "valid_when", "note"}
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
                    raise self.fail(f"{where}.limiters.{key}", f"expected an expression string, found {_kind(value)}")
            out.append(schema.EquationDefinition(
                id=eq_id,
                defines=self.take(entry, "defines", str, where),
                source=self.source(entry, where, refs),
                rhs=self.take(entry, "rhs", str, where, required=False, default=""),
                cases=cases,
                limiters=tuple(limiters.items()),
                counts=self.strings(entry, "counts", where),
                valid_when=self.strings(entry, "valid_when", where),
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
            where = f"[presets.{_cut(preset_id)}]"
            if not ENTRY_ID.match(preset_id):
                raise self.fail(where, f"preset id {_cut(ascii(preset_id))} is not a plain id", "use ASCII letters, digits, '_', '.' and '-' (preset ids name report files)")
            entry = self.table(entry, where)
            self.unknown(entry, _RESERVED_PRESET_KEYS, where)
            values = self.table(self.take(entry, "values", dict, where, required=False, default={}), f"{where}.values")
            for key, value in values.items():
                if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                    raise self.fail(f"{where}.values.{key}", f"expected a quantity string or number, found {_kind(value)}")
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
                    raise self.fail(f"{where}.{key}", f"expected a quantity string or number, found {_kind(value)}")
            out.append(schema.ValidationCase(
                id=case_id,
                preset=self.take(entry, "preset", str, where, required=False, default=""),
                inputs=tuple(inputs.items()),
                expect=tuple((k, str(v)) for k, v in expect.items()),
                source=self.source(entry, where, refs),
                rel_tol=_float(self.take(entry, "rel_tol", (int, float), where, required=False, default=None)),
                abs_tol=_float(self.take(entry, "abs_tol", (int, float), where, required=False, default=None)),
                erratum=self.take(entry, "erratum", str, where, required=False, default=""),
                note=self.take(entry, "note", str, where, required=False, default=""),
                derivation=self.take(entry, "derivation", str, where, required=False, default=""),
            ))
        return tuple(out)

    def derivations(self, data: list[Any]) -> tuple[schema.DerivationRequest, ...]:
        out = []
        for where, request_id, entry in self.entries(data, "derivations", "derivation"):
            op = self.take(entry, "op", str, where)
            if op not in schema.DERIVATION_OPS:
                raise self.fail(f"{where}.op", f"unknown operation '{op}'", f"use one of: {', '.join(schema.DERIVATION_OPS)}")
            fields = tuple((k, _freeze(v)) for k, v in entry.items() if k not in ("id", "op"))
            out.append(schema.DerivationRequest(id=request_id, op=op, fields=fields))
        return tuple(out)

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
            kind = self.take(entry, "kind", str, where)
            if kind not in schema.PLOT_KINDS:
                raise self.fail(f"{where}.kind", f"unknown plot kind '{kind}'", f"use one of: {', '.join(schema.PLOT_KINDS)}")
            fields = tuple((k, _freeze(v)) for k, v in entry.items() if k not in ("id", "kind"))
            out.append(schema.PlotRequest(id=plot_id, kind=kind, fields=fields))
        return tuple(out)


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."  # for messages


def _plot_ids_ok(text: str) -> bool:
    return text.replace("_", "").isalnum()


def _merge(base: tuple[Any, ...], own: tuple[Any, ...], key: str) -> tuple[Any, ...]:
    """Base entries in order, each replaced by the variant's entry with the same key; new ones appended."""
    replacements = {getattr(item, key): item for item in own}
    merged = [replacements.pop(getattr(item, key), item) for item in base]
    return tuple(merged) + tuple(item for item in own if getattr(item, key) in replacements)


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"{type(value).__name__} {value!r}"


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", dict: "a table", list: "an array", bool: "a boolean"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)
