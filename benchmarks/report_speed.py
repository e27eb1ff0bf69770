"""Benchmark: the parts of a cold ``symgpu report --all`` made faster, each against the way it was done before.

Prints, from one run, CPU seconds and the ratio old/new of

* the prior-models comparison's masked sweeps: a grid with points outside a model's domain,
  evaluated by splitting it in halves at every DomainError down to single points (before)
  against one domain mask over the whole grid (:func:`symgpu.compare.model_sweep`, a ``symgpu.sweep`` plan), both
  giving the same values and count;
* a model's plot values: every curve compiled afresh (before) against the compiled functions
  kept per model (:mod:`symgpu.report.plot_values`), drawing nothing;
* a model's figures drawn as SVG and PDF: log-axis tick labels in mathtext (before) against
  plain text with superscript digits (:func:`symgpu.report.style.plain_log_labels`), and, for
  the record, SVG text as glyph paths (kept) against ``svg.fonttype = "none"`` (not used);
* a model's derivation steps printed as text and LaTeX: ``sympy.sstr``/``sympy.latex`` afresh
  (before) against the printers that keep each subexpression's text
  (:mod:`symgpu.report.printing`), SymPy's cache cleared before each, the texts compared;
* with ``--schedule``: the CPU seconds of each report folder recorded by the last
  ``report --all`` (:mod:`symgpu.report.schedule`), and the end of a two-worker run handed
  them in name order against longest first (simulated from those seconds);
* optionally (``--reports``) ``report --all`` over a few models one after the other
  (``--jobs 1``) against ``--jobs 2``, each with an empty cache (wall clock: worker processes
  share the work, not the CPU; on a machine with two free cores);
* optionally (``--all``, issue 31) the whole ``report --all`` in a fresh process, wall and CPU
  seconds (the process and its workers) and the load average before each: cold with every
  figure drawn (``--force``, empty cache: as before the figure digests), cold with the figures
  kept (empty cache, the folder as the first run left it, figure books included), and warm
  (the second run's cache: every report up to date); each into a copy of reports/, whose
  files are then compared with reports/ byte for byte (the figure books aside);
* optionally (``--kept-figures``) every model's plots drawn with each figure kept from its
  report folder's book against the same plots' values alone, in one warm process.

Run: ``python benchmarks/report_speed.py [--model volkov_2016] [--derivations occupancy] [--schedule] [--reports] [--all] [--kept-figures]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import sympy
from sympy.core.cache import clear_cache

import symgpu
from symgpu import derive, errors, store
from symgpu.compare import model_sweep, prior_study
from symgpu.report import latex, plot_specs, plot_values, plots, printing, schedule, style
from symgpu import memo


def cpu(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def bisected(model: symgpu.Model, quantity: str, preset: str, values: dict[str, Any]) -> tuple[np.ndarray, int]:
    """The masked sweep as it was first done: the grid split in halves at each DomainError."""
    flat = {k: np.asarray(v, dtype=float).ravel() for k, v in values.items()}
    size = next(iter(flat.values())).size
    out, invalid = np.full(size, np.nan), 0

    def run(index: np.ndarray) -> None:
        nonlocal invalid
        try:
            result = model.evaluate(quantity, preset=preset, **{k: v[index] for k, v in flat.items()})
            out[index] = np.broadcast_to(np.asarray(result.magnitude, dtype=float), index.shape)
        except errors.DomainError:
            if index.size == 1:
                invalid += 1
                return
            run(index[: index.size // 2])
            run(index[index.size // 2:])

    run(np.arange(size))
    return out, invalid


def sweeps() -> None:
    model = symgpu.load("prior_huang_bw")
    n_max = float(model.presets["fermi"]["n_max"].magnitude)
    alphas, n = np.asarray(prior_study.ALPHAS, dtype=float), np.arange(0.25, 2 * n_max + 0.125, 0.25)
    grid_a, grid_n = np.meshgrid(alphas, n, indexing="ij")
    values = {"alpha": grid_a, "n": grid_n}
    old, (a, count_a) = cpu(lambda: bisected(model, prior_study.QUANTITY, "fermi", values))
    new, (b, count_b) = cpu(lambda: model_sweep(model, prior_study.QUANTITY, "fermi", {}, [("alpha", alphas, model), ("n", n, model)]))
    np.testing.assert_array_equal(a, b.ravel())
    assert count_a == count_b
    print(f"masked sweep, {grid_a.size} points ({count_b} outside the domain): bisection {old:.3f} s, "
          f"one mask {new:.3f} s CPU: {old / new:.0f}x")


def values(model_id: str) -> None:
    model = symgpu.load(model_id)
    specs = plot_specs.plan(model, None)

    def evaluate_all(kept: bool = True) -> None:
        for spec in specs:
            try:
                values = plot_values.PlotValues(model, spec, kept=kept)
                plots.curve(model, spec, _NullAxes(), values, bounds=spec.kind == "asymptotes") \
                    if spec.kind != "regime_map" else plots.regime_map(model, spec, _NullAxes(), values)
            except (errors.SymgpuError, ValueError, ArithmeticError, TypeError):
                pass

    evaluate_all()  # warm-up: the model's expansions, and what both ways share
    clear_cache()  # SymPy's cache would keep the Min/Max comparisons of the warm-up
    old, _ = cpu(lambda: evaluate_all(kept=False))
    memo.registered()["report.plot_values.functions"].clear()
    clear_cache()
    new, _ = cpu(evaluate_all)
    print(f"plot values of {model_id} ({len(specs)} plots, nothing drawn): compiled afresh {old:.2f} s, "
          f"kept per model {new:.2f} s CPU: {old / new:.1f}x")


def figures(model_id: str) -> None:
    model = symgpu.load(model_id)
    specs = plot_specs.plan(model, None)

    def draw_all(kinds: tuple[str, ...] = ("svg", "pdf"), look: style.Look = style.LOOK) -> int:
        drawn = 0
        for spec in specs:
            try:
                plots.draw(model, spec, kinds, look=look)
                drawn += 1
            except (errors.SymgpuError, ValueError, ArithmeticError, TypeError):
                pass
        return drawn

    count = draw_all()  # warm-up: compiled values, fonts
    old, _ = cpu(lambda: draw_all(look=style.Look(plain_log_labels=False)))
    new, _ = cpu(draw_all)
    print(f"figures of {model_id} ({count} plots, SVG + PDF): mathtext log labels {old:.2f} s, plain {new:.2f} s CPU: {old / new:.2f}x")
    path, _ = cpu(lambda: draw_all(("svg",)))
    text, _ = cpu(lambda: draw_all(("svg",), style.Look(svg_fonttype="none")))
    print(f"  SVG alone: text as glyph paths (kept) {path:.2f} s, svg.fonttype none {text:.2f} s CPU: {path / text:.2f}x")


def derivation_text(model_id: str) -> None:
    model = symgpu.load(model_id)
    expressions = []
    for request in model.definition.derivations:
        try:
            expressions += [step.expression for step in derive.run_request(model, request).steps]
        except Exception:  # noqa: BLE001 - a request that fails has no steps to print
            continue
    names = latex.symbol_names(model)

    def afresh() -> list[str]:
        return [sympy.sstr(e) for e in expressions] + [sympy.latex(e, symbol_names=names, mul_symbol="dot") for e in expressions]

    def kept() -> list[str]:
        text, tex = printing.KeptStrPrinter(), printing.KeptLatexPrinter({"symbol_names": names, "mul_symbol": "dot"})
        return [text.doprint(e) for e in expressions] + [tex.doprint(e) for e in expressions]

    clear_cache()
    old, a = cpu(afresh)
    clear_cache()
    new, b = cpu(kept)
    assert a == b, "the kept printers' text differs from SymPy's"
    print(f"derivation steps of {model_id} ({len(expressions)} expressions, {sum(map(len, a)):,} characters) as text and LaTeX: "
          f"printed afresh {old:.2f} s, subexpressions kept {new:.2f} s CPU: {old / new:.1f}x")


def scheduled() -> None:
    seconds = schedule.previous()
    if not seconds:
        print("schedule: no report --all times recorded in the cache (run report --all first)")
        return

    def end(order: list[str]) -> float:
        workers = [0.0, 0.0]
        for name in order:
            workers[workers.index(min(workers))] += seconds[name]
        return max(workers)

    last = ("comparison", "kernel_example")
    former = sorted(n for n in seconds if n not in last) + [n for n in last if n in seconds]
    named, longest = end(former), end(schedule.longest_first(former, {}, seconds))
    print(f"schedule of {len(seconds)} report folders, {sum(seconds.values()):.1f} s CPU recorded: two workers end after "
          f"{named:.1f} s in the former order (models by name, then the comparison and the kernel example), "
          f"{longest:.1f} s longest first (the bound: {sum(seconds.values()) / 2:.1f} s)")


class _NullAxes:
    """Axes that draw nothing (only the values are measured)."""

    def __getattr__(self, name: str) -> Any:
        if name == "get_legend_handles_labels":
            return lambda: ([], [])
        if name == "get_yscale":
            return lambda: "linear"
        return lambda *args, **kwargs: None


def reports(ids: list[str]) -> None:
    """``report --all`` over ``ids``, each run a fresh process with an empty cache."""
    script = ("import sys; from symgpu.report import render; render.model_ids = lambda: sys.argv[1].split(','); "
              "from symgpu.cli import main; sys.exit(main(sys.argv[2:]))")
    measured: dict[str, tuple[float, float]] = {}
    for jobs in ("1", "2"):
        with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cache:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", script, ",".join(ids), "report", "--all", "--jobs", jobs, "-o", out, "-f", "md"],
                           check=True, capture_output=True, env={**os.environ, store.CACHE_DIR_ENV: cache})
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            measured[jobs] = (wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    (w1, c1), (w2, c2) = measured["1"], measured["2"]
    print(f"report --all over {', '.join(ids)}, fresh process and cache each: --jobs 1 {w1:.1f} s wall ({c1:.1f} s CPU), "
          f"--jobs 2 {w2:.1f} s wall ({c2:.1f} s CPU): {w1 / w2:.2f}x wall (two free cores give at most 2x)")


#: issue 31: ``report --all`` with an empty cache, in seconds of wall time on the 2-core machine (timing is never a test)
TARGET_COLD = 10.0


def report_all() -> None:
    """``report --all`` cold (figures drawn, then kept) and warm, each a fresh process (see the module docstring)."""
    from symgpu.report import figure_digests, render

    def run(out: str, cache: str, *extra: str) -> tuple[float, float, float]:
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "symgpu", "report", "--all", "-o", out, *extra], check=True, capture_output=True,
                       env={**os.environ, store.CACHE_DIR_ENV: cache})
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, load

    def same(out: str) -> bool:
        def files(root: str) -> dict[str, bytes]:
            return {os.path.relpath(os.path.join(d, n), root): open(os.path.join(d, n), "rb").read()
                    for d, _, names in os.walk(root) for n in names if not n.startswith(".") and n != figure_digests.SIDECAR}
        return files(out) == files(str(render.REPORTS))

    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "reports")
        subprocess.run(["cp", "-r", str(render.REPORTS), out], check=True)
        rows = [("cold, every figure drawn (--force)", run(out, os.path.join(work, "cache1"), "--force"))]
        rows.append(("cold, figures kept", run(out, os.path.join(work, "cache2"))))
        rows.append(("warm (every report up to date)", run(out, os.path.join(work, "cache2"))))
        identical = same(out)
    for name, (wall, cpu_seconds, load) in rows:
        print(f"report --all {name}: {wall:.1f} s wall, {cpu_seconds:.1f} s CPU (load average before: {load:.2f})")
    wall, cpu_seconds, load = rows[1][1]
    print(f"  cold (empty cache, figures kept) against issue 31's target of {TARGET_COLD:.0f} s wall: {wall / TARGET_COLD:.1f}x the "
          f"target ({wall:.1f} s); {cpu_seconds / TARGET_COLD:.1f}x in CPU seconds, which {os.cpu_count()} cores share at best"
          + (f" (a load of {load:.1f} before the run: the wall time is not this machine's alone)" if load >= 1 else ""))
    print(f"  files equal to reports/ (figure books aside): {'yes' if identical else 'NO'}; {os.cpu_count()} CPU cores")


def kept_figures() -> None:
    """Every model's plots drawn with its report folder's figure book (each figure kept), against
    the same plots' values alone (:class:`_NullAxes`), in one warm process: what keeping costs."""
    from symgpu.report import figure_digests, render

    ids = [m for m in symgpu.list_models() if (render.REPORTS / m / figure_digests.SIDECAR).is_file()]
    models = {m: symgpu.load(m) for m in ids}

    def each(kept: bool) -> int:
        count = 0
        for model_id, model in models.items():
            book = figure_digests.Book.read(render.REPORTS / model_id)
            for spec in plot_specs.plan(model, None):
                try:
                    if kept:
                        plots.draw(model, spec, ["svg", "pdf"], spec.describe(model_id)["files"], book)
                    elif spec.kind == "regime_map":
                        plots.regime_map(model, spec, _NullAxes(), plot_values.PlotValues(model, spec))
                    else:
                        plots.curve(model, spec, _NullAxes(), plot_values.PlotValues(model, spec), bounds=spec.kind == "asymptotes")
                    count += 1
                except (errors.SymgpuError, ValueError, ArithmeticError, TypeError):
                    pass
        return count

    each(True)  # warm-up: compiled values, fonts
    kept, count = cpu(lambda: each(True))
    alone, _ = cpu(lambda: each(False))
    print(f"plots of {len(ids)} models ({count} figures) with every figure kept from its book: {kept:.2f} s CPU; "
          f"their values alone {alone:.2f} s: keeping costs {kept - alone:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="volkov_2016", help="model whose plot values are measured")
    parser.add_argument("--derivations", default="occupancy", help="model whose derivation steps are printed")
    parser.add_argument("--schedule", action="store_true", help="also the two-worker schedule of the last recorded report --all")
    parser.add_argument("--reports", action="store_true", help="also time report --all with 1 and 2 worker processes")
    parser.add_argument("--all", action="store_true", help="only report --all cold (figures drawn, figures kept) and warm, "
                        "wall and CPU seconds")
    parser.add_argument("--kept-figures", action="store_true", help="only every model's plots drawn with each figure kept "
                        "from its book, against their values alone, in one process")
    args = parser.parse_args()
    if args.kept_figures:
        kept_figures()
        return
    if args.all:
        report_all()
        return
    sweeps()
    values(args.model)
    figures(args.model)
    derivation_text(args.derivations)
    if args.schedule:
        scheduled()
    if args.reports:
        reports(["hong_kim_2009", "interval_analysis", "mdm_2019", "perez_piccoli"])


if __name__ == "__main__":
    main()
