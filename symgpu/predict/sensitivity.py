"""d log t / d log x of a kernel's ``t_kernel`` for every input, as a performance engineer can use it.

* An input that no ``floor``/``ceiling`` reads: the symbolic derivative of ``t_kernel`` with each
  ``Min``/``Max`` (and case) replaced by its binding branch at the point, checked against a central
  finite difference of the evaluated model.
* An input a ``floor``/``ceiling`` reads (``K_red`` through ``ceiling(K_red/split_k)``, ``blocks``
  through the wave count): ``t_kernel`` is a staircase in it, whose derivative is 0 on a tread and
  does not exist on a riser. The sensitivity given is the derivative of the *un-quantized* form
  (each such ``ceiling(e)``/``floor(e)`` read as ``e``), stated as such, checked against a finite
  difference of that form.
* An input the launch computes from other inputs (:data:`LAUNCH`: the GEMM's grid from M, K_out, the
  tile and split_k) moves with them where the launch at the point is the rule's: the elasticity of t
  in M with the grid recomputed (un-quantized: ``blocks`` in proportion to ``M``); where the launch is
  not the rule's, or an input changes it in no power law, the line says the grid is held fixed.
* Where the symbolic value and the finite difference still disagree, only the right one is given:
  a kink (a regime switch within the step; the one-sided differences differ) has no derivative and
  both one-sided values are shown as such; otherwise the finite difference is given, saying so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy

from symgpu import api, errors, units
from symgpu.evaluate import evaluator
from symgpu.model import printing

#: relative step of the finite difference
STEP = 1e-5
#: agreement between the symbolic and the finite-difference sensitivity (absolute, in d log t / d log x)
AGREE = 1e-3


@dataclass(frozen=True)
class LaunchRule:
    """An input of a kernel model that the launch computes from other inputs.

    Attributes:
        dependent: the computed input (``blocks``).
        formula: the launch's rule as text.
        exponents: un-quantized, ``dependent`` is proportional to the product of these inputs to these powers.
        fixed: inputs that change ``dependent`` in no power law; ``dependent`` is held fixed when they move.
        compute: the rule at a point (declared units), compared with the point's ``dependent``.
    """

    dependent: str
    formula: str
    exponents: tuple[tuple[str, int], ...]
    fixed: tuple[str, ...]
    compute: Callable[[Mapping[str, float]], float]


def _elements_per_thread(v: Mapping[str, float]) -> float:
    """elements per thread of a streaming kernel: bytes in flight per thread over 4 B per element read."""
    return v["inflight_per_thread"] / (4 * (v["operands"] - 1))


#: per kernel model, how the launch computes its grid (as :mod:`symgpu.predict.describe` launches it)
LAUNCH: dict[str, LaunchRule] = {
    "kernel_gemm": LaunchRule(
        "blocks", "ceiling(K_out/tile_m)*ceiling(M/tile_n)*split_k",
        (("M", 1), ("K_out", 1), ("tile_m", -1), ("tile_n", -1), ("split_k", 1)), (),
        lambda v: math.ceil(v["K_out"] / v["tile_m"]) * math.ceil(v["M"] / v["tile_n"]) * v["split_k"]),
    "kernel_row_reduction": LaunchRule(
        "blocks", "ceiling(rows/rows_per_block)", (("rows", 1), ("rows_per_block", -1)), (),
        lambda v: math.ceil(v["rows"] / v["rows_per_block"])),
    "kernel_streaming": LaunchRule(
        "blocks", "ceiling(elements/(threads_per_block*elements per thread))",
        (("elements", 1), ("threads_per_block", -1)), ("operands", "inflight_per_thread"),
        lambda v: math.ceil(v["elements"] / (v["threads_per_block"] * _elements_per_thread(v)))),
}


@dataclass(frozen=True)
class Sensitivity:
    """How ``t_kernel`` responds to one input at the point.

    Attributes:
        name: the input.
        value: its value in ``unit``.
        unit: its declared unit.
        elasticity: d log t / d log x, the answer (NaN at a kink: see ``below``/``above``).
        derivative: d t / d x in ``derivative_unit`` (NaN at a kink).
        derivative_unit: ``us/(unit)``.
        finite_difference: d log t / d log x from a central difference of the same form.
        agrees: whether the symbolic value and the finite difference agree within :data:`AGREE`.
        symbolic: d log t / d log x from the symbolic derivative.
        how: how ``elasticity`` was computed beyond the plain symbolic derivative ("" when plain):
            un-quantized, inputs moved along or held fixed, a kink, the finite difference.
        below: at a kink, the one-sided finite difference below the point (else NaN).
        above: at a kink, the one-sided finite difference above the point (else NaN).
    """

    name: str
    value: float
    unit: str
    elasticity: float
    derivative: float
    derivative_unit: str
    finite_difference: float
    agrees: bool
    symbolic: float = math.nan
    how: str = ""
    below: float = math.nan
    above: float = math.nan


def _t(model: api.Model, expr: sympy.Basic, preset: str, values: Mapping[str, float]) -> float:
    return float(evaluator.evaluate_expression(model, expr, "us", preset=preset, values=values).magnitude)


def sensitivities(model: api.Model, preset: str, values: Mapping[str, float], local: sympy.Expr) -> tuple[Sensitivity, ...]:
    """d log t / d log x for every input of ``t_kernel`` (constants excluded); ``local`` is ``t_kernel`` with
    every ``Min``/``Max`` replaced by its binding branch at the point."""
    full = model.expression("t_kernel")
    t = float(units.magnitude_in(evaluator.evaluate(model, "t_kernel", preset=preset, values=values, checks=False), "us"))
    rule = LAUNCH.get(model.id)
    if rule is not None and not _launch_holds(rule, values):
        rule_held: LaunchRule | None = rule
        rule = None
    else:
        rule_held = None
    out = []
    for symbol in sorted(full.free_symbols, key=lambda s: s.name):
        name = symbol.name
        if name in model.constants:
            continue
        unit = model.unit_text(name)
        x = float(evaluator.evaluate_expression(model, symbol, unit, preset=preset, values=values).magnitude)
        power = dict(rule.exponents).get(name, 0) if rule is not None else 0
        moving = {name} | ({rule.dependent} if rule is not None and power else set())
        notes = []
        if power and rule is not None:
            notes.append(f"{rule.dependent} = {rule.formula} moved along")
        fixed = rule or rule_held
        if fixed is not None and not power and (name in fixed.fixed or name in dict(fixed.exponents)):
            why = "the launch's grid is not " + fixed.formula if rule_held is not None else f"{name} changes it in no power law"
            notes.append(f"{fixed.dependent} held fixed at {values.get(fixed.dependent, math.nan):.6g} ({why})")
        steps = [n for n in full.atoms(sympy.floor, sympy.ceiling) if {s.name for s in n.args[0].free_symbols} & moving]
        if steps:
            notes.append("un-quantized (ceiling/floor dropped): " + ", ".join(sorted({_label(model, n) for n in steps})))
        out.append(_one(model, preset, values, local, full, symbol, x, unit, t, rule if power else None, power, steps,
                        "; ".join(notes)))
    return tuple(out)


def _label(model: api.Model, node: sympy.Basic) -> str:
    """A ``floor``/``ceiling`` by the quantity it defines (``waves``), else as printed."""
    named = [q for q in model.defining if model.expression(q) == node]
    return named[0] if named else printing.sstr(node)


def _launch_holds(rule: LaunchRule, values: Mapping[str, float]) -> bool:
    try:
        return rule.compute(values) == values[rule.dependent]
    except (KeyError, ZeroDivisionError, ValueError, OverflowError):
        return False


def _unquantize(expr: sympy.Basic, moving: set[str]) -> sympy.Basic:
    return expr.replace(lambda n: isinstance(n, (sympy.floor, sympy.ceiling)) and bool({s.name for s in n.args[0].free_symbols} & moving),
                        lambda n: n.args[0])


def _slope(model: api.Model, preset: str, values: Mapping[str, float], expr: sympy.Basic, symbol: sympy.Symbol,
           rule: LaunchRule | None, power: int, unit: str) -> float:
    """dt/dx of ``expr`` at the point, each ``floor``/``ceiling`` left in it held at its value, the launch's
    ``dependent`` moving as the un-quantized power law when ``rule`` is given."""
    held = {node: sympy.Dummy(f"step{i}", positive=True) for i, node in enumerate(expr.atoms(sympy.floor, sympy.ceiling))}
    flat = expr.xreplace(held)
    derivative = sympy.diff(flat, symbol)
    if rule is not None:
        dependent = model.symbols[rule.dependent]
        derivative += power * dependent / symbol * sympy.diff(flat, dependent)
    back = {d: node for node, d in held.items()}
    return float(evaluator.evaluate_expression(model, derivative.xreplace(back), unit, preset=preset, values=values).magnitude)


def _one(model: api.Model, preset: str, values: Mapping[str, float], local: sympy.Expr, full: sympy.Expr, symbol: sympy.Symbol,
         x: float, unit: str, t: float, rule: LaunchRule | None, power: int, steps: list[sympy.Basic], how: str) -> Sensitivity:
    name = symbol.name
    moving = {name} | ({rule.dependent} if rule is not None else set())
    derivative_unit = f"us/({unit})" if unit not in ("1", "") else "us"
    slope = _slope(model, preset, values, _unquantize(local, moving) if steps else local, symbol, rule, power, derivative_unit)

    def quantized(factor: float) -> float:
        moved = {**values, name: x * factor}
        if rule is not None:
            moved[rule.dependent] = values[rule.dependent] * factor ** power
        return float(units.magnitude_in(evaluator.evaluate(model, "t_kernel", preset=preset, values=moved, checks=False), "us"))

    def launched(factor: float) -> float:
        """t with the grid the launch gives at the moved inputs (its own ceilings), where t really steps."""
        moved = {**values, name: x * factor}
        if rule is not None:
            moved[rule.dependent] = rule.compute(moved)
        return float(units.magnitude_in(evaluator.evaluate(model, "t_kernel", preset=preset, values=moved, checks=False), "us"))

    if steps:
        shape = _unquantize(full, moving)

        def at(factor: float) -> float:
            moved = {**values, name: x * factor}
            if rule is not None:
                moved[rule.dependent] = values[rule.dependent] * factor ** power
            return _t(model, shape, preset, moved)
        base = at(1.0)
    else:
        at, base = quantized, t
    symbolic = x * slope / base if base else math.nan
    if steps and abs(base - t) > 1e-9 * abs(t) and abs(symbolic) > AGREE:
        how = f"{how}; relative to the un-quantized t = {base:.6g} us"
    if steps:
        how = _within_step(model, preset, values, local, symbol, (x, t, symbolic), rule, power, derivative_unit, (quantized, launched), how)
    if x == 0:
        return Sensitivity(name, x, unit, symbolic, slope, derivative_unit, 0.0, abs(symbolic) <= AGREE, symbolic, how)
    up, down = _log_t(at, 1 + STEP), _log_t(at, 1 - STEP)
    if not (math.isfinite(up) and math.isfinite(down)):
        note = f"no finite difference: the model has no value at {name} x(1 +- {STEP:g}); the symbolic value unchecked"
        return Sensitivity(name, x, unit, symbolic, slope, derivative_unit, math.nan, False, symbolic, "; ".join(filter(None, (how, note))))
    fd = (up - down) / (math.log1p(STEP) - math.log1p(-STEP))
    if abs(fd - symbolic) <= AGREE:
        return Sensitivity(name, x, unit, symbolic, slope, derivative_unit, fd, True, symbolic, how)
    middle = math.log(base)
    above, below = (up - middle) / math.log1p(STEP), (middle - down) / -math.log1p(-STEP)
    if abs(above - below) > AGREE:
        kink = f"no derivative: a regime switch lies within x(1 +- {STEP:g}); one-sided finite differences"
        return Sensitivity(name, x, unit, math.nan, math.nan, derivative_unit, fd, False, symbolic,
                           "; ".join(filter(None, (how, kink))), below, above)
    note = f"finite difference (the symbolic derivative, {symbolic:+.4f}, disagrees)"
    return Sensitivity(name, x, unit, fd, fd * base / x, derivative_unit, fd, False, symbolic, "; ".join(filter(None, (how, note))))


def _log_t(at: Callable[[float], float], factor: float) -> float:
    """log t at ``x`` times ``factor``; NaN where the model has no value there (a pole: on a T4 a 1024-thread block fills
    the SM's 32 warp slots, so 1024(1 + step) threads leave no block resident)."""
    try:
        value = at(factor)
    except errors.EvaluationError:
        return math.nan
    return math.log(value) if value > 0 and math.isfinite(value) else math.nan


def _within_step(model: api.Model, preset: str, values: Mapping[str, float], local: sympy.Expr, symbol: sympy.Symbol,
                 point: tuple[float, float, float], rule: LaunchRule | None, power: int, derivative_unit: str,
                 times: tuple[Callable[[float], float], Callable[[float], float]], how: str) -> str:
    """``how`` with the elasticity of the quantized time within the step the point is on appended: said where it
    differs from the un-quantized value and a finite difference of the model confirms it (the point is not on a
    riser; one-sided where the model has no value on the other side); where it is 0, how far t stays flat (up to
    the next riser or regime switch); ``point`` is x, the quantized t and the un-quantized elasticity; ``times`` are
    t at x times a factor with the launch's grid moved in proportion (the step's slope) and with the grid the launch
    itself gives there, its own ceilings (where t really steps: how far it stays flat)."""
    x, t, unquantized = point
    quantized, launched = times
    if x == 0 or not t:
        return how
    within = x * _slope(model, preset, values, local, symbol, rule, power, derivative_unit) / t
    up, down = _log_t(quantized, 1 + STEP), _log_t(quantized, 1 - STEP)
    if math.isfinite(up) and math.isfinite(down):
        fd = (up - down) / (math.log1p(STEP) - math.log1p(-STEP))
    else:                                           # the model has no value on one side: that side's difference only
        fd = (up - math.log(t)) / math.log1p(STEP) if math.isfinite(up) else (math.log(t) - down) / -math.log1p(-STEP)
    if not math.isfinite(fd) or abs(within - unquantized) <= AGREE or abs(fd - within) > AGREE:
        return how
    if abs(within) > AGREE:
        return f"{how}; within this step (each ceiling/floor held): {within:+.4f}, checked by finite difference"
    return f"{how}; within this step (each ceiling/floor held): +0.0000, {_flat_until(symbol.name, x, t, launched)}"


#: how far (a factor of x) :func:`_flat_until` looks for the end of a flat step
FLAT_REACH = 2.0 ** 10


def _flat_until(name: str, x: float, t: float, quantized: Callable[[float], float]) -> str:
    """Where t, flat at ``x``, first changes as ``name`` grows: doubling, then bisection on whether the model's t
    (the launch moved along as at the point) still equals ``t``."""
    def same(factor: float) -> bool:
        try:
            return abs(quantized(factor) - t) <= 1e-12 * abs(t)
        except errors.EvaluationError:
            return False
    low, high = 1.0, 2.0
    while same(high):
        low, high = high, high * 2
        if high > FLAT_REACH:
            return f"t flat up to at least {name} = {x * low:.6g}"
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if same(middle) else (low, middle)
    return f"t flat up to {name} = {x * low:.6g}, the next step or regime switch"


def _size(s: Sensitivity) -> float:
    return abs(s.elasticity) if math.isfinite(s.elasticity) else max(abs(s.below), abs(s.above))


def lines(found: tuple[Sensitivity, ...]) -> list[str]:
    """The sensitivities as printed lines, largest first."""
    out = ["  sensitivity d log t / d log x (symbolic | finite difference), dt/dx:"]
    for s in sorted(found, key=lambda s: -_size(s)):
        at = f"at {s.value:.6g} {s.unit}"
        if not math.isfinite(s.elasticity):
            out.append(f"    {s.name:<20} {s.below:+.4f} below | {s.above:+.4f} above   {at}   ({s.how})")
        elif s.agrees:
            note = f"   ({s.how})" if s.how else ""
            out.append(f"    {s.name:<20} {s.elasticity:+.4f} | {s.finite_difference:+.4f}   dt/dx = {s.derivative:.4g} {s.derivative_unit}"
                       f"   {at}{note}")
        else:
            out.append(f"    {s.name:<20} {s.elasticity:+.4f}   dt/dx = {s.derivative:.4g} {s.derivative_unit}   {at}   ({s.how})")
    return out
