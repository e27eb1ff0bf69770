"""Report plots drawn with matplotlib (Agg backend), byte-reproducible: planned from a model's
``[[derivations]]`` and ``[[plots]]`` entries, evaluated from the model's own expressions and
preset values.

Three generic kinds, each a function of (model, quantity, variables, scenario):

* ``curve``: a quantity against one variable, with x-marks (an extremum's location, a
  boundary) and y-marks (limits);
* ``asymptotes``: a ``Min``/``Max`` or piecewise quantity against one variable, with each
  limiter (or case) drawn dashed, e.g. throughput vs occupancy with its latency-bound and
  throughput-bound asymptotes;
* ``regime_map``: which limiter / case is active over a log grid of two variables.

Plots implied by derivation requests (:func:`plan`):

* an ``extremum`` request gives a curve of its quantity over its variable, the location
  marked (``limit`` requests on the same pair add horizontal lines);
* ``boundary`` requests on a bounded quantity give, per preset, the quantity over the
  variable with its bounds; two such variables give a regime map.

``[[plots]]`` entries of the model file (checked by :mod:`symgpu.model.plot_requests`; every
problem is an error naming the file and ``plot <id>.<field>``):

``id`` (required)
    letters, digits and underscores; the image files are ``<model>_<id>.svg|pdf``, or
    ``<model>_<id>_<preset>.svg|pdf`` (``+`` written ``_``) when the entry names several presets.
``kind`` (required)
    ``curve``, ``asymptotes`` (the quantity must be piecewise or a top-level Min/Max) or
    ``regime_map`` (likewise).
``quantity`` (required)
    the plotted quantity: a symbol an equation defines.
``variables`` (required)
    list of swept symbols: one for ``curve``/``asymptotes``, two (x, y) for ``regime_map``.
    Quantities downstream of a variable follow it (sweeping ``Active_blocks_per_SM`` moves
    ``N``); a defined quantity may itself be a variable (its equation is then not used).
``x``
    a symbol or quantity drawn on the x axis instead of the variable, computed from it at
    each point (e.g. ``Active_warps_per_SM`` while ``Active_blocks_per_SM`` is swept).
``ranges``
    ``{ var = "start:stop" }`` (evenly spaced points, linear axis) or ``"start:stop:step"``
    (exactly those points, drawn as markers joined by lines), in the variable's declared unit.
    Without a range a variable spans a log range around its centre (``centers``, an x-mark,
    a bound value or the scenario's value), a factor 20 each side.
``presets``
    list of preset ids; a preset may be combined ``"gpu+workload"``. One plot per preset
    (default: the first preset of the file that supplies every value).
``case``
    a validation case whose ``inputs`` join the preset (the scenario).
``inputs``
    ``{ symbol = value }``: quantity strings (a bare number is in the symbol's declared unit)
    for values no preset supplies; the caption should say when they are illustrative.
``bind``
    ``{ input = quantity }``: give an input the value of a quantity of the model (computed
    in the scenario), e.g. ``L_iota = "L_K0"``; dimensions must agree.
``substitute``
    ``{ symbol = "expression" }`` replaced before evaluation (e.g. ``M = "N"``).
``centers``
    ``{ var = "expression" }``: middle of an automatic (log) range.
``series``
    ``{ param = [v1, v2, ...] }``: one curve per value of one other input (at most 10),
    labelled ``param = v``; marks depending on it are drawn once per value.
``marks``
    list of ``{ axis = "x"|"y", label, expression }`` (``variable`` for regime maps): lines
    at the value of a model expression in the scenario (e.g. ``"MSHRs/M_Read"``).
``show_regimes``
    ``true``: colour each point by the active case / limiter of ``regime_of``; the report
    lists the regime of each point of a stepped range.
``regime_of``
    the piecewise or Min/Max quantity whose regime is shown (default: ``quantity``).
``caption``
    text printed with the plot in every report format.
``title``
    replaces the automatic title.
``xscale``, ``yscale``
    ``linear`` or ``log`` (default: linear x with a range, log x without; log y when the
    values span more than a factor 50).

Values for inputs no preset supplies are bound to quantities of the model or given as
explicit ``inputs``, never invented: a caption says when they are illustrative.
"""

from __future__ import annotations

