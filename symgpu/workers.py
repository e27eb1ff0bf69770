"""Independent tasks run side by side, each in a forked worker process (``report --all``'s
reports, ``validate``'s model families), or one after the other.

The tasks do not depend on each other, and each is mostly pure Python (SymPy derivations,
matplotlib drawing), so a second process runs a second task in the same time. Workers are
forked from the running process: they start with its imported modules, loaded models and caches, and send back only what a task returns (file names and bytes,
messages). What a task returns does not depend on the process that ran it, so the files are
the same with one worker or several. Where ``fork`` is not available, or one worker is
asked for, the tasks run one after the other in this process, in order. With workers, the
tasks start in the ``order`` given (the caller's: longest first, e.g. :mod:`symgpu.report.schedule`), so no
worker is left idle while the other runs a long task started last; a task named in ``after``
waits until the tasks it names have finished (a report variant after its base, whose stored
derivations it then reads; workers write what a task stored when it ends).

Each task's CPU seconds (in the process that ran it) are reported to ``seconds``, for the
next run's order.

Ctrl-C reaches every process of the terminal's process group; the workers ignore it (an idle
worker would otherwise die with a traceback), and the parent, on its ``KeyboardInterrupt``,
stops them at once instead of waiting for the tasks they are running.

A worker ends when its parent dies, however it dies (SIGKILL, the OOM killer, a timeout):
otherwise it would stay blocked for ever writing its result to a pipe that its sibling
workers keep open but nobody reads. Two guards, set up first thing in each worker
(:func:`_guard_parent`): on Linux the kernel sends it SIGKILL when the parent dies
(``prctl(PR_SET_PDEATHSIG)``); everywhere, a thread waits on a pipe whose only write end is the
parent's, and ends the process when it reads end-of-file (the parent is gone). Workers write
no files, so a killed worker leaves none behind.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from typing import Any

from symgpu import leftovers, store

#: A task: (name, function, arguments); the function and what it returns must be picklable.
Task = tuple[str, Callable[..., Any], tuple[Any, ...]]

#: Linux ``prctl`` option: the signal a process gets when its parent (the thread that forked it) dies.
_PR_SET_PDEATHSIG = 1
#: Whether workers ask Linux for SIGKILL on their parent's death (tests turn it off to prove the
#: portable pipe guard on its own).
USE_PDEATHSIG = True
#: Exit status of a worker that ended because its parent died.
ORPHANED_EXIT = 70


def default_workers() -> int:
    """The CPU cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _timed(function: Callable[..., Any], args: tuple[Any, ...]) -> tuple[float, Any]:
    """``function(*args)`` and the CPU seconds it took in this process; what the task found for
    the on-disk cache (models it loaded) is written when it ends, as a command's is (a forked
    worker's memory goes with it)."""
    start = time.process_time()
    result = function(*args)
    store.flush()
    return time.process_time() - start, result


def run(tasks: Sequence[Task], workers: int, started: Callable[[int, str], None] = lambda index, name: None, *,
        order: Sequence[str] = (), seconds: MutableMapping[str, float] | None = None,
        after: Mapping[str, Sequence[str]] | None = None) -> Iterator[tuple[str, Any]]:
    """Run ``tasks``, at most ``workers`` at a time, yielding (name, result) as each finishes.

    ``started(index, name)`` is called as a task starts (index from 1, in task order). With
    several workers the tasks start in ``order`` (task names; those it leaves out follow in
    task order); one after the other, in task order. Each finished task's CPU seconds go
    into ``seconds``. An exception a task raises (KeyboardInterrupt included) is raised
    here, and the tasks not yet started are dropped.

    ``after``: task name -> names of the tasks it starts after (with several workers; names of
    no task are ignored). The first task in ``order`` whose tasks have all finished starts next;
    when none can start and none runs (tasks that wait for each other), the first waiting starts.
    """
    spent: MutableMapping[str, float] = {} if seconds is None else seconds
    if workers <= 1 or len(tasks) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for index, (name, function, args) in enumerate(tasks, 1):
            leftovers.raise_pending()
            started(index, name)
            spent[name], result = _timed(function, args)
            yield name, result
        return
    others = {p.pid for p in multiprocessing.active_children()}
    held = _hold_interrupts()
    lifeline = os.pipe()  # (read, write); the parent's write end closes when it dies, whichever way
    try:
        pool = _started_pool(min(workers, len(tasks)), lifeline)
    except BaseException:
        _close(*lifeline)
        _release_interrupts(held)
        raise
    os.close(lifeline[0])  # the parent never reads it: only the workers' copies stay open
    try:
        _release_interrupts(held)  # a Ctrl-C pressed while the workers were forked is raised here
        rank = {name: position for position, name in enumerate(order)}
        waiting = sorted(enumerate(tasks, 1), key=lambda item: (rank.get(item[1][0], len(rank)), item[0]))
        running: dict[concurrent.futures.Future[Any], str] = {}
        named = {name for name, _, _ in tasks}
        first = {name: [n for n in (after or {}).get(name, ()) if n in named and n != name] for name in named}
        finished: set[str] = set()
        while waiting or running:
            while waiting and len(running) < workers:
                ready = next((i for i, (_, (name, _, _)) in enumerate(waiting) if all(n in finished for n in first[name])), None)
                if ready is None and running:
                    break  # what it waits for is running
                index, (name, function, args) = waiting.pop(ready or 0)
                started(index, name)
                running[pool.submit(_timed, function, args)] = name
            done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            leftovers.raise_pending()
            for future in sorted(done, key=lambda f: running[f]):
                name = running.pop(future)
                spent[name], result = future.result()
                finished.add(name)
                yield name, result
    except BaseException:
        # interrupted, a task failed, or the caller stopped early: the workers still rendering
        # are stopped, not waited for. NOTE: no shutdown(wait=False) first: it drops the pool's
        # reference to its manager thread, so the shutdown below would not join it, and the
        # thread, still closing its wakeup pipe as the interpreter exits, races
        # concurrent.futures' exit hook writing to that pipe ("Exception ignored on threading
        # shutdown ... Bad file descriptor"). With its workers gone the manager thread ends at once.
        for process in multiprocessing.active_children():
            if process.pid not in others:
                process.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # joins the manager thread, however run() ends
        os.close(lifeline[1])


