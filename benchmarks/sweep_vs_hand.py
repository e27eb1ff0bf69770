"""Sweeps against code written by hand: symgpu's backends vs hand-written NumPy and numba, one run.

Two sweeps of 10^7 points (``--points``), each on a Cartesian grid at a preset:

* ``volkov_2016 memory_throughput`` at ``maxwell`` over n = 1..10^4 x alpha = 0..999
  (``Min(n/(mem_lat + alpha*alu_lat), mem_thru, alu_thru/alpha, issue_thru/(alpha + 1))``);
* ``hong_kim_2009 Exec_cycles_app`` at ``table2_example`` over Active_blocks_per_SM = 1..8 x
  Comp_insts = 1..1250 x Mem_LD = 100..1099 (three cases over nested ``Min``s).

Against each, in the same process, interleaved, medians of ``--repeat`` runs:

* ``hand numpy``: NumPy as a skilled user writes it from the model file's equations (constants
  folded into Python floats, the axes broadcast against each other so every subexpression is
  computed at the size of the axes it uses, the last step in place); the whole grid at once;
* ``hand numba``: one ``@njit`` loop over the grid into an ``np.empty`` output
  (``parallel=True``/``prange`` over the first axis: ``hand numba par``), if numba is installed;
* ``symgpu numpy`` / ``numba``: ``symgpu.sweep.sweep(...)`` (the in-memory sweep: plan, compiled
  pass over the grid, checks on), the value column alone (``--regime-of ""``) and with the regime
  column; both on every core this process may use (NumPy's chunks and numba's parts on threads: the
  hand NumPy runs on one, as a user writes it; ``--clock cpu`` shows what the threads cost);
* ``copy floor``: ``np.copyto`` of 10^7 float64 (one 8-byte column written): the machine's floor.

Before timing, every symgpu value column is checked against the hand-written one
(``assert_allclose``, rtol 1e-12), so the baselines compute the same numbers. Prints seconds,
ratios to the hand-written baselines, points/s as a fraction of the copy floor, and the load average before
and after the timed rounds (a shared machine's ratios move with it).

``--clock cpu`` times each call in CPU seconds of this process (``time.process_time``: steadier than
wall time on a shared machine; the hand numba parallel loop's threads count in full). After the
parallel loop the round pauses, untimed, for :data:`SETTLE` seconds: its OpenMP threads spin-wait
for work for 10-50 ms after it returns, and that CPU time was charged to whatever ran next (the
numba sweep: 7 ms of its 18 ms at 10^7 points).

Usage: ``python benchmarks/sweep_vs_hand.py [--points 1e7] [--repeat 5] [--clock wall|cpu]``. Timing here is
information, never a pass/fail test.
"""

from __future__ import annotations

import argparse
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
from symgpu.sweep import sweep  # noqa: E402

try:
    import numba
except ImportError:  # the numba rows are skipped
    numba = None


# ------------------------------------------------------------------ volkov_2016 memory_throughput
def volkov_grid(points: int) -> list[str]:
    return [f"n=1:{max(1, points // 1000)}", "alpha=0:999"]


def volkov_constants(model: Any) -> tuple[float, ...]:
    values = model.preset("maxwell")
    return (values["mem_lat"].to("cycle").magnitude, values["alu_lat"].to("cycle").magnitude,
            values["mem_thru"].to("winst/cycle/SM").magnitude, values["alu_thru"].to("winst/cycle/SM").magnitude,
            values["issue_thru"].to("winst/cycle/SM").magnitude)


