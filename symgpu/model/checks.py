"""Construction-time checks of a model, shared by :class:`symgpu.model.build.Model` as its base class:
every equation's dimensions (with a hint at the likely fix), every constant, preset and validation
value read in its symbol's unit and domain, and every name a validation case, derivation request or
table refers to."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pint
import sympy

from symgpu import errors, suggest, units
from symgpu.memo import memoised
from symgpu.model import counted_dimensions, expressions, schema, value_domain
from symgpu.model.records import Equation, ValidationInputs
from symgpu.units import dimensions, literal_units


#: the dimension of a clock: cycles per time
_HZ = units.unit("Hz").dimensionality


def _quantity(text: Any, unit: pint.Unit) -> pint.Quantity:
    """``units.quantity(text, unit, finite=False)``, read once per text and unit (presets of
    variants and validation cases repeat the same values); callers only read the result.
    Text that cannot be a key (a list or table from the file) is read, and refused, directly."""
    try:
        return _kept_quantity(text, unit)
    except TypeError:
        return units.quantity(text, unit, finite=False)


@memoised("model.checks.quantities", 4096, typed=True)
def _kept_quantity(text: Any, unit: pint.Unit) -> pint.Quantity:
    return units.quantity(text, unit, finite=False)


def _pairs(table: Any) -> tuple[tuple[Any, Any], ...]:
    """A request's table (``substitute``) as (name, text) pairs, as the request reads it; none where it is no table (the
    request's own reading refuses it)."""
    try:
        return tuple(dict(table or {}).items())
    except (TypeError, ValueError):
        return ()


