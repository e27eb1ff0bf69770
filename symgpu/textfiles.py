"""Reading untrusted input files (compiler output, profiler exports, measured data) with a size limit."""

from __future__ import annotations

import os
from pathlib import Path

from symgpu import errors


def read_bounded(path: str | os.PathLike[str], *, limit: int, what: str, hint: str) -> bytes:
    """The bytes of ``path``, refused when the file is missing or larger than ``limit``.

    Args:
        path: the file.
        limit: the largest size read, in bytes.
        what: what the file holds, for messages ("compiler output", "measured data").
        hint: what to do when the file is too large.

    Raises:
        errors.UsageError: the file cannot be read or is larger than ``limit``.
    """
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > limit:
            raise errors.UsageError(f"{path}: {size} bytes of {what} (limit {limit}); {hint}")
        return file.read_bytes()
    except OSError as exc:
        raise errors.UsageError(f"{path}: cannot read {what} ({exc.strerror})") from None
