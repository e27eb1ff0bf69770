"""Report plots drawn with matplotlib (Agg backend), byte-reproducible: planned from a model's
``[[derivations]]``, evaluated from the model's own expressions and preset values.

Three generic kinds, each a function of (model, quantity, variables, scenario):

* ``curve``: a quantity against one variable, with x-marks (an extremum's location, a
  boundary) and y-marks (limits) computed from the derivation requests' ``expect`` text;
* ``asymptotes``: a ``Min``/``Max`` or piecewise quantity against one variable, with each
  limiter (or case) drawn dashed, e.g. throughput vs occupancy with its latency-bound and
  throughput-bound asymptotes;
* ``regime_map``: which limiter / case is active over a log grid of two variables.

NOTE: model files have no plot table yet; :data:`EXTRA_PLOTS` holds the few plots a
derivation request cannot imply (values for inputs no preset supplies are bound to
quantities of the model, never to free numbers, except where the caption says so).
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
import numpy as np  # noqa: E402
import sympy  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from symgpu import errors, units  # noqa: E402
from symgpu.render import Scenario, magnitude, number_text, scale, scenarios, scrub, supplied  # noqa: E402

if TYPE_CHECKING:
    from symgpu.model import Model

#: rcParams that make SVG/PDF output reproducible byte for byte.
RC = {
    "svg.hashsalt": "symgpu",
    "svg.fonttype": "path",
    "pdf.fonttype": 3,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "path.simplify": False,
}
#: File metadata without dates (so regenerated files are identical).
METADATA = {
    "svg": {"Date": None, "Creator": "symgpu"},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": "symgpu", "Producer": "symgpu"},
    "png": {"Software": "symgpu"},
}
#: Grid resolution.
POINTS = 241
GRID = 121
#: Span of an automatic range around its centre (a factor on each side, log scale).
SPAN = 20.0

#: Plots a model's derivation requests do not imply. Each entry: kind, quantity, variables,
#: optional ``preset``/``case`` (the scenario), ``bind`` (symbol -> model quantity or
#: quantity string for inputs no preset supplies) and ``centers`` (variable -> expression).
EXTRA_PLOTS: dict[str, list[dict[str, Any]]] = {
    "interval_analysis": [
        {
            # t(P) with the MXV-LCS interval: L_iota and d_iota are those of kernel K0 on
            # the GTX 1080 (M = N = 16); N_exec only scales t and does not move the knee.
            "kind": "regime_map", "quantity": "t_P", "variables": ("P", "d_iota"),
            "preset": "gtx1080", "case": "mxv_lcs_latency_ns_gtx1080",
            "bind": {"L_iota": "L_K0", "d_iota": "d_K0", "N_exec": "P_K0"},
            "centers": {"P": "P_K0", "d_iota": "d_K0"},
        },
        {
            "kind": "asymptotes", "quantity": "t_P", "variables": ("P",),
            "preset": "gtx1080", "case": "mxv_lcs_latency_ns_gtx1080",
            "bind": {"L_iota": "L_K0", "d_iota": "d_K0", "N_exec": "P_K0"},
            "marks": [{"axis": "x", "label": "P_sat (P_sat_knee)", "expression": "P_sat"}],
        },
    ],
}


@dataclass
class PlotSpec:
    """One plot to draw.

    Attributes:
        id: file-name part, unique per model.
        kind: ``curve``, ``asymptotes`` or ``regime_map``.
        quantity: the plotted quantity.
        variables: x (and y for a regime map).
        scenario: where the other values come from.
        substitute: symbol -> expression text replacing it (e.g. ``M = N`` for square matrices).
        bind: symbol -> model quantity or quantity string, for values the scenario lacks.
        marks: ``{axis: x|y, label, expression}``; expressions are model expression text.
        centers: variable -> expression text giving the middle of its range.
        origin: the derivation requests (or "extra") the plot comes from.
        resolved_marks: marks with their values, filled in by :func:`draw`.
    """

    id: str
    kind: str
    quantity: str
    variables: tuple[str, ...]
    scenario: Scenario | None
    substitute: tuple[tuple[str, str], ...] = ()
    bind: tuple[tuple[str, str], ...] = ()
    marks: tuple[Mapping[str, str], ...] = ()
    centers: tuple[tuple[str, str], ...] = ()
    origin: tuple[str, ...] = ()
    problem: str = ""
    resolved_marks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def title(self) -> str:
        """Plot title."""
        where = f" ({self.scenario.preset})" if self.scenario else ""
        if self.kind == "regime_map":
            return f"Regimes of {self.quantity} over ({', '.join(self.variables)}){where}"
        extra = " with its bounds" if self.kind == "asymptotes" else ""
        return f"{self.quantity} vs {self.variables[0]}{extra}{where}"

    def describe(self, stem: str) -> dict[str, Any]:
        """JSON-ready description (file names relative to the report)."""
        return {
            "id": self.id, "kind": self.kind, "title": self.title, "quantity": self.quantity,
            "variables": list(self.variables), "preset": self.scenario.preset if self.scenario else "",
            "scenario": self.scenario.label if self.scenario else "",
            "substitute": dict(self.substitute), "bind": dict(self.bind), "origin": list(self.origin),
            "files": {kind: f"{stem}_{self.id}.{kind}" for kind in ("svg", "pdf")},
            "available": True, "reason": "", "marks": [],
        }


# ============================================================================ planning
def _request_quantity(model: Model, request: Any) -> str:
    name = request.get("quantity") or ""
    if not name and request.get("equation"):
        equation = model.equations.get(request.get("equation"))
        name = equation.definition.defines if equation else ""
    return name if name in model.defining else ""


def _expect_for(request: Any, variable: str) -> str:
    expect = request.get("expect")
    if isinstance(expect, str):
        return expect
    if isinstance(expect, tuple):
        return str(dict(expect).get(variable, ""))
    return ""


def _bounded(model: Model, quantity: str) -> bool:
    equation = model.defining[quantity]
    return isinstance(equation.rhs, (sympy.Min, sympy.Max)) or bool(equation.cases)


def plan(model: Model, presets: Sequence[str] | None = None) -> list[PlotSpec]:
    """The plots of a model's report, from its derivation requests and :data:`EXTRA_PLOTS`.

    * an ``extremum`` request gives a curve of its quantity over its variable, the location
      marked (and ``limit`` requests on the same pair add their values as horizontal lines);
    * ``boundary`` requests on a bounded quantity give, per preset, the quantity over the
      variable with its bounds, boundaries marked;
    * a bounded quantity with boundary requests over two variables gives a regime map.
    """
    chosen = list(presets) if presets else [p.id for p in model.definition.presets]
    specs: list[PlotSpec] = []
    limits: dict[tuple[str, str], list[dict[str, str]]] = {}
    boundaries: dict[tuple[str, str], list[Any]] = {}
    for request in model.definition.derivations:
        quantity, variable = _request_quantity(model, request), request.get("variable") or ""
        if not quantity or variable not in model.symbols:
            continue
        if request.op == "limit" and _expect_for(request, variable):
            limits.setdefault((quantity, variable), []).append(
                {"axis": "y", "label": f"{request.id}: {variable} -> {request.get('to') or request.get('point') or ''}", "expression": _expect_for(request, variable)})
        if request.op == "boundary" and _bounded(model, quantity):
            boundaries.setdefault((quantity, variable), []).append(request)
    for request in model.definition.derivations:
        quantity, variable = _request_quantity(model, request), request.get("variable") or ""
        if request.op != "extremum" or not quantity or variable not in model.symbols:
            continue
        substitute = tuple((k, str(v)) for k, v in (request.get("substitute") or ()))
        marks = [{"axis": "x", "label": f"{request.id}: {variable} = {_expect_for(request, variable)}", "expression": _expect_for(request, variable)}]
        marks += limits.get((quantity, variable), [])
        spec = _spec(model, f"{quantity}_vs_{variable}", "curve", quantity, (variable,), chosen, substitute=substitute,
                     marks=tuple(marks), origin=(request.id,))
        specs.append(spec)
    for (quantity, variable), requests in boundaries.items():
        marks = tuple({"axis": "x", "label": f"{r.id}: {variable} = {_expect_for(r, variable)}", "expression": _expect_for(r, variable)} for r in requests)
        for preset in chosen:
            spec = _spec(model, f"{quantity}_vs_{variable}_{preset}", "asymptotes", quantity, (variable,), [preset],
                         marks=marks, origin=tuple(r.id for r in requests))
            if spec.scenario is not None:
                specs.append(spec)
    by_quantity: dict[str, list[str]] = {}
    for quantity, variable in boundaries:
        by_quantity.setdefault(quantity, []).append(variable)
    for quantity, variables in by_quantity.items():
        if len(variables) >= 2:
            pair = (variables[1], variables[0]) if len(variables) == 2 else tuple(variables[:2])
            origin = tuple(r.id for v in pair for r in boundaries[(quantity, v)])
            marks = tuple({"axis": "x", "variable": v, "label": r.id, "expression": _expect_for(r, v)} for v in pair for r in boundaries[(quantity, v)])
            specs.append(_spec(model, f"regimes_{quantity}_{pair[0]}_{pair[1]}", "regime_map", quantity, pair, chosen, marks=marks, origin=origin))
    for extra in EXTRA_PLOTS.get(model.id, []):
        preset = extra.get("preset")
        if preset and preset not in chosen:
            continue
        name = {"regime_map": "regimes_{q}_{v}", "asymptotes": "{q}_vs_{v}_{p}", "curve": "{q}_vs_{v}"}[extra["kind"]].format(
            q=extra["quantity"], v="_".join(extra["variables"]), p=preset or "")
        specs.append(_spec(model, name, extra["kind"], extra["quantity"], tuple(extra["variables"]), [preset] if preset else chosen,
                           case=extra.get("case", ""), bind=tuple(sorted(extra.get("bind", {}).items())),
                           marks=tuple(extra.get("marks", ())), centers=tuple(sorted(extra.get("centers", {}).items())), origin=("extra",)))
    ids: set[str] = set()
    unique = []
    for spec in specs:
        if spec.id not in ids:
            ids.add(spec.id)
            unique.append(spec)
    return unique


def _spec(model: Model, plot_id: str, kind: str, quantity: str, variables: tuple[str, ...], presets: Sequence[str], *,
          case: str = "", substitute: tuple[tuple[str, str], ...] = (), bind: tuple[tuple[str, str], ...] = (),
          marks: tuple[Mapping[str, str], ...] = (), centers: tuple[tuple[str, str], ...] = (), origin: tuple[str, ...] = ()) -> PlotSpec:
    """A spec with the first scenario (preset order, then case order) that supplies every value."""
    needs = set(model.inputs(quantity)) | _mark_needs(model, marks)
    needs -= set(variables) | {k for k, _ in substitute} | {k for k, _ in bind}
    for name, text in substitute + bind:
        try:
            needs |= {s.name for s in model.parse(text, "plot").free_symbols if s.name not in model.defining} - set(variables)
            needs |= {i for s in model.parse(text, "plot").free_symbols if s.name in model.defining for i in model.inputs(s.name)}
        except errors.SymgpuError:
            pass  # a quantity string, not an expression
    problem = ""
    for preset in presets:
        for scenario in scenarios(model, preset):
            if case and scenario.case != case:
                continue
            missing = needs - supplied(model, scenario)
            if not missing:
                return PlotSpec(plot_id, kind, quantity, variables, scenario, substitute, bind, marks, centers, origin)
            problem = problem or f"no preset supplies {', '.join(sorted(missing))}"
    return PlotSpec(plot_id, kind, quantity, variables, None, substitute, bind, marks, centers, origin, problem or "no preset")


def _mark_needs(model: Model, marks: Sequence[Mapping[str, str]]) -> set[str]:
    out: set[str] = set()
    for mark in marks:
        try:
            expr = model.parse(mark["expression"], "plot mark")
        except errors.SymgpuError:
            continue
        for sym in expr.free_symbols:
            out |= set(model.inputs(sym.name)) if sym.name in model.defining else {sym.name}
    return out


# ============================================================================ evaluation
class _Values:
    """Magnitudes (declared units) of a spec's fixed symbols, the varied ones as arrays."""

    def __init__(self, model: Model, spec: PlotSpec) -> None:
        if spec.scenario is None:
            raise errors.EvaluationError(f"{model.id}: plot {spec.id}: {spec.problem}")
        self.model, self.spec, self.scenario = model, spec, spec.scenario
        self.bound: dict[str, float] = {}
        for name, text in spec.bind:
            if text in model.defining:
                self.bound[name] = magnitude(model, text, self.scenario)
            else:
                self.bound[name] = float(units.quantity(text, model.units[name]).to(model.units[name]).magnitude)
        self.substitute = {model.symbols[k]: model.parse(v, f"plot {spec.id}") for k, v in spec.substitute}
        self._expressions: dict[str, sympy.Expr] = {}

    def expand(self, expr: sympy.Basic) -> sympy.Basic:
        """Replace defined quantities by their expressions (stopping at bound and varied names)."""
        stop = frozenset(self.bound) | frozenset(self.spec.variables)
        for _ in range(64):
            mapping = {s: self._expression(s.name, stop) for s in expr.free_symbols
                       if s.name in self.model.defining and s.name not in stop}
            mapping.update({s: v for s, v in self.substitute.items() if s in expr.free_symbols})
            if not mapping:
                return expr
            expr = expr.xreplace(mapping)
        raise errors.EvaluationError(f"{self.model.id}: plot {self.spec.id}: substitution does not terminate")

    def _expression(self, name: str, stop: frozenset[str]) -> sympy.Expr:
        if name not in self._expressions:
            self._expressions[name] = self.model.expression(name, stop_at=stop)
        return self._expressions[name]

    def _fixed(self, expr: sympy.Basic) -> dict[sympy.Symbol, sympy.Float]:
        """Base-unit values of every symbol of ``expr`` that is not varied."""
        fixed = {}
        for sym in expr.free_symbols:
            if sym.name in self.spec.variables:
                continue
            value = self.bound[sym.name] if sym.name in self.bound else magnitude(self.model, sym.name, self.scenario)
            fixed[sym] = sympy.Float(value * scale(self.model, sym.name), 17)
        return fixed

    def function(self, expr: sympy.Basic, unit_of: str | None = None) -> Any:
        """A NumPy function of the varied variables (declared units, ``spec.variables`` order)
        returning values in the declared unit of ``unit_of`` (base units if ``None``; conditions
        return booleans)."""
        from symgpu import numeric as _numeric

        based = _numeric.base_expression(self.model, self.expand(expr))
        replaced = based.xreplace(self._fixed(based))
        args = [self.model.symbols[v] for v in self.spec.variables]
        compiled = sympy.lambdify(args, replaced, modules="numpy")
        factors = [scale(self.model, v) for v in self.spec.variables]
        boolean = isinstance(replaced, sympy.logic.boolalg.Boolean) and not isinstance(replaced, sympy.Expr)
        out_scale = scale(self.model, unit_of) if unit_of else 1.0

        def run(*arrays: Any) -> Any:
            shape = np.broadcast(*arrays).shape
            with np.errstate(all="ignore"):
                result = compiled(*[np.asarray(a, dtype=float) * f for a, f in zip(arrays, factors)])
            if boolean:
                return np.broadcast_to(np.asarray(result, dtype=bool), shape)
            return np.broadcast_to(np.asarray(result, dtype=float) / out_scale, shape)

        return run

    def scalar(self, text: str, unit_of: str | None = None, varied: Mapping[str, float] | None = None) -> float:
        """Value of a model expression at the scenario, in the declared unit of ``unit_of``.

        Args:
            text: model expression text.
            unit_of: symbol whose declared unit the result is given in (base units if ``None``).
            varied: values (declared units) for plotted variables the expression uses.

        Raises:
            errors.EvaluationError: the expression needs a plotted variable not in ``varied``,
                or is not a finite real number here.
        """
        from symgpu import numeric as _numeric

        varied = dict(varied or {})
        based = _numeric.base_expression(self.model, self.expand(self.model.parse(text, f"plot {self.spec.id} mark")))
        mapping: dict[sympy.Symbol, sympy.Float] = self._fixed(based)
        for sym in based.free_symbols:
            if sym.name in self.spec.variables:
                if sym.name not in varied:
                    raise errors.EvaluationError(f"{text} depends on the plotted variable {sym.name}")
                mapping[sym] = sympy.Float(varied[sym.name] * scale(self.model, sym.name), 17)
        value = based.xreplace(mapping)
        if not (value.is_real and value.is_finite):
            raise errors.EvaluationError(f"{text} is not a finite real number with these values ({value})")
        return float(value) / (scale(self.model, unit_of) if unit_of else 1.0)

    def centers(self) -> dict[str, float]:
        """Middle of each plotted variable's range: an explicit centre, an x-mark for the
        variable (evaluated at the other variables' centres), a bound value, or the scenario's."""
        explicit = dict(self.spec.centers)
        known: dict[str, float] = {}
        for _ in range(len(self.spec.variables)):
            for variable in self.spec.variables:
                if variable in known:
                    continue
                candidates = [explicit[variable]] if variable in explicit else []
                candidates += [m["expression"] for m in self.spec.marks
                               if m["axis"] == "x" and m.get("variable", self.spec.variables[0]) == variable]
                for text in candidates:
                    try:
                        value = self.scalar(text, variable, known)
                    except (errors.SymgpuError, TypeError, ValueError):
                        continue
                    if value > 0:
                        known[variable] = value
                        break
                else:
                    if variable in self.bound:
                        known[variable] = self.bound[variable]
                    else:
                        try:
                            known[variable] = magnitude(self.model, variable, self.scenario)
                        except errors.SymgpuError:
                            pass
        missing = [v for v in self.spec.variables if v not in known]
        if missing:
            raise errors.EvaluationError(
                f"{self.model.id}: plot {self.spec.id}: no value of {missing[0]} to centre its range on "
                f"({self.scenario.label} gives none, and no derivation of the file places it)")
        return known