def _hold_interrupts() -> Any:
    """Hold Ctrl-C, SIGTERM and SIGHUP (delivered when released): the previous signal mask, None where
    masks are not supported."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *leftovers.TERMINATING}) if hasattr(signal, "pthread_sigmask") else None


def _release_interrupts(held: Any) -> None:
    """Restore the signal mask :func:`_hold_interrupts` returned (a Ctrl-C held meanwhile is raised now)."""
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _started_pool(workers: int, lifeline: tuple[int, int]) -> concurrent.futures.ProcessPoolExecutor:
    """``workers`` forked worker processes, started. Called with Ctrl-C held (:func:`_hold_interrupts`):
    no worker is interrupted before its initializer ignores Ctrl-C (it would print a traceback and
    break the pool), and the caller releases it inside the block that stops the workers.
    ``lifeline``: the pipe (read, write) whose end-of-file tells a worker that this process died."""
    # NOTE: with fork, every worker is forked here, in the calling thread (PR_SET_PDEATHSIG fires
    # when the forking *thread* ends; the caller's thread outlives the pool, which run() shuts down).
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                                  initializer=_start_worker, initargs=(os.getpid(), *lifeline))
    pool.submit(int)  # the first task forks every worker (the fork start method starts them all at once)
    return pool


def _start_worker(parent: int, lifeline_read: int, lifeline_write: int) -> None:
    """Worker initializer: end with the parent (:func:`_guard_parent`), then
    :func:`_ignore_held_interrupts`."""
    _guard_parent(parent, lifeline_read, lifeline_write)
    _ignore_held_interrupts()


def _guard_parent(parent: int, lifeline_read: int, lifeline_write: int) -> None:
    """Make this worker end when process ``parent`` dies: SIGKILL from the kernel on Linux, and a
    thread that ends the process when the lifeline pipe reads end-of-file (every platform)."""
    if USE_PDEATHSIG and sys.platform.startswith("linux"):
        _set_parent_death_signal(signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.close(lifeline_write)  # a worker's copy of the write end would keep the pipe open
    if os.getppid() != parent:  # the parent died before the guards were in place
        os._exit(ORPHANED_EXIT)

    def watch() -> None:
        while True:
            try:
                data = os.read(lifeline_read, 1)
            except InterruptedError:
                continue
            except OSError:
                data = b""
            if not data:
                # NOTE: os._exit, not sys.exit: the main thread may be blocked writing a result
                os._exit(ORPHANED_EXIT)

    threading.Thread(target=watch, name="symgpu-parent-watch", daemon=True).start()


def _set_parent_death_signal(signum: int) -> None:
    """``prctl(PR_SET_PDEATHSIG, signum)`` through libc (nothing happens where it is missing)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signum), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    except (OSError, AttributeError):
        pass  # the lifeline pipe still ends the worker


def _close(*descriptors: int) -> None:
    for descriptor in descriptors:
        with contextlib.suppress(OSError):
            os.close(descriptor)


def _ignore_held_interrupts() -> None:
    """Worker initializer: :func:`_ignore_interrupts`, SIGTERM and SIGHUP back to ending the process
    (the command line's handlers raise :class:`errors.Terminated`, which a worker would catch and
    report as a task's failure), then none of them held (a Ctrl-C pressed while the worker was
    forked is dropped, not raised in the worker)."""
    _ignore_interrupts()
    leftovers.default_terminations()  # the parent stops a worker with SIGTERM: it must end it
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, *leftovers.TERMINATING})


__all__ = ["Task", "default_workers", "run"]
