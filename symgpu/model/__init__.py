"""Models: the file schema, the TOML loader, the safe expression parser, and the built,
unit-checked :class:`Model`.

``Case``, ``Equation`` and ``Model`` are imported on first use (PEP 562 ``__getattr__``), so
the light modules (``schema``, ``loader``) can be used without importing SymPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from symgpu.model.build import Case, Equation, Model

__all__ = ["Case", "Equation", "Model"]


def __getattr__(name: str) -> Any:
    """``Case``, ``Equation``, ``Model`` from :mod:`symgpu.model.build`, imported when first asked for."""
    if name in __all__:
        # NOTE: function-level import on purpose (allowed here by tests/test_architecture.py):
        # `symgpu list` reads model files with the loader without importing SymPy.
        import symgpu.model.build

        return getattr(symgpu.model.build, name)
    raise AttributeError(f"module 'symgpu.model' has no attribute {name!r}")