def _branches(model: Model, quantity: str) -> list[tuple[str, sympy.Basic, sympy.Basic]]:
    """(name, value expression, condition) of each bound or case of a bounded quantity."""
    equation = model.defining[quantity]
    if equation.cases:
        return [(c.id, c.value, c.condition) for c in equation.cases]
    names = {sympy.srepr(t): n for n, t in equation.limiters}
    named = [t for _, t in equation.limiters]
    rest = sorted((a for a in equation.rhs.args if a not in named), key=sympy.default_sort_key)
    return [(names.get(sympy.srepr(t), f"argument {i + 1}"), t, sympy.true) for i, t in enumerate(named + rest)]


def _label(model: Model, name: str) -> str:
    unit = model.unit_text(name)
    return f"{name} [{unit}]" if unit not in ("1", "") else name


def _axis_range(center: float) -> np.ndarray:
    if not center > 0 or not math.isfinite(center):
        raise errors.EvaluationError(f"cannot centre a log range on {center!r}")
    return np.logspace(math.log10(center / SPAN), math.log10(center * SPAN), POINTS)


def _resolve_marks(values: _Values, spec: PlotSpec) -> list[dict[str, Any]]:
    out = []
    for mark in spec.marks:
        entry = {"axis": mark["axis"], "label": mark["label"], "expression": mark["expression"], "value": None, "value_text": "", "reason": ""}
        try:
            unit_of = spec.variables[0] if mark["axis"] == "x" else spec.quantity
            entry["value"] = float(f"{values.scalar(mark['expression'], unit_of):.12g}")
            entry["value_text"] = number_text(entry["value"])
        except (errors.SymgpuError, TypeError, ValueError, KeyError) as exc:
            entry["reason"] = scrub(str(exc))
        out.append(entry)
    return out


