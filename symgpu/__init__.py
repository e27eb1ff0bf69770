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
    if name == "ureg":
        import symgpu.units

        return symgpu.units.registry()
    if name == "loader":
        import symgpu.model.loader

        return symgpu.model.loader
    if name in ("validate", "CaseResult", "validation"):  # the validation imports the derivation engine
        import symgpu.validation

        return symgpu.validation if name == "validation" else getattr(symgpu.validation, name)
    if name == "Equation":
        import symgpu.model

        return symgpu.model.Equation
    import symgpu.api  # `load` and `Model`: the derivation engine is imported by the first question (issue 31)

    return symgpu.api if name == "api" else getattr(symgpu.api, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"api", "units", "loader", "validation"})


def list_models() -> list[str]:
    """Ids of the available models: bundled ones, then those in ``$SYMGPU_MODEL_PATH``."""
    from symgpu.model import loader  # NOTE: light (TOML and file names only); see __getattr__

    return loader.list_models()
