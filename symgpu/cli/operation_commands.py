"""The commands of the registry operations (``symgpu solve``, ``boundary``, ``extremum``, ``limit``,
``fixed-point``, ``regimes``): one :class:`Command` per operation of
:data:`symgpu.model.operations.SPECS` that has one, its options and how it runs. The common
options, the printing and ``symgpu derive`` are :mod:`symgpu.cli.derive_commands`'.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pint
import sympy

from symgpu import derive, errors, units
from symgpu.cli import common, unit_rates
from symgpu.derive.options import Options
from symgpu.evaluate import clocks

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation


def _target(model: Any, quantity: str, text: str | None, clock_text: str | None = None, *, preset: str | None = None,
            values: dict[str, Any] | None = None, variable: str = "", substitute: Mapping[str, Any] | None = None
            ) -> tuple[Any, str | None]:
    """``--target``: an expression of the model, or a value with a unit (``"1 ms"``) converted
    to the quantity's declared unit, across the clock (``--clock`` or the preset's) when the
    quantity counts cycles and the target is a time, across the warp size when one is in warps
    and the other in threads, across the SM count when one is per SM and the other per chip (as
    ``eval --unit`` converts). Returns (target, a line saying how it
    was converted, or None)."""
    if text is None:
        return None, None
    try:
        return model.parse(text, "--target"), None
    except errors.SymgpuError as problem:
        name = model.equation_for(quantity).definition.defines if (quantity in model.defining or quantity in model.equations) else None
        if name is None:
            raise
        try:
            given = units.quantity(text)
        except (ValueError, pint.UndefinedUnitError):
            # the text is the caller's, not the model file's: the parser's problem without the file's path
            why = (f"{problem.problem}; {problem.hint}" if problem.hint else problem.problem) if isinstance(problem, errors.ModelFileError) else problem
            raise errors.UsageError(f"--target {text!r}: neither an expression of {model.id} ({why}) nor a value in a unit "
                                    f"of {name} [{model.unit_text(name)}]") from None
    unit = model.units[name]
    if given.dimensionality == unit.dimensionality:  # the number as written (1/33 is 1/33, not its double), in the quantity's unit
        exact = units.exact_magnitude(text, unit)
        return (sympy.Rational(exact) if exact is not None
                else sympy.nsimplify(float(units.exact_convert(given, unit).magnitude), rational=True)), None
    if clocks.needs_warp_size(given, unit):
        return _across_warp_size(model, name, text, given, preset=preset, values=values or {}, variable=variable,
                                 substitute=substitute)
    if not clocks.needs_clock(given, unit):
        per_sm = unit_rates.target_across_sms(model, name, text, given, clock=lambda: _clock(model, name, text, clock_text, preset, values,
                                                                                             variable, substitute),
                                              clock_given=clock_text is not None, preset=preset, values=values or {},
                                              variable=variable, substitute=substitute)
        if per_sm is not None:
            return per_sm
        raise errors.UsageError(f"--target {text!r}: {name} is in {model.unit_text(name)} {units.format_dimension(unit.dimensionality)}, "
                                f"and {text} is {units.format_dimension(given.dimensionality)}, which cannot be converted to it: give "
                                f"the target in {model.unit_text(name)} (or a unit of the same dimension), or an expression of {model.id}")
    clock, source = _clock(model, name, text, clock_text, preset, values, variable, substitute)
    value = clocks.with_clock(given, unit, clock)
    note = f"{text} = {value.magnitude:.10g} {model.unit_text(name)} at clock {units.compact(clock):~.10g} ({source})"
    exact = units.exact_magnitude(text, given.units)
    symbolic = None if clock_text is not None or exact is None else _over_clock(model, sympy.Rational(exact), given, unit,
                                                                                missing=f"--target {text!r}")
    if symbolic is not None:  # over the model's own clock, so a closed form solved against it cancels it
        return symbolic, note
    return sympy.nsimplify(float(value.magnitude), rational=True), note


def _clock(model: Any, name: str, text: str, clock_text: str | None, preset: str | None, values: dict[str, Any] | None,
           variable: str, substitute: Mapping[str, Any] | None) -> tuple[pint.Quantity, str]:
    """The clock a ``--target`` for ``name`` is converted at, and where it came from (refused where it moves with ``variable``)."""
    clocks.clock_unknown(model, name, variable, substitute, text)
    return common.find_clock(model, clock_text, preset=preset, values=values or {},
                             missing=f"--target {text!r}: {name} is in {model.unit_text(name)}, so the target needs a clock")


def _over_rate(model: Any, number: sympy.Rational, given: pint.Quantity, unit: Any, rate: str) -> Any:
    """``number`` (a constant of the model in ``given``'s unit) moved towards ``unit`` across the model's symbol
    ``rate`` (its clock, its warp size): divided by it where ``given`` has the rate's dimension more than ``unit``."""
    constant = model.given_constant(number, given.units)
    symbol = model.symbols[rate]
    return constant / symbol if (given.units / unit).dimensionality == model.units[rate].dimensionality else constant * symbol


def _over_clock(model: Any, number: sympy.Rational, given: pint.Quantity, unit: Any, *, missing: str) -> Any:
    """A target in cycles for a time quantity (or the reverse) written over the model's clock symbol, the
    number a constant of the model in the unit it was given in: ``6000 cycle`` for a quantity in s is
    ``lit_6000_cy/phi``. The value converted at the preset's clock, a double, had been put in its place, so
    the closed form kept the clock twice, once as ``phi`` and once as 3.03030303e-06 s (an outside tester's
    finding, round 13a, F4): at another clock it was wrong by their ratio. (``model`` is a copy made for the
    request: :func:`symgpu.cli.derive_commands._run`.)"""
    clock_name = clocks.cycle_clock(model, clocks.inputs_in(model, "Hz"), missing)
    return _over_rate(model, number, given, unit, clock_name) if clock_name is not None else None


def _across_warp_size(model: Any, name: str, text: str, given: pint.Quantity, *, preset: str | None, values: dict[str, Any],
                      variable: str, substitute: Mapping[str, Any] | None) -> tuple[Any, str]:
    """A ``--target`` in warps for ``name`` in threads (or the reverse), moved across the model's
    warp size at the preset and values (:func:`symgpu.evaluate.clocks.warp_size_at`), and the line saying so.

    Raises:
        errors.UsageError: the model has no one warp size, it has no value here, or it moves with ``variable``.
    """
    clocks.warp_size_unknown(model, name, variable, substitute, text)
    size_name, size = clocks.warp_size_at(model, preset=preset, values=values)
    need = f"--target {text!r}: {name} is in {model.unit_text(name)}, so the target needs the warp size"
    if size_name is None:
        raise errors.UsageError(f"{need}, and {model.id} has no one input in {clocks.WARP_SIZE}: give the target in {model.unit_text(name)}")
    if size is None:
        raise errors.UsageError(f"{need} {size_name}, which has no value here: give a preset with it or --set '{size_name}=32 thread/warp'")
    value = clocks.across(given, model.units[name], size)
    note = f"{text} = {value.magnitude:.10g} {model.unit_text(name)} at warp size {size_name} = {size:~.10g}"
    exact = units.exact_magnitude(text, given.units)
    if exact is not None:  # over the model's warp size, as a target across the clock is over its clock
        return _over_rate(model, sympy.Rational(exact), given, model.units[name], size_name), note
    return sympy.nsimplify(float(value.magnitude), rational=True), note


def _solve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--for", dest="for_", required=True, metavar="VAR", help="the variable to solve for")
    p.add_argument("--target", help="solve quantity = TARGET (an expression, or a value such as '2 us'; a time for a cycle "
                   "quantity is converted with --clock or the preset's clock, warps for threads at the model's warp size, per SM for per "
                   "chip at its SM count) instead of keeping "
                   "the quantity symbolic; a negative one as --target=-3, with '=', else it reads as an option)")
    p.add_argument("--relation", choices=["==", ">=", ">", "<=", "<"],
                   help="solve the inequality quantity RELATION TARGET instead of the equation (e.g. '>=': where the "
                   "quantity reaches the target); floor/ceiling are inverted layer by layer, and Min/Max/Piecewise at a point "
                   "(--preset, --set) regime by regime")
    p.add_argument("--kind", choices=["max", "min"],
                   help="with --relation: the largest (max) or smallest (min) admissible value of VAR, an integer for "
                   "an integer variable, instead of the bound")
    p.add_argument("--case", metavar="CASE", help="solve one case of a quantity defined by cases (its id)")


def _regimes_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--over", metavar="VAR", help="write the conditions as bounds on VAR where possible")


def _boundary_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--for", dest="for_", required=True, metavar="VAR", help="the variable to solve for")
    p.add_argument("--between", nargs=2, metavar=("A", "B"), help="the two regimes (default: every pair)")


def _extremum_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--over", required=True, metavar="VAR")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--max", dest="kind", action="store_const", const="max")
    group.add_argument("--min", dest="kind", action="store_const", const="min")
    p.add_argument("--grid", metavar="START:STOP[:STEP]",
                   help="search every whole value of VAR on this grid (for staircase quantities with no closed form)")


