"""Models: the file schema, the TOML loader, the safe expression parser, and the built,
unit-checked :class:`Model`."""

from __future__ import annotations

from symgpu.model.build import Case, Equation, Model

__all__ = ["Case", "Equation", "Model"]
