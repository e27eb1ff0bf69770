"""Up-to-date checks for ``symgpu report --all``: a report whose inputs and outputs are unchanged is skipped.

Make-style, but by content rather than by time stamps. Each report folder has an *inputs
digest* (:class:`Inputs`), computed from the files alone (no model is built, nothing is
rendered): the model file and its bases as the loader finds them, the measured-data files
its ``[[measurements]]`` name, the templates, symgpu's own source
(:func:`symgpu.store.engine_digest`) and packaged data, and the versions of Python, SymPy,
matplotlib and the other libraries that shape the output. After a report is written,
:func:`record` stores (inputs digest -> SHA-256 of every file written) in the user cache
(:mod:`symgpu.store`, kind ``report``). :func:`up_to_date` is true only when that entry is
intact, names this folder, and every file it lists is on disk with the recorded hash.

The entry is JSON text checked field by field (file names, hex digests); it is only compared,
never executed. Anything unexpected (a corrupt or tampered entry, a missing or edited output
file, an input that cannot be read) means "not up to date": the report is rendered as usual.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath
import tomllib

from symgpu import resources, store
from symgpu.entry_kinds import REPORT
from symgpu.memo import memoised
from symgpu.kernel import mapping
from symgpu.model import loader

#: Libraries whose version changes what a report looks like.
_LIBRARIES = ("sympy", "matplotlib", "numpy", "scipy", "pint", "jinja2")
#: A report file name as recorded: one plain name in the folder, never a path or hidden file.
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,199}$")
_HEX = re.compile(r"^[0-9a-f]{64}$")
#: Limits on what is hashed as an input (beyond them the report is simply rendered).
MAX_INPUT_BYTES = 64 << 20
MAX_INPUT_FILES = 2000


@dataclass(frozen=True)
class Inputs:
    """The inputs digest of one report folder.

    Attributes:
        folder: the report folder's name under the output folder (model id, ``comparison``...).
        key: SHA-256 (hex) of everything the report is rendered from.
    """

    folder: str
    key: str


class _Unhashable(Exception):
    """An input could not be read within the limits: the report is rendered, not checked."""


class InputFiles:
    """The input files of one ``report --all`` run, each read (and a model file parsed) once.

    The digests of every report of a run share one: a model file is read once for the chain of
    bases, its ``[[measurements]]`` and its hash, however many reports (the model's own, the
    comparison, the kernel example) it is an input of; the templates once for all reports.
    Kept for one run only, so a file edited between runs is read again.
    """

    def __init__(self) -> None:
        self._bytes: dict[Path, bytes | _Unhashable] = {}
        self._toml: dict[Path, dict[str, object] | _Unhashable] = {}

    @property
    def paths_read(self) -> tuple[Path, ...]:
        """The files read from disk so far, in the order they were read (each once)."""
        return tuple(self._bytes)

    def read(self, path: Path, limit: int) -> bytes:
        """The bytes of ``path`` (at most ``limit``).

        Raises:
            _Unhashable: unreadable, or larger than ``limit``.
        """
        if path not in self._bytes:
            try:
                self._bytes[path] = _read(path, MAX_INPUT_BYTES)
            except _Unhashable as exc:
                self._bytes[path] = exc
        found = self._bytes[path]
        if isinstance(found, _Unhashable):
            raise found
        if len(found) > limit:
            raise _Unhashable(f"{path}: larger than {limit} bytes")
        return found

    def model_data(self, path: Path) -> dict[str, object]:
        """A model file parsed as TOML.

        Raises:
            _Unhashable: unreadable, too large, or not TOML.
        """
        if path not in self._toml:
            try:
                self._toml[path] = tomllib.loads(self.read(path, loader.MAX_FILE_BYTES).decode("utf-8"))
            except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
                self._toml[path] = _Unhashable(f"{path}: {exc}")
            except _Unhashable as exc:
                self._toml[path] = exc
        found = self._toml[path]
        if isinstance(found, _Unhashable):
            raise found
        return found


# ============================================================================ inputs
def model_inputs(model_id: str, formats: Sequence[str], templates: str | Path | None = None, *,
                 files: InputFiles | None = None) -> Inputs | None:
    """The inputs digest of model ``model_id``'s report (None: cannot tell, render it); ``files``:
    the run's reads, shared by the digests of one run."""
    files = files or InputFiles()
    path = loader.find(model_id)
    if path is None:
        return None
    try:
        chain = model_chain(path, files)
        parts = [f"model {model_id}", *_file_parts(chain, files)]
        if path.resolve().parent != resources.equations().resolve():
            parts.append(f"working folder {Path.cwd().resolve()}")  # a user's model shows its path relative to it
        parts += _file_parts(_measured_files(chain, files), files, label="data")
        parts += _template_parts(templates, files)
    except _Unhashable:
        return None
    return Inputs(model_id, _key("model", formats, parts))


