"""Command-line front end of the derivation engine.

Commands::

    symgpu solve MODEL QUANTITY --for VAR [--target EXPR]
    symgpu regimes MODEL QUANTITY [--over VAR]
    symgpu boundary MODEL QUANTITY --for VAR [--between A B]
    symgpu extremum MODEL QUANTITY --over VAR (--max | --min)
    symgpu limit MODEL QUANTITY --var VAR --to VALUE
    symgpu fixed-point MODEL QUANTITY --var VAR
    symgpu derive MODEL [ID ...]          # run the model file's [[derivations]]
    symgpu repl                           # IPython (or the standard console) with models loaded

Each derivation command takes ``[--preset P] [--set NAME=VALUE ...] [--unit U [--clock F]] [--json]`` and also
``--substitute NAME=EXPR`` (symbolic substitution before deriving) and ``--assume REL``
(an extra assumption such as ``'mem_lat > alu_lat'``). Expression text is parsed only by the
model's safe parser.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np
import pint
import sympy

from symgpu import errors, suggest
from symgpu.derive import summary
from symgpu.cli import assume_units, common, derive_batch, flat_stretch, given_numbers, repl_command
from symgpu.numbers import json_number
from symgpu import derive
from symgpu.cli.operation_commands import OPERATION_COMMANDS, command_name
from symgpu.derive import at_point, declared_range, exact_roots, range_lines, result_form, rewritten_switch, solve_outside, whole_sides
from symgpu.derive.extra_records import RootRecord
from symgpu.derive.options import Options
from symgpu.evaluate import evaluator


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="model id or path to a .toml file")
    p.add_argument("quantity", help="a quantity defined by an equation (or an equation id)")
    common.add_value_options(p)
    common.add_unit_options(p, "the value at --preset/--set")
    p.add_argument("--substitute", "-S", action="append", default=[], metavar="NAME=EXPR",
                   help="substitute an expression before deriving, e.g. --substitute M=N")
    p.add_argument("--assume", "-a", action="append", default=[], metavar="RELATION",
                   help="an extra assumption, e.g. --assume 'mem_lat > alu_lat'; a bare number is read in the declared "
                        "unit of the symbols beside it, a quantity with a unit (--assume 'L <= 1 us') is converted to it")
    p.add_argument("--keep", "-k", action="append", default=[], metavar="NAME",
                   help="keep an intermediate quantity as a symbol instead of substituting its equation (repeatable)")
    p.add_argument("--omit", action="append", default=[], metavar="LIMITER",
                   help="leave a named limiter (a Min/Max argument: 'issue_bound', or 'EQUATION.LIMITER') out of the "
                   "quantity, e.g. to ask the model without one bound (repeatable; the answer is then not checked "
                   "against the model's own evaluation, which keeps every bound)")
    p.add_argument("--full", action="store_true", help="print every step and the whole expressions (default: a summary)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _kept(model: Any, names: list[str]) -> tuple[str, ...]:
    unknown = [n for n in names if n not in model.defining]
    if unknown:
        raise errors.UsageError(f"--keep {unknown[0]}: {model.id} has no quantity '{unknown[0]}' defined by an equation "
                                f"(defined: {suggest.alternatives(unknown[0], sorted(model.defining))})")
    return tuple(names)


def _substitutions(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise errors.UsageError(f"--substitute {item!r}: expected NAME=EXPR, e.g. --substitute M=N")
        out[name.strip()] = text.strip()
    return out


# ---------------------------------------------------------------------------- running
def _evaluate(model: Any, derivation: Any, args: argparse.Namespace, values: dict[str, Any]) -> dict[str, Any]:
    """The result's value(s) at the preset and values, in ``--unit`` when given (a clock turns cycles into time)."""
    out: dict[str, Any] = {}
    unit = getattr(args, "unit", None)
    # a --clock that converted a time --target (or --set) is not also a request to convert the value
    clock = None if (getattr(args, "target_note", None) or getattr(args, "set_clock", False)) and not unit else getattr(args, "clock", None)
    if args.preset is None and not values and not _of_constants(model, derivation):
        if unit or clock:
            raise errors.UsageError(f"--{'unit' if unit else 'clock'}: converts the value at a preset; give --preset or --set too")
        return out
    values = derive.result_values(derivation, values)  # a solve target kept as its quantity's value
    if derivation.operation == "regimes" and derivation.variable and not at_point.valued(model, derivation.variable, args.preset, values):
        return out  # the table along a variable the point leaves free: no one value at the point

    def number(expr: Any) -> pint.Quantity:
        if not isinstance(expr, sympy.Basic):
            raise errors.EvaluationError(f"{model.id}: the result {expr!r} is not a single expression")
        expr = derive.as_evaluated(model, derivation, expr)  # a numeric search's number is in the declared unit
        value = evaluator.evaluate_expression(model, expr, derivation.unit or None, preset=args.preset,
                                             values=evaluator.with_kept(model, expr, args.preset, values))
        converted = in_unit(value)
        raw.extend(np.ravel(np.asarray(converted.magnitude, dtype=float)).tolist())
        return converted

    def in_unit(value: pint.Quantity) -> pint.Quantity:
        converted, used = common.converted(model, value, unit, clock, quantity=args.quantity, preset=args.preset, values=values,
                                           variable=derivation.variable if derivation.operation in ("limit", "extremum") else None)
        if used is not None:
            out["clock"] = used.json()
        return converted

    raw: list[float] = []

    records = derive.roots_of(derivation)
    if derivation.operation == "boundary":  # the boundaries where the named regimes really meet at the point
        rewrites = _substitutions(getattr(args, "substitute", None) or []), tuple(getattr(args, "omit", None) or ())
        if any(rewrites):  # the quantity as rewritten switches where the model as written may not
            applying = derive.applying_boundaries(model, derivation, args.preset, values, rewritten_switch.expression(
                model, derivation.quantity, derivation.variable, *rewrites))
        else:
            applying = derive.applying_boundaries(model, derivation, args.preset, values)
        found = tuple(r for r in applying  # where --assume on the variable holds
                      if at_point.meets_assumed(model, args.assume, derivation.variable, args.preset, values, float(r.value.magnitude)))
        between = getattr(args, "between", None)
        as_written = between if not any(rewrites) else None  # the model's own ties and switches: of the model as written
        tie = derive.tied_limiters(model, derivation, as_written, args.preset, values) if as_written and not found else None
        if tie is not None:
            beside = f" beside {derivation.variable} = {tie.at:.10g}" if tie.at is not None else ""
            raise errors.NoAnswerHere(f"{model.id}: {args.quantity}: at {derive.where_text(args.preset, values)} {tie.binding} and {tie.other} "
                                      f"are tied (equal, {tie.value:.10g} {model.units[derivation.quantity]}){beside} and the regime does not "
                                      f"switch between them: {tie.binding} binds where they are equal (the first in the model file's order)")
        if not found:
            pair = " and ".join(between) if between else "its regimes"
            switches = derive.switches_beside(model, derivation, args.preset, values) if as_written else ()
            named = any(s.between(tuple(between or ())) for s in switches)  # the named switch is there, excluded for another reason
            unit = "" if model.unit_text(derivation.variable) in ("", "1") else f" {model.unit_text(derivation.variable)}"
            what = "; ".join(f"at {derivation.variable} = {s.value:.10g}{unit} the regime switches from "
                             f"{' = '.join(_label(r) for r in sorted(s.below))} to {' = '.join(_label(r) for r in sorted(s.above))}"
                             for s in switches if not named)
            if not switches and as_written and not args.assume and not declared_range.of(model, derivation.variable).integer:
                # what does switch along the variable there (a scan of the regime, none named): the pair is not among them
                try:
                    seen = [f"at {derivation.variable} = {summary.value_text(float(r.value.magnitude), common.unit_text(r.value))} the regime "
                            f"switches from {' to '.join(_label(side) for side in r.regime.split('|', 1))}"
                            for r in derive.applying_boundaries(model, dataclasses.replace(derivation, extra=derivation.extra.without("between")),
                                                                args.preset, values)]
                except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):  # the scan reads no regime there: the general reason
                    seen = []
                what = "; ".join(seen[:6]) + (f"; and at {len(seen) - 6} more values" if len(seen) > 6 else "")
            why = (f"({what}: a switch the question does not name)" if what else "(another regime binds on both sides, an --assume excludes it, the "
                   "regime conditions fail, or it lies outside the model's domain there)")
            raise errors.NoAnswerHere(f"{model.id}: {args.quantity}: at {derive.where_text(args.preset, values)} {pair} do not meet "
                                      f"at any boundary {derivation.variable} the answer gives {why}; --full shows the closed form, valid where they do meet")
        records = [RootRecord(r.regime, r.root) for r in found]
        whole = whole_sides.of(model, derivation, [float(r.value.magnitude) for r in found], args.preset, values)
        out.update({"whole_sides": [s.as_dict() for s in whole]} if whole else {})
    ranges = derive.applying_ranges(model, derivation, args.preset, values) if derivation.operation == "solve" else ()
    if ranges:  # the relation holds on whole regimes here (their value does not depend on the unknown)
        out["ranges"] = [d for d in (range_lines.described(model, f, derivation.variable, derivation.unit, args.preset, values)
                                     for f in ranges) if d]
        out["unit"] = derivation.unit
    if derivation.result is sympy.true and derivation.operation == "solve":
        out["ranges"] = [{"regime": "every regime", "where": "any value"}]
        return out
    if derive.holds_on_ranges(derivation.result) and derivation.operation == "solve":
        if not ranges:
            raise errors.NoAnswerHere(f"{model.id}: {args.quantity}: at {derive.where_text(args.preset, values)} the relation holds "
                                      f"for no {derivation.variable}: the sides of its flat regimes differ there (--full shows them)")
        return out
    if records is not None:  # every root whose regime conditions hold at the point, with its regime
        found = derive.applying_roots(model, records, args.preset, values, derivation.unit, derivation.variable,
                                      whole=derivation.operation != "boundary")
        if derivation.operation == "solve":  # the roots that meet an --assume on the variable
            found = type(found)(r for r in found if _assumed_at(model, args, derivation.variable, values, float(r.value.magnitude)))
        out["applying"] = tuple((r.regime, r.root) for r in found)  # the summary shows these first (not in --json)
        if not found and ranges:  # the roots' regimes do not apply here: the answer here is the range
            out["no_root_here"] = sorted({r.regime for r in records})
            return out
        if not found and exact_roots.all_complex(model, records, derivation.variable, args.preset, values):
            raise errors.NoAnswerHere(f"{model.id}: {args.quantity}: none of the {len(records)} root(s) for {derivation.variable} is a real number at "
                                      f"{derive.where_text(args.preset, values)} (each is complex in exact arithmetic, the inputs as the decimals given): "
                                      f"no {derivation.variable} gives the target there in the regime(s) they solve")
        outside = solve_outside.excluded(model, args.quantity, derivation.variable, records, args.preset, values) \
            if not found and derivation.operation == "solve" else []
        if outside:  # each root with the condition that excludes it there (its declared sign, regime, valid_when)
            raise errors.NoAnswerHere(f"{model.id}: {args.quantity}: no root for {derivation.variable} holds at "
                                      f"{derive.where_text(args.preset, values)}: {'; '.join(outside)}")
        if not found:
            integer = "integer" in model.symbol_definitions[derivation.variable].assumptions
            raise errors.NoAnswerHere(f"{model.id}: {args.quantity}: none of the {len(records)} root(s) for {derivation.variable} lies in "
                              f"its regime at {derive.where_text(args.preset, values)}: the regime conditions, or those of the domain where the "
                              f"model gives a value (declared signs of {derivation.variable} and of what it replaced, valid_when), fail there (--full shows them)"
                              + (f", or --assume {' and '.join(args.assume)} excludes it" if getattr(args, "assume", None) else "")
                              + (f", or it is no whole number and {derivation.variable} is declared integer (an inequality with --kind max or "
                                 "min gives the nearest whole values)" if integer else ""))
        items = [in_unit(r.value) for r in found]
        out["unit"] = common.unit_text(items[0]) if unit else derivation.unit
        out["undetermined"] = [float(q.magnitude) for q in items if not np.isfinite(q.magnitude)]
        if len(records) == 1 or len(found) == 1 and all(r.regime == "the equation" for r in records):  # one root: its value
            out["value"] = json_number(items[0].magnitude)
            return out
        out["value"] = [json_number(q.magnitude) for q in items]
        if any(r.regime != "the equation" for r in records):  # roots of a Min/Max or cases: each with its regime
            out["regimes"] = [r.regime for r in found]
        return out
    result = derivation.result
    if isinstance(result, dict):
        shown = {key: number(expr) for key, expr in result.items()}
        out["value"] = {key: json_number(q.magnitude) for key, q in shown.items()}
        out["unit"] = common.unit_text(next(iter(shown.values()))) if unit and shown else derivation.unit
        out["undetermined"] = [v for v in raw if not np.isfinite(v)]
        return out
    if isinstance(result, sympy.Tuple):
        roots = list(result)
        if derivation.operation == "solve" and getattr(args, "assume", None):  # the roots that meet an --assume on the variable
            declared = model.units[derivation.variable]
            roots = [r for r in roots if _assumed_at(model, args, derivation.variable, values, float(evaluator.evaluate_expression(
                model, r, declared, preset=args.preset, values=values).magnitude))]
            if not roots:
                raise errors.NoAnswerHere(f"{model.id}: {args.quantity}: no root for {derivation.variable} at "
                                          f"{derive.where_text(args.preset, values)} meets --assume {' and '.join(args.assume)}")
        items = [number(r) for r in roots]
        out["value"] = [json_number(q.magnitude) for q in items]
        out["unit"] = common.unit_text(items[0]) if unit and items else derivation.unit
        out["undetermined"] = [v for v in raw if not np.isfinite(v)]
        return out
    quantity = number(result)
    out["value"] = json_number(quantity.magnitude)
    bounded = derivation.extra.relation if derivation.operation == "solve" else None
    bound = _bound_shown(model, derivation, bounded, args.preset, values) if bounded is not None else None
    if bounded is not None and bound is not None:  # var REL bound: does the declared sign leave no value, or every one?
        declared = declared_range.of(model, derivation.variable)
        left = declared.bounded(bounded, int(np.sign(bound)))
        if left == "none":
            raise errors.NoAnswerHere(f"{model.id}: {args.quantity}: at {derive.where_text(args.preset, values)} the relation needs "
                                      f"{derivation.variable} {bounded.rel_op} {bound:.10g}, and {derivation.variable} is declared "
                                      f"{declared.word}: no admissible value")
        if left == "every":
            out["every_admissible"] = declared.word
    if derivation.operation == "limit" and np.isinf(quantity.magnitude):  # the limit is infinite: an answer
        out["value"] = "oo" if quantity.magnitude > 0 else "-oo"
        raw.clear()
    out["unit"] = common.unit_text(quantity) if unit else derivation.unit
    if derivation.location is not None:
        where = derive.evaluate_result(model, derivation, args.preset, which="location", **values)
        out["location_value"] = json_number(where.magnitude)
        out["location_unit"] = model.unit_text(derivation.variable)
        raw.extend(np.ravel(np.asarray(where.magnitude, dtype=float)).tolist())
        if derivation.operation == "extremum" and not (args.substitute or args.omit or args.assume):  # the quantity as modelled
            out["stretch"] = flat_stretch.of(model, derivation, args.preset, values)
    out["undetermined"] = [v for v in raw if not np.isfinite(v)]
    return out


