"""The evaluate path at a certificate's points: what was asked, where it is checked, the
quantity along a scan of the variable, and an answer's numbers there (:mod:`.certify` runs the
checks; :mod:`.certify_solve` is the solve check). Brute force on :mod:`symgpu.evaluate` only."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors
from symgpu.derive import declared_range
from symgpu.derive.derivation import Derivation, as_evaluated
from symgpu.evaluate import active, evaluator, stepwise, ties
from symgpu.memo import memoised

if TYPE_CHECKING:
    from symgpu.model import Model

#: relative residual under which a relation counts as holding (float64 evaluation of a closed form)
RESIDUAL = 1e-6
#: points of the variable's range scanned (geometric, plus a linear patch around each answer)
SCAN = 2400
#: the scan's range in the variable's declared unit (a root outside it is not looked for)
SPAN = (1e-6, 1e12)


@dataclass(frozen=True)
class Asked:
    """What the caller asked, so the answer can be checked against the evaluate path.

    Attributes:
        op: ``solve``, ``boundary``, ``extremum``, ``limit``, ``fixed_point`` or ``regimes``.
        quantity: the quantity asked about.
        variable: the unknown or the variable varied ("" for regimes asked without one).
        preset: the preset to check at (``None``: the model's presets or sampled points).
        values: input values (name -> value) to check at.
        substitute: name -> expression (text, number or SymPy) substituted before deriving.
        assume: the question's extra assumptions (relation texts or SymPy relations).
        target: solve's target (``None``: the quantity's symbol, valued at the point).
        to: a limit's point; direction: ``+``, ``-`` or ``None``.
        skip: why the evaluate path does not answer the question asked ("" when it does).
        relation: solve's relation (``==``, ``>=``, ``>``, ``<=``, ``<``).
        kind: solve of an inequality: ``max`` or ``min`` for its largest or smallest admissible value.
    """

    op: str
    quantity: str
    variable: str
    preset: str | None = None
    values: tuple[tuple[str, Any], ...] = ()
    substitute: tuple[tuple[str, Any], ...] = ()
    assume: tuple[Any, ...] = ()
    target: Any = None
    to: Any = None
    direction: str | None = None
    skip: str = ""
    relation: str = "=="
    kind: str | None = None


@dataclass(frozen=True)
class _Point:
    """One point to check at: a preset and values (the variable itself not among them)."""

    label: str
    preset: str | None
    values: Mapping[str, Any]


#: what to do when an answer asked without a point fails its check there (the closed form is not shown)
AT_A_POINT = ("the closed form does not hold there and is not shown; ask at your point (--preset, --set) for an answer "
              "derived and checked there, or report it with the command line")


def at_a_point(asked: Asked) -> bool:
    """Was the question asked at a point (a preset, or a value other than the variable's)?"""
    return asked.preset is not None or any(k != asked.variable for k, _ in asked.values)


def _fail(model: Model, asked: Asked, point: _Point, what: str) -> errors.CertificateError:
    advice = "the closed form disagrees with evaluate: please report it with the command line" if at_a_point(asked) else AT_A_POINT
    over = f" over {asked.variable}" if asked.variable else ""
    return errors.CertificateError(f"{model.id}: {asked.op} of {asked.quantity}{over} at {point.label}: {what}; {advice}",
                                   finding=f"at {point.label}: {what}")

def assumed(model: Model, assumption: Any) -> sympy.Basic:
    """An extra assumption (``--assume`` text, or a SymPy relation) in the model's inputs: parsed, the
    quantities it names replaced by their equations (so the evaluate path can decide it at a point)."""
    condition = assumption if isinstance(assumption, sympy.Basic) else model.parse(str(assumption), "--assume", boolean=True)
    return condition.xreplace({s: model.expression(s.name) for s in condition.free_symbols if s.name in model.defining})


# ------------------------------------------------------------------------------ the evaluate path
def _with(model: Model, asked: Asked, point: _Point, v: Any) -> dict[str, Any]:
    """The point's values, the variable at ``v`` and the substitutions evaluated there."""
    values = dict(point.values)
    if asked.variable:  # a question without a variable (the regimes of a quantity) is checked at the point
        values[asked.variable] = v
    for name, expr in asked.substitute:
        parsed = model.parse(expr, f"substitute.{name}") if isinstance(expr, str) else expr
        if isinstance(parsed, sympy.Basic) and not parsed.is_number:
            values[name] = evaluator.evaluate_expression(model, parsed, model.units[name], preset=point.preset, values=values).magnitude
        else:
            values[name] = float(parsed) if isinstance(parsed, (sympy.Basic, int, float)) else parsed
    return values


def _quantity(model: Model, asked: Asked, point: _Point, v: Any, *, checks: bool = False, settle: bool = True) -> Any:
    """The quantity through ``model.evaluate`` with the variable at ``v`` (declared unit), one value
    per value of ``v`` (a quantity that a substitution left free of the variable is one number);
    ``checks`` also checks the declared assumptions and domains (sampled points must meet them);
    ``settle=False``: points near a case tie keep their compiled values (:func:`_unsettled` names them)."""
    values = _with(model, asked, point, v)
    found = np.asarray(evaluator.evaluate(model, asked.quantity, preset=point.preset, values=values, checks=checks,
                                          settle=settle).magnitude, dtype=float)
    return np.broadcast_to(found, np.broadcast_shapes(found.shape, np.shape(v)))


def _settles_finite(model: Model, asked: Asked, point: _Point, grid: np.ndarray, index: int) -> bool:
    """Whether the scan's point ``grid[index]`` has a finite value as a scalar call evaluates it: the value the settled
    scan (:func:`_quantity` along ``grid``) gives that point wherever it evaluates it again (a point near a case tie:
    :func:`symgpu.evaluate.evaluator.evaluate` calls itself there with the point's values, which are these: the point's
    own and the variable's, no substitution to compute along the scan), while elsewhere the compiled value stands. So,
    for a point finite on the compiled path and inside the domain, True means the settled scan has a finite value
    inside the domain there, which is what :func:`symgpu.derive.certify._admits` asks, without the near-tie flags of
    the whole scan (:func:`_unsettled`, whose test SymPy builds once per quantity: 0.16 s of Hong & Kim's
    Exec_cycles_app, where no other check reads it). False where that is not shown: no variable (the scan is one
    point), a substitution or an array among the point's values, a value that is not finite, or a refusal; and where
    the quantity has no case or step (``Piecewise``, ``floor``, ``ceiling``), whose flags are found without a test."""
    if not asked.variable or asked.substitute or any(not isinstance(v, (str, int, float)) for v in point.values.values()):
        return False
    try:
        if not model.expression(asked.quantity).has(*stepwise.TIE_SOURCES):  # no case or step: the flags are found at once
            return False
        with np.errstate(all="ignore"):
            value = float(evaluator.evaluate(model, asked.quantity, preset=point.preset, values=_with(model, asked, point, float(grid[index])),
                                             checks=False).magnitude)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return False
    return bool(np.isfinite(value))


def _unsettled(model: Model, asked: Asked, point: _Point, v: np.ndarray) -> np.ndarray | None:
    """Per value of the 1-D ``v``, whether :func:`_quantity` with ``settle=False`` may differ there from
    :func:`_quantity` (a point near a case tie); None where that cannot be told."""
    try:
        found = ties.unsettled_points(model, asked.quantity, preset=point.preset, values=_with(model, asked, point, v))
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return None
    if found is None:
        return None
    marked = np.zeros(v.shape, dtype=bool)
    if found.size and found.max() >= v.size:  # not one value per value of v: the caller settles every point
        return None
    marked[found] = True
    return marked


def _inside(model: Model, asked: Asked, point: _Point, grid: np.ndarray) -> np.ndarray:
    """Which scan points lie inside every ``valid_when`` domain (the model gives no value outside),
    give every substituted symbol its declared sign (``--substitute M=N-20``, ``M`` positive: the
    evaluate path refuses ``M <= 0``) and meet every assumption on the variable (``--assume
    'alpha <= 40'``: the question is asked there only)."""
    try:
        values = _with(model, asked, point, grid)
        inside = evaluator.inside_domain(model, asked.quantity, point.preset, values, len(grid), check=False)
        for name, _ in asked.substitute:
            inside = inside & declared_range.of(model, name).holds(np.broadcast_to(np.asarray(values[name], dtype=float), inside.shape))
    except (errors.SymgpuError, ValueError, TypeError):
        inside = np.ones(len(grid), dtype=bool)
    return inside & _assumed_hold(model, asked, point, np.asarray(grid, dtype=float))


def _assumed_hold(model: Model, asked: Asked, point: _Point, grid: np.ndarray) -> np.ndarray:
    """Per scan point, whether every ``--assume`` relation on the variable holds there (one that cannot be
    read there counts as holding)."""
    held = np.ones(grid.shape, dtype=bool)
    on_var = [c for c in (assumed(model, t) for t in asked.assume) if asked.variable in {s.name for s in c.free_symbols}]
    if not on_var:
        return held
    try:  # every scan point at once
        values = _with(model, asked, point, grid)
        with np.errstate(all="ignore"):
            return held & np.logical_and.reduce([np.broadcast_to(active.condition_mask(model, c, point.preset, values), grid.shape)
                                                 for c in on_var])
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        pass  # point by point, where one that cannot be read counts as holding
    for i, x in enumerate(grid.flat):
        values = _with(model, asked, point, float(x))
        try:
            held.flat[i] = all(active.condition_true(model, c, point.preset, values) for c in on_var)
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
            continue
    return held


def _result_at(model: Model, derivation: Derivation, expr: Any, unit: Any, point: _Point, extra: Mapping[str, Any]) -> float:
    """A result expression's number at the point (kept quantities evaluated there too); the derivation's
    own result or location as :func:`symgpu.derive.derivation.as_evaluated` reads it (a numeric search's
    number is in the declared unit)."""
    if expr is derivation.result or expr is derivation.location:
        expr = as_evaluated(model, derivation, expr, "location" if expr is derivation.location else "result")
    values = evaluator.with_kept(model, expr, point.preset, {**point.values, **extra}, checks=False)
    return float(evaluator.evaluate_expression(model, expr, unit, preset=point.preset, values=values).magnitude)


def _scan_grid(model: Model, variable: str, around: Sequence[float]) -> np.ndarray:
    """Points of the variable's declared range: geometric over :data:`SPAN`, 0 where admitted,
    negatives for a variable with no sign assumption, and a fine patch around each answer; integers
    for a variable declared integer."""
    assumptions = set(model.symbol_definitions[variable].assumptions) if variable in model.symbol_definitions else set()
    grid = np.geomspace(SPAN[0], SPAN[1], SCAN)
    parts = [grid]
    if "positive" not in assumptions and "nonnegative" not in assumptions:
        parts.append(-grid)
    if "positive" not in assumptions:
        parts.append(np.zeros(1))
    for a in around:
        if np.isfinite(a) and a != 0:
            parts.append(np.linspace(a * 0.5, a * 1.5, 201))
    grid = sorted_unique(np.concatenate(parts))
    if "integer" not in assumptions:
        return grid
    # an integer variable has values at integers only (the model refuses others): the scan rounded, inside the declared sign
    grid = sorted_unique(np.round(grid))
    return grid[grid >= (1 if "positive" in assumptions else 0)] if {"positive", "nonnegative"} & assumptions else grid


#: the most case edges of the quantity's case tables an extremum's scan adds (:func:`case_edges`)
MAX_EDGES = 32
#: the most differences of two Min/Max arguments whose meeting points an extremum's scan adds (:func:`meeting_forms`)
MAX_KINKS = 96
#: relative distance of the points beside each case edge, meeting point or domain end (where an open case's value is approached)
BESIDE = 1e-9


def beside(model: Model, asked: Asked, found: Iterable[float]) -> np.ndarray:
    """The finite values of ``found`` (the variable's declared unit), each with a point just beside it on each side, those in the
    variable's declared range kept; empty for an integer variable (its scan holds its whole values only) or one not a symbol."""
    if not _continuous(model, asked):
        return np.empty(0)
    at = np.asarray([x for x in found if np.isfinite(x)], dtype=float)
    at = np.concatenate([at, at * (1 - BESIDE), at * (1 + BESIDE)])
    return at[declared_range.of(model, asked.variable).holds(at)]


def _continuous(model: Model, asked: Asked) -> bool:
    """Is the variable a symbol of the model not declared integer (a scan that can fall between its points)?"""
    definition = model.symbol_definitions.get(asked.variable)
    return definition is not None and "integer" not in definition.assumptions and asked.variable in model.symbols


def _valued(model: Model, asked: Asked, point: _Point, forms: Iterable[sympy.Expr]) -> Iterable[float]:
    """Each of ``forms`` (values of the variable in the other symbols) as a number at the point, in the variable's declared unit;
    one without a real value there left out."""
    for form in forms:
        try:
            yield float(evaluator.evaluate_expression(model, form, model.units[asked.variable], preset=point.preset,
                                                      values=dict(point.values)).magnitude)
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
            continue


def _scanned_expression(model: Model, asked: Asked) -> sympy.Basic | None:
    """The quantity's expression where its scan over a continuous variable gets extra points, else None."""
    if not _continuous(model, asked):
        return None
    try:
        return model.expression(asked.quantity)
    except errors.SymgpuError:
        return None


def case_edges(model: Model, asked: Asked, point: _Point) -> np.ndarray:
    """Each edge of a case condition of the quantity's case tables linear in the variable (``x <= 2.0005``) at the point, in the
    variable's declared unit, with a point just beside it on each side (:func:`beside`): a narrow case that the scan's grid steps
    over (a tent 0.001 us wide) is evaluated where it peaks; an outside tester's finding (round 13, F4), where an extremum at an end
    passed the scan though a case edge beat it. The meeting points of Min/Max arguments are :func:`meeting_points`'."""
    expr = _scanned_expression(model, asked)
    if expr is None:
        return np.empty(0)
    var = model.symbols[asked.variable]
    edges: list[sympy.Expr] = []
    for h in (sympy.expand(r.lhs - r.rhs) for piece in expr.atoms(sympy.Piecewise) for _, c in piece.args
              for r in c.atoms(sympy.core.relational.Relational)):
        slope = h.coeff(var) if var in h.free_symbols and h.is_polynomial(var) and sympy.degree(h, var) == 1 else None
        if slope is not None and var not in slope.free_symbols and (edge := -(h - slope * var) / slope) not in edges:
            edges.append(edge)
    return beside(model, asked, _valued(model, asked, point, edges[:MAX_EDGES]))


def meeting_points(model: Model, asked: Asked, point: _Point) -> np.ndarray:
    """Each point where two arguments of a Min/Max of the quantity meet (:func:`meeting_forms`: nested ones too, an inner Min/Max read
    as each of its arguments, linear or quadratic in the variable) at the point, in the variable's declared unit, with a point just
    beside it on each side (:func:`beside`): a cusp of that Min/Max whatever the enclosing one does there, so a narrow peak of
    ``Max(0, 1000*Min(x - 2, 2.0005 - x))``, 0.0005 wide, between the scan's points is evaluated where it peaks (an outside tester's
    finding, round 13c F11). The one source of these points for every extremum scan (at a preset and at a point of a region)."""
    expr = _scanned_expression(model, asked)
    if expr is None:
        return np.empty(0)
    return beside(model, asked, _valued(model, asked, point, meeting_forms(expr, model.symbols[asked.variable])))


@memoised("derive.certify_path.meeting_forms", 256)
def meeting_forms(expr: sympy.Expr, var: sympy.Symbol) -> tuple[sympy.Expr, ...]:
    """Where two arguments of a Min/Max of ``expr`` (any one, at any depth) meet, as expressions in the other symbols: the real
    roots of the numerator of their difference, degree 1 or 2 in ``var`` (an inner Min/Max read as each of its arguments in turn);
    the nodes in SymPy's sort order, each node's pairs in turn, at most :data:`MAX_KINKS` differences solved."""
    found: list[sympy.Expr] = []
    tried = 0
    for node in sorted(expr.atoms(sympy.Min, sympy.Max), key=sympy.default_sort_key):
        for a, b in itertools.combinations(node.args, 2):
            for da in _readings(a):
                for db in _readings(b):
                    tried += 1
                    if tried > MAX_KINKS:
                        return tuple(found)
                    for root in _roots(da - db, var):
                        if root not in found:
                            found.append(root)
    return tuple(found)


def _readings(expr: sympy.Expr, limit: int = 4) -> list[sympy.Expr]:
    """``expr`` with each inner Min/Max replaced by one of its arguments (at most ``limit`` readings)."""
    inner = sorted(expr.atoms(sympy.Min, sympy.Max), key=sympy.count_ops)
    if not inner:
        return [expr]
    node = inner[0]
    out: list[sympy.Expr] = []
    for arg in node.args:
        out.extend(_readings(expr.xreplace({node: arg}), limit))
        if len(out) >= limit:
            break
    return out[:limit]


def _roots(difference: sympy.Expr, var: sympy.Symbol) -> list[sympy.Expr]:
    """The roots of ``difference``'s numerator in ``var`` where it is a polynomial of degree 1 or 2 in it (the quadratic's two by
    the formula, real or not: a complex one has no value at the point)."""
    if var not in difference.free_symbols or difference.has(sympy.Min, sympy.Max, sympy.Piecewise):
        return []
    numerator = sympy.numer(sympy.together(difference))
    try:
        poly = sympy.Poly(numerator, var)
    except sympy.PolynomialError:
        return []
    if poly.degree() == 1:
        c1, c0 = poly.all_coeffs()
        return [-c0 / c1]
    if poly.degree() == 2:
        c2, c1, c0 = poly.all_coeffs()
        disc = sympy.sqrt(c1 ** 2 - 4 * c2 * c0)
        return [(-c1 + disc) / (2 * c2), (-c1 - disc) / (2 * c2)]
    return []


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` of a 1-D array without NaN: the same sort and the same comparison of
    neighbours, without the ``np.ma`` check inside ``np.unique`` (its first use imports ``numpy.ma``,
    8 ms of every checked solve)."""
    ordered = np.sort(values)
    keep = np.empty(ordered.shape, dtype=bool)
    keep[:1] = True
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def _close(a: float, b: float, tol: float = 1e-5) -> bool:
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-12)

def kept_valued(model: Model, asked: Asked, point: _Point, values: Mapping[str, Any], exprs: Iterable[Any]) -> dict[str, Any]:
    """``values`` with the quantities ``exprs`` (roots, their conditions) keep as symbols (a --target
    naming one, ``n_cusp_alu``) valued at the point from their equations, where they can be
    (the certificate's scan: checks off)."""
    return evaluator.with_kept(model, sympy.Tuple(*[x for x in exprs if isinstance(x, sympy.Basic)]), point.preset, values,
                               free_of=asked.variable or None, checks=False, where_valued=True)


def _admissible(model: Model, asked: Asked, point: _Point, location: float) -> bool:
    """Whether ``location`` meets the variable's declared sign and every ``valid_when`` domain at the point."""
    if declared_range.of(model, asked.variable).failing(np.asarray([location])):
        return False
    return bool(_inside(model, asked, point, np.asarray([location]))[0])


def _roots_at(model: Model, derivation: Derivation, asked: Asked, point: _Point, extra: Mapping[str, Any]) -> list[float]:
    """The answer's roots at the point: those whose regime conditions hold there, finite and real."""
    result = derivation.result
    unit = model.units[asked.variable]
    listed = derivation.extra.roots
    candidates: list[tuple[Any, Any]] = []
    if listed:
        candidates = [(r.root, r.when) for r in listed]
    elif isinstance(result, dict):
        candidates = [(r, None) for item in result.values() for r in (item.args if isinstance(item, sympy.Tuple) else (item,))]
    elif isinstance(result, sympy.Tuple):
        candidates = [(r, None) for r in result]
    else:
        candidates = [(result, None)]
    found = []
    values = {**point.values, **extra}
    values = kept_valued(model, asked, point, values, [x for pair in candidates for x in pair])
    for root, when in candidates:
        if isinstance(when, sympy.Basic) and when is not sympy.true:
            try:
                if not active.condition_true(model, when, point.preset, values):
                    continue
            except errors.SymgpuError:
                pass
        number = _result_at(model, derivation, root, unit, point, extra)
        if np.isfinite(number) and _assumed_hold(model, asked, point, np.asarray([number]))[0]:  # --assume on the variable: its roots only
            found.append(number)
    return found


def _exact_at(model: Model, asked: Asked, point: _Point, x: float) -> complex | None:
    """The quantity at ``x`` in exact arithmetic (the evaluate path's exact mode, 30 digits), for values
    whose IEEE digits cancellation ate (Volkov's latency root); None where exact evaluation gives none."""
    # a value given with its unit (``--set n=8`` from the command line) stays a quantity: the exact mode
    # converts it to the declared unit, as the IEEE path does
    try:
        return complex(_exact_expr(model, asked, point, x).evalf(30))
    except (errors.SymgpuError, TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return None


def _exact_gap(model: Model, asked: Asked, point: _Point, x: float, target: float) -> float | None:
    """The quantity at ``x`` minus ``target`` (read as its shortest decimal), both exact and the
    difference taken to 30 digits before rounding it to a float: where the quantity is flat to
    below the IEEE digits of its value (:func:`_exact_at` rounds that to one double), its sign."""
    try:
        gap = complex((_exact_expr(model, asked, point, x) - sympy.Rational(repr(float(target)))).evalf(30))
    except (errors.SymgpuError, TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return None
    return gap.real if gap.imag == 0 else None


def _exact_expr(model: Model, asked: Asked, point: _Point, x: float) -> Any:
    values = {k: v if hasattr(v, "units") else float(v) for k, v in _with(model, asked, point, x).items()
              if k != asked.quantity and np.ndim(v) == 0}
    return evaluator.exact(model, asked.quantity, preset=point.preset, values=values)


def _to_number(model: Model, asked: Asked, point: _Point) -> float:
    to = asked.to
    text = str(to).strip()
    if text in ("oo", "+oo", "inf", "infinity"):
        return float("inf")
    if text in ("-oo", "-inf"):
        return float("-inf")
    parsed = to if isinstance(to, sympy.Basic) else model.parse(text, "--to")
    if parsed.is_number:
        return float(parsed)
    values = evaluator.with_kept(model, parsed, point.preset, dict(point.values), checks=False)  # a model quantity (n_singular): its value
    return float(evaluator.evaluate_expression(model, parsed, model.units[asked.variable], preset=point.preset, values=values).magnitude)


def stated_hold(model: Model, derivation: Derivation, point: _Point) -> bool:
    """Whether the conditions a single closed form states it holds under (``extra.valid_when``,
    the engine's SymPy relations) hold at the point; True where there are none or they cannot be
    evaluated there (the form is then checked). Each is read on its own: one that fails there is
    enough, though another names an input the point gives no value (``W_max``)."""
    for condition in derivation.extra.valid_when or ():
        try:
            if not active.condition_true(model, condition, point.preset, dict(point.values)):
                return False
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
            continue
    return True