def _limit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--var", required=True, metavar="VAR")
    p.add_argument("--to", required=True, metavar="VALUE", help="oo, -oo, 0, a number or an expression; a negative one with '=' (--to=-oo, --to=-3), else it reads as an option")
    p.add_argument("--dir", dest="direction", choices=["+", "-", "+-"], help="one-sided limit (default: from above for positive variables)")


def _fixed_point_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--var", required=True, metavar="VAR")
    p.add_argument("--numeric", action="store_true", help="use the numeric root even when a closed form exists")


def _solve(model: Any, args: argparse.Namespace, options: Options) -> Derivation:
    target, args.target_note = _target(model, args.quantity, args.target, args.clock, preset=options.preset, values=options.at,
                                       variable=args.for_, substitute=options.substitutions)
    if args.kind is not None and (args.relation or "==") == "==":
        raise errors.UsageError("--kind max/min picks a value of an inequality's solution: give --relation too (e.g. --relation '>=')")
    return derive.solve(model, args.quantity, for_=args.for_, target=target, kind=args.kind, case=options.case,
                        relation=options.relation, **options.keywords())


def _regimes(model: Any, args: argparse.Namespace, options: Options) -> Derivation:
    return derive.regimes(model, args.quantity, over=args.over, **options.keywords())


def _boundary(model: Any, args: argparse.Namespace, options: Options) -> Derivation:
    return derive.boundary(model, args.quantity, tuple(args.between) if args.between else None, for_=args.for_,
                           **options.keywords())


