"""The accuracy report of ``symgpu predict --report DIR``: predicted vs measured log-log plots per
operator and GPU, error histograms, the table against NeuSight's published MAPE, and the worst
rows explained by regime (Markdown, JSON and SVG, drawn in the house style)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from symgpu import api
from symgpu.predict import accuracy, explain
from symgpu.predict.engine import EFFICIENCY, Prediction
from symgpu.predict.mapping import assign
from symgpu.predict.rows import KernelRow
from symgpu.report import files, style

#: rows listed as the worst
WORST = 10


def build_context(rows: Sequence[KernelRow], predictions: Sequence[Prediction]) -> dict[str, Any]:
    """The report's data, JSON-ready: error tables, published MAPE, regime shares, worst rows."""
    per_op, per_gpu = accuracy.table(rows, predictions)
    errors_ = accuracy.relative_errors(rows, predictions)
    families = [accuracy.family(r.operator) for r in rows]
    regimes: dict[str, dict[str, Any]] = {}
    for fam, p, e in zip(families, predictions, errors_):
        if p.reason or not math.isfinite(e):
            continue
        entry = regimes.setdefault(fam, {}).setdefault(p.regime, [])
        entry.append(float(e))
    shares = {fam: {reg: {"rows": len(v), "mape": 100 * float(np.mean(v))} for reg, v in sorted(regs.items())}
              for fam, regs in sorted(regimes.items())}
    order = [i for i in np.argsort(-np.nan_to_num(errors_, nan=-1.0)) if math.isfinite(errors_[i])][:WORST]
    return {
        "rows": len(rows), "predicted": int(sum(1 for p in predictions if not p.reason)),
        "per_operator": [_stats(s) | {"published": accuracy.published_for(s.group)} for s in per_op],
        "per_gpu": [_stats(s) for s in per_gpu if s.rows],
        "regimes": shares,
        "worst": [_worst(rows[i], predictions[i], float(errors_[i]), int(i)) for i in order],
    }


def _stats(s: accuracy.ErrorStats) -> dict[str, Any]:
    return {"group": s.group, "rows": s.rows, "mape": s.mape, "median": s.median, "p90": s.p90}


def _worst(row: KernelRow, p: Prediction, error: float, position: int) -> dict[str, Any]:
    """A worst row with the binding limiters at its point (evaluate.active's rule)."""
    a = assign(row)
    model = api.load(a.model, whole=True)
    limits = explain.bindings(model, f"{a.gpu}+{EFFICIENCY}", dict(a.inputs))
    return {"position": position, "row": row.index, "operator": row.operator, "device": row.device, "kernel": row.kernel[:60],
            "measured_ms": row.latency_ms, "predicted_ms": p.latency_ms, "error_percent": 100 * error, "regime": p.regime,
            "limiters": [{"quantity": b.quantity, "limiter": b.limiter, "next": b.next,
                          "ratio": b.ratio if math.isfinite(b.ratio) else None} for b in limits]}


