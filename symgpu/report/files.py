"""Atomic writing of report files: every file to a temporary name first, then moved into place.

:func:`write_run` makes a whole ``report --all`` run atomic too: everything is rendered into
memory before anything is written, a lock file keeps two runs into one folder from
interleaving, and Ctrl-C during the short final renames is held back until they are done,
so an interrupted run leaves the previous reports as they were.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from symgpu import errors

#: The lock file a run holds in the target folder while it writes.
LOCK_NAME = ".symgpu-report.lock"



def write_files(target: str | os.PathLike[str], files: Mapping[str, bytes]) -> list[Path]:
    """Write ``files`` into ``target`` atomically: all to temporary names first, then
    ``os.replace`` each into place; on any failure the temporary files are removed.

    Returns:
        The written paths, sorted.
    """
    return write_run(Path(target), {".": files}, lock=False)


def write_run(root: Path, folders: Mapping[str, Mapping[str, bytes]], *, lock: bool = True) -> list[Path]:
    """Write several report folders (``root/<folder>/<file>``) as one step.

    Every file is first written under a temporary name beside its final place; only when all
    are written are they renamed into place, with SIGINT held back during the renames. With
    ``lock``, an exclusive lock on ``root/.symgpu-report.lock`` makes a concurrent run wait.
    On any failure before the renames, the temporary files are removed and nothing changes.

    Returns:
        The written paths, sorted.
    """
    root.mkdir(parents=True, exist_ok=True)
    with (_locked(root) if lock else contextlib.nullcontext()):
        pending: list[tuple[str, Path]] = []
        try:
            for folder_name, files in sorted(folders.items()):
                folder = root / folder_name
                folder.mkdir(parents=True, exist_ok=True)
                for name, data in sorted(files.items()):
                    handle, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
                    pending.append((temp, folder / name))
                    with os.fdopen(handle, "wb") as stream:
                        stream.write(data)
                    os.chmod(temp, 0o666 & ~_umask())
            for _, final in pending:
                _regular_or_absent(final)
            with _interrupts_held():
                for temp, final in pending:
                    os.replace(temp, final)
        except BaseException:
            for temp, _ in pending:
                if os.path.exists(temp):
                    os.unlink(temp)
            raise
    return sorted(final for _, final in pending)


def _regular_or_absent(path: Path) -> None:
    """Refuse to replace anything but a regular file (a folder, a device, a pipe, a link) at ``path``.

    Raises:
        errors.UsageError: one line naming the path.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise errors.UsageError(f"{str(path)!r} exists and is not a regular file (a folder, link, device or pipe); "
                                "symgpu replaces only regular files: remove it or write elsewhere")


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the run's lock file (a second run waits for it)."""
    with open(root / LOCK_NAME, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Defer SIGINT until the block ends (then raise KeyboardInterrupt as usual)."""
    caught: list[Any] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    except ValueError:  # not the main thread: signals cannot be handled here anyway
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def expected_files(folder: Path) -> dict[str, bytes]:
    """Files of a report folder (name -> bytes), for comparisons in tests."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")}
