"""symgpu: GPU analytical performance models as symbolic, unit-checked, executable mathematics.

Typical use::

    >>> import symgpu
    >>> ia = symgpu.load("interval_analysis")
    >>> ia.evaluate("P_K0", preset="gtx1080", M=16, N=16)   # doctest: +SKIP
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from symgpu import derive, errors, units  # derive attaches Model.solve, .regimes, ...
from symgpu.model import loader
from symgpu.errors import (
    DerivationError,
    DomainError,
    EvaluationError,
    ExpressionError,
    ModelFileError,
    SymgpuError,
    UnitMismatchError,
    UsageError,
)
from symgpu.model import Equation, Model
from symgpu.validation import CaseResult, validate

__all__ = [
    "CaseResult",
    "DerivationError",
    "DomainError",
    "Equation",
    "EvaluationError",
    "ExpressionError",
    "Model",
    "ModelFileError",
    "SymgpuError",
    "UnitMismatchError",
    "UsageError",
    "list_models",
    "load",
    "ureg",
    "validate",
]

ureg = units.registry()


def list_models() -> list[str]:
    """Ids of the bundled models in ``equations/``."""
    return loader.list_models()


def load(id_or_path: str | os.PathLike[str]) -> Model:
    """Load, build and check a model by id (``"interval_analysis"``) or path to a ``.toml`` file.

    Models are cached by resolved path and modification time; the returned object must be
    treated as read-only.

    Raises:
        UsageError: no such model.
        ModelFileError: the file is invalid, unsafe or dimensionally inconsistent.
    """
    path = loader.resolve(id_or_path).resolve()
    return _load_cached(path, path.stat().st_mtime_ns)


@lru_cache(maxsize=64)
def _load_cached(path: Path, mtime: int) -> Model:
    return Model(loader.read_definition(path))
