"""Commands on models: show, check, eval (with --occupancy) and validate."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

import pint
import numpy as np
import sympy

from symgpu import api, errors, units, validation
from symgpu.derive import summary
from symgpu.evaluate import assumed, clocks, evaluator, exact_digits
from symgpu.cli.common import BAD_INPUT, FAILED, OK, across_the_clock, note_combined_preset, add_unit_options, add_value_options, converted, load_model, note_replaced, note_unread, parse_assignments, unit_text, declared_unit_text, unread
from symgpu.cli import case_literals
from symgpu.kernel import occupancy
from symgpu.model import loader, schema
from symgpu import workers
from symgpu.numbers import json_number


def setup(sub: Any) -> None:
    """Add the show, check, eval and validate subcommands (``list`` is in ``catalog_commands``)."""
    p = sub.add_parser("show", help="show a model's symbols, equations, presets")
    p.add_argument("model", help="model id or path to a .toml file")

    p = sub.add_parser("check", help="load and unit-check models (all bundled models by default)")
    p.add_argument("models", nargs="*", help="model ids or paths")

    p = sub.add_parser("eval", help="evaluate a quantity numerically")
    p.add_argument("model")
    p.add_argument("quantity", help="a quantity defined by an equation, or an input or constant (its value at the point: preset, --set)")
    add_value_options(p)
    add_unit_options(p)
    p.add_argument("--occupancy", metavar="threads=T,regs=R,smem=S",
                   help="take active blocks/warps per SM from resource usage (occupancy model) instead of numbers")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("validate", help="reproduce the published numbers of models")
    p.add_argument("models", nargs="*", help="model ids (all bundled models by default)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="validate N model families at once, each in a process of its own (default: 2, or 1 on one CPU core; "
                   "1: one after the other); the output is the same either way")


def cmd_show(args: argparse.Namespace) -> int:
    """symgpu show: a model's symbols, equations and presets (every part read: built and checked whole, so a
    defect stops it before it prints anything)."""
    model = load_model(args.model, whole=True)
    d = model.definition
    print(f"{model.id}: {d.title}")
    print()
    print(d.summary)
    print()
    for ref in d.references:
        print(f"[{ref.key}] {ref.citation()}")
    print("\nsymbols:")
    width = max(len(s.name) for s in d.symbols)
    for s in d.symbols:
        value = f" = {s.value}" if s.value else ""
        print(f"  {s.name:<{width}}  [{s.unit}] {s.role}{value}: {s.description}")
    print("\nequations:")
    for eq in model.equations.values():
        counts = f"  (counts: {', '.join(eq.definition.counts)})" if eq.definition.counts else ""
        if eq.cases:
            print(f"  {eq.id}: {eq.lhs} =   [{eq.definition.source}]{counts}")
            for case in eq.cases:
                print(f"      {case.value}   if {case.condition}   ({case.id})")
        else:
            print(f"  {eq.id}: {eq.lhs} = {eq.rhs}   [{eq.definition.source}]{counts}")
        for condition in eq.assumes:
            print(f"      assumes {condition}   (a value outside it is given, with a note)")
        for constant in model.literal_constants:
            if eq.id in constant.equations:
                print(f"      {constant.name} = {constant.value} {constant.unit_text}   (the bare {constant.value}, in its siblings' unit)")
    if model.presets:
        print("\npresets:")
        for preset in d.presets:
            values = ", ".join(f"{k}={_all_digits(v)}" for k, v in model.presets[preset.id].items())
            print(f"  {preset.id}: {preset.description}\n      {values}")
            for said in model.preset_conversions.get(preset.id, ()):
                print(f"      (converted at the preset's clock: {said})")
    print(f"\nvalidation cases: {len(d.validation)}; derivations: {len(d.derivations)}")
    return OK


def _all_digits(value: pint.Quantity) -> str:
    """A preset value with as many digits as it has (at least 6): 503.849162 GFLOP/s, not 503.849, so a value copied
    from ``show`` is the one the model computes with."""
    magnitude = float(value.magnitude)
    digits = next((p for p in range(6, 18) if float(f"{magnitude:.{p}g}") == magnitude), 17)
    return f"{value:~.{digits}g}"


def cmd_check(args: argparse.Namespace) -> int:
    """symgpu check: load and unit-check models."""
    names = args.models or loader.list_models()
    if not names:
        print("symgpu: error: no models to check", file=sys.stderr)
        return BAD_INPUT
    failed = 0
    for name in names:
        try:
            model = api.load(name, whole=True)
        except errors.UsageError:
            raise
        except errors.ModelFileError as exc:
            failed += 1
            for problem in getattr(exc, "problems", (exc,)):
                print(f"FAIL {problem}")
            continue
        cases = sum(len(eq.cases) for eq in model.equations.values())
        print(f"ok   {model.id}: {len(model.equations)} equations ({cases} piecewise cases), "
              f"{len(model.presets)} presets, {len(model.definition.validation)} validation cases: all dimensionally consistent")
        for preset_id, conversions in model.preset_conversions.items():
            for said in conversions:
                print(f"     note: preset {preset_id}: {said} (converted at the preset's clock)")
        for said in case_literals.notes(model):
            print(f"     note: {said}")
    return FAILED if failed else OK


def parse_occupancy(text: str) -> dict[str, float]:
    """Parse ``threads=128,regs=18,smem=3960`` into keyword arguments.

    Raises:
        errors.UsageError: malformed text or unknown key.
    """
    allowed = {"threads", "regs", "smem"}
    out: dict[str, float] = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in allowed:
            raise errors.UsageError(f"--occupancy {text!r}: expected threads=T,regs=R,smem=S (got {item.strip()!r})")
        try:
            out[key] = float(value)
        except ValueError:
            if key != "smem":
                raise errors.UsageError(f"--occupancy {text!r}: {key} must be a number, got {value.strip()!r}") from None
            out[key] = _bytes(text, value)
    missing = allowed - set(out)
    if missing:
        raise errors.UsageError(f"--occupancy {text!r}: missing {', '.join(sorted(missing))}")
    return out


def _bytes(text: str, value: str) -> float:
    """``smem`` given with a byte unit (``48KiB``, ``3960 B``), in bytes, as ``symgpu.kernel.occupancy.parse_spec`` reads it.

    Raises:
        errors.UsageError: not a number of bytes.
    """
    try:
        return float(units.magnitude_in(units.quantity(value.strip(), units.unit("B")), "B"))
    except (ValueError, pint.errors.PintError):
        raise errors.UsageError(f"--occupancy {text!r}: smem must be a number of bytes or a byte quantity (48KiB), "
                                f"got {value.strip()!r}") from None


def occupancy_inputs(model: Any, preset: str | None, text: str | None) -> tuple[dict[str, pint.Quantity], occupancy.OccupancyResult | None]:
    """Values of ``model``'s occupancy symbols derived from resource usage, with the occupancy derivation that gave
    them (its compute capability, blocks, warps and limits); empty and None if ``text`` is None."""
    if not text:
        return {}, None
    resources = parse_occupancy(text)
    if not preset:
        raise errors.UsageError("--occupancy needs --preset naming the GPU (or a compute capability: "
                                f"{', '.join(sorted(occupancy.occupancy_model().presets))})")
    # NOTE: with a combined preset (gtx280+tiled_matmul) the GPU is whichever part has a known
    # compute capability, a compute capability named outright (gtx280+cc_9_0) first; the occupancy
    # module refuses to guess when none has.
    cc = occupancy.occupancy_model().presets
    parts = sorted((p.strip() for p in preset.split("+")), key=lambda p: p not in cc)
    first_error: errors.SymgpuError | None = None
    for part in parts:
        try:
            found = occupancy.occupancy_chain(model, part, resources["threads"], resources["regs"], resources["smem"])
            return dict(found.values), found
        except errors.UsageError as exc:
            first_error = first_error or exc
    assert first_error is not None
    raise first_error


def model_preset(model: Any, preset: str | None) -> str | None:
    """``preset`` without the compute-capability parts (``cc_9_0``) that are not ``model``'s own presets: they name the
    occupancy model's hardware for ``--occupancy``, not values of ``model`` (None when nothing is left)."""
    if not preset or model.id == occupancy.OCCUPANCY_MODEL:
        return preset
    cc = occupancy.occupancy_model().presets
    kept = [p.strip() for p in preset.split("+") if p.strip() not in cc or p.strip() in model.presets]
    return "+".join(kept) or None


