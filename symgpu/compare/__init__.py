"""Compare two models: which equations differ, symbolic differences of a shared quantity,
numeric ratios over a sweep, and the prior-models comparison report (Volkov 2016, Ch. 7).

The ratio is always ``B/A`` (second model over first); the report calls
``sweep(volkov_2016, prior, ...)`` so its factors are prior/Volkov, as in Volkov's §7.9.
"""

from __future__ import annotations

import io
import math
import os
import signal
import threading
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pint
import sympy

from symgpu import errors, units
from symgpu.model import loader
from symgpu.model import Model

#: Seconds allowed for one sympy.simplify / solve call before the unsimplified form is kept.
SIMPLIFY_SECONDS = 8.0
#: Differences with more operations than this are shown unsimplified.
MAX_OPS = 300
#: The reference model of the prior-models report.
REFERENCE = "volkov_2016"
#: Quantity compared by the report.
QUANTITY = "arithmetic_throughput"
#: Arithmetic intensities of Volkov's §7.9: 1 .. 512 at powers of sqrt(2).
ALPHAS = tuple(2.0 ** (k / 2) for k in range(19))
#: Fraction of the peak that defines the needed occupancy (Volkov Fig. 7.14: 90%).
NEEDED_FRACTION = 0.9
#: Occupancy step of the needed-occupancy search (warps per SM).
OCCUPANCY_STEP = 0.25
#: A needed-occupancy curve has a cusp when its interior maximum exceeds both ends by this factor.
CUSP_FACTOR = 1.1
#: rcParams and metadata that make SVG output byte-for-byte reproducible.
RC = {"svg.hashsalt": "symgpu", "svg.fonttype": "path", "font.family": "DejaVu Sans", "font.size": 9,
      "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": 100, "savefig.dpi": 100, "path.simplify": False}
METADATA = {"svg": {"Date": None, "Creator": "symgpu"}, "pdf": {"CreationDate": None, "ModDate": None, "Creator": "symgpu"},
            "png": {"Software": "symgpu"}}


# ============================================================================ symbolic helpers
class _Timeout(Exception):
    pass


