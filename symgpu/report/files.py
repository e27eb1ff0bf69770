"""Atomic writing of report files: every file to a temporary name first, then moved into place.

:func:`write_run` makes a whole ``report --all`` run atomic too: everything is rendered into
memory before anything is written, a lock file keeps two runs into one folder from
interleaving, and Ctrl-C or SIGTERM during the short final renames is held back until they are
done, so an interrupted run leaves the previous reports as they were. Temporary files carry
their process's id (:mod:`symgpu.leftovers`); those of a killed run are removed by the next.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from symgpu import errors, leftovers

#: The lock file a run holds in the target folder while it writes.
LOCK_NAME = ".symgpu-report.lock"



def write_files(target: str | os.PathLike[str], files: Mapping[str, bytes]) -> list[Path]:
    """Write ``files`` into ``target`` atomically: all to temporary names first, then
    ``os.replace`` each into place; on any failure the temporary files are removed.

    Returns:
        The written paths, sorted.
    """
    return write_run(Path(target), {".": files}, lock=False)


def write_run(root: Path, folders: Mapping[str, Mapping[str, bytes]], *, lock: bool = True,
              replace: Callable[[str, Path], None] = os.replace) -> list[Path]:
    """Write several report folders (``root/<folder>/<file>``) as one step.

    Every file is first written under a temporary name beside its final place; only when all
    are written are they renamed into place (by ``replace``, :func:`os.replace` unless a caller
    watches the renames), with SIGINT held back during the renames. With ``lock``, an exclusive
    lock on ``root/.symgpu-report.lock`` makes a concurrent run wait. On any failure before the
    renames, the temporary files are removed and nothing changes.

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
                leftovers.remove_stale(folder)  # temporary files of a killed run
                if lock:
                    remove_unfinished(folder, files)
                for name, data in sorted(files.items()):
                    handle, temp = leftovers.temporary_file(folder, name)
                    pending.append((temp, folder / name))
                    with os.fdopen(handle, "wb") as stream:
                        stream.write(data)
                    os.chmod(temp, 0o666 & ~_umask())
            for _, final in pending:
                _regular_or_absent(final)
            with _interrupts_held():
                for temp, final in pending:
                    replace(temp, final)
        except BaseException:
            for temp, _ in pending:
                if os.path.exists(temp):
                    os.unlink(temp)
            raise
    return sorted(final for _, final in pending)


#: a temporary name of symgpu before :mod:`symgpu.leftovers` (``tempfile``'s 8 random characters)
_OLD_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")


def remove_unfinished(folder: Path, files: Mapping[str, bytes]) -> list[str]:
    """Remove the ``.<name>.*.tmp`` files of the report files about to be written into
    ``folder`` that a run killed during its final writes left behind.

    NOTE: called only while holding the run's lock: no other ``report --all`` run is writing
    into the folder, so a temporary name of the old scheme (no process id in it) for one of
    this run's own files is a leftover. Names of :mod:`symgpu.leftovers`' scheme are removed by
    :func:`leftovers.remove_stale` when their process is gone, with or without the lock.

    Returns:
        The names removed.
    """
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            match = _OLD_TEMPORARY.fullmatch(entry.name)
            if match is None or match["name"] not in files or not entry.is_file(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(entry.name)
    return removed


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
    """Defer SIGINT, SIGTERM and SIGHUP until the block ends (then each is handled as usual:
    KeyboardInterrupt, :class:`errors.Terminated` from the command line's handlers)."""
    with leftovers.signals_deferred():
        yield


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def expected_files(folder: Path) -> dict[str, bytes]:
    """Files of a report folder (name -> bytes), for comparisons in tests."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")}