def occupancy_determined(model: Any, values: dict[str, pint.Quantity]) -> set[str]:
    """The names --occupancy fixes: the symbols it gives (``values``) and the quantities defined as
    exactly one of them (Hong & Kim's N = Active_warps_per_SM)."""
    names = set(values)
    if not names:
        return set()  # no equation read (a question's model builds each equation when first read)
    return names | {name for name, eq in model.defining.items() if not eq.cases and isinstance(eq.rhs, sympy.Symbol) and str(eq.rhs) in names}


def cmd_eval(args: argparse.Namespace) -> int:
    """symgpu eval: one quantity at a preset and values."""
    model = load_model(args.model)
    values, launch = occupancy_inputs(model, args.preset, args.occupancy)
    if args.occupancy:
        args.preset = model_preset(model, args.preset)
    note_combined_preset(model, args.preset)
    given, set_clock = across_the_clock(model, parse_assignments(model, args.set), args.clock, preset=args.preset)
    conflicts = sorted(set(given) & occupancy_determined(model, values))
    if conflicts:
        raise errors.UsageError(f"--set {', '.join(conflicts)}: --occupancy sets {'them' if len(conflicts) > 1 else 'it'} "
                                "from threads/regs/smem; drop one of the two")
    values.update(given)
    if args.quantity in model.symbols and args.quantity not in model.defining and args.quantity not in model.equations:
        return _eval_input(model, args, values)
    asked = model.equation_for(args.quantity).definition.defines if args.quantity in model.defining or args.quantity in model.equations else args.quantity
    if asked in given:  # it would be computed anyway, the given value dropped without a word
        raise errors.UsageError(f"--set {asked}=...: {asked} is the quantity evaluated; drop that --set (give its inputs instead)")
    value = model.evaluate(args.quantity, args.preset, values=values)
    ignored = unread(model, args.quantity, list(given), unit=args.unit)
    if set_clock and args.clock is None:  # the model's clock moved a --set time into cycles: it was read
        ignored = [n for n in ignored if n not in clocks.inputs_in(model, "Hz")]
    note_unread(model, args.quantity, ignored, args.preset, list(given))
    note_replaced(model, args.quantity, list(given))
    if np.ndim(value.magnitude) == 0:  # IEEE digits that are rounding noise (cancellation) are not shown as if known
        value = _exact_where_rounding_shows(model, args.quantity, value, args.preset, values)
    if np.ndim(value.magnitude) == 0:  # a value its declared sign rules out is not shown
        evaluator.check_declared_sign(model, model.equation_for(args.quantity).definition.defines, float(value.magnitude),
                                      args.preset, values)
    # a --clock that converted a --set time is not also a request to convert the value
    result, clock = converted(model, value, args.unit, None if set_clock and not args.unit else args.clock, quantity=args.quantity, preset=args.preset, values=values)
    limits = _occupancy_limits(model, args, values)
    unchecked = evaluator.unchecked_domain(model, args.quantity, args.preset, values)
    assumptions = [a for a in assumed.assumptions(model, args.quantity, args.preset, values) if a.fails or a.lacking]
    spelled = declared_unit_text(model, asked, result, args.unit)  # op/cycle/SM as written, not pint's tinst / cy / SM
    if args.json:
        record = {
            "model": model.id,
            "quantity": args.quantity,
            "value": json_number(result.magnitude),
            "unit": spelled,
            "preset": args.preset,
            "inputs": {k: {"value": json_number(v.magnitude), "unit": unit_text(v)} for k, v in values.items()},
        }
        if clock is not None:
            record["clock"] = clock.json()
        if launch is not None:
            record["occupancy"] = _occupancy_record(model, launch)
        if limits is not None:
            record["can_launch"] = limits.can_launch
            record["limiting"] = [{"limit": n, "case": limits.cases.get(n, ""), "reason": limits.reasons.get(n, "")} for n in limits.limiting]
        if ignored:
            record["unread_inputs"] = ignored
        if unchecked:
            record["domain_not_checked"] = [{"equation": e, "valid_when": sympy.sstr(c), "needs": list(n)} for e, c, n in unchecked]
        if assumptions:
            record["assumptions_not_met"] = [{"equation": a.equation, "defines": a.defines, "assumes": sympy.sstr(a.condition),
                                              "fails_at": a.fails, "points": a.points, "needs": list(a.lacking),
                                              "inputs": {n: {"value": json_number(q.magnitude), "unit": declared_unit_text(model, n, q)}
                                                         for n, q in a.inputs}} for a in assumptions]
        print(json.dumps(record))
    else:
        print(f"{args.quantity} = {summary.value_text(float(result.magnitude), spelled)}")
        if launch is not None:
            print(_occupancy_line(model, launch))
        if limits is not None:
            print("\n".join(occupancy.explain(limits)))
        for equation, condition, lacking in unchecked:
            print(f"  not checked: valid_when {sympy.sstr(condition)} (equation {equation}) needs a value for "
                  f"{', '.join(lacking)}; pass {' '.join('--set ' + n + '=VALUE' for n in lacking)} to check it")
        for assumption in assumptions:
            print(_assumption_note(model, assumption))
    return OK