def _extremum(model: Any, args: argparse.Namespace, options: Options) -> Derivation:
    return derive.extremum(model, args.quantity, over=args.over, kind=args.kind, grid=args.grid, **options.keywords())


def _limit(model: Any, args: argparse.Namespace, options: Options) -> Derivation:
    try:
        return derive.limit(model, args.quantity, args.var, args.to, direction=args.direction, **options.keywords())
    except errors.ArgumentError as exc:  # the limit point's text is --to's here
        raise errors.ArgumentError(model.id, "--to", exc.problem, exc.hint) from None


def _fixed_point(model: Any, args: argparse.Namespace, options: Options) -> Derivation:
    return derive.fixed_point(model, args.quantity, args.var, method="numeric" if args.numeric else "auto", **options.keywords())


@dataclass(frozen=True)
class Command:
    """The command of a registry operation (:data:`symgpu.model.operations.SPECS`).

    Attributes:
        help: one line for ``symgpu --help`` (as :data:`symgpu.cli.app.COMMANDS` gives it).
        options: adds the command's own options (the common ones: :func:`_add_common`).
        derive: runs it: (model, args, the options record of --substitute/--assume/--keep/--preset/--set) -> Derivation.
    """

    help: str
    options: Callable[[argparse.ArgumentParser], None]
    derive: Callable[[Any, argparse.Namespace, Options], Derivation]


#: registry operation -> its command (``symgpu solve``, ``symgpu fixed-point``, ...), in help order; the
#: operations without one are listed, with the reason, in ``tests/test_operation_registry.py``.
OPERATION_COMMANDS: Mapping[str, Command] = MappingProxyType({
    "solve": Command("solve a quantity's equation for a variable, in closed form", _solve_options, _solve),
    "regimes": Command("list the branches (regimes) of a piecewise quantity", _regimes_options, _regimes),
    "boundary": Command("where two regimes of a quantity meet, solved for a variable", _boundary_options, _boundary),
    "extremum": Command("maximum or minimum of a quantity over a variable (cusps included)", _extremum_options, _extremum),
    "limit": Command("limit of a quantity as a variable tends to a value", _limit_options, _limit),
    "fixed_point": Command("solve VAR = QUANTITY(VAR) (closed form, or a bracketed numeric root)", _fixed_point_options, _fixed_point),
})


def command_name(op: str) -> str:
    """The command of operation ``op``: its name with ``-`` for ``_``."""
    return op.replace("_", "-")
