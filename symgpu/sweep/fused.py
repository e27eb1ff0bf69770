"""The numba backend's chunk: one compiled loop (``symgpu[fast]``) that, per point, unravels
the flat grid index into the axes' values, runs the plan's fused function, masks the points
outside the domain (NaN) — no temporaries beyond the chunk's output arrays. The regime is
decided afterwards on those outputs by :func:`symgpu.sweep.regimes.decide`, the NumPy
backend's array form of :mod:`symgpu.evaluate.active`'s rule, so both backends share one rule.

The arithmetic is the plan's compiled expressions point by point (no ``fastmath``: reassociated
or reciprocal arithmetic could move an exact tie of a discontinuous model), so every value is
the one the NumPy backend computes. The loop runs on one thread: measured on a shared 2-core machine,
numba's ``prange`` over two threads was no faster, and parallel sweeps come from chunks on
several workers (``--engine dask``) without oversubscribing. Kernels
are compiled once per process and axis count (numba's on-disk cache is not used: symgpu never
loads executable code from a cache).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

@dataclass(frozen=True)
class FusedChunk:
    """What the kernel leaves: axis columns (declared units), every output row (quantities NaN
    outside the domain) and the points outside."""

    axes: np.ndarray  # (axes, points)
    out: np.ndarray  # (outputs, points)
    outside: int


@dataclass(frozen=True)
class Layout:
    """The grid and plan as flat arrays the kernel reads (see :func:`layout`)."""

    values: np.ndarray  # every axis's values, concatenated (declared units)
    offsets: np.ndarray  # where each axis starts in ``values``
    lengths: np.ndarray  # points per axis
    scales: np.ndarray  # declared unit -> base unit, per axis
    quantities: int  # outputs 0..quantities-1 are masked with NaN outside the domain
    domain: int  # index of the domain output, -1 for none


_LAYOUTS: dict[int, tuple[object, Layout]] = {}


def layout(owner: object, axes: list[np.ndarray], scales: tuple[float, ...], quantities: int, domain: int | None) -> Layout:
    """The kernel's view of ``owner`` (a plan; built once per plan object, the axes copied once)."""
    known = _LAYOUTS.get(id(owner))
    if known is not None and known[0] is owner:
        return known[1]
    if len(_LAYOUTS) > 64:
        _LAYOUTS.clear()
    lengths = np.array([a.size for a in axes], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64) if axes else np.zeros(0, dtype=np.int64)
    values = np.ascontiguousarray(np.concatenate(axes) if len(axes) > 1 else axes[0] if axes else np.zeros(0), dtype=np.float64)
    made = Layout(values, offsets, lengths, np.array(scales, dtype=np.float64), quantities,
                  -1 if domain is None else domain)
    _LAYOUTS[id(owner)] = (owner, made)
    return made


_KERNELS: dict[int, Any] = {}


def kernel(numba: Any, axes: int) -> Callable[..., Any]:
    """The compiled chunk loop for ``axes`` swept symbols (one per process and axis count)."""
    if axes not in _KERNELS:
        _KERNELS[axes] = _make_kernel(numba, axes)
    return _KERNELS[axes]  # type: ignore[no-any-return]


def _make_kernel(numba: Any, n: int) -> Any:  # pragma: no cover - compiled by numba
    # a row of the chunk as a tuple of n floats (n fixed per kernel), which the fused function unpacks for free
    to_fixed_tuple: Any = importlib.import_module("numba.np.unsafe.ndarray").to_fixed_tuple

    @numba.njit(nogil=True, error_model="numpy")
    def loop(f: Any, start: int, values: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, scales: np.ndarray,
             fixed: Any, quantities: int, domain: int,
             axes: np.ndarray, rows: np.ndarray, out: np.ndarray) -> int:
        outside = 0
        for i in range(rows.shape[0]):
            flat = start + i
            for k in range(n - 1, -1, -1):
                index = flat % lengths[k]
                flat //= lengths[k]
                value = values[offsets[k] + index]
                axes[k, i] = value
                rows[i, k] = value * scales[k] if scales[k] != 1.0 else value
            result = f(to_fixed_tuple(rows[i], n), fixed)
            for j in range(out.shape[0]):
                out[j, i] = result[j]
            inside = domain < 0 or out[domain, i] > 0.5
            if not inside:
                outside += 1
                for j in range(quantities):
                    out[j, i] = np.nan
        return outside

    return loop


_JITTED: dict[int, tuple[Any, Any]] = {}


def jitted(numba: Any, function: Callable[..., Any]) -> Any:
    """``function`` (the plan's numba-form fused function) compiled, once per process."""
    key = id(function)
    if key not in _JITTED or _JITTED[key][0] is not function:
        _JITTED[key] = (function, numba.njit(nogil=True, error_model="numpy")(function))
    return _JITTED[key][1]


def run(numba: Any, function: Callable[..., Any], plan: Layout, constants: tuple[float, ...], outputs: int,
        start: int, stop: int) -> FusedChunk:
    """Evaluate the flat grid points ``start..stop-1`` in one compiled loop."""
    size = stop - start
    n = plan.lengths.size
    axes = np.empty((n, size))
    rows = np.empty((size, n))
    out = np.empty((outputs, size))
    fixed = tuple(float(c) for c in constants)
    outside = kernel(numba, n)(jitted(numba, function), start, plan.values, plan.offsets, plan.lengths,
                                         plan.scales, fixed, plan.quantities, plan.domain,
                                         axes, rows, out)
    return FusedChunk(axes, out, int(outside))