def _of_constants(model: Any, derivation: Any) -> bool:
    """Is the result (and its location, if any) a number written in the model's constants alone (``lit_100_ns +
    lit_500_ns``)? It has a value with no preset or values given."""
    forms = [f for f in (derivation.result, derivation.location) if f is not None]
    return bool(forms) and all(isinstance(f, sympy.Expr) for f in forms) \
        and result_form.of_constants(model, (s.name for f in forms for s in f.free_symbols))


def _undetermined(derivation: Any, args: argparse.Namespace, values: dict[str, Any], bad: list[float]) -> str:
    """The one-line message for a value that is NaN, or infinite where a finite one is expected."""
    asked = f"{derivation.operation} of {derivation.quantity}" + (f" over {derivation.variable}" if derivation.variable else "")
    if derivation.operation == "limit":
        asked += f" as {derivation.variable} -> {getattr(args, 'to_given', args.to)}"
    where = at_point.where_text(args.preset, {k: f"{v.magnitude:g} {common.unit_text(v)}".removesuffix(" 1") if isinstance(v, pint.Quantity)
                                              else v for k, v in values.items()})
    if not any(np.isnan(v) for v in bad):
        return (f"{derivation.model}: {asked}: the value at {where} is infinite where a finite value is expected (the result "
                "divides by an input that is 0 there, or the answer lies at infinity); choose other values (--set)")
    what = "not a number (NaN): the result is undefined there"
    shown = {k: f"{v.magnitude:g}" if isinstance(v, pint.Quantity) else str(v) for k, v in values.items()}
    example = next((f"{k}={v}" for k, v in shown.items() if v.split()[0] in ("0", "0.0")), next((f"{k}={v}" for k, v in shown.items()), "NAME=VALUE"))
    fix = f"put the deciding values in before deriving with --substitute NAME=VALUE (e.g. --substitute {example}), or choose other values"
    return f"{derivation.model}: {asked}: the value at {where} is {what}; {fix}"


