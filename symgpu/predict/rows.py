"""Reading kernel measurements in the NeuSight CSV format into frozen records."""

from __future__ import annotations

import csv
import io
import math
import os
import re
from dataclasses import dataclass

import pint

from symgpu import errors, textfiles, units

#: the largest CSV read (bytes)
MAX_BYTES = 64 << 20
#: columns every row needs
REQUIRED = ("OPName", "Device", "Kernel Name", "Grid x", "Grid y", "Grid z", "Block x", "Block y", "Block z")
#: problem-size columns read when present
SIZES = ("B", "H", "M", "N", "K")
#: the measured column: ``Latency`` (milliseconds, as NeuSight writes it) or ``Latency [unit]`` (a unit of time); a file
#: without it is one of rows to predict, with no measured times
LATENCY = "Latency"
_LATENCY_UNIT = re.compile(r"Latency\s*\[([^\[\]]*)\]")
#: a header that looks like the measured time but is not read as one (``Latency (ms)``, ``Lat``, ``latency``): refused,
#: so a file is never read as predictions only because its measured column is misnamed
_NEAR_LATENCY = re.compile(r"^\s*lat|latency", re.IGNORECASE)


@dataclass(frozen=True)
class KernelRow:
    """One kernel launch.

    Attributes:
        index: 0-based data row number in the file.
        cells: every cell of the row, in file order (written back unchanged).
        operator: ``OPName`` (add, ln, softmax, linear...).
        device: the GPU as CUDA names it.
        kernel: the launched kernel's name.
        grid: (x, y, z) blocks.
        block: (x, y, z) threads.
        sizes: (name, value) of the problem columns present (B, H, M, N, K).
        latency_ms: the measured time in ms, converted exactly from the column's unit (NaN when not measured).
        problem: why a cell could not be read ("" when none).
    """

    index: int
    cells: tuple[str, ...]
    operator: str
    device: str
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    sizes: tuple[tuple[str, float], ...]
    latency_ms: float
    problem: str = ""

    def size(self, name: str) -> float:
        """The problem column ``name`` (NaN when absent)."""
        return dict(self.sizes).get(name, math.nan)


def read_rows(path: str | os.PathLike[str]) -> tuple[tuple[str, ...], tuple[KernelRow, ...]]:
    """The header and rows of a NeuSight-format CSV.

    Raises:
        errors.UsageError: the file is unreadable, not UTF-8, empty, names a column twice, lacks a required column,
            has a column that looks like the measured time but is not ``Latency`` or ``Latency [unit]``, or gives that a
            unit that is no time. A file with no such column at all is read with every ``latency_ms`` NaN (not measured).
    """
    raw = textfiles.read_bounded(path, limit=MAX_BYTES, what="kernel measurements",
                                 hint="give a NeuSight-format CSV (OPName, Latency, Device, Kernel Name, Grid/Block x/y/z, sizes)")
    return parse_rows(textfiles.utf8_text(raw, str(path)), str(path))


def parse_rows(text: str, shown: str = "<data>") -> tuple[tuple[str, ...], tuple[KernelRow, ...]]:
    """Parse CSV ``text`` (see :func:`read_rows`)."""
    table = list(csv.reader(io.StringIO(text)))
    if not table:
        raise errors.UsageError(f"{shown}: empty file; give a NeuSight-format CSV with a header row")
    header = tuple(h.strip() for h in table[0])
    measured = [i for i, h in enumerate(header) if h == LATENCY or _LATENCY_UNIT.fullmatch(h)]
    textfiles.refuse_repeated([LATENCY if i in measured else h for i, h in enumerate(header) if h], f"{shown}:1")
    near = [h for h in header if not measured and _NEAR_LATENCY.search(h)]
    missing = [c for c in REQUIRED if c not in header] + ([LATENCY] if near else [])
    if missing:
        said = f"; column {near[0]!r} looks like the measured time but is not read as one" if near else ""
        raise errors.UsageError(f"{shown}:1: no column {', '.join(repr(c) for c in missing)} (columns: {textfiles.listing(list(header))}){said}; "
                                "give the NeuSight format (the measured time as 'Latency' in ms or 'Latency [us]', cells empty where not "
                                "measured; no such column for predictions only)")
    at = {name: i for i, name in enumerate(header)} | ({LATENCY: measured[0]} if measured else {})
    column = _latency_column(header[measured[0]], shown) if measured else (LATENCY, "milliseconds", None)
    rows = []
    for index, cells in enumerate(table[1:]):
        if not any(c.strip() for c in cells):
            continue
        padded = tuple(cells) + ("",) * (len(header) - len(cells))
        rows.append(_row(index, padded[:len(header)], at, shown, column))
    return header, tuple(rows)