def folder_inputs(folder: str, formats: Sequence[str], models: Iterable[str], data: Iterable[str] = (), *,
                  templates: str | Path | None = None, files: InputFiles | None = None) -> Inputs | None:
    """The inputs digest of a report drawn from several models (the comparison, the kernel
    example): the files of ``models`` (ids) and their bases, the metric mappings in
    ``equations/metrics/``, the data files ``data`` (relative to the data root), and the
    templates (None: a model is missing or a file unreadable, render it); ``files``: the run's reads."""
    files = files or InputFiles()
    ids = list(models)
    try:
        chains = []
        for model_id in ids:
            path = loader.find(model_id)
            if path is None:
                return None
            chains += model_chain(path, files)
        metrics = sorted(mapping.FOLDER.glob("*.toml")) if mapping.FOLDER.is_dir() else []
        parts = [f"folder {folder}", f"models {' '.join(ids)}", *_file_parts(chains, files), *_file_parts(metrics, files, label="metrics")]
        parts += _file_parts([_data_file(d) for d in data], files, label="data")
        parts += _template_parts(templates, files)
    except _Unhashable:
        return None
    return Inputs(folder, _key("folder", formats, parts))


def model_chain(path: Path, files: InputFiles | None = None) -> list[Path]:
    """The model file and its bases, as :func:`symgpu.model.loader.read_definition` finds them.

    Raises:
        _Unhashable: a file is unreadable, too large, not TOML, or the bases form a cycle.
    """
    files = files or InputFiles()
    chain: list[Path] = []
    while True:
        if path in chain or len(chain) > 50:
            raise _Unhashable(f"{path}: models extend each other in a cycle")
        chain.append(path)
        data = files.model_data(path)
        meta = data.get("model")
        extends = meta.get("extends") if isinstance(meta, dict) else None
        if not isinstance(extends, str) or not extends:
            return chain
        if not loader.MODEL_ID.match(extends):
            raise _Unhashable(f"{path}: extends {extends!r} is not a model id")
        path = loader.base_file(path, extends)
        if not path.is_file():
            raise _Unhashable(f"{path}: no such base model")


def chain_data(model_id: str, files: InputFiles) -> list[dict[str, object]] | None:
    """Model ``model_id``'s file and its bases parsed as TOML (data only, nothing built), or
    None when a file is missing or cannot be read within the limits."""
    path = loader.find(model_id)
    if path is None:
        return None
    try:
        return [files.model_data(p) for p in model_chain(path, files)]
    except _Unhashable:
        return None


def _measured_files(chain: Sequence[Path], files: InputFiles) -> list[Path]:
    """The data files named by ``[[measurements]]`` entries anywhere in ``chain``."""
    found: list[Path] = []
    for path in chain:
        data = files.model_data(path)
        entries = data.get("measurements", [])
        for entry in entries if isinstance(entries, list) else [None]:
            relative = entry.get("data") if isinstance(entry, dict) else None
            if not isinstance(relative, str):
                raise _Unhashable(f"{path}: a [[measurements]] entry without a data path")
            found.append(_data_file(relative))
    return sorted(set(found))


def _data_file(relative: str) -> Path:
    """A data path as the report reads it (relative to the data root, never absolute or ``..``)."""
    pure = PurePosixPath(relative)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        raise _Unhashable(f"data path {relative!r} is not relative to the repository")
    return resources.measured_file(relative)


