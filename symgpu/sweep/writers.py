"""Writing a sweep: Parquet (pyarrow, zstd, encoded on a thread of its own while the next chunk
is computed; units in the field and schema metadata; the regime a dictionary column built from
its codes) or CSV (units in the headers, ``n [warp/SM]``), chunk by chunk, to a temporary file
renamed into place at the end — an interrupted sweep (Ctrl-C, SIGTERM) leaves no half-written
file, and the next run removes the temporary file of a killed one.

:func:`write` evaluates a plan into the file; the file itself is :mod:`symgpu.sweep.output`'s
(whose names this module re-exports)."""

from __future__ import annotations

import os

from symgpu.sweep.output import (
    CSV_BLOCK,
    FORMATS,
    METADATA_KEY,
    REGIME,
    Column,
    WriteSummary,
    arrow_schema,
    arrow_table,
    atomic_path,
    code_counts,
    csv_blocks,
    csv_header,
    csv_text,
    format_of,
    parquet_options,
    pyarrow_modules,
    regime_array,
    regime_counts,
    write_chunks,
    write_file,
)
from symgpu.sweep.chunks import Settled
from symgpu.sweep.plan import SweepPlan
from symgpu.sweep.run import DEFAULT_CHUNK, iter_chunks

__all__ = ["CSV_BLOCK", "FORMATS", "METADATA_KEY", "REGIME", "Column", "WriteSummary", "arrow_schema", "arrow_table", "atomic_path",
           "code_counts", "csv_blocks", "csv_header", "csv_text", "format_of", "parquet_options", "pyarrow_modules", "regime_array",
           "regime_counts", "write", "write_chunks"]


def write(plan: SweepPlan, path: str | os.PathLike[str], *, fmt: str | None = None, backend: str = "numpy",
          chunk_size: int = DEFAULT_CHUNK, progress: bool | None = False, settled: list[Settled] | None = None) -> WriteSummary:
    """Evaluate ``plan`` chunk by chunk and write it to ``path`` (Parquet or CSV, atomically); ``settled``:
    the points near a case condition's tie that each chunk decided again (:func:`~symgpu.sweep.run.iter_chunks`).

    Raises:
        errors.UsageError: unknown format, missing folder, missing pyarrow or backend package,
            a file that cannot be written.
    """
    kind = format_of(path, fmt)
    if kind == "parquet":
        pyarrow_modules()
    return write_file(plan, iter_chunks(plan, backend, chunk_size, progress, settled), path, kind)
