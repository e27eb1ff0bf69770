"""Sweeps at any scale: a grid of inputs (``n=1:64``, ``alpha=0:256:2``, ``a=1,2,4``,
``x=1e3:1e6:log20``) evaluated in chunks by one fused compiled pass per chunk (NumPy, numba,
CuPy or JAX), with the active regime at every point, written atomically as Parquet or CSV,
locally or on a Dask cluster."""

from __future__ import annotations

from symgpu.sweep import backends, distributed, readers, writers
from symgpu.sweep.grid import Axis, Grid, parse_axis, parse_grid
from symgpu.sweep.plan import Column, SweepPlan, build_plan
from symgpu.sweep.run import Chunk, SweepResult, iter_chunks, sweep

__all__ = ["backends", "distributed", "readers", "writers", "Axis", "Chunk", "Column", "Grid", "SweepPlan", "SweepResult", "build_plan", "iter_chunks",
           "parse_axis", "parse_grid", "sweep"]