def _exact_where_rounding_shows(model: Any, quantity: str, value: Any, preset: str | None, values: dict[str, Any]) -> Any:
    """``value`` (a scalar), or its exact value from the decimals given where the IEEE one is off by more than
    :data:`exact_digits.RELATIVE`, said on stderr with the IEEE digits it replaces."""
    found = exact_digits.checked(model, quantity, float(value.magnitude), preset=preset, values=values)
    if not found.corrected:
        return value
    unit = declared_unit_text(model, model.equation_for(quantity).definition.defines, value, None)
    print(f"symgpu: note: {quantity} = {summary.value_text(found.value, unit)} in exact arithmetic, the inputs as the decimals "
          f"given; IEEE doubles gave {summary.value_text(found.ieee, unit)}, digits lost where nearly equal terms cancel",
          file=sys.stderr)
    return units.registry().Quantity(found.value, value.units)


def _assumption_note(model: Any, assumption: assumed.Assumption) -> str:
    """One line on an ``assumes`` condition that fails at the point (the value is given, but is not the quantity
    its description names), or that lacks a value to be checked."""
    said = f"{assumption.defines} (equation {assumption.equation}) assumes {sympy.sstr(assumption.condition)}"
    if assumption.lacking:
        return (f"  not checked: {said}; it needs a value for {', '.join(assumption.lacking)}; pass "
                f"{' '.join('--set ' + n + '=VALUE' for n in assumption.lacking)} to check it")
    return "  note: " + assumed.failing(model, assumption, lambda n, q: summary.value_text(float(q.magnitude), declared_unit_text(model, n, q)))


