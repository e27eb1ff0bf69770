"""What a numba sweep costs before its first point: compiling symgpu's fused loop against compiling the hand numba loop.

For each model of ``sweep_vs_hand.py`` (``volkov_2016 memory_throughput`` at ``maxwell``, ``hong_kim_2009
Exec_cycles_app`` at ``table2_example``), in a fresh process each (numba keeps what it compiled for the process):

* ``symgpu numba``: the first ``symgpu.sweep.sweep(..., backend="numba")`` of a 1,000-point grid (the plan built and
  its NumPy function compiled first, untimed, by a NumPy sweep of the same grid; so the time is numba's compiling of
  the fused loop, with the checks and the regime column where asked), and the second call (nothing compiled: the grid);
* ``hand numba``: the first call of ``sweep_vs_hand.py``'s one-thread ``@njit`` loop on the same grid (its compiling).

Prints CPU seconds (``time.process_time``, steadier than wall time on a shared machine) and the ratio. Timing here is
information, never a pass/fail test.

Usage: ``python benchmarks/numba_compile_time.py [--regime-of ""|None]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one(case: str, what: str, regime_of: str | None) -> dict[str, float]:
    """In this process: the CPU seconds of ``what`` (``symgpu`` or ``hand``) for the model named ``case``."""
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import numpy as np

    import symgpu
    import sweep_vs_hand as hand
    from symgpu.sweep import sweep

    model_id, quantity, preset, grid_for, constants_for, _, numba_for = next(c for c in hand.CASES if c[0] == case)
    model = symgpu.load(model_id)
    grid = grid_for(1_000) if case == "hong_kim_2009" else ["n=1:10", "alpha=0:99"]
    if what == "symgpu":
        sweep(model, quantity, grid=grid, preset=preset, regime_of=regime_of, backend="numpy")  # plan and NumPy: untimed
        begin = time.process_time()
        sweep(model, quantity, grid=grid, preset=preset, regime_of=regime_of, backend="numba")
        first = time.process_time() - begin
        begin = time.process_time()
        sweep(model, quantity, grid=grid, preset=preset, regime_of=regime_of, backend="numba")
        return {"first": first, "second": time.process_time() - begin}
    loop = numba_for(False)
    axes = [np.arange(1.0, 9.0), np.arange(1.0, 11.0), np.arange(100.0, 110.0)] if case == "hong_kim_2009" else \
        [np.arange(1.0, 11.0), np.arange(0.0, 100.0)]
    out = np.empty(tuple(a.size for a in axes))
    begin = time.process_time()
    loop(constants_for(model), *axes, out)
    first = time.process_time() - begin
    begin = time.process_time()
    loop(constants_for(model), *axes, out)
    return {"first": first, "second": time.process_time() - begin}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regime-of", default=None, help='"" for the value column alone (default: with the regime column)')
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    regime_of = None if args.regime_of in (None, "None") else args.regime_of
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], regime_of)))
        return
    print(f"{'model':<15} {'symgpu first s':>15} {'second s':>9} {'hand first s':>13} {'ratio':>6}")
    for case in ("volkov_2016", "hong_kim_2009"):
        got = {}
        for what in ("symgpu", "hand"):
            command = [sys.executable, __file__, "--one", case, what] + ([] if regime_of is None else ["--regime-of", regime_of])
            done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
            got[what] = json.loads(done.stdout.strip().splitlines()[-1])
        ratio = got["symgpu"]["first"] / got["hand"]["first"]
        print(f"{case:<15} {got['symgpu']['first']:>15.2f} {got['symgpu']['second']:>9.3f} {got['hand']['first']:>13.2f} {ratio:>6.1f}")


if __name__ == "__main__":
    main()