def _emit(model: Any, derivation: Any, args: argparse.Namespace, values: dict[str, Any]) -> int:
    try:
        numbers = _evaluate(model, derivation, args, values)
    except errors.NoAnswerHere as exc:  # --full, as the refusal promises: the closed form and its steps, then the refusal
        if args.full and not args.json:
            print(getattr(args, "shown", str)(summary.summary(derivation, full=True)))
        print(f"symgpu: error: {exc}", file=sys.stderr)
        return common.FAILED
    bad = numbers.pop("undetermined", None)
    applying = numbers.pop("applying", None)
    stretch = numbers.pop("stretch", None)  # an extremum that holds over a stretch of the variable (flat_stretch)
    if bad:  # never a NaN (or an unexpected infinity) presented as an answer
        print(f"symgpu: error: {_undetermined(derivation, args, values, bad)}", file=sys.stderr)
        return common.FAILED
    if args.json:
        data = derivation.to_dict()
        data.update(numbers)
        if getattr(args, "unit", None) and data.get("unit") != derivation.unit:  # "unit" is the value's (--unit): the result's beside it
            data["result_unit"] = derivation.unit
        data["preset"] = args.preset
        if getattr(args, "target_note", None):
            data["target_converted"] = args.target_note
        data["inputs"] = {k: {"value": json_number(v.magnitude), "unit": common.unit_text(v)} for k, v in values.items()}
        if stretch is not None:
            data["flat_stretch"] = stretch.as_dict()
        print(json.dumps(data, default=str))
        return common.OK
    asked_unit = numbers.get("unit") if getattr(args, "unit", None) else None  # --unit: the value line's unit, said beside the result's
    text = getattr(args, "shown", str)(summary.summary(derivation, full=args.full, applying=applying, value_unit=asked_unit))
    if getattr(args, "target_note", None):  # after the summary's first (title) line
        title, _, rest = text.partition("\n")
        text = f"{title}\n  target: {args.target_note}" + (f"\n{rest}" if rest else "")
    print(text)
    for line in range_lines.texts(derivation.variable, numbers.get("no_root_here") or (), numbers.get("ranges", ())):
        print(f"  {line}" if line.startswith("no isolated root") else summary.shorten(f"  {line}", 190, "--json for all"))
    if "regimes" in numbers:
        shown = ", ".join(f"{summary.value_text(v, '')} ({r})" for v, r in zip(numbers["value"], numbers["regimes"]))
        unit_shown = "" if numbers["unit"] in ("", "1", "dimensionless") else f" [{numbers['unit']}]"
        print(summary.shorten(f"  value: {shown}{unit_shown}", 190, "--json for all")
              + (f"  (preset {args.preset})" if args.preset else ""))
    elif "value" in numbers:
        bounded = derivation.extra.relation if derivation.extra.bound else None  # the bound of a relation, not a value
        line = "  value: " + (f"{derivation.variable} {bounded.rel_op} " if bounded is not None else "") \
            + summary.shorten(summary.value_text(numbers["value"], numbers["unit"]), 150, "--json for all")
        if "location_value" in numbers and numbers["location_value"] is not None:
            unit = "" if numbers["location_unit"] in ("", "1") else f" {numbers['location_unit']}"
            where = numbers["location_value"]
            shown_where = f"{where:.10g}" if isinstance(where, (int, float)) else _locations_text(list(where))
            line += f" at {derivation.variable} = {shown_where}{unit}"
        print(line + (f"  (preset {args.preset})" if args.preset else ""))
        if stretch is not None:  # said whole, over as many lines as it takes
            said = stretch.text(derivation.variable, numbers["location_unit"], args.kind, float(numbers["location_value"]))
            print("\n".join("  " + line for line in summary.wrapped(said, summary.MAX_LINE - 2)))
    for sides in numbers.get("whole_sides", ()):  # an integer variable's switch between two whole values
        print(f"  {whole_sides.WholeSides(**sides).text(derivation.variable)}")
    if numbers.get("every_admissible"):  # a lower bound below the declared range: every value meets it
        edge = "at the edge of" if numbers.get("value") == 0 else "below"
        print(f"  every {derivation.variable} meets it here: the bound lies {edge} the declared range "
              f"({derivation.variable} {numbers['every_admissible']})")
    return common.OK