def _latency_column(cell: str, shown: str) -> tuple[str, str, pint.Unit | None]:
    """The measured-time column headed ``cell``: (``cell``, its unit in words, its unit: None for ``Latency``, in ms
    as NeuSight writes it).

    Raises:
        errors.UsageError: the unit is unknown or no unit of time.
    """
    match = _LATENCY_UNIT.fullmatch(cell)
    if match is None:
        return cell, "milliseconds", None
    text = match.group(1).strip()
    try:
        unit = units.unit(text)
        units.exact_factor(unit, "ms")
    except ValueError as exc:
        raise errors.UsageError(f"{shown}:1: column {cell!r}: {exc}; write the unit of the measured times, e.g. 'Latency [us]'") from None
    except pint.DimensionalityError:
        raise errors.UsageError(f"{shown}:1: column {cell!r}: {text!r} is {units.format_dimension(unit.dimensionality)}, not a time; "
                                "write the unit of the measured times, e.g. 'Latency [ms]' or 'Latency [us]'") from None
    return cell, repr(text), unit


def _row(index: int, cells: tuple[str, ...], at: dict[str, int], shown: str = "<data>",
         measured: tuple[str, str, pint.Unit | None] = (LATENCY, "milliseconds", None)) -> KernelRow:
    """Row ``index`` of the file ``shown``: a cell the model reads that is no positive number is the row's
    ``problem`` (the row is not predicted); a measured time that is no positive number refuses the file. The
    measured time is in the unit of its column, ``measured`` (:func:`_latency_column`), converted exactly to ms
    (``units.exact_convert``).

    Raises:
        errors.UsageError: the ``Latency`` cell is given but is not a positive finite number (0, negative,
            NaN, inf or text): a measured time that cannot be one, which accuracy figures would divide by.
    """
    problems: list[str] = []

    def number(name: str) -> float:
        text = cells[at[name]].strip() if name in at else ""
        try:
            value = float(text)
        except ValueError:
            problems.append(f"{name} is {text!r}, not a number")
            return math.nan
        if not math.isfinite(value) or value <= 0:
            problems.append(f"{name} is {text!r}, not a positive number")
            return math.nan
        return value

    def whole(name: str) -> int:
        value = number(name)
        return int(value) if math.isfinite(value) else 0

    grid = (whole("Grid x"), whole("Grid y"), whole("Grid z"))
    block = (whole("Block x"), whole("Block y"), whole("Block z"))
    sizes = tuple((n, number(n)) for n in SIZES if n in at and cells[at[n]].strip())
    latency = math.nan  # an empty cell: not measured
    text, (column, what, unit) = cells[at[LATENCY]].strip() if LATENCY in at else "", measured
    if text:
        try:
            latency = float(text)
        except ValueError:
            latency = math.nan
        if unit is not None and math.isfinite(latency):
            latency = float(units.exact_convert(units.registry().Quantity(latency, unit), "ms").magnitude)
        if not (math.isfinite(latency) and latency > 0):
            raise errors.UsageError(f"{shown}: row {index}, column {column}: {textfiles.printable(text, 40)!r} is not a measured time "
                                    f"(expected a positive number of {what}); correct that cell, leave it empty (not measured) "
                                    "or remove the row")
    return KernelRow(index, cells, cells[at["OPName"]].strip(), cells[at["Device"]].strip(), cells[at["Kernel Name"]].strip(),
                     grid, block, sizes, latency, "; ".join(problems))
