"""Read model files (``equations/*.toml``) into :class:`~symgpu.model.schema.ModelDefinition` records.

This is the only module that touches the filesystem for models: it finds model files, reads
them (size-limited, TOML kept in :mod:`symgpu.store` as JSON) and follows ``extends`` to the base
model. The *shape* checks of a file's tables (keys, types, ids, references) are
:mod:`symgpu.model.definition_reader`'s; the SymPy and unit checks happen in
:mod:`symgpu.model.build` and :mod:`symgpu.units.dimensions`.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tomllib
from pathlib import Path
from typing import Any

from symgpu import errors, resources, store, suggest, textfiles
from symgpu.memo import Memo, Tally
from symgpu.entry_kinds import TOML
from symgpu.model import schema, toml_reader
from symgpu.model.definition_reader import MODEL_ID, DefinitionReader

#: Repository root (``equations/`` and ``templates/`` live beside the package).
#: The repository root in a checkout (paths inside it are shown relative to it).
ROOT = resources.CHECKOUT
ENV_EQUATIONS = resources.ENV_EQUATIONS
SCHEMA_CHANGES = {1: "first version"}
#: Largest model file read (the largest bundled file has 75 KB).
MAX_FILE_BYTES = 1 << 20
#: ``[model].extends`` of each file that parsed, by the SHA-256 of its bytes: :func:`bases_used` follows
#: the chain a model's loading has just read, and parsing a file again cost 15 ms (Volkov's, 150 kB)
_EXTENDS: Memo[str, Any] = Memo("model.loader.extends", 256)
#: what `_EXTENDS.get` gives for a file not parsed yet
_UNSEEN = object()
#: model files parsed by ``tomllib`` (not those read back from the store)
_PARSES = Tally("model.loader.toml_parses")


def equations_dir() -> Path:
    """Return the folder of bundled model files (``$SYMGPU_EQUATIONS`` overrides it)."""
    return resources.equations()


def list_models(folder: Path | None = None) -> list[str]:
    """Return the ids of the models in ``folder`` (default: every model folder), sorted, each once."""
    folders = [folder] if folder is not None else resources.model_folders()
    return sorted({p.stem for f in folders if f.is_dir() for p in f.glob("*.toml")})


def find(model_id: str, folder: Path | None = None) -> Path | None:
    """The file of model ``model_id`` in ``folder`` or, by default, the first model folder that has it."""
    return resources.find_model(model_id, folder)


def shadowed(model_id: str) -> list[Path]:
    """Files of model ``model_id`` in later model folders (``$SYMGPU_MODEL_PATH``) that the first
    one found hides: a user model with a bundled model's id is never the one loaded by id."""
    return resources.shadowed_models(model_id)


def resolve(id_or_path: str | os.PathLike[str], folder: Path | None = None) -> Path:
    """Map a model id or a path to the model file.

    Model ids are looked up in the bundled folder, then in ``$SYMGPU_MODEL_PATH``.

    Raises:
        errors.UsageError: no such model id or file.
    """
    text = os.fspath(id_or_path)
    candidate = Path(text)
    if text.endswith(".toml") or os.sep in text or "/" in text:
        try:
            mode = os.stat(candidate).st_mode
        except OSError:
            raise errors.UsageError(f"{textfiles.printable(text, 200)}: no such model file") from None
        if not stat.S_ISREG(mode):
            raise errors.UsageError(f"{textfiles.printable(text, 200)}: is {textfiles.kind(mode)}, not a model file; give a regular .toml file")
        return candidate
    path = find(text, folder)
    if path is None:
        models = list_models(folder)
        close = suggest.closest(text, models, 3)
        known = textfiles.listing(models) or "none"
        meant = f"did you mean {', '.join(close)}? " if close else ""
        raise errors.UsageError(f"unknown model {textfiles.printable(text, 200)!r} ({meant}models: {known}); give a model id or a path to a "
                                f".toml file (folders of your own go in ${resources.ENV_MODEL_PATH})")
    return path


