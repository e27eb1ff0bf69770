"""What makes a fitted point trustworthy: declared domains and poles over the data, starting
values to try, the covariance from a column-scaled Jacobian, and the checks a fit reports.

A fit of ``a + b*theta/(c - theta)`` can converge on the wrong side of its pole (``c`` below
measured throughputs) with a finite residual; nothing in the optimiser notices. So every
candidate point is checked here against

* the declared assumptions of every input (``positive``, ``nonnegative``, ...);
* every ``valid_when`` domain of the equations the quantity uses, at every data point;
* every denominator and radicand that depends on a fitted parameter: numerically, at every
  data point, a denominator must neither vanish nor change sign across the data, and a
  radicand must not be negative (a fit that crosses a pole is on another branch).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from symgpu import errors, units
from symgpu.evaluate import compiler, input_values
from symgpu.model import Model

#: Largest RMS relative error of an acceptable fit (``--max-rms``).
MAX_RMS = 0.10
#: Singular values of the column-scaled Jacobian below this fraction of the largest are zero.
RCOND = 1e-7
#: A parameter whose column has this much weight in the Jacobian's null space is not determined.
NULL_WEIGHT = 1e-2
#: Multiples of the largest data value of the same dimension tried as starts (e.g. c of the
#: §6.4 latency above every measured throughput), and scalings of the other starting values.
DATA_FACTORS = (1.1, 2.0)
SCALINGS = (0.5, 2.0)


@dataclass(frozen=True)
class FitCheck:
    """One check of a fit.

    Attributes:
        name: what was checked (``converged``, ``valid region``, ``residual``, ``determined``,
            ``weakly determined``).
        passed: whether it passed.
        fatal: a failure makes the fit unusable (exit 1); otherwise it is a warning.
        detail: one line: what was found and what to do.
    """

    name: str
    passed: bool
    fatal: bool
    detail: str


@dataclass(frozen=True)
class SingularPart:
    """A denominator or radicand of the fitted quantity that depends on a fitted parameter.

    Attributes:
        kind: ``denominator`` or ``radicand``.
        expr: the expression.
        names: its free symbols, in the order the compiled function takes them.
    """

    kind: str
    expr: sympy.Expr
    names: tuple[str, ...]


def singular_parts(model: Model, quantity: str, params: Sequence[str]) -> tuple[SingularPart, ...]:
    """The denominators and radicands of ``quantity`` (expanded to inputs) that contain a parameter."""
    wanted = {model.symbols[p] for p in params}
    found: dict[tuple[str, sympy.Expr], None] = {}
    for node in sympy.preorder_traversal(model.expression(quantity)):
        if not isinstance(node, sympy.Pow) or not (node.base.free_symbols & wanted):
            continue
        if node.exp.is_negative:
            found[("denominator", node.base)] = None
        elif node.exp.is_Rational and not node.exp.is_integer:
            found[("radicand", node.base)] = None
    return tuple(SingularPart(kind, expr, tuple(sorted(s.name for s in expr.free_symbols))) for kind, expr in found)


def invalid_reason(model: Model, quantity: str, preset: str | None, columns: Mapping[str, np.ndarray],
                   point: Mapping[str, float], parts: Sequence[SingularPart]) -> str | None:
    """Why the parameter values ``point`` are outside the model's valid region over the data,
    or ``None`` when they lie inside every declared domain and on one side of every pole."""
    size = len(next(iter(columns.values()))) if columns else 1
    values: dict[str, Any] = {**columns, **point}
    shown = ", ".join(f"{k} = {v:.6g}{input_values.unit_suffix(model, k)}" for k, v in point.items())
    try:
        given, magnitudes = input_values.gather_values(model, quantity, preset, values, check=True)
    except errors.SymgpuError as exc:
        return f"at {shown}: {exc}"
    for equation, condition, args, check in compiler.domain_conditions(model, quantity, given):
        if any(a not in magnitudes for a in args):
            continue
        with np.errstate(all="ignore"):
            holds = np.broadcast_to(np.asarray(check(*[magnitudes[a] for a in args]), dtype=bool), (size,))
        if not holds.all():
            held = [n for n in sorted(s.name for s in condition.free_symbols) if n not in columns and n not in point]
            merged = input_values.merge_values(model, preset, None)
            fixed = ", ".join(f"{n} = {input_values.to_magnitude(model, n, merged[n], check=False):.6g}{input_values.unit_suffix(model, n)}"
                              for n in held if n in merged)
            return (f"at {shown}{' with ' + fixed if fixed else ''}: equation {equation.id} requires {condition}, which fails at "
                    f"{_data_point(model, columns, int(np.argmin(holds)))}")
    merged = input_values.merge_values(model, preset, values)
    for part in parts:
        if any(n not in merged for n in part.names):
            continue
        function = compiler.declared_unit_function(model, part.expr, part.names, {})
        arrays = [np.asarray(input_values.to_magnitude(model, n, merged[n], check=False), dtype=float) for n in part.names]
        got = np.broadcast_to(np.asarray(function(*arrays), dtype=float), (size,))
        bad = singularity(part.kind, got)
        if bad is not None:
            return f"at {shown}: {part.kind} {part.expr} {bad[0]} at {_data_point(model, columns, bad[1])}"
    return None


def singularity(kind: str, got: np.ndarray) -> tuple[str, int] | None:
    """(what is wrong, index of a data point where it shows) for a denominator or radicand."""
    if not np.all(np.isfinite(got)):
        return "is not finite", int(np.argmin(np.isfinite(got)))
    if kind == "radicand":
        return ("is negative", int(np.argmin(got))) if np.any(got < 0) else None
    if np.any(got == 0):
        return "vanishes (a pole)", int(np.argmin(np.abs(got)))
    if np.any(got > 0) and np.any(got < 0):
        return "changes sign across the data (the fit crosses a pole)", int(np.argmax(np.sign(got) != np.sign(got[0])))
    return None


def _data_point(model: Model, columns: Mapping[str, np.ndarray], index: int) -> str:
    if not columns:
        return "the preset point"
    return "data point " + str(index + 1) + " (" + ", ".join(
        f"{k} = {float(np.asarray(v).flat[index if np.ndim(v) else 0]):.6g}{input_values.unit_suffix(model, k)}"
        for k, v in columns.items()) + ")"


def starts(model: Model, params: Sequence[str], first: np.ndarray, columns: Mapping[str, np.ndarray],
           measured: tuple[str, np.ndarray]) -> tuple[tuple[np.ndarray, str], ...]:
    """A small deterministic set of starting points after ``first``, each with a note.

    A parameter with the dimension of an input column (else of the measured quantity) starts at
    :data:`DATA_FACTORS` times the largest such value (``c >= max measured throughput``); the
    others at their given start scaled by :data:`SCALINGS`.
    """
    tops: dict[int, tuple[float, str]] = {}
    for sources in (columns, {measured[0]: measured[1]}):
        _largest(model, params, sources, tops)
        if tops:
            break
    out: list[tuple[np.ndarray, str]] = []

    def add(point: np.ndarray, note: str) -> None:
        if all(not np.allclose(point, p, rtol=1e-12, atol=0) for p, _ in [(first, "")] + out):
            out.append((point, note))

    data_note = ", ".join(f"{params[i]} from the largest {column}" for i, (_, column) in tops.items())
    for factor in DATA_FACTORS if tops else ():
        point = first.copy()
        for i, (top, _) in tops.items():
            point[i] = factor * top
        add(point, f"{data_note} x {factor:g}")
    for scaling in SCALINGS:
        point = first * scaling
        for i, (top, _) in tops.items():
            point[i] = DATA_FACTORS[0] * top
        add(point, f"given start x {scaling:g}" + (f", {data_note} x {DATA_FACTORS[0]:g}" if tops else ""))
    return tuple(out)


def _largest(model: Model, params: Sequence[str], sources: Mapping[str, np.ndarray], tops: dict[int, tuple[float, str]]) -> None:
    """For each parameter with the dimension of a column of ``sources``: its largest value there
    (in the parameter's unit) and the column, into ``tops``."""
    for i, name in enumerate(params):
        unit = model.units[name]
        for column, values in sources.items():
            if model.units[column].dimensionality != unit.dimensionality or not np.size(values):
                continue
            factor = units.factor(model.units[column], unit)
            top = float(np.max(np.abs(values))) * factor
            if top > 0 and top > tops.get(i, (0.0, ""))[0]:
                tops[i] = (top, column)


def covariance(jac: np.ndarray, s2: float) -> tuple[np.ndarray, np.ndarray]:
    """(covariance, determined mask) of the parameters from the Jacobian at the solution.

    NOTE: each column is scaled to unit length before the decomposition, so parameters in
    different units (cycles, GB/s, winst/cycle/SM) weigh alike; a parameter the data leave
    free (a zero column, e.g. an ALU bound that binds at no data point, or a direction of the
    null space) is undetermined alone and does not make the others undetermined.
    Undetermined rows and columns of the covariance are NaN.
    """
    k = jac.shape[1]
    norms = np.linalg.norm(jac, axis=0)
    alive = np.isfinite(norms) & (norms > 0)
    cov = np.full((k, k), np.nan)
    determined = np.zeros(k, dtype=bool)
    if not alive.any() or not np.all(np.isfinite(jac[:, alive])):
        return cov, determined
    index = np.flatnonzero(alive)
    _, sv, vt = np.linalg.svd(jac[:, alive] / norms[alive], full_matrices=False)
    keep = sv > RCOND * sv[0]
    weight = (vt[~keep] ** 2).sum(axis=0)
    inverse = (vt[keep].T / sv[keep] ** 2) @ vt[keep]
    good = weight < NULL_WEIGHT
    chosen = index[good]
    cov[np.ix_(chosen, chosen)] = (inverse / np.outer(norms[alive], norms[alive]) * s2)[np.ix_(good, good)]
    determined[chosen] = True
    return cov, determined


def _percent(fraction: float) -> str:
    """``fraction`` as a percentage with the digits it was given (--max-rms 0.001: '0.1%', not '0%')."""
    return f"{fraction * 100:.6g}%"


def checks(*, success: bool, message: str, invalid: str | None, rms: float, max_rms: float,
           names: Sequence[str], determined: Sequence[bool], spans_zero: Sequence[str]) -> tuple[FitCheck, ...]:
    """The checks of a finished fit, fatal ones first."""
    undetermined = [n for n, d in zip(names, determined) if not d]
    return (
        FitCheck("converged", success, True, "the optimiser converged" if success else
                 f"the optimiser did not converge ({message}); give better starting values with --init or fit fewer parameters"),
        FitCheck("valid region", invalid is None, True, "inside every declared domain and on one side of every pole over the data"
                 if invalid is None else f"the fitted point is outside the model's valid region ({invalid}); no start found a valid fit: "
                 "give starting values on the physical side with --init, or fit the inputs the condition names"),
        FitCheck("residual", rms <= max_rms, True, f"RMS relative error {rms:.2%} <= {_percent(max_rms)}" if rms <= max_rms else
                 f"RMS relative error {rms:.2%} exceeds {_percent(max_rms)}: the model does not describe these data at the fitted point; "
                 "check the model, the --where selection or the starting values (or raise --max-rms)"),
        FitCheck("determined", not undetermined, True, "every parameter is determined by the data" if not undetermined else
                 f"{', '.join(undetermined)} not determined by the data (the model does not change with "
                 f"{'them' if len(undetermined) > 1 else 'it'} along some direction at these points); fix "
                 f"{'them' if len(undetermined) > 1 else 'it'} with --preset/--init and fit fewer parameters, or add data where "
                 f"{'they bind' if len(undetermined) > 1 else 'it binds'}"),
        FitCheck("weakly determined", not spans_zero, False, "no confidence interval spans 0" if not spans_zero else
                 f"the confidence interval of {', '.join(spans_zero)} spans 0: the data hardly constrain "
                 f"{'them' if len(spans_zero) > 1 else 'it'}"),
    )
