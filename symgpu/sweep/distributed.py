"""``--engine dask``: the same chunks as the local engine, evaluated by Dask workers (a
``LocalCluster`` by default, or an existing scheduler), each written as one Parquet part of
a folder that is renamed into place when every part is written.

The workers rebuild the plan from a :class:`PartRequest` (model path, axes, fixed values):
the model file must be readable at the same path on every worker.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from symgpu import api, errors, leftovers, store
from symgpu.memo import Memo
from symgpu.model import loader
from symgpu.sweep.grid import Axis, Grid
from symgpu.sweep.plan import SweepPlan, build_plan
from symgpu.sweep.run import DEFAULT_CHUNK, compile_plan, evaluate_chunk, progress_bar
from symgpu.sweep import backends
from symgpu.sweep.output import outside_own, own_outside
from symgpu.sweep.writers import WriteSummary, arrow_schema, arrow_table, parquet_options, pyarrow_modules, regime_counts


@dataclass(frozen=True)
class PartRequest:
    """What a worker needs to rebuild the plan (picklable; ``token`` keys the workers' cache)."""

    token: str
    model_path: str
    quantities: tuple[str, ...]
    axes: tuple[Axis, ...]
    values: tuple[tuple[str, float], ...]
    checks: bool
    regime_of: str
    backend: str
    cache: bool = True  # the on-disk cache used in this process (a setting, handed to the workers)


#: the plan of the sweep this worker process runs (one sweep at a time per worker process)
_PLANS: Memo[str, tuple[SweepPlan, Any, backends.Backend]] = Memo("sweep.distributed.plans", 1)
#: seconds to wait for the first Dask worker before refusing (a scheduler with no workers would wait forever)
WORKER_WAIT = 60.0
#: seconds the client and the local cluster each get to close before their workers are killed
CLOSE_WAIT = 10.0


def request_for(plan: SweepPlan, backend: str) -> PartRequest:
    """The request that rebuilds ``plan`` on a worker (fixed values in declared units)."""
    return PartRequest(uuid.uuid4().hex, str(model_file(plan.model.path)), plan.quantities, plan.grid.axes, plan.values,
                       plan.checks, plan.regime.quantity if plan.regime else "", backend, store.enabled())


def model_file(shown: str) -> Path:
    """The absolute path of a model file from the path a model shows (relative to the checkout when
    inside it, else as given): workers run in another folder than this process."""
    path = Path(shown)
    if path.is_absolute():
        return path
    here = path.resolve()
    if here.is_file() and not here.is_relative_to(loader.ROOT):
        return here
    return loader.ROOT / path


def _plan(request: PartRequest) -> tuple[SweepPlan, Any, backends.Backend]:
    if request.token not in _PLANS:
        model = api.load(request.model_path, cache=request.cache)
        plan = build_plan(model, request.quantities, grid=Grid(request.axes), values=dict(request.values),
                          checks=request.checks, regime_of=request.regime_of)
        runner = backends.load(request.backend)
        _PLANS[request.token] = (plan, compile_plan(plan, runner), runner)
    return _PLANS[request.token]


def write_part(request: PartRequest, index: int, start: int, stop: int, folder: str) -> tuple[int, int, list[int], list[int]]:
    """Evaluate points ``start..stop-1`` and write them as ``part-<index>.parquet`` in ``folder``.

    Returns:
        (points, points outside the domain, regime counts, points outside each quantity's own domain, as in
        :func:`symgpu.sweep.writers.write_chunks`)
    """
    _, pq = pyarrow_modules()
    plan, function, runner = _plan(request)
    chunk = evaluate_chunk(plan, runner, function, start, stop)
    schema = arrow_schema(plan)
    final = os.path.join(folder, f"part-{index:06d}.parquet")
    temp = final + ".tmp"
    pq.write_table(arrow_table(plan, chunk, schema), temp, **parquet_options(plan))
    os.replace(temp, final)
    counts = np.zeros(len(plan.regime.labels) + 1 if plan.regime else 1, dtype=np.int64)
    if chunk.regime is not None:
        counts += np.bincount(chunk.regime + 1, minlength=counts.size)[np.r_[1:counts.size, 0]]
    return stop - start, chunk.outside, [int(c) for c in counts], [int(n) for n in own_outside(plan, chunk)]


def client_for(scheduler: str | None, workers: int = 2) -> tuple[Any, Any]:
    """A ``dask.distributed`` client: on ``scheduler`` (``tcp://HOST:PORT``) or a new local
    cluster of ``workers`` processes that import the same symgpu as this process.

    Returns:
        (client, cluster or None): close both when done.

    Raises:
        errors.UsageError: dask is not installed, or the scheduler cannot be reached.
    """
    try:
        from dask.distributed import Client, LocalCluster  # noqa: PLC0415 - optional dependency
    except ImportError:
        raise errors.UsageError("--engine dask needs dask: pip install 'symgpu[dask]'") from None
    if scheduler:
        if not scheduler.startswith(("tcp://", "tls://", "ucx://", "inproc://")):
            raise errors.UsageError(f"--scheduler {scheduler!r}: expected an address like tcp://HOST:PORT")
        try:
            return Client(scheduler, timeout="10s"), None
        except (OSError, TimeoutError) as exc:
            raise errors.UsageError(f"--scheduler {scheduler!r}: cannot connect ({exc}); is the scheduler running?") from None
    root = str(Path(api.__file__).resolve().parent.parent)
    path = os.pathsep.join([root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    # NOTE: silence_logs, in this process and the workers: a worker closed in the middle of a
    # task logs its lost heartbeat with a traceback; what went wrong reaches the command through
    # the tasks' results (a worker that died: KilledWorker), and the command says it
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                           env={"PYTHONPATH": path}, silence_logs=logging.CRITICAL)
    return Client(cluster), cluster


def write_dask(plan: SweepPlan, path: str | os.PathLike[str], *, backend: str = "numpy", chunk_size: int = DEFAULT_CHUNK,
               scheduler: str | None = None, workers: int = 2, progress: bool | None = False) -> WriteSummary:
    """Write ``plan`` as a folder of Parquet parts, one per chunk, computed by Dask workers.

    The parts go to a temporary folder next to ``path``, renamed to ``path`` when all are
    written; on failure or Ctrl-C the temporary folder is removed.

    Raises:
        errors.UsageError: ``path`` exists, its folder does not, or dask / pyarrow is missing.
    """
    pyarrow_modules()
    target = Path(path)
    if os.path.lexists(target):
        raise errors.UsageError(f"-o {str(target)!r} exists; the dask engine writes a new folder of parts: remove it or choose another name")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise errors.UsageError(f"-o {str(target)!r}: the folder {str(parent)!r} does not exist")
    request = request_for(plan, backend)
    begin = time.perf_counter()
    leftovers.remove_stale(parent)  # a killed run's temporary folder
    client = cluster = temp = bar = None
    others = set(multiprocessing.active_children())  # a caller's own processes: never this function's to stop
    try:
        # NOTE: everything from here on is inside the try: Ctrl-C or SIGTERM while the local cluster
        # starts or waits for its workers still closes it (its worker processes end with it)
        with leftovers.interrupts_kept_from_children():  # Ctrl-C reaches this process, which closes the workers
            client, cluster = client_for(scheduler, workers)
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except (TimeoutError, OSError):
            raise errors.UsageError(f"--engine dask: no worker joined in {WORKER_WAIT:.0f} s; start workers on the scheduler "
                                    "or leave out --scheduler for a local cluster") from None
        temp = leftovers.temporary_folder(parent, target.name)
        bar = progress_bar(plan.grid.size, progress)
        from dask.distributed import as_completed  # noqa: PLC0415 - optional dependency
        ranges = plan.grid.chunks(chunk_size)
        futures = [client.submit(write_part, request, i, s, e, temp, pure=False) for i, (s, e) in enumerate(ranges)]
        points = outside = 0
        counts = np.zeros(len(plan.regime.labels) + 1 if plan.regime else 1, dtype=np.int64)
        own = np.zeros(len(plan.own_domains), dtype=np.int64)
        for future in as_completed(futures):
            leftovers.raise_pending()
            n, bad, part_counts, part_own = future.result()
            points, outside, counts = points + n, outside + bad, counts + np.asarray(part_counts)
            own += np.asarray(part_own, dtype=np.int64)
            if bar is not None:
                bar.update(n)
        os.replace(temp, target)
    finally:
        if bar is not None:
            bar.close()
        _close(client, cluster, others)
        if temp is not None and os.path.isdir(temp):  # after the workers stopped writing parts into it
            shutil.rmtree(temp, ignore_errors=True)
    return WriteSummary(target, "parquet", points, outside, time.perf_counter() - begin, regime_counts(plan, counts),
                        outside_own(plan, own))


def _close(client: Any, cluster: Any, others: set[Any]) -> None:
    """Close the client, then the local cluster (its workers end), each within
    :data:`CLOSE_WAIT`; a worker process still alive after that is killed (not one of ``others``,
    the processes the caller had before the cluster started). A second Ctrl-C or
    SIGTERM meanwhile does not stop the closing half-way, and Dask's own log of workers lost in
    the closing (tracebacks included) is not printed: the command says what happened.

    NOTE: Dask's loggers (``distributed`` and each of its children with a level of its own) stay at
    CRITICAL afterwards, in this process only: the client's background threads can still log the
    closed workers' connections ("Batched Comm Closed", with a traceback) after ``close`` returns,
    even at interpreter exit, which a restored level would print."""
    for name in ["distributed", *[n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]]:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    with leftovers.signals_deferred():
        for thing in (client, cluster):
            if thing is not None:
                with contextlib.suppress(Exception):
                    thing.close(timeout=CLOSE_WAIT)
        for process in set(multiprocessing.active_children()) - others:  # a local cluster's worker that did not end
            process.kill()
            process.join(CLOSE_WAIT)