def _bounded(function: Callable[[], Any], fallback: Any, seconds: float = SIMPLIFY_SECONDS) -> tuple[Any, bool]:
    """Run ``function``; return ``(fallback, False)`` if it takes longer than ``seconds``.

    The limit uses SIGALRM, so it applies only in the main thread (elsewhere it is unlimited).
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return function(), True

    def alarm(signum: int, frame: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return function(), True
    except _Timeout:
        return fallback, False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def normalize(expr: sympy.Basic) -> sympy.Basic:
    """Canonical form for comparing Min/Max expressions: terms added to (and positive factors
    multiplying) a Min/Max are moved inside it, ``1/Max`` of positive arguments becomes ``Min``
    of reciprocals (and vice versa), nested Min/Max are flattened, arguments expanded.

    ``a + Max(b, c)`` -> ``Max(a + b, a + c)``; ``2*Min(x, y)`` -> ``Min(2*x, 2*y)``. With this,
    ``alpha*alu + Max(4 + Max(0, 33 - alpha*alu), 444 - (n - 1)*(alpha*alu + 4))`` and
    ``Max(37, alpha*alu + 4, 440 - (n - 2)*(alpha*alu + 4))`` become the same expression.
    """
    if not isinstance(expr, sympy.Basic) or not expr.args:
        return expr
    if isinstance(expr, (sympy.Min, sympy.Max)):
        args = [normalize(a) for a in expr.args]
        flat: list[sympy.Basic] = []
        for arg in args:
            flat.extend(arg.args if type(arg) is type(expr) else (arg,))
        return type(expr)(*[sympy.expand(a) for a in flat])
    args = [normalize(a) for a in expr.args]
    if isinstance(expr, sympy.Add):
        inside = [a for a in args if isinstance(a, (sympy.Min, sympy.Max))]
        if len(inside) == 1:
            rest = sympy.Add(*[a for a in args if a is not inside[0]])
            return normalize(type(inside[0])(*[rest + a for a in inside[0].args]))
        return sympy.expand(sympy.Add(*args))
    if isinstance(expr, sympy.Pow) and isinstance(args[0], (sympy.Min, sympy.Max)) and args[1] == -1 \
            and all(a.is_positive for a in args[0].args):
        flipped = sympy.Max if isinstance(args[0], sympy.Min) else sympy.Min
        return normalize(flipped(*[1 / a for a in args[0].args]))
    if isinstance(expr, sympy.Mul):
        inside = [a for a in args if isinstance(a, (sympy.Min, sympy.Max))]
        rest = sympy.Mul(*[a for a in args if not isinstance(a, (sympy.Min, sympy.Max))])
        if len(inside) == 1 and rest.is_positive:
            return normalize(type(inside[0])(*[rest * a for a in inside[0].args]))
        return sympy.Mul(*args)
    try:
        return expr.func(*args)
    except (TypeError, ValueError):
        return expr


def limit(expr: sympy.Expr, var: sympy.Symbol, point: Any = sympy.oo) -> sympy.Expr:
    """``sympy.limit``, falling back to replacing each Min/Max by the argument that dominates
    as ``var -> point`` (decided by the limit of the arguments' difference). Expressions with
    Min/Max always take the second route: ``sympy.limit`` mishandles them (it returns oo for
    ``n/Max(L, (n - 1)*(1 - 1/L) + 1)``).

    Raises:
        errors.DerivationError: neither works (e.g. the dominant argument depends on the sign of
            a symbol with no declared sign).
    """
    point = sympy.sympify(point)
    if not expr.has(sympy.Min, sympy.Max):
        try:
            result = sympy.limit(expr, var, point)
            if not result.has(sympy.Limit):
                return result
        except (NotImplementedError, ValueError, TypeError, AttributeError):
            pass

    def pick(e: sympy.Basic) -> sympy.Basic:
        if isinstance(e, (sympy.Min, sympy.Max)):
            args = [pick(a) for a in e.args]
            best = args[0]
            for arg in args[1:]:
                gap = sympy.limit(arg - best, var, point)
                if gap.is_extended_positive is None and gap.is_extended_negative is None and not gap.is_zero:
                    raise errors.DerivationError(f"cannot decide which argument of {e} dominates as {var} -> {point} (gap {gap})")
                if (gap.is_extended_positive is True) == isinstance(e, sympy.Max) and not gap.is_zero:
                    best = arg
            return best
        if e.args and not e.is_Atom:
            return e.func(*[pick(a) for a in e.args])
        return e

    return sympy.simplify(sympy.limit(pick(expr), var, point))


def _unify(models: Sequence[Model], exprs: Sequence[sympy.Basic]) -> list[sympy.Basic]:
    """Replace each model's symbols by one shared symbol per name (assumptions: the union)."""
    shared: dict[str, sympy.Symbol] = {}
    names = sorted({s.name for e in exprs for s in e.free_symbols})
    for name in names:
        flags: set[str] = set()
        for model in models:
            if name in model.symbol_definitions:
                flags |= set(model.symbol_definitions[name].assumptions)
        kw = {"positive": True} if "positive" in flags else ({"nonnegative": True} if "nonnegative" in flags else {"real": True})
        shared[name] = sympy.Symbol(name, **kw)
    return [e.xreplace({s: shared[s.name] for s in e.free_symbols}) for e in exprs]


def _conjuncts(condition: sympy.Basic) -> set[sympy.Basic]:
    return set(condition.args) if isinstance(condition, sympy.And) else {condition}


def reachable(expr: sympy.Piecewise) -> list[tuple[sympy.Basic, sympy.Basic]]:
    """Branches of a Piecewise that can be selected (first match wins): a branch whose
    condition contains all conjuncts of an earlier condition is shadowed and dropped, and so is
    everything after a ``True`` condition."""
    out: list[tuple[sympy.Basic, sympy.Basic]] = []
    for value, condition in expr.args:
        if condition is sympy.false:
            continue
        if any(earlier is sympy.true or _conjuncts(earlier) <= _conjuncts(condition) for _, earlier in out):
            continue
        out.append((value, condition))
    return out


def _simplify(expr: sympy.Basic) -> tuple[sympy.Basic, bool]:
    """Simplify with a time limit; a Piecewise is simplified branch by branch (its conditions
    are kept as written: SymPy's condition simplification is slow and fails on Min/Max)."""

    def run() -> sympy.Basic:
        if isinstance(expr, sympy.Piecewise):
            pieces = [(sympy.simplify(v), c) for v, c in reachable(expr)]
            return sympy.Piecewise(*pieces, evaluate=False) if len(pieces) > 1 else pieces[0][0]
        return sympy.simplify(expr)

    try:
        return _bounded(run, expr)
    except (ValueError, TypeError, NotImplementedError, RecursionError):
        return expr, False


# ============================================================================ equation diff
@dataclass(frozen=True)
class EquationChange:
    """One equation id present in both models with a different definition."""

    id: str
    defines: str
    a: str
    b: str


@dataclass(frozen=True)
class BranchAgreement:
    """One branch of a (piecewise) difference: where it applies, the difference, where it vanishes."""

    condition: sympy.Basic
    difference: sympy.Basic
    agree_when: tuple[str, ...]


@dataclass
class QuantityDiff:
    """Symbolic comparison of a quantity both models define."""

    quantity: str
    a: sympy.Basic
    b: sympy.Basic
    difference: sympy.Basic
    ratio: sympy.Basic
    identical: bool
    branches: list[BranchAgreement] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class ModelDiff:
    """Equations that differ between two models, and optionally a quantity's symbolic diff."""

    a: str
    b: str
    changed: list[EquationChange]
    only_a: list[tuple[str, str]]
    only_b: list[tuple[str, str]]
    same: int
    quantity: QuantityDiff | None = None


def _signature(model: Model, eq_id: str) -> tuple[str, str]:
    eq = model.equations[eq_id]
    text = str(eq.rhs)
    extra = []
    if eq.valid_when:
        extra.append("valid when " + ", ".join(str(c) for c in eq.valid_when))
    if eq.definition.counts:
        extra.append("counts " + ", ".join(eq.definition.counts))
    return eq.definition.defines, text + (f"   [{'; '.join(extra)}]" if extra else "")


def diff(a: Model, b: Model, quantity: str | None = None) -> ModelDiff:
    """Compare two models equation by equation (by id) and, if given, one shared quantity.

    Raises:
        errors.UsageError: ``quantity`` is not defined by both models, or has different
            dimensions in the two.
    """
    changed, same = [], 0
    for eq_id in a.equations:
        if eq_id in b.equations:
            sa, sb = _signature(a, eq_id), _signature(b, eq_id)
            if sa != sb:
                changed.append(EquationChange(eq_id, sa[0] if sa[0] == sb[0] else f"{sa[0]} / {sb[0]}", sa[1], sb[1]))
            else:
                same += 1
    only_a = [(i, a.equations[i].definition.defines) for i in a.equations if i not in b.equations]
    only_b = [(i, b.equations[i].definition.defines) for i in b.equations if i not in a.equations]
    result = ModelDiff(a.id, b.id, changed, only_a, only_b, same)
    if quantity:
        result.quantity = diff_quantity(a, b, quantity)
    return result


def _defines(model: Model, quantity: str) -> None:
    if quantity not in model.defining:
        raise errors.UsageError(f"{model.id} does not define '{quantity}' (quantities: {', '.join(model.quantities)})")


def diff_quantity(a: Model, b: Model, quantity: str) -> QuantityDiff:
    """Expanded expressions of ``quantity`` in both models, their simplified difference and
    ratio, and where they agree (difference = 0 solved where feasible, per piecewise branch)."""
    _defines(a, quantity)
    _defines(b, quantity)
    if a.dimension(quantity) != b.dimension(quantity):
        raise errors.UsageError(
            f"'{quantity}' has dimension {units.format_dimension(a.dimension(quantity))} in {a.id} but "
            f"{units.format_dimension(b.dimension(quantity))} in {b.id}; the two cannot be compared")
    ea, eb = _unify((a, b), (a.expression(quantity), b.expression(quantity)))
    scale = float(units.registry().Quantity(1, a.units[quantity]).to(b.units[quantity]).magnitude)
    if scale != 1:
        ea = ea * sympy.nsimplify(scale)
    notes: list[str] = []
    na, nb = normalize(ea), normalize(eb)
    constants = {n for m in (a, b) for n, d in m.symbol_definitions.items() if d.role == "constant"}
    raw = sympy.piecewise_fold(na - nb)
    if sympy.count_ops(raw) > MAX_OPS:
        difference, ratio = raw, sympy.piecewise_fold(na / nb)
        notes.append(f"the difference has {sympy.count_ops(raw)} operations (> {MAX_OPS}); shown unsimplified")
    else:
        difference, ok = _simplify(raw)
        if not ok:
            notes.append(f"simplify of the difference stopped after {SIMPLIFY_SECONDS:g} s; shown unsimplified")
        ratio, ok = _simplify(sympy.piecewise_fold(na / nb))
        if not ok:
            notes.append(f"simplify of the ratio stopped after {SIMPLIFY_SECONDS:g} s; shown unsimplified")
    identical = difference == 0
    branches: list[BranchAgreement] = []
    if not identical:
        pieces = reachable(difference) if isinstance(difference, sympy.Piecewise) else [(difference, sympy.true)]
        for value, condition in pieces:
            if sympy.count_ops(value) <= MAX_OPS:
                value, _ = _simplify(normalize(value))
            branches.append(BranchAgreement(condition, value, _agreement(value, constants)))
    return QuantityDiff(quantity, ea, eb, difference, ratio, identical, branches, notes)


def _agreement(value: sympy.Basic, constants: AbstractSet[str] = frozenset()) -> tuple[str, ...]:
    """Conditions under which ``value`` (a difference) is zero: 'always', 'never', or roots."""
    if value == 0:
        return ("always",)
    if value.is_zero is False:
        return ("never (the difference cannot vanish under the declared assumptions)",)
    if value.has(sympy.Min, sympy.Max, sympy.Piecewise, sympy.floor, sympy.ceiling):
        return ("not solved (Min/Max/Piecewise in the difference)",)
    out = []
    numerator = sympy.numer(sympy.together(value))
    for sym in [s for s in sorted(value.free_symbols, key=lambda s: s.name) if s.name not in constants][:8]:
        if not numerator.is_polynomial(sym) or sympy.degree(numerator, sym) > 4:
            continue
        roots, ok = _bounded(lambda: sympy.solve(sympy.Eq(numerator, 0), sym), [])
        for root in roots if ok else []:
            if root.is_real is False or root.is_negative and sym.is_nonnegative:
                continue
            out.append(f"{sym} = {sympy.sstr(sympy.simplify(root))}")
    return tuple(out) or ("not solved (no closed-form root found)",)


def format_diff(result: ModelDiff) -> str:
    """Plain-text rendering of :func:`diff`."""
    lines = [f"{result.a} vs {result.b}: {result.same} equations identical, {len(result.changed)} differ, "
             f"{len(result.only_a)} only in {result.a}, {len(result.only_b)} only in {result.b}"]
    for change in result.changed:
        lines += [f"  changed {change.id} ({change.defines}):", f"    {result.a}: {change.a}", f"    {result.b}: {change.b}"]
    for side, items in ((result.a, result.only_a), (result.b, result.only_b)):
        if items:
            lines.append(f"  only in {side}: " + ", ".join(f"{i} ({d})" for i, d in items))
    q = result.quantity
    if q is not None:
        lines += ["", f"quantity {q.quantity}:", f"  {result.a}: {sympy.sstr(q.a)}", f"  {result.b}: {sympy.sstr(q.b)}"]
        if q.identical:
            lines.append("  identical: simplify(A - B) = 0 for all inputs")
        else:
            lines += [f"  A - B = {sympy.sstr(q.difference)}", f"  A / B = {sympy.sstr(q.ratio)}", "  agreement:"]
            for branch in q.branches:
                where = (" elsewhere" if len(q.branches) > 1 else "") if branch.condition is sympy.true else f" where {sympy.sstr(branch.condition)}"
                lines.append(f"    A - B = {sympy.sstr(branch.difference)}{where}: zero when {'; '.join(branch.agree_when)}")
        lines += [f"  note: {n}" for n in q.notes]
    return "\n".join(lines)


def diff_json(result: ModelDiff) -> dict[str, Any]:
    """JSON-ready form of :func:`diff`."""
    out: dict[str, Any] = {
        "model_a": result.a, "model_b": result.b, "identical_equations": result.same,
        "changed": [{"id": c.id, "defines": c.defines, "a": c.a, "b": c.b} for c in result.changed],
        "only_a": [{"id": i, "defines": d} for i, d in result.only_a],
        "only_b": [{"id": i, "defines": d} for i, d in result.only_b],
    }
    q = result.quantity
    if q is not None:
        out["quantity"] = {
            "name": q.quantity, "a": sympy.sstr(q.a), "b": sympy.sstr(q.b), "identical": q.identical,
            "difference": sympy.sstr(q.difference), "ratio": sympy.sstr(q.ratio),
            "branches": [{"condition": sympy.sstr(b.condition), "difference": sympy.sstr(b.difference), "agree_when": list(b.agree_when)} for b in q.branches],
            "notes": q.notes,
        }
    return out


# ============================================================================ numeric sweep
@dataclass
class Sweep:
    """Both models' predictions of a quantity over a grid and their ratio B/A."""

    model_a: str
    model_b: str
    quantity: str
    unit: str
    preset: str | None
    variables: tuple[str, ...]
    axes: tuple[np.ndarray, ...]
    a: np.ndarray
    b: np.ndarray
    ratio: np.ndarray
    invalid_a: int
    invalid_b: int

    def extreme(self, kind: str) -> tuple[float, dict[str, float]] | None:
        """(ratio, coordinates) of the smallest (``"min"``) or largest (``"max"``) finite ratio."""
        finite = np.isfinite(self.ratio)
        if not finite.any():
            return None
        masked = np.where(finite, self.ratio, np.inf if kind == "min" else -np.inf)
        index = np.unravel_index(int(np.argmin(masked) if kind == "min" else np.argmax(masked)), self.ratio.shape)
        grids = np.meshgrid(*self.axes, indexing="ij")
        return float(self.ratio[index]), {v: float(g[index]) for v, g in zip(self.variables, grids)}


def parse_range(text: str) -> tuple[str, np.ndarray]:
    """``"n=1:64"`` (step 1) or ``"alpha=0.5:8:0.5"`` -> (name, inclusive array).

    Raises:
        errors.UsageError: malformed text, non-positive step, or an empty range.
    """
    name, sep, spec = text.partition("=")
    parts = spec.split(":")
    if not sep or not name.strip() or len(parts) not in (2, 3):
        raise errors.UsageError(f"--over {text!r}: expected VAR=START:STOP[:STEP], e.g. --over n=1:64")
    try:
        start, stop = float(parts[0]), float(parts[1])
        step = float(parts[2]) if len(parts) == 3 else 1.0
    except ValueError:
        raise errors.UsageError(f"--over {text!r}: START, STOP and STEP must be numbers") from None
    if not (math.isfinite(start) and math.isfinite(stop) and math.isfinite(step)) or step <= 0:
        raise errors.UsageError(f"--over {text!r}: STEP must be a positive number")
    if stop < start:
        raise errors.UsageError(f"--over {text!r}: STOP is smaller than START")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    if count > 100_000:
        raise errors.UsageError(f"--over {text!r}: {count} points is too many (at most 100000)")
    return name.strip(), start + step * np.arange(count)


def check_preset(models: Sequence[Model], preset: str | None) -> None:
    """Refuse a preset that some of the models do not have.

    Raises:
        errors.UsageError: naming the models lacking it and their presets.
    """
    if preset is None:
        return
    lacking = [m for m in models if preset not in m.presets]
    if lacking:
        having = [m.id for m in models if preset in m.presets]
        shown = "; ".join(f"{m.id} has {', '.join(m.presets) or 'no presets'}" for m in lacking)
        raise errors.UsageError(f"preset '{preset}' exists in {', '.join(having) or 'neither model'} but not in "
                                f"{', '.join(m.id for m in lacking)} ({shown}); choose a preset both models define")


def evaluate_masked(model: Model, quantity: str, preset: str | None, values: Mapping[str, Any]) -> tuple[np.ndarray, int]:
    """Evaluate over arrays; points outside an equation's ``valid_when`` domain become NaN.

    The whole grid is evaluated at once; on a DomainError the grid is split in halves until the
    offending points are isolated (cost grows with the number of domain boundaries, not points).

    Returns:
        (values in the quantity's declared unit, number of points outside the domain)
    """
    arrays = {k: v for k, v in values.items() if np.ndim(getattr(v, "magnitude", v))}
    shape = np.broadcast_shapes(*[np.shape(getattr(v, "magnitude", v)) for v in arrays.values()]) if arrays else ()
    flat = {k: np.broadcast_to(getattr(v, "magnitude", v), shape).ravel() for k, v in arrays.items()}
    unit_of = {k: v.units for k, v in arrays.items() if isinstance(v, pint.Quantity)}
    scalars = {k: v for k, v in values.items() if k not in arrays}
    size = int(np.prod(shape)) if shape else 1
    out = np.full(size, np.nan)
    invalid = 0

    def take(index: np.ndarray) -> dict[str, Any]:
        taken = dict(scalars)
        for k, v in flat.items():
            part = v[index]
            taken[k] = units.registry().Quantity(part, unit_of[k]) if k in unit_of else part
        return taken

    def run(index: np.ndarray) -> None:
        nonlocal invalid
        try:
            result = model.evaluate(quantity, preset=preset, **take(index))
            out[index] = np.broadcast_to(np.asarray(result.magnitude, dtype=float), index.shape)
        except errors.DomainError:
            if index.size == 1:
                invalid += 1
                return
            half = index.size // 2
            run(index[:half])
            run(index[half:])

    run(np.arange(size))
    return out.reshape(shape) if shape else out, invalid


def sweep(a: Model, b: Model, quantity: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None,
          over: Sequence[tuple[str, np.ndarray]] = ()) -> Sweep:
    """Evaluate ``quantity`` of both models over the grid spanned by ``over`` and form B/A.

    ``values`` are fixed inputs (numbers in the declared unit, quantities or quantity strings);
    each is passed to the models that declare it. Sweep values are numbers in the declared unit
    of the first model declaring the variable.

    Raises:
        errors.UsageError: unknown quantity, preset missing in one model, sweep or value names
            declared by neither model, different dimensions.
    """
    _defines(a, quantity)
    _defines(b, quantity)
    if a.dimension(quantity) != b.dimension(quantity):
        raise errors.UsageError(f"'{quantity}' has different dimensions in {a.id} and {b.id}")
    check_preset((a, b), preset)
    values = dict(values or {})
    names = [v for v, _ in over]
    if len(set(names)) != len(names):
        raise errors.UsageError("each --over variable may be given once")
    for name in list(values) + names:
        if name not in a.symbols and name not in b.symbols:
            raise errors.UsageError(f"neither {a.id} nor {b.id} declares '{name}'")
    grids = np.meshgrid(*[g for _, g in over], indexing="ij") if over else []
    results = []
    for model in (a, b):
        given: dict[str, Any] = {k: v for k, v in values.items() if k in model.symbols}
        for (name, _), grid in zip(over, grids):
            if name in model.symbols:
                owner = a if name in a.symbols else b
                given[name] = units.registry().Quantity(grid, owner.units[name])
        out, invalid = evaluate_masked(model, quantity, preset, given)
        if np.ndim(out) == 0 and grids:
            out = np.full(grids[0].shape, float(out))
        results.append((out, invalid))
    (va, ia), (vb, ib) = results
    scale = float(units.registry().Quantity(1, b.units[quantity]).to(a.units[quantity]).magnitude)
    vb = vb * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(va != 0, vb / va, np.nan)
    return Sweep(a.id, b.id, quantity, a.unit_text(quantity), preset, tuple(names), tuple(g for _, g in over),
                 np.asarray(va, dtype=float), np.asarray(vb, dtype=float), np.asarray(ratio, dtype=float), ia, ib)


def sweep_json(result: Sweep) -> dict[str, Any]:
    """JSON-ready form of a :class:`Sweep` (NaN -> null)."""
    from symgpu.cli import json_number

    def extreme(kind: str) -> Any:
        found = result.extreme(kind)
        return None if found is None else {"ratio": found[0], "at": found[1]}

    return {
        "model_a": result.model_a, "model_b": result.model_b, "quantity": result.quantity, "unit": result.unit,
        "preset": result.preset, "ratio_is": "B/A",
        "over": {v: json_number(g) for v, g in zip(result.variables, result.axes)},
        "a": json_number(result.a), "b": json_number(result.b), "ratio": json_number(result.ratio),
        "min": extreme("min"), "max": extreme("max"),
        "outside_domain": {result.model_a: result.invalid_a, result.model_b: result.invalid_b},
    }


def format_sweep(result: Sweep) -> str:
    """Plain-text summary of a sweep."""
    lines = [f"{result.quantity} [{result.unit}]: ratio {result.model_b}/{result.model_a}"
             + (f", preset {result.preset}" if result.preset else "")
             + "".join(f", {v} = {g[0]:g}..{g[-1]:g} ({g.size} points)" for v, g in zip(result.variables, result.axes))]
    for kind in ("min", "max"):
        found = result.extreme(kind)
        if found is None:
            lines.append(f"  {kind}: no finite ratio")
        else:
            at = ", ".join(f"{k} = {v:g}" for k, v in found[1].items())
            lines.append(f"  {kind} ratio {found[0]:.6g}" + (f" at {at}" if at else ""))
    for model_id, count in ((result.model_a, result.invalid_a), (result.model_b, result.invalid_b)):
        if count:
            lines.append(f"  {model_id}: {count} points outside the model's domain (valid_when), left out")
    return "\n".join(lines)


# ============================================================================ plots
def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, kind: str) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format=kind, metadata=METADATA.get(kind, {}), bbox_inches="tight")
    return buffer.getvalue()


