"""The numba backend: one compiled loop (``symgpu[fast]``) per box of the grid (a chunk is one
box: :meth:`~symgpu.sweep.grid.Grid.chunks`) that, row by row of the last axis (the other axes
stepped like an odometer between rows, no division per point), runs the plan's fused function,
masks the points outside the domain (NaN) and decides the regime — writing only the quantity
columns and the regime codes, no temporaries.

The regime is :mod:`symgpu.evaluate.active`'s rule in its scalar form
(:func:`~symgpu.evaluate.active.relation_number`, :func:`~symgpu.evaluate.active.larger_magnitude`),
applied to the same outputs the NumPy backend's :func:`symgpu.sweep.regimes.decide` reads. A
Min/Max's binding argument is the first (in the plan's order) within ``TIE`` of the extreme one:
the loop takes the first extreme argument, and leaves the points where another argument lies
within ``4 TIE`` of the extreme, or one is NaN, to a second pass (``settle``, compiled only when
a sweep has such points) that applies the rule argument by argument in the rows the loop marked
(a scan of the whole regime column cost 70 % of the regime's time at 10^7 points). A case
table's regime is the first case whose condition holds: one more output of the fused function
(:func:`symgpu.sweep.tie_conditions.case_code`, each relation written by the tie rule), which
shares the value's own case conditions (a decision of its own, from the relations' sides, cost
Hong & Kim's regime column 0.6x of its value's time; now 0.1-0.25x).

The arithmetic is the plan's compiled expressions point by point (no ``fastmath``: reassociated
or reciprocal arithmetic could move an exact tie of a discontinuous model), so every value is
the one the NumPy backend computes. A local sweep's box of at least :data:`SPLIT_POINTS` points is cut
along its outer axes into one box of consecutive points per core (:func:`split`), and the loop (which
releases the GIL) runs on each in a thread of its own: every point is computed alone, so the columns,
codes and flags are those of one thread, bit for bit. A chunk of ``--engine dask`` runs on one thread
(its workers are the parallelism: no oversubscribing). Kernels are compiled once per process, fused function, axis count and kind of regime (numba's on-disk cache
is not used: symgpu never loads executable code from a cache).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu.evaluate import active
from symgpu.evaluate.axis_tables import Tabled
from symgpu.memo import Memo
from symgpu.sweep.regimes import RegimeSpec
from symgpu.sweep.threads import pool as threads_pool

#: regime kinds as the kernel reads them
NO_REGIME, MIN, MAX, CASES = 0, 1, 2, 3


@dataclass(frozen=True)
class Layout:
    """The grid and plan as flat arrays the kernel reads (see :func:`layout`)."""

    values: np.ndarray  # every axis's values in base units, concatenated
    offsets: np.ndarray  # where each axis starts in ``values``
    lengths: np.ndarray  # points per axis
    quantities: int  # outputs 0..quantities-1 are the columns, NaN outside the domain
    domain: int  # index of the domain output, -1 for none
    kind: int  # NO_REGIME, MIN, MAX or CASES
    arguments: np.ndarray  # MIN/MAX: the outputs compared, in the order ties are settled in
    code: int  # CASES: index of the output that is the regime's code (tie_conditions.case_code), else -1
    near: int = -1  # index of the near-tie flag output (written as a column of flags), -1 for none
    #: index of the fast pass's first output (:func:`symgpu.sweep.plan.fast_outputs`: the quantities, a case table's
    #: code, then whether the point is clear of ties), -1 for none
    fast: int = -1
    #: the domain output reads no swept symbol (its value is the same at every point): decided once per box, at its
    #: first point, and the loop stores the values unmasked (a test per point cost Hong & Kim's numba value 8 %)
    steady: bool = False


_LAYOUTS: Memo[int, tuple[object, Layout]] = Memo("sweep.fused.layouts", 64)


def layout(owner: object, axes: list[np.ndarray], scales: tuple[float, ...], quantities: int, domain: int | None,
           regime: RegimeSpec | None, near: int | None = None, code: int | None = None, fast: int | None = None,
           steady: bool = False) -> Layout:
    """The kernel's view of ``owner`` (a plan; built once per plan object, the axes copied once); ``near`` and
    ``code``: the indices of the near-tie flag and (a case table's regime) the code among the function's outputs;
    ``fast``: of the fast pass's first output; ``steady``: the domain output reads no swept symbol."""
    known = _LAYOUTS.get(id(owner))
    if known is not None and known[0] is owner:
        return known[1]
    lengths = np.array([a.size for a in axes], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64) if axes else np.zeros(0, dtype=np.int64)
    based = [a * s if s != 1.0 else a for a, s in zip(axes, scales)]  # as the NumPy backend scales them
    values = np.ascontiguousarray(np.concatenate(based) if based else np.zeros(0), dtype=np.float64)
    kind, arguments = NO_REGIME, np.zeros(0, dtype=np.int64)
    if regime is not None and regime.kind in ("min", "max"):
        kind = MIN if regime.kind == "min" else MAX
        arguments = np.array([t[1] for t in regime.trees], dtype=np.int64)
    elif regime is not None:
        if code is None:
            raise ValueError("a case table's regime is decided by its code output (tie_conditions.case_code): give its index")
        kind = CASES
    made = Layout(values, offsets, lengths, quantities, -1 if domain is None else domain, kind, arguments,
                  code if kind == CASES and code is not None else -1, -1 if near is None else near, -1 if fast is None else fast,
                  steady and domain is not None)
    _LAYOUTS[id(owner)] = (owner, made)
    return made


#: compiled loops by function and shape (bounded: one compiled again after a clear costs only its compile
#: time), each kept with the function it calls, so a reused id is never mistaken for it
_KERNELS: Memo[tuple[Any, ...], tuple[Any, tuple[Callable[..., Any], Callable[..., Any]]]] = Memo("sweep.fused.kernels", 256)


def kernel(numba: Any, function: Callable[..., Any] | Tabled, axes: int, plan: Layout) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The compiled loop (and its second pass, ``settle``) of the plan's fused ``function`` for ``axes``
    swept symbols and the plan's kind of regime (once per process, function and shape: a Min/Max's
    outputs compared are compile-time constants, so its loop vectorizes).

    The loop calls ``function`` as a compile-time constant inlined into it (numba's ``inline="always"``),
    not as an argument: an argument is a call LLVM inlines only while the function is small, and a
    call in the loop keeps it from vectorizing (a sweep's case conditions written by the tie rule,
    :mod:`symgpu.sweep.tie_conditions`, made Hong & Kim's value column 9x slower than the
    same loop with the function inlined). A :class:`~symgpu.evaluate.axis_tables.Tabled` function's table of the
    innermost axis is filled once per box and read per point (Hong & Kim's value: MWP's memory latency and bounds,
    two divisions per point)."""
    first, count = (int(plan.arguments[0]), plan.arguments.size) if plan.kind in (MIN, MAX) else (0, 0)
    if plan.kind in (MIN, MAX) and not np.array_equal(plan.arguments, np.arange(first, first + count)):
        first, count = -1, 0  # not consecutive outputs: read through plan.arguments
    key = (id(function), axes, plan.kind, first, count, plan.quantities, plan.domain, plan.near, plan.code, plan.fast, plan.steady)
    known = _KERNELS.get(key)
    if known is None or known[0] is not function:
        point, table, entry_size = (function.point, function.table, function.count) if isinstance(function, Tabled) else (function, None, 0)
        jit = numba.njit(inline="always")
        known = (function, _make_kernel(numba, (jit(point), numba.njit(point)), None if table is None else jit(table), entry_size,
                                        *key[1:]))
        _KERNELS[key] = known
    return known[1]


def _make_kernel(numba: Any, points: tuple[Any, Any], table: Any, entry_size: int, n: int, kind: int, first: int, count: int, quantities: int, domain: int,
                 near_tie: int, code: int, fast: int, steady: bool) -> Any:  # pragma: no cover
    # the coordinates as a tuple of n floats (n fixed per kernel), which the fused function unpacks for free;
    # along a run only the last one changes (tuple_setitem: the tuple stays in registers)
    to_fixed_tuple: Any = importlib.import_module("numba.np.unsafe.ndarray").to_fixed_tuple
    tuple_setitem: Any = importlib.import_module("numba.cpython.unsafe.tuple").tuple_setitem
    relation = numba.njit(active.relation_number)
    magnitude = numba.njit(active.larger_magnitude)
    smaller = kind == MIN
    last = n - 1
    columns = max(entry_size, 1)  # of the table (one unused where there is none)
    # the fused function inlined into the loop over a row (`point`, where LLVM vectorizes it), and compiled once on
    # its own (`called`) for the few points read elsewhere: a steady domain's first point, the points not clear of
    # ties, the near ties settle() decides (each inlined copy is numba's IR copied, typed and optimised again:
    # Hong & Kim's kernel compiled in half the time)
    point, called = points
    if table is not None:
        @numba.njit(inline="always")
        def fill(entries: np.ndarray, source: np.ndarray, fixed: Any) -> None:  # the box's table of the innermost axis
            for t in range(source.size):
                entry = table((source[t],), fixed)
                for j in range(entry_size):
                    entries[j, t] = entry[j]

        @numba.njit
        def f(row: Any, fixed: Any) -> Any:  # a point on its own: its table entry computed for it (the same arithmetic)
            entries = np.empty((entry_size, 1))
            fill(entries, np.array([row[last]]), fixed)
            return called(row, fixed, entries, 0)

        from_table = point  # a point of the box's row, its entry read from the table (called directly: one copy less)
    else:
        f = called

        @numba.njit(inline="always")
        def fill(entries: np.ndarray, source: np.ndarray, fixed: Any) -> None:
            pass

        @numba.njit(inline="always")
        def from_table(row: Any, fixed: Any, entries: np.ndarray, t: int) -> Any:
            return point(row, fixed)

    near = 4 * active.TIE  # beyond this relative distance from the extreme, no argument ties it
    unsettled = count if count else -2  # the code of a point left to settle() (codes of arguments are 0..count-1)

    @numba.njit(inline="always")
    def extreme(result: Any, arguments: np.ndarray) -> int:
        # branch-free over a fixed count of consecutive outputs: the first extreme one, and `unsettled`
        # where an argument before it is within `near` of the extreme or one is NaN (the rule decides those:
        # it names the first argument within TIE of the extreme, so one after the chosen one, or equal to it,
        # changes nothing; the best of those before it is the extreme as it stood when it took over)
        best = result[first]
        before = np.inf if smaller else -np.inf
        total = best  # NaN when an argument is NaN (or infinities of both signs): those points go to settle()
        code = 0
        for k in range(1, count):
            value = result[first + k]
            total += value
            better = value < best if smaller else value > best
            before = best if better else before
            best = value if better else best
            code = k if better else code
        bound = best + near * abs(best) if smaller else best - near * abs(best)
        close = before <= bound if smaller else before >= bound
        return code if not close and total == total else unsettled

    @numba.njit(inline="always")
    def general(result: Any, arguments: np.ndarray) -> int:
        # a Min/Max over any outputs, argument by argument: the rule as active.binding_index states it
        best = result[arguments[0]]
        for k in range(arguments.size):
            value = result[arguments[k]]
            if value != value:
                return -1
            if (smaller and value < best) or (not smaller and value > best):
                best = value
        for k in range(arguments.size):
            value = result[arguments[k]]
            if relation(0, value, best, magnitude(value, best)):
                return k
        return -1

    @numba.njit(inline="always")
    def nothing(result: Any, arguments: np.ndarray) -> int:
        return -1

    def coded(at: int) -> Any:
        @numba.njit(inline="always")
        def code_at(result: Any, arguments: np.ndarray) -> int:
            # a case table's code computed by the fused function itself (output `at`, a compile-time constant: a static
            # index into the outputs), from the conditions the value shares
            return int(result[at])
        return code_at

    def decider(at: int) -> Any:
        return nothing if kind == NO_REGIME else coded(at) if kind == CASES else extreme if count else general

    regimes = kind != NO_REGIME
    checked = domain >= 0 and not steady  # per point; a steady domain is decided once per box (see loop)
    flagging = near_tie >= 0
    tiered = fast >= 0  # values first by the fast pass, the points not clear of ties again by the rule
    first_value = fast if tiered else 0
    first_code = fast + quantities if tiered else code
    clear = fast + quantities + (1 if kind == CASES else 0)

    def storer(values: int, coding: int) -> Any:
        # the point's quantities from outputs values.. (NaN outside the domain) and its regime code (from output
        # `coding` for a case table; -1 outside the domain): whether it is inside, and the code (the output indices
        # compile-time constants of each storer: a static index into the outputs)
        decide = decider(coding)

        @numba.njit(inline="always")
        def store(result: Any, out: np.ndarray, first_column: np.ndarray, codes: np.ndarray, t: int, at: int,
                  arguments: np.ndarray) -> tuple[bool, int]:
            inside = result[domain] > 0.5 if checked else True
            first_column[t] = result[values] if inside else np.nan
            for j in range(1, quantities):
                out[j, at + t] = result[values + j] if inside else np.nan
            code = -1
            if regimes:
                code = decide(result, arguments) if inside else -1
                codes[t] = code
            return inside, code
        return store

    rule_store = storer(0, code)  # the points not clear of ties (few): the values and the code by the rule
    first_decide = decider(first_code)

    @numba.njit(nogil=True, error_model="numpy")
    def loop(origin: int, values: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, fixed: Any,
             arguments: np.ndarray, out: np.ndarray, regime: np.ndarray,
             position: int, lows: np.ndarray, highs: np.ndarray, marked: np.ndarray, flags: np.ndarray) -> tuple[int, int, int]:
        # one box of the grid (lows..highs-1 per axis) into out[:, position:] (and the near-tie flags into `flags`,
        # counted: the caller looks for them only where there are some): a row of the last axis
        # at a time (the inner loop has a fixed trip count and no branch per point: it vectorizes),
        # the other axes stepped like an odometer between rows; the start of each row that leaves
        # points to settle() goes into `marked` (one slot per row), so settle() reads those rows only.
        # Tiered: the row by the fast pass, then (in a row with points not clear of ties) those points again by
        # the rule, their flag slots the near-tie flag; the others' slots are left as given (zeros: none is near a tie)
        index = np.empty(n, dtype=np.int64)
        coords = np.empty(n)
        rows = 1
        for k in range(n - 1):
            index[k] = lows[k]
            coords[k] = values[offsets[k] + lows[k]]
            rows *= highs[k] - lows[k]
        width = highs[last] - lows[last] if n else 1
        base = offsets[last] + lows[last] if n else 0
        entries = np.empty((columns, width))
        fill(entries, values[base:base + width] if n else values[:0], fixed)
        outside = 0
        pending = 0
        nearby = 0
        everywhere = True  # a steady domain: its value at the box's first point is its value at every point
        if steady:
            start = to_fixed_tuple(coords, n)
            everywhere = f(tuple_setitem(start, last, values[base]) if n else start, fixed)[domain] > 0.5
        for r in range(rows):
            before = pending
            row = to_fixed_tuple(coords, n)
            at = position + r * width
            # NOTE: 1-D contiguous views of the row: with them LLVM vectorizes the loop as it does a hand-written one
            source = values[base:base + width] if n else values[:1]
            first_column = out[0, at:at + width]
            codes = regime[at:at + width] if regimes else regime
            marks = flags[at:at + width] if flagging or tiered else flags
            doubtful = False
            for t in range(width):
                result = from_table(tuple_setitem(row, last, source[t]) if n else row, fixed, entries, t)
                # NOTE: written out here, not through a helper such as rule_store (which kept LLVM from vectorizing
                # the loop with a regime column: Hong & Kim's 4x slower)
                if checked:
                    inside = result[domain] > 0.5
                    first_column[t] = result[first_value] if inside else np.nan
                    for j in range(1, quantities):
                        out[j, at + t] = result[first_value + j] if inside else np.nan
                    outside += 0 if inside else 1
                    if regimes:
                        decided = first_decide(result, arguments) if inside else -1
                        codes[t] = decided
                        pending += 1 if decided == unsettled else 0
                else:
                    first_column[t] = result[first_value]
                    for j in range(1, quantities):
                        out[j, at + t] = result[first_value + j]
                    if regimes:
                        decided = first_decide(result, arguments)
                        codes[t] = decided
                        pending += 1 if decided == unsettled else 0
                if tiered:  # counted only: the row's few such points are found again below (no store per point)
                    doubtful |= result[clear] < 0.5
                elif flagging:
                    flag = result[near_tie] > 0.5
                    marks[t] = flag
                    nearby += 1 if flag else 0
            if tiered and doubtful:  # the same domain and Min/Max outputs: only the values, a case code and the flags change
                for t in range(width):
                    result = f(tuple_setitem(row, last, source[t]) if n else row, fixed)
                    if result[clear] < 0.5:
                        rule_store(result, out, first_column, codes, t, at, arguments)
                        flag = result[near_tie] > 0.5 if flagging else False
                        marks[t] = flag
                        nearby += 1 if flag else 0
            if pending != before:
                marked[r] = at
            k = last - 1  # the next row
            while k >= 0:
                index[k] += 1
                if index[k] < highs[k]:
                    coords[k] = values[offsets[k] + index[k]]
                    break
                index[k] = lows[k]
                coords[k] = values[offsets[k] + lows[k]]
                k -= 1
        if not everywhere:  # the whole box outside a steady domain: as the per-point test leaves it (flags as they are)
            for i in range(position, position + rows * width):
                for j in range(quantities):
                    out[j, i] = np.nan
                if regimes:
                    regime[i] = -1
            outside, pending = rows * width, 0
        return outside, pending, nearby

    consecutive = np.arange(first, first + count, dtype=np.int64)

    @numba.njit(nogil=True, error_model="numpy")
    def settle(start: int, values: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, fixed: Any,
               out: np.ndarray, regime: np.ndarray, marked: np.ndarray, width: int) -> None:
        # the points extreme() left (near ties) in the rows loop() marked (-1: a row with none): the
        # rule, argument by argument
        coords = np.empty(n)
        for m in range(marked.size):
            if marked[m] < 0:
                continue
            for i in range(marked[m], marked[m] + width):
                if regime[i] != unsettled:
                    continue
                flat = start + i
                for k in range(n - 1, -1, -1):
                    coords[k] = values[offsets[k] + flat % lengths[k]]
                    flat //= lengths[k]
                regime[i] = general(f(to_fixed_tuple(coords, n), fixed), consecutive)

    return loop, settle


def run(numba: Any, function: Callable[..., Any], plan: Layout, constants: tuple[float, ...],
        boxes: list[tuple[int, tuple[tuple[int, int], ...]]], start: int, out: np.ndarray, regime: np.ndarray,
        flags: np.ndarray | None = None, threads: int = 1) -> tuple[int, int]:
    """Evaluate the boxes of the grid (``Grid.boxes``: first flat index, bounds per axis) that
    make up the flat points ``start..start + out.shape[1] - 1``, in compiled loops, into ``out`` (a
    row per quantity), ``regime`` (int16, unused without a regime) and ``flags`` (bool zeros, the near-tie
    flag per point; unused without one); return the number of points outside the domain and of
    points flagged. ``threads``: the boxes cut into parts of consecutive points (:func:`split`) run on
    that many threads at once (:func:`symgpu.sweep.threads.pool`)."""
    fixed = tuple(float(c) for c in constants)
    flags = np.empty(0, dtype=np.bool_) if flags is None else flags
    if plan.near >= 0 and flags.size < out.shape[1]:  # numba checks no bounds: the loop would write past the array
        raise ValueError(f"a near-tie flag per point is written: flags holds {flags.size} of {out.shape[1]}")
    if plan.fast >= 0 and flags.size < out.shape[1]:  # the points the fast pass leaves are marked in flag slots
        flags = np.zeros(out.shape[1], dtype=np.bool_)
    loop, settle = kernel(numba, function, plan.lengths.size, plan)
    parts = [part for first, bounds in boxes for part in split(first, bounds, pieces(bounds, threads))]

    def one(part: tuple[int, tuple[tuple[int, int], ...]]) -> tuple[int, int]:
        first, bounds = part
        lows = np.array([lo for lo, _ in bounds], dtype=np.int64)
        highs = np.array([hi for _, hi in bounds], dtype=np.int64)
        rows = int(np.prod(highs[:-1] - lows[:-1])) if bounds else 1
        marked = np.full(rows, -1, dtype=np.int64)
        got = loop(start, plan.values, plan.offsets, plan.lengths, fixed, plan.arguments,
                   out, regime, first - start, lows, highs, marked, flags)
        if got[1]:  # near ties or NaN left by a Min/Max's fast decision, in the rows marked (compiled only when there are some)
            width = int(highs[-1] - lows[-1]) if bounds else 1
            settle(start, plan.values, plan.offsets, plan.lengths, fixed, out, regime, marked, width)
        return int(got[0]), int(got[2])

    done = list(threads_pool(threads).map(one, parts)) if threads > 1 and len(parts) > 1 else [one(p) for p in parts]
    return sum(d[0] for d in done), sum(d[1] for d in done)


#: a box of at least this many points is cut among threads (fewer: a thread's hand-off costs more than it saves)
SPLIT_POINTS = 1 << 16
#: parts per thread a large box is cut into, each taken by the next free thread: a thread that the OS holds back
#: (the other core busy) leaves its later parts to the others instead of making every thread wait at the end
PARTS_PER_THREAD = 4


def pieces(bounds: tuple[tuple[int, int], ...], threads: int) -> int:
    """How many parts a box is cut into for ``threads`` threads: 1 (one thread, or fewer than
    :data:`SPLIT_POINTS` points), else :data:`PARTS_PER_THREAD` per thread, each of at least half
    :data:`SPLIT_POINTS` points."""
    size = math.prod(hi - lo for lo, hi in bounds) if bounds else 1
    if threads <= 1 or size < SPLIT_POINTS:
        return 1
    return max(1, min(threads * PARTS_PER_THREAD, size // (SPLIT_POINTS // 2)))


def split(first: int, bounds: tuple[tuple[int, int], ...], parts: int) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """The box ``(first, bounds)`` cut into at most ``parts`` boxes of consecutive flat points along its first axis
    with more than one value (every later axis of a grid's box is whole there, so each part is consecutive)."""
    if parts <= 1:
        return [(first, bounds)]
    axis = next((k for k, (lo, hi) in enumerate(bounds) if hi - lo > 1), None)
    if axis is None:
        return [(first, bounds)]
    lo, hi = bounds[axis]
    inner = math.prod(h - l for l, h in bounds[axis + 1:])
    cuts = [lo + (hi - lo) * i // parts for i in range(parts + 1)]
    return [(first + (a - lo) * inner, bounds[:axis] + ((a, b),) + bounds[axis + 1:]) for a, b in zip(cuts, cuts[1:]) if b > a]
