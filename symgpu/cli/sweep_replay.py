"""``symgpu sweep`` run again: the stored plan of the same request (:mod:`symgpu.sweep.replay`)
evaluated and written without SymPy, pint or the model (numpy backend, local engine, no ``--set``,
no ``--plot``, the cache on); anything else, or no usable plan, and :func:`attempt` answers None so
that the full command (:mod:`symgpu.cli.sweep_commands`) runs. The lines printed are the full
command's (:func:`summary_lines`, which it prints too).

NOTE: imports neither SymPy nor pint (``tests/test_sweep_replay.py`` checks ``sys.modules``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from symgpu import errors, textfiles
from symgpu.cli.parsing import OK
from symgpu.sweep import chunks, output, replay, threads
from symgpu.sweep.chunks import DEFAULT_CHUNK

#: the largest accepted --chunk-size (the full command's)
MAX_CHUNK = 1 << 26


class _Refused(Exception):
    """The command line is not one the stored plan answers (the full command reads it)."""


class _Reader(argparse.ArgumentParser):
    """The sweep options the plan path answers, as the full command spells them; any other
    word, an abbreviation, or a malformed value raises :class:`_Refused`."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Refused(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        raise _Refused(message or "")


def _parser() -> _Reader:
    p = _Reader(prog="symgpu sweep", add_help=False, allow_abbrev=False)
    p.add_argument("model")
    p.add_argument("quantities", nargs="+")
    p.add_argument("--preset", "-p")
    p.add_argument("--grid", "-g", action="append", default=[])
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--format", choices=output.FORMATS)
    p.add_argument("--backend", default="numpy", choices=("numpy",))
    p.add_argument("--engine", default="local", choices=("local",))
    p.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK)
    p.add_argument("--regime-of")
    p.add_argument("--no-checks", action="store_true")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    return p


def request_of(argv: Sequence[str]) -> tuple[replay.Request, argparse.Namespace] | None:
    """The request ``argv`` (the words after ``symgpu``) makes, if the plan path answers it."""
    if not argv or argv[0] != "sweep":
        return None
    try:
        args = _parser().parse_args(list(argv[1:]))
        fmt = output.format_of(args.output, args.format)
    except (_Refused, errors.SymgpuError):
        return None
    if not 1 <= args.chunk_size <= MAX_CHUNK:
        return None
    return request(args, fmt), args


def request(args: argparse.Namespace, fmt: str) -> replay.Request:
    """The :class:`~symgpu.sweep.replay.Request` of parsed sweep arguments (either command's)."""
    return replay.Request(args.model, tuple(args.quantities), args.preset, tuple(args.grid), args.regime_of,
                          not args.no_checks, args.chunk_size, fmt)


def attempt(argv: Sequence[str]) -> int | None:
    """Run the sweep ``argv`` asks for from its stored plan; None where the full command must run
    (nothing has been written then).

    Raises:
        errors.UsageError: the file cannot be written, as the full command says it.
    """
    found = request_of(argv)
    if found is None:
        return None
    wanted, args = found
    plan = replay.find(wanted)
    if plan is None:
        return None
    try:
        textfiles.check_output_file(args.output, "-o")
        if wanted.format == "parquet":
            output.pyarrow_modules()
    except errors.SymgpuError:
        return None  # the full command reports it, after what it checks first
    note_unchecked(args)
    evaluated = chunks.with_settled(chunks.buffered_chunks(plan, plan.compiled(), wanted.chunk_size, args.progress,
                                                            threads.local_threads()), plan.settled,
                                    plan.quantities)
    summary = output.write_file(plan, evaluated, args.output, wanted.format)
    for line in summary_lines(summary, plan.quantities, plan.regime.quantity if plan.regime else ""):
        print(line)
    return OK


def note_unchecked(args: argparse.Namespace) -> None:
    """Say once on stderr, before the file is written, that ``--no-checks`` writes values outside the domains
    (either command's: the values a sweep writes are the same whichever runs it)."""
    if args.no_checks:
        print("symgpu: note: --no-checks: assumptions and valid_when domains are not checked, so values at points outside "
              "a domain are written as computed, not blanked (NaN)", file=sys.stderr)


def summary_lines(summary: output.WriteSummary, quantities: Sequence[str], regime_of: str) -> list[str]:
    """What ``symgpu sweep`` prints once the file is written."""
    lines = [f"{summary.points} points of {', '.join(quantities)} written to {summary.path} ({summary.format}, "
             f"{summary.seconds:.2f} s)"]
    if summary.regimes:
        lines.append(f"regimes of {regime_of}: " + ", ".join(f"{label} {count}" for label, count in summary.regimes))
    if summary.outside:
        lines.append(f"{summary.outside} points outside the model's domain (valid_when): NaN")
    for own, count in summary.outside_own:  # the other quantities keep their values at those points
        if count:
            lines.append(f"{count} points outside {own.quantity}'s domain ({' and '.join(own.conditions)}): NaN")
    return lines
