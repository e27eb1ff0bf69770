"""Reading a written sweep back (for plots and checks): Parquet files, partitioned Parquet
folders (``--engine dask``) and CSV with ``name [unit]`` headers."""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from symgpu import errors
from symgpu.sweep.output import METADATA_KEY, REGIME, pyarrow_modules

#: the most rows read back, and the largest sweep metadata read (bytes)
MAX_ROWS = 20_000_000
MAX_METADATA = 1 << 20
_HEADER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?: \[([^\[\]]+)\])?$")


@dataclass(frozen=True)
class SweepTable:
    """A sweep read back: numeric columns, their units, the regime labels and the metadata."""

    columns: Mapping[str, np.ndarray]
    units: Mapping[str, str]
    regime: np.ndarray | None
    metadata: Mapping[str, Any]


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """Whether :func:`read` reads ``path`` as Parquet: a ``.parquet``/``.pq`` file, or a folder (of parts)."""
    source = Path(path)
    return source.is_dir() or source.suffix.lower() in (".parquet", ".pq")


def read(path: str | os.PathLike[str], max_rows: int = MAX_ROWS) -> SweepTable:
    """Read a sweep written by :mod:`symgpu.sweep.writers` or the dask engine (at most ``max_rows`` rows).

    Raises:
        errors.UsageError: missing file, unknown format, a malformed header, too many rows.
    """
    source = Path(path)
    if not source.exists():
        raise errors.UsageError(f"{str(source)!r}: no such file or folder")
    if not source.is_dir() and not source.is_file():
        raise errors.UsageError(f"{str(source)!r}: not a regular file or folder (a device or pipe); give the sweep's file")
    if is_parquet(source):
        pa, _ = pyarrow_modules()
        try:
            return _read_parquet(source, max_rows)
        except (OSError, ValueError, pa.ArrowException) as exc:
            if isinstance(exc, errors.UsageError):
                raise
            raise errors.UsageError(f"{str(source)!r}: not a Parquet sweep symgpu can read ({_line(exc)})") from None
    if source.suffix.lower() == ".csv":
        try:
            return _read_csv(source, max_rows)
        except (UnicodeDecodeError, csv.Error) as exc:
            raise errors.UsageError(f"{str(source)!r}: not a CSV sweep symgpu can read ({_line(exc)})") from None
    raise errors.UsageError(f"{str(source)!r}: expected a .parquet or .csv file, or a folder of Parquet parts")


def _line(exc: BaseException, limit: int = 200) -> str:
    """An exception's text on one line of printable characters, cut to ``limit``."""
    text = "".join(c if c.isprintable() else " " for c in str(exc))
    return text if len(text) <= limit else text[:limit] + "..."


def _metadata(raw: bytes, source: Path) -> dict[str, Any]:
    """The sweep's metadata, checked: a JSON object with ``units`` (names to unit strings) and,
    when present, ``grid`` (axis texts) and ``model`` / ``preset`` (names)."""
    where = f"{str(source)!r}: the {METADATA_KEY.decode()} metadata"
    if len(raw) > MAX_METADATA:
        raise errors.UsageError(f"{where} is {len(raw)} bytes (at most {MAX_METADATA}); not a sweep symgpu wrote")
    try:
        found = json.loads(raw)
    except (ValueError, RecursionError):
        raise errors.UsageError(f"{where} is not JSON symgpu can read (malformed or nested too deeply)") from None
    units = found.get("units") if isinstance(found, dict) else None
    if not isinstance(units, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in units.items()):
        raise errors.UsageError(f"{where} has no 'units' table of column names to unit strings; write the sweep with symgpu sweep")
    grid = found.get("grid", [])
    if not isinstance(grid, list) or not all(isinstance(g, str) for g in grid):
        raise errors.UsageError(f"{where}: 'grid' is not a list of axis texts; write the sweep with symgpu sweep")
    names = {k: found.get(k) or "" for k in ("model", "preset")}
    if not all(isinstance(v, str) and len(v) <= 200 and v.isprintable() for v in names.values()):
        raise errors.UsageError(f"{where}: 'model' and 'preset' are not short printable names; write the sweep with symgpu sweep")
    return {**found, "units": units, "grid": grid, **names}


