"""Nothing left behind: temporary files and folders beside an output are named after the host
and the process that made them, so the next run into the same folder can remove those of a run
that was killed (SIGKILL runs no cleanup); and SIGTERM and SIGHUP end a command the way Ctrl-C
does, by an exception, so every ``finally`` that removes a temporary file or stops a worker runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from symgpu import errors

#: The signals that end a command through :class:`errors.Terminated` (besides SIGINT, Python's own).
TERMINATING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _host_tag() -> str:
    """Eight hex digits naming this machine: a folder shared between machines (NFS) holds
    temporary files of processes whose ids mean nothing here, and those are never removed."""
    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


HOST = _host_tag()
#: ``.<final name>.symgpu-<host>-<pid>-<random>.tmp``
_NAME = re.compile(r"\.(?P<name>.+)\.symgpu-(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]{1,10})-[a-z0-9_]+\.tmp")


def prefix(final_name: str) -> str:
    """The start of a temporary name for ``final_name`` made by this process."""
    return f".{final_name}.symgpu-{HOST}-{os.getpid()}-"


def temporary_file(folder: Path, final_name: str) -> tuple[int, str]:
    """A new temporary file in ``folder`` for ``final_name``: (open descriptor, path), mode 0600."""
    return tempfile.mkstemp(prefix=prefix(final_name), suffix=".tmp", dir=folder)


def temporary_folder(folder: Path, final_name: str) -> str:
    """A new temporary folder in ``folder`` for ``final_name`` (mode 0700)."""
    return tempfile.mkdtemp(prefix=prefix(final_name), suffix=".tmp", dir=folder)


def is_temporary(name: str) -> bool:
    """Whether ``name`` is a temporary name of :func:`prefix`'s scheme."""
    return _NAME.fullmatch(name) is not None


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists here (one we may not signal exists too)."""
    if pid <= 0:
        return True  # never a process of ours: keep its files
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_stale(folder: Path) -> list[str]:
    """Remove the temporary files and folders that a killed symgpu run left in ``folder``.

    NOTE: only entries that are certainly stale go: named by :func:`prefix`'s scheme, made on
    this machine, by a process that no longer runs, owned by this user, a regular file or a real
    folder (never a link). A live run's files carry a running pid and stay. Errors are ignored:
    cleaning up is a courtesy, never a reason to fail.

    Returns:
        The names removed.
    """
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        match = _NAME.fullmatch(entry.name)
        if match is None or match["host"] != HOST or _running(int(match["pid"])):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if info.st_uid != os.geteuid():
                continue
            if stat.S_ISREG(info.st_mode):
                os.unlink(entry.path)
            elif stat.S_ISDIR(info.st_mode):
                shutil.rmtree(entry.path)
            else:
                continue
        except OSError:
            continue
        removed.append(entry.name)
    return removed


#: The signals whose exception a handler of :func:`terminations_raise` raised. Python swallows an
#: exception raised inside a garbage-collector callback or a ``__del__`` ("Exception ignored
#: in ..."), where a handler may happen to run: long loops ask again (:func:`raise_pending`).
_RAISED: list[int] = []


def _raise_terminated(signum: int, frame: Any) -> None:
    _RAISED.append(signum)
    raise errors.Terminated(signum)


def _raise_interrupt(signum: int, frame: Any) -> None:
    _RAISED.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def terminations_raise() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`errors.Terminated` (a KeyboardInterrupt)
    instead of ending the process at once, and Ctrl-C raises KeyboardInterrupt as before, each
    remembered for :func:`raise_pending`; the previous handlers come back after it.

    A signal that was ignored (``nohup``) stays ignored; outside the main thread nothing changes.
    """
    previous = _install(TERMINATING, lambda current: current == signal.SIG_DFL, _raise_terminated)
    previous.update(_install((signal.SIGINT,), lambda current: current is signal.default_int_handler, _raise_interrupt))
    try:
        yield
    finally:
        _restore(previous)
        _RAISED.clear()


def raise_pending() -> None:
    """Raise again for a Ctrl-C, SIGTERM or SIGHUP that came within :func:`terminations_raise`:
    its first exception may have been swallowed, and the work gone on. Long loops call this
    once per step."""
    if _RAISED:
        if _RAISED[-1] == signal.SIGINT:
            raise KeyboardInterrupt
        raise errors.Terminated(_RAISED[-1])


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Defer SIGINT, SIGTERM and SIGHUP until the block ends, then handle each one that came as
    it would have been (KeyboardInterrupt, :class:`errors.Terminated`, or the default action).

    NOTE: handlers, not a signal mask: a process-directed signal that a mask holds in this thread
    is delivered to any other thread (an executor's, Dask's), and Python then runs its handler in
    the main thread at once. Outside the main thread nothing is deferred.
    """
    caught: list[int] = []
    previous = _install((signal.SIGINT, *TERMINATING), lambda current: current not in (signal.SIG_IGN, None),
                        lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        _restore(previous)
        for signum in dict.fromkeys(caught):
            handler = previous[signum]
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), signum)


@contextlib.contextmanager
def interrupts_kept_from_children() -> Iterator[None]:
    """The processes started within the block (from any thread) never receive Ctrl-C; this
    process still does, when the block ends.

    A terminal's Ctrl-C reaches the whole process group: a Dask worker that took it would die in
    the middle of its event loop, or of its start-up, with tracebacks, instead of being closed by
    this process. Within the block SIGINT is blocked in this thread's signal mask, which the
    threads started here inherit, and a process keeps across ``fork`` and ``exec``. One sent to
    this process meanwhile is handled by the main thread when the block ends, or at once where
    a thread started earlier (a native one: BLAS, Arrow) takes it.
    NOTE: not ignored (SIG_IGN), although children would keep that too: a thread started earlier
    would then take the signal and drop it. And the multiprocessing resource tracker unblocks
    SIGINT in the thread that first starts it: it is started here, before the mask.
    """
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    from multiprocessing import resource_tracker  # noqa: PLC0415 - only a command that starts workers needs it
    resource_tracker.ensure_running()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def default_terminations() -> None:
    """In a forked worker: SIGTERM and SIGHUP end the process again (the parent stops its workers with SIGTERM)."""
    for signum in TERMINATING:
        if signal.getsignal(signum) == _raise_terminated:
            signal.signal(signum, signal.SIG_DFL)


__all__ = ["HOST", "TERMINATING", "default_terminations", "interrupts_kept_from_children", "is_temporary", "prefix", "raise_pending", "remove_stale", "signals_deferred",
           "temporary_file", "temporary_folder", "terminations_raise"]


def _install(signums: Any, wanted: Any, handler: Any) -> dict[int, Any]:
    """``handler`` for each of ``signums`` whose current handler ``wanted`` accepts; the previous
    handlers, to restore (none outside the main thread, where handlers cannot be set)."""
    previous: dict[int, Any] = {}
    try:
        for signum in signums:
            if wanted(signal.getsignal(signum)):
                previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread
        pass
    return previous


def _restore(previous: dict[int, Any]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)
