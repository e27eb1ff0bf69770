"""Measured data: CSV files whose column headers carry units (``n [warp/SM]``, ``dram_throughput [GB/s]``).

Format (the same for files read here and written by ``symgpu measure``):

* optional leading comment lines starting with ``#`` (provenance: device, driver, clock, date);
* one header row; every cell is ``name [unit]``: ``name`` a symbol-like identifier, ``unit`` a
  unit of symgpu's registry (``1`` for pure numbers), parsed by :func:`symgpu.units.unit` only;
* data rows of finite decimal numbers, one per cell, no empty cells;
* one exception, so that a sweep's CSV (``symgpu sweep -o x.csv``) reads back: a column headed
  :data:`REGIME` with no unit holds the regime labels a sweep writes (text, empty where no regime
  applies); it is kept as labels (:class:`LabelColumn`), never read as numbers.

Nothing else is accepted: a header without a unit (but :data:`REGIME`), an unknown unit, NaN or
infinity, a missing cell or a file over :data:`MAX_BYTES` is an error naming the file, row and column.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pint

from symgpu import errors, textfiles, units

#: Largest measured-data file read (bytes).
MAX_BYTES = 8_000_000
#: Most data rows read.
MAX_ROWS = 200_000
_HEADER = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[([^\[\]]*)\]\s*$")
#: a decimal number; NOTE: each part can match in one way only, so the match is linear in the cell's length
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
#: the longest number cell read (a double has 17 significant digits; the rest would be padding)
MAX_CELL = 64
#: the one column of labels read: the regime column ``symgpu sweep`` writes (its header has no unit)
REGIME = "regime"
#: the longest label read
MAX_LABEL = 200


@dataclass(frozen=True)
class Column:
    """One measured column.

    Attributes:
        name: the header name (a model symbol, or an annotation such as ``rep``).
        unit_text: the unit as written in the header.
        values: the numbers, in ``unit_text``.
    """

    name: str
    unit_text: str
    values: tuple[float, ...]

    @property
    def unit(self) -> pint.Unit:
        """The parsed unit."""
        return units.unit(self.unit_text)

    def array(self) -> np.ndarray:
        """The values as a float array."""
        return np.asarray(self.values, dtype=float)

    def quantity(self) -> pint.Quantity:
        """The values as a pint array quantity."""
        return units.registry().Quantity(self.array(), self.unit)


@dataclass(frozen=True)
class LabelColumn:
    """A column of labels, not numbers: a sweep's regime column (:data:`REGIME`), kept row by row, never data.

    Attributes:
        name: the header name.
        values: the labels (``""`` where none applies).
    """

    name: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class MeasuredData:
    """A measured-data file, read and checked.

    Attributes:
        path: the file as shown in messages.
        columns: the columns in file order.
        comments: the leading ``#`` lines without the ``#`` (provenance).
        selection: (column, value) row filters applied so far (see :meth:`where`).
        origins: each row's ``file:line`` (empty for data not read from a file).
        labels: the columns of labels (a sweep's regimes), row by row with ``columns``.
    """

    path: str
    columns: tuple[Column, ...]
    comments: tuple[str, ...] = ()
    selection: tuple[tuple[str, float], ...] = ()
    origins: tuple[str, ...] = ()
    labels: tuple[LabelColumn, ...] = ()

    @property
    def label_names(self) -> tuple[str, ...]:
        """The names of the columns of labels."""
        return tuple(c.name for c in self.labels)

    @property
    def names(self) -> tuple[str, ...]:
        """Column names in file order."""
        return tuple(c.name for c in self.columns)

    @property
    def rows(self) -> int:
        """Number of data rows."""
        return len(self.columns[0].values) if self.columns else 0

    def origin(self, row: int) -> str:
        """Where data row ``row`` (0-based) came from: ``file:line``, or ``path: row N``."""
        return self.origins[row] if row < len(self.origins) else f"{self.path}: row {row + 1}"

    def column(self, name: str) -> Column:
        """The column ``name``.

        Raises:
            errors.UsageError: no such column.
        """
        for column in self.columns:
            if column.name == name:
                return column
        if name in self.label_names:
            raise errors.UsageError(f"{self.path}: column '{name}' holds labels (a sweep's regimes), not numbers")
        raise errors.UsageError(f"{self.path}: no column '{name}' (columns: {', '.join(self.names)}); "
                                f"add a column headed '{name} [unit]'")

    def where(self, name: str, value: float) -> MeasuredData:
        """The rows whose column ``name`` equals ``value`` (in the column's unit).

        Raises:
            errors.UsageError: no such column, or no row matches.
        """
        column = self.column(name)
        keep = np.isclose(column.array(), value, rtol=1e-12, atol=0.0)
        if not keep.any():
            shown = ", ".join(f"{v:g}" for v in sorted(set(column.values)))
            suffix = unit_suffix(column.unit_text)
            raise errors.UsageError(f"{self.path}: no row has {name} = {value:g}{suffix} (values: {shown}{suffix})")
        origins = tuple(o for o, k in zip(self.origins, keep) if k)
        labels = tuple(LabelColumn(c.name, tuple(v for v, k in zip(c.values, keep) if k)) for c in self.labels)
        return MeasuredData(self.path, tuple(Column(c.name, c.unit_text, tuple(c.array()[keep].tolist())) for c in self.columns),
                            self.comments, self.selection + ((name, float(value)),), origins, labels)

    @property
    def label(self) -> str:
        """The path with the row filters, e.g. ``x.csv (alpha = 0)``."""
        return self.path + (f" ({', '.join(f'{k} = {v:g}' for k, v in self.selection)})" if self.selection else "")


def unit_suffix(unit_text: str) -> str:
    """`` us`` for a unit, empty for a pure number (``1``): what follows a value in a message or label."""
    return "" if unit_text in ("", "1") else f" {unit_text}"


#: joins the files of a concatenated data set in its path (``symgpu fit --data A --data B``)
JOIN = " + "


def concat(datasets: tuple[MeasuredData, ...] | list[MeasuredData]) -> MeasuredData:
    """The rows of several measured-data files as one data set (``--data`` given more than once).

    The files must have the same columns (names and units, in the same order). The path joins
    each file's label (with its row filters) by :data:`JOIN`; the selection is kept when every
    file has the same one (filters applied after joining), else each file's label carries it.

    Raises:
        errors.UsageError: no file, or the columns differ.
    """
    datasets = list(datasets)
    if not datasets:
        raise errors.UsageError("no measured-data file given; pass --data FILE")
    if len(datasets) == 1:
        return datasets[0]
    first = datasets[0]
    for other in datasets[1:]:
        heads = [(c.name, c.unit_text) for c in other.columns]
        if heads != [(c.name, c.unit_text) for c in first.columns] or other.label_names != first.label_names:
            raise errors.UsageError(
                f"{other.path}: columns {', '.join(f'{n} [{u}]' for n, u in heads)} differ from {first.path}'s "
                f"({', '.join(f'{c.name} [{c.unit_text}]' for c in first.columns)}); give files with the same header row")
    same = all(d.selection == first.selection for d in datasets)
    path = JOIN.join(d.path if same else d.label for d in datasets)
    columns = tuple(Column(c.name, c.unit_text, tuple(v for d in datasets for v in d.columns[i].values))
                    for i, c in enumerate(first.columns))
    comments = tuple(dict.fromkeys(line for d in datasets for line in d.comments))
    origins = tuple(d.origin(i) for d in datasets for i in range(d.rows))
    labels = tuple(LabelColumn(c.name, tuple(v for d in datasets for v in d.labels[i].values)) for i, c in enumerate(first.labels))
    return MeasuredData(path, columns, comments, first.selection if same else (), origins, labels)


def parse_header(cell: str, where: str) -> tuple[str, str]:
    """Split ``"n [warp/SM]"`` into ``("n", "warp/SM")`` after checking the unit; the bare :data:`REGIME` header
    (a sweep's labels) is ``("regime", "")``.

    Raises:
        errors.UsageError: not ``name [unit]``, or the unit is unknown.
    """
    match = _HEADER.match(cell)
    if not match:
        if cell.strip() == REGIME:
            return REGIME, ""  # a sweep's regime labels (read_csv keeps them as labels)
        raise errors.UsageError(f"{where}: header {cell.strip()!r} is not 'name [unit]'; "
                                f"write e.g. 'n [warp/SM]' ('[1]' for pure numbers)")
    name, unit_text = match.group(1), match.group(2).strip()
    try:
        units.unit(unit_text)
    except ValueError as exc:
        raise errors.UsageError(f"{where}: column '{name}': {exc}; correct the unit in the header, e.g. 'n [warp/SM]'") from None
    return name, unit_text or "1"


def read_csv(path: str | Path) -> MeasuredData:
    """Read and check a measured-data CSV file (see the module docstring for the format).

    Raises:
        errors.UsageError: the file is missing, too large, or breaks the format; the message
            names the file, the row and the column.
    """
    shown = str(path)
    raw = textfiles.read_bounded(path, limit=MAX_BYTES, what="measured data", hint="split the file")
    return parse_csv(textfiles.utf8_text(raw, shown), shown)


def parse_csv(text: str, shown: str = "<data>") -> MeasuredData:
    """Parse measured-data CSV text (see :func:`read_csv`)."""
    lines = text.splitlines()
    comments = []
    while lines and lines[0].lstrip().startswith("#"):
        comments.append(lines.pop(0).lstrip()[1:].strip())
    offset = len(comments)
    try:
        body = [row for row in csv.reader(io.StringIO("\n".join(lines)))]
    except csv.Error as exc:  # a cell over the csv module's field limit, a NUL byte
        raise errors.UsageError(f"{shown}: not CSV the reader can take ({exc}); fix the file") from None
    if not body or not any(cell.strip() for cell in body[0]):
        raise errors.UsageError(f"{shown}: no header row; the first line after the '#' comments names the columns as 'name [unit]'")
    header = [parse_header(cell, f"{shown}:{offset + 1}") for cell in body[0]]
    names = [name for name, _ in header]
    textfiles.refuse_repeated(names, f"{shown}:{offset + 1}")
    rows = [row for row in body[1:] if any(cell.strip() for cell in row)]
    if len(rows) > MAX_ROWS:
        raise errors.UsageError(f"{shown}: {len(rows)} data rows, more than the {MAX_ROWS} read")
    if not rows:
        raise errors.UsageError(f"{shown}: no data rows below the header")
    values: list[list[float]] = [[] for _ in header]
    texts: list[list[str]] = [[] for _ in header]
    origins = []
    for index, row in enumerate(body[1:], start=offset + 2):
        if not any(cell.strip() for cell in row):
            continue
        origins.append(f"{shown}:{index}")
        if len(row) != len(header):
            raise errors.UsageError(f"{shown}:{index}: {len(row)} cells, but the header names {len(header)} columns")
        for column, cell in enumerate(row):
            where = f"{shown}:{index}: column '{names[column]}'"
            if header[column][1]:
                values[column].append(_cell_number(cell, where))
            else:
                texts[column].append(_cell_label(cell, where))
    return MeasuredData(shown, tuple(Column(name, unit, tuple(vals)) for (name, unit), vals in zip(header, values) if unit),
                        tuple(comments), origins=tuple(origins),
                        labels=tuple(LabelColumn(name, tuple(text)) for (name, unit), text in zip(header, texts) if not unit))


def _cell_label(cell: str, where: str) -> str:
    """The label in ``cell`` (a sweep's regime; empty where none applies).

    Raises:
        errors.UsageError: a label over :data:`MAX_LABEL` characters, or one with unprintable characters.
    """
    text = cell.strip()
    if len(text) > MAX_LABEL or not text.isprintable():
        raise errors.UsageError(f"{where} holds {textfiles.printable(text, 20)!r}, not a regime label "
                                f"(printable, at most {MAX_LABEL} characters); fix or drop the row")
    return text


def _cell_number(cell: str, where: str) -> float:
    """The finite, representable number in ``cell``.

    Raises:
        errors.UsageError: an empty or over-long cell, not a decimal number (NaN, infinity, a
            decimal comma), or a number a double cannot hold (``1e999`` overflows to infinity,
            ``1e-999`` underflows to zero).
    """
    text = cell.strip()
    if len(text) > MAX_CELL:
        raise errors.UsageError(f"{where} holds a cell of {len(text)} characters ({text[:20]!r}...), more than the "
                                f"{MAX_CELL} a number needs; fix or drop the row")
    if not _NUMBER.fullmatch(text):
        what = "an empty cell" if not text else repr(text)
        hint = "; write a decimal point, not a comma" if "," in text else ""
        raise errors.UsageError(f"{where} holds {what}, not a finite decimal number (NaN and infinity are refused){hint}; "
                                f"fix or drop the row")
    value = float(text)
    mantissa = text.lower().partition("e")[0]
    if math.isinf(value) or (value == 0.0 and any(c in "123456789" for c in mantissa)) or (value != 0.0 and abs(value) < sys.float_info.min):
        raise errors.UsageError(f"{where} holds {text!r}, outside the range of a double "
                                f"(about 2.2e-308 to 1.8e308 in magnitude); write it in another unit of the column")
    return value


def from_arrays(shown: str, numbers: Sequence[tuple[str, str, np.ndarray]], labels: Sequence[tuple[str, Sequence[str]]] = ()) -> MeasuredData:
    """Measured data from columns already read (a sweep's Parquet: ``(name, unit text, values)`` each, and its
    regime labels), checked as :func:`parse_csv` checks a file's: a known unit, a finite number in every cell, at
    most :data:`MAX_ROWS` rows; a row is named ``shown: row N``.

    Raises:
        errors.UsageError: an unknown unit, a value that is not finite, no rows or too many.
    """
    textfiles.refuse_repeated([name for name, _, _ in numbers] + [name for name, _ in labels], shown)
    columns = []
    for name, unit_text, values in numbers:
        if not unit_text:
            raise errors.UsageError(f"{shown}: column '{name}' has no unit recorded; write the data with its units")
        try:
            units.unit(unit_text)
        except ValueError as exc:
            raise errors.UsageError(f"{shown}: column '{name}': {exc}") from None
        array = np.asarray(values, dtype=float)
        if array.size > MAX_ROWS:
            raise errors.UsageError(f"{shown}: {array.size} data rows, more than the {MAX_ROWS} read")
        bad = np.nonzero(~np.isfinite(array))[0]
        if bad.size:
            raise errors.UsageError(f"{shown}: row {int(bad[0]) + 1}: column '{name}' holds {float(array[bad[0]])!r}, not a finite number "
                                    f"({bad.size} of {array.size} rows; a sweep writes nan where a point is outside the model's domain); "
                                    f"sweep inside the domain, or drop those rows")
        columns.append(Column(name, unit_text, tuple(array.tolist())))
    if not columns or not columns[0].values:
        raise errors.UsageError(f"{shown}: no data rows")
    kept = tuple(LabelColumn(name, tuple(_cell_label(str(v), f"{shown}: row {i + 1}: column '{name}'") for i, v in enumerate(values)))
                 for name, values in labels)
    return MeasuredData(shown, tuple(columns), labels=kept)


def write_csv(path: str | Path, data: MeasuredData) -> None:
    """Write ``data`` in the measured-data format (comments, unit header, rows)."""
    out = io.StringIO()
    for line in data.comments:
        out.write(f"# {line}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([f"{c.name} [{c.unit_text}]" for c in data.columns] + [c.name for c in data.labels])
    label_rows = list(zip(*(c.values for c in data.labels))) if data.labels else [()] * data.rows
    for row, labels in zip(zip(*(c.values for c in data.columns)), label_rows):
        writer.writerow([_number(v) for v in row] + list(labels))
    Path(path).write_text(out.getvalue(), encoding="utf-8")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))
