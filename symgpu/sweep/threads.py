"""A local sweep on the machine's cores, in threads of this process: numba's loop (:mod:`symgpu.sweep.fused`, which
releases the GIL) over parts of a box, and NumPy's chunks (:func:`in_order`: NumPy releases the GIL inside each
operation on an array), each on a thread of a pool made once per process.

Every point is computed by the same code whichever thread computes it, so the columns, codes and flags are those
of one thread, bit for bit. A Dask chunk runs on one thread (its workers are the parallelism).

NOTE: imports neither SymPy nor pint (a stored plan's replay runs its chunks here too).
"""

from __future__ import annotations

import concurrent.futures
import os
import queue
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from symgpu import workers

Item = TypeVar("Item")
Buffers = TypeVar("Buffers")
Result = TypeVar("Result")

#: chunks computed ahead of the one the caller reads, per thread (each holds its columns until read)
AHEAD = 2

_POOLS: dict[tuple[int, int], concurrent.futures.ThreadPoolExecutor] = {}


def local_threads() -> int:
    """The threads a local sweep runs on: the cores this process may use."""
    return workers.default_workers()


def pool(threads: int) -> concurrent.futures.ThreadPoolExecutor:
    """This process's pool of ``threads`` threads (made on first use; a forked process makes its own, as threads
    do not survive a fork)."""
    key = (os.getpid(), threads)
    if key not in _POOLS:
        _POOLS[key] = concurrent.futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="symgpu-sweep")
    return _POOLS[key]


def in_order(work: Callable[[Item, Buffers], Result], items: Iterable[Item], make: Callable[[], Buffers],
             threads: int) -> Iterator[Result]:
    """``work(item, buffers)`` for each item, on ``threads`` threads at once, the results yielded in the items' order;
    at most :data:`AHEAD` items per thread are started before the caller has read the earlier ones (a sweep to a file
    never holds more than those chunks). Each call has a set of scratch buffers to itself: a set is made by ``make``
    when none is free (at most one per thread) and is reused once its call has returned, so ``work`` must return
    nothing that is a view of its buffers.

    An exception of ``work`` is raised here, at its item; whatever way the caller stops reading (an exception, an
    interrupt, closing the generator), the items not yet started are dropped and those running are waited for, so
    nothing writes into the caller's arrays after it."""
    free: queue.SimpleQueue[Buffers] = queue.SimpleQueue()

    def run(item: Item) -> Result:
        try:
            buffers = free.get_nowait()
        except queue.Empty:
            buffers = make()
        try:
            return work(item, buffers)
        finally:
            free.put(buffers)

    executor = pool(threads)
    pending: deque[concurrent.futures.Future[Result]] = deque()
    try:
        for item in items:
            pending.append(executor.submit(run, item))
            if len(pending) >= AHEAD * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
        concurrent.futures.wait(pending)