def plot_sweep(result: Sweep, kind: str = "svg") -> bytes:
    """One sweep variable: both predictions and their ratio; two: a heat map of the ratio.

    Raises:
        errors.UsageError: no sweep variable, or more than two.
    """
    if len(result.variables) not in (1, 2):
        raise errors.UsageError("--plot needs one or two --over variables")
    plt = _pyplot()
    with plt.rc_context(RC):
        if len(result.variables) == 1:
            x = result.axes[0]
            fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 6.0), sharex=True)
            top.plot(x, result.a, label=result.model_a, color="0.55", linewidth=2.5)
            top.plot(x, result.b, label=result.model_b, color="black", linewidth=1.0)
            top.set_ylabel(f"{result.quantity} [{result.unit}]")
            top.legend(loc="best")
            bottom.plot(x, result.ratio, color="black")
            bottom.axhline(1.0, color="0.6", linewidth=0.8)
            bottom.set_ylabel(f"ratio {result.model_b}/{result.model_a}")
            bottom.set_xlabel(result.variables[0])
        else:
            fig, ax = plt.subplots(figsize=(6.4, 4.8))
            x, y = result.axes
            mesh = ax.pcolormesh(y, x, result.ratio, shading="nearest", cmap="viridis")
            fig.colorbar(mesh, ax=ax, label=f"{result.model_b}/{result.model_a}")
            ax.set_xlabel(result.variables[1])
            ax.set_ylabel(result.variables[0])
        title = f"{result.quantity}" + (f", preset {result.preset}" if result.preset else "")
        fig.suptitle(title)
        data = _save(fig, kind)
        plt.close(fig)
    return data


