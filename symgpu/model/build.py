"""A model file built into SymPy objects with pint units, checked on construction."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pint
import sympy

from symgpu import arguments, errors, suggest, units
from symgpu.memo import MemoFamily, Tally
from symgpu.units import dimensions, literal_units
from symgpu.model import case_logic, check_record, expressions, lazy_build, literal_constants, plot_requests, printing, schema, substitution
from symgpu.model.chains import Chains
from symgpu.model.checks import ModelChecks
from symgpu.model.plot_kinds import PlotEntry
from symgpu.model.records import Case, Equation, LazyEquations, ValidationInputs


#: per model (weakly: they go with the model), what :meth:`Model.expression` keeps; all of it can be computed again:
#: each quantity's expression in its inputs, by (equation id, quantities kept as symbols)
_EXPANDED: MemoFamily[tuple[str, frozenset[str]], sympy.Expr] = MemoFamily("model.build.expanded", 4096)
#: each defined quantity's expansion, by (name, the part of the kept quantities it reaches)
_SUBSTITUTED: MemoFamily[tuple[str, frozenset[str]], sympy.Expr] = MemoFamily("model.build.substituted", 4096)
#: the defined quantities each defined quantity's equation uses, directly or not
_REACHABLE: MemoFamily[str, frozenset[str]] = MemoFamily("model.build.reachable", 4096)


#: models built (a report's up-to-date check, for one, builds none)
_BUILT = Tally("model.build.models")
#: models whose dimensions and validation cases were checked (not where a record says their definition passed)
_CHECKED = Tally("model.build.checked")


class Model(ModelChecks):
    """A GPU performance model: symbols with units, equations, presets and validation cases.

    Construction builds every expression with the safe parser and checks every equation,
    case, condition, preset value and validation case dimensionally (the checks:
    :class:`~symgpu.model.checks.ModelChecks`); any problem raises
    :class:`~symgpu.errors.ModelFileError` naming the file, the key and the fix.

    Args:
        definition: the record produced by :func:`symgpu.model.loader.read_definition`.
        whole: build and check every part now (``check``, ``validate``, the reports). False (a question's load), with
            no record that the definition passed: each equation built and checked when first read, with those it is
            defined through (:mod:`symgpu.model.lazy_build`); constants, presets, requests and tables checked now.
    """

    def __init__(self, definition: schema.ModelDefinition, *, whole: bool = True) -> None:
        _BUILT.add()
        self.definition = definition
        self.id = definition.id
        self.path = definition.path
        self.symbol_definitions: dict[str, schema.SymbolDefinition] = {}
        self.symbols: dict[str, sympy.Symbol] = {}
        self.units: dict[str, pint.Unit] = {}
        self._dims: dict[sympy.Symbol, Any] = {}
        self._build_symbols()
        kept = check_record.recall(definition)  # a record that the definition passed every check: they are skipped
        #: each equation by id, and by the symbol it defines, in file order
        self.equations: Mapping[str, Equation]
        self.defining: Mapping[str, Equation]
        #: the bare literals of the equations read in a scaled unit, made constants (:mod:`symgpu.model.literal_constants`)
        self.literal_constants: tuple[literal_constants.LiteralConstant, ...] = ()
        # checked: the whole-model checks passed before (a record), or are left to the paths that build whole
        # (a cold model built for a question, each equation checked when read: :mod:`symgpu.model.lazy_build`)
        read_lazily = self._build_equations(kept, whole)
        checked = kept is not None or read_lazily
        #: names of the symbols defined by equations, in file order
        self.quantities: tuple[str, ...] = tuple(self.defining)
        if not checked:
            _CHECKED.add()
            self._check_acyclic()
            self._check_dimensions()
        self.constants: dict[str, pint.Quantity] = {
            s.name: self._read_value(s.value, s.name, f"[symbols.{s.name}].value")
            for s in self.symbol_definitions.values() if s.role == "constant"
        }
        self.presets: dict[str, dict[str, pint.Quantity]] = {}
        self._build_presets()
        if not checked:
            self._check_validation()  # else read when first asked for (:attr:`validation_inputs`)
        self._check_derivations(kept is not None)
        self._check_tables()
        #: the ``[[plots]]`` entries, each read into its kind's record (:mod:`symgpu.model.plot_kinds`)
        self.plots: tuple[PlotEntry, ...] = plot_requests.read(self, checked=checked)
        if not checked:
            check_record.remember(definition, bool(self.literal_constants))
        substitution.save()

    # ------------------------------------------------------------------ construction
    def _build_symbols(self) -> None:
        for sym in self.definition.symbols:
            try:
                unit = units.unit(sym.unit)
            except ValueError as exc:
                raise self.fail(f"[symbols.{sym.name}].unit", str(exc), "write a unit such as cycle, B, GB/s, warp/SM, winst/cycle, thread") from None
            assumptions: dict[str, bool] = {"real": True}
            for item in sym.assumptions:
                assumptions[item] = True
            self.symbol_definitions[sym.name] = sym
            self.symbols[sym.name] = sympy.Symbol(sym.name, **assumptions)
            self.units[sym.name] = unit
            self._dims[self.symbols[sym.name]] = unit.dimensionality

    def parse(self, text: str, where: str, *, boolean: bool = False) -> sympy.Basic:
        """Parse an expression string of this model (declared symbols only)."""
        return expressions.parse_expression(text, self.symbols, path=self.path, where=where, boolean=boolean)

    def _build_equations(self, kept: str | None, whole: bool) -> bool:
        """Build the equations: each when first read (:class:`~symgpu.model.records.LazyEquations`) where a record says this
        definition passed every check (``kept``), or, not ``whole``, where there is none (:mod:`symgpu.model.lazy_build`: each
        checked as read), those that may make a literal constant first (:meth:`_prebuilt`); else every one now, checked as
        built. True for the second (the whole-model checks are left to the paths that build models whole)."""
        self._literals = literal_constants.Literals(dict(self.units))
        by_id = {eq.id: eq for eq in self.definition.equations}
        built: dict[str, Equation] = {}
        if kept in (check_record.PASSED, check_record.PASSED_WITH_LITERALS):
            self._made = self._prebuilt() if kept == check_record.PASSED_WITH_LITERALS else {}
            self.equations = LazyEquations(by_id, built, self._kept_equation)
            self.defining = LazyEquations({eq.defines: eq for eq in by_id.values()}, built, self._kept_equation)
            return False
        if kept is None and not whole:
            seen: dict[str, str] = {}
            for eq in self.definition.equations:
                self._check_defines(eq, seen)
            self._made = self._prebuilt()
            self._check_dimensions(list(self._made.values()))  # at once, as a whole build would: where a constant comes from
            by_defines = {eq.defines: eq for eq in by_id.values()}
            cold = lazy_build.ColdEquations(by_defines, built, self._checked_equation, self.fail, self._all_read)
            self.equations = LazyEquations(by_id, built, cold.read)
            self.defining = LazyEquations(by_defines, built, cold.read)
            return True
        equations: dict[str, Equation] = {}
        defining: dict[str, Equation] = {}
        self.equations, self.defining = equations, defining
        defined: dict[str, str] = {}
        for eq in self.definition.equations:
            self._check_defines(eq, defined)
            equation = self._equation(eq, self._literals)
            equations[eq.id] = equation
            defining[eq.defines] = equation
        self._declare_literals()
        return False

    def _all_read(self) -> None:
        """Every equation of a model built for a question is read and checked: the whole build's checks left (validation,
        plots) run, and where they pass its record is kept; where one fails, none is, and the question goes on."""
        if "plots" not in self.__dict__:
            return  # still being built (nothing it builds reads an equation)
        try:
            self._check_validation()
            plot_requests.read(self)
        except errors.ModelFileError:
            return
        _CHECKED.add()
        check_record.remember(self.definition, bool(self.literal_constants))

    def _check_defines(self, eq: schema.EquationDefinition, seen: dict[str, str]) -> None:
        """The symbol ``eq`` defines is declared, no constant, and not defined by an equation before it (``seen``:
        the symbols defined so far, each by its equation's id; ``eq``'s added)."""
        where = f"equation {eq.id}"
        if eq.defines not in self.symbols:
            raise self.fail(f"{where}.defines", f"undeclared symbol '{eq.defines}'", f"declare it under [symbols.{eq.defines}]")
        if self.symbol_definitions[eq.defines].role == "constant":
            raise self.fail(f"{where}.defines", f"'{eq.defines}' is a constant and cannot be defined by an equation")
        if eq.defines in seen:
            raise self.fail(where, f"'{eq.defines}' is already defined by equation {seen[eq.defines]}", "give the alternative form its own symbol (e.g. a suffixed name)")
        seen[eq.defines] = eq.id

    def _prebuilt(self) -> dict[str, Equation]:
        """The equations that :func:`lazy_build.may_make_literal` cannot clear (every other makes no literal constant),
        built in file order as the whole build builds them, by id; the constants they made declared."""
        scaled = {n for n, u in self.units.items() if self._literals.every_dimension or not literal_units.same_scale(literal_units.unit_scale(u), 1.0)}
        prebuilt = {eq.id: self._equation(eq, self._literals) for eq in self.definition.equations
                    if lazy_build.may_make_literal(eq, self.symbols, scaled)}
        self._declare_literals()
        return prebuilt

    def _kept_equation(self, eq: schema.EquationDefinition) -> Equation:
        return self._made.pop(eq.id, None) or self._equation(eq)  # built by _prebuilt, or now

    def _checked_equation(self, eq: schema.EquationDefinition) -> Equation:
        if (equation := self._made.pop(eq.id, None)) is None:  # a prebuilt one is checked already
            self._check_units(equation := self._equation(eq))
        return equation

    def _declare_literals(self) -> None:
        self.literal_constants = self._literals.constants()
        for constant in self.literal_constants:
            self._declare_constant(constant)

    def _equation(self, eq: schema.EquationDefinition, literals: literal_constants.Literals | None = None) -> Equation:
        """One equation built and checked; its bare literals read in a scaled unit made constants of ``literals``
        (None: a record says the model has none)."""
        where = f"equation {eq.id}"
        cases: tuple[Case, ...] = ()
        if eq.cases:
            built = []
            for case in eq.cases:
                here = f"{where} case {case.id}"
                condition = sympy.true if case.when.strip() == "otherwise" else self.parse(case.when, f"{here}.when", boolean=True)
                built.append(Case(case.id, condition, self.parse(case.value, f"{here}.value"), case.note))
            cases = tuple(built)
            rhs = sympy.Piecewise(*[(c.value, c.condition) for c in cases])
        else:
            rhs = self.parse(eq.rhs, f"{where}.rhs")
        limiters = tuple((name, self.parse(text, f"{where}.limiters.{name}")) for name, text in eq.limiters)
        valid_when = tuple(self.parse(text, f"{where}.valid_when", boolean=True) for text in eq.valid_when)
        assumes = tuple(self.parse(text, f"{where}.assumes", boolean=True) for text in eq.assumes)
        if literals is not None and (literals.every_dimension or self._scaled_symbols(rhs, valid_when + assumes, self.symbols[eq.defines])):
            rhs, cases, limiters, valid_when = self._literals_given_units(literals, eq, rhs, cases, limiters, valid_when)
            assumes = self._conditions_given_units(literals, eq, "assumes", eq.assumes, assumes)
        if limiters:
            if not isinstance(rhs, (sympy.Min, sympy.Max)):
                raise self.fail(f"{where}.limiters", "limiters name the arguments of a top-level Min or Max, but the right-hand side is not one")
            for name, term in limiters:
                if term not in rhs.args:
                    shown = ", ".join(f"'{a}'" for a in rhs.args)
                    raise self.fail(f"{where}.limiters.{name}", f"'{term}' is not an argument of the Min/Max (arguments: {shown})")
        for text, condition in zip(eq.valid_when, valid_when):
            self._never_false(condition, text, f"{where}.valid_when", "no value of the equation is valid")
        for text, condition in zip(eq.assumes, assumes):
            self._never_false(condition, text, f"{where}.assumes", "no value of the equation is what it is described as")
        for case, built_case in zip(eq.cases, cases):
            self._never_false(built_case.condition, case.when, f"{where} case {case.id}.when", "the case never applies")
        for count in eq.counts:
            name = count.strip("[]")
            if not any(f"[{name}]" in dict(d) for d in self._dims.values()):
                raise self.fail(f"{where}.counts", f"'{count}' is not a dimension used by this model", "name a base dimension such as warp, thread, instruction")
        return Equation(eq, self.symbols[eq.defines], rhs, cases, limiters, valid_when, assumes)

    def _declare_constant(self, constant: literal_constants.LiteralConstant) -> None:
        self.symbol_definitions[constant.name] = schema.SymbolDefinition(
            constant.name, constant.description, constant.unit_text, role="constant", latex=constant.latex,
            assumptions=("positive",), value=f"{constant.value} {constant.unit_text}")
        self.symbols[constant.name] = sympy.Symbol(constant.name, real=True, positive=True)
        self.units[constant.name] = constant.unit
        self._dims[self.symbols[constant.name]] = constant.unit.dimensionality

    def for_request(self) -> Model:
        """A copy of this model that a request's numbers may be given to as constants (:meth:`given_constant`,
        :meth:`given_relation`); this model, loaded once and shared, stays as it was read."""
        twin = copy.copy(self)
        twin.symbol_definitions, twin.symbols = dict(self.symbol_definitions), dict(self.symbols)
        twin.units, twin._dims, twin.constants = dict(self.units), dict(self._dims), dict(self.constants)
        twin._literals = self._literals.copy()
        return twin

    def given_constant(self, value: sympy.Rational, unit: pint.Unit) -> sympy.Expr:
        """A number a request gives in ``unit`` (a scaled unit, the declared one of the symbol it is given for) as
        a constant of the model with that value and unit (:meth:`literal_constants.Literals.given`), declared here
        the first time, so every path reads it in that unit as it reads an equation's ``lit_200_ns``. Only on a
        model of :meth:`for_request` (evaluate and derive keep what they found per model, its constants fixed)."""
        made = self._literals.given(value, unit)
        self._declare_given()
        return made

    def given_relation(self, text: str, where: str, *, dry: bool = False) -> str:
        """A relation a request gives (``--assume 'L >= 400'``, L in ns) with each bare number that its siblings read
        in a scaled unit made a constant of that unit, as the equations' literals are (``L >= lit_400_ns``);
        ``text`` itself where there is none. ``dry``: only whether there is one (another text), nothing made."""
        self.parse(text, where, boolean=True)  # refused here, as before, where it is no relation of the model
        tree = expressions.parse_expression(text, self.symbols, path=self.path, where=where, boolean=True, as_written=True)
        new = (self._literals.copy() if dry else self._literals).rewrite(tree, "")
        if new is tree:
            return text
        if dry:
            return ""
        self._declare_given()
        return printing.sstr(literal_constants.evaluated(new))

    def _declare_given(self) -> None:
        for constant in self._literals.constants():
            if constant.name not in self.symbols:
                self._declare_constant(constant)
                self.constants[constant.name] = self._read_value(f"{constant.value} {constant.unit_text}", constant.name,
                                                                 f"constant {constant.name}")
                self.literal_constants += (constant,)

    def _scaled_symbols(self, rhs: sympy.Basic, valid_when: tuple[sympy.Basic, ...], defined: sympy.Symbol) -> bool:
        """Whether an equation defines or uses a symbol declared in a unit of scale other than 1 (else its literals are of scale 1)."""
        used = rhs.free_symbols.union({defined}, *[c.free_symbols for c in valid_when])
        return any(not literal_units.same_scale(literal_units.unit_scale(self.units[s.name]), 1.0) for s in used)

    def _literals_given_units(self, literals: literal_constants.Literals, eq: schema.EquationDefinition, rhs: sympy.Basic,
                              cases: tuple[Case, ...], limiters: tuple[tuple[str, sympy.Basic], ...],
                              valid_when: tuple[sympy.Basic, ...]) -> tuple[Any, tuple[Case, ...], tuple[tuple[str, sympy.Basic], ...], tuple[sympy.Basic, ...]]:
        """The equation's parts with each bare literal that is read in a scaled unit replaced by a constant of
        that unit (:mod:`symgpu.model.literal_constants`), walked as written; a part without one is kept as built."""
        where = f"equation {eq.id}"

        def written(text: str, here: str, boolean: bool = False) -> sympy.Basic:
            return expressions.parse_expression(text, self.symbols, path=self.path, where=here, boolean=boolean, as_written=True)

        def built(old: Any, tree: Any, new: Any) -> Any:
            return old if new is tree else literal_constants.evaluated(new)

        if eq.cases:
            values = [written(case.value, f"{where} case {case.id}.value") for case in eq.cases]
            new_values = literals.rewrite_siblings(values, eq.id, self.units[eq.defines])
            new_cases = []
            for case, written_value, new_value, definition in zip(cases, values, new_values, eq.cases):
                condition = case.condition
                if definition.when.strip() != "otherwise":
                    tree = written(definition.when, f"{where} case {case.id}.when", True)
                    condition = built(condition, tree, literals.rewrite(tree, eq.id))
                new_cases.append(Case(case.id, condition, built(case.value, written_value, new_value), case.note))
            if any(a.value is not b.value or a.condition is not b.condition for a, b in zip(cases, new_cases)):
                cases = tuple(new_cases)
                rhs = sympy.Piecewise(*[(c.value, c.condition) for c in cases])
        else:
            tree = written(eq.rhs, f"{where}.rhs")
            new_tree = literals.rewrite(tree, eq.id, self.units[eq.defines])
            rhs = built(rhs, tree, new_tree)
            if limiters and isinstance(new_tree, (sympy.Min, sympy.Max)):
                new_limiters = []
                for (name, term), text in zip(limiters, dict(eq.limiters).values()):
                    limiter = written(text, f"{where}.limiters.{name}")
                    new_limiter = literals.rewrite_siblings(list(tree.args) + [limiter], eq.id, self.units[eq.defines])[-1]
                    new_limiters.append((name, built(term, limiter, new_limiter)))
                limiters = tuple(new_limiters)
        return rhs, cases, limiters, self._conditions_given_units(literals, eq, "valid_when", eq.valid_when, valid_when)

    def _conditions_given_units(self, literals: literal_constants.Literals, eq: schema.EquationDefinition, field: str,
                                texts: tuple[str, ...], conditions: tuple[sympy.Basic, ...]) -> tuple[sympy.Basic, ...]:
        """An equation's ``valid_when`` or ``assumes`` conditions with each bare literal read in a scaled unit
        replaced by a constant of that unit; a condition without one is kept as built."""
        out = []
        for text, condition in zip(texts, conditions):
            tree = expressions.parse_expression(text, self.symbols, path=self.path, where=f"equation {eq.id}.{field}", boolean=True, as_written=True)
            new = literals.rewrite(tree, eq.id)
            out.append(condition if new is tree else literal_constants.evaluated(new))
        return tuple(out)

    def _never_false(self, condition: sympy.Basic, text: str, where: str, consequence: str) -> None:
        """Refuse a condition SymPy decides false from the symbols' declared assumptions alone
        (``N <= 0`` with ``N`` declared positive): an empty domain, not a model."""
        if condition is not sympy.false:
            return
        written = expressions.parse_expression(text, self.symbols, path=self.path, where=where, boolean=True, as_written=True)
        declared = "; ".join(f"{s} is {', '.join(self.symbol_definitions[s.name].assumptions) or 'real'}"
                             for s in sorted(written.free_symbols, key=str))
        raise self.fail(where, f"'{text}' never holds: the declared assumptions rule it out ({declared or 'no symbols'}), so {consequence}",
                        "correct the condition, or the symbol's declared assumptions")

    def _check_acyclic(self) -> None:
        """Refuse equations that form a cycle, or a chain of more than :data:`~symgpu.model.chains.MAX_CHAIN` equations each using the
        next (:class:`~symgpu.model.chains.Chains`, from every quantity in file order)."""
        defining = self.defining
        chains = Chains(lambda name: (s.name for s in defining[name].rhs.free_symbols if s.name in defining), lambda name: defining[name].id, self.fail)
        chains.check(defining)

    # ------------------------------------------------------------------ queries
    @property
    def title(self) -> str:
        """The model's title."""
        return self.definition.title

    def symbol(self, name: str) -> sympy.Symbol:
        """Return the SymPy symbol called ``name``.

        Raises:
            errors.UsageError: no such symbol.
        """
        try:
            return self.symbols[name]
        except KeyError:
            raise errors.UsageError(f"{self.id}: unknown symbol '{name}' (declared: {suggest.alternatives(name, sorted(self.symbols))})") from None

    def dimension(self, name: str) -> Any:
        """The pint dimensionality of symbol ``name``."""
        return self._dims[self.symbol(name)]

    def equation_for(self, name: str) -> Equation:
        """Return the equation defining ``name`` (a symbol) or with id ``name``.

        Raises:
            errors.UsageError: ``name`` is neither a defined quantity nor an equation id.
        """
        if name in self.defining:
            return self.defining[name]
        if name in self.equations:
            return self.equations[name]
        raise errors.UsageError(f"{self.id}: '{name}' is not a quantity defined by an equation (quantities: {suggest.alternatives(name, self.quantities)})")

    def expression(self, name: str, *, stop_at: tuple[str, ...] | frozenset[str] | str = ()) -> sympy.Expr:
        """Return quantity ``name`` in terms of inputs, intermediate equations substituted.

        Args:
            name: a defined quantity (or equation id).
            stop_at: quantities to keep as symbols instead of expanding them.
        """
        equation = self.equation_for(name)
        stop = arguments.names(stop_at)  # a lone name is one name (it was read as its characters, and ignored)
        key = (equation.id, stop)
        expanded = _EXPANDED.of(self)
        found = expanded.get(key)
        if found is None:
            found = expanded[key] = self._expand(equation.rhs, stop)
        return found

    def _expand(self, expr: sympy.Expr, stop: frozenset[str]) -> sympy.Expr:
        """``expr`` with every defined quantity not in ``stop`` substituted, recursively.

        NOTE: each defined quantity's expansion is kept (the memo family ``model.build.substituted``) for every later
        call: rebuilding the nested Min/Max of a large model costs seconds. It is keyed by the part of ``stop`` that the
        quantity depends on, so every caller gets the same expression.
        """
        mapping = {}
        substituted = _SUBSTITUTED.of(self)
        for sym in expr.free_symbols:
            if sym.name in self.defining and sym.name not in stop:
                sub_key = (sym.name, stop & self._reachable(sym.name))
                found = substituted.get(sub_key)
                if found is None:
                    found = substituted[sub_key] = self._expand(self.defining[sym.name].rhs, stop)
                mapping[sym] = found
        found = substitution.xreplace(expr, mapping) if mapping else expr
        return case_logic.plain(found) if mapping and expr.has(sympy.Piecewise) else found  # an ITE condition as And/Or

    def _reachable(self, name: str) -> frozenset[str]:
        """The defined quantities that defined quantity ``name``'s equation uses, directly or not."""
        reachable = _REACHABLE.of(self)
        kept = reachable.get(name)
        if kept is None:
            found: set[str] = set()
            for sym in self.defining[name].rhs.free_symbols:
                if sym.name in self.defining:
                    found |= {sym.name} | self._reachable(sym.name)
            kept = reachable[name] = frozenset(found)
        return kept

    def dependencies(self, name: str, *, stop_at: tuple[str, ...] | frozenset[str] = ()) -> list[Equation]:
        """Equations used to compute ``name`` (itself first), each once."""
        order: list[Equation] = []
        seen: set[str] = set()
        stop = frozenset(stop_at)

        def visit(quantity: str) -> None:
            if quantity in seen:
                return
            seen.add(quantity)
            equation = self.equation_for(quantity)
            order.append(equation)
            for sym in sorted(equation.rhs.free_symbols, key=str):
                if sym.name in self.defining and sym.name not in stop:
                    visit(sym.name)

        visit(self.equation_for(name).definition.defines)
        return order

    def inputs(self, name: str, *, stop_at: tuple[str, ...] | frozenset[str] = ()) -> tuple[str, ...]:
        """Sorted names of the symbols ``name`` needs values for (constants included)."""
        return tuple(sorted(s.name for s in self.expression(name, stop_at=stop_at).free_symbols))

    def preset(self, preset_id: str) -> dict[str, pint.Quantity]:
        """Values of a preset (inherited values included).

        Presets combine with ``+``: ``"gtx280+tiled_matmul"`` takes a GPU's values and then a
        workload's, later values winning.

        Raises:
            errors.UsageError: no such preset.
        """
        values: dict[str, pint.Quantity] = {}
        for part in preset_id.split("+"):
            part = part.strip()
            if part not in self.presets:
                raise errors.UsageError(f"{self.id}: unknown preset '{part}' (presets: {suggest.alternatives(part, self.presets)})")
            values.update(self.presets[part])
        return values

    def validation_case(self, case: schema.ValidationCase) -> ValidationInputs:
        """``case`` with its values read (:class:`~symgpu.model.records.ValidationInputs`): the record
        built when the model was, for one of its own cases (with ``case``'s tolerances and notes);
        read now for any other case.

        Raises:
            errors.ModelFileError: a value of a case the model does not hold cannot be read.
        """
        kept = self.validation_inputs.get(case.id)
        if kept is not None and (kept.case.preset, kept.case.inputs, kept.case.expect, kept.case.derivation) == (
                case.preset, case.inputs, case.expect, case.derivation):
            return kept if kept.case == case else ValidationInputs(case, kept.inputs, kept.expect)
        return self.read_case(case)

    def dimension_of(self, expr: sympy.Basic) -> Any:
        """Dimension of any expression in this model's symbols (free literals count as pure numbers).

        Raises:
            errors.UnitMismatchError: the expression is dimensionally inconsistent.
        """
        return dimensions.settle(self._walk(expr, self._dims, "expression"))

    def __repr__(self) -> str:
        return f"<Model {self.id}: {len(self.equations)} equations, {len(self.presets)} presets>"
