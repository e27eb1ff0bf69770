"""Sweeps at any scale: a grid of inputs (``n=1:64``, ``alpha=0:256:2``, ``a=1,2,4``,
``x=1e3:1e6:log20``) evaluated in chunks by one fused compiled pass per chunk (NumPy, numba,
CuPy or JAX), with the active regime at every point, written atomically as Parquet or CSV,
locally or on a Dask cluster.

The public names are imported on first use (PEP 562 ``__getattr__``): a stored sweep plan
(:mod:`symgpu.sweep.replay`) runs the SymPy-free modules of this package without importing SymPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from symgpu.sweep import backends, distributed, readers, writers
    from symgpu.sweep.grid import Axis, Grid, parse_axis, parse_grid
    from symgpu.sweep.plan import Column, SweepPlan, build_plan
    from symgpu.sweep.run import Chunk, SweepResult, iter_chunks, sweep

__all__ = ["backends", "distributed", "readers", "writers", "Axis", "Chunk", "Column", "Grid", "SweepPlan", "SweepResult", "build_plan", "iter_chunks",
           "parse_axis", "parse_grid", "sweep"]

#: public name -> the module that defines it (None: the name is a submodule)
_HOMES = {"backends": None, "distributed": None, "readers": None, "writers": None, "Axis": "grid", "Grid": "grid",
          "parse_axis": "grid", "parse_grid": "grid", "Column": "plan", "SweepPlan": "plan", "build_plan": "plan",
          "Chunk": "run", "SweepResult": "run", "iter_chunks": "run", "sweep": "run"}


def __getattr__(name: str) -> Any:
    """The public names, imported when first asked for (module-level ``__getattr__``, PEP 562)."""
    if name not in _HOMES:
        raise AttributeError(f"module 'symgpu.sweep' has no attribute {name!r}")
    home = _HOMES[name]
    if home is None:
        return importlib.import_module(f"symgpu.sweep.{name}")
    return getattr(importlib.import_module(f"symgpu.sweep.{home}"), name)
