"""Loading models by id or path, built and checked, cached by resolved path and modification time."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar, cast

from symgpu.memo import memoised
from symgpu.model import build, loader

M = TypeVar("M", bound=build.Model)


def load(id_or_path: str | os.PathLike[str], cls: type[M], *, whole: bool) -> M:
    """Load, build and check a model as an instance of ``cls`` (a :class:`~symgpu.model.Model`): ``whole``, every
    part of it now (``symgpu check``, ``validate``, the reports); else, for a question, each equation when first
    read (:class:`~symgpu.model.Model`'s ``whole``).

    The returned object is shared between callers and must be treated as read-only.

    Raises:
        errors.UsageError: no such model.
        errors.ModelFileError: the file is invalid, unsafe or dimensionally inconsistent.
    """
    path = loader.resolve(id_or_path).resolve()
    return cast(M, _load_cached(path, path.stat().st_mtime_ns, cast(Any, cls), whole))


@memoised("model.catalog.loaded", 64)
def _load_cached(path: Path, mtime: int, cls: Any, whole: bool) -> Any:
    return cls(loader.read_definition(path), whole=whole)
