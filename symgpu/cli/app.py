"""The ``symgpu`` command line: the parser built from every command module, and :func:`main`.

Exit codes: 0 success; 1 a check or validation failed; 2 bad usage or bad input (one
clear message on stderr, never a traceback).

Start-up: :func:`main` imports only the module of the command it runs (``symgpu --help``
and ``symgpu list`` import neither SymPy nor matplotlib); ``symgpu sweep`` run again with the
same request first tries its stored plan (:mod:`symgpu.cli.sweep_replay`: neither SymPy nor pint). The top-level help comes from
:data:`COMMANDS`, which ``tests/test_cli.py`` checks against the command modules' parsers.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from symgpu import errors, leftovers, store, textfiles
from symgpu.cli.parsing import BAD_INPUT, FAILED, OK, Parser
from symgpu.cli.seeding import seed_sympy

#: Every subcommand, in help order: (command module, one-line help as its ``setup`` gives it).
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("catalog", "list the bundled models"),
    "show": ("model", "show a model's symbols, equations, presets"),
    "check": ("model", "load and unit-check models (all bundled models by default)"),
    "eval": ("model", "evaluate a quantity numerically"),
    "validate": ("model", "reproduce the published numbers of models"),
    "solve": ("derive", "solve a quantity's equation for a variable, in closed form"),
    "regimes": ("derive", "list the branches (regimes) of a piecewise quantity"),
    "boundary": ("derive", "where two regimes of a quantity meet, solved for a variable"),
    "extremum": ("derive", "maximum or minimum of a quantity over a variable (cusps included)"),
    "limit": ("derive", "limit of a quantity as a variable tends to a value"),
    "fixed-point": ("derive", "solve VAR = QUANTITY(VAR) (closed form, or a bracketed numeric root)"),
    "derive": ("derive", "run the [[derivations]] a model file asks for and check their expectations"),
    "repl": ("derive", "interactive session with symgpu imported and the bundled models loaded"),
    "report": ("report", "write a model's report (Markdown, LaTeX, JSON, plots)"),
    "diff": ("compare", "which equations two models define differently; symbolic difference of a shared quantity"),
    "compare": ("compare", "ratio of two models' predictions of a quantity over a sweep"),
    "report-comparison": ("compare", "write the prior-models comparison report (Markdown + SVG)"),
    "kernel": ("kernel", "occupancy (and a model's prediction) for a kernel from compiler output and profiler metrics"),
    "fit": ("measure", "least-squares fit of model parameters to measured data"),
    "measured": ("measure", "model vs measurement: errors, knees and a plot"),
    "measure": ("measure", "run microbenchmarks on this machine's NVIDIA GPU (needs symgpu[cuda])"),
    "sweep": ("sweep", "evaluate quantities over a grid of inputs, in chunks, to Parquet or CSV"),
    "plot": ("sweep", "draw a written sweep: a line (1 varying axis) or heat map (2), regime boundaries marked"),
    "predict": ("predict", "predict measured kernel latencies (NeuSight CSV format) with the kernel models"),
    "cache": ("cache", "show or clear the on-disk cache of symbolic results"),
}

#: Command module groups, in the order their parsers are built.
#: the longest error message printed (characters); the rest of a longer one is cut
MAX_MESSAGE = 4000

GROUPS = ("catalog", "model", "derive", "report", "compare", "kernel", "measure", "sweep", "predict", "cache")
#: the groups whose commands never use SymPy (the others seed its generators: :func:`seed_sympy`)
WITHOUT_SYMPY = ("catalog", "cache")


def command_module(group: str) -> ModuleType:
    """The command module of ``group`` (``symgpu.cli.<group>_commands``), imported now.

    NOTE: imported on demand on purpose: a command's heavy dependencies (SymPy, matplotlib)
    load only when that command runs, so ``symgpu --help`` starts fast.

    Raises:
        KeyError: ``group`` is not one of :data:`GROUPS`.
    """
    if group not in GROUPS:
        raise KeyError(group)
    return importlib.import_module(f"symgpu.cli.{group}_commands")


def commands() -> dict[str, Callable[[argparse.Namespace], int]]:
    """Every subcommand and the function that runs it (imports every command module)."""
    table: dict[str, Callable[[argparse.Namespace], int]] = {}
    for group in GROUPS:
        table.update(command_module(group).RUN)
    return table


def _parser(full: Sequence[str]) -> argparse.ArgumentParser:
    """The parser: complete subparsers for the groups in ``full``, help-only stubs for the rest."""
    parser = Parser(prog="symgpu", description="Symbolic, unit-checked GPU performance models.")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the on-disk cache of symbolic results (see 'symgpu cache')")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    built: set[str] = set()
    for name, (group, text) in COMMANDS.items():
        if group in full:
            if group not in built:
                command_module(group).setup(sub)
                built.add(group)
            continue
        sub.add_parser(name, help=text)
    return parser


def create_parser() -> argparse.ArgumentParser:
    """Build the complete argument parser (separate from :func:`main` so tests can inspect it)."""
    return _parser(GROUPS)


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (its first word not starting with '-'), if known."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


class _Collector:
    """Whether :func:`main` has seen this process's collector with objects frozen (it froze them, or found
    them frozen): ``gc.get_freeze_count()`` walks every frozen object (10-20 ms of CPU per call measured in a
    test process, more as more objects are frozen), so it is asked only until the answer is known not to be 0,
    which it stays (nothing in symgpu unfreezes)."""

    frozen_seen = False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_in(argv)
    if command == "sweep":  # run again: from its stored plan, without SymPy or pint, where there is one
        from symgpu.cli import sweep_replay  # NOTE: here, not above: other commands do not import NumPy for it

        code = _guarded(lambda: sweep_replay.attempt(argv), store.Settings.from_environment())
        if code is not None:
            return code
    # NOTE: start-up speed: the cyclic garbage collector is paused while the command's modules
    # (SymPy, pint, ...) are imported, and the objects they made, which live as long as the
    # process, are then moved out of its reach (gc.freeze), so no later collection walks them
    # again: a quarter of a cold `eval`'s CPU time. Only in a process that froze nothing yet (a
    # second main() in one process, as in the tests, leaves the collector as it finds it).
    startup = False
    if gc.isenabled() and not _Collector.frozen_seen:
        startup = gc.get_freeze_count() == 0
        _Collector.frozen_seen = True  # found frozen, or frozen below
    if startup:
        gc.disable()
    try:
        parser = _parser((COMMANDS[command][0],) if command else ())
    finally:
        if startup:
            gc.freeze()
            gc.enable()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if COMMANDS[args.command][0] not in WITHOUT_SYMPY:
        seed_sympy()
    # --no-cache is handed down as a setting; $SYMGPU_NO_CACHE switches the cache off from outside
    settings = store.Settings(enabled=False) if args.no_cache else store.Settings.from_environment()
    run = command_module(COMMANDS[args.command][0]).RUN[args.command]
    code = _guarded(lambda: run(args), settings)
    return OK if code is None else code


def _guarded(run: Callable[[], int | None], settings: store.Settings) -> int | None:
    """``run()`` with the cache as ``settings`` say, its errors as one line and an exit code."""
    try:
        with leftovers.terminations_raise(), store.using(settings):
            code = run()
            store.flush()  # what loading found (parsed files, Min/Max verdicts), kept after the work
            return code
    except errors.Terminated as exc:  # SIGTERM, SIGHUP: cleaned up like Ctrl-C
        return 128 + exc.signum
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # NOTE: output piped into `head` and closed early is not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except errors.CertificateError as exc:
        print(f"symgpu: check failed: {textfiles.printable(str(exc), MAX_MESSAGE)}", file=sys.stderr)
        return FAILED
    except errors.NoAnswerHere as exc:
        print(f"symgpu: error: {textfiles.printable(str(exc), MAX_MESSAGE)}", file=sys.stderr)
        return FAILED
    except OSError as exc:  # a file the command line named: missing, not writable, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"symgpu: error: {textfiles.printable(where + str(exc.strerror or exc), MAX_MESSAGE)}; "
              "check the path, its permissions and the free space", file=sys.stderr)
        return BAD_INPUT
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback for users
        if isinstance(exc, (errors.SymgpuError, ValueError)) or _is_pint_error(exc):
            # NOTE: messages quote untrusted text: one line of printable characters, a few screens at most
            print(f"symgpu: error: {textfiles.printable(str(exc), MAX_MESSAGE)}", file=sys.stderr)
            return BAD_INPUT
        print(f"symgpu: internal error (a bug in symgpu; please report it with the command line): "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return BAD_INPUT


def _is_pint_error(exc: BaseException) -> bool:
    """True for pint's errors (bad units in input); pint is not imported to find out."""
    pint = sys.modules.get("pint")
    return pint is not None and isinstance(exc, pint.errors.PintError)
