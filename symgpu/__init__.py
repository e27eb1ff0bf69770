"""symgpu: GPU analytical performance models as symbolic, unit-checked, executable mathematics.

Typical use::

    >>> import symgpu
    >>> ia = symgpu.load("interval_analysis")
    >>> ia.evaluate("P_K0", preset="gtx1080", M=16, N=16)   # doctest: +SKIP

The public names are imported on first use (PEP 562 ``__getattr__``): ``import symgpu`` and
``symgpu --help`` do not pay for SymPy, pint or the derivation engine until they are needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    import pint

    from symgpu import api, units
    from symgpu.api import Model, load
    from symgpu.model import Equation, loader
    from symgpu.validation import CaseResult, validate

    ureg: pint.UnitRegistry

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


#: names :func:`__getattr__` imports on first use
_LAZY = frozenset({"api", "units", "validation", "loader", "Model", "load", "ureg", "Equation", "validate", "CaseResult"})


def __getattr__(name: str) -> Any:
    """The public API, imported when first asked for (module-level ``__getattr__``, PEP 562)."""
    # NOTE: function-level imports on purpose (allowed for this module in
    # tests/test_architecture.py): they keep `import symgpu` light. `import symgpu.x` (not
    # `from symgpu import x`, which would call this function again) sets the attribute.
    # Other names fail at once: `from symgpu import resources` asks here before importing it.
    if name not in _LAZY:
        raise AttributeError(f"module 'symgpu' has no attribute {name!r}")
    if name == "units":  # `from symgpu import units` inside the engine must not pull in the API above it
        import symgpu.units

        return symgpu.units
    import symgpu.api
    import symgpu.model.loader
    import symgpu.units
    import symgpu.validation

    if name in ("Model", "load"):
        return getattr(symgpu.api, name)
    if name == "ureg":
        return symgpu.units.registry()
    if name == "Equation":
        return symgpu.model.Equation
    if name in ("validate", "CaseResult"):
        return getattr(symgpu.validation, name)
    if name in ("api", "validation"):
        return globals()[name]
    return symgpu.model.loader


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"api", "units", "loader", "validation"})


def list_models() -> list[str]:
    """Ids of the available models: bundled ones, then those in ``$SYMGPU_MODEL_PATH``."""
    from symgpu.model import loader  # NOTE: light (TOML and file names only); see __getattr__

    return loader.list_models()
