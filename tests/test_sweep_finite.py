"""The proof that a sweep's output can never be NaN (symgpu.sweep.finite) holds at brute-force
points, refuses what can be NaN, and the regime column decided without the NaN scan where it
holds is still evaluate.active's rule, point by point, ties included."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from symgpu.evaluate import active
from symgpu.sweep import build_plan, sweep
from symgpu.sweep.finite import Span, never_nan
from symgpu.sweep.regimes import RegimeSpec, decide

X, Y, Z = sympy.symbols("x y z", real=True)
RANGES = {"x": (0.0, 3.0), "y": (-2.0, 2.0), "z": (0.5, 4.0)}


def _random_expression(rng: np.random.Generator, depth: int) -> sympy.Expr:
    if depth == 0 or rng.random() < 0.25:
        return [X, Y, Z, sympy.Integer(int(rng.integers(-3, 4))), sympy.Rational(1, 3)][int(rng.integers(5))]
    a, b = _random_expression(rng, depth - 1), _random_expression(rng, depth - 1)
    op = int(rng.integers(7))
    if op == 0:
        return a + b
    if op == 1:
        return a - b
    if op == 2:
        return a * b
    if op == 3:
        return a / b
    if op == 4:
        return sympy.Min(a, b)
    if op == 5:
        return sympy.Pow(a, sympy.Rational(1, 2))
    return sympy.Pow(a, -2)


def _brute_force(expr: sympy.Expr) -> np.ndarray:
    """``expr`` at every combination of 41 points per symbol (the ends, zero and values between)."""
    axes = [np.unique(np.concatenate([np.linspace(lo, hi, 39), [lo, hi, 0.0 if lo <= 0.0 <= hi else lo]]))
            for lo, hi in RANGES.values()]
    grid = np.meshgrid(*axes, indexing="ij")
    function = sympy.lambdify([X, Y, Z], expr, modules="numpy")
    with np.errstate(all="ignore"):
        return np.broadcast_to(np.asarray(function(*grid), dtype=float), grid[0].shape)


def test_a_proved_expression_is_never_nan_at_brute_force_points() -> None:
    spans = {k: Span(lo, hi) for k, (lo, hi) in RANGES.items()}
    rng = np.random.default_rng(7)
    proved = refused_nan = 0
    for _ in range(400):
        expr = _random_expression(rng, 3)
        if expr.has(sympy.zoo, sympy.nan, sympy.oo, sympy.I):  # a constant SymPy folded already
            continue
        values = _brute_force(expr)
        if never_nan(expr, spans):
            proved += 1
            assert not np.isnan(values).any(), expr
        elif np.isnan(values).any():
            refused_nan += 1
    # the proof is neither vacuous nor refusing everything
    assert proved > 50 and refused_nan > 20


def test_a_divisor_that_can_be_zero_is_not_proved() -> None:
    spans = {"x": Span(0.0, 3.0), "y": Span(1.0, 2.0)}
    # (x - y) / (x - y): 0/0 where x == y
    assert not never_nan(sympy.Mul(X - Y, sympy.Pow(X - Y, -1, evaluate=False), evaluate=False), spans)
    assert never_nan(X / Y, spans) and not never_nan(Y / X, spans)
    assert not never_nan(sympy.sqrt(X - Y), spans)  # a root of a negative
    assert not never_nan(sympy.Symbol("w"), spans)  # a symbol without a span


def test_volkov_plan_proves_the_latency_term_but_not_a_term_that_divides_by_alpha_zero() -> None:
    model = symgpu.load("volkov_2016")
    plan = build_plan(model, ["memory_throughput"], preset="maxwell", grid=["n=1:50", "alpha=0:9"])
    assert plan.regime is not None
    proved = dict(zip(plan.regime.labels, plan.regime.finite))
    # alu_thru/alpha is infinite at alpha = 0: the proof only passes finite values
    assert proved == {"latency_bound": True, "memory_bound": True, "alu_bound": False, "issue_bound": True}
    plan = build_plan(model, ["memory_throughput"], preset="maxwell", grid=["n=1:50", "alpha=1:9"])
    assert plan.regime is not None and all(plan.regime.finite)


def test_volkov_regime_column_is_the_rule_at_every_point() -> None:
    model = symgpu.load("volkov_2016")
    result = sweep(model, "memory_throughput", preset="maxwell", grid=["n=1:700", "alpha=0:499"], chunk_size=4096 * 8)
    values = model.preset("maxwell")
    mem_lat, alu_lat = (values[k].to("cycle").magnitude for k in ("mem_lat", "alu_lat"))
    mem_thru, alu_thru, issue_thru = (values[k].to("winst/cycle/SM").magnitude for k in ("mem_thru", "alu_thru", "issue_thru"))
    n, alpha = np.meshgrid(np.arange(1.0, 701.0), np.arange(0.0, 500.0), indexing="ij")
    with np.errstate(divide="ignore"):
        rows = [n / (alpha * alu_lat + mem_lat), np.full(n.shape, mem_thru), alu_thru / alpha, issue_thru / (alpha + 1.0)]
    want = active.binding_index(rows, "min").reshape(-1)
    assert result.regime is not None
    assert np.array_equal(result.regime, want)
    assert set(np.unique(want)) >= {0, 1, 3}  # the column is not one regime


@pytest.mark.parametrize("kind", ["min", "max"])
def test_regime_with_the_first_row_proved_is_the_rule_at_near_ties(kind: str) -> None:
    rng = np.random.default_rng(3)
    shape = (64, 100)
    low = rng.random((1, 100)) + 1.0
    offsets = np.array([0.0, 3e-13, -3e-13, 1e-12, -1e-12, 2e-12, -2e-12, 1e-6, -1e-6])
    first = np.broadcast_to(low, shape) * (1.0 + rng.choice(offsets, size=shape))
    out = [first, low, np.float64(1.5)]
    spec = RegimeSpec("q", kind, ("a", "b", "c"), (("arg", 0), ("arg", 1), ("arg", 2)), (True, True, True))
    want = active.binding_index(np.broadcast_arrays(*out), kind)
    into = np.full(shape[0] * shape[1], 99, dtype=np.int16)
    assert np.array_equal(decide(spec, out, shape, into), want)
    assert len(np.unique(want)) >= 2
