"""Shared pieces of the command line: exit codes, the one-line-error parser, value options
and the helpers every command uses to load models and read values."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pint

from symgpu import api, errors, resources, suggest, textfiles, units
from symgpu.model import loader
from symgpu.evaluate import clocks
from symgpu.numbers import json_number
from symgpu.report import files
from symgpu.cli import unit_rates
from symgpu.cli.parsing import BAD_INPUT, FAILED, OK, Once, Parser

__all__ = ["BAD_INPUT", "FAILED", "OK", "Parser", "add_unit_options", "add_value_options", "convert", "converted", "CycleClock", "across_the_clock", "find_clock", "load_model", "parse_assignments",
           "to_unit", "unit_text", "declared_unit_text"]


def add_value_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--preset`` and ``--set NAME=VALUE`` (repeatable) to a subcommand."""
    parser.add_argument("--preset", "-p", action=Once, hint="; combine presets with '+', e.g. --preset A+B",
                        help="preset (parameter set) of the model; presets combined with '+' (--preset h100_sxm+neusight_fit)")
    parser.add_argument("--set", "-s", action="append", default=[], metavar="NAME=VALUE",
                        help="a value, optionally with a unit: --set 'Theta_M=320.8 GB/s' (bare numbers are in the symbol's declared unit)")


