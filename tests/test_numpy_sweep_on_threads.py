"""A local NumPy sweep evaluates its chunks on several threads (:func:`symgpu.sweep.threads.in_order`, each thread
with scratch buffers of its own): the chunks come in grid order and their columns, regime codes, counts outside the
domain and near-tie offsets are those of one thread, bit for bit, whether written into a whole sweep's arrays or
into new ones (a sweep to a file); at most ``AHEAD`` chunks per thread are computed before they are read, and a
failing chunk stops the sweep there."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import symgpu
from symgpu.sweep import chunks as sweep_chunks
from symgpu.sweep import run as sweep_run
from symgpu.sweep import threads
from symgpu.sweep.plan import SweepPlan, build_plan


@pytest.fixture(scope="module")
def hong_kim_plan() -> SweepPlan:
    # 8 x 125 x 100 = 100,000 points in chunks of at most 4,096 (32): both equations and the regime column, and at
    # Active_blocks_per_SM = 3, Mem_Bandwidth = 71.67999999999e9, MWP within rounding of N = 12 (near-tie flags: as
    # tests/test_cases_near_ties_agree_everywhere.py finds them)
    values = {"Freq": 1e9, "Mem_LD": 300, "Active_SMs": 14, "Uncoal_Mem_insts": 0, "Coal_Mem_insts": 6}
    bandwidths = [f"{50 + 0.4 * k:.1f}e9" for k in range(99)] + ["71.67999999999e9"]
    plan = build_plan(symgpu.load("hong_kim_2009"), ["Exec_cycles_app", "MWP"], preset="table2_example", values=values,
                      grid=["Active_blocks_per_SM=1:8", "Comp_insts=10:1250:10", "Mem_Bandwidth=" + ",".join(bandwidths)])
    assert plan.regime is not None and plan.near is not None and plan.grid.size == 100_000
    return plan


def _same_chunks(one: list[sweep_run.Chunk], several: list[sweep_run.Chunk]) -> None:
    assert [(c.start, c.stop) for c in several] == [(c.start, c.stop) for c in one]
    assert one[0].start == 0 and all(a.stop == b.start for a, b in zip(one, one[1:]))
    for a, b in zip(one, several):
        assert a.outside == b.outside
        for name in a.columns:
            assert np.array_equal(np.asarray(a.columns[name]).view(np.int64), np.asarray(b.columns[name]).view(np.int64)), name
        assert a.regime is not None and b.regime is not None and np.array_equal(a.regime, b.regime)
        assert a.near is not None and b.near is not None and np.array_equal(a.near, b.near)


@pytest.mark.parametrize("cores", [2, 3])
def test_chunks_into_new_arrays_on_threads_equal_one_threads_bit_for_bit(hong_kim_plan: SweepPlan, cores: int) -> None:
    one = list(sweep_run._chunks(hong_kim_plan, "numpy", 4096, False, cores=1))
    several = list(sweep_run._chunks(hong_kim_plan, "numpy", 4096, False, cores=cores))
    assert len(one) == len(list(hong_kim_plan.grid.chunks(4096))) > 20
    _same_chunks(one, several)
    codes = np.concatenate([c.regime for c in one])
    assert len(set(codes.tolist())) > 1 and sum(c.near.size for c in one) > 0  # both regimes and some near ties


@pytest.mark.parametrize("cores", [2, 3])
def test_chunks_into_a_whole_sweeps_arrays_on_threads_equal_one_threads_bit_for_bit(hong_kim_plan: SweepPlan, cores: int) -> None:
    results = []
    for count in (1, cores):
        whole = sweep_run._Whole({n: np.full(hong_kim_plan.grid.size, -1.0) for n in hong_kim_plan.quantities},
                                 np.full(hong_kim_plan.grid.size, -7, dtype=np.int16))
        results.append((whole, list(sweep_run._chunks(hong_kim_plan, "numpy", 4096, False, whole, cores=count))))
    (whole1, one), (whole2, several) = results
    _same_chunks(one, several)
    for name in hong_kim_plan.quantities:
        assert np.array_equal(whole1.columns[name].view(np.int64), whole2.columns[name].view(np.int64))
    assert whole1.regime is not None and whole2.regime is not None and np.array_equal(whole1.regime, whole2.regime)
    assert not (whole1.regime == -7).any()  # every point written


def test_results_come_in_order_with_at_most_ahead_per_thread_started_before_they_are_read() -> None:
    started: list[int] = []
    lock = threading.Lock()
    made: list[object] = []

    def work(item: int, buffers: object) -> tuple[int, object]:
        with lock:
            started.append(item)
        time.sleep(0.002 * (item % 3))  # finished out of order
        return item, buffers

    def make() -> object:
        made.append(object())
        return made[-1]

    reader = threads.in_order(work, range(40), make, 2)
    assert next(reader)[0] == 0
    time.sleep(0.05)
    assert len(started) <= threads.AHEAD * 2  # nothing beyond the look-ahead is started while the caller does not read
    rest = list(reader)
    assert [r[0] for r in rest] == list(range(1, 40))
    assert len(made) <= 2  # one set of buffers per thread at most, reused


def test_a_failing_chunk_raises_at_its_place_and_nothing_runs_after_the_reader_stops() -> None:
    running = threading.Event()
    finished: list[int] = []

    def work(item: int, buffers: None) -> int:
        if item == 5:
            raise ValueError("chunk 5")
        time.sleep(0.001)
        finished.append(item)
        return item

    got: list[int] = []
    with pytest.raises(ValueError, match="chunk 5"):
        for value in threads.in_order(work, range(1000), lambda: None, 2):
            got.append(value)
    assert got == [0, 1, 2, 3, 4]
    count = len(finished)
    time.sleep(0.05)
    assert len(finished) == count <= 5 + threads.AHEAD * 2  # dropped, not run on behind the caller's back
    assert not running.is_set()


def test_buffered_chunks_on_threads_move_the_progress_bar_once_per_chunk_read(hong_kim_plan: SweepPlan) -> None:
    program = sweep_run.compile_plan(hong_kim_plan, sweep_run.backends.load("numpy"))
    seen = [c.stop - c.start for c in sweep_chunks.buffered_chunks(hong_kim_plan, program, 4096, False, 2)]
    assert sum(seen) == hong_kim_plan.grid.size and len(seen) == len(list(hong_kim_plan.grid.chunks(4096)))
