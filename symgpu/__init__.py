"""symgpu: GPU analytical performance models as symbolic, unit-checked, executable mathematics.

Typical use::

    >>> import symgpu
    >>> ia = symgpu.load("interval_analysis")
    >>> ia.evaluate("P_K0", preset="gtx1080", M=16, N=16)   # doctest: +SKIP
"""

from __future__ import annotations

from symgpu import api, errors, units
from symgpu.api import Model, load
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
from symgpu.model import Equation, loader
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
    """Ids of the available models: bundled ones, then those in ``$SYMGPU_MODEL_PATH``."""
    return loader.list_models()
