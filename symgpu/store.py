"""The on-disk cache of symbolic results: text entries, authenticated on the way back in.

Entries live in the user's cache folder (``platformdirs``; ``$SYMGPU_CACHE_DIR`` overrides
it), under a folder named after the symgpu and SymPy versions, so an upgrade never reads an
older engine's results. The cache is on or off by a frozen :class:`Settings` record: from the
environment by default (``$SYMGPU_NO_CACHE=1`` turns it off from outside), or handed down by
the caller for a block of work (:func:`using`: the CLI's ``--no-cache``, ``symgpu.load(...,
cache=False)``). What an entry holds, who writes and reads it: one table,
:mod:`symgpu.entry_kinds`. Entries of *deferred* kinds (found while a model is loaded) are kept in
memory until :func:`flush`, so loading a model never writes to disk.

Every entry is plain text whose first line holds the key it answers and an HMAC-SHA-256 of
its kind, key and body under a secret key that the cache folder does not hold (a random key
made once in the user's data folder, ``platformdirs.user_data_dir("symgpu")/cache-key``, mode
0600; where that cannot be kept safely, a key held in memory for the process). So the cache
can make symgpu faster, never different: an entry that is unreadable, truncated, altered,
forged by someone who can write to the cache folder (a valid SHA-256 is not enough) or filed
under another key is ignored, and the caller recomputes and overwrites it. Entries are never
unpickled or executed; callers parse bodies with symgpu's own whitelisting parsers.

Nothing inside the cache folder is followed when it is a symbolic link (entries are opened
relative to folder descriptors with ``O_NOFOLLOW``), so no write lands outside it, and
:func:`clear` removes only files named as symgpu names its entries.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from symgpu.entry_kinds import KINDS, EntryKind
from symgpu.memo import memoised

#: environment variables: the cache folder, and "1" to turn the cache off
CACHE_DIR_ENV, NO_CACHE_ENV = "SYMGPU_CACHE_DIR", "SYMGPU_NO_CACHE"
#: the largest entry read back (bytes; the occupancy limiter splits take ~1 MiB); anything larger is ignored
MAX_ENTRY_BYTES = 1 << 22
_HEADER = "symgpu-cache-v2"
#: the file (in the user's data folder, never the cache folder) holding the key entries are authenticated with
KEY_FILE = "cache-key"
_VERSION_FOLDER = re.compile(r"symgpu-[^/]*_sympy-[^/]*")
_HEX2, _ENTRY = re.compile(r"[0-9a-f]{2}"), re.compile(r"[0-9a-f]{64}\.txt|\.tmp-[A-Za-z0-9_]+")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


@memoised("store.versions", 64)
def _version(package: str) -> str:
    """The installed version of ``package`` (looked up once per process: the metadata
    search walks ``sys.path``, and every entry read or written names its folder)."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Settings:
    """How the cache is used: ``enabled`` False reads and writes nothing."""

    enabled: bool = True

    @classmethod
    def from_environment(cls) -> Settings:
        """The settings the environment asks for: off when ``$SYMGPU_NO_CACHE`` is set to
        something other than ``0`` or empty."""
        return cls(enabled=os.environ.get(NO_CACHE_ENV, "") in ("", "0"))


#: the settings handed down by :func:`using` (innermost last); empty: from the environment
_HANDED_DOWN: list[Settings] = []


def settings() -> Settings:
    """The settings in force: those handed down by the innermost :func:`using`, else the
    environment's (read at each call)."""
    return _HANDED_DOWN[-1] if _HANDED_DOWN else Settings.from_environment()


@contextmanager
def using(chosen: Settings) -> Iterator[Settings]:
    """Use the cache as ``chosen`` says within the block (process-wide: worker threads and
    forked worker processes see it too)."""
    _HANDED_DOWN.append(chosen)
    try:
        yield chosen
    finally:
        _HANDED_DOWN.pop()


def enabled() -> bool:
    """True when the settings in force (:func:`settings`) use the cache."""
    return settings().enabled


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


def engine_digest(package: Path | None = None) -> str:
    """A digest of symgpu's own source files (of the running package, computed once; or of the
    package folder ``package``, e.g. an edited copy): results of an edited engine are not reused
    even when its version number stays the same."""
    if package is not None:
        return _sources_digest(package)
    if not _ENGINE:
        _ENGINE.append(_sources_digest(Path(__file__).resolve().parent))
    return _ENGINE[0]