# ============================================================================ the prior-models report
@dataclass
class PresetStudy:
    """One prior model on one GPU preset against the reference model."""

    preset: str
    n_max: float
    factor_min: float
    factor_min_at: dict[str, float]
    factor_max: float
    factor_max_at: dict[str, float]
    outside_domain: int
    needed_prior: np.ndarray
    needed_reference: np.ndarray
    needed_formula: np.ndarray
    band_min: np.ndarray
    band_max: np.ndarray
    cusp_prior: str
    cusp_reference: str


@dataclass
class ModelStudy:
    """A prior model's comparison with the reference model on each GPU preset they share."""

    id: str
    title: str
    summary: str
    studies: list[PresetStudy]
    error_plot: str = ""
    needed_plot: str = ""


def prior_models(folder: Path | None = None) -> list[str]:
    """Ids of the bundled ``prior_*`` models, sorted."""
    return [m for m in loader.list_models(folder) if m.startswith("prior_")]


def needed_occupancy(model: Model, preset: str, alphas: Sequence[float], n_top: float, *, quantity: str = QUANTITY,
                     fraction: float = NEEDED_FRACTION, step: float = OCCUPANCY_STEP) -> np.ndarray:
    """Smallest occupancy (on a ``step`` grid up to ``n_top``) at which the model attains
    ``fraction`` of its largest throughput on that range, per alpha (Volkov Fig. 7.14)."""
    n = np.arange(step, n_top + step / 2, step)
    grid_a, grid_n = np.meshgrid(np.asarray(alphas, dtype=float), n, indexing="ij")
    values = {"alpha": grid_a, "n": units.registry().Quantity(grid_n, model.units["n"]) if "n" in model.units else grid_n}
    thru, _ = evaluate_masked(model, quantity, preset, values)
    out = np.full(len(alphas), np.nan)
    for i in range(len(alphas)):
        row = thru[i]
        if not np.isfinite(row).any():
            continue
        peak = np.nanmax(row)
        hit = np.nonzero(np.nan_to_num(row, nan=-np.inf) >= fraction * peak)[0]
        if hit.size:
            out[i] = n[hit[0]]
    return out