#: the longest regime label a refusal names whole (an unnamed argument's expression beyond: shortened)
MAX_LABEL = 48


def _label(regime: str) -> str:
    """A regime as a refusal names it: its name, or an unnamed argument's expression shortened (a nested Min's arguments
    are expressions, 300 characters each: Hong & Kim's MWP)."""
    return regime if len(regime) <= MAX_LABEL else f"{regime[:MAX_LABEL - 1]}… (an unnamed argument; --full shows it)"


#: the most locations the value line lists one by one (beyond: the first and last, folded)
MAX_LOCATIONS = 8


def _locations_text(where: list[float]) -> str:
    """An extremum's tied locations for the value line: each, up to :data:`MAX_LOCATIONS`; beyond, folded (a grid's 64 tied
    points were listed whole, 300 characters): evenly spaced ones as ``1024, 2048, …, 65536 (64 values, every 1024)``,
    others as the first few and how many more (``--json`` lists them all)."""
    if len(where) <= MAX_LOCATIONS:
        return ", ".join(f"{w:.10g}" for w in where)
    gaps = {round(b - a, 9) for a, b in zip(where, where[1:])}
    if len(gaps) == 1:
        return f"{where[0]:.10g}, {where[1]:.10g}, …, {where[-1]:.10g} ({len(where)} values, every {gaps.pop():.10g})"
    return ", ".join(f"{w:.10g}" for w in where[:MAX_LOCATIONS - 2]) + f", … and {len(where) - MAX_LOCATIONS + 2} more (--json for all)"