def _template_parts(templates: str | Path | None, files: InputFiles) -> list[str]:
    """Every file of the template folders (an override folder, then the bundled one)."""
    parts: list[str] = []
    for index, folder in enumerate([*([Path(templates)] if templates else []), resources.bundled("templates")]):
        if not folder.is_dir():
            raise _Unhashable(f"{folder}: no template folder")
        found = [p for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
        parts += [f"templates {index} {p.relative_to(folder).as_posix()}" for p in found]
        parts += _file_parts(found, files, label=f"template {index}")
    return parts


def _key(kind: str, formats: Sequence[str], parts: Sequence[str]) -> str:
    return store.digest(REPORT.version, kind, ",".join(formats), *_environment(), *parts)


@memoised("report.freshness.environment", 1)
def _environment() -> tuple[str, ...]:
    """What every report depends on (read once per process): symgpu's source and packaged data,
    the checkout's place (paths in reports are shown relative to it), Python and library versions."""
    versions = [f"{name} {_version(name)}" for name in _LIBRARIES]
    return (store.engine_digest(), _package_data(), platform.python_version(), str(resources.CHECKOUT), *versions)


def _file_parts(paths: Iterable[Path], files: InputFiles, label: str = "file") -> list[str]:
    """``label path sha256`` for each file (path resolved: it shows in the reports)."""
    out = []
    for path in paths:
        out.append(f"{label} {path.resolve()} {hashlib.sha256(files.read(path, MAX_INPUT_BYTES)).hexdigest()}")
    if len(out) > MAX_INPUT_FILES:
        raise _Unhashable(f"more than {MAX_INPUT_FILES} input files")
    return out


def _read(path: Path, limit: int) -> bytes:
    try:
        with path.open("rb") as stream:
            data = stream.read(limit + 1)
    except OSError as exc:
        raise _Unhashable(f"{path}: {exc.strerror}") from None
    if len(data) > limit:
        raise _Unhashable(f"{path}: larger than {limit} bytes")
    return data


def _package_data() -> str:
    """A digest of the package's files other than Python source (the unit definitions...),
    which :func:`symgpu.store.engine_digest` leaves out."""
    files = [p for p in sorted(resources.PACKAGE.rglob("*")) if p.is_file() and p.suffix not in (".py", ".pyc")
             and "__pycache__" not in p.parts]
    try:
        parts = _file_parts(files, InputFiles(), label="package")
    except _Unhashable as exc:
        parts = [f"unreadable {exc}"]
    return store.digest(*parts)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


# ============================================================================ outputs
def record(inputs: Inputs, files: Mapping[str, bytes]) -> None:
    """Store the hashes of the files just written for ``inputs`` (a no-op when the cache is off)."""
    body = {"folder": inputs.folder, "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}}
    store.put(REPORT, inputs.key, json.dumps(body, indent=1, sort_keys=True) + "\n")


def recorded(inputs: Inputs) -> dict[str, str] | None:
    """The recorded file name -> SHA-256 for ``inputs``, or None when absent, off, or not
    exactly the shape :func:`record` writes."""
    text = store.get(REPORT, inputs.key)
    if text is None:
        return None
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(body, dict) or set(body) != {"folder", "files"} or body["folder"] != inputs.folder:
        return None
    files = body["files"]
    if not isinstance(files, dict) or not files:
        return None
    if not all(isinstance(n, str) and _NAME.match(n) and isinstance(h, str) and _HEX.match(h) for n, h in files.items()):
        return None
    return dict(files)


def up_to_date(folder: Path, inputs: Inputs | None) -> bool:
    """True when ``folder`` holds exactly what rendering ``inputs`` wrote last: the entry is
    intact and every file it names is there, a regular file, with the recorded SHA-256."""
    if inputs is None:
        return False
    files = recorded(inputs)
    if files is None:
        return False
    for name, expected in files.items():
        path = folder / name
        if path.is_symlink() or not path.is_file():
            return False
        try:
            actual = hashlib.sha256(_read(path, MAX_INPUT_BYTES)).hexdigest()
        except _Unhashable:
            return False
        if actual != expected:
            return False
    return True


__all__ = ["InputFiles", "Inputs", "chain_data", "folder_inputs", "model_chain", "model_inputs", "record", "recorded", "up_to_date"]
