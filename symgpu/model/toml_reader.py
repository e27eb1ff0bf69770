"""Typed access to the tables of a TOML model file, every problem a ``ModelFileError`` located at
its key path (``[symbols.x].unit``, ``validation[id="case"]``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from symgpu import errors
from symgpu.model import schema

#: Any entry id (preset, equation, validation case...): ASCII, never a path.
ENTRY_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")


def cut(text: str, limit: int = 60) -> str:
    """``text`` shortened to ``limit`` characters for messages."""
    return text if len(text) <= limit else text[:limit] + "..."


#: the most entries of each array of tables in one model file: each plot, measurement and table is
#: drawn or computed by ``report`` (seconds each), so these are kept to what a report can hold
MAX_ENTRIES = {"plots": 32, "measurements": 16, "tables": 16}
#: the most entries of any other array of tables (equations, validation cases, derivations, errata)
MAX_OTHER_ENTRIES = 2000


class TableReader:
    """Reads one file's tables: ``path`` is what messages show."""

    path: str

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
        limit = MAX_ENTRIES.get(array, MAX_OTHER_ENTRIES)
        if len(data) > limit:
            raise self.fail(f"[[{array}]]", f"{len(data)} entries, more than the {limit} a model file may hold",
                            "split the model into variants (extends) or drop entries")
        seen: set[str] = set()
        for index, entry in enumerate(data):
            where = f"{array}[{index}]"
            entry = self.table(entry, where)
            if isinstance(entry.get("id"), str):
                if not ENTRY_ID.match(entry["id"]):
                    raise self.fail(f"{where}.id", f"{label} id {cut(ascii(entry['id']))} is not a plain id", "use ASCII letters, digits, '_', '.' and '-'")
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
        return schema.SourceLocator(ref or kind, locator or note, kind)

    # -- sections ----------------------------------------------------------------------


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
