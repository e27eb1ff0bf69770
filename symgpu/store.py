"""The on-disk cache of symbolic results: text entries, checked on the way back in.

Entries live in the user's cache folder (``platformdirs``; ``$SYMGPU_CACHE_DIR`` overrides
it), under a folder named after the symgpu and SymPy versions, so an upgrade never reads an
older engine's results. ``$SYMGPU_NO_CACHE=1`` (the CLI's ``--no-cache``) turns it off.

Every entry is plain text with a SHA-256 checksum of its body and the key it answers on
its first line. An entry that is unreadable, truncated, altered or filed under another key
is ignored (the caller recomputes and overwrites it): nothing read from the cache is
trusted. Entries are never unpickled or executed; callers parse bodies with symgpu's own
whitelisting parsers.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
from importlib import metadata
from pathlib import Path

#: environment variables: the cache folder, and "1" to turn the cache off
CACHE_DIR_ENV, NO_CACHE_ENV = "SYMGPU_CACHE_DIR", "SYMGPU_NO_CACHE"
#: the largest entry read back (bytes; the occupancy limiter splits take ~1 MiB); anything larger is ignored
MAX_ENTRY_BYTES = 1 << 22
_HEADER = "symgpu-cache-v1"


@functools.lru_cache(maxsize=None)
def _version(package: str) -> str:
    """The installed version of ``package`` (looked up once per process: the metadata
    search walks ``sys.path``, and every entry read or written names its folder)."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def enabled() -> bool:
    """True unless ``$SYMGPU_NO_CACHE`` is set to something other than ``0`` or empty."""
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


def root() -> Path:
    """The cache folder (all versions): ``$SYMGPU_CACHE_DIR`` or the user cache folder."""
    chosen = os.environ.get(CACHE_DIR_ENV)
    if chosen:
        return Path(chosen)
    try:
        import platformdirs  # NOTE: a third-party import, needed only when the cache is used
    except ImportError:
        return Path.home() / ".cache" / "symgpu"
    return Path(platformdirs.user_cache_dir("symgpu"))


def folder() -> Path:
    """This engine's folder: named after the symgpu and SymPy versions."""
    return root() / f"symgpu-{_version('symgpu')}_sympy-{_version('sympy')}"


def digest(*parts: str) -> str:
    """A key: SHA-256 of ``parts`` (each length-prefixed, so no two lists collide)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8")
        h.update(f"{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


_ENGINE: list[str] = []


def engine_digest() -> str:
    """A digest of symgpu's own source files: results of an edited engine are not reused
    even when its version number stays the same."""
    if not _ENGINE:
        package = Path(__file__).resolve().parent
        h = hashlib.sha256()
        for path in sorted(package.rglob("*.py")):
            h.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
            try:
                h.update(path.read_bytes())
            except OSError:
                continue
        _ENGINE.append(h.hexdigest())
    return _ENGINE[0]


def _path(kind: str, key: str) -> Path:
    if not kind.isidentifier() or len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        raise ValueError(f"cache entry {kind!r}/{key!r}: kind must be an identifier and key a SHA-256 hex digest")
    return folder() / kind / key[:2] / f"{key}.txt"


def get(kind: str, key: str) -> str | None:
    """The body stored under ``kind``/``key``, or None if absent, off, or not intact."""
    if not enabled():
        return None
    path = _path(kind, key)
    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    head, sep, body = text.partition("\n")
    if not sep or head != f"{_HEADER} {key} {hashlib.sha256(body.encode('utf-8')).hexdigest()}":
        return None
    return body


def put(kind: str, key: str, body: str) -> None:
    """Store ``body`` under ``kind``/``key`` (atomic replace; failures to write are ignored)."""
    if not enabled():
        return
    path = _path(kind, key)
    text = f"{_HEADER} {key} {hashlib.sha256(body.encode('utf-8')).hexdigest()}\n{body}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException as error:  # a failed write or Ctrl-C leaves no temporary file behind
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if not isinstance(error, OSError):
            raise


def clear() -> tuple[Path, int]:
    """Remove every entry of every version; return the cache folder and the entries removed."""
    base = root()
    count = sum(1 for _ in base.rglob("*.txt")) if base.is_dir() else 0
    if base.is_dir():
        for child in base.iterdir():
            if child.is_dir() and child.name.startswith("symgpu-"):
                shutil.rmtree(child, ignore_errors=True)
    return base, count


def size() -> tuple[Path, int]:
    """The cache folder of this engine and the number of entries in it."""
    here = folder()
    return here, (sum(1 for _ in here.rglob("*.txt")) if here.is_dir() else 0)