import dataclasses
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
from symgpu.report.render import Scenario, magnitude, number_text, round_sig, scale, scenarios, scrub, supplied  # noqa: E402

if TYPE_CHECKING:
    from symgpu.model import Model
    from symgpu.model.plot_requests import PlotEntry

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
        origin: the derivation requests (or ``plots.<id>``) the plot comes from.
        resolved_marks: marks with their values, filled in by :func:`draw`.
        x: quantity on the x axis computed from the variable ("" = the variable itself).
        ranges: variable -> (start, stop, step or None).
        series: (parameter, values) or ``None``.
        regime_of: quantity whose regime colours the points ("" = no colouring).
        caption, title_text, xscale, yscale: see the module docstring.
        points: per point of a stepped range: series value, x, value, regime (by :func:`draw`).
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
    x: str = ""
    ranges: tuple[tuple[str, tuple[float, float, float | None]], ...] = ()
    series: tuple[str, tuple[str, ...]] | None = None
    regime_of: str = ""
    caption: str = ""
    title_text: str = ""
    xscale: str = ""
    yscale: str = ""
    points: list[dict[str, Any]] = field(default_factory=list)

    @property
    def title(self) -> str:
        """Plot title."""
        where = f" ({self.scenario.preset})" if self.scenario else ""
        if self.title_text:
            return f"{self.title_text}{where}"
        if self.kind == "regime_map":
            return f"Regimes of {self.quantity} over ({', '.join(self.variables)}){where}"
        extra = " with its bounds" if self.kind == "asymptotes" else ""
        return f"{self.quantity} vs {self.x or self.variables[0]}{extra}{where}"

    def describe(self, stem: str) -> dict[str, Any]:
        """JSON-ready description (file names relative to the report)."""
        return {
            "id": self.id, "kind": self.kind, "title": self.title, "quantity": self.quantity,
            "variables": list(self.variables), "preset": self.scenario.preset if self.scenario else "",
            "scenario": self.scenario.label if self.scenario else "",
            "substitute": dict(self.substitute), "bind": dict(self.bind), "origin": list(self.origin),
            "files": {kind: f"{stem}_{self.id}.{kind}" for kind in ("svg", "pdf")},
            "available": True, "reason": "", "marks": [], "caption": self.caption, "x": self.x,
            "series": {"parameter": self.series[0], "values": list(self.series[1])} if self.series else None,
            "regime_of": self.regime_of, "points": [],
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
    """The plots of a model's report, from its derivation requests and its ``[[plots]]`` entries.

    * an ``extremum`` request gives a curve of its quantity over its variable, the location
      marked (and ``limit`` requests on the same pair add their values as horizontal lines);
    * ``boundary`` requests on a bounded quantity give, per preset, the quantity over the
      variable with its bounds, boundaries marked;
    * a bounded quantity with boundary requests over two variables gives a regime map;
    * each ``[[plots]]`` entry gives one plot per preset it names (see the module docstring).

    Raises:
        errors.ModelFileError: a ``[[plots]]`` entry is malformed (names the file and field).
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
        marks: tuple[Mapping[str, str], ...] = (
            {"axis": "x", "label": f"{request.id}: {variable} = {_expect_for(request, variable)}", "expression": _expect_for(request, variable)},
            *limits.get((quantity, variable), []))
        spec = _spec(model, f"{quantity}_vs_{variable}", "curve", quantity, (variable,), chosen, substitute=substitute,
                     marks=marks, origin=(request.id,))
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
    specs += requested(model, chosen)
    ids: set[str] = set()
    unique = []
    for spec in specs:
        if spec.id not in ids:
            ids.add(spec.id)
            unique.append(spec)
    return unique


def requested(model: Model, chosen: Sequence[str]) -> list[PlotSpec]:
    """Specs of the model file's ``[[plots]]`` entries (checked first).

    A plot that names presets is drawn for those of them the report covers (combined presets
    ``a+b`` when every part is covered); without presets, with the first suitable preset.
    """
    from symgpu.model import plot_requests

    out = []
    covered = set(chosen)
    for entry in plot_requests.check(model):
        if entry.presets:
            presets = [p for p in entry.presets if all(part.strip() in covered for part in p.split("+"))]
            if not presets:
                continue
        else:
            presets = []
        extra = dict(x=entry.x, ranges=entry.ranges, series=entry.series, regime_of=entry.regime_of if entry.show_regimes else "",
                     caption=entry.caption, title_text=entry.title, xscale=entry.xscale, yscale=entry.yscale)
        if len(entry.presets) > 1:
            for preset in presets:
                spec = _entry_spec(model, entry, f"{entry.id}_{preset.replace('+', '_')}", [preset])
                out.append(_extend(spec, extra))
        else:
            spec = _entry_spec(model, entry, entry.id, presets or chosen)
            out.append(_extend(spec, extra))
    return out


def _entry_spec(model: Model, entry: PlotEntry, plot_id: str, presets: Sequence[str]) -> PlotSpec:
    """The :func:`_spec` of a ``[[plots]]`` entry for ``presets``."""
    return _spec(model, plot_id, entry.kind, entry.quantity, entry.variables, presets, case=entry.case,
                 substitute=entry.substitute, bind=tuple(entry.bind) + tuple(entry.inputs), marks=entry.marks, centers=entry.centers,
                 origin=(f"plots.{entry.id}",), also=[n for n in (entry.x, entry.regime_of) if n],
                 exclude=[entry.series[0]] if entry.series else [])


def _extend(spec: PlotSpec, extra: Mapping[str, Any]) -> PlotSpec:
    for key, value in extra.items():
        setattr(spec, key, value)
    return spec


def _spec(model: Model, plot_id: str, kind: str, quantity: str, variables: tuple[str, ...], presets: Sequence[str], *,
          case: str = "", substitute: tuple[tuple[str, str], ...] = (), bind: tuple[tuple[str, str], ...] = (),
          marks: tuple[Mapping[str, str], ...] = (), centers: tuple[tuple[str, str], ...] = (), origin: tuple[str, ...] = (),
          also: Sequence[str] = (), exclude: Sequence[str] = ()) -> PlotSpec:
    """A spec with the first scenario (preset order, then case order) that supplies every value
    (of ``quantity``, the marks and the quantities ``also``, except ``exclude``)."""
    needs = set(model.inputs(quantity)) | _mark_needs(model, marks)
    for name in also:
        needs |= set(model.inputs(name)) if name in model.defining else {name}
    needs -= set(variables) | {k for k, _ in substitute} | {k for k, _ in bind} | set(exclude)
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

    def __init__(self, model: Model, spec: PlotSpec, series_value: str | None = None) -> None:
        if spec.scenario is None:
            raise errors.EvaluationError(f"{model.id}: plot {spec.id}: {spec.problem}")
        self.model, self.spec = model, spec
        self.bound: dict[str, float] = {}
        # explicit values (plot inputs, the series value) join the scenario, so quantities
        # bound to inputs and every fixed value see them
        given = [(name, text) for name, text in spec.bind if text not in model.defining]
        if spec.series and series_value is not None:
            given.append((spec.series[0], series_value))
        extra = tuple((name, units.quantity(text, model.units[name]).to(model.units[name])) for name, text in given)
        self.scenario = dataclasses.replace(spec.scenario, inputs=spec.scenario.inputs + extra) if extra else spec.scenario
        for name, quantity in extra:
            self.bound[name] = float(quantity.magnitude)
        for name, text in spec.bind:
            if text in model.defining:
                self.bound[name] = magnitude(model, text, self.scenario)
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
        from symgpu.evaluate import numeric as _numeric

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
        from symgpu.evaluate import numeric as _numeric

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
        entry: dict[str, Any] = {"axis": mark["axis"], "label": mark["label"], "expression": mark["expression"], "value": None, "value_text": "", "reason": ""}
        try:
            unit_of = (spec.x or spec.variables[0]) if mark["axis"] == "x" else spec.quantity
            entry["value"] = float(f"{values.scalar(mark['expression'], unit_of):.12g}")
            entry["value_text"] = number_text(entry["value"])
        except (errors.SymgpuError, TypeError, ValueError, KeyError) as exc:
            entry["reason"] = scrub(str(exc))
        out.append(entry)
    return out


# ============================================================================ drawing
#: Colours and markers of regimes on curves (distinct from the series colours C0, C1, ...).
REGIME_COLORS = ("#d62728", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#7f7f7f")
REGIME_MARKERS = ("o", "s", "^", "D", "v", "P")


def _active(model: Model, quantity: str, values: _Values, branches: list[tuple[str, sympy.Basic, sympy.Basic]], arrays: Sequence[Any]) -> Any:
    """Index of the active case / limiter of ``quantity`` at each point (-1: no case applies)."""
    equation = model.defining[quantity]
    shape = np.broadcast(*arrays).shape
    if equation.cases:
        active = np.full(shape, -1)
        for index, (_, _, condition) in enumerate(branches):
            holds = np.ones(shape, dtype=bool) if condition is sympy.true else values.function(condition)(*arrays).astype(bool)
            active = np.where((active < 0) & holds, index, active)
        return active
    is_min = isinstance(equation.rhs, sympy.Min)
    stack = np.stack([values.function(term, quantity)(*arrays) for _, term, _ in branches])
    stack = np.where(np.isfinite(stack), stack, np.inf if is_min else -np.inf)
    return np.argmin(stack, axis=0) if is_min else np.argmax(stack, axis=0)


def curve(model: Model, spec: PlotSpec, ax: Any, values: _Values, *, bounds: bool) -> list[dict[str, Any]]:
    """Draw ``spec.quantity`` over ``spec.variables[0]`` (one curve per series value); with
    ``bounds``, each limiter dashed; with ``spec.regime_of``, points coloured by regime.

    Returns:
        The resolved marks (each series value's marks labelled with it).
    """
    from matplotlib.lines import Line2D

    variable = spec.variables[0]
    ranged = dict(spec.ranges).get(variable)
    step = ranged[2] if ranged else None
    center = None
    if ranged:
        start, stop, _ = ranged
        v = np.arange(start, stop + step / 2, step) if step else np.linspace(start, stop, POINTS)
    else:
        center = values.centers()[variable]
        # NOTE: bounds plots are linear (throughput vs occupancy reads as a straight latency
        # bound meeting a flat throughput bound); the y range is set by the knee's value.
        v = np.linspace(center / 50, 3 * center, POINTS) if bounds else _axis_range(center)
    runs = [(None, values)] if not spec.series else [(text, _Values(model, spec, text)) for text in spec.series[1]]
    branches = _branches(model, spec.regime_of) if spec.regime_of else []
    marks: list[dict[str, Any]] = []
    seen: dict[int, str] = {}
    finite_parts = []
    spec.points = []
    x = v
    for index, (series_value, vals) in enumerate(runs):
        x = vals.function(model.symbols[spec.x], spec.x)(v) if spec.x else v
        y = vals.function(model.symbols[spec.quantity], spec.quantity)(v)
        color = "black" if series_value is None else f"C{index}"
        label = spec.quantity if series_value is None else f"{spec.series[0]} = {series_value}"  # type: ignore[index]
        style = {"marker": "o", "markersize": 3} if step and not branches else {}
        ax.plot(x, y, color=color, linewidth=1.2 if branches else 1.8, label=label, zorder=3, **style)
        finite_parts.append(y[np.isfinite(y)])
        active = _active(model, spec.regime_of, vals, branches, (v,)) if branches else np.full(v.shape, -1)
        # every point of a stepped range; about 60 of a continuous one (hollow, so the series colour shows)
        thin = np.zeros(v.shape, dtype=bool)
        thin[:: 1 if step else max(1, len(v) // 60)] = True
        for r in sorted(set(int(a) for a in np.unique(active) if a >= 0)):
            chosen = (active == r) & thin
            ax.scatter(x[chosen], y[chosen], s=30 if step else 14, facecolors="none", edgecolors=REGIME_COLORS[r % len(REGIME_COLORS)],
                       marker=REGIME_MARKERS[r % len(REGIME_MARKERS)], zorder=4, linewidths=1.0)
            seen[r] = branches[r][0]
        if step:
            for vi, xi, yi, ri in zip(v, x, y, active):
                spec.points.append({"series": series_value or "", "variable": round_sig(float(vi)), "variable_text": number_text(float(vi)), "x": round_sig(float(xi)),
                                    "x_text": number_text(float(xi)), "value": round_sig(float(yi)), "value_text": number_text(float(yi)),
                                    "regime": branches[int(ri)][0] if ri >= 0 else ""})
        run_marks = _resolve_marks(vals, spec)
        if series_value is not None:
            for mark in run_marks:
                mark["label"] = f"{mark['label']} ({spec.series[0]} = {series_value})"  # type: ignore[index]
                mark["series"] = series_value
        marks.extend(run_marks)
    finite = np.concatenate(finite_parts) if finite_parts else np.asarray([])
    if bounds and not spec.series:
        for index, (name, term, _) in enumerate(_branches(model, spec.quantity)):
            yb = values.function(term, spec.quantity)(v)
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
    if bounds and center is not None:
        at_knee = float(values.function(model.symbols[spec.quantity], spec.quantity)(np.asarray([center]))[0])
        top = 2.5 * at_knee if math.isfinite(at_knee) and at_knee > 0 else (finite.max() if finite.size else 1.0)
        ax.set_xlim(0, x[-1])
        ax.set_ylim(0, top)
    else:
        ax.set_xscale(spec.xscale or ("linear" if ranged or bounds else "log"))
        wide = finite.size and finite.min() > 0 and finite.max() / finite.min() > 50
        ax.set_yscale(spec.yscale or ("log" if wide and not bounds else "linear"))
        if finite.size:
            low, high = finite.min(), finite.max()
            if ax.get_yscale() == "log":
                ax.set_ylim(low / 2, high * 2)
            else:
                pad = 0.08 * (high - low or abs(high) or 1)
                ax.set_ylim(low - pad, high + pad)
    ax.set_xlabel(_label(model, spec.x or variable))
    ax.set_ylabel(_label(model, spec.quantity))
    handles, _ = ax.get_legend_handles_labels()
    handles += [Line2D([], [], linestyle="", marker=REGIME_MARKERS[r % len(REGIME_MARKERS)], markerfacecolor="none",
                       markeredgecolor=REGIME_COLORS[r % len(REGIME_COLORS)], label=f"{spec.regime_of}: {name}") for r, name in sorted(seen.items())]
    ax.legend(handles=handles, loc="best", fontsize=7, framealpha=0.85)
    return marks


def regime_map(model: Model, spec: PlotSpec, ax: Any, values: _Values, marks: list[dict[str, Any]]) -> dict[str, Any]:
    """Colour a log grid of ``spec.variables`` by the active limiter / case of ``spec.quantity``.

    Returns:
        Which regimes occur, with their share of the grid.
    """
    xname, yname = spec.variables
    ranges = dict(spec.ranges)
    centers = values.centers() if set(spec.variables) - set(ranges) else {}

    def axis(name: str) -> np.ndarray:
        if name in ranges:
            start, stop, step = ranges[name]
            return np.arange(start, stop + step / 2, step) if step else np.linspace(start, stop, GRID)
        return _axis_range(centers[name])[:: max(1, POINTS // GRID)]

    x, y = axis(xname), axis(yname)
    X, Y = np.meshgrid(x, y)
    branches = _branches(model, spec.quantity)
    active = _active(model, spec.quantity, values, branches, (X, Y))
    colors = [f"C{i}" for i in range(len(branches))]
    # NOTE: filled contours of the regime index (a few polygons) rather than a quad mesh:
    # SVG stays small and fast to write, and boundaries are drawn as lines.
    levels = np.arange(len(branches) + 1) - 0.5
    ax.contourf(X, Y, np.ma.masked_less(active, 0), levels=levels, cmap=ListedColormap(colors))
    if len(set(np.unique(active)) - {-1}) > 1:
        ax.contour(X, Y, active, levels=levels[1:-1], colors="black", linewidths=0.8)
    ax.set_xscale(spec.xscale or ("linear" if xname in ranges else "log"))
    ax.set_yscale(spec.yscale or ("linear" if yname in ranges else "log"))
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
    marks: list[dict[str, Any]] = []
    spec.resolved_marks = marks
    out: dict[str, bytes] = {}
    with matplotlib.rc_context(RC):  # type: ignore[arg-type]  # matplotlib types rc keys as Literals
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        try:
            if spec.kind == "regime_map":
                shares = regime_map(model, spec, ax, values, marks)
                spec.resolved_marks = marks + [{"axis": "map", "label": name, "expression": "", "value": share, "value_text": f"{100 * share:.1f} %", "reason": ""} for name, share in sorted(shares.items())]
            else:
                spec.resolved_marks = curve(model, spec, ax, values, bounds=spec.kind == "asymptotes")
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
