"""Untrusted files: input files (compiler output, profiler exports, measured data, mapping and
sweep files) read with a size limit, and output paths checked before anything is written."""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path

from symgpu import errors


def kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def regular_open(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """``path`` opened for reading without blocking, with its ``fstat``: (descriptor, status).

    NOTE: ``O_NONBLOCK`` makes opening a named pipe with no writer return at once instead of
    waiting for ever; the caller checks ``S_ISREG`` on the status (of what was opened, not of a
    name that may have changed since it was looked at) and closes the descriptor.

    Raises:
        OSError: the file cannot be opened.
    """
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        return handle, os.fstat(handle)
    except OSError:
        os.close(handle)
        raise


def read_bounded(path: str | os.PathLike[str], *, limit: int, what: str, hint: str) -> bytes:
    """The bytes of ``path``, refused when the file is missing, not a regular file or larger than ``limit``.

    NOTE: the file is opened without blocking and checked with ``fstat`` on the open descriptor:
    a named pipe with no writer, ``/dev/zero`` or ``/dev/urandom`` is refused at once (their
    reported size is 0; reading them would never end), and at most ``limit + 1`` bytes are read
    even from a file that grows while it is read.

    Args:
        path: the file.
        limit: the largest size read, in bytes.
        what: what the file holds, for messages ("compiler output", "measured data").
        hint: what to do when the file is too large.

    Raises:
        errors.UsageError: the file cannot be read, is not a regular file or is larger than ``limit``.
    """
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise errors.UsageError(f"{path}: cannot read {what} ({exc.strerror})") from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise errors.UsageError(f"{path}: {kind(info.st_mode)}, not a file of {what}; give a regular file")
        if info.st_size > limit:
            raise errors.UsageError(f"{path}: {info.st_size} bytes of {what} (limit {limit}); {hint}")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(handle, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise errors.UsageError(f"{path}: over {limit} bytes of {what}; {hint}")
        return b"".join(chunks)
    except OSError as exc:
        raise errors.UsageError(f"{path}: cannot read {what} ({exc.strerror})") from None
    finally:
        os.close(handle)


def utf8_text(raw: bytes, shown: str) -> str:
    """``raw`` (the bytes of the file ``shown``) as UTF-8 text, a byte-order mark at its start skipped
    (Excel's "CSV UTF-8" writes one; it is no part of the first cell).

    Raises:
        errors.UsageError: the bytes are not UTF-8: why, and the offset of the first bad byte in the file.
    """
    body = raw.removeprefix(codecs.BOM_UTF8)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.UsageError(f"{shown}: not UTF-8 text ({exc.reason} at byte {exc.start + len(raw) - len(body)}); "
                                "save the file as UTF-8") from None


def refuse_repeated(names: list[str] | tuple[str, ...], where: str) -> None:
    """Refuse a header naming a column twice (which of the two a reader takes would be a guess).

    Raises:
        errors.UsageError: ``where: column NAME appears twice`` (every such name).
    """
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise errors.UsageError(f"{where}: column {', '.join(repeated)} appears twice")


#: bytes that never occur in a text export: C0 controls other than tab, newline, carriage return; DEL
_BINARY = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def decode_text(raw: bytes, path: str | os.PathLike[str], what: str) -> str:
    """``raw`` (the bytes of ``path``) as UTF-8 text, refusing binary content up front.

    Raises:
        errors.UsageError: one line naming the file, the byte offset of the first byte that is
            not text (a control byte, or not UTF-8) and what to give instead.
    """
    found = _BINARY.search(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start if found is None else min(exc.start, found.start())
    else:
        if found is None:
            return text
        offset = found.start()
    raise errors.UsageError(f"{path}: byte 0x{raw[offset]:02x} at offset {offset} is not text; "
                            f"this is not a {what} (give the UTF-8 text file)")


def check_output_file(path: str | os.PathLike[str], option: str = "-o") -> Path:
    """``path`` as a file symgpu may write, checked before any work starts.

    Only a regular file is ever replaced: a folder, a device (``/dev/null``), a named pipe, a
    socket or a symbolic link (to anything) at ``path`` is refused, and so is a folder that is
    missing or not writable.

    Raises:
        errors.UsageError: one line naming the option, the path, what is wrong and what to do.
    """
    target = Path(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise errors.UsageError(f"{option} {str(path)!r}: cannot use this path ({exc.strerror}); give a file name in a folder you can write") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise errors.UsageError(f"{option} {str(path)!r}: is a symbolic link; symgpu replaces only regular files: give the file itself or a new name")
        if not stat.S_ISREG(info.st_mode):
            raise errors.UsageError(f"{option} {str(path)!r}: is {kind(info.st_mode)}; symgpu replaces only regular files: give a file name")
    folder = target.parent
    if not folder.is_dir():
        raise errors.UsageError(f"{option} {str(path)!r}: folder {str(folder)!r} does not exist; create it first or give another path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise errors.UsageError(f"{option} {str(path)!r}: folder {str(folder)!r} is not writable; give a path in a folder you can write")
    return target


def printable(text: str, limit: int | None = None) -> str:
    """``text`` safe for a terminal: printable characters kept, every other one (ANSI escapes,
    bidi overrides, zero-width and control characters, newlines) written as its escape
    (``\\x1b``, ``\\u202e``), cut to ``limit`` characters when given."""
    shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    return shown if limit is None or len(shown) <= limit else shown[: max(limit - 3, 0)] + "..."


def listing(items: list[str] | tuple[str, ...], limit: int = 10, width: int = 80) -> str:
    """The first ``limit`` of ``items`` for a message, each printable and cut to ``width``,
    with ``(first 10 of N)`` when there are more."""
    shown = ", ".join(printable(item, width) for item in items[:limit])
    return shown + (f", ... (first {limit} of {len(items)})" if len(items) > limit else "")