def volkov_hand(constants: tuple[float, ...], n: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Min(n/(mem_lat + alpha*alu_lat), mem_thru, alu_thru/alpha, issue_thru/(alpha + 1))."""
    mem_lat, alu_lat, mem_thru, alu_thru, issue_thru = constants
    with np.errstate(divide="ignore"):
        bound = np.minimum(np.minimum(alu_thru / alpha, issue_thru / (alpha + 1.0)), mem_thru)  # per alpha
    out = n[:, None] / (mem_lat + alpha * alu_lat)
    return np.minimum(out, bound, out=out)


def volkov_numba(parallel: bool) -> Callable[..., np.ndarray]:
    @numba.njit(parallel=parallel, error_model="numpy")
    def loop(constants: Any, n: np.ndarray, alpha: np.ndarray, out: np.ndarray) -> np.ndarray:
        mem_lat, alu_lat, mem_thru, alu_thru, issue_thru = constants
        for i in numba.prange(n.size):
            for j in range(alpha.size):
                a = alpha[j]
                out[i, j] = min(n[i] / (mem_lat + a * alu_lat), mem_thru, alu_thru / a, issue_thru / (a + 1.0))
        return out

    return loop  # type: ignore[no-any-return]


# ------------------------------------------------------------------ hong_kim_2009 Exec_cycles_app
def hong_kim_grid(points: int) -> list[str]:
    return ["Active_blocks_per_SM=1:8", "Comp_insts=1:1250", f"Mem_LD=100:{99 + max(1, points // 10_000)}"]


def hong_kim_constants(model: Any) -> tuple[float, ...]:
    values = {**{k: v for k, v in model.constants.items()}, **model.preset("table2_example")}
    names = ("Uncoal_Mem_insts", "Coal_Mem_insts", "Uncoal_per_mw", "Departure_del_uncoal", "Departure_del_coal",
             "Freq", "Mem_Bandwidth", "Load_bytes_per_warp", "Active_SMs", "Issue_cycles", "Blocks",
             "Threads_per_block", "Threads_per_warp")
    return tuple(float(values[k].to_base_units().magnitude) for k in names)


def hong_kim_hand(constants: tuple[float, ...], blocks: np.ndarray, comp: np.ndarray, mem_ld: np.ndarray, xp: Any = np) -> np.ndarray:
    """Exec_cycles_app, Hong & Kim 2009 Eq. (5)-(24), with the axes broadcast (blocks, comp, mem_ld);
    ``xp``: the array module (``cupy`` for the same code on a GPU)."""
    uncoal, coal, per_mw, dep_un, dep_co, freq, bw, load, sms, issue, n_blocks, tpb, tpw = constants
    b, c, m = blocks[:, None, None], comp[None, :, None], mem_ld[None, None, :]
    mem_insts = uncoal + coal
    w_un, w_co = uncoal / mem_insts, coal / mem_insts
    mem_l_un = m + (per_mw - 1.0) * dep_un
    mem_l = mem_l_un * w_un + m * w_co
    departure = dep_un * per_mw * w_un + dep_co * w_co
    n = b * (tpb / tpw)
    mwp = xp.minimum(xp.minimum(xp.minimum(mem_l / departure, n), bw / (freq * load / mem_l * sms)), n)
    mem_cycles = mem_l_un * uncoal + m * coal
    comp_cycles = issue * (c + mem_insts)
    cwp = xp.minimum((mem_cycles + comp_cycles) / comp_cycles, n)
    rep = n_blocks / (b * sms)
    comp_p = comp_cycles / mem_insts
    eq22 = (mem_cycles + comp_cycles + comp_p * (mwp - 1.0)) * rep
    eq23 = (mem_cycles * n / mwp + comp_p * (mwp - 1.0)) * rep
    eq24 = (mem_l + comp_cycles * n) * rep
    return xp.where((mwp == n) & (cwp == n), eq22, xp.where((cwp >= mwp) | (comp_cycles > mem_cycles), eq23, eq24))


def hong_kim_numba(parallel: bool) -> Callable[..., np.ndarray]:
    @numba.njit(parallel=parallel, error_model="numpy")
    def loop(constants: Any, blocks: np.ndarray, comp: np.ndarray, mem_ld: np.ndarray, out: np.ndarray) -> np.ndarray:
        uncoal, coal, per_mw, dep_un, dep_co, freq, bw, load, sms, issue, n_blocks, tpb, tpw = constants
        mem_insts = uncoal + coal
        w_un, w_co = uncoal / mem_insts, coal / mem_insts
        departure = dep_un * per_mw * w_un + dep_co * w_co
        for i in numba.prange(blocks.size):
            n = blocks[i] * (tpb / tpw)
            rep = n_blocks / (blocks[i] * sms)
            for j in range(comp.size):
                comp_cycles = issue * (comp[j] + mem_insts)
                comp_p = comp_cycles / mem_insts
                for k in range(mem_ld.size):
                    m = mem_ld[k]
                    mem_l_un = m + (per_mw - 1.0) * dep_un
                    mem_l = mem_l_un * w_un + m * w_co
                    mwp = min(mem_l / departure, n, bw / (freq * load / mem_l * sms))
                    mem_cycles = mem_l_un * uncoal + m * coal
                    cwp = min((mem_cycles + comp_cycles) / comp_cycles, n)
                    if mwp == n and cwp == n:
                        value = (mem_cycles + comp_cycles + comp_p * (mwp - 1.0)) * rep
                    elif cwp >= mwp or comp_cycles > mem_cycles:
                        value = (mem_cycles * n / mwp + comp_p * (mwp - 1.0)) * rep
                    else:
                        value = (mem_l + comp_cycles * n) * rep
                    out[i, j, k] = value
        return out

    return loop  # type: ignore[no-any-return]


CASES = (
    ("volkov_2016", "memory_throughput", "maxwell", volkov_grid, volkov_constants, volkov_hand, volkov_numba),
    ("hong_kim_2009", "Exec_cycles_app", "table2_example", hong_kim_grid, hong_kim_constants, hong_kim_hand, hong_kim_numba),
)


#: seconds of untimed pause after a function that runs threads (their spin-wait ends in it)
SETTLE = 0.1


def median_times(functions: dict[str, Callable[[], Any]], repeat: int, clock: Callable[[], float] = time.perf_counter,
                 threaded: frozenset[str] = frozenset()) -> dict[str, float]:
    """Each function's median seconds by ``clock``, the functions interleaved (one round calls each
    once; after those named in ``threaded``, an untimed pause of :data:`SETTLE` seconds)."""
    times: dict[str, list[float]] = {k: [] for k in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            begin = clock()
            function()
            times[name].append(clock() - begin)
            if name in threaded:
                time.sleep(SETTLE)
    return {k: statistics.median(v) for k, v in times.items()}


def run_case(case: tuple[Any, ...], points: int, repeat: int, cpu: bool = False) -> None:
    model_id, quantity, preset, grid_of, constants_of, hand_numpy, hand_numba = case
    model = symgpu.load(model_id)
    texts = grid_of(points)
    grid = symgpu.sweep.build_plan(model, [quantity], preset=preset, grid=texts, regime_of="").grid
    axes = [a.values for a in grid.axes]
    constants = constants_of(model)
    size = grid.size
    source, target = np.random.default_rng(0).random(size), np.empty(size)

    def symgpu_run(backend: str, regime: bool) -> Callable[[], Any]:
        def run() -> Any:
            return sweep(model, quantity, grid=texts, preset=preset, backend=backend, regime_of=None if regime else "")
        return run

    functions: dict[str, Callable[[], Any]] = {
        "copy floor": lambda: np.copyto(target, source),
        "hand numpy": lambda: hand_numpy(constants, *axes),
        "symgpu numpy": symgpu_run("numpy", False),
        "symgpu numpy +regime": symgpu_run("numpy", True),
    }
    if numba is not None:
        serial, parallel = hand_numba(False), hand_numba(True)
        # the output allocated by NumPy, as symgpu allocates its columns
        functions["hand numba"] = lambda: serial(constants, *axes, np.empty([a.size for a in axes]))
        functions["hand numba par"] = lambda: parallel(constants, *axes, np.empty([a.size for a in axes]))
        functions["symgpu numba"] = symgpu_run("numba", False)
        functions["symgpu numba +regime"] = symgpu_run("numba", True)
    expected = hand_numpy(constants, *axes).ravel()
    for name, function in functions.items():  # warm-up (compiles), and the same numbers
        got = function()
        if name.startswith("symgpu"):
            np.testing.assert_allclose(got.columns[quantity], expected, rtol=1e-12, err_msg=name)
            if name.endswith("+regime"):
                assert got.regime is not None and got.regime.shape == (size,)
        elif name.startswith("hand"):
            np.testing.assert_allclose(np.ravel(got), expected, rtol=1e-12, err_msg=name)
    load = os.getloadavg()[0]
    seconds = median_times(functions, repeat, time.process_time if cpu else time.perf_counter, frozenset({"hand numba par"}))
    floor = seconds["copy floor"]
    print(f"\n{model_id} {quantity} at {preset}, {size:.3g} points ({' x '.join(texts)}), medians of {repeat}"
          f"{', CPU seconds' if cpu else ''}; load average {load:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'':<22} {'seconds':>8} {'/hand numpy':>11} {'/hand numba':>11} {'/value':>7} {'Mpoints/s':>10} {'of floor':>8}")
    best_numba = min((seconds[k] for k in ("hand numba", "hand numba par") if k in seconds), default=None)
    for name, t in seconds.items():
        ratio_numba = f"{t / best_numba:>11.2f}" if best_numba else f"{'':>11}"
        alone = name.replace(" +regime", "")
        ratio_value = f"{t / seconds[alone]:>7.2f}" if name.endswith("+regime") else f"{'':>7}"
        print(f"{name:<22} {t:>8.3f} {t / seconds['hand numpy']:>11.2f} {ratio_numba} {ratio_value} "
              f"{size / t / 1e6:>10.0f} {floor / t:>8.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=[c[0] for c in CASES], help="one model only")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall seconds (default) or CPU seconds of this process")
    args = parser.parse_args()
    print(f"numba: {numba.__version__ if numba else 'not installed'}; numpy {np.__version__}; "
          "'/hand numba': against the faster of the serial and parallel hand loops")
    for case in CASES:
        if args.only in (None, case[0]):
            run_case(case, int(args.points), args.repeat, args.clock == "cpu")


if __name__ == "__main__":
    main()