def add_unit_options(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    """Add ``--unit`` and ``--clock`` (the clock that turns cycles into time) to a subcommand."""
    parser.add_argument("--unit", "-u", help=f"unit of {what}, e.g. 'thread/SM' or 'us'")
    parser.add_argument("--clock", metavar="FREQ",
                        help="clock that turns cycles into time for --unit, e.g. '1.3 GHz' (default: the preset's clock)")


def load_model(name: str, *, whole: bool = False) -> Any:
    """Load a model for a command (errors propagate to :func:`main` as exit code 2): for a question, each equation
    built and checked when first read; ``whole``, every part built and checked now (:func:`symgpu.api.load`). Warn on
    stderr when the id names several files (a user model with a bundled model's id is hidden), and
    when a base it extends is read from a file beside it that its id does not load by itself
    (:func:`loader.unlike_by_id`: a user copy of a bundled base, which `list` calls hidden)."""
    model = api.load(name, whole=whole)
    if "/" not in name and os.sep not in name and not name.endswith(".toml"):
        hidden = loader.shadowed(name)
        if hidden:
            print(f"symgpu: warning: model '{textfiles.printable(name, 100)}' is read from {model.path}; "
                  f"{textfiles.listing([str(p) for p in hidden], 3, 200)} in ${resources.ENV_MODEL_PATH} has the same id and is "
                  "not used: rename that model (file name and [model].id) or give its path", file=sys.stderr)
    if model.path is not None:
        for base_id, used, by_id in loader.unlike_by_id(model.path):
            print(f"symgpu: warning: model '{textfiles.printable(model.id, 100)}' extends '{base_id}' from {textfiles.printable(str(used), 200)} "
                  f"(a base beside a variant comes first), not from {textfiles.printable(str(by_id), 200)}, which the id '{base_id}' loads; "
                  f"its numbers follow that file (rename or move it to extend {textfiles.printable(str(by_id), 200)} instead)", file=sys.stderr)
    return model


#: largest --preset-file read
PRESET_FILE_BYTES = 1 << 20


def load_model_with_presets(name: str, preset_file: str | None) -> Any:
    """The model ``name``, with the ``[presets.ID]`` blocks of ``preset_file`` added (``None``: as is).

    The blocks (e.g. from ``symgpu fit --preset-id ID -o FILE``) become a variant that extends
    ``name`` (id ``<name>_with_presets``), checked like any model file; a block may use
    ``based_on`` with the model's own presets.

    Raises:
        errors.UsageError: the model is given by path, or the file is not TOML holding only
            ``[presets.*]`` tables.
    """
    model = load_model(name)
    if not preset_file:
        return model
    if loader.find(name) is None:
        raise errors.UsageError(f"--preset-file needs a model id (bundled or in ${resources.ENV_MODEL_PATH}), not the path "
                                f"{textfiles.printable(name, 200)!r}; paste the block into that model file instead")
    raw = textfiles.read_bounded(preset_file, limit=PRESET_FILE_BYTES, what="preset file", hint="give one [presets.ID] block")
    shown = textfiles.printable(preset_file, 200)
    try:
        text = raw.decode("utf-8")
        parsed = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise errors.UsageError(f"--preset-file {shown}: not TOML text ({exc}); give a block written by 'symgpu fit --preset-id'") from None
    if set(parsed) != {"presets"} or not isinstance(parsed["presets"], dict) or not parsed["presets"]:
        raise errors.UsageError(f"--preset-file {shown}: expected only [presets.ID] tables, found "
                                f"{', '.join(sorted(map(str, parsed))) or 'nothing'}; give a block written by 'symgpu fit --preset-id'")
    taken = sorted(str(key) for key in parsed["presets"] if key in model.presets)
    if taken:
        raise errors.UsageError(f"--preset-file {shown}: preset {textfiles.printable(taken[0], 100)!r} is already a preset of {model.id}; "
                                f"give the block another id (symgpu fit --preset-id NEW_ID), so the bundled one is not replaced unseen")
    variant = f"{model.id}_with_presets"
    header = "\n".join([
        "schema_version = 1", "[model]", f"id = {json.dumps(variant)}", f"extends = {json.dumps(model.id)}",
        f"title = {json.dumps(model.title + ' + presets of ' + Path(preset_file).name)}",
        f"summary = {json.dumps('The model with the presets of --preset-file ' + Path(preset_file).name + '.')}",
        f"references = [{json.dumps(model.definition.primary_reference)}]", "",
    ])
    with tempfile.TemporaryDirectory(prefix="symgpu-presets-") as folder:
        path = Path(folder) / f"{variant}.toml"
        path.write_text(header + text, encoding="utf-8")
        try:
            return api.load(str(path))
        except errors.ModelFileError as exc:
            _name_preset_file(exc, f"--preset-file {shown}")
            raise


def _name_preset_file(exc: errors.ModelFileError, shown: str) -> None:
    """Say the user's preset file, not the temporary variant built from it, where the error lies."""
    for problem in (*getattr(exc, "problems", ()), exc):
        problem.path = shown


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
            raise errors.UsageError(f"--set {item!r}: {model.id} has no symbol '{name}' (declared: {suggest.alternatives(name, sorted(model.symbols))})")
        if name in values:
            raise errors.UsageError(f"--set {item!r}: {name} is given more than once; give it once")
        try:
            values[name] = units.quantity(text, model.units[name])
        except ValueError as exc:
            raise errors.UsageError(f"--set {item!r}: {_symbols_named(model, name, text) or exc}") from None
    return values


def _symbols_named(model: Any, name: str, text: str) -> str | None:
    """Why a ``--set`` value that names the model's symbols (``theta=c/2``) is refused, and what takes it: ``--substitute``
    on the commands that derive (``regimes`` prints its value at a preset); None where it names none (round 34g: it was
    refused as an unknown unit 'c/2')."""
    named = sorted({word for word in re.findall(r"[A-Za-z_]\w*", text) if word in model.symbols})
    if not named:
        return None
    which = f"{named[0]} is a symbol" if len(named) == 1 else f"{', '.join(named)} are symbols"
    return (f"{which} of {model.id}, and --set takes a number with a unit; to put {name} = {text.strip()} into the model, "
            f"give --substitute '{name}={text.strip()}' to solve, regimes, boundary, extremum, limit or fixed-point "
            f"(symgpu regimes {model.id} QUANTITY --substitute '{name}={text.strip()}' -p PRESET prints its value at the preset)")


def note_combined_preset(model: Any, preset: str | None) -> None:
    """Say on stderr, in one line, each value a later part of a combined preset (``-p A+B``) replaces with another
    value (the later one wins: :meth:`Model.preset`): ``gtx280+table2_example`` runs at table2_example's 1 GHz, not
    gtx280's 1.3 GHz. Nothing for one preset, an unknown part (the command refuses it) or values that agree."""
    parts = [part.strip() for part in (preset or "").split("+")]
    if len(parts) < 2 or any(part not in model.presets for part in parts):
        return
    held: dict[str, tuple[str, float]] = {}
    replaced = []
    for part in parts:
        for name, value in model.presets[part].items():
            number = float(units.magnitude_in(value, model.units[name])) if name in model.units else float(value.magnitude)
            if name in held and held[name][1] != number:
                earlier = held[name][0]
                replaced.append(f"{name} = {_preset_text(model, earlier, name, held[name][1])} ({earlier}) by "
                                f"{_preset_text(model, part, name, number)} ({part})")
            held[name] = (part, number)
    if replaced:
        print(f"symgpu: note: preset {preset}: a later part replaces {len(replaced)} value{'s' if len(replaced) > 1 else ''}: "
              f"{'; '.join(replaced)}", file=sys.stderr)


def _preset_text(model: Any, preset: str, name: str, number: float) -> str:
    """``name``'s value in ``preset`` as its file writes it (``1.3 GHz``; an inherited one from the preset it is
    based on), else ``number`` in ``name``'s declared unit."""
    definitions = {d.id: d for d in model.definition.presets}
    seen: set[str] = set()
    while preset in definitions and preset not in seen:
        seen.add(preset)
        own = dict(definitions[preset].values)
        if name in own:
            return " ".join(str(own[name]).split())
        preset = definitions[preset].based_on
    unit = model.unit_text(name) if name in model.units else ""
    return f"{number:.10g}" + (f" {unit}" if unit not in ("", "1") else "")


def across_the_clock(model: Any, values: dict[str, pint.Quantity], clock_text: str | None, *, preset: str | None,
                     variable: str | None = None, swept: Sequence[str] = ()) -> tuple[dict[str, pint.Quantity], bool]:
    """``--set`` values given in a unit that differs from the symbol's declared one by the clock, the warp size or the
    SM count (``mem_lat=300 ns`` for a symbol in cycles, ``n=1024 thread/SM`` for one in warp/SM, ``7.652 B/cycle/SM``
    for one in GB/s) moved across them as ``--target`` is (:func:`symgpu.evaluate.clocks.moved_across`; the clock:
    :func:`find_clock`, ``--clock`` else the model's clock at the preset and the other values), each conversion said
    on stderr; the values, and whether a clock converted any of them.

    Raises:
        errors.UsageError: a value needs a rate and none is known here (or that rate is ``variable``, or one of the
            ``swept`` inputs: a sweep's axes, a comparison's variable).
    """
    out = dict(values)
    used = False
    for name, given in values.items():
        unit = model.units[name]
        powers = None if given.dimensionality == unit.dimensionality else clocks.exponents(given, unit, sm=False)
        if powers is None:
            continue  # the same dimension, or one no rate reaches: read, or refused, by the evaluation
        need = f"--set {name}={given:~}: {name} is in {model.unit_text(name)}, so the value"
        missing = f"{need} needs a clock"
        for rate in powers:
            what = clocks.rate_word(rate)
            if rate == "Hz":
                rate_input = None if clock_text is not None else clocks.cycle_clock(model, clocks.inputs_in(model, "Hz"), missing)
            else:
                names = clocks.inputs_in(model, rate)
                rate_input = names[0] if len(names) == 1 else None
            if rate_input is not None and rate_input in ((variable,) if variable else ()) + tuple(swept):
                how = "the variable here" if rate_input == variable else "swept here"
                raise errors.UsageError(f"{need} needs {'a' if rate == 'Hz' else 'the'} {what}, and {model.id}'s {what} "
                                        f"{rate_input} is {how}: give {name} in {model.unit_text(name)}"
                                        + (", or --clock to convert it at a clock you choose" if rate == "Hz" and not swept else ""))
        others = {k: v for k, v in out.items() if k != name}
        found = clocks.moved_across(
            model, given, unit, preset=preset, values=others,
            clock=lambda: clock_and_symbol(model, clock_text, preset=preset, values=others, missing=missing),
            refuse=clocks.input_refusal(model, need, lambda n, example: f"--set '{n}={example}'", f"give {name} in {model.unit_text(name)}"))
        assert found is not None
        out[name], rates = found
        used = used or any(rate.rate == "Hz" for rate in rates)
        print(f"symgpu: note: {name} = {given:~.10g} = {out[name].magnitude:.10g} {model.unit_text(name)} at "
              f"{' and '.join(rate.said for rate in rates)}", file=sys.stderr)
    return out, used


def to_unit(value: pint.Quantity, unit_text: str | None) -> pint.Quantity:
    """Convert a result to ``unit_text`` (when given).

    Raises:
        errors.UsageError: unknown unit or incompatible dimension.
    """
    if not unit_text:
        return value
    try:
        target = units.unit(unit_text)
        return units.convert(value, target)
    except ValueError as exc:
        raise errors.UsageError(f"--unit {unit_text!r}: {exc}") from None
    except pint.DimensionalityError:
        if value.dimensionless:  # "the result is 1 ... (such as )": a pure number has no unit to suggest
            raise errors.UsageError(f"--unit {unit_text!r}: the result is a pure number (no unit), which cannot be expressed in "
                                    f"{unit_text} ({units.format_dimension(units.unit(unit_text).dimensionality)}); ask without "
                                    f"--unit, or for a quantity of the model that is in {unit_text}") from None
        raise errors.UsageError(
            f"--unit {unit_text!r}: the result is {units.format_dimension(value.dimensionality)}, "
            f"which cannot be expressed in {unit_text} ({units.format_dimension(units.unit(unit_text).dimensionality)}) at any "
            f"rate of the model; ask in a unit of its own dimension (such as {value.units:~}), or for a quantity of the model "
            f"that is in {unit_text}"
        ) from None


@dataclass(frozen=True)
class CycleClock:
    """The clock that turned cycles into time (or back) for ``--unit``, and where it came from
    (``--clock``, ``clock given by --set``, ``clock of preset kepler``)."""

    value: pint.Quantity
    source: str

    def json(self) -> dict[str, Any]:
        """The record ``--json`` carries: the clock in its compact unit, and its source."""
        shown = units.compact(self.value)
        return {"value": json_number(shown.magnitude), "unit": unit_text(shown), "source": self.source}


def convert(model: Any, value: pint.Quantity, unit: str | None, clock_text: str | None, *, quantity: str,
            preset: str | None, values: dict[str, pint.Quantity]) -> pint.Quantity:
    """``--unit``, with a clock between cycles and time (:func:`converted`, the value alone)."""
    return converted(model, value, unit, clock_text, quantity=quantity, preset=preset, values=values)[0]


def converted(model: Any, value: pint.Quantity, unit: str | None, clock_text: str | None, *, quantity: str,
              preset: str | None, values: dict[str, pint.Quantity], variable: str | None = None
              ) -> tuple[pint.Quantity, CycleClock | None]:
    """``--unit``, with a clock between cycles and time: ``--clock`` or else the model's clock
    (its frequency symbol) at the preset and values; the clock used (None where none was), also
    said on stderr. ``variable``: the one a limit or extremum moves (the model's clock cannot be it).

    Raises:
        errors.UsageError: the units do not convert, or a clock is needed and none is known (or
            the model's clock is ``variable``: its value at the point is not the clock where the value is).
    """
    if clock_text and not unit:
        raise errors.UsageError(f"--clock {clock_text!r}: a clock converts cycles to a time; give --unit too, e.g. --unit us")
    try:
        return to_unit(value, unit), None
    except errors.UsageError as problem:
        assert unit is not None
        if needs_warp_size(value, units.unit(unit)):
            return to_unit(with_warp_size(model, value, units.unit(unit), preset, values, problem), unit), None
        used: list[CycleClock] = []

        def clock() -> pint.Quantity:
            need = "a time" if units.unit(unit).dimensionality == units.unit("s").dimensionality else unit
            found, source = find_clock(model, clock_text, preset=preset, values=values, variable=variable,
                                       missing=f"--unit {unit!r}: {quantity} is in {unit_text(value)}; {need} needs a clock")
            named = "" if source == "--clock" else f"{source.split(' ', 1)[0]} = "
            print(f"symgpu: note: cycles converted at {named}{units.compact(found):~.10g} ({source})", file=sys.stderr)
            used.append(CycleClock(found, source))
            return found

        if not clocks.needs_clock(value, units.unit(unit)):  # per SM and per GPU (with the clock or warp size where needed)
            moved = unit_rates.across_sms(model, value, units.unit(unit), preset=preset, values=values, problem=problem, clock=clock)
            return to_unit(moved, unit), (used[0] if used else None)
        found = clock()
        return to_unit(clocks.across(value, units.unit(unit), found), unit), used[0]


def needs_warp_size(value: pint.Quantity, unit: Any) -> bool:
    """Do ``value`` and ``unit`` differ by exactly threads per warp (warps per SM in threads per SM)?"""
    return clocks.needs_warp_size(value, unit)


def with_warp_size(model: Any, value: pint.Quantity, unit: Any, preset: str | None, values: dict[str, pint.Quantity],
                   problem: errors.UsageError) -> pint.Quantity:
    """``value`` moved across the model's warp size (its one input in thread/warp) towards ``unit``, said on stderr.

    Raises:
        errors.UsageError: ``problem``, where the model has no single warp size with a value here.
    """
    name, size = clocks.warp_size_at(model, preset=preset, values=values)
    if name is None:
        raise problem from None
    if size is None:
        raise errors.UsageError(f"{problem}; the warp size {name} has no value here: give --set '{name}=32 thread/warp'") from None
    print(f"symgpu: note: warps converted at {name} = {size:~.10g}", file=sys.stderr)
    return clocks.across(value, unit, size)


def find_clock(model: Any, clock_text: str | None, *, preset: str | None, values: dict[str, pint.Quantity],
               missing: str, variable: str | None = None) -> tuple[pint.Quantity, str]:
    """The clock (a frequency) and where it came from: ``--clock``, else the model's frequency
    symbol at the preset and values (:func:`symgpu.evaluate.clocks.clock_at`).

    Raises:
        errors.UsageError: ``--clock`` is not a frequency, or no clock is known (``missing``,
            followed by what to give, is the message).
    """
    found, source, _ = clock_and_symbol(model, clock_text, preset=preset, values=values, missing=missing, variable=variable)
    return found, source


def clock_and_symbol(model: Any, clock_text: str | None, *, preset: str | None, values: Mapping[str, pint.Quantity],
                     missing: str, variable: str | None = None) -> tuple[pint.Quantity, str, str | None]:
    """:func:`find_clock`, and the model's clock symbol it read (None for ``--clock``'s): a target written over it
    (:mod:`symgpu.derive.targets`) does not look it up again."""
    clock_dim = units.unit("Hz").dimensionality
    if clock_text:
        try:
            clock = units.quantity(clock_text)
        except ValueError as exc:
            raise errors.UsageError(f"--clock {clock_text!r}: {exc}") from None
        if clock.dimensionality != clock_dim:
            raise errors.UsageError(f"--clock {clock_text!r}: a clock is a frequency such as '1.3 GHz'") from None
        if not (clock.magnitude > 0 and math.isfinite(clock.magnitude)):
            raise errors.UsageError(f"--clock {clock_text!r}: a clock is a positive, finite frequency such as '1.3 GHz'")
        return clock, "--clock", None
    name, found = clocks.clock_at(model, preset=preset, values=values, missing=missing)
    if name is None:
        raise errors.UsageError(f"{missing}: give --clock '1.3 GHz'") from None
    if name == variable:  # the value is where the clock is the answer's, not the preset's
        raise errors.UsageError(f"{missing}, and {model.id}'s clock {name} is the variable here, so no one clock converts the "
                                "value: ask without --unit (in the quantity's own unit), or give --clock to convert at a "
                                "clock you choose")
    if found is None:
        raise errors.UsageError(f"{missing}: give --clock '1.3 GHz' or a preset with {name} (or --set '{name}=1.3 GHz')") from None
    return found, (f"{name} given by --set" if name in values else f"{name} of preset {preset}"), name


def unread(model: Any, quantity: str, given: Sequence[str], *, unit: str | None = None) -> list[str]:
    """The names of ``given`` that ``quantity``'s value does not read: named by no equation on its way (stopping at a
    quantity given a value) and by no ``valid_when`` domain there, nor (with ``unit``) a clock or warp size that may
    convert it. ``--set BW=...`` on Volkov's ``a100`` preset, whose ``n_needed`` reads ``mem_thru`` typed in as a number,
    changed nothing without a word (an outside tester's finding)."""
    stop = tuple(n for n in given if n in model.defining)
    read = set(clocks.inputs_in(model, "Hz")) | set(clocks.inputs_in(model, "thread/warp")) if unit else set()
    for equation in model.dependencies(quantity, stop_at=stop):
        read.add(equation.definition.defines)
        read |= {s.name for s in equation.rhs.free_symbols}
        read |= {s.name for c in equation.valid_when for s in c.free_symbols}
    return [n for n in given if n not in read]


def note_unread(model: Any, quantity: str, names: Sequence[str], preset: str | None, given: Sequence[str] = ()) -> None:
    """Say on stderr that the values of ``names`` change nothing in ``quantity``, and what it reads instead: its inputs
    with the quantities among ``given`` (every ``--set`` name) taken as given, as :func:`unread` reads them, so no name
    is both not read and read (an outside tester's finding: ``--set memory_throughput_loaded_ilp=...`` with
    ``--set alpha=0`` named alpha in both lists)."""
    if not names:
        return
    reads = model.inputs(quantity, stop_at=tuple(n for n in given if n in model.defining))
    shown = ", ".join(reads[:10]) + (f", ... ({len(reads)} in all)" if len(reads) > 10 else "")
    them = "them" if len(names) > 1 else "it"
    where = f" (symgpu show {model.id} lists preset {preset}'s notes)" if preset else ""
    print(f"symgpu: note: --set {', '.join(names)} changes nothing: {quantity} does not read {them} (it reads {shown}); "
          f"a preset may give a value derived from {them} as a number{where}", file=sys.stderr)


def note_replaced(model: Any, quantity: str, given: Sequence[str]) -> None:
    """Say on stderr, one line each, that a value given for a quantity an equation defines replaces that equation
    alone: the inputs it is computed from keep their own values where other equations on ``quantity``'s way read
    them (``--set N=5`` on Hong & Kim: N = Active_warps_per_SM (Eq. 20) is 5, while MWP_Without_BW still reads
    Active_warps_per_SM, 20 on table2_example; an audit found nothing said so). Silent where no other equation
    reads them (the value then stands for all of them) and for a quantity not on the way (:func:`note_unread`)."""
    stop = tuple(n for n in given if n in model.defining)
    way = model.dependencies(quantity, stop_at=stop)
    reads = {e.definition.defines: {s.name for s in e.rhs.free_symbols} | {s.name for c in e.valid_when for s in c.free_symbols}
             for e in way}
    for name in stop:
        if not any(name in names for names in reads.values()):
            continue
        replaced = model.equation_for(name)
        sources = sorted({s.name for s in replaced.rhs.free_symbols})
        kept = [f"{source} (read by {', '.join(e for e, names in reads.items() if source in names)})" for source in sources
                if source not in given and any(source in names for names in reads.values())]  # a given one: its value is the caller's
        if kept:
            print(f"symgpu: note: --set {name} replaces only equation {replaced.definition.id} ({replaced.definition.source.locator}), "
                  f"which computes {name} from {', '.join(sources)}; other equations keep reading those at their own values: "
                  f"{', '.join(kept)}", file=sys.stderr)


def unit_text(value: pint.Quantity) -> str:
    """Short unit text of a quantity (``thread / SM``)."""
    return f"{value.units:~}" or "1"


def declared_unit_text(model: Any, name: str, value: pint.Quantity, asked: str | None = None) -> str:
    """The unit of ``value`` as it was written: the ``--unit`` text ``asked``, else ``name``'s declared unit
    as the model spells it (``op/cycle/SM``, which pint would print as its alias's symbol, ``tinst / cy / SM``),
    where ``value`` is in that unit and it is not a pure number; else :func:`unit_text`."""
    written = asked if asked is not None else model.unit_text(name) if name in model.units else None
    if written is None or units.unit(written).dimensionless or value.units != units.unit(written):
        return unit_text(value)
    return str(written).strip()


def write_plot(path_text: str, data: bytes) -> Path:
    """Write a plot file given by ``--plot PATH`` atomically.

    Raises:
        errors.UsageError: the file cannot be written there (the message names the option and path).
    """
    return write_output(path_text, data, "--plot", "the plot")


def write_output(path_text: str, data: bytes, option: str, what: str) -> Path:
    """Write ``data`` to the file given by ``option`` atomically; only a regular file is ever replaced.

    Raises:
        errors.UsageError: the path is not a regular file, or it cannot be written (a full disk,
            no permission): one line naming the option and path.
    """
    target = textfiles.check_output_file(path_text, option)
    try:
        files.write_files(target.parent if str(target.parent) else Path("."), {target.name: data})
    except OSError as exc:
        raise errors.UsageError(f"{option} {path_text!r}: cannot write {what} there: {exc.strerror or exc}") from None
    return target
