"""The ``--data`` (and ``--fitted-on``) files of ``symgpu fit`` and ``symgpu measured``: a measured-data CSV
(:mod:`symgpu.measure.data`; a sweep's CSV is one), or a sweep written as Parquet (``symgpu sweep -o x.parquet``,
a file or a folder of parts), its columns in the units its schema records and its regime labels kept as labels."""

from __future__ import annotations

from symgpu.measure import data
from symgpu.sweep import readers


def read(path: str) -> data.MeasuredData:
    """The measured data in ``path``: Parquet (a sweep) where :func:`symgpu.sweep.readers.is_parquet` says so, else CSV.

    Raises:
        errors.UsageError: the file is missing, unreadable or breaks its format (naming the file, row and column).
    """
    if not readers.is_parquet(path):
        return data.read_csv(path)
    table = readers.read(path, max_rows=data.MAX_ROWS)
    labels = () if table.regime is None else ((data.REGIME, table.regime.tolist()),)
    return data.from_arrays(str(path), [(name, table.units[name], values) for name, values in table.columns.items()], labels)
