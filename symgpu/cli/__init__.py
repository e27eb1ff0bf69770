"""The ``symgpu`` command line: list, show, check, eval, validate (and the derivation commands).

Exit codes: 0 success; 1 a check or validation failed; 2 bad usage or bad input (one
clear message on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pint

from symgpu import errors, units, validation
from symgpu.model import loader

OK, FAILED, BAD_INPUT = 0, 1, 2

#: subcommand name -> function(args) -> exit code. Other modules register their commands here.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line on stderr with exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"symgpu: error: {message}", file=sys.stderr)
        raise SystemExit(BAD_INPUT)


def add_value_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--preset`` and ``--set NAME=VALUE`` (repeatable) to a subcommand."""
    parser.add_argument("--preset", "-p", help="preset (parameter set) of the model")
    parser.add_argument("--set", "-s", action="append", default=[], metavar="NAME=VALUE",
                        help="a value, optionally with a unit: --set 'Theta_M=320.8 GB/s' (bare numbers are in the symbol's declared unit)")


def create_parser() -> argparse.ArgumentParser:
    """Build the argument parser (separate from :func:`main` so tests can inspect it)."""
    parser = _Parser(prog="symgpu", description="Symbolic, unit-checked GPU performance models.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("list", help="list the bundled models")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("show", help="show a model's symbols, equations, presets")
    p.add_argument("model", help="model id or path to a .toml file")

    p = sub.add_parser("check", help="load and unit-check models (all bundled models by default)")
    p.add_argument("models", nargs="*", help="model ids or paths")

    p = sub.add_parser("eval", help="evaluate a quantity numerically")
    p.add_argument("model")
    p.add_argument("quantity")
    add_value_options(p)
    p.add_argument("--unit", "-u", help="unit of the result, e.g. 'thread/SM'")
    p.add_argument("--occupancy", metavar="threads=T,regs=R,smem=S",
                   help="take active blocks/warps per SM from resource usage (occupancy model) instead of numbers")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("validate", help="reproduce the published numbers of models")
    p.add_argument("models", nargs="*", help="model ids (all bundled models by default)")
    p.add_argument("--json", action="store_true", help="print JSON")

    for name, (setup, _run) in sorted(EXTENSIONS.items()):
        setup(sub)
    return parser


#: Commands contributed by other modules: name -> (add parser to subparsers, run(args) -> int).
EXTENSIONS: dict[str, tuple[Callable[[Any], None], Callable[[argparse.Namespace], int]]] = {}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    _load_extensions()
    parser = create_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    run = COMMANDS.get(args.command) or EXTENSIONS[args.command][1]
    try:
        return run(args)
    except (errors.SymgpuError, pint.errors.PintError) as exc:
        print(f"symgpu: error: {exc}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except (errors.SymgpuError, ValueError) as exc:  # pragma: no cover - defensive
        print(f"symgpu: error: {exc}", file=sys.stderr)
        return BAD_INPUT
    except BrokenPipeError:
        # NOTE: output piped into `head` and closed early is not an error of ours.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback for users
        print(f"symgpu: internal error (a bug in symgpu; please report it with the command line): "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return BAD_INPUT


def _load_extensions() -> None:
    """Import modules that register extra subcommands (each is optional)."""
    import importlib

    for module in ("symgpu.cli.derive_commands", "symgpu.cli.report_commands", "symgpu.cli.compare_commands",
                   "symgpu.cli.measure_commands"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


# ---------------------------------------------------------------------------- helpers
def load_model(name: str) -> Any:
    """Load a model for a command (errors propagate to :func:`main` as exit code 2)."""
    import symgpu

    return symgpu.load(name)


def parse_assignments(model: Any, items: Sequence[str]) -> dict[str, pint.Quantity]:
    """Turn ``["M=16", "Theta_M=320.8 GB/s"]`` into quantities in the model's units.

    Raises:
        errors.UsageError: malformed item, unknown symbol, unreadable value.
    """
    values: dict[str, pint.Quantity] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name or not text.strip():
            raise errors.UsageError(f"--set {item!r}: expected NAME=VALUE, e.g. --set 'Theta_M=320.8 GB/s'")
        if name not in model.symbols:
            raise errors.UsageError(f"--set {item!r}: {model.id} has no symbol '{name}' (declared: {', '.join(sorted(model.symbols))})")
        try:
            values[name] = units.quantity(text, model.units[name])
        except ValueError as exc:
            raise errors.UsageError(f"--set {item!r}: {exc}") from None
    return values


def to_unit(value: pint.Quantity, unit_text: str | None) -> pint.Quantity:
    """Convert a result to ``unit_text`` (when given).

    Raises:
        errors.UsageError: unknown unit or incompatible dimension.
    """
    if not unit_text:
        return value
    try:
        target = units.unit(unit_text)
        return value.to(target)
    except ValueError as exc:
        raise errors.UsageError(f"--unit {unit_text!r}: {exc}") from None
    except pint.DimensionalityError:
        raise errors.UsageError(
            f"--unit {unit_text!r}: the result is {units.format_dimension(value.dimensionality)}, "
            f"which cannot be expressed in {unit_text} ({units.format_dimension(units.unit(unit_text).dimensionality)})"
        ) from None


def json_number(value: Any) -> Any:
    """A JSON-safe number or list (NaN and infinities become null)."""
    array = np.asarray(value, dtype=float)
    if array.ndim:
        return [json_number(v) for v in array.tolist()]
    number = float(array)
    return number if math.isfinite(number) else None


def unit_text(value: pint.Quantity) -> str:
    """Short unit text of a quantity (``thread / SM``)."""
    return f"{value.units:~}" or "1"


# ---------------------------------------------------------------------------- commands
def cmd_list(args: argparse.Namespace) -> int:
    import symgpu

    rows: list[dict[str, Any]] = []
    for model_id in loader.list_models():
        try:
            model = symgpu.load(model_id)
            rows.append({"id": model_id, "title": model.title, "equations": len(model.equations),
                         "presets": len(model.presets), "validation": len(model.definition.validation)})
        except errors.SymgpuError as exc:
            rows.append({"id": model_id, "title": f"(does not load: {exc})", "equations": 0, "presets": 0, "validation": 0})
    if args.json:
        print(json.dumps(rows, indent=2))
        return OK
    width = max((len(r["id"]) for r in rows), default=2)
    for row in rows:
        print(f"{row['id']:<{width}}  {row['equations']:>3} eq  {row['presets']:>2} presets  {row['validation']:>3} cases  {row['title']}")
    return OK


def cmd_show(args: argparse.Namespace) -> int:
    model = load_model(args.model)
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
    if model.presets:
        print("\npresets:")
        for preset in d.presets:
            values = ", ".join(f"{k}={v:~g}" for k, v in model.presets[preset.id].items())
            print(f"  {preset.id}: {preset.description}\n      {values}")
    print(f"\nvalidation cases: {len(d.validation)}; derivations: {len(d.derivations)}")
    return OK


def cmd_check(args: argparse.Namespace) -> int:
    import symgpu
    from symgpu.model import plot_requests

    names = args.models or loader.list_models()
    if not names:
        print("symgpu: error: no models to check", file=sys.stderr)
        return BAD_INPUT
    failed = 0
    for name in names:
        try:
            model = symgpu.load(name)
            plot_requests.check(model)
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
            raise errors.UsageError(f"--occupancy {text!r}: {key} must be a number, got {value.strip()!r}") from None
    missing = allowed - set(out)
    if missing:
        raise errors.UsageError(f"--occupancy {text!r}: missing {', '.join(sorted(missing))}")
    return out


def occupancy_inputs(model: Any, preset: str | None, text: str | None) -> dict[str, pint.Quantity]:
    """Values of ``model``'s occupancy symbols derived from resource usage (empty if ``text`` is None)."""
    if not text:
        return {}
    from symgpu.evaluate import occupancy

    resources = parse_occupancy(text)
    if not preset:
        raise errors.UsageError("--occupancy needs --preset naming the GPU (or a cc_X_Y compute capability)")
    # NOTE: with a combined preset (gtx280+tiled_matmul) the GPU is whichever part has a known
    # compute capability; the occupancy module refuses to guess when none has.
    parts = [p.strip() for p in preset.split("+")]
    first_error: errors.SymgpuError | None = None
    for part in parts:
        try:
            return dict(occupancy.occupancy_values(model, part, threads=resources["threads"], regs=resources["regs"], smem=resources["smem"]))
        except errors.UsageError as exc:
            first_error = first_error or exc
    assert first_error is not None
    raise first_error


def cmd_eval(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    values = occupancy_inputs(model, args.preset, args.occupancy)
    values.update(parse_assignments(model, args.set))
    result = to_unit(model.evaluate(args.quantity, preset=args.preset, **values), args.unit)
    if args.json:
        print(json.dumps({
            "model": model.id,
            "quantity": args.quantity,
            "value": json_number(result.magnitude),
            "unit": unit_text(result),
            "preset": args.preset,
            "inputs": {k: {"value": json_number(v.magnitude), "unit": unit_text(v)} for k, v in values.items()},
        }))
    else:
        print(f"{args.quantity} = {result.magnitude:.10g} {unit_text(result)}")
    return OK


def cmd_validate(args: argparse.Namespace) -> int:
    import symgpu

    names = args.models or loader.list_models()
    all_results = []
    failed = 0
    for name in names:
        model = symgpu.load(name)
        results = validation.validate(model)
        all_results.append((model, results))
        failed += sum(not r.ok for r in results)
    if args.json:
        print(json.dumps([
            {"model": model.id, "case": r.case.id, "quantity": r.quantity, "published": r.published,
             "computed": json_number(r.computed), "unit": r.unit, "tolerance": r.tolerance, "status": r.status,
             "source": str(r.case.source), "message": r.message}
            for model, results in all_results for r in results
        ], indent=2))
    else:
        for model, results in all_results:
            counts = {s: sum(r.status == s for r in results) for s in (validation.PASS, validation.ERRATUM)}
            print(f"{model.id}: {len(results)} values, {counts['pass']} reproduced, {counts['erratum']} source errata confirmed")
            for r in results:
                mark = {validation.PASS: "ok     ", validation.ERRATUM: "erratum"}.get(r.status, "FAIL   ")
                print(f"  {mark} {r.case.id}: {r.message}")
    print(f"{sum(len(r) for _, r in all_results) - failed} passed, {failed} failed", file=sys.stderr)
    return FAILED if failed else OK


COMMANDS.update({"list": cmd_list, "show": cmd_show, "check": cmd_check, "eval": cmd_eval, "validate": cmd_validate})