class ModelChecks:
    """The checks :class:`~symgpu.model.build.Model` runs while it is built (each raises
    :class:`~symgpu.errors.ModelFileError` naming the file, the key and the fix)."""

    path: str
    definition: schema.ModelDefinition
    symbol_definitions: dict[str, schema.SymbolDefinition]
    symbols: dict[str, sympy.Symbol]
    units: dict[str, pint.Unit]
    equations: Mapping[str, Equation]
    defining: Mapping[str, Equation]
    constants: dict[str, pint.Quantity]
    presets: dict[str, dict[str, pint.Quantity]]
    _validation_inputs: dict[str, ValidationInputs]
    _dims: dict[sympy.Symbol, Any]

    def __getstate__(self) -> dict[str, Any]:
        """The state pickle carries, every equation built (and checked) first: a cold load builds each when read through
        a closure pickle cannot carry, and building adds to the state (:meth:`LazyEquations.__reduce__` then pickles the
        equations as a plain mapping)."""
        for name in self.equations:
            self.equations[name]
        return self.__dict__.copy()

    def fail(self, where: str, problem: str, hint: str = "", kind: type[errors.ModelFileError] = errors.ModelFileError) -> errors.ModelFileError:
        """Build an error located in this model's file."""
        return kind(self.path, where, problem, hint)

    def _check_dimensions(self, equations: Iterable[Equation] | None = None) -> None:
        """Check every equation's dimensions, or those of ``equations`` (:meth:`_check_units`); every mismatch is reported,
        one or all together."""
        problems = []
        for equation in self.equations.values() if equations is None else equations:
            try:
                self._check_units(equation)
            except errors.UnitMismatchError as exc:
                problems.append(exc)
        if len(problems) == 1:
            raise problems[0]
        if problems:
            raise errors.ModelCheckError(tuple(problems))

    def _check_units(self, equation: Equation) -> None:
        """Check the dimensions of every term of ``equation`` as the file writes it.

        NOTE: the texts are parsed again unevaluated (``as_written``): the built expression has
        been through SymPy's automatic simplification, which drops a dominated ``Min`` argument,
        cancels ``(a+b)/(a+b)`` and folds ``x + 0*y`` or ``x + y - y``, and a unit mistake
        inside such a term would pass unseen.
        """
        eq = equation.definition
        where = f"equation {eq.id}"
        # NOTE: without counts every dimension is kept as it is (most equations: no copy)
        dims = {s: dimensions.without_counts(d, eq.counts) for s, d in self._dims.items()} if eq.counts else self._dims
        expected = dims[equation.lhs]
        pieces: list[tuple[str, sympy.Basic, str]] = []
        if eq.cases:
            for case in eq.cases:
                here = f"{where} case {case.id}"
                if case.when.strip() != "otherwise":
                    self._walk(self._as_written(case.when, f"{here}.when", boolean=True), dims, f"{here}.when")
                pieces.append((f"case {case.id}", self._as_written(case.value, f"{here}.value"), case.value))
        else:
            pieces = [("", self._as_written(eq.rhs, f"{where}.rhs"), eq.rhs)]
        for label, expr, text in pieces:
            found = self._walk(expr, dims, f"{where} {label}".strip())
            if found is dimensions.FREE or found == expected:
                continue
            subject = f"{label} value '{text}'" if label else f"'{text}'"
            raise self.fail(
                where,
                f"{subject.strip()} has dimension {dimensions.show(found)}, but {eq.defines} is {dimensions.show(expected)}",
                self._hint(found, expected, expr),
                errors.UnitMismatchError,
            )
        if len(pieces) > 1:  # the case values are the branches of one Piecewise: a bare literal among them too
            ambiguous = literal_units.ambiguous_case_values([expr for _, expr, _ in pieces], sympy.Symbol(eq.defines), self.units)
            if ambiguous is not None:
                raise self.fail(f"{where} cases", ambiguous.text(), ambiguous.hint, errors.UnitMismatchError)
        for field, texts in (("valid_when", eq.valid_when), ("assumes", eq.assumes)):
            for text in texts:
                self._walk(self._as_written(text, f"{where}.{field}", boolean=True), dims, f"{where}.{field}")

    def _as_written(self, text: str, where: str, *, boolean: bool = False) -> sympy.Basic:
        """``text`` parsed with every node unevaluated, for the dimension check alone."""
        return expressions.parse_expression(text, self.symbols, path=self.path, where=where, boolean=boolean, as_written=True)

    def _walk(self, expr: sympy.Basic, dims: Mapping[sympy.Symbol, Any], where: str) -> Any:
        """The dimension of ``expr`` (as written); a mismatch, or a bare literal whose siblings'
        units differ in scale (``literal_units``), is a :class:`~symgpu.errors.UnitMismatchError`."""
        try:
            found = dimensions.dimension_of(expr, dims, as_written=True)
        except dimensions.Mismatch as exc:
            hint = ""
            if exc.found is not None and exc.expected is not None:
                hint = self._hint(exc.found, exc.expected, exc.expr)
            raise self.fail(where, exc.problem, hint, errors.UnitMismatchError) from None
        ambiguous = literal_units.ambiguous_literal(expr, self.units)
        if ambiguous is not None:
            raise self.fail(where, ambiguous.text(), ambiguous.hint, errors.UnitMismatchError)
        return found

    def _hint(self, found: Any, expected: Any, expr: sympy.Basic) -> str:
        """Suggest the likely fix for a dimensional mismatch."""
        found = dimensions.settle(found)
        expected = dimensions.settle(expected)
        ratio = dict(found / expected)
        clock_rate = {"[clock]": 1, "[time]": -1}
        if ratio in (clock_rate, {k: -v for k, v in clock_rate.items()}):
            clocks = [n for n, s in self.symbols.items() if dict(self._dims[s]) == clock_rate]
            named = f" ({', '.join(clocks)})" if clocks else ""
            return f"a clock conversion{named} may be missing"
        if len(ratio) == 1:
            (dim, power), = ratio.items()
            name = dim.strip("[]")
            return (f"the two sides differ by {dim}{'' if power == 1 else f'**{power}'}: check the units of "
                    f"{', '.join(sorted(str(s) for s in expr.free_symbols)) or 'the literals'}, or, if the source "
                    f"counts {name}s as pure numbers here, declare counts = [\"{name}\"] on the equation")
        used = ", ".join(f"{s}: {self.unit_text(str(s))}" for s in sorted(expr.free_symbols, key=str))
        return f"check the units of the symbols involved ({used})" if used else "check the literals"

    def _read_value(self, text: Any, name: str, where: str) -> pint.Quantity:
        if name not in self.units:
            raise self.fail(where, f"unknown symbol '{name}'", f"declared symbols: {suggest.alternatives(name, sorted(self.symbols), 'the model file (or its base) declares them under [symbols]')}")
        unit = self.units[name]
        try:
            value = _quantity(text, unit)
        except ValueError as exc:
            raise self.fail(where, str(exc), f"write a number (in {self.unit_text(name)}) or a quantity such as \"1.5 GHz\"") from None
        problem = value_domain.sign_problem(name, text, value.magnitude, self.symbol_definitions[name].assumptions)
        if problem:
            raise self.fail(where, problem, f"give a finite value in {self.unit_text(name)} that meets the declared assumptions")
        try:
            return units.exact_convert(value, unit)
        except pint.DimensionalityError:
            raise self.fail(
                where,
                f"{name} = '{text}' has dimension {units.format_dimension(value.dimensionality)}, but {name} is {units.format_dimension(unit.dimensionality)} (unit {self.unit_text(name)})",
                "correct the value's unit",
                errors.UnitMismatchError,
            ) from None

    def _build_presets(self) -> None:
        #: each preset's values given in a time for a symbol in cycles (or the reverse), as converted at its clock
        self.preset_conversions: dict[str, tuple[str, ...]] = {}
        by_id = {p.id: p for p in self.definition.presets}

        def resolve(preset_id: str, trail: tuple[str, ...]) -> dict[str, pint.Quantity]:
            if preset_id in self.presets:
                return self.presets[preset_id]
            if preset_id in trail:
                raise self.fail(f"[presets.{preset_id}].based_on", f"presets inherit in a cycle: {' -> '.join(trail + (preset_id,))}")
            preset = by_id[preset_id]
            values = dict(resolve(preset.based_on, trail + (preset_id,))) if preset.based_on else {}
            in_time: list[tuple[str, Any, pint.Quantity]] = []
            for name, text in preset.values:
                try:
                    values[name] = self._read_value(text, name, f"[presets.{preset_id}].values.{name}")
                except errors.UnitMismatchError:
                    given = _quantity(text, self.units[name])
                    if (given.units / self.units[name]).dimensionality not in (_HZ, 1 / _HZ):
                        raise
                    in_time.append((name, text, given))  # a time for a cycle symbol (or the reverse): at the preset's clock
            for name, text, given in in_time:
                values[name] = self._across_the_clock(preset_id, name, text, given, values)
            for name, _ in preset.notes:
                if name not in self.symbols and name != "_":
                    raise self.fail(f"[presets.{preset_id}].notes.{name}", f"unknown symbol '{name}'")
            self.presets[preset_id] = values
            return values

        for preset in self.definition.presets:
            resolve(preset.id, ())

    def _across_the_clock(self, preset_id: str, name: str, text: Any, given: pint.Quantity, values: Mapping[str, pint.Quantity]) -> pint.Quantity:
        """A preset's value in a time for ``name``, a symbol in cycles (or the reverse), moved across the preset's own clock
        (the model's one frequency input, or of several the one named ``clock``, at the preset's value or its constant one)
        as ``--set`` moves it (:func:`symgpu.units.moved`), the conversion kept for ``check`` and ``show`` to say
        (:attr:`preset_conversions`): a tester's preset file with ``mem_lat = "0.25 us"`` failed ``symgpu check``.

        Raises:
            errors.UnitMismatchError: no one clock, or the preset gives it no value: what to write instead.
        """
        frequencies = [n for n, u in self.units.items() if u.dimensionality == _HZ and n not in self.defining]
        clock_name = frequencies[0] if len(frequencies) == 1 else ("clock" if "clock" in frequencies else None)
        clock = (values[clock_name] if clock_name in values else self.constants.get(clock_name)) if clock_name else None
        unit = self.units[name]
        if clock is None:
            why = f"preset {preset_id} gives no {clock_name}" if clock_name else f"{self.definition.id} has no one clock input to convert it at"
            raise self.fail(f"[presets.{preset_id}].values.{name}",
                            f"{name} = '{text}' is {units.format_dimension(given.dimensionality)}, but {name} is "
                            f"{units.format_dimension(unit.dimensionality)} (unit {self.unit_text(name)}), and {why}",
                            f"write {name} in {self.unit_text(name)}" + (f", or give {clock_name} in the preset" if clock_name else ""),
                            errors.UnitMismatchError)
        dividing = (given.units / unit).dimensionality == _HZ
        value = units.moved(given, unit, ((clock, 1 if dividing else -1),))
        said = f"{name} = {text} = {value.magnitude:.10g} {self.unit_text(name)} at {clock_name} = {clock:~.10g}"
        self.preset_conversions[preset_id] = (*self.preset_conversions.get(preset_id, ()), said)
        return value

    def _check_validation(self) -> None:
        self._validation_inputs = {case.id: self.read_case(case) for case in self.definition.validation}

    @property
    def validation_inputs(self) -> dict[str, ValidationInputs]:
        """Each validation case read (:meth:`read_case`), by case id: read and checked when the model is built, or,
        where a record says its definition passed the checks (:mod:`symgpu.model.check_record`), when first asked for."""
        kept: dict[str, ValidationInputs] | None = self.__dict__.get("_validation_inputs")
        if kept is None:
            self._check_validation()
            kept = self._validation_inputs
        return kept

    def read_case(self, case: schema.ValidationCase) -> ValidationInputs:
        """Check a validation case and read its values (:class:`ValidationInputs`)."""
        where = f"validation {case.id}"
        for part in case.preset.split("+") if case.preset else ():
            if part.strip() not in self.presets:
                raise self.fail(f"{where}.preset", f"unknown preset '{part.strip()}'" + (f" in '{case.preset}'" if "+" in case.preset else ""),
                                f"presets: {', '.join(self.presets) or 'none'}; combine a GPU and a workload with '+'")
        inputs = tuple((name, self._read_value(text, name, f"{where}.inputs.{name}")) for name, text in case.inputs)
        expect: list[tuple[str, pint.Quantity | None]] = []
        if case.derivation:
            if case.derivation not in {r.id for r in self.definition.derivations}:
                raise self.fail(f"{where}.derivation", f"unknown derivation '{case.derivation}'",
                                f"derivations: {', '.join(r.id for r in self.definition.derivations) or 'none'}")
            request = next(r for r in self.definition.derivations if r.id == case.derivation)
            for name, text in case.expect:
                if name not in ("result", "location"):
                    raise self.fail(f"{where}.expect.{name}", f"a case on a derivation checks 'result' or 'location', not '{name}'")
                try:
                    value = units.quantity(text)
                except ValueError as exc:
                    raise self.fail(f"{where}.expect.{name}", str(exc)) from None
                self._answer_dimension(request, name, text, value, f"{where}.expect.{name}")
                expect.append((name, value))
            return ValidationInputs(case, inputs, tuple(expect))
        for name, text in case.expect:
            if str(text).strip().lower() == schema.DOMAIN_ERROR:
                if name not in self.symbols:
                    raise self.fail(f"{where}.expect.{name}", f"unknown symbol '{name}'")
                expect.append((name, None))
                continue
            self._read_value(text, name, f"{where}.expect.{name}")
            expect.append((name, _quantity(text, self.units[name])))
        return ValidationInputs(case, inputs, tuple(expect))

    def _check_derivations(self, checked: bool = False) -> None:
        """Every name a ``[[derivations]]`` entry gives is the model's; where the definition has not passed these checks
        before (``checked``: a record says it has), a solve's target and a fixed point's variable have the quantity's dimension."""
        for request in self.definition.derivations:
            for key in ("quantity", "variable", "over", "for"):
                name = request.get(key)
                if isinstance(name, str) and name not in self.symbols and name not in self.equations:
                    raise self.fail(f"derivation {request.id}.{key}", f"unknown symbol '{name}'", f"declared symbols: {suggest.alternatives(name, sorted(self.symbols), 'the model file (or its base) declares them under [symbols]')}")
            if not checked:
                self._check_request_dimensions(request)
                self._check_request_relations(request)

    def _defined(self, name: Any) -> str | None:
        """The symbol a derivation's quantity names (itself, or what the equation of that id defines), else None: read
        from the file's definitions, so a warm model builds no equation for it."""
        found = next((e.defines for e in self.definition.equations if e.id == name), None) if isinstance(name, str) else None
        return found if found is not None else name if isinstance(name, str) and name in self.units else None

    def _check_request_dimensions(self, request: schema.DerivationRequest) -> None:
        """A solve's ``target`` and each ``substitute`` value have the dimension of what they stand for (the quantity, the
        substituted symbol), and a fixed point's variable the quantity's (the variable is the quantity's next value), as written
        in the file, the dimensions the quantity's equations count as pure numbers left out (:meth:`counted`), as the
        derivation reads them (an outside tester's finding, round 13, F3: ``target = "9*n0/10"``, warp/SM, for a quantity in
        GB/s passed the check and failed at derive naming the solution; a ``substitute`` of another dimension passed it and
        failed at derive)."""
        quantity = self._defined(request.get("quantity"))
        variable = next((request.get(k) for k in ("variable", "over", "for") if request.get(k)), None)
        if quantity is None:
            return
        dims = self.uncounted_dims(self.counted(quantity, request.get("stop_at")))
        for name, text in _pairs(request.get("substitute")):
            if name in self.symbols and isinstance(text, str):
                self._written_as(text, name, dims, f"derivation {request.id}.substitute.{name}", f"substitute {name} = '{text}'")
        target = request.get("target")
        if request.op == "solve" and isinstance(target, str):
            self._written_as(target, quantity, dims, f"derivation {request.id}.target", f"target '{target}'", with_unit=True)
        if request.op == "fixed_point" and isinstance(variable, str) and variable in self.symbols \
                and dims[self.symbols[variable]] != dims[self.symbols[quantity]]:
            raise self.fail(f"derivation {request.id}.variable", f"the fixed point's variable {variable} is "
                            f"{dimensions.show(dims[self.symbols[variable]])}, but {quantity} is "
                            f"{dimensions.show(dims[self.symbols[quantity]])}: {variable} = {quantity}({variable}) needs one "
                            f"dimension", f"name a variable of {quantity}'s dimension (unit {self.unit_text(quantity)})",
                            errors.UnitMismatchError)

    def _written_as(self, text: str, name: str, dims: Mapping[sympy.Symbol, Any], where: str, subject: str, *,
                    with_unit: bool = False) -> None:
        """``text`` (a request's, read as written) has symbol ``name``'s dimension in ``dims``; a bare number has every one. A
        value with its unit ("2 us") has its unit's where ``with_unit`` (a target); else (a substitute) it is left to the
        derivation, which moves it across the model's clock, warp size or SM count where it can (:mod:`symgpu.derive.targets`).

        Raises:
            errors.UnitMismatchError: another dimension, or inconsistent ones: the file, the key and both dimensions.
        """
        try:
            found = self._walk(self._as_written(text, where), dims, where)
        except errors.ModelFileError as exc:
            try:  # a value with its unit ("2 us"), not an expression of the model
                found = units.quantity(text).dimensionality
            except (ValueError, TypeError):
                raise exc from None
            if not with_unit:
                return
        expected = dims[self.symbols[name]]
        if found is not dimensions.FREE and found != expected:
            raise self.fail(where, f"{subject} has dimension {dimensions.show(found)}, but {name} is {dimensions.show(expected)} "
                            f"(unit {self.unit_text(name)})", f"write it in the unit of {name}", errors.UnitMismatchError)

    def _check_request_relations(self, request: schema.DerivationRequest) -> None:
        """Each ``assume`` relation compares things of one dimension, and a limit's finite point (``to``/``point``, an
        expression) has its variable's, as written in the file (an assumption ``BW > peak``, GB/s against TFLOP/s, passed
        the check and was taken as a number against a number; a limit of ``ws`` in KiB at ``lat_L1`` in cycles was answered).
        The dimensions the quantity's equations count as pure numbers (:meth:`counted`) are left out on both sides."""
        dims = self.uncounted_dims(self.counted(self._defined(request.get("quantity")), request.get("stop_at")))
        for index, text in enumerate(request.get("assume") or ()):
            where = f"derivation {request.id}.assume[{index}]"
            self._walk(self._as_written(str(text), where, boolean=True), dims, where)
        variable = next((request.get(k) for k in ("variable", "over", "for") if request.get(k)), None)
        point = next((request.get(k) for k in ("to", "point") if request.get(k) is not None), None)
        if request.op != "limit" or not isinstance(point, str) or not isinstance(variable, str) or variable not in self.symbols:
            return
        if point.strip().lower().lstrip("+-") in ("oo", "inf", "infinity"):
            return
        where = f"derivation {request.id}.to"
        found = self._walk(self._as_written(point, where), dims, where)
        expected = dims[self.symbols[variable]]
        if found is not dimensions.FREE and found != expected:
            raise self.fail(where, f"the limit point '{point}' has dimension {dimensions.show(found)}, but {variable} is "
                            f"{dimensions.show(expected)} (unit {self.unit_text(variable)})",
                            f"write the point in the unit of {variable}", errors.UnitMismatchError)

    def counted(self, quantity: Any, stop_at: Any = ()) -> frozenset[str]:
        """The dimensions the equations defining ``quantity`` count as pure numbers, none through a quantity in ``stop_at``
        (:func:`~symgpu.model.counted_dimensions.counted`): what every check of an expression standing for a symbol of a
        derivation of ``quantity`` leaves out (:meth:`dimension_as`)."""
        return counted_dimensions.counted(self.definition, quantity, stop_at if isinstance(stop_at, (list, tuple, frozenset)) else ())

    def uncounted_dims(self, counts: Iterable[str] = ()) -> Mapping[sympy.Symbol, Any]:
        """Every symbol's dimension without those ``counts`` names (the equations in use count them as pure numbers)."""
        return counted_dimensions.without_counts(self._dims, counts)

    def dimension_as(self, expr: sympy.Basic, name: str, counts: Iterable[str] = ()) -> Any:
        """``expr``'s dimension, which must be symbol ``name``'s, the dimensions ``counts`` names (those the equations in use
        count as pure numbers: a derivation's, or :meth:`counted`) left out on both sides: the one check of an expression
        standing for a symbol (:func:`~symgpu.model.counted_dimensions.dimension_as`).

        Raises:
            dimensions.Mismatch: ``expr``'s own dimensions are inconsistent.
            counted_dimensions.Differs: it has another dimension than ``name``.
        """
        return counted_dimensions.dimension_as(expr, self.symbols[name], self.uncounted_dims(counts))

    def in_one_dimension(self, relations: tuple[sympy.Basic, ...], counts: Iterable[str] = ()) -> tuple[sympy.Basic, ...]:
        """A caller's assumptions (``--assume``, API ``assume=``), parsed, each comparing quantities of one dimension, the
        dimensions ``counts`` names (those the quantity's equations count: :meth:`counted`) left out, as a model file's
        ``assume`` must (:meth:`_check_request_relations`).

        Raises:
            errors.UsageError: one compares quantities of different dimensions (``BW > peak``, GB/s against TFLOP/s would
                be read as a number against a number).
        """
        dims = self.uncounted_dims(counts)
        for relation in relations:
            if not dimensions.consistent(relation, dims):
                raise errors.UsageError(f"{self.definition.id}: the assumption {sympy.sstr(relation)} compares quantities of "
                                        "different dimensions; give a relation in one dimension")
        return relations

    def as_target(self, target: sympy.Basic, name: str, counts: Iterable[str] = (), what: str = "target", shown: str | None = None) -> sympy.Basic:
        """A caller's solve target (``--target``, API ``target=``), or another expression that stands for quantity ``name``
        (``what``: a limit's point for its variable, ``shown`` as given), parsed, in ``name``'s dimension (:meth:`dimension_as`,
        ``counts`` left out: the derivation's), as a model file's ``target`` must be (:meth:`_check_request_dimensions`); a
        bare number has every dimension.

        Raises:
            errors.UsageError: it has another dimension (``--target L1``, KiB, for a latency in cycles, was read as a
                number of base units: 192 KiB as 196608 cycles; ``limit ... --var ws --to lat_L1`` was answered).
        """
        if name not in self.symbols or not isinstance(target, sympy.Expr) or target.is_number:
            return target
        shown = sympy.sstr(target) if shown is None else shown
        try:
            self.dimension_as(target, name, counts)
        except dimensions.Mismatch as exc:
            raise errors.UsageError(f"{self.definition.id}: {what} {shown} is dimensionally inconsistent: {exc.problem}") from None
        except counted_dimensions.Differs as exc:
            noun = what.split()[-1]
            raise errors.UsageError(f"{self.definition.id}: {what} {shown} is {exc.found}, but {name} is "
                                    f"{exc.expected} ({self.unit_text(name)}); give a {noun} in a unit of {name}") from None
        return target

    def _answer_dimension(self, request: schema.DerivationRequest, which: str, text: str, value: pint.Quantity, where: str) -> None:
        """A validation case's expected ``result``/``location`` of a derivation has the dimension of the answer: the quantity
        (an extremum's or a limit's value, a table of regimes) or the variable (a solve's root, a boundary, a fixed point, an
        extremum's location), as an ordinary case's value has its symbol's (an outside tester's finding, round 13, F2: a
        minimum in cycles expected as '0.1467 us' passed the check and failed validate with pint's message). A value in
        another dimension is refused, not converted (a time for cycles at the preset's clock is for ``eval --unit``)."""
        variable = next((request.get(k) for k in ("variable", "over", "for") if request.get(k)), None)
        by_variable = which == "location" or request.op in ("solve", "boundary", "fixed_point")
        name = variable if by_variable else self._defined(request.get("quantity"))
        if not isinstance(name, str) or name not in self.units or value.dimensionality == self.units[name].dimensionality:
            return
        what = f"{'location' if which == 'location' else 'result'} of derivation {request.id} ({request.op} of {request.get('quantity')})"
        raise self.fail(where, f"{which} = '{text}' has dimension {units.format_dimension(value.dimensionality)}, but the {what} "
                        f"is {name}'s, {units.format_dimension(self.units[name].dimensionality)} (unit {self.unit_text(name)})",
                        f"correct the value's unit (write it in {self.unit_text(name)})", errors.UnitMismatchError)

    def _check_tables(self) -> None:
        occupancy = self.definition.occupancy
        if occupancy is not None:
            for name, _ in occupancy.symbols:
                if name not in self.symbols:
                    raise self.fail("[occupancy.symbols]", f"unknown symbol '{name}'", f"declared symbols: {suggest.alternatives(name, sorted(self.symbols), 'the model file (or its base) declares them under [symbols]')}")
            for preset, _ in occupancy.presets:
                if preset not in self.presets:
                    raise self.fail("[occupancy.presets]", f"unknown preset '{preset}'", f"presets: {', '.join(self.presets) or 'none'}")
        for table in self.definition.tables:
            where = f"table {table.id}"
            for name in table.columns:
                if name not in self.symbols:
                    raise self.fail(f"{where}.columns", f"unknown symbol '{name}'", f"declared symbols: {suggest.alternatives(name, sorted(self.symbols), 'the model file (or its base) declares them under [symbols]')}")
            for preset in table.presets:
                unknown = [part.strip() for part in preset.split("+") if part.strip() not in self.presets]
                if unknown:
                    raise self.fail(f"{where}.presets", f"unknown preset '{unknown[0]}'", f"presets: {', '.join(self.presets) or 'none'}")

    def unit_text(self, name: str) -> str:
        """The declared unit of ``name`` as written in the file."""
        return self.symbol_definitions[name].unit
