"""Where a Nsight Compute export's device differs from the preset a prediction takes its hardware from.

``symgpu kernel ... --ncu h100.csv --model hong_kim_2009 -p gtx280`` maps the H100 kernel's metrics onto the model
and predicts with the GTX280's 30 SMs and 1.296 GHz: the export's ``device__attribute_multiprocessor_count`` (132)
and its SM clock are set aside without a word (an audit's finding). :func:`differences` names each of the two the
prediction reads (the model's one input in SM, its clock) whose value at the preset and the values given differs
from the export's, for one line on stderr; it changes no value.

The export's SM clock is its ``sm__cycles_elapsed.avg.per_second`` where it has that metric, else its elapsed SM
cycles over its duration (``sm__cycles_elapsed.avg / gpu__time_duration.sum``): the clock the kernel ran at on
average, which a boost moves by a few percent, so a clock is named where the two differ by more than
:data:`CLOCK_TOLERANCE` (relative). SM counts are whole numbers, named where they differ at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from symgpu import errors, units
from symgpu.evaluate import clocks

if TYPE_CHECKING:  # pragma: no cover
    from symgpu.kernel.ncu import Launch
    from symgpu.model import Model

SM_COUNT = "device__attribute_multiprocessor_count"
CLOCK = "sm__cycles_elapsed.avg.per_second"
CYCLES, DURATION = "sm__cycles_elapsed.avg", "gpu__time_duration.sum"
#: the relative difference between the export's clock and the preset's above which the note names the clock
CLOCK_TOLERANCE = 0.05


def export_clock(launch: Launch) -> tuple[float, str] | None:
    """The export's SM clock in Hz and how it was read (the metric, or cycles over duration); None where it has neither."""
    if CLOCK in launch.metrics:
        return float(units.magnitude_in(launch.metrics[CLOCK], "Hz")), CLOCK
    if CYCLES in launch.metrics and DURATION in launch.metrics and float(launch.metrics[DURATION].magnitude) > 0:
        return float(units.magnitude_in(launch.metrics[CYCLES] / launch.metrics[DURATION], "Hz")), f"{CYCLES} / {DURATION}"
    return None


@dataclass(frozen=True)
class Difference:
    """The export's SM count or clock (``exported``, read as ``metric`` says) against ``name`` = ``used`` (``unit``)."""

    metric: str
    exported: float
    name: str
    used: float
    unit: str


def differences(model: Model, quantity: str, launch: Launch, preset: str | None, values: Mapping[str, Any]) -> list[Difference]:
    """The export's SM count and clock where they differ from the values ``quantity`` is predicted with (its SM-count
    input and clock, as :mod:`symgpu.evaluate.clocks` finds them, at ``preset`` and ``values``, where ``quantity``
    reads them); empty where they agree or cannot be told."""
    read = set(model.inputs(quantity, stop_at=tuple(n for n in values if n in model.defining)))
    found = []
    name, value = clocks.one_input_at(model, "SM", preset=preset, values=values)
    if name in read and value is not None and SM_COUNT in launch.metrics:
        exported, used = float(launch.metrics[SM_COUNT].magnitude), float(units.magnitude_in(value, "SM"))
        if exported != used:
            found.append(Difference(SM_COUNT, exported, str(name), used, "SM"))
    try:
        name, value = clocks.clock_at(model, preset=preset, values=values, missing=f"{model.id} has no clock input")
    except errors.UsageError:  # several clocks, none named 'clock': which one counts the cycles cannot be told
        name, value = None, None
    own = export_clock(launch)
    if name in read and value is not None and own is not None:
        used = float(units.magnitude_in(value, "Hz"))
        if abs(own[0] - used) > CLOCK_TOLERANCE * used:
            found.append(Difference(own[1], own[0] / 1e9, str(name), used / 1e9, "GHz"))
    return found


def note(model: Model, quantity: str, launches: Sequence[tuple[Launch, Mapping[str, Any]]], preset: str | None) -> str | None:
    """The one line on stderr (without ``symgpu: note: ``) on the :func:`differences` of ``launches`` (each with the
    values its prediction takes besides the preset's; each export value once, a range where the launches differ:
    each has its own clock), or None where there are none."""
    seen: dict[tuple[str, str, float, str, str], list[float]] = {}
    for launch, values in launches:
        for d in differences(model, quantity, launch, preset, values):
            source = "given" if d.name in values else f"preset {preset}"
            seen.setdefault((d.metric, d.name, d.used, d.unit, source), []).append(d.exported)
    if not seen:
        return None
    said = []
    for (metric, name, used, unit, source), exported in seen.items():
        low, high = min(exported), max(exported)
        shown = f"{low:.4g}" if f"{low:.4g}" == f"{high:.4g}" else f"{low:.4g} to {high:.4g}"
        said.append(f"{metric} = {shown} {unit}, but {name} = {used:.4g} {unit} ({source})")
    return (f"the export's device differs from the values the prediction of {quantity} takes: {'; '.join(said)}; "
            "give the profiled GPU's values (a preset of it, or --set) to predict for it")
