"""Array backends for a sweep: the same compiled expressions run by NumPy (default), numba
(``symgpu[fast]``: one fused loop per chunk, :mod:`symgpu.sweep.fused`), CuPy or JAX (``symgpu[gpu]``).

Every backend takes the chunk's coordinates as NumPy arrays in base units and returns NumPy
arrays (float64), so what follows (domain mask, regimes, writing) is the same for all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgpu import errors

#: backend name -> (module it needs, extra that installs it)
NEEDS = {"numpy": ("numpy", ""), "numba": ("numba", "fast"), "cupy": ("cupy", "gpu"), "jax": ("jax", "gpu")}


def available(name: str) -> bool:
    """Whether backend ``name`` can run here (its package imports; for cupy, a GPU is present)."""
    try:
        load(name)
    except errors.UsageError:
        return False
    return True


@dataclass(frozen=True)
class Backend:
    """A way of running compiled sweep functions on a chunk of coordinates."""

    name: str
    module: Any = field(repr=False)

    def run(self, function: Callable[..., Any], coords: Sequence[np.ndarray], constants: Sequence[float],
            outputs: int, size: int) -> list[np.ndarray]:
        """Run ``function`` (from :func:`symgpu.evaluate.compiler.fused_function` for this
        backend) on ``coords`` and ``constants`` (base units); return its ``outputs`` arrays of
        length ``size``."""
        if self.name == "numba":
            # the numba backend runs whole chunks in one loop: symgpu.sweep.fused via run.evaluate_chunk
            raise errors.UsageError("the numba backend evaluates chunks with symgpu.sweep.fused.run, not Backend.run")
        # NOTE: constants as full-length views (stride 0, no copies): lambdified Piecewise
        # conditions combine with logical_and.reduce((...)), which fails on scalars and arrays
        fixed = [np.broadcast_to(np.float64(c), (size,)) for c in constants]
        if self.name == "numpy":
            with np.errstate(all="ignore"):
                results = function(*coords, *fixed)
            return [np.broadcast_to(np.asarray(r, dtype=float), (size,)) for r in results]
        if self.name == "cupy":
            cp = self.module
            results = function(*[cp.asarray(c) for c in coords], *[cp.asarray(c) for c in fixed])
            return [np.broadcast_to(np.asarray(cp.asnumpy(cp.asarray(r, dtype=cp.float64))), (size,)) for r in results]
        jnp = self.module.numpy
        results = function(*[jnp.asarray(c) for c in coords], *[jnp.asarray(c) for c in fixed])
        return [np.broadcast_to(np.asarray(r, dtype=float), (size,)) for r in results]


def load(name: str) -> Backend:
    """The backend called ``name``.

    Raises:
        errors.UsageError: unknown backend, or its package (or GPU) is missing.
    """
    if name not in NEEDS:
        raise errors.UsageError(f"unknown backend {name!r}; choose one of {', '.join(NEEDS)}")
    package, extra = NEEDS[name]
    try:
        module = importlib.import_module(package)
    except ImportError:
        raise errors.UsageError(f"backend {name!r} needs the package {package}: pip install 'symgpu[{extra}]'") from None
    if name == "cupy":
        try:
            if module.cuda.runtime.getDeviceCount() < 1:
                raise errors.UsageError("backend 'cupy' needs a CUDA GPU, and none is present")
        except Exception as exc:  # noqa: BLE001 - any CUDA failure means no usable GPU
            if isinstance(exc, errors.UsageError):
                raise
            raise errors.UsageError(f"backend 'cupy' needs a CUDA GPU: {type(exc).__name__}: {exc}") from None
    if name == "jax":
        module.config.update("jax_enable_x64", True)  # float64 like the other backends
    return Backend(name, module)
