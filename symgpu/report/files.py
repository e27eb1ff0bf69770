"""Atomic writing of report files: every file to a temporary name first, then moved into place."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    pass



def write_files(target: str | os.PathLike[str], files: Mapping[str, bytes]) -> list[Path]:
    """Write ``files`` into ``target`` atomically: all to temporary names first, then
    ``os.replace`` each into place; on any failure the temporary files are removed.

    Returns:
        The written paths, sorted.
    """
    folder = Path(target)
    folder.mkdir(parents=True, exist_ok=True)
    pending: list[tuple[str, Path]] = []
    try:
        for name, data in sorted(files.items()):
            handle, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            pending.append((temp, folder / name))
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temp, 0o666 & ~_umask())
        for temp, final in pending:
            os.replace(temp, final)
    except BaseException:
        for temp, _ in pending:
            if os.path.exists(temp):
                os.unlink(temp)
        raise
    return sorted(final for _, final in pending)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def report_files(reports: Iterable[tuple[Path, Mapping[str, bytes]]]) -> list[Path]:
    """Write several reports (folder, files), each folder atomically."""
    written: list[Path] = []
    for folder, files in reports:
        written.extend(write_files(folder, files))
    return written


def expected_files(folder: Path) -> dict[str, bytes]:
    """Files of a report folder (name -> bytes), for comparisons in tests."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")}