def markdown(context: dict[str, Any]) -> str:
    """The report as Markdown."""
    c = context
    out = ["# symgpu predict: accuracy on measured kernels", "",
           f"{c['predicted']} of {c['rows']} rows predicted; one efficiency parameter set (`{EFFICIENCY}`) for every GPU.", "",
           "## Per operator, against NeuSight's published MAPE", "",
           "| operator | rows | MAPE % | median % | P90 % | published out-of-distribution MAPE % |", "|---|---|---|---|---|---|"]
    out += [f"| {s['group']} | {s['rows']} | {s['mape']:.1f} | {s['median']:.1f} | {s['p90']:.1f} | {s['published']} |"
            for s in c["per_operator"]]
    out += ["", "## Per operator and GPU", "", "| operator / GPU | rows | MAPE % | median % | P90 % |", "|---|---|---|---|---|"]
    out += [f"| {s['group']} | {s['rows']} | {s['mape']:.1f} | {s['median']:.1f} | {s['p90']:.1f} |" for s in c["per_gpu"]]
    out += ["", "## Error by regime", "", "| operator | regime | rows | MAPE % |", "|---|---|---|---|"]
    out += [f"| {fam} | {reg} | {v['rows']} | {v['mape']:.1f} |" for fam, regs in c["regimes"].items() for reg, v in regs.items()]
    out += ["", f"## The {len(c['worst'])} worst rows, explained by regime", "",
            "| row | operator | GPU | kernel | measured ms | predicted ms | error % | regime | binding limiters (next, distance) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for w in c["worst"]:
        limits = "; ".join(f"{b['quantity']}: {b['limiter']}" + (f" ({b['next']}, x{b['ratio']:.3g})" if b["next"] and b["ratio"] else "")
                           for b in w["limiters"])
        out.append(f"| {w['row']} | {w['operator']} | {w['device']} | `{w['kernel']}` | {w['measured_ms']:.4g} | {w['predicted_ms']:.4g} | "
                   f"{w['error_percent']:.1f} | {w['regime']} | {limits} |")
    out += ["", "## Plots", ""]
    out += [f"![{name}]({name})" for name in c.get("plots", [])]
    return "\n".join(out) + "\n"


def plots(rows: Sequence[KernelRow], predictions: Sequence[Prediction]) -> dict[str, bytes]:
    """Per operator: predicted vs measured (log-log, a panel per GPU) and the error histogram, as SVG."""
    plt = style.pyplot
    families = np.asarray([accuracy.family(r.operator) for r in rows])
    devices = np.asarray([r.device for r in rows])
    measured = np.asarray([r.latency_ms for r in rows], dtype=float)
    predicted = np.asarray([p.latency_ms for p in predictions], dtype=float)
    ok = np.isfinite(measured) & np.isfinite(predicted) & (measured > 0) & (predicted > 0)
    out: dict[str, bytes] = {}
    with style.figures():
        for fam in sorted(set(families[ok])):
            gpus = sorted(set(devices[ok & (families == fam)]))
            fig, axes = plt.subplots(1, len(gpus), figsize=(3.2 * len(gpus), 3.2), squeeze=False)
            for ax, gpu in zip(axes[0], gpus):
                pick = ok & (families == fam) & (devices == gpu)
                lo, hi = min(measured[pick].min(), predicted[pick].min()), max(measured[pick].max(), predicted[pick].max())
                ax.plot([lo, hi], [lo, hi], color="0.5", linewidth=0.8)
                ax.scatter(measured[pick], predicted[pick], s=6)
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_title(f"{fam}: {gpu}", fontsize=8)
                ax.set_xlabel("measured [ms]")
                ax.set_ylabel("predicted [ms]")
            out[f"scatter_{fam}.svg"] = style.save(fig, "svg", tight=True)
            plt.close(fig)
            fig, ax = plt.subplots(figsize=(4.5, 3.2))
            pick = ok & (families == fam)
            ax.hist(100 * (predicted[pick] / measured[pick] - 1), bins=40)
            ax.set_xlabel("error (predicted / measured - 1) [%]")
            ax.set_ylabel("rows")
            ax.set_title(fam, fontsize=9)
            out[f"errors_{fam}.svg"] = style.save(fig, "svg", tight=True)
            plt.close(fig)
    return out


def write_report(folder: str, rows: Sequence[KernelRow], predictions: Sequence[Prediction]) -> list[Path]:
    """Write ``accuracy.md``, ``accuracy.json`` and the SVG plots into ``folder`` (atomically, file by file)."""
    drawn = plots(rows, predictions)
    context = build_context(rows, predictions) | {"plots": sorted(drawn)}
    content = {"accuracy.md": markdown(context).encode(),
               "accuracy.json": (json.dumps(context, indent=1, allow_nan=True) + "\n").encode()} | drawn
    Path(folder).mkdir(parents=True, exist_ok=True)
    return files.write_files(folder, content)