def _eval_input(model: Any, args: argparse.Namespace, values: dict[str, Any]) -> int:
    """``eval`` of an input or constant: its value at the point (constants, preset, ``--set``) in ``--unit``, across the
    clock, SM count or warp size as a quantity's is (``eval interval_analysis L_2 --preset h100 --unit ns``, refused as
    "not a quantity defined by an equation": round 15a D2)."""
    name = args.quantity
    if name not in values and name not in model.constants and (args.preset is None or name not in model.preset(args.preset)):
        where = f"not in preset '{args.preset}'" if args.preset else "no preset given"
        raise errors.UsageError(f"{model.id}: {name} is an input with no value here ({where}): give --preset with it or --set {name}=VALUE")
    value = evaluator.evaluate_expression(model, model.symbols[name], model.units[name], preset=args.preset, values=values)
    result, clock = converted(model, value, args.unit, args.clock, quantity=name, preset=args.preset, values=values)
    source = "--set" if name in values else "a constant of the model" if name in model.constants else f"preset {args.preset}"
    if args.json:
        record = {"model": model.id, "quantity": name, "value": json_number(result.magnitude), "unit": declared_unit_text(model, name, result, args.unit),
                  "preset": args.preset, "input": source}
        if clock is not None:
            record["clock"] = clock.json()
        print(json.dumps(record))
    else:
        print(f"{name} = {summary.value_text(float(result.magnitude), declared_unit_text(model, name, result, args.unit))}  (an input: {source})")
    return OK


