"""Writing a sweep: Parquet (pyarrow, zstd, encoded on a thread of its own while the next chunk
is computed; units in the field and schema metadata; the regime a dictionary column built from
its codes) or CSV (units in the headers, ``n [warp/SM]``), chunk by chunk, to a temporary file
renamed into place at the end — an interrupted sweep (Ctrl-C, SIGTERM) leaves no half-written
file, and the next run removes the temporary file of a killed one.

The writers' shared part: columns, Parquet schema and tables, CSV text, the atomic file and the
chunk loop that writes it (:mod:`symgpu.sweep.writers` evaluates a plan into it; a stored plan,
:mod:`symgpu.sweep.replay`, too). NOTE: imports neither SymPy nor pint."""

from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from symgpu import errors, leftovers, textfiles
from symgpu.sweep import background
from symgpu.sweep.chunks import Chunk
from symgpu.sweep.decide import RegimeSpec

FORMATS = ("parquet", "csv")
#: name of the regime column
REGIME = "regime"


@dataclass(frozen=True)
class Column:
    """An output column: its name, unit text (``1`` for pure numbers, ``""`` for labels) and kind."""

    name: str
    unit: str
    kind: str  # "axis", "quantity" or "regime"

    @property
    def header(self) -> str:
        """CSV header: ``name [unit]``, ``[1]`` for a pure number (the measured-data format of :mod:`symgpu.measure.data`,
        so ``symgpu measured``/``fit`` read a sweep back); the regime column's, a column of labels, is its bare name."""
        return self.name if self.kind == "regime" else f"{self.name} [{self.unit or '1'}]"


@dataclass(frozen=True)
class OwnDomain:
    """A quantity's ``valid_when`` conditions beyond the domain every column of its sweep shares: its column alone
    is NaN where they fail (the others keep their values there).

    Attributes:
        quantity: the quantity.
        conditions: the conditions as the model file writes them.
    """

    quantity: str
    conditions: tuple[str, ...]


class Layout(Protocol):
    """What a written sweep's file is laid out from (a :class:`~symgpu.sweep.plan.SweepPlan`, or a
    stored plan read back by :mod:`symgpu.sweep.replay`)."""

    @property
    def regime(self) -> RegimeSpec | None: ...
    @property
    def own_domains(self) -> tuple[OwnDomain, ...]: ...
    def columns(self) -> list[Column]: ...
    def metadata(self) -> dict[str, Any]: ...
#: schema metadata key holding the sweep's JSON description
METADATA_KEY = b"symgpu.sweep"


@dataclass(frozen=True)
class WriteSummary:
    """What a written sweep holds."""

    path: Path
    format: str
    points: int
    outside: int
    seconds: float
    regimes: tuple[tuple[str, int], ...]  # label -> number of points
    outside_own: tuple[tuple[OwnDomain, int], ...] = ()  # per quantity with a domain of its own: points outside it (NaN)


def format_of(path: str | os.PathLike[str], given: str | None = None) -> str:
    """The output format: ``given``, else from the suffix (``.parquet``/``.pq``, ``.csv``).

    Raises:
        errors.UsageError: unknown format or suffix.
    """
    if given:
        if given not in FORMATS:
            raise errors.UsageError(f"--format {given!r}: choose parquet or csv")
        return given
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".csv":
        return "csv"
    raise errors.UsageError(f"-o {str(path)!r}: name a .parquet or .csv file, or give --format")


def pyarrow_modules() -> tuple[Any, Any]:
    """(pyarrow, pyarrow.parquet), or a UsageError saying how to install them."""
    try:
        import pyarrow  # noqa: PLC0415 - optional dependency
        import pyarrow.parquet as parquet  # noqa: PLC0415
    except ImportError:
        raise errors.UsageError("Parquet output needs pyarrow: pip install 'symgpu[parquet]' (or write .csv)") from None
    return pyarrow, parquet


def arrow_schema(plan: Layout) -> Any:
    """The Parquet schema: float64 columns with ``unit`` field metadata, the regime as a
    dictionary of labels, and the sweep's JSON description under :data:`METADATA_KEY`."""
    pa, _ = pyarrow_modules()
    fields = []
    for column in plan.columns():
        if column.kind == "regime":
            fields.append(pa.field(REGIME, pa.dictionary(pa.int16(), pa.string()), metadata={b"regime_of": (plan.regime.quantity if plan.regime else "").encode()}))
        else:
            fields.append(pa.field(column.name, pa.float64(), nullable=False, metadata={b"unit": column.unit.encode()}))
    return pa.schema(fields, metadata={METADATA_KEY: json.dumps(plan.metadata(), sort_keys=True).encode()})