def _cusp(curve: np.ndarray, alphas: Sequence[float]) -> str:
    finite = np.isfinite(curve)
    if finite.sum() < 3:
        return "undetermined"
    values = curve[finite]
    where = np.asarray(alphas)[finite]
    peak = int(np.argmax(values))
    ends = max(values[0], values[-1])
    if 0 < peak < values.size - 1 and values[peak] > CUSP_FACTOR * ends:
        return f"cusp: {values[peak]:.4g} warps at alpha = {where[peak]:.3g} (ends {values[0]:.3g}, {values[-1]:.3g})"
    return f"no cusp (largest {values.max():.4g} warps at alpha = {where[int(np.argmax(values))]:.3g}; ends {values[0]:.3g}, {values[-1]:.3g})"


def study_model(reference: Model, prior: Model, *, alphas: Sequence[float] = ALPHAS) -> ModelStudy:
    """Error factors prior/reference of ``arithmetic_throughput`` over alpha and n = 1..n_max,
    and needed-occupancy curves, on every preset both models define."""
    studies = []
    for preset in prior.presets:
        if preset not in reference.presets or "n_max" not in prior.presets[preset]:
            continue
        n_max = float(prior.presets[preset]["n_max"].to(prior.units["n"]).magnitude)
        n = np.arange(1.0, math.floor(n_max) + 1)
        result = sweep(reference, prior, QUANTITY, preset=preset, over=[("alpha", np.asarray(alphas, dtype=float)), ("n", n)])
        low, high = result.extreme("min"), result.extreme("max")
        if low is None or high is None:
            continue
        with np.errstate(all="ignore"):
            band_min = np.array([np.nanmin(r) if np.isfinite(r).any() else np.nan for r in result.ratio])
            band_max = np.array([np.nanmax(r) if np.isfinite(r).any() else np.nan for r in result.ratio])
        n_top = 2 * n_max
        needed_prior = needed_occupancy(prior, preset, alphas, n_top)
        needed_reference = needed_occupancy(reference, preset, alphas, n_top)
        needed_formula = np.asarray(reference.evaluate("n_needed", preset=preset, alpha=np.asarray(alphas, dtype=float)).magnitude, dtype=float)
        studies.append(PresetStudy(preset, n_max, low[0], low[1], high[0], high[1], result.invalid_b,
                                   needed_prior, needed_reference, needed_formula, band_min, band_max,
                                   _cusp(needed_prior, alphas), _cusp(needed_formula, alphas)))
    return ModelStudy(prior.id, prior.title, prior.definition.summary, studies)


