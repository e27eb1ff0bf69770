"""Do the H100 latency-hiding parameters transfer to a GPU they were not fitted on? An H200.

Run from the repository root: ``PYTHONPATH=. python benchmarks/h200_transfer.py`` (about 20 s).

``volkov_2016_h100``'s preset ``h100_fit`` was fitted to the H100 streaming-read curves only
(``data/h100/``). The H200 is the same GH100 chip (132 SMs, 1980 MHz) with HBM3e: 4.8 TB/s
instead of 3.35 TB/s. Its curves were measured with ``symgpu measure`` (``data/h200/``, four
runs; run 4 here, the one whose kernel interleaves the ILP chains as the H100's did). Three predictions, none fitted to the H200 curves:

1. ``h100_fit`` as it is;
2. ``h100_fit`` with the H200's own hardware numbers (preset ``h200_transfer``): the unloaded
   latency ``a`` moved by the difference of the two pointer-chase latencies, the bandwidth ``c``
   scaled by the ratio of the pin bandwidths, the H200's FMA latency ``alu_lat``; ``b``,
   ``s_fork``, ``alu_sat``, ``ilp_half`` kept;
3. then, for scale only, the same six parameters fitted to the H200 curves themselves (a fit that
   is not physical: its ``c`` lands above the 4.8 TB/s pins and ``ilp_half`` at 0, its interval
   spanning 0; it shows how far the model's form can follow these curves, not the H200's values).

Each is printed per curve (RMS and max relative error, knees), split into the curves whose
kind the H100 fit saw (ILP 1 at alpha 0, 8, 32, 128; ILP 2 and 4 at alpha 0 and 32) and the
ones it never saw (ILP 2 and 4 at alpha 8 and 128). Timing is not measured here.
"""

from __future__ import annotations

import statistics
import sys

import symgpu
from symgpu.measure import compare, data, fit

PARAMS = ("a", "b", "c", "s_fork", "alu_sat", "ilp_half")
H200 = "data/h200/run4/stream.csv"
CHASES = tuple(f"data/h200/run{k}/latency.csv" for k in (1, 2, 3, 4))
SEEN = {(1.0, 0.0), (1.0, 8.0), (1.0, 32.0), (1.0, 128.0), (2.0, 0.0), (2.0, 32.0), (4.0, 0.0), (4.0, 32.0)}


def dram_chase(path: str) -> float:
    """The pointer-chase latency over 1 GiB (the first pass, as the H100's ``a`` start value)."""
    measured = data.read_csv(path)
    footprints = list(measured.column("footprint").values)
    return float(measured.column("mem_lat").values[footprints.index(float(1 << 30))])


def lines(model: symgpu.model.Model, measured: data.MeasuredData, preset: str, values: dict[str, float] | None,
          title: str) -> list[str]:
    """Per-curve errors of the model against ``measured``, the seen and unseen curves apart."""
    comparison = compare.compare(model, "dram_throughput", measured, preset=preset, values=values)
    out = [title]
    for kind, wanted in (("curves of a kind the H100 fit saw", True), ("curves it never saw", False)):
        chosen = [s for s in comparison.series if (dict(s.fixed)["ilp"], dict(s.fixed)["alpha"]) in SEEN] if wanted \
            else [s for s in comparison.series if (dict(s.fixed)["ilp"], dict(s.fixed)["alpha"]) not in SEEN]
        rms = statistics.fmean([s.rms_relative ** 2 for s in chosen]) ** 0.5
        out.append(f"  {kind}: RMS {rms:.1%}, worst curve {max(s.rms_relative for s in chosen):.1%} RMS, "
                   f"max point {max(s.max_relative for s in chosen):.1%}")
        for s in chosen:
            knee = f"knee {s.knee_measured:5.1f} measured, {s.knee_model:5.1f} model" if s.knee_measured and s.knee_model else ""
            out.append(f"    {s.label:<22} RMS {s.rms_relative:6.1%}  max {s.max_relative:6.1%}  {knee}")
    return out


def main() -> int:
    model = symgpu.load("volkov_2016_h100")
    measured = data.read_csv(H200)
    chases = [dram_chase(path) for path in CHASES]
    print(f"H200 pointer chase over 1 GiB, runs 1-4: {', '.join(f'{c:.1f}' for c in chases)} cycles "
          f"(median {statistics.median(chases):.1f}); H100: 675.07 cycles (data/h100/latency.csv, first pass)")
    transfer = model.preset("h200_transfer")
    print(f"preset h200_transfer: a = {transfer['a']:~P}, c = {transfer['c']:~P} (h100_fit: a = 722.912 cycle, c = 3139.56 GB/s)")
    print("\n".join(lines(model, measured, "h100_fit", None, "\n1. h100_fit unchanged:")))
    print("\n".join(lines(model, measured, "h200_transfer", None, "\n2. h200_transfer (the H200's memory and FMA latencies and pin bandwidth, nothing fitted to it):")))
    own = fit.fit(model, "dram_throughput", measured, PARAMS, preset="h200_transfer", strict=False)
    print("\n3. for scale, fitted to the H200 curves themselves:")
    print("\n".join(fit.summary_lines(own)))
    values = {p.name: p.value for p in own.parameters}
    print("\n".join(lines(model, measured, "h200_transfer", values, "")[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