def _bound_shown(model: Any, derivation: Any, bounded: Any, preset: str | None, values: Mapping[str, Any]) -> float | None:
    """The inequality's bound at the point (the answer, with the target put in, in the variable's declared
    unit) where the answer shown is that bound (no ``--kind``: a max/min answer differs from it, and
    ``extra.bound`` is not set); None otherwise, or where it cannot be evaluated. (The relation's own
    right-hand side may keep the target as its quantity's symbol, which the point gives no value: an
    outside tester's finding, where ``alpha <= -108501`` for a positive ``alpha`` went unnoticed.)"""
    if not derivation.extra.bound:
        return None
    unit = model.units[derivation.variable]
    result = derive.as_evaluated(model, derivation, derivation.result)  # a number found at the point is in the declared unit
    try:
        shown = float(evaluator.evaluate_expression(model, result, unit, preset=preset,
                                                    values=evaluator.with_kept(model, result, preset, values)).magnitude)
    except errors.SymgpuError:
        return None
    return shown if np.isfinite(shown) else None


def _assumed_at(model: Any, args: Any, variable: str, values: Mapping[str, Any], x: float) -> bool:
    """Whether every ``--assume`` relation on ``variable`` holds with it at ``x`` (the roots a solve keeps)."""
    return at_point.meets_assumed(model, getattr(args, "assume", None) or (), variable, args.preset, values, x)


