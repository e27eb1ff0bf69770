"""Which plots a report draws: planned from a model's
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

``[[plots]]`` entries of the model file (read into the records of :mod:`symgpu.model.plot_kinds`
when the model is built; every problem is an error naming the file and ``plot <id>.<field>``; a
field marked with kinds is read by those kinds only, and refused in an entry of another kind):

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
``x`` (curve, asymptotes)
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
``series`` (curve, asymptotes)
    ``{ param = [v1, v2, ...] }``: one curve per value of one other input (at most 10),
    labelled ``param = v``; marks depending on it are drawn once per value.
``marks``
    list of ``{ axis = "x"|"y", label, expression }`` (``variable`` for regime maps): lines
    at the value of a model expression in the scenario (e.g. ``"MSHRs/M_Read"``).
``show_regimes`` (curve, asymptotes)
    ``true``: colour each point by the active case / limiter of ``regime_of``; the report
    lists the regime of each point of a stepped range.
``regime_of`` (curve, asymptotes)
    the piecewise or Min/Max quantity whose regime is shown (default: ``quantity``).
``caption``
    text printed with the plot in every report format.
``title``
    replaces the automatic title.
``xscale``, ``yscale``
    ``linear`` or ``log`` (default: linear x with a range, log x without; log y when the
    values span more than a factor 50).

Values for inputs no preset supplies are bound to quantities of the model or given as
explicit ``inputs``, never invented: a caption says when they are illustrative."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from symgpu import errors
from symgpu.report import printing
from symgpu.report.scenarios import Scenario, scenarios, supplied
from symgpu.model.plot_kinds import Center, Mark, PlotEntry, SweptPlot
from symgpu.model.plot_requests import bounded
if TYPE_CHECKING:
    from symgpu.model import Model



#: Grid resolution.
POINTS = 241


GRID = 121


#: Span of an automatic range around its centre (a factor on each side, log scale).
SPAN = 20.0


@dataclass(frozen=True)
class DrawnMark:
    """A mark with its value in the plot's scenario, or the reason it has none (as the report shows it).

    Attributes:
        axis: ``x``, ``y``, or ``map`` (a regime's share of a regime map).
        label: legend text (with the series value, for a series plot).
        expression: model expression text ("" for a regime's share).
        value: the value (rounded as printed), or ``None`` when it could not be computed.
        value_text: the value as printed.
        reason: why there is no value ("" when there is one).
        series: the series value it belongs to (``None`` for a plot without a series).
    """

    axis: str
    label: str
    expression: str
    value: float | None = None
    value_text: str = ""
    reason: str = ""
    series: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The mark as the report's JSON holds it (``series`` only for a series plot)."""
        out: dict[str, Any] = {"axis": self.axis, "label": self.label, "expression": self.expression,
                               "value": self.value, "value_text": self.value_text, "reason": self.reason}
        return out | ({"series": self.series} if self.series is not None else {})


@dataclass(frozen=True)
class DrawnPoint:
    """One point of a stepped range as the report lists it (values rounded as printed).

    Attributes:
        series: the series value it belongs to ("" for a plot without a series).
        variable, variable_text: the swept variable's value, and as printed.
        x, x_text: the x axis quantity's value (the variable's, without ``x``), and as printed.
        value, value_text: the plotted quantity's value, and as printed.
        regime: the regime of ``regime_of`` there ("" = no colouring, or none holds).
    """

    series: str
    variable: float | None
    variable_text: str
    x: float | None
    x_text: str
    value: float | None
    value_text: str
    regime: str

    def as_dict(self) -> dict[str, Any]:
        """The point as the report's JSON holds it."""
        return {"series": self.series, "variable": self.variable, "variable_text": self.variable_text, "x": self.x,
                "x_text": self.x_text, "value": self.value, "value_text": self.value_text, "regime": self.regime}


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
        marks: the lines to mark (:class:`~symgpu.model.plot_kinds.Mark`), each with its expression parsed.
        centers: the middle of a variable's range (:class:`~symgpu.model.plot_kinds.Center`, parsed when the model was built).
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
    marks: tuple[Mark, ...] = ()
    centers: tuple[Center, ...] = ()
    origin: tuple[str, ...] = ()
    problem: str = ""
    resolved_marks: tuple[DrawnMark, ...] = ()
    x: str = ""
    ranges: tuple[tuple[str, tuple[float, float, float | None]], ...] = ()
    series: tuple[str, tuple[str, ...]] | None = None
    regime_of: str = ""
    caption: str = ""
    title_text: str = ""
    xscale: str = ""
    yscale: str = ""
    points: tuple[DrawnPoint, ...] = ()

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


def _derived(request: Any, variable: str, label: str, axis: str, missed: Mapping[str, tuple[str, Any]], *,
             named: str = "") -> Mark | None:
    """The mark of ``request``'s expected form at ``variable`` where the request's derivation gives it; where
    it gives another result (``missed``: the requests whose derivation fails or misses its expect, why, and
    the derived expression or None), the derived expression, labelled so, or a mark that says why nothing
    is drawn: never the file's text as though derived. None without an expected form."""
    expect = _expect_for(request, variable)
    if not expect:
        return None
    where = variable if named else ""
    if request.id in missed:
        reason, result = missed[request.id]
        if result is not None and isinstance(request.get("expect"), str):
            text = printing.sstr(result)
            return Mark(axis, named or f"{request.id}: {variable} = {text} (derived; the file expects {expect})", text,
                        variable=where, parsed=result)
        return Mark(axis, named or f"{request.id}: {variable}", expect, variable=where, problem=reason)
    return Mark(axis, label, expect, variable=where)


def plan(model: Model, presets: Sequence[str] | None = None, *, missed: Mapping[str, tuple[str, Any]] | None = None) -> list[PlotSpec]:
    """The plots of a model's report, from its derivation requests and its ``[[plots]]`` entries.

    * an ``extremum`` request gives a curve of its quantity over its variable, the location
      marked (and ``limit`` requests on the same pair add their values as horizontal lines);
    * ``boundary`` requests on a bounded quantity give, per preset, the quantity over the
      variable with its bounds, boundaries marked;
    * a bounded quantity with boundary requests over two variables gives a regime map, unless a
      ``[[plots]]`` regime map of that quantity over those two variables replaces it;
    * each ``[[plots]]`` entry gives one plot per preset it names (see the module docstring).

    A derivation's mark is its ``expect`` only where ``missed`` (request id -> why, and the derived
    expression) does not name it: a request whose derivation misses its expected form marks the derived
    expression, labelled so, and one whose derivation fails (or gives no single expression) marks nothing
    and says why.

    Raises:
        errors.ModelFileError: a ``[[plots]]`` entry is malformed (names the file and field).
    """
    missed = missed or {}
    chosen = list(presets) if presets else [p.id for p in model.definition.presets]
    specs: list[PlotSpec] = []
    limits: dict[tuple[str, str], list[Mark]] = {}
    boundaries: dict[tuple[str, str], list[Any]] = {}
    for request in model.definition.derivations:
        quantity, variable = _request_quantity(model, request), request.get("variable") or ""
        if not quantity or variable not in model.symbols:
            continue
        mark = _derived(request, variable, f"{request.id}: {variable} -> {request.get('to') or request.get('point') or ''}", "y", missed)
        if request.op == "limit" and mark is not None:
            limits.setdefault((quantity, variable), []).append(mark)
        if request.op == "boundary" and bounded(model, quantity):
            boundaries.setdefault((quantity, variable), []).append(request)
    # the extremum requests on one quantity and variable share a curve: each location with an expected
    # form is marked (a request without one, e.g. a case split by GPU, adds no mark)
    extrema: dict[tuple[str, str], list[Any]] = {}
    for request in model.definition.derivations:
        quantity, variable = _request_quantity(model, request), request.get("variable") or ""
        if request.op == "extremum" and quantity and variable in model.symbols:
            extrema.setdefault((quantity, variable), []).append(request)
    for (quantity, variable), requests in extrema.items():
        substitute = tuple((k, str(v)) for k, v in (requests[0].get("substitute") or ()))
        marks: tuple[Mark, ...] = (
            *(m for r in requests if (m := _derived(r, variable, f"{r.id}: {variable} = {_expect_for(r, variable)}", "x", missed))),
            *limits.get((quantity, variable), []))
        spec = _spec(model, f"{quantity}_vs_{variable}", "curve", quantity, (variable,), chosen, substitute=substitute,
                     marks=marks, origin=tuple(r.id for r in requests))
        specs.append(spec)
    for (quantity, variable), requests in boundaries.items():
        marks = tuple(_derived(r, variable, f"{r.id}: {variable} = {_expect_for(r, variable)}", "x", missed)
                      or Mark("x", f"{r.id}: {variable} = ", "") for r in requests)
        for preset in chosen:
            spec = _spec(model, f"{quantity}_vs_{variable}_{preset}", "asymptotes", quantity, (variable,), [preset],
                         marks=marks, origin=tuple(r.id for r in requests))
            if spec.scenario is not None:
                specs.append(spec)
    by_quantity: dict[str, list[str]] = {}
    for quantity, variable in boundaries:
        by_quantity.setdefault(quantity, []).append(variable)
    asked = requested(model, chosen)
    # a regime map the file asks for (its own ranges, presets, inputs) replaces the implied one
    asked_maps = {(s.quantity, frozenset(s.variables)) for s in asked if s.kind == "regime_map"}
    for quantity, variables in by_quantity.items():
        if len(variables) >= 2 and (quantity, frozenset(variables[:2])) not in asked_maps:
            pair = (variables[1], variables[0]) if len(variables) == 2 else tuple(variables[:2])
            origin = tuple(r.id for v in pair for r in boundaries[(quantity, v)])
            marks = tuple(_derived(r, v, r.id, "x", missed, named=r.id) or Mark("x", r.id, "", variable=v)
                          for v in pair for r in boundaries[(quantity, v)])
            specs.append(_spec(model, f"regimes_{quantity}_{pair[0]}_{pair[1]}", "regime_map", quantity, pair, chosen, marks=marks, origin=origin))
    specs += asked
    ids: set[str] = set()
    unique = []
    for spec in specs:
        if spec.id not in ids:
            ids.add(spec.id)
            unique.append(spec)
    return unique


def requested(model: Model, chosen: Sequence[str]) -> list[PlotSpec]:
    """Specs of the model file's ``[[plots]]`` entries (read into their records when the model
    was built: :attr:`symgpu.model.Model.plots`).

    A plot that names presets is drawn for those of them the report covers (combined presets
    ``a+b`` when every part is covered); without presets, with the first suitable preset.
    """
    out = []
    covered = set(chosen)
    for entry in model.plots:
        if entry.presets:
            presets = [p for p in entry.presets if all(part.strip() in covered for part in p.split("+"))]
            if not presets:
                continue
        else:
            presets = []
        extra: dict[str, Any] = dict(ranges=entry.ranges, caption=entry.caption, title_text=entry.title, xscale=entry.xscale, yscale=entry.yscale)
        if isinstance(entry, SweptPlot):
            extra |= dict(x=entry.x, series=entry.series, regime_of=entry.regime_of)
        if len(entry.presets) > 1:
            for preset in presets:
                out.append(replace(_entry_spec(model, entry, f"{entry.id}_{preset.replace('+', '_')}", [preset]), **extra))
        else:
            out.append(replace(_entry_spec(model, entry, entry.id, presets or chosen), **extra))
    return out


def _entry_spec(model: Model, entry: PlotEntry, plot_id: str, presets: Sequence[str]) -> PlotSpec:
    """The :func:`_spec` of a ``[[plots]]`` entry for ``presets``."""
    swept = entry if isinstance(entry, SweptPlot) else None
    return _spec(model, plot_id, entry.kind, entry.quantity, entry.variables, presets, case=entry.case,
                 substitute=entry.substitute, bind=tuple(entry.bind) + tuple(entry.inputs),
                 marks=entry.marks, centers=entry.centers,
                 origin=(f"plots.{entry.id}",), also=[n for n in (swept.x, swept.regime_of) if n] if swept else [],
                 exclude=[swept.series[0]] if swept and swept.series else [])


def _spec(model: Model, plot_id: str, kind: str, quantity: str, variables: tuple[str, ...], presets: Sequence[str], *,
          case: str = "", substitute: tuple[tuple[str, str], ...] = (), bind: tuple[tuple[str, str], ...] = (),
          marks: tuple[Mark, ...] = (), centers: tuple[Center, ...] = (), origin: tuple[str, ...] = (),
          also: Sequence[str] = (), exclude: Sequence[str] = ()) -> PlotSpec:
    """A spec with the first scenario (preset order, then case order) that supplies every value
    (of ``quantity``, the marks and the quantities ``also``, except ``exclude``)."""
    marks = tuple(_parsed(model, plot_id, mark) for mark in marks)
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


def _parsed(model: Model, plot_id: str, mark: Mark) -> Mark:
    """``mark`` with its expression parsed: a file's mark was when the model was built; one made
    from a derivation's expected form is here, once per plot (``problem`` says why it does not parse)."""
    if mark.parsed is not None or mark.problem:
        return mark
    try:
        return replace(mark, parsed=model.parse(mark.expression, f"plot {plot_id} mark"))
    except errors.SymgpuError as exc:
        return replace(mark, problem=str(exc))


def _mark_needs(model: Model, marks: Sequence[Mark]) -> set[str]:
    out: set[str] = set()
    for mark in marks:
        if mark.parsed is None:
            continue
        for sym in mark.parsed.free_symbols:
            out |= set(model.inputs(sym.name)) if sym.name in model.defining else {sym.name}
    return out
