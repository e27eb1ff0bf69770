"""The ``symgpu`` command line: the parser built from every command module, and :func:`main`.

Exit codes: 0 success; 1 a check or validation failed; 2 bad usage or bad input (one
clear message on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

import pint

from symgpu import errors
from symgpu.cli import (compare_commands, derive_commands, kernel_commands, measure_commands, model_commands,
                        report_commands, sweep_commands)
from symgpu.cli.common import BAD_INPUT, OK, Parser

#: Command modules: each has ``setup(subparsers)`` and ``RUN`` (subcommand -> run(args) -> exit code).
MODULES = (model_commands, derive_commands, report_commands, compare_commands, kernel_commands, measure_commands,
           sweep_commands)


def commands() -> dict[str, Callable[[argparse.Namespace], int]]:
    """Every subcommand and the function that runs it."""
    table: dict[str, Callable[[argparse.Namespace], int]] = {}
    for module in MODULES:
        table.update(module.RUN)
    return table


def create_parser() -> argparse.ArgumentParser:
    """Build the argument parser (separate from :func:`main` so tests can inspect it)."""
    parser = Parser(prog="symgpu", description="Symbolic, unit-checked GPU performance models.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for module in MODULES:
        module.setup(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = create_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    run = commands()[args.command]
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
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback for users
        print(f"symgpu: internal error (a bug in symgpu; please report it with the command line): "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return BAD_INPUT
