"""Read a model file's ``[[plots]]`` entries into their kinds' typed records
(:mod:`symgpu.model.plot_kinds`) while the model is built, so ``symgpu check`` and
``symgpu.load`` refuse a bad entry. :mod:`symgpu.report.plot_specs` documents the fields.

Every problem is a :class:`~symgpu.errors.ModelFileError` naming the file and
``plot <id>.<field>``, what was expected and what was found.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pint
import sympy

from symgpu import errors, units
from symgpu.model import schema
from symgpu.model.plot_kinds import KINDS, MARK_FIELDS, MAX_SERIES, MAX_STEPS, REQUIRED, SCALES, Center, Mark, PlotEntry, SweptPlot
from symgpu.model.records import Equation


class Model(Protocol):
    """What reading plots needs of a model being built (:class:`symgpu.model.Model`)."""

    path: str
    definition: schema.ModelDefinition
    symbols: dict[str, sympy.Symbol]
    units: dict[str, pint.Unit]
    defining: Mapping[str, Equation]
    presets: dict[str, dict[str, pint.Quantity]]

    @property
    def quantities(self) -> tuple[str, ...]: ...
    def parse(self, text: str, where: str, *, boolean: bool = False) -> sympy.Basic: ...
    def dimension(self, name: str) -> Any: ...
    def unit_text(self, name: str) -> str: ...


def bounded(model: Model, quantity: str) -> bool:
    """Whether a quantity is piecewise or a top-level ``Min``/``Max`` (it has regimes)."""
    equation = model.defining.get(quantity)
    return equation is not None and (isinstance(equation.rhs, (sympy.Min, sympy.Max)) or bool(equation.cases))


def read(model: Model, *, checked: bool = False) -> tuple[PlotEntry, ...]:
    """Every ``[[plots]]`` entry of ``model`` checked and read into its kind's record, in file order.
    ``checked``: a record says the model passed every check before (:mod:`symgpu.model.check_record`), so
    the checks that build an equation (a regime map's, an asymptote plot's or a ``show_regimes`` quantity has
    regimes) are not run again.

    Raises:
        errors.ModelFileError: a field the kind does not read, a required one missing, a wrong
            type, an unknown symbol, preset or case, a bad range or quantity string; the message
            names ``plot <id>.<field>``.
    """
    return tuple(_Checker(model, request, checked).entry() for request in model.definition.plots)


class _Checker:
    def __init__(self, model: Model, request: schema.PlotRequest, checked: bool = False) -> None:
        self.model, self.request, self.checked = model, request, checked
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
        self.parsed(field, text)
        return str(text)

    def parsed(self, field: str, text: Any) -> sympy.Basic:
        """``text`` parsed as an expression of the model (a ``ModelFileError`` naming ``plot <id>.<field>`` if not)."""
        if not isinstance(text, str):
            raise self.fail(field, f"expected an expression string, found {_kind(text)}")
        try:
            return self.model.parse(text, f"plot {self.request.id}.{field}")
        except errors.SymgpuError as exc:
            raise self.fail(field, f"cannot parse {text!r}: {getattr(exc, 'problem', exc)}") from None

    # -- the entry ---------------------------------------------------------------------
    def entry(self) -> PlotEntry:
        spec = KINDS.get(self.request.kind)
        if spec is None:
            raise self.fail("kind", f"unknown plot kind '{self.request.kind}'", f"use one of: {', '.join(KINDS)}")
        allowed = f"fields of kind = \"{spec.name}\": id, kind, {', '.join(spec.reads)}"
        unknown = spec.unknown(self.request.fields)
        if unknown:
            raise self.fail(unknown[0], f"unknown field '{unknown[0]}' for kind = \"{spec.name}\"", allowed)
        for field in REQUIRED:
            if field not in self.fields:
                raise self.fail(field, f"missing required field '{field}'", allowed)
        quantity = self.text("quantity")
        if quantity not in self.model.defining:
            hint = "it is an input: plot a quantity an equation defines" if quantity in self.model.symbols else f"quantities: {', '.join(self.model.quantities)}"
            raise self.fail("quantity", f"'{quantity}' is not a quantity of the model", hint)
        variables = self.variables(spec.variables)
        if spec.bounded and not self.checked and not bounded(self.model, quantity):
            problem = "no bounds to draw" if spec.name == "asymptotes" else "no regimes to map"
            raise self.fail("kind", f"'{quantity}' has {problem} (not piecewise, not a Min/Max)", "use kind = \"curve\"")
        ranges = tuple((name, self.range(f"ranges.{name}", text)) for name, text in self.variable_table("ranges", variables))
        presets = self.presets()
        scales = {field: self.scale(field) for field in ("xscale", "yscale")}
        for name, (start, _, _) in ranges:
            if scales["xscale"] == "log" and start <= 0:
                raise self.fail(f"ranges.{name}", "a log axis needs a range above 0")
        common: dict[str, Any] = dict(
            id=self.request.id, quantity=quantity, variables=variables, ranges=ranges, presets=presets,
            case=self.case(presets), bind=self.bind(),
            inputs=tuple((self.symbol(f"inputs.{n}", n), self.quantity_text(f"inputs.{n}", n, v)) for n, v in self.table("inputs")),
            substitute=tuple((self.symbol(f"substitute.{n}", n), self.expression(f"substitute.{n}", t)) for n, t in self.table("substitute")),
            centers=tuple(Center(n, str(t), self.parsed(f"centers.{n}", t)) for n, t in self.variable_table("centers", variables)),
            marks=self.marks(), caption=" ".join(self.text("caption").split()), title=self.text("title"), **scales,
        )
        if issubclass(spec.record, SweptPlot):
            common |= dict(x=self.x(), series=self.series(variables), **self.regimes(quantity))
        return spec.record(**common)

    def variables(self, want: int) -> tuple[str, ...]:
        variables = self.fields.get("variables")
        if isinstance(variables, str):
            variables = (variables,)
        if not isinstance(variables, tuple) or not variables:
            raise self.fail("variables", f"expected a non-empty list of symbols, found {_kind(variables)}", "write e.g. variables = [\"N\"]")
        if len(variables) != want:
            raise self.fail("variables", f"a {self.request.kind} plot takes {want} variable{'s' if want > 1 else ''}, found {len(variables)}")
        variables = tuple(self.symbol("variables", v) for v in variables)
        if len(set(variables)) != len(variables):
            raise self.fail("variables", "the same variable is given twice")
        return variables

    def variable_table(self, field: str, variables: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
        pairs = self.table(field)
        for name, _ in pairs:
            if name not in variables:
                raise self.fail(f"{field}.{name}", f"'{name}' is not a variable of this plot", f"variables: {', '.join(variables)}")
        return pairs

    def presets(self) -> tuple[str, ...]:
        presets = self.fields.get("presets", ())
        if isinstance(presets, str):
            presets = (presets,)
        if not isinstance(presets, tuple) or not all(isinstance(p, str) for p in presets):
            raise self.fail("presets", f"expected a list of preset ids, found {_kind(presets)}")
        for preset in presets:
            for part in preset.split("+"):
                if part.strip() not in self.model.presets:
                    raise self.fail("presets", f"unknown preset '{part.strip()}'" + (f" in '{preset}'" if "+" in preset else ""),
                                    f"presets: {', '.join(self.model.presets) or 'none'}; combine a GPU and a workload with '+'")
        return presets

    def case(self, presets: tuple[str, ...]) -> str:
        case = self.text("case")
        if case:
            cases = {c.id: c for c in self.model.definition.validation}
            if case not in cases:
                raise self.fail("case", f"unknown validation case '{case}'")
            if presets and cases[case].preset not in presets:
                raise self.fail("case", f"case '{case}' is on preset '{cases[case].preset}', not one of this plot's presets")
        return case

    def bind(self) -> tuple[tuple[str, str], ...]:
        model, bind = self.model, []
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
        return tuple(bind)

    def marks(self) -> tuple[Mark, ...]:
        marks = []
        raw_marks = self.fields.get("marks", ())
        if not isinstance(raw_marks, tuple):
            raise self.fail("marks", f"expected a list of tables, found {_kind(raw_marks)}")
        for index, mark in enumerate(raw_marks):
            where = f"marks[{index}]"
            if not (isinstance(mark, tuple) and all(isinstance(m, tuple) and len(m) == 2 for m in mark)):
                raise self.fail(where, f"expected a table {{ axis, label, expression }}, found {_kind(mark)}")
            mark = dict(mark)
            extra = sorted(set(mark) - set(MARK_FIELDS))
            if extra:
                raise self.fail(f"{where}.{extra[0]}", f"unknown mark field '{extra[0]}'", f"mark fields: {', '.join(MARK_FIELDS)}")
            if mark.get("axis") not in ("x", "y"):
                raise self.fail(f"{where}.axis", f"axis must be \"x\" or \"y\", found {_kind(mark.get('axis'))}")
            if not isinstance(mark.get("label", ""), str):
                raise self.fail(f"{where}.label", f"expected a string, found {_kind(mark.get('label'))}")
            if "expression" not in mark:
                raise self.fail(where, "missing 'expression'", "a mark is drawn at the value of a model expression")
            parsed = self.parsed(f"{where}.expression", mark["expression"])
            expression = mark["expression"]
            marks.append(Mark(axis=mark["axis"], label=mark.get("label") or expression, expression=expression,
                              variable=str(mark.get("variable", "")), parsed=parsed))
        return tuple(marks)

    def scale(self, field: str) -> str:
        scale = self.text(field)
        if scale and scale not in SCALES:
            raise self.fail(field, f"unknown scale '{scale}'", "use \"linear\" or \"log\"")
        return scale

    def x(self) -> str:
        x = self.text("x")
        if x:
            self.symbol("x", x)
        return x

    def series(self, variables: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
        pairs = self.table("series")
        if not pairs:
            return None
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
        return name, tuple(self.quantity_text(f"series.{name}", name, v) for v in values)

    def regimes(self, quantity: str) -> dict[str, Any]:
        show = self.fields.get("show_regimes", False)
        if not isinstance(show, bool):
            raise self.fail("show_regimes", f"expected true or false, found {_kind(show)}")
        regime_of = self.text("regime_of")
        if regime_of and not show:
            raise self.fail("regime_of", "given without show_regimes = true")
        if show:
            regime_of = regime_of or quantity
            if regime_of not in self.model.defining:
                raise self.fail("regime_of", f"'{regime_of}' is not a quantity of the model")
            if not self.checked and not bounded(self.model, regime_of):
                raise self.fail("regime_of" if "regime_of" in self.fields else "show_regimes",
                                f"'{regime_of}' has no regimes (not piecewise, not a Min/Max)",
                                "set regime_of to a piecewise or Min/Max quantity it depends on")
        return {"show_regimes": show, "regime_of": regime_of}

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
