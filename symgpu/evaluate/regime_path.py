"""The regime of an expression along one free variable at a point: which argument of every
reached ``Min``/``Max`` binds and which branch of every reached ``Piecewise`` applies, and the
values of the variable where that regime changes (a scan of the regime, each change bisected).

A nested ``Min``/``Max`` counts only where it is reached: its parent binds through it (or it sits
under no ``Min``/``Max``/``Piecewise`` at all). Crossings of arguments that do not bind are no change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu.evaluate import active, evaluator
from symgpu.evaluate.rule import binding_index

if TYPE_CHECKING:
    from symgpu.model import Model

SCAN_POINTS = 2001  # grid points of the regime scan (geometric for a variable of one sign)
BISECTIONS = 80


@dataclass(frozen=True)
class Change:
    """A value of the variable where the regime changes, with the regime codes on its two sides.

    Attributes:
        value: the variable's value (bisected to float precision).
        below: the regime just below, as (node, choice) pairs (:func:`codes`).
        above: the regime just above.
    """

    value: float
    below: tuple[tuple[int, int], ...]
    above: tuple[tuple[int, int], ...]


def _nodes(expr: sympy.Basic) -> list[sympy.Basic]:
    """Every ``Min``/``Max``/``Piecewise`` of ``expr`` in pre-order (their index is the node id)."""
    return [n for n in sympy.preorder_traversal(expr) if isinstance(n, (sympy.Min, sympy.Max, sympy.Piecewise))]


def _numbers(model: Model, expr: sympy.Basic, preset: str | None, values: Mapping[str, Any], size: int) -> np.ndarray:
    if expr.is_number:
        return np.full(size, float(expr))
    out = evaluator.evaluate_expression(model, expr, None, preset=preset, values=values).magnitude
    return np.broadcast_to(np.asarray(out, dtype=float), (size,))


def _choices(model: Model, node: sympy.Basic, preset: str | None, values: Mapping[str, Any], size: int) -> np.ndarray:
    """The binding argument (a ``Min``/``Max``) or the applying branch (a ``Piecewise``) at every point."""
    if isinstance(node, sympy.Piecewise):
        chosen = np.full(size, -1)
        for i, (_, cond) in reversed(list(enumerate(node.args))):
            chosen = np.where(np.broadcast_to(active.condition_mask(model, cond, preset, values), (size,)), i, chosen)
        return chosen
    reference = next((a for a in node.args if not a.is_number), node.args[0])
    base = _numbers(model, reference, preset, values, size)  # differences to one argument: a bare literal takes its siblings' unit
    rows = [base if a == reference else base + _numbers(model, a - reference, preset, values, size) for a in node.args]
    return np.broadcast_to(np.asarray(binding_index(rows, "min" if isinstance(node, sympy.Min) else "max")), (size,))


def codes(model: Model, expr: sympy.Basic, variable: str, xs: Any, preset: str | None,
          values: Mapping[str, Any]) -> list[tuple[tuple[int, int], ...]]:
    """The regime of ``expr`` at each ``variable = x`` of ``xs``: the (node, choice) pairs of every
    reached ``Min``/``Max``/``Piecewise`` (:func:`_nodes` numbering), in pre-order."""
    nodes = _nodes(expr)
    index = {id(n): i for i, n in enumerate(nodes)}
    grid = np.asarray(xs, dtype=float)
    at = {**values, variable: grid}
    with np.errstate(all="ignore"):
        chosen = [_choices(model, n, preset, at, grid.size) for n in nodes]

    def walk(node: sympy.Basic, k: int, out: list[tuple[int, int]]) -> None:
        if id(node) in index:
            i = index[id(node)]
            choice = int(chosen[i][k])
            out.append((i, choice))
            if choice < 0:
                return
            walk(node.args[choice].args[0] if isinstance(node, sympy.Piecewise) else node.args[choice], k, out)
            return
        for arg in node.args:
            if isinstance(arg, sympy.Basic) and arg.has(sympy.Min, sympy.Max, sympy.Piecewise):
                walk(arg, k, out)

    result = []
    for k in range(grid.size):
        out: list[tuple[int, int]] = []
        walk(expr, k, out)
        result.append(tuple(out))
    return result


def _grid(candidates: Sequence[float], low: float | None) -> np.ndarray:
    """Where the regime is scanned: geometric over six decades either side of the candidates
    (both signs unless ``low`` bounds the variable below), each candidate with its close neighbours."""
    scale = [abs(c) for c in candidates if c != 0 and np.isfinite(c)] or [1.0]
    lo, hi = min(scale) * 1e-6, max(scale) * 1e6
    positive = np.geomspace(lo, hi, SCAN_POINTS)
    near = [c * f for c in candidates if np.isfinite(c) for f in (1 - 1e-6, 1 + 1e-6)]
    points = np.concatenate([positive, near] if low is not None and low >= 0 else [positive, -positive, [0.0], near])
    if low is not None:
        points = points[points > low] if low == 0 else points[points >= low]
    return np.unique(points)


def span(candidates: Sequence[float], low: float | None = None) -> tuple[float, float, int]:
    """Where :func:`changes` scans (its :func:`_grid`): the first and last value and the number of points."""
    xs = _grid(candidates, low)
    return float(xs[0]), float(xs[-1]), int(xs.size)


def changes(model: Model, expr: sympy.Basic, variable: str, candidates: Sequence[float], preset: str | None,
            values: Mapping[str, Any], low: float | None = None) -> tuple[tuple[float, float], tuple[Change, ...]]:
    """The values of ``variable`` where the regime of ``expr`` changes at the point, found by a scan
    (:func:`_grid` around ``candidates``) with each change bisected; with the scanned span."""
    xs = _grid(candidates, low)
    found = codes(model, expr, variable, xs, preset, values)
    out = []
    for k in range(len(xs) - 1):
        if found[k] == found[k + 1]:
            continue
        a, b, ca = float(xs[k]), float(xs[k + 1]), found[k]
        for _ in range(BISECTIONS):
            m = (a + b) / 2
            if m in (a, b):
                break
            if codes(model, expr, variable, [m], preset, values)[0] == ca:
                a = m
            else:
                b = m
        below, above = codes(model, expr, variable, [a, b], preset, values)
        out.append(Change(b, below, above))
    return (float(xs[0]), float(xs[-1])), tuple(out)


def describe(expr: sympy.Basic, code: Sequence[tuple[int, int]], case_ids: Sequence[str] = ()) -> str:
    """A regime as text: ``expr`` with each reached ``Min``/``Max``/``Piecewise`` replaced by its
    binding argument or applying branch (``c*x``); where ``expr`` is a case table (``case_ids``) its
    applying case, with the branch's regime where that holds a Min/Max (``hi: a``)."""
    nodes = _nodes(expr)
    chosen = dict(code)
    index = {id(n): i for i, n in enumerate(nodes)}

    def resolve(node: sympy.Basic) -> sympy.Basic:
        i = index.get(id(node))
        if i is not None and chosen.get(i, -1) >= 0:
            arg = node.args[chosen[i]]
            return resolve(arg.args[0] if isinstance(node, sympy.Piecewise) else arg)
        if not node.args or not node.has(sympy.Min, sympy.Max, sympy.Piecewise):
            return node
        return node.func(*[resolve(a) if isinstance(a, sympy.Basic) else a for a in node.args])

    first = chosen.get(0, -1)
    if isinstance(expr, sympy.Piecewise) and 0 <= first < len(case_ids):  # a case alone where its value holds no Min/Max
        branch = expr.args[first].args[0]
        return case_ids[first] if not branch.has(sympy.Min, sympy.Max, sympy.Piecewise) else f"{case_ids[first]}: {sympy.sstr(resolve(branch))}"
    return sympy.sstr(resolve(expr))
