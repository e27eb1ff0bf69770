"""Reading kernel measurements in the NeuSight CSV format into frozen records."""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass

from symgpu import errors, textfiles

#: the largest CSV read (bytes)
MAX_BYTES = 64 << 20
#: columns every row needs
REQUIRED = ("OPName", "Device", "Kernel Name", "Grid x", "Grid y", "Grid z", "Block x", "Block y", "Block z")
#: problem-size columns read when present
SIZES = ("B", "H", "M", "N", "K")
#: the measured column (milliseconds), optional
LATENCY = "Latency"


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
        latency_ms: the measured time (NaN when absent or not a number).
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
        errors.UsageError: the file is unreadable, empty, or lacks a required column.
    """
    raw = textfiles.read_bounded(path, limit=MAX_BYTES, what="kernel measurements",
                                 hint="give a NeuSight-format CSV (OPName, Latency, Device, Kernel Name, Grid/Block x/y/z, sizes)")
    return parse_rows(raw.decode("utf-8", errors="replace"), str(path))


def parse_rows(text: str, shown: str = "<data>") -> tuple[tuple[str, ...], tuple[KernelRow, ...]]:
    """Parse CSV ``text`` (see :func:`read_rows`)."""
    table = list(csv.reader(io.StringIO(text)))
    if not table:
        raise errors.UsageError(f"{shown}: empty file; give a NeuSight-format CSV with a header row")
    header = tuple(h.strip() for h in table[0])
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise errors.UsageError(f"{shown}: no column {', '.join(repr(c) for c in missing)} "
                                f"(columns: {textfiles.listing(list(header))}); give the NeuSight format")
    at = {name: i for i, name in enumerate(header)}
    rows = []
    for index, cells in enumerate(table[1:]):
        if not any(c.strip() for c in cells):
            continue
        padded = tuple(cells) + ("",) * (len(header) - len(cells))
        rows.append(_row(index, padded[:len(header)], at, shown))
    return header, tuple(rows)


def _row(index: int, cells: tuple[str, ...], at: dict[str, int], shown: str = "<data>") -> KernelRow:
    """Row ``index`` of the file ``shown``: a cell the model reads that is no positive number is the row's
    ``problem`` (the row is not predicted); a measured time that is no positive number refuses the file.

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
    text = cells[at[LATENCY]].strip() if LATENCY in at else ""
    if text:
        try:
            latency = float(text)
        except ValueError:
            latency = math.nan
        if not (math.isfinite(latency) and latency > 0):
            raise errors.UsageError(f"{shown}: row {index}, column {LATENCY}: {textfiles.printable(text, 40)!r} is not a measured time "
                                    "(expected a positive number of milliseconds); correct that cell, leave it empty (not measured) "
                                    "or remove the row")
    return KernelRow(index, cells, cells[at["OPName"]].strip(), cells[at["Device"]].strip(), cells[at["Kernel Name"]].strip(),
                     grid, block, sizes, latency, "; ".join(problems))