# ============================================================================ drawing
def curve(model: Model, spec: PlotSpec, ax: Any, values: _Values, marks: list[dict[str, Any]], *, bounds: bool) -> None:
    """Draw ``spec.quantity`` over ``spec.variables[0]``; with ``bounds``, each limiter dashed."""
    variable = spec.variables[0]
    center = values.centers()[variable]
    if bounds:
        # NOTE: bounds plots are linear (throughput vs occupancy reads as a straight latency
        # bound meeting a flat throughput bound); the y range is set by the knee's value.
        x = np.linspace(center / 50, 3 * center, POINTS)
    else:
        x = _axis_range(center)
    y = values.function(model.symbols[spec.quantity], spec.quantity)(x)
    ax.plot(x, y, color="black", linewidth=1.8, label=spec.quantity, zorder=3)
    finite = y[np.isfinite(y)]
    if bounds:
        for index, (name, term, _) in enumerate(_branches(model, spec.quantity)):
            yb = values.function(term, spec.quantity)(x)
            ax.plot(x, yb, linestyle="--", linewidth=1.0, color=f"C{index}", label=f"{name}: {sympy.sstr(term)}")
    for index, mark in enumerate(marks):
        if mark["value"] is None:
            continue
        style = {"color": f"C{(index + 3) % 10}", "linestyle": ":", "linewidth": 1.2}
        text = f"{mark['label']} ({number_text(mark['value'], 4)})"
        if mark["axis"] == "x":
            ax.axvline(mark["value"], label=text, **style)
        else:
            ax.axhline(mark["value"], label=text, **style)
    if bounds:
        at_knee = float(values.function(model.symbols[spec.quantity], spec.quantity)(np.asarray([center]))[0])
        top = 2.5 * at_knee if math.isfinite(at_knee) and at_knee > 0 else (finite.max() if finite.size else 1.0)
        ax.set_xlim(0, x[-1])
        ax.set_ylim(0, top)
    else:
        ax.set_xscale("log")
        if finite.size and finite.min() > 0 and finite.max() / finite.min() > 50:
            ax.set_yscale("log")
        if finite.size:
            low, high = finite.min(), finite.max()
            if ax.get_yscale() == "log":
                ax.set_ylim(low / 2, high * 2)
            else:
                pad = 0.08 * (high - low or abs(high) or 1)
                ax.set_ylim(low - pad, high + pad)
    ax.set_xlabel(_label(model, variable))
    ax.set_ylabel(_label(model, spec.quantity))
    ax.legend(loc="best", fontsize=7, framealpha=0.85)


