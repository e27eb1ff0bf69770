"""The commands of the registry operations (``symgpu solve``, ``boundary``, ``extremum``, ``limit``,
``fixed-point``, ``regimes``): one :class:`Command` per operation of
:data:`symgpu.model.operations.SPECS` that has one, its options and how it runs. The common
options, the printing and ``symgpu derive`` are :mod:`symgpu.cli.derive_commands`'.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pint
import sympy

from symgpu import derive, errors, units
from symgpu.cli import common, grid_units
from symgpu.derive import targets
from symgpu.derive.options import Options

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation


def _target(model: Any, quantity: str, text: str | None, clock_text: str | None = None, *, preset: str | None = None,
            values: dict[str, Any] | None = None, variable: str = "", substitute: Mapping[str, Any] | None = None
            ) -> tuple[Any, str | None]:
    """``--target``: an expression of the model, or a value with a unit (``"1 ms"``) converted
    to the quantity's declared unit, across the clock (``--clock`` or the preset's), the warp size
    and the SM count where the units differ by them, as the API's target is
    (:func:`symgpu.derive.targets.across_rates`). Returns (target, a line saying how it was
    converted, or None)."""
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
            # (and its hint without the file's remedy: a name in a --target is corrected, never declared in [symbols.X])
            hint = re.sub(r"declare it under \[symbols\.[^\]]*\] or ", "", problem.hint) if isinstance(problem, errors.ModelFileError) else ""
            why = (f"{problem.problem}; {hint}" if hint else problem.problem) if isinstance(problem, errors.ModelFileError) else problem
            raise errors.UsageError(f"--target {text!r}: neither an expression of {model.id} ({why}) nor a value in a unit "
                                    f"of {name} [{model.unit_text(name)}]") from None
    unit = model.units[name]
    if given.dimensionality == unit.dimensionality:  # the number as written (1/33 is 1/33, not its double), in the quantity's unit
        exact = units.exact_magnitude(text, unit)
        return (sympy.Rational(exact) if exact is not None
                else sympy.nsimplify(float(units.exact_convert(given, unit).magnitude), rational=True)), None
    set_values = values or {}
    asking = targets.Asking("--target", lambda n, example: f"--set '{n}={example}'",
                            clock=lambda missing: common.clock_and_symbol(model, clock_text, preset=preset, values=set_values,
                                                                          missing=missing))
    moved = targets.across_rates(model, name, text, given, asking, preset=preset, values=set_values, variable=variable,
                                 substitute=substitute)
    if moved is None:
        raise errors.UsageError(f"--target {text!r}: {name} is in {model.unit_text(name)} {units.format_dimension(unit.dimensionality)}, "
                                f"and {text} is {units.format_dimension(given.dimensionality)}, which cannot be converted to it: give "
                                f"the target in {model.unit_text(name)} (or a unit of the same dimension), or an expression of {model.id}")
    return moved.target, moved.note


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
    grid = grid_units.whole_grid(model, args.over, args.grid, options.preset, options.at) if args.grid else args.grid
    return derive.extremum(model, args.quantity, over=args.over, kind=args.kind, grid=grid, **options.keywords())


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