def arrow_table(plan: Layout, chunk: Chunk, schema: Any) -> Any:
    """One chunk as a pyarrow Table of ``schema``."""
    pa, _ = pyarrow_modules()
    arrays = []
    for column in plan.columns():
        if column.kind == "regime":
            assert chunk.regime is not None and plan.regime is not None
            arrays.append(regime_array(chunk.regime, plan.regime.labels))
        else:
            arrays.append(pa.array(chunk.columns[column.name], type=pa.float64()))
    return pa.Table.from_arrays(arrays, schema=schema)


def regime_array(codes: np.ndarray, labels: tuple[str, ...]) -> Any:
    """The regime column of one chunk: a dictionary array built from the codes themselves (no
    label text per point, nothing for pyarrow to re-encode); code -1 (no regime) is null.

    Raises:
        ValueError: a code is not -1 or the index of a label (a bug: the codes come from
            :func:`symgpu.sweep.regimes.decide`).
    """
    pa, _ = pyarrow_modules()
    low, high = (int(codes.min()), int(codes.max())) if codes.size else (0, 0)
    if low < -1 or high >= len(labels):
        raise ValueError(f"regime codes {low}..{high} outside -1..{len(labels) - 1}")
    # NOTE: the range is checked above in two cheap passes, so pyarrow's own per-index check is
    # skipped (safe=False); the mask (a pass and a bitmap) only where some point has no regime
    indices = pa.array(codes, type=pa.int16(), mask=codes < 0 if low < 0 else None)
    return pa.DictionaryArray.from_arrays(indices, pa.array(list(labels), type=pa.string()), safe=False)


def parquet_options(plan: Layout) -> dict[str, Any]:
    """The options every Parquet file of a sweep is written with: zstd, and min/max statistics
    for the number columns only. NOTE: the statistics of a dictionary column of labels cost
    pyarrow more than encoding the column (twice as much, measured) and say only which label
    sorts first; readers find the labels in the dictionary."""
    return {"compression": "zstd", "write_statistics": [c.name for c in plan.columns() if c.kind != "regime"]}


#: rows formatted at a time when writing CSV: each block's text is a few hundred KiB, so no
#: chunk-sized string is ever built (chunk-sized temporaries let the C heap grow with the grid)
CSV_BLOCK = 4096


def csv_blocks(plan: Layout, chunk: Chunk) -> Iterator[str]:
    """One chunk as CSV rows, :data:`CSV_BLOCK` rows per piece of text (each number the shortest text that reads back
    as the same double, Python's ``repr``: ``0.1``, not the 17 digits ``0.10000000000000001`` an outside tester found
    noisy, round 14c, F4; a column of whole numbers in a block without ``.0``; ``nan`` outside the domain, the regime
    label last)."""
    names = [c.name for c in plan.columns() if c.kind != "regime"]
    labels = list(plan.regime.labels) + [""] if plan.regime is not None and chunk.regime is not None else None
    for begin in range(0, chunk.stop - chunk.start, CSV_BLOCK):
        end = min(begin + CSV_BLOCK, chunk.stop - chunk.start)
        block = [chunk.columns[n][begin:end] for n in names]
        row = ",".join(_number_format(column) for column in block) + ("," if labels is not None else "")
        numbers = np.column_stack(block).tolist()
        if labels is None:
            yield "".join(row % tuple(values) + "\n" for values in numbers)
        else:
            assert chunk.regime is not None
            codes = chunk.regime[begin:end].tolist()
            yield "".join(row % tuple(values) + labels[code] + "\n" for values, code in zip(numbers, codes))


def _number_format(column: np.ndarray) -> str:
    """``%.17g`` for a column of whole numbers below 2**53 (``200``, exactly; ``nan`` kept), else ``%r`` (the shortest
    round-trip text, ``58.3625``; ``200.0`` where a whole number is among others)."""
    finite = column[np.isfinite(column)]
    whole = bool(np.all(finite == np.round(finite))) and bool(np.all(np.abs(finite) < 2.0**53))
    return "%.17g" if whole else "%r"


def csv_text(plan: Layout, chunk: Chunk) -> str:
    """One chunk as CSV rows (see :func:`csv_blocks`)."""
    return "".join(csv_blocks(plan, chunk))