def _error_figure(study: ModelStudy, alphas: Sequence[float]) -> bytes:
    plt = _pyplot()
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        for index, s in enumerate(study.studies):
            color = f"C{index}"
            ax.fill_between(alphas, s.band_min, s.band_max, color=color, alpha=0.25, linewidth=0)
            ax.plot(alphas, s.band_max, color=color, linewidth=1.2, label=f"{s.preset}")
            ax.plot(alphas, s.band_min, color=color, linewidth=0.8, linestyle="--")
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("arithmetic intensity alpha")
        ax.set_ylabel(f"{study.id} / {REFERENCE}")
        ax.set_title(f"{study.id}: error factor range over n = 1..n_max")
        ax.legend(loc="best", fontsize=8)
        data = _save(fig, "svg")
        plt.close(fig)
    return data


def _needed_figure(study: ModelStudy, alphas: Sequence[float]) -> bytes:
    plt = _pyplot()
    with plt.rc_context(RC):
        count = len(study.studies)
        fig, axes = plt.subplots(1, count, figsize=(3.2 * count, 3.2), squeeze=False)
        for ax, s in zip(axes[0], study.studies):
            ax.plot(alphas, s.needed_formula, color="0.6", linewidth=2.5, label=f"{REFERENCE} n_needed")
            ax.plot(alphas, s.needed_reference, color="0.3", linewidth=1.0, linestyle=":", label=f"{REFERENCE}, 90% of peak")
            ax.plot(alphas, s.needed_prior, color="black", linewidth=1.2, label=f"{study.id}, 90% of peak")
            ax.axhline(s.n_max, color="0.7", linewidth=0.8, linestyle="--")
            ax.set_xscale("log", base=2)
            ax.set_title(s.preset)
            ax.set_xlabel("alpha")
        axes[0][0].set_ylabel("needed occupancy [warp/SM]")
        axes[0][0].legend(loc="best", fontsize=7)
        fig.suptitle(f"{study.id}: needed occupancy vs Volkov's cusp")
        data = _save(fig, "svg")
        plt.close(fig)
    return data


