"""Nsight Compute metrics from an ``ncu --csv --page raw`` export.

The raw page's CSV has a header row (identification columns such as ``ID``, ``Kernel Name``,
``Block Size``, ``Grid Size``, then one column per metric, e.g. ``sm__cycles_elapsed.avg``),
a units row (``cycle``, ``inst``, ``sector``, ``%``, ``byte``, ``nsecond``...; empty for the
identification columns) and one row per profiled kernel launch. Values may carry thousands
separators (``"1,048,576"``).

Units are translated through a fixed table (:data:`UNITS`) into symgpu's registry; a unit
not in the table is an error, never a guess, and no header text is ever parsed as a unit
expression.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pint

from symgpu import errors, textfiles, units

#: Largest export read (bytes), longest metric cell read (characters).
MAX_BYTES = 16 * 1024 * 1024
MAX_CELL = 64
#: the largest percentage accepted (NOTE: 100 plus rounding: ncu prints e.g. 100.01 for a full unit)
PERCENT_LIMIT = 100.5
#: a number cell: commas only between groups of three digits, a decimal point, an exponent (a linear pattern)
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?|[-+]?\.\d+(?:[eE][-+]?\d+)?")

#: Nsight Compute unit name -> symgpu unit. Nsight Compute counts instructions per warp
#: (``smsp__inst_executed``: warp-level instructions), sectors as 32-byte L1/L2 transactions,
#: requests as warp-level memory requests.
UNITS: dict[str, str] = {
    "cycle": "cycle", "cycles": "cycle",
    "inst": "winst", "warp": "warp", "block": "block", "thread": "thread",
    "sector": "txn", "request": "req",
    "byte": "B", "Kbyte": "kB", "Mbyte": "MB", "Gbyte": "GB",
    "byte/second": "B/s", "Gbyte/second": "GB/s", "Tbyte/second": "TB/s",
    "nsecond": "ns", "usecond": "us", "msecond": "ms", "second": "s",
    "cycle/nsecond": "cycle/ns", "Ghz": "GHz", "hz": "Hz",
    "%": "1", "": "1",
}

#: Nsight Compute unit name -> factor applied to the value (percentages become fractions).
FACTORS: dict[str, float] = {"%": 0.01}

#: identification columns of the raw page (not metrics).
ID_COLUMNS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
              "Block Size", "Grid Size", "Device", "CC", "Section Name")


@dataclass(frozen=True)
class Launch:
    """One profiled kernel launch.

    Attributes:
        index: the ``ID`` column (or the row number).
        kernel: the ``Kernel Name`` column.
        block_size: the ``Block Size`` column as printed, e.g. ``(256, 1, 1)``.
        grid_size: the ``Grid Size`` column as printed.
        metrics: metric name -> quantity in symgpu's registry.
        origin: ``file:line`` of the row.
        cc: the ``CC`` column, the profiled GPU's compute capability as printed (``8.9``); "" where the export has none.
    """

    index: str
    kernel: str
    block_size: str
    grid_size: str
    metrics: Mapping[str, pint.Quantity]
    origin: str
    cc: str = ""

    def metric(self, name: str) -> pint.Quantity:
        """The metric ``name``.

        Raises:
            errors.UsageError: the export has no such column.
        """
        try:
            return self.metrics[name]
        except KeyError:
            raise errors.UsageError(f"{self.origin}: the Nsight Compute export has no metric {name!r}; "
                                    f"profile with --metrics {name} (or a section that collects it)") from None


def read(path: str | Path) -> tuple[Launch, ...]:
    """Read an ``ncu --csv --page raw`` export.

    Raises:
        errors.UsageError: missing or oversized file, binary bytes (named by offset), no units row,
            unknown unit, non-numeric value.
    """
    raw = textfiles.read_bounded(path, limit=MAX_BYTES, what="Nsight Compute export", hint="export fewer launches (ncu --launch-count)")
    return parse(textfiles.decode_text(raw, path, "Nsight Compute CSV export"), source=str(path))


def parse(text: str, *, source: str = "<csv>") -> tuple[Launch, ...]:
    """Parse the export's text; see :func:`read`."""
    rows = list(csv.reader(io.StringIO(text)))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    # ncu may print '==PROF==' lines before the table
    start = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if start is None or len(rows) < start + 2:
        raise errors.UsageError(f"{source}: not an 'ncu --csv --page raw' export: expected a header row starting with \"ID\" and a units row")
    header, unit_row = rows[start], rows[start + 1]
    repeated = sorted({n for n in header if header.count(n) > 1})
    if repeated:
        raise errors.UsageError(f"{source}:{start + 1}: column {textfiles.listing(repeated)} appears more than once; "
                                "export each metric once (ncu --csv --page raw)")
    if len(unit_row) != len(header):
        raise errors.UsageError(f"{source}:{start + 2}: the units row has {len(unit_row)} columns, the header {len(header)}")
    metric_units: dict[int, tuple[pint.Unit, float]] = {}
    for column, (name, unit_name) in enumerate(zip(header, unit_row)):
        if name in ID_COLUMNS:
            continue
        if unit_name not in UNITS:
            raise errors.UsageError(f"{source}:{start + 2}: metric {name!r} has unit {unit_name!r}, which symgpu does not know "
                                    f"(known: {', '.join(repr(u) for u in UNITS if u)}); export with --print-units base")
        metric_units[column] = (units.unit(UNITS[unit_name]), FACTORS.get(unit_name, 1.0))
    launches = []
    reg = units.registry()
    for offset, row in enumerate(rows[start + 2:], start=start + 3):
        where = f"{source}:{offset}"
        if len(row) != len(header):
            raise errors.UsageError(f"{where}: {len(row)} columns, the header has {len(header)}")
        cells = dict(zip(header, row))
        metrics = {}
        for column, (unit, factor) in metric_units.items():
            if row[column].strip() in ("", "n/a", "N/A"):
                continue
            value = _value(row[column], f"{where}: metric {textfiles.printable(header[column], 80)!r}", unit_row[column])
            metrics[header[column]] = reg.Quantity(value * factor, unit)
        launches.append(Launch(index=cells.get("ID", str(offset)), kernel=cells.get("Kernel Name", ""),
                               block_size=cells.get("Block Size", ""), grid_size=cells.get("Grid Size", ""),
                               metrics=metrics, origin=where, cc=cells.get("CC", "").strip()))
    if not launches:
        raise errors.UsageError(f"{source}: the export has a header but no kernel launch rows")
    return tuple(launches)