def read_definition(path: str | os.PathLike[str], _trail: tuple[str, ...] = (), _first: str = "") -> schema.ModelDefinition:
    """Read and shape-check one model file.

    A file whose ``[model]`` has ``extends = "<id>"`` is a *variant*: it inherits the base
    model's references, symbols, equations, presets, validation cases and derivations;
    entries with the same id (symbol name, equation id, preset id, case id) replace the
    base's, others are added. The base is looked up beside the variant file first, then
    among the bundled models.

    Raises:
        errors.ModelFileError: the file is not valid TOML, does not follow the schema, or
            extends a model that is missing or extends it back.
    """
    path = Path(path)
    shown = _shown(path)
    try:
        handle, info = textfiles.regular_open(path)
    except OSError as exc:
        raise errors.ModelFileError(shown, "", f"cannot read file ({exc.strerror})") from None
    try:
        if not stat.S_ISREG(info.st_mode):
            raise errors.ModelFileError(shown, "", f"is {textfiles.kind(info.st_mode)}, not a model file", "give a regular .toml file")
        with os.fdopen(os.dup(handle), "rb") as stream:
            raw = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise errors.ModelFileError(shown, "", f"cannot read file ({exc.strerror})") from None
    finally:
        os.close(handle)
    if len(raw) > MAX_FILE_BYTES:
        raise errors.ModelFileError(shown, "", f"file is larger than {MAX_FILE_BYTES} bytes", "a model file is text of at most 1 MiB")
    try:
        data = _parse_toml(raw)
    except UnicodeDecodeError as exc:
        raise errors.ModelFileError(shown, "", f"file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise errors.ModelFileError(shown, "", f"invalid TOML: {exc}") from None
    except RecursionError:
        raise errors.ModelFileError(shown, "", "invalid TOML: arrays or tables nested too deeply") from None
    except ValueError as exc:  # NOTE: CPython's int-conversion limit, raised through tomllib
        raise errors.ModelFileError(shown, "", f"invalid TOML: a number is too long to read ({type(exc).__name__})", "write numbers of at most a few dozen digits") from None
    base = None
    meta = data.get("model")
    extends = meta.get("extends") if isinstance(meta, dict) else None
    if isinstance(extends, str) and extends:
        if not MODEL_ID.match(extends):
            hint = f"write extends = \"<id>\" with the base model's id (bundled: {', '.join(list_models()) or 'none'})"
            raise errors.ModelFileError(shown, "[model].extends", f"{toml_reader.cut(extends)!r} is not a model id: extends names a model (letters, digits, '_', '-'), never a path", hint)
        trail = _trail + (path.stem,)
        if extends in trail:
            raise errors.ModelFileError(_first or shown, "[model].extends", f"models extend each other in a cycle: {' -> '.join(trail + (extends,))}")
        base_path = base_file(path, extends)
        if not os.path.lexists(base_path):
            raise errors.ModelFileError(shown, "[model].extends", f"unknown base model '{extends}'", f"bundled models: {', '.join(list_models()) or 'none'}")
        base = read_definition(base_path, trail, _first or shown)
    return DefinitionReader(shown, path.stem, base).model(data)


def _parse_toml(raw: bytes) -> dict[str, Any]:
    """``tomllib.loads`` of the UTF-8 file ``raw``, its tables kept in :mod:`symgpu.store` as
    JSON under the file's SHA-256 (reading TOML is most of the time of reading a model file;
    JSON is read by C code). JSON gives back exactly the strings, integers, floats (``inf`` and
    ``nan`` too), booleans, arrays and tables it was given; a file with dates is not kept.
    What comes back is shape-checked like any parsed file, and its expressions are parsed by
    the whitelist parser. Only files that parsed are kept, so TOML errors are tomllib's.
    """
    text = raw.decode("utf-8")
    sha = hashlib.sha256(raw).hexdigest()
    key = store.digest(TOML.version, sys.version, sha)  # tomllib is Python's
    body = store.get(TOML, key)
    if body is not None:
        try:
            kept = json.loads(body, object_pairs_hook=_table)
        except (ValueError, RecursionError):
            kept = None
        if isinstance(kept, dict) and _toml_shaped(kept):
            _EXTENDS[sha] = _extends(kept)
            return kept
    _PARSES.add()
    data = tomllib.loads(text)
    _EXTENDS[sha] = _extends(data)
    try:
        store.put(TOML, key, json.dumps(data, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        pass  # dates and times have no JSON form
    return data


def _extends(data: dict[str, Any]) -> Any:
    """``[model].extends`` of a parsed file (None where it has none or ``[model]`` is no table)."""
    meta = data.get("model")
    return meta.get("extends") if isinstance(meta, dict) else None


def _table(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of a kept entry; a repeated key (which TOML refuses) makes the entry unusable."""
    table = dict(pairs)
    if len(table) != len(pairs):
        raise ValueError("repeated key")
    return table


def _toml_shaped(value: Any, depth: int = 0) -> bool:
    """Only what tomllib gives (strings, integers, floats, booleans, arrays, tables): a kept entry
    with a null or absurd nesting is parsed again from the file."""
    if depth > 64:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _toml_shaped(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_toml_shaped(v, depth + 1) for v in value)
    return isinstance(value, (str, int, float, bool))


def base_file(path: Path, extends: str) -> Path:
    """The file of base model ``extends`` of the model file ``path``: beside it first, then
    in the model folders (the path beside it when neither has one; the caller checks it exists)."""
    return resources.base_model_file(path, extends)


def bases_used(path: str | os.PathLike[str]) -> tuple[tuple[str, Path], ...]:
    """The ``extends`` chain of the model file ``path``, as :func:`read_definition` follows it: (base id, the
    file read for it) per step; a base beside a variant comes first, so it may differ from the file that id
    loads by itself (:func:`find`: the bundled folder first). Stops at a file that does not read (the
    loader's errors say why when the model is read)."""
    out: list[tuple[str, Path]] = []
    current = Path(path)
    while len(out) < 64:
        try:
            raw = textfiles.read_bounded(current, limit=MAX_FILE_BYTES, what="model file", hint="")
            extends = _EXTENDS.get(hashlib.sha256(raw).hexdigest(), _UNSEEN)  # the same bytes parse the same
            if extends is _UNSEEN:
                extends = _extends(_parse_toml(raw))
        except (errors.SymgpuError, OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError, RecursionError):
            break
        if not isinstance(extends, str) or not MODEL_ID.match(extends):
            break
        current = base_file(current, extends)
        if any(current == seen for _, seen in out) or not os.path.lexists(current):
            break
        out.append((extends, current))
    return tuple(out)


def unlike_by_id(path: str | os.PathLike[str]) -> tuple[tuple[str, Path, Path], ...]:
    """The bases of the model file ``path`` read from another file than their id loads by itself
    (:func:`bases_used` against :func:`find`): (base id, file read, file the id loads)."""
    out = []
    for base_id, used in bases_used(path):
        by_id = find(base_id)
        if by_id is not None and used.resolve() != by_id.resolve():
            out.append((base_id, used, by_id))
    return tuple(out)


def _shown(path: Path) -> str:
    """Path as shown in messages: relative to the repository root when inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
