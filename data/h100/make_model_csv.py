"""Write stream_read_vs_warps_model.csv from stream_read_vs_warps.csv, and
stream_read_vs_warps_ilp2_ilp4_model.csv from stream_read_vs_warps_ilp2_ilp4.csv: the same numbers,
copied as text, in the columns the Volkov model names, with units in the headers.

Run from the repository root: ``python data/h100/make_model_csv.py``. Numbers are never edited;
tests/test_measure_data.py checks every cell against the original file.
"""

from __future__ import annotations

import csv
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLUMNS = (("ilp", "ilp [winst/warp]"), ("alpha", "alpha [1]"), ("warps_per_SM", "n [warp/SM]"),
           ("rep", "rep [1]"), ("GBps", "dram_throughput [GB/s]"))
#: (original, model-format file) pairs
FILES = (("stream_read_vs_warps.csv", "stream_read_vs_warps_model.csv"),
         ("stream_read_vs_warps_ilp2_ilp4.csv", "stream_read_vs_warps_ilp2_ilp4_model.csv"))
PROVENANCE = (
    "H100 measurements, 2026-11-23: NVIDIA H100 80GB HBM3 (SXM), CC 9.0, 132 SMs, driver 580.159.04, CUDA 13.0",
    "SM clock 1980 MHz in every timed run (nvidia_smi_during_runs.csv), memory clock 2619 MHz, 5120-bit bus",
    "source: {source} (columns ilp, alpha, warps_per_SM, rep, GBps copied unchanged; see ORIGINAL_README.md)",
    "alpha counts dependent FP32 FMAs per load; each loaded value also gets one FADD into an accumulator",
)


def main() -> None:
    for source, target in FILES:
        write(source, target)


def write(source: str, target: str) -> None:
    """Copy the model's columns of ``source`` into ``target`` (both in this folder)."""
    with open(HERE / source, newline="") as handle:
        rows = list(csv.DictReader(handle))
    with open(HERE / target, "w", newline="") as handle:
        for line in PROVENANCE:
            handle.write(f"# {line.format(source=source)}\n")
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([header for _, header in COLUMNS])
        for row in rows:
            writer.writerow([row[name] for name, _ in COLUMNS])


if __name__ == "__main__":
    main()
