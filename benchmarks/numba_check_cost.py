"""Where the numba backend's time goes: its fused function's value alone against the value with the
clear-of-ties test, each against the hand numba loop, one run.

The numba sweep (:mod:`symgpu.sweep.fused`) computes each point's value with every case relation in its
fast form (``d > 0``: no tie rule) and, in the same pass, whether the point is clear of ties (every
relation's difference beyond ``CLEAR`` of its sides' summed magnitudes, or exactly 0 between sides that are
surely equal decimals; per relation a select and one comparison of floats:
:func:`symgpu.sweep.tie_conditions.clear_of_ties`); the few points that are not clear are computed again
by the tie rule. This script builds the plan's own fused function (its innermost
axis's table and its point function, as the sweep compiles them) into four one-thread loops over the
same grid, each writing into one reused output (no page faults, no threads: the compute alone):

* ``value (tie rule)``: the value column as the rule decides the cases (the plan's first output);
* ``value (fast)``: the fast value alone;
* ``fast + clear``: the fast value and the clear-of-ties test, counted (what the sweep's first pass does);
* ``fast + clear + domain``: and the domain test (NaN outside), as the checked sweep runs;

against ``hand numba``: ``benchmarks/sweep_vs_hand.py``'s loop for Hong & Kim's ``Exec_cycles_app``
(no tie check). Every loop's values are checked against the hand loop's (rtol 1e-12) before timing.

``--whole``: also the whole in-memory sweep (``symgpu.sweep.sweep(..., backend="numba")``, the value column alone,
on the threads this process may use: one under ``taskset -c 0``) against the hand loop writing a new output, each
call's column allocated and its pages first touched, as a user's call pays them; their ratio is printed against
``hand numba, new output``.

Usage: ``python benchmarks/numba_check_cost.py [--points 2e6] [--repeat 15] [--clock wall|cpu] [--whole]`` (``cpu``: CPU
seconds of this process, ``time.process_time``: steadier on a shared machine; the loops run on one thread). Needs numba
(says so and exits 0 without it). Timing here is information, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import symgpu  # noqa: E402
from symgpu.evaluate.axis_tables import Tabled  # noqa: E402
from symgpu.sweep import backends, plan as plans  # noqa: E402
from symgpu.sweep.run import compile_plan, sweep  # noqa: E402
from symgpu.sweep.threads import local_threads  # noqa: E402

try:
    import numba
except ImportError:
    numba = None

_SPEC = importlib.util.spec_from_file_location("sweep_vs_hand", Path(__file__).resolve().parent / "sweep_vs_hand.py")
assert _SPEC is not None and _SPEC.loader is not None
hand = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(hand)

#: what each loop writes (the labels the table prints)
KINDS = ("value (tie rule)", "value (fast)", "fast + clear", "fast + clear + domain")


def loops(function: Tabled, fixed: tuple[float, ...], rule: int, fast: int, clear: int, domain: int) -> dict[str, Callable[..., Any]]:
    """The four loops of :data:`KINDS` over a 3-axis grid, the fused function inlined as the sweep inlines it."""
    tuple_setitem = importlib.import_module("numba.cpython.unsafe.tuple").tuple_setitem
    table = numba.njit(inline="always")(function.table)
    point = numba.njit(inline="always")(function.point)
    count = function.count

    def make(kind: int) -> Callable[..., Any]:
        @numba.njit(nogil=True, error_model="numpy")
        def loop(a: np.ndarray, b: np.ndarray, c: np.ndarray, out: np.ndarray) -> int:
            entries = np.empty((count, c.size))
            for t in range(c.size):
                entry = table((c[t],), fixed)
                for j in range(count):
                    entries[j, t] = entry[j]
            doubtful = 0
            for i in range(a.size):
                for j in range(b.size):
                    row = (a[i], b[j], c[0])
                    o = out[i, j]
                    for t in range(c.size):
                        r = point(tuple_setitem(row, 2, c[t]), fixed, entries, t)
                        if kind == 0:
                            o[t] = r[rule]
                        elif kind == 1:
                            o[t] = r[fast]
                        elif kind == 2:
                            o[t] = r[fast]
                            doubtful += 1 if r[clear] < 0.5 else 0
                        else:
                            inside = r[domain] > 0.5
                            o[t] = r[fast] if inside else np.nan
                            doubtful += 1 if r[clear] < 0.5 or not inside else 0
            return doubtful
        return loop  # type: ignore[no-any-return]

    return {label: make(kind) for kind, label in enumerate(KINDS)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=float, default=2e6)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall seconds (default) or CPU seconds of this process")
    parser.add_argument("--whole", action="store_true", help="also the whole in-memory sweep against the hand loop into a new output")
    args = parser.parse_args()
    if numba is None:
        print("numba is not installed: nothing to time")
        return
    model = symgpu.load("hong_kim_2009")
    texts = hand.hong_kim_grid(int(args.points))
    plan = plans.build_plan(model, ["Exec_cycles_app"], preset="table2_example", grid=texts, regime_of="")
    function = compile_plan(plan, backends.load("numba"))
    assert isinstance(function, Tabled), "Hong & Kim's numba function tabulates its innermost axis"
    assert plan.near is not None and plan.domain is not None and plans.fast_outputs(plan)
    fast = len(plan.exprs)  # the fast pass's outputs follow the plan's own (sweep.run._fused_run)
    fixed = tuple(float(v) for _, v in plan.fixed)
    axes = [a.values for a in plan.grid.axes]
    out = np.empty([a.size for a in axes])
    functions = loops(function, fixed, 0, fast, fast + len(plan.quantities), plan.domain)
    serial = hand.hong_kim_numba(False)
    constants = hand.hong_kim_constants(model)
    functions["hand numba"] = lambda *axes_out: serial(constants, *axes_out)
    expected = serial(constants, *axes, np.empty_like(out)).copy()
    for name, function_ in functions.items():  # compiles; the same numbers
        function_(*axes, out)
        np.testing.assert_allclose(out, expected, rtol=1e-12, err_msg=name)
    if args.whole:  # each call allocates its output (the sweep's column, the hand loop's np.empty)
        def whole(*_: np.ndarray) -> np.ndarray:
            result = sweep(model, "Exec_cycles_app", grid=texts, preset="table2_example", backend="numba", regime_of="")
            return result.columns["Exec_cycles_app"]

        np.testing.assert_allclose(whole().reshape(out.shape), expected, rtol=1e-12, err_msg="sweep (whole)")
        functions["hand numba, new output"] = lambda *axes_out: serial(constants, *axes_out[:-1], np.empty_like(axes_out[-1]))
        functions["sweep (whole)"] = whole
    times: dict[str, list[float]] = {k: [] for k in functions}
    load = os.getloadavg()[0]
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    for _ in range(args.repeat):
        for name, function_ in functions.items():
            begin = clock()
            function_(*axes, out)
            times[name].append(clock() - begin)
    seconds = {k: statistics.median(v) for k, v in times.items()}
    print(f"hong_kim_2009 Exec_cycles_app at table2_example, {out.size:.3g} points ({' x '.join(texts)}), one thread, "
          f"the output reused; medians of {args.repeat}, {args.clock} seconds; load average {load:.2f} -> {os.getloadavg()[0]:.2f}")
    print(f"{'':<24} {'ms':>8} {'/hand numba':>11} {'ns/point':>9}")
    for name, t in seconds.items():
        print(f"{name:<24} {t * 1e3:>8.2f} {t / seconds['hand numba']:>11.2f} {t / out.size * 1e9:>9.2f}")
    if args.whole:
        print(f"sweep (whole) / hand numba, new output: {seconds['sweep (whole)'] / seconds['hand numba, new output']:.2f} "
              f"(the sweep on {local_threads()} thread(s))")


if __name__ == "__main__":
    main()