def _read_parquet(source: Path, max_rows: int) -> SweepTable:
    pa, pq = pyarrow_modules()
    parts = sorted(source.glob("*.parquet")) if source.is_dir() else [source]
    if not parts:
        raise errors.UsageError(f"{str(source)!r}: the folder holds no .parquet parts")
    rows = sum(pq.ParquetFile(p).metadata.num_rows for p in parts)
    if rows > max_rows:
        raise errors.UsageError(f"{str(source)!r}: {rows} rows is too many to read back (at most {max_rows})")
    table = pa.concat_tables([pq.read_table(p) for p in parts])
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise errors.UsageError(f"{str(source)!r}: not a symgpu sweep (no {METADATA_KEY.decode()} metadata)")
    metadata = _metadata(raw, source)
    columns = {}
    for name in table.column_names:
        if name != REGIME:
            if not pa.types.is_integer(table.column(name).type) and not pa.types.is_floating(table.column(name).type):
                raise errors.UsageError(f"{str(source)!r}: column {ascii(name)[:80]} is not numeric ({table.column(name).type}); "
                                        "not a sweep symgpu wrote")
            columns[name] = table.column(name).to_numpy()
    regime = _labels(table.column(REGIME)) if REGIME in table.column_names else None
    return SweepTable(columns, {n: metadata["units"].get(n, "") for n in columns}, regime, metadata)


def _labels(column: Any) -> np.ndarray:
    """The regime column as an object array of labels (``""`` where none applies): a dictionary
    column (as symgpu writes it) by its codes, without a Python object per point; any other
    column value by value."""
    pa, _ = pyarrow_modules()
    if not pa.types.is_dictionary(column.type):
        return np.array([v if v is not None else "" for v in column.to_pylist()], dtype=object)
    whole = column.unify_dictionaries().combine_chunks()  # the parts of a folder share one dictionary
    labels = np.array([v if v is not None else "" for v in whole.dictionary.to_pylist()] + [""], dtype=object)
    codes = whole.indices.fill_null(-1).to_numpy(zero_copy_only=False)  # -1: the last label, ""
    return labels[codes]  # type: ignore[no-any-return]


def _read_csv(source: Path, max_rows: int) -> SweepTable:
    with open(source, encoding="utf-8", newline="") as stream:
        reader = csv.reader(stream)
        try:
            header = next(reader)
        except StopIteration:
            raise errors.UsageError(f"{str(source)!r}: empty file") from None
        names, units = [], {}
        for text in header:
            match = _HEADER.match(text.strip())
            if not match:
                raise errors.UsageError(f"{str(source)!r}: column header {text!r} is not NAME or 'NAME [UNIT]'")
            names.append(match.group(1))
            units[match.group(1)] = match.group(2) or "1"
        values: list[list[str]] = [[] for _ in names]
        for number, row in enumerate(reader, start=2):
            if number > max_rows + 1:
                raise errors.UsageError(f"{str(source)!r}: more than {max_rows} rows; too many to read back")
            if len(row) != len(names):
                raise errors.UsageError(f"{str(source)!r}, line {number}: {len(row)} fields, expected {len(names)}")
            for column, text in zip(values, row):
                column.append(text)
    regime = np.array(values[names.index(REGIME)], dtype=object) if REGIME in names else None
    columns = {}
    for name, texts in zip(names, values):
        if name == REGIME:
            continue
        try:
            columns[name] = np.array([float(t) for t in texts], dtype=float)
        except ValueError as exc:
            raise errors.UsageError(f"{str(source)!r}: column {name}: {exc}") from None
    units.pop(REGIME, None)
    return SweepTable(columns, units, regime, {"units": units})