def _run(args: argparse.Namespace) -> int:
    model = common.load_model(args.model)
    common.note_combined_preset(model, args.preset)
    values = common.parse_assignments(model, args.set)
    variable = next((v for v in (getattr(args, k, None) for k in ("for_", "over", "var", "variable")) if isinstance(v, str)), None)
    values, args.set_clock = common.across_the_clock(model, values, getattr(args, "clock", None), preset=args.preset, variable=variable)
    # numbers in the declared unit of their symbol, a scaled one as the model's constant of it: L <= 1 us is L <= lit_1000_ns
    limit = args.command == "limit"
    try:
        substitutions = _substitutions(args.substitute)
        at = assume_units.Point(args.preset, values, lambda missing: common.clock_and_symbol(
            model, getattr(args, "clock", None), preset=args.preset, values=values, missing=missing),
            tuple(n for n in (variable, *substitutions) if n))
        given = given_numbers.at_the_door(model, args.assume, substitutions, args.var if limit else None,
                                          str(args.to) if limit else None, at)
    except errors.ExpressionError as exc:
        raise _named_option(model, exc, str) from None
    model, args.assume, substitute = given.model, given.assume, given.substitute
    args.substitute = [f"{name}={text}" for name, text in substitute.items()]
    if limit:
        args.to_given, args.to = args.to, given.to
    args.shown = given.shown  # the answer printed with the constants made here as the numbers given (_emit)
    if getattr(args, "target", None) and assume_units.is_quantity(model, args.target):
        args.target = given_numbers.checked_target(str(args.target))  # a number too long refused naming --target; 0 us is 0
    if getattr(args, "target", None) and assume_units.is_quantity(model, args.target):
        model = model.for_request()  # a target across the clock is made a constant of the model (symgpu.derive.targets.across_rates)
        request, before, target = model, [c.name for c in model.literal_constants], str(args.target)
        # and that constant, made while the request is derived, as the target given: 865 cycle, not lit_865_cy
        args.shown = lambda text: given.shown(given_numbers.spoken(text, given_numbers.target_constants(request, before, target)))
    both = sorted(set(substitute) & set(values))
    if both:
        raise errors.UsageError(f"{', '.join(both)}: given by both --substitute and --set; drop one of the two")
    options = Options.of(substitute=substitute, assume=args.assume, stop_at=_kept(model, args.keep),
                         omit=tuple(args.omit), preset=args.preset, values=values, case=getattr(args, "case", None),
                         relation=getattr(args, "relation", None) or "==")
    try:
        derivation = OPERATION_COMMANDS[args.command.replace("-", "_")].derive(model, args, options)
        return _emit(model, derivation, args, values)
    except errors.ExpressionError as exc:  # an --assume or --substitute text that does not parse: the option, not the model file
        raise _named_option(model, exc, given.readable) from None
    except errors.SymgpuError as exc:  # a refusal says the caller's numbers as given, not the constants made of them
        if len(exc.args) == 1 and isinstance(exc.args[0], str) and str(exc) == exc.args[0]:
            exc.args = (given.readable(exc.args[0]),)
        raise


def _named_option(model: Any, exc: errors.ExpressionError, readable: Any) -> errors.SymgpuError:
    """``exc`` (an ``--assume`` or ``--substitute`` text that does not parse, which the model's parser names as a key of
    its file: ``equations/mdm_2019.toml: assume: ...``) as a refusal of that option; any other error as it is."""
    option = "--assume" if exc.where == "assume" else f"--substitute {exc.where[11:]}" if exc.where.startswith("substitute.") else None
    if option is None:
        return exc
    return errors.ArgumentError(model.id, option, readable(exc.problem), "write it with numbers and the model's symbols "
                                "(symgpu show MODEL lists them)")


def setup(sub: Any) -> None:
    """Add the derivation subcommands (one per :data:`OPERATION_COMMANDS`, then derive and repl)."""
    for op, command in OPERATION_COMMANDS.items():
        p = sub.add_parser(command_name(op), help=command.help)
        _add_common(p)
        command.options(p)
    derive_batch.setup(sub)
    repl_command.setup(sub)


#: subcommand -> run(args) -> exit code.
RUN = {**{command_name(op): _run for op in OPERATION_COMMANDS}, "derive": derive_batch.run, "repl": repl_command.run}