def csv_header(plan: Layout) -> str:
    return ",".join(c.header for c in plan.columns()) + "\n"


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path next to ``path``, renamed to ``path`` when the block ends normally and
    removed when it raises (KeyboardInterrupt included, and :class:`errors.Terminated` for SIGTERM).
    Its name carries this process's id (:mod:`symgpu.leftovers`): one left by a killed run is
    removed by the next run into the folder."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise errors.UsageError(f"-o {str(path)!r}: the folder {str(folder)!r} does not exist")
    leftovers.remove_stale(folder)  # a killed run's temporary files
    handle, temp = leftovers.temporary_file(folder, path.name)
    os.close(handle)
    try:
        yield Path(temp)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temp, 0o666 & ~mask)
        textfiles.check_output_file(path, "-o")  # again: what is there now is still a regular file or nothing
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def own_outside(plan: Layout, chunk: Chunk) -> np.ndarray:
    """Per :attr:`Layout.own_domains`, the chunk's points inside the shared domain where that quantity is NaN: outside
    its own domain (where it has no value inside it, a 0/0, it is NaN too and counted with them)."""
    return np.array([np.count_nonzero(np.isnan(chunk.columns[own.quantity])) - chunk.outside for own in plan.own_domains], dtype=np.int64)


def outside_own(plan: Layout, counts: Iterable[int]) -> tuple[tuple[OwnDomain, int], ...]:
    """:attr:`WriteSummary.outside_own` from the counts of :func:`own_outside` summed over the chunks."""
    return tuple(zip(plan.own_domains, (int(n) for n in counts)))


def write_chunks(plan: Layout, chunks: Iterable[Chunk], path: str | os.PathLike[str], fmt: str) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Write ``chunks`` to ``path`` atomically; return (points, points outside, regime counts, points outside each
    quantity's own domain: :func:`own_outside`)."""
    target = Path(path)
    counts = np.zeros(len(plan.regime.labels) + 1 if plan.regime else 1, dtype=np.int64)
    own = np.zeros(len(plan.own_domains), dtype=np.int64)
    points = outside = 0
    with atomic_path(target) as temp:
        if fmt == "parquet":
            _, pq = pyarrow_modules()
            schema = arrow_schema(plan)
            # NOTE: the writer encodes and compresses chunk k on a thread of its own (pyarrow
            # releases the GIL) while this thread computes chunk k + 1
            with pq.ParquetWriter(str(temp), schema, **parquet_options(plan)) as writer, \
                    background.Background(writer.write_table) as later:
                for chunk in chunks:
                    leftovers.raise_pending()
                    later.submit(arrow_table(plan, chunk, schema))
                    points, outside = points + chunk.stop - chunk.start, outside + chunk.outside
                    own += own_outside(plan, chunk)
                    if chunk.regime is not None:
                        counts += code_counts(chunk.regime, counts.size)
        else:
            with open(temp, "w", encoding="utf-8", newline="") as stream:
                stream.write(csv_header(plan))
                for chunk in chunks:
                    leftovers.raise_pending()
                    stream.writelines(csv_blocks(plan, chunk))
                    points, outside = points + chunk.stop - chunk.start, outside + chunk.outside
                    own += own_outside(plan, chunk)
                    if chunk.regime is not None:
                        counts += code_counts(chunk.regime, counts.size)
    return points, outside, counts, own


def code_counts(codes: np.ndarray, size: int) -> np.ndarray:
    """How many points of each regime (the labels' order, then "none", code -1) ``codes`` hold."""
    if size <= _FEW_LABELS:  # NOTE: one vectorised comparison per label beats bincount's cast to intp
        found = [np.count_nonzero(codes == code) for code in range(size - 1)]
        return np.array(found + [codes.size - sum(found)], dtype=np.int64)
    if codes.size and codes.min() >= 0:  # no shifted copy of the codes where every point has a regime
        return np.bincount(codes, minlength=size)
    return np.bincount(codes + 1, minlength=size)[np.r_[1:size, 0]]


#: up to this many regimes (and "none") are counted label by label
_FEW_LABELS = 9


def regime_counts(plan: Layout, counts: np.ndarray) -> tuple[tuple[str, int], ...]:
    if plan.regime is None:
        return ()
    return tuple((label, int(n)) for label, n in zip(list(plan.regime.labels) + ["(none)"], counts) if n)


def write_file(plan: Layout, chunks: Iterable[Chunk], path: str | os.PathLike[str], kind: str) -> WriteSummary:
    """Write ``chunks`` (evaluated as they are read) to ``path`` as ``kind`` and say what it holds.

    Raises:
        errors.UsageError: the file cannot be written (a full disk, a folder made read-only meanwhile).
    """
    begin = time.perf_counter()
    try:
        points, outside, counts, own = write_chunks(plan, chunks, path, kind)
    except OSError as exc:  # a full disk, a folder made read-only meanwhile
        advice = "free some space or write elsewhere" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else \
            "check the file's and its folder's permissions (an existing file is kept as it was) or write elsewhere"
        raise errors.UsageError(f"-o {str(path)!r}: cannot write the sweep there: {exc.strerror or exc}; {advice}") from None
    return WriteSummary(Path(path), kind, points, outside, time.perf_counter() - begin, regime_counts(plan, counts),
                        outside_own(plan, own))