def comparison_report(models: Sequence[str] | None = None, *, alphas: Sequence[float] = ALPHAS,
                      template: str | os.PathLike[str] | None = None) -> dict[str, bytes]:
    """Render ``prior_models.md`` and its SVG plots (file name -> bytes), deterministically."""
    import symgpu

    reference = symgpu.load(REFERENCE)
    studies = []
    files: dict[str, bytes] = {}
    for model_id in models or prior_models():
        prior = symgpu.load(model_id)
        if QUANTITY not in prior.defining:
            continue
        study = study_model(reference, prior, alphas=alphas)
        if not study.studies:
            continue
        study.error_plot = f"{model_id}_error.svg"
        study.needed_plot = f"{model_id}_needed.svg"
        files[study.error_plot] = _error_figure(study, alphas)
        files[study.needed_plot] = _needed_figure(study, alphas)
        studies.append(study)
    files["prior_models.md"] = _render(studies, reference, alphas, template).encode("utf-8")
    return files


def _render(studies: Sequence[ModelStudy], reference: Model, alphas: Sequence[float], template: Any) -> str:
    import jinja2

    path = Path(template) if template else loader.ROOT / "templates" / "comparison.md.j2"
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(path.parent)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)

    def fmt(value: Any, digits: int = 3) -> str:
        return "n/a" if value is None or (isinstance(value, float) and not math.isfinite(value)) else f"{value:.{digits}g}"

    def at(where: Mapping[str, float]) -> str:
        return ", ".join(f"{k} = {v:.3g}" for k, v in where.items())

    env.filters["num"] = fmt
    env.filters["at"] = at
    return env.get_template(path.name).render(
        studies=studies, reference=reference, quantity=QUANTITY, alphas=list(alphas), fraction=NEEDED_FRACTION,
        step=OCCUPANCY_STEP, cusp_factor=CUSP_FACTOR)


