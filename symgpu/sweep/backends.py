"""Array backends for a sweep: the same compiled expressions run by NumPy (default), numba
(``symgpu[fast]``: one fused loop per chunk, :mod:`symgpu.sweep.fused`), CuPy or JAX (``symgpu[gpu]``).

NumPy, CuPy and JAX run the same code (:func:`symgpu.evaluate.compiler.fused_function`) on a
chunk's axes as arrays of their module that broadcast against each other (:meth:`Backend.device`:
only the axes cross the bus); on a GPU the domain, the regime and the near-tie flag are reduced there
and the columns copied straight into the result (:mod:`symgpu.sweep.device`, :meth:`Backend.host_into`).
"""

from __future__ import annotations

import importlib
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

    def device(self, values: np.ndarray) -> Any:
        """``values`` as an array of this backend's module (on the GPU for cupy and jax)."""
        if self.name == "cupy":
            return self.module.asarray(values)
        if self.name == "jax":
            return self.module.numpy.asarray(values)
        return values

    @property
    def namespace(self) -> Any:
        """The module whose functions run on this backend's arrays (``jax.numpy`` for jax)."""
        return self.module.numpy if self.name == "jax" else self.module

    def on_device(self, values: Any) -> bool:
        """Whether ``values`` is an array of this backend's module (not a NumPy array or a scalar)."""
        if self.name == "cupy":
            return isinstance(values, self.module.ndarray)
        if self.name == "jax":
            return isinstance(values, self.module.Array)
        return False

    def host_into(self, values: Any, target: np.ndarray) -> None:
        """The device array ``values`` (as many points as ``target``) copied into the NumPy array ``target``
        (C-contiguous): CuPy copies straight into it, with no host array in between."""
        if self.name == "cupy":
            values.reshape(target.shape).get(out=target)
        else:
            np.copyto(target, np.asarray(values).reshape(target.shape))

    def host(self, values: Any) -> Any:
        """A result of this backend's module as a NumPy array (or scalar), in its own shape:
        an output over fewer axes than the grid crosses the bus at that size."""
        if self.name == "cupy" and isinstance(values, self.module.ndarray):
            return self.module.asnumpy(values)
        return values if self.name == "numpy" else np.asarray(values)


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
