"""The H100 latency-hiding fit of issue 29: one parameter set for ILP 1, 2 and 4, and a held-out check.

Run from the repository root: ``PYTHONPATH=. python benchmarks/h100_ilp_fit.py`` (about 10 s).

1. ``volkov_2016_h100`` fitted jointly to every measured curve (ILP 1: alpha 0, 8, 32, 128; ILP 2
   and 4: alpha 0, 32), the same fit as ``symgpu fit volkov_2016_h100 dram_throughput --data
   data/h100/stream_read_vs_warps_model.csv --data data/h100/stream_read_vs_warps_ilp2_ilp4_model.csv
   --params a,b,c,s_fork,alu_sat,ilp_half --preset h100_stream`` (preset ``h100_fit``): parameters
   with 95 % intervals, then RMS, max error and knee (90 % of the plateau) per curve.
2. Overfitting guard: the same parameters fitted to ILP 1 and 2 only, then ILP 4 predicted (held out).
"""

from __future__ import annotations

import sys

import symgpu
from symgpu.measure import compare, data, fit

PARAMS = ("a", "b", "c", "s_fork", "alu_sat", "ilp_half")
ILP1 = "data/h100/stream_read_vs_warps_model.csv"
ILP24 = "data/h100/stream_read_vs_warps_ilp2_ilp4_model.csv"


def table(model: symgpu.model.Model, result: fit.FitResult, measured: data.MeasuredData, title: str) -> list[str]:
    """The per-curve comparison of ``measured`` with the fitted model."""
    values = {p.name: p.value for p in result.parameters}
    comparison = compare.compare(model, "dram_throughput", measured, preset=result.preset, values=values)
    lines = [title]
    lines += compare.table_lines(comparison)[1:]
    for s in comparison.series:
        if s.knee_measured is not None and s.knee_model is not None:
            lines.append(f"  knee error {s.label}: {s.knee_model - s.knee_measured:+.1f} warp/SM")
    return lines


def main() -> int:
    model = symgpu.load("volkov_2016_h100")
    ilp1, ilp24 = data.read_csv(ILP1), data.read_csv(ILP24)
    everything = data.concat([ilp1, ilp24])
    joint = fit.fit(model, "dram_throughput", everything, PARAMS, preset="h100_stream")
    print("\n".join(fit.summary_lines(joint)))
    print("\n".join(table(model, joint, everything, "joint fit, every curve:")))
    held = data.concat([ilp1, ilp24.where("ilp", 2)])
    train = fit.fit(model, "dram_throughput", held, PARAMS, preset="h100_stream")
    print()
    print("\n".join(fit.summary_lines(train)))
    print("\n".join(table(model, train, ilp24.where("ilp", 4), "fitted on ILP 1 + 2, ILP 4 predicted (held out):")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
