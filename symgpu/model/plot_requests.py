"""Check and normalise a model file's ``[[plots]]`` entries (no matplotlib here, so
``symgpu check`` can run it cheaply). :mod:`symgpu.report.plots` documents the fields and draws.

Every problem is a :class:`~symgpu.errors.ModelFileError` naming the file and
``plot <id>.<field>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors, units

if TYPE_CHECKING:
    from symgpu.model import Model

#: Fields a ``[[plots]]`` entry may have (besides ``id`` and ``kind``).
FIELDS = ("quantity", "variables", "x", "ranges", "presets", "case", "inputs", "bind", "substitute", "centers",
          "series", "marks", "show_regimes", "regime_of", "caption", "title", "xscale", "yscale")
#: Number of variables per kind.
VARIABLES = {"curve": 1, "asymptotes": 1, "regime_map": 2}
SCALES = ("linear", "log")
#: At most this many points in a stepped range, and curves in a series.
MAX_STEPS = 2001
MAX_SERIES = 10


@dataclass(frozen=True)
class PlotEntry:
    """A checked ``[[plots]]`` entry.

    Attributes:
        id: plot id.
        kind: ``curve``, ``asymptotes`` or ``regime_map``.
        quantity: the plotted quantity (defined by an equation).
        variables: swept symbols (1, or 2 for a regime map).
        x: quantity drawn on the x axis instead of the variable ("" = the variable).
        ranges: variable -> (start, stop, step or None), in the variable's declared unit.
        presets: preset ids (``a+b`` combined presets allowed); empty = every preset.
        case: validation case whose inputs join the preset ("" = none).
        bind: symbol -> quantity of the model (or quantity string), for values the presets lack.
        inputs: symbol -> quantity string.
        substitute: symbol -> expression text.
        centers: variable -> expression text (centre of an automatic range).
        series: (parameter, values as quantity strings) or ``None``.
        marks: ``{axis, label, expression}`` tables.
        show_regimes: colour points by the active case / limiter of ``regime_of``.
        regime_of: the bounded quantity whose regime is shown.
        caption: text under the plot.
        title: title override ("" = automatic).
        xscale, yscale: ``linear``, ``log`` or "" (automatic).
    """

    id: str
    kind: str
    quantity: str
    variables: tuple[str, ...]
    x: str = ""
    ranges: tuple[tuple[str, tuple[float, float, float | None]], ...] = ()
    presets: tuple[str, ...] = ()
    case: str = ""
    bind: tuple[tuple[str, str], ...] = ()
    inputs: tuple[tuple[str, str], ...] = ()
    substitute: tuple[tuple[str, str], ...] = ()
    centers: tuple[tuple[str, str], ...] = ()
    series: tuple[str, tuple[str, ...]] | None = None
    marks: tuple[dict[str, str], ...] = ()
    show_regimes: bool = False
    regime_of: str = ""
    caption: str = ""
    title: str = ""
    xscale: str = ""
    yscale: str = ""


def bounded(model: Model, quantity: str) -> bool:
    """Whether a quantity is piecewise or a top-level ``Min``/``Max`` (it has regimes)."""
    equation = model.defining.get(quantity)
    return equation is not None and (isinstance(equation.rhs, (sympy.Min, sympy.Max)) or bool(equation.cases))


def check(model: Model) -> list[PlotEntry]:
    """Check every ``[[plots]]`` entry of ``model`` and return them normalised, in file order.

    Raises:
        errors.ModelFileError: an unknown field, a wrong type, an unknown symbol, preset or
            case, a bad range or quantity string; the message names ``plot <id>.<field>``.
    """
    return [_Checker(model, request).entry() for request in model.definition.plots]


class _Checker:
    def __init__(self, model: Model, request: Any) -> None:
        self.model, self.request = model, request
        self.fields = dict(request.fields)

    def fail(self, field: str, problem: str, hint: str = "") -> errors.ModelFileError:
        return errors.ModelFileError(self.model.path, f"plot {self.request.id}.{field}", problem, hint)

    # -- helpers -----------------------------------------------------------------------
    def table(self, field: str) -> tuple[tuple[str, Any], ...]:
        value = self.fields.get(field, ())
        if value == ():
            return ()
        if not (isinstance(value, tuple) and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value)):
            raise self.fail(field, f"expected a table, found {_kind(value)}", f"write e.g. {field} = {{ name = \"...\" }}")
        return value

    def text(self, field: str) -> str:
        value = self.fields.get(field, "")
        if not isinstance(value, str):
            raise self.fail(field, f"expected a string, found {_kind(value)}")
        return value

    def symbol(self, field: str, name: Any, *, what: str = "symbol") -> str:
        if not isinstance(name, str):
            raise self.fail(field, f"expected a symbol name, found {_kind(name)}")
        if name not in self.model.symbols:
            raise self.fail(field, f"unknown {what} '{name}'", f"declared symbols: {', '.join(sorted(self.model.symbols))}")
        return name

    def quantity_text(self, field: str, name: str, value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(field, f"expected a quantity string or number, found {_kind(value)}")
        unit = self.model.units[name]
        try:
            q = units.quantity(str(value), unit)
            units.convert(q, unit)
        except ValueError as exc:
            raise self.fail(field, f"{name} = {value!r}: {exc}", f"write a number (in {self.model.unit_text(name)}) or a quantity such as \"2 {self.model.unit_text(name)}\"") from None
        except Exception:  # pint.DimensionalityError
            raise self.fail(field, f"{name} = {value!r} has the wrong dimension: {name} is in {self.model.unit_text(name)}",
                            "correct the value's unit") from None
        return str(value)

    def expression(self, field: str, text: Any) -> str:
        if not isinstance(text, str):
            raise self.fail(field, f"expected an expression string, found {_kind(text)}")
        try:
            self.model.parse(text, f"plot {self.request.id}.{field}")
        except errors.SymgpuError as exc:
            raise self.fail(field, f"cannot parse {text!r}: {getattr(exc, 'problem', exc)}") from None
        return text

    # -- the entry ---------------------------------------------------------------------
    def entry(self) -> PlotEntry:
        request, model = self.request, self.model
        unknown = sorted(set(self.fields) - set(FIELDS))
        if unknown:
            raise self.fail(unknown[0], f"unknown field '{unknown[0]}'", f"plot fields: id, kind, {', '.join(FIELDS)}")
        if "quantity" not in self.fields:
            raise self.fail("quantity", "missing required field 'quantity'", "name the plotted quantity, e.g. quantity = \"t_P\"")
        quantity = self.text("quantity")
        if quantity not in model.defining:
            hint = "it is an input: plot a quantity an equation defines" if quantity in model.symbols else f"quantities: {', '.join(model.quantities)}"
            raise self.fail("quantity", f"'{quantity}' is not a quantity of the model", hint)
        if request.kind not in VARIABLES:
            raise self.fail("kind", f"unknown plot kind '{request.kind}'", f"use one of: {', '.join(VARIABLES)}")
        variables = self.fields.get("variables")
        if isinstance(variables, str):
            variables = (variables,)
        if not isinstance(variables, tuple) or not variables:
            raise self.fail("variables", "missing or empty: give the swept symbol(s) as a list", "write e.g. variables = [\"N\"]")
        want = VARIABLES[request.kind]
        if len(variables) != want:
            raise self.fail("variables", f"a {request.kind} plot takes {want} variable{'s' if want > 1 else ''}, found {len(variables)}")
        variables = tuple(self.symbol("variables", v) for v in variables)
        if len(set(variables)) != len(variables):
            raise self.fail("variables", "the same variable is given twice")
        if request.kind == "asymptotes" and not bounded(model, quantity):
            raise self.fail("kind", f"'{quantity}' has no bounds to draw (not piecewise, not a Min/Max)", "use kind = \"curve\"")
        if request.kind == "regime_map" and not bounded(model, quantity):
            raise self.fail("kind", f"'{quantity}' has no regimes to map (not piecewise, not a Min/Max)")
        x = self.text("x")
        if x:
            self.symbol("x", x)
            if request.kind == "regime_map":
                raise self.fail("x", "a regime map plots its two variables; 'x' applies to curves")
        ranges = []
        for name, text in self.table("ranges"):
            if name not in variables:
                raise self.fail(f"ranges.{name}", f"'{name}' is not a variable of this plot", f"variables: {', '.join(variables)}")
            ranges.append((name, self.range(f"ranges.{name}", text)))
        presets = self.fields.get("presets", ())
        if isinstance(presets, str):
            presets = (presets,)
        if not isinstance(presets, tuple) or not all(isinstance(p, str) for p in presets):
            raise self.fail("presets", f"expected a list of preset ids, found {_kind(presets)}")
        for preset in presets:
            for part in preset.split("+"):
                if part.strip() not in model.presets:
                    raise self.fail("presets", f"unknown preset '{part.strip()}'" + (f" in '{preset}'" if "+" in preset else ""),
                                    f"presets: {', '.join(model.presets) or 'none'}; combine a GPU and a workload with '+'")
        case = self.text("case")
        if case:
            cases = {c.id: c for c in model.definition.validation}
            if case not in cases:
                raise self.fail("case", f"unknown validation case '{case}'")
            if presets and cases[case].preset not in presets:
                raise self.fail("case", f"case '{case}' is on preset '{cases[case].preset}', not one of this plot's presets")
        bind = []
        for name, target in self.table("bind"):
            self.symbol(f"bind.{name}", name)
            if not isinstance(target, str):
                raise self.fail(f"bind.{name}", f"expected the name of a quantity of the model, found {_kind(target)}")
            if target not in model.defining:
                if target in model.symbols:
                    raise self.fail(f"bind.{name}", f"'{target}' is an input, not a quantity an equation defines", "give a value with 'inputs' instead")
                raise self.fail(f"bind.{name}", f"'{target}' is not a quantity of the model", "bind takes quantity names; numbers go in 'inputs'")
            if model.dimension(target) != model.dimension(name):
                raise self.fail(f"bind.{name}", f"{name} ({model.unit_text(name)}) and {target} ({model.unit_text(target)}) differ in dimension")
            bind.append((name, target))
        inputs = [(self.symbol(f"inputs.{n}", n), self.quantity_text(f"inputs.{n}", n, v)) for n, v in self.table("inputs")]
        substitute = [(self.symbol(f"substitute.{n}", n), self.expression(f"substitute.{n}", t)) for n, t in self.table("substitute")]
        centers = []
        for name, text in self.table("centers"):
            if name not in variables:
                raise self.fail(f"centers.{name}", f"'{name}' is not a variable of this plot", f"variables: {', '.join(variables)}")
            centers.append((name, self.expression(f"centers.{name}", text)))
        series = None
        pairs = self.table("series")
        if pairs:
            if request.kind == "regime_map":
                raise self.fail("series", "a regime map has no series; series apply to curves")
            if len(pairs) != 1:
                raise self.fail("series", f"one series parameter per plot, found {len(pairs)}: {', '.join(k for k, _ in pairs)}")
            name, values = pairs[0]
            self.symbol(f"series.{name}", name)
            if name in variables:
                raise self.fail(f"series.{name}", f"'{name}' is the plotted variable; a series varies another parameter")
            if not isinstance(values, tuple) or not values:
                raise self.fail(f"series.{name}", "expected a non-empty list of values", f"write e.g. series = {{ {name} = [1, 2, 4] }}")
            if len(values) > MAX_SERIES:
                raise self.fail(f"series.{name}", f"{len(values)} values; at most {MAX_SERIES} curves per plot")
            series = (name, tuple(self.quantity_text(f"series.{name}", name, v) for v in values))
        marks = []
        raw_marks = self.fields.get("marks", ())
        if not isinstance(raw_marks, tuple):
            raise self.fail("marks", f"expected a list of tables, found {_kind(raw_marks)}")
        for index, mark in enumerate(raw_marks):
            where = f"marks[{index}]"
            if not (isinstance(mark, tuple) and all(isinstance(m, tuple) and len(m) == 2 for m in mark)):
                raise self.fail(where, f"expected a table {{ axis, label, expression }}, found {_kind(mark)}")
            mark = dict(mark)
            extra = sorted(set(mark) - {"axis", "label", "expression", "variable"})
            if extra:
                raise self.fail(f"{where}.{extra[0]}", f"unknown mark field '{extra[0]}'", "mark fields: axis, label, expression, variable")
            if mark.get("axis") not in ("x", "y"):
                raise self.fail(f"{where}.axis", f"axis must be \"x\" or \"y\", found {_kind(mark.get('axis'))}")
            if not isinstance(mark.get("label", ""), str):
                raise self.fail(f"{where}.label", f"expected a string, found {_kind(mark.get('label'))}")
            if "expression" not in mark:
                raise self.fail(where, "missing 'expression'", "a mark is drawn at the value of a model expression")
            self.expression(f"{where}.expression", mark["expression"])
            marks.append({k: str(v) for k, v in mark.items()} | {"label": str(mark.get("label") or mark["expression"])})
        show = self.fields.get("show_regimes", False)
        if not isinstance(show, bool):
            raise self.fail("show_regimes", f"expected true or false, found {_kind(show)}")
        regime_of = self.text("regime_of")
        if regime_of and not show:
            raise self.fail("regime_of", "given without show_regimes = true")
        if show:
            if request.kind == "regime_map":
                raise self.fail("show_regimes", "a regime map always shows regimes; show_regimes applies to curves")
            regime_of = regime_of or quantity
            if regime_of not in model.defining:
                raise self.fail("regime_of", f"'{regime_of}' is not a quantity of the model")
            if not bounded(model, regime_of):
                raise self.fail("regime_of" if "regime_of" in self.fields else "show_regimes",
                                f"'{regime_of}' has no regimes (not piecewise, not a Min/Max)",
                                "set regime_of to a piecewise or Min/Max quantity it depends on")
        scales = {}
        for field in ("xscale", "yscale"):
            scales[field] = self.text(field)
            if scales[field] and scales[field] not in SCALES:
                raise self.fail(field, f"unknown scale '{scales[field]}'", "use \"linear\" or \"log\"")
        for name, (start, _, _) in ranges:
            if scales["xscale"] == "log" and start <= 0:
                raise self.fail(f"ranges.{name}", "a log axis needs a range above 0")
        return PlotEntry(
            id=request.id, kind=request.kind, quantity=quantity, variables=variables, x=x, ranges=tuple(ranges),
            presets=tuple(presets), case=case, bind=tuple(bind), inputs=tuple(inputs), substitute=tuple(substitute),
            centers=tuple(centers), series=series, marks=tuple(marks), show_regimes=show, regime_of=regime_of,
            caption=" ".join(self.text("caption").split()), title=self.text("title"),
            xscale=scales["xscale"], yscale=scales["yscale"],
        )

    def range(self, field: str, text: Any) -> tuple[float, float, float | None]:
        hint = "write \"start:stop\" (evenly spaced points) or \"start:stop:step\" (e.g. \"1:8:1\"), in the variable's declared unit"
        if not isinstance(text, str):
            raise self.fail(field, f"expected a string \"start:stop\", found {_kind(text)}", hint)
        parts = text.split(":")
        if len(parts) not in (2, 3):
            raise self.fail(field, f"'{text}' is not start:stop or start:stop:step", hint)
        try:
            numbers = [float(p) for p in parts]
        except ValueError:
            raise self.fail(field, f"'{text}' is not start:stop or start:stop:step (plain numbers)", hint) from None
        start, stop = numbers[0], numbers[1]
        if not start < stop:
            raise self.fail(field, f"start {parts[0]} is not below stop {parts[1]}", hint)
        step = numbers[2] if len(numbers) == 3 else None
        if step is not None:
            if step <= 0:
                raise self.fail(field, f"step {parts[2]} must be positive", hint)
            if (stop - start) / step + 1 > MAX_STEPS:
                raise self.fail(field, f"{int((stop - start) / step) + 1} steps; at most {MAX_STEPS}", hint)
        return start, stop, step


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, tuple):
        return "a table" if value and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value) else "an array"
    if isinstance(value, str):
        return f"the string {value!r}"
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"