def _occupancy_line(model: Any, launch: occupancy.OccupancyResult) -> str:
    """What ``--occupancy`` used and gave: the compute capability, the launch, the blocks and warps per SM (of the
    maximum), the binding limits, and the values it set."""
    record = _occupancy_record(model, launch)
    occ = occupancy.occupancy_model()
    given = ", ".join(f"{k} = {summary.value_text(v, occ.unit_text(k) if k in occ.units else '')}" for k, v in record["launch"].items())
    sets = ", ".join(f"{k} = {summary.value_text(v['value'], v['unit'])}" for k, v in record["sets"].items())
    return (f"  occupancy on {launch.cc_preset} ({given}): {record['active_blocks']:g} block/SM, {record['active_warps']:g} warp/SM of "
            f"{record['max_warps']:g} (occupancy {record['occupancy']:.4g}), limited by {launch.limiting_text()}; sets {sets}")


def _occupancy_record(model: Any, launch: occupancy.OccupancyResult) -> dict[str, Any]:
    """:func:`_occupancy_line` as JSON data."""
    blocks, warps, share = (float(q.magnitude) for q in (launch.active_blocks, launch.active_warps, launch.occupancy))
    most = float(occupancy.occupancy_model().preset(launch.cc_preset)["max_warps_per_SM"].magnitude)  # the device's own (answer.answer's)
    return {"cc": launch.cc_preset, "launch": {k: float(getattr(v, "magnitude", v)) for k, v in launch.inputs.items()},
            "active_blocks": blocks, "active_warps": warps, "max_warps": most, "occupancy": share,
            "limiting": list(launch.limiting),
            "sets": {k: {"value": json_number(q.magnitude), "unit": declared_unit_text(model, k, q)} for k, q in launch.values.items()}}


def _occupancy_limits(model: Any, args: argparse.Namespace, values: dict[str, Any]) -> occupancy.OccupancyResult | None:
    """The occupancy model's limits at the evaluated point, for the quantities that follow the active
    blocks (None for any other model or quantity, or without the three launch inputs)."""
    if model.id != occupancy.OCCUPANCY_MODEL or args.quantity not in occupancy.BLOCK_QUANTITIES:
        return None
    launch = [values.get(name) for name in occupancy.INPUTS.values()]
    if any(v is None for v in launch):
        return None
    extra = {k: v for k, v in values.items() if k not in occupancy.INPUTS.values()}
    return occupancy.compute(args.preset, *launch, extra=extra)