def _value(cell: str, where: str, unit_name: str) -> float:
    """The number in a metric cell: digits with an optional decimal point and exponent, commas
    only as thousands separators (``1,234,567``); finite; a percentage within 0..100.

    Raises:
        errors.UsageError: NaN, infinity, a decimal comma (``12,5``), an over-long cell, a
            percentage outside 0..100.
    """
    text = cell.strip()
    if len(text) > MAX_CELL or not _NUMBER.fullmatch(text):
        hint = "; export with a decimal point (a '.' locale), not a decimal comma" if "," in text else ""
        raise errors.UsageError(f"{where} = {textfiles.printable(text, 40)!r} is not a finite number{hint}")
    value = float(text.replace(",", ""))
    if not math.isfinite(value):
        raise errors.UsageError(f"{where} = {textfiles.printable(text, 40)!r} is not a finite number")
    if unit_name == "%" and not 0.0 <= value <= PERCENT_LIMIT:
        raise errors.UsageError(f"{where} = {text} % is outside 0..100 %; check the export (a percentage of peak or of a total)")
    return value


def select(launches: tuple[Launch, ...], kernel: str | None, launch_id: str | None) -> Launch:
    """The launch with ``launch_id``, or the first launch of ``kernel`` (its name or name up to '('), or the only launch.

    Raises:
        errors.UsageError: nothing matches, or several launches and none named.
    """
    if launch_id is not None:
        found = [l for l in launches if l.index == launch_id]
    elif kernel is not None:
        found = [l for l in launches if kernel in (l.kernel, l.kernel.split("(")[0])]
    else:
        found = list(launches)
        if len(found) > 1:
            raise errors.UsageError(f"{len(found)} launches in the export ({textfiles.listing([l.index + ':' + l.kernel for l in found])}); "
                                    "name one with --launch ID")
    if not found:
        raise errors.UsageError(f"no launch {textfiles.printable(str(launch_id or kernel), 200)!r} in the export "
                                f"(launches: {textfiles.listing([l.index + ':' + l.kernel for l in launches])})")
    return found[0]