def regime_map(model: Model, spec: PlotSpec, ax: Any, values: _Values, marks: list[dict[str, Any]]) -> dict[str, Any]:
    """Colour a log grid of ``spec.variables`` by the active limiter / case of ``spec.quantity``.

    Returns:
        Which regimes occur, with their share of the grid.
    """
    xname, yname = spec.variables
    centers = values.centers()
    x = _axis_range(centers[xname])[:: max(1, POINTS // GRID)]
    y = _axis_range(centers[yname])[:: max(1, POINTS // GRID)]
    X, Y = np.meshgrid(x, y)
    branches = _branches(model, spec.quantity)
    equation = model.defining[spec.quantity]
    if equation.cases:
        active = np.full(X.shape, -1)
        for index, (_, _, condition) in enumerate(branches):
            holds = np.ones(X.shape, dtype=bool) if condition is sympy.true else values.function(condition)(X, Y).astype(bool)
            active = np.where((active < 0) & holds, index, active)
    else:
        stack = np.stack([values.function(term, spec.quantity)(X, Y) for _, term, _ in branches])
        stack = np.where(np.isfinite(stack), stack, np.inf if isinstance(equation.rhs, sympy.Min) else -np.inf)
        active = np.argmin(stack, axis=0) if isinstance(equation.rhs, sympy.Min) else np.argmax(stack, axis=0)
    colors = [f"C{i}" for i in range(len(branches))]
    # NOTE: filled contours of the regime index (a few polygons) rather than a quad mesh:
    # SVG stays small and fast to write, and boundaries are drawn as lines.
    levels = np.arange(len(branches) + 1) - 0.5
    ax.contourf(X, Y, np.ma.masked_less(active, 0), levels=levels, cmap=ListedColormap(colors))
    if len(set(np.unique(active)) - {-1}) > 1:
        ax.contour(X, Y, active, levels=levels[1:-1], colors="black", linewidths=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(_label(model, xname))
    ax.set_ylabel(_label(model, yname))
    present = sorted(set(int(v) for v in np.unique(active) if v >= 0))
    ax.legend(handles=[Patch(color=colors[i], label=f"{branches[i][0]}: {sympy.sstr(branches[i][1])}") for i in present], loc="upper right", fontsize=7, framealpha=0.85)
    return {branches[i][0]: round(float(np.mean(active == i)), 4) for i in present}


def draw(model: Model, spec: PlotSpec, kinds: Sequence[str]) -> dict[str, bytes]:
    """Draw one plot and return its files (``svg``/``pdf``/``png`` -> bytes), nothing written.

    Raises:
        errors.EvaluationError: the scenario lacks a value or the range cannot be built.
    """
    values = _Values(model, spec)
    marks = _resolve_marks(values, spec) if spec.kind != "regime_map" else []
    spec.resolved_marks = marks
    out: dict[str, bytes] = {}
    with matplotlib.rc_context(RC):
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        try:
            if spec.kind == "regime_map":
                shares = regime_map(model, spec, ax, values, marks)
                spec.resolved_marks = marks + [{"axis": "map", "label": name, "expression": "", "value": share, "value_text": f"{100 * share:.1f} %", "reason": ""} for name, share in sorted(shares.items())]
            else:
                curve(model, spec, ax, values, marks, bounds=spec.kind == "asymptotes")
            ax.set_title(spec.title, fontsize=9)
            notes = [f"{k} = {v}" for k, v in spec.substitute] + [f"{k} := {v}" for k, v in spec.bind]
            if notes:
                fig.text(0.01, 0.01, "; ".join(notes), fontsize=6, color="0.35")
            fig.tight_layout()
            for kind in sorted(set(kinds)):
                buffer = io.BytesIO()
                fig.savefig(buffer, format=kind, metadata=METADATA[kind])
                out[kind] = buffer.getvalue()
        finally:
            plt.close(fig)
    return out