def cmd_validate(args: argparse.Namespace) -> int:
    """symgpu validate: reproduce the published numbers."""
    if args.jobs is not None and args.jobs < 1:
        raise errors.UsageError(f"--jobs {args.jobs}: give the number of model families to validate at once, 1 or more")
    names = args.models or loader.list_models()
    # every file is read here first, in order: a missing or malformed file stops the command
    # before any model is built (its error comes before any model's build error); the models
    # are built where they are validated, and the first build error in the given order is shown
    definitions = [loader.read_definition(loader.resolve(name).resolve()) for name in names]
    families = validation_families(definitions)
    tasks: list[workers.Task] = [(str(k), _validate_family, (family,)) for k, family in enumerate(families)]
    outcomes: dict[int, _Validated] = {}
    for _, done in workers.run(tasks, args.jobs or min(2, workers.default_workers())):
        outcomes.update((outcome.index, outcome) for outcome in done)
    all_results: list[tuple[str, tuple[validation.CaseResult, ...]]] = []
    failed = 0
    for index in range(len(definitions)):
        outcome = outcomes[index]
        if outcome.error is not None:
            # the first model (in the order given) that fails, with its message, as one by one
            raise errors.SymgpuError(outcome.error)
        all_results.append((outcome.model, outcome.results))
        failed += sum(not r.ok for r in outcome.results)
    if args.json:
        print(json.dumps([
            {"model": model_id, "case": r.case.id, "quantity": r.quantity, "published": r.published,
             "computed": json_number(r.computed), "unit": r.unit, "tolerance": r.tolerance, "status": r.status,
             "source": str(r.case.source), "origin": r.origin, "message": r.message}
            for model_id, results in all_results for r in results
        ], indent=2))
    else:
        for model_id, results in all_results:
            counts = {s: sum(r.status == s for r in results) for s in (validation.PASS, validation.ERRATUM)}
            unprinted = sum(r.origin != "printed" for r in results)
            print(f"{model_id}: {len(results)} values, {counts['pass']} reproduced, {counts['erratum']} source errata confirmed"
                  + (f" ({unprinted} of the values not printed in the source: hand-computed, derived or measured)" if unprinted else ""))
            for r in results:
                mark = {validation.PASS: "ok     ", validation.ERRATUM: "erratum"}.get(r.status, "FAIL   ")
                print(f"  {mark} {r.case.id}: {r.message}")
    printed = sum(r.origin == "printed" for _, results in all_results for r in results)
    print(f"{sum(len(r) for _, r in all_results) - failed} passed, {failed} failed ({printed} of the "
          f"{sum(len(r) for _, r in all_results)} values printed in a source, the others hand-computed, derived or measured)", file=sys.stderr)
    return FAILED if failed else OK


#: one model of ``symgpu validate``: its place in the command's order and its definition
_Member = tuple[int, schema.ModelDefinition]


@dataclass(frozen=True)
class _Validated:
    """One model validated (in a worker): its place in the command's order, its id, its results,
    or the message of the error that stopped it (errors travel as their text: not every
    exception survives the trip back from a worker process)."""

    index: int
    model: str
    results: tuple[validation.CaseResult, ...] = ()
    error: str | None = None


def validation_families(definitions: list[schema.ModelDefinition]) -> list[tuple[_Member, ...]]:
    """The models grouped by family (a variant with the model it extends, when that is validated
    too), so that a family is validated in one process, where the variant reuses what its base
    derived and compiled. Families with derivation-valued cases come first, then the larger ones:
    the longest tasks start first and the workers finish close together (the order of the output
    does not depend on it)."""
    ids = {d.id for d in definitions}
    bases = {d.id: d.extends for d in definitions}
    groups: dict[str, list[_Member]] = {}
    for index, definition in enumerate(definitions):
        root, seen = definition.id, {definition.id}
        while bases.get(root) in ids and bases[root] not in seen:
            root = bases[root]
            seen.add(root)
        groups.setdefault(root, []).append((index, definition))

    def work(family: list[_Member]) -> tuple[int, int]:
        cases = [c for _, d in family for c in d.validation]
        return sum(bool(c.derivation) for c in cases), len(cases)

    return [tuple(family) for family in sorted(groups.values(), key=work, reverse=True)]


def _validate_family(family: tuple[_Member, ...]) -> list[_Validated]:
    """Build and validate each model of ``family`` (a task of :func:`workers.run`), in order."""
    out = []
    for index, definition in family:
        try:
            model = api.Model(definition)
            out.append(_Validated(index, model.id, tuple(validation.validate(model))))
        except errors.SymgpuError as exc:
            out.append(_Validated(index, definition.id, error=str(exc)))
    return out


#: subcommand -> run(args) -> exit code (the parsers come from :func:`setup`).
RUN = {"show": cmd_show, "check": cmd_check, "eval": cmd_eval, "validate": cmd_validate}
