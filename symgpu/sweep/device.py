"""A sweep's chunks on a GPU (the cupy and jax backends): the plan's compiled function runs on the
device, and what crosses the bus back is the columns alone, each straight into its place in the
caller's array (a slice of the whole result: no host copy after), with the domain's count and the
near-tie flag's offsets reduced on the device (a count and a few offsets instead of grid-sized masks).
Points outside the domain are set to NaN on the device before the copy. The regime column is decided on
the device too and its codes copied back as int16: a case table's is one more output of the compiled
function (:func:`symgpu.sweep.tie_conditions.case_code`, as numba's loop has it); a Min/Max's binding
argument is found in one pass over the arguments, as numba's loop finds it, and the points where an
argument before it is within ``4 TIE`` of the extreme, or one is NaN, are brought back alone
(their arguments' values) and decided by :func:`symgpu.evaluate.rule.binding_index`, the rule itself.

NOTE: imports neither SymPy nor pint.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from symgpu.evaluate import rule
from symgpu.memo import Memo
from symgpu.sweep.backends import Backend
from symgpu.sweep.chunks import Chunk, Columns, Numbers, base_axes, count_spread

if TYPE_CHECKING:
    from symgpu.sweep.plan import SweepPlan

#: each plan's base-unit axes on the device (they are uploaded once per plan and backend, not per chunk)
_ON_DEVICE: Memo[tuple[int, str], tuple[object, list[Any]]] = Memo("sweep.device.axes", 16)


def device_axes(plan: Numbers, backend: Backend) -> list[Any]:
    """The plan's axis values in base units as arrays of ``backend``'s module."""
    key = (id(plan), backend.name)
    known = _ON_DEVICE.get(key)
    if known is not None and known[0] is plan:
        return known[1]
    axes = [backend.device(values) for values in base_axes(plan)]
    _ON_DEVICE[key] = (plan, axes)
    return axes


def device_chunk(plan: SweepPlan, backend: Backend, function: Any, start: int, stop: int,
                 columns: dict[str, np.ndarray] | None = None, regime: np.ndarray | None = None) -> Chunk:
    """The points ``start..stop-1`` of the plan's grid, computed on the device box by box; each quantity's
    column is written into ``columns[name]`` (a flat host array of ``stop - start`` points) where given, else
    into a new array, and the regime codes (a case table's: the function's output ``plan.code``) into ``regime`` or a
    new int16 array."""
    code = plan.code
    if plan.regime is not None and plan.regime.kind == "cases" and code is None:
        raise ValueError("a case table's regime is decided by its code output (tie_conditions.case_code): the plan has none")
    size = stop - start
    given = columns or {}
    targets = {name: given[name] if name in given else np.empty(size) for name in plan.quantities}
    codes = None if plan.regime is None else regime if regime is not None else np.empty(size, dtype=np.int16)
    axes, xp = device_axes(plan, backend), backend.namespace
    fixed = [np.float64(v) for _, v in plan.fixed]
    count = len(axes)
    outside, near = 0, []
    for first, bounds in plan.grid.boxes(start, stop):
        shape = tuple(hi - lo for lo, hi in bounds)
        offset, width = first - start, math.prod(shape)
        coords = [axes[k][lo:hi].reshape((1,) * k + (hi - lo,) + (1,) * (count - k - 1)) for k, (lo, hi) in enumerate(bounds)]
        with np.errstate(all="ignore"):  # NumPy's scalars among the operands: 0/0 outside the domain is NaN, as on the host
            out = function(*coords, *fixed)
        inside, missing = True, 0
        if plan.domain is not None:
            inside = out[plan.domain]
            inside = inside if getattr(inside, "dtype", None) == bool else inside > 0.5
            missing = width - _count(backend, inside, shape)
            outside += missing
        for index, name in enumerate(plan.quantities):
            value = out[index] if not missing else xp.where(inside, out[index], np.nan)
            _host_into(backend, value, targets[name][offset:offset + width].reshape(shape))
        if codes is not None:
            _regime_into(plan, backend, out, code, inside if missing else True, codes[offset:offset + width].reshape(shape))
        if plan.near is not None:
            near.append(_flagged(backend, out[plan.near], shape) + offset)
    flagged = None if plan.near is None else (np.concatenate(near) if near else np.empty(0, dtype=np.intp))
    return Chunk(start, stop, Columns(targets, plan.grid, start, stop), codes, outside, flagged)


def _regime_into(plan: Numbers, backend: Backend, out: Any, code: int | None, inside: Any, target: np.ndarray) -> None:
    """The regime codes of a box (-1 outside the domain, where ``inside`` is false) into ``target``."""
    assert plan.regime is not None
    xp = backend.namespace
    if plan.regime.kind == "cases":
        assert code is not None
        _host_into(backend, xp.where(inside, out[code], -1) if inside is not True else out[code], target)
        return
    rows = [out[tree[1]] for tree in plan.regime.trees]
    if not any(backend.on_device(r) for r in rows):  # every argument fixed: one decision
        np.copyto(target, np.where(np.broadcast_to(backend.host(inside), target.shape), rule.binding_index(rows, plan.regime.kind), -1))
        return
    codes, doubt = _extreme(xp, rows, plan.regime.kind)
    _host_into(backend, xp.where(inside, codes, -1) if inside is not True else codes, target)
    if not bool(xp.any(doubt)):
        return
    shape = target.shape
    doubt = xp.broadcast_to(doubt if inside is True else xp.logical_and(doubt, inside), shape).reshape(-1)
    at = xp.flatnonzero(doubt)
    if not int(at.size):
        return
    values = [backend.host(xp.broadcast_to(r, shape).reshape(-1)[at]) if backend.on_device(r) else r for r in rows]
    target.reshape(-1)[backend.host(at)] = rule.binding_index(values, plan.regime.kind)


def _extreme(xp: Any, rows: list[Any], kind: str) -> tuple[Any, Any]:
    """The first extreme argument of ``rows`` at each point by plain comparisons (codes 0..n-1), and where that
    may not be the rule's answer (:func:`symgpu.evaluate.rule.binding_index`: the first argument within ``TIE``
    of the extreme): an argument BEFORE the chosen one within ``4 TIE`` of the extreme (the best of those is the
    extreme as it stood when the chosen one took over; one after it or equal to it changes nothing, so a Min
    capped by one of its own arguments, tied exactly wherever the cap binds, is decided here), or a NaN among
    them (the sum of the arguments is NaN there)."""
    smaller = kind == "min"
    best, code = rows[0], np.int16(0)
    before, total = (np.inf if smaller else -np.inf), rows[0]
    for k, value in enumerate(rows[1:], 1):
        total = total + value
        better = value < best if smaller else value > best
        before = xp.where(better, best, before)
        best = xp.where(better, value, best)
        code = xp.where(better, np.int16(k), code)
    near = 4 * rule.TIE * xp.abs(best)
    close = before <= best + near if smaller else before >= best - near
    return code, xp.logical_or(close, xp.isnan(total))


def _count(backend: Backend, values: Any, shape: tuple[int, ...]) -> int:
    """How many of ``broadcast_to(values, shape)`` are true, counted at ``values``' own size on the device."""
    if not backend.on_device(values):
        return int(bool(values)) * math.prod(shape)
    return count_spread(values, shape, backend.namespace)


def _host_into(backend: Backend, value: Any, target: np.ndarray) -> None:
    """``value`` (a device array that broadcasts to ``target``'s shape, or a scalar) written into ``target``:
    a grid-sized column straight from the device into it; a smaller one brought back at its own size
    and broadcast on the host."""
    if not backend.on_device(value) or value.size < target.size:
        np.copyto(target, np.broadcast_to(backend.host(value), target.shape), casting="unsafe")
        return
    backend.host_into(value.astype(target.dtype, copy=False), target)


def _flagged(backend: Backend, flags: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The flat offsets in a box of ``shape`` where ``flags`` (broadcast to it) holds: decided on the device,
    only the offsets come back (none, mostly)."""
    if not backend.on_device(flags):
        return np.arange(math.prod(shape)) if bool(flags) else np.empty(0, dtype=np.intp)
    xp = backend.namespace
    flags = flags if flags.dtype == bool else flags > 0.5
    if not bool(xp.any(flags)):
        return np.empty(0, dtype=np.intp)
    return np.asarray(backend.host(xp.flatnonzero(xp.broadcast_to(flags, shape))), dtype=np.intp)