def _sources_digest(package: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            continue
    return h.hexdigest()


def _path(kind: EntryKind, key: str) -> Path:
    if not isinstance(kind, EntryKind) or len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        shown = kind.name if isinstance(kind, EntryKind) else kind
        raise ValueError(f"cache entry {shown!r}/{key!r}: kind must be an EntryKind and key a SHA-256 hex digest")
    return folder() / kind.name / key[:2] / f"{key}.txt"


# ---------------------------------------------------------------- the authentication key
_SECRET: list[bytes] = []


def key_path() -> Path:
    """Where the cache's authentication key is kept: the user's data folder, not the cache folder."""
    try:
        import platformdirs  # NOTE: a third-party import, needed only when the cache is used
    except ImportError:
        return Path.home() / ".local" / "share" / "symgpu" / KEY_FILE
    return Path(platformdirs.user_data_dir("symgpu")) / KEY_FILE


def _secret() -> bytes:
    """The key entries are authenticated with: read from (or made once in) :func:`key_path`;
    a key of this process alone where no such file can be kept safely (inside the cache folder,
    not the user's own, readable by others, or not writable): the cache then lasts one process."""
    if not _SECRET:
        _SECRET.append(_kept_key() or secrets.token_bytes(32))
    return _SECRET[0]


def _kept_key() -> bytes | None:
    path = key_path()
    try:
        if path.resolve().is_relative_to(root().resolve()):
            return None  # a key the cache folder holds authenticates nothing
        found = _read_key(path)
        if found is None:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle, temporary = _mkstemp(path.parent)
            try:
                os.write(handle, secrets.token_hex(32).encode("ascii"))
                os.close(handle)
                try:
                    os.link(temporary, path)  # atomic: a second process racing here keeps the first key
                except FileExistsError:
                    pass
            finally:
                os.unlink(temporary)
            found = _read_key(path)
        return found if isinstance(found, bytes) else None
    except (OSError, ValueError):
        return None


def _read_key(path: Path) -> bytes | bool | None:
    """The key in ``path``; None when there is none; False when the file is not safe to trust."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError:
        return False
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077 or info.st_size != 64:
            return False
        return bytes.fromhex(os.read(handle, 64).decode("ascii"))
    except (OSError, ValueError):
        return False
    finally:
        os.close(handle)


def _mkstemp(where: Path | int) -> tuple[int, str | Path]:
    """A new temporary file (mode 0600) in a folder given by path or descriptor."""
    for _ in range(100):
        name = f".tmp-{secrets.token_hex(8)}"
        try:
            if isinstance(where, int):
                return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=where), name
            return os.open(where / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600), where / name
        except FileExistsError:
            continue
    raise FileExistsError("no free temporary name")


def _header(kind: EntryKind, key: str, body: str) -> str:
    mac = hmac.new(_secret(), f"{kind.name}\0{key}\0".encode() + body.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"{_HEADER} {key} {mac}"


# ---------------------------------------------------------------- entries
def _entry_folder(kind: EntryKind, key: str, create: bool, here: Path | None = None) -> int | None:
    """A descriptor of the folder of entry ``kind``/``key`` in version folder ``here`` (this
    engine's by default), each folder below the cache root opened without following a symbolic
    link (None when one is a link or absent)."""
    _path(kind, key)
    here = folder() if here is None else here
    base = here.parent
    try:
        if create:
            base.mkdir(parents=True, exist_ok=True)
        handle = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    for name in (here.name, kind.name, key[:2]):
        try:
            if create:
                try:
                    os.mkdir(name, 0o700, dir_fd=handle)
                except FileExistsError:
                    pass
            inner = os.open(name, _DIR_FLAGS, dir_fd=handle)
        except OSError:  # a link (ELOOP / ENOTDIR), absent, or not ours to read
            os.close(handle)
            return None
        os.close(handle)
        handle = inner
    return handle


def get(kind: EntryKind, key: str) -> str | None:
    """The body stored under ``kind``/``key``, or None if absent, off, not intact or not authentic
    (an entry waiting for :func:`flush` is read back from memory)."""
    if not enabled():
        return None
    waiting = _PENDING.get((folder(), kind, key))
    if waiting is not None:
        return waiting
    where = _entry_folder(kind, key, create=False)
    if where is None:
        return None
    try:
        handle = os.open(f"{key}.txt", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=where)
        with os.fdopen(handle, "rb") as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
                return None
            text = stream.read(MAX_ENTRY_BYTES + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(where)
    head, sep, body = text.partition("\n")
    if not sep or not hmac.compare_digest(head, _header(kind, key, body)):
        return None
    return body


#: entries of deferred kinds waiting for :func:`flush`: (version folder, kind, key) -> body
_PENDING: dict[tuple[Path, EntryKind, str], str] = {}
#: the most entries waiting; one more writes them all first
MAX_PENDING = 64


def put(kind: EntryKind, key: str, body: str) -> None:
    """Store ``body`` under ``kind``/``key`` (atomic replace; failures to write are ignored).

    An entry of a deferred kind (:attr:`EntryKind.deferred`: found while loading a model) waits
    in memory for :func:`flush`; any other entry is written now, with those waiting (a derived
    result worth keeping is being written anyway)."""
    if not enabled():
        return
    _path(kind, key)
    here = folder()
    if kind.deferred:
        if len(_PENDING) >= MAX_PENDING and (here, kind, key) not in _PENDING:
            flush()
        _PENDING[(here, kind, key)] = body
        return
    flush()
    _write(here, kind, key, body)


def pending() -> int:
    """The number of entries waiting for :func:`flush`."""
    return len(_PENDING)


def flush() -> int:
    """Write the entries waiting in memory, each into the cache folder in force when it was
    found (dropped unwritten when the cache is off now); return how many were written."""
    waiting = list(_PENDING.items())
    _PENDING.clear()
    if not enabled():
        return 0
    for (here, kind, key), body in waiting:
        _write(here, kind, key, body)
    return len(waiting)


def _write(here: Path, kind: EntryKind, key: str, body: str) -> None:
    text = f"{_header(kind, key, body)}\n{body}"
    where = _entry_folder(kind, key, create=True, here=here)
    if where is None:
        return
    try:
        handle, temporary = _mkstemp(where)
    except OSError:
        os.close(where)
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, f"{key}.txt", src_dir_fd=where, dst_dir_fd=where)
    except BaseException as error:  # a failed write or Ctrl-C leaves no temporary file behind
        try:
            os.unlink(temporary, dir_fd=where)
        except OSError:
            pass
        if not isinstance(error, OSError):
            raise
    finally:
        os.close(where)


def _walk(base: Path, remove: bool) -> int:
    """Entries under ``base`` named as symgpu names them (``symgpu-*_sympy-*/<kind>/<xx>/<sha256>.txt``),
    counted or removed with their temporary files and emptied folders; nothing else is touched
    and no symbolic link is followed."""
    count = 0
    levels = (_VERSION_FOLDER.fullmatch, str.isidentifier, _HEX2.fullmatch)

    def visit(path: Path, depth: int) -> None:
        nonlocal count
        try:
            children = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError:
            return
        for child in children:
            try:
                if depth < len(levels):
                    if levels[depth](child.name) and child.is_dir(follow_symlinks=False):
                        visit(Path(child.path), depth + 1)
                        if remove:
                            try:
                                os.rmdir(child.path)  # only when nothing else is left in it
                            except OSError:
                                pass
                elif _ENTRY.fullmatch(child.name) and child.is_file(follow_symlinks=False):
                    if remove:
                        os.unlink(child.path)
                    count += child.name.endswith(".txt")
            except OSError:
                continue

    if base.is_dir():  # NOTE: the cache root itself may be a link the user made; nothing below it is followed
        visit(base, 0)
    return count


def clear() -> tuple[Path, int]:
    """Remove every entry of every version (and drop those waiting for :func:`flush`); return
    the cache folder and the entries removed.

    The kind folders of every version folder go by the naming scheme, not by this engine's table
    (:data:`symgpu.entry_kinds.KINDS`): an older engine may have kept kinds this one does not know.

    Only symgpu's own entries go (by their names, see :func:`_walk`): another file that sits
    in the cache folder, or in one of symgpu's folders, stays, and so does the folder holding it.
    """
    base = root()
    _PENDING.clear()
    return base, _walk(base, remove=True)


def size() -> tuple[Path, int]:
    """The cache folder of this engine and the number of entries in it."""
    here, counts = listing()
    return here, sum(counts.values())


def listing() -> tuple[Path, dict[EntryKind, int]]:
    """The cache folder of this engine and the number of entries of each kind of
    :data:`symgpu.entry_kinds.KINDS` in it."""
    here = folder()
    usable = here.is_dir() and not here.is_symlink()
    return here, {kind: (_count_kind(here / kind.name) if usable else 0) for kind in KINDS}


def _count_kind(where: Path) -> int:
    """The entries in one kind's folder (``where``; nothing followed when it is a link)."""
    if where.is_symlink() or not where.is_dir():
        return 0
    count = 0
    for sub in (s for s in _scan(where) if _HEX2.fullmatch(s.name) and s.is_dir(follow_symlinks=False)):
        count += sum(1 for e in _scan(Path(sub.path)) if e.name.endswith(".txt") and _ENTRY.fullmatch(e.name)
                     and e.is_file(follow_symlinks=False))
    return count


def _scan(path: Path) -> list[os.DirEntry[str]]:
    try:
        return list(os.scandir(path))
    except OSError:
        return []
