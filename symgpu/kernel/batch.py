"""Many launches in one call: the occupancy answer (and a model's prediction) for every launch of a
profiler export or of a list of launch configurations, each quantity evaluated once on arrays.

The occupancy answer (limits, active blocks and warps, occupancy, which limits bind and their cases)
comes from :func:`symgpu.kernel.occupancy_arrays.compute_many`, once per distinct configuration, all
of them on arrays; the prediction from the compiled array path of :mod:`symgpu.evaluate.evaluator`. A
row says what ``symgpu kernel`` says for that launch alone.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from symgpu import errors, textfiles, units
from symgpu.evaluate import evaluator
from symgpu.kernel import occupancy
from symgpu.kernel import mapping, ncu, occupancy_arrays, resources, targets

#: Most launches answered in one call.
MAX_LAUNCHES = 100_000
#: Columns of a launch-configuration list (``--launches``); ``kernel`` and ``dynamic_smem`` are optional.
CONFIG_COLUMNS = ("kernel", "threads", "dynamic_smem")


@dataclass(frozen=True)
class LaunchConfig:
    """One launch to answer.

    Attributes:
        label: the export's launch ID, or ``row N`` of a configuration list.
        kernel: the kernel's resource usage.
        threads: threads per block.
        dynamic_smem: dynamic shared memory per block (bytes).
        launch: the profiled launch (its metrics), None for a configuration.
    """

    label: str
    kernel: resources.KernelResources
    threads: int
    dynamic_smem: int = 0
    launch: ncu.Launch | None = None


@dataclass(frozen=True)
class LaunchAnswer:
    """One row of the answer: occupancy, the binding limits and, with a model, prediction vs measured.

    Attributes:
        label, kernel, threads, registers, smem_per_block: the launch.
        active_blocks, active_warps, max_warps, occupancy: the occupancy model's answer.
        limiting: the binding limits with their cases (``register_limit [per_warp_allocation]``).
        predicted, measured, unit: the model's prediction and the export's value compared with it (NaN: none).
        note: why a row has no prediction ("" otherwise).
    """

    label: str
    kernel: str
    threads: int
    registers: int
    smem_per_block: int
    active_blocks: int
    active_warps: int
    max_warps: int
    occupancy: float
    limiting: str
    predicted: float = math.nan
    measured: float = math.nan
    unit: str = ""
    note: str = ""

    @property
    def ratio(self) -> float:
        """Predicted over measured (NaN without both)."""
        return self.predicted / self.measured if self.measured else math.nan


def threads_of(block_size: str, where: str) -> int:
    """Threads per block from an export's ``Block Size`` cell, ``(16, 16, 1)`` -> 256.

    Raises:
        errors.UsageError: the cell is not one to three positive integers.
    """
    parts = [p.strip() for p in block_size.strip().strip("()").split(",")]
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() and 0 < int(p) <= 1 << 20 for p in parts):
        raise errors.UsageError(f"{where}: Block Size {textfiles.printable(block_size, 40)!r} is not (x, y, z) of positive integers")
    return math.prod(int(p) for p in parts)


def from_export(kernels: Sequence[resources.KernelResources], launches: Sequence[ncu.Launch], dynamic_smem: int = 0,
                cc: str | None = None) -> list[LaunchConfig]:
    """Every launch of an export, matched by kernel name to the compiler output (of a kernel compiled for several
    targets, the entry that runs on ``cc``: :func:`symgpu.kernel.resources.select`).

    Raises:
        errors.UsageError: a launch's kernel is not in the compiler output, or its block size does not parse.
    """
    out = []
    for launch in launches[:MAX_LAUNCHES + 1]:
        kernel = resources.select(kernels, launch.kernel.split("(")[0] if len({k.name for k in kernels}) > 1 else None, cc)
        dynamic = launch.metrics.get("launch__shared_mem_per_block_dynamic")
        smem = int(units.magnitude_in(dynamic, "B")) if dynamic is not None else dynamic_smem
        out.append(LaunchConfig(launch.index, kernel, threads_of(launch.block_size, launch.origin), smem, launch))
    return _capped(out)


def from_list(kernels: Sequence[resources.KernelResources], text: str, source: str, cc: str | None = None) -> list[LaunchConfig]:
    """Launch configurations from CSV text with a header ``kernel,threads,dynamic_smem``
    (``kernel`` may be left out when the compiler output has one kernel; ``dynamic_smem`` defaults to 0;
    of a kernel compiled for several targets, the entry that runs on ``cc``).

    Raises:
        errors.UsageError: no ``threads`` column, a cell that is not a non-negative integer, or a kernel the
            compiler output does not hold (each naming the file and row).
    """
    reader = csv.DictReader(io.StringIO(text))
    if "threads" not in (reader.fieldnames or []):
        raise errors.UsageError(f"{source}: the header must name a 'threads' column (columns: {', '.join(CONFIG_COLUMNS)})")
    out = []
    chosen: dict[str, resources.KernelResources] = {}  # each kernel name looked up once
    for number, row in enumerate(reader, start=2):
        where = f"{source}:{number}"
        cells = {k: (row.get(k) or "").strip() for k in CONFIG_COLUMNS}
        if not cells["threads"].isdigit() or int(cells["threads"]) == 0 or not (cells["dynamic_smem"] or "0").isdigit():
            raise errors.UsageError(f"{where}: threads must be a positive integer and dynamic_smem a non-negative one")
        if cells["kernel"] not in chosen:
            try:
                chosen[cells["kernel"]] = resources.select(kernels, cells["kernel"] or None, cc)
            except errors.UsageError as exc:  # no such kernel, or several and none named: said at the row that names it
                raise errors.UsageError(f"{where}: {exc}") from None
        kernel = chosen[cells["kernel"]]
        out.append(LaunchConfig(f"row {number}", kernel, int(cells["threads"]), int(cells["dynamic_smem"] or 0)))
    if not out:
        raise errors.UsageError(f"{source}: no launch configuration (one row per launch under the header)")
    return _capped(out)


def _capped(configs: list[LaunchConfig]) -> list[LaunchConfig]:
    if len(configs) > MAX_LAUNCHES:
        raise errors.UsageError(f"more than {MAX_LAUNCHES} launches in one call; split the input")
    return configs


def answer_all(configs: Sequence[LaunchConfig], cc_preset: str, *, model: Any = None, table: mapping.MetricMapping | None = None,
               preset: str | None = None, values: Mapping[str, Any] | None = None) -> list[LaunchAnswer]:
    """The occupancy answer for every launch on ``cc_preset``, each quantity evaluated once on arrays;
    with ``model`` and its metric ``table``, the prediction for every profiled launch next to the measured value.

    Raises:
        errors.UsageError: unknown compute-capability preset.
    """
    occ = occupancy.occupancy_model()
    hardware = occ.preset(cc_preset)
    default_barriers = hardware["barriers_per_block"].magnitude if "barriers_per_block" in hardware else 1
    inputs = {
        "threads_per_block": np.array([c.threads for c in configs], dtype=float),
        "regs_per_thread": np.array([c.kernel.registers for c in configs], dtype=float),
        "smem_per_block": np.array([c.kernel.shared_bytes + c.dynamic_smem for c in configs], dtype=float),
        "barriers_per_block": np.array([c.kernel.barriers if c.kernel.barriers >= 0 else default_barriers for c in configs], dtype=float),
    }
    # each distinct configuration answered once, all of them on arrays (occupancy_arrays: the scalar path's answer)
    stacked = np.stack(list(inputs.values()), axis=1) if configs else np.zeros((0, len(inputs)))
    distinct, back = np.unique(stacked, axis=0, return_inverse=True)
    back = np.asarray(back).reshape(-1)
    many = occupancy_arrays.compute_many(cc_preset, *distinct.T)
    blocks = many.active_blocks[back]
    max_warps = int(hardware["max_warps_per_SM"].magnitude)
    rows = []
    for i, config in enumerate(configs):
        j = int(back[i])
        rows.append(LaunchAnswer(
            label=config.label, kernel=config.kernel.display_name, threads=config.threads, registers=config.kernel.registers,
            smem_per_block=int(distinct[j, 2]), active_blocks=int(many.active_blocks[j]), active_warps=int(many.active_warps[j]),
            max_warps=max_warps, occupancy=float(many.occupancy[j]), limiting=many.limiting[j]))
    if model is not None and table is not None:
        rows = _predicted(rows, configs, model, table, cc_preset, preset, dict(values or {}), inputs, blocks)
    # a build for another target: the note `symgpu kernel` prints for that launch alone, before any other
    return [_with(r, note="; ".join(filter(None, (targets.note(c.kernel.arch, cc_preset), r.note)))) for r, c in zip(rows, configs)]


def _predicted(rows: list[LaunchAnswer], configs: Sequence[LaunchConfig], model: Any, table: mapping.MetricMapping, cc_preset: str,
               preset: str | None, values: dict[str, Any], inputs: Mapping[str, np.ndarray], blocks: np.ndarray) -> list[LaunchAnswer]:
    """Every profiled launch's prediction from one array evaluation of ``table.prediction``."""
    notes = ["" if c.launch is not None else "no profiled launch" for c in configs]
    derived: list[dict[str, Any]] = [{} for _ in configs]
    for i, config in enumerate(configs):
        if config.launch is None:
            continue
        try:
            derived[i] = {d.symbol: d.value for d in mapping.derive(table, model, config.launch, cc_preset)}
        except errors.UsageError as exc:
            notes[i] = str(exc)
    target = occupancy.mapping_of(model)
    if target is not None:
        occ = occupancy.occupancy_model()
        by_input = {**inputs}
        for name, source in target.symbols:
            magnitude = (evaluator.evaluate(occ, source, preset=cc_preset, values=by_input).magnitude if source in occ.defining
                         else by_input[source])
            quantity = units.convert(occupancy.occ_quantity(occ, source, np.asarray(magnitude, dtype=float) * np.ones(len(configs))), model.units[name])
            for i in range(len(configs)):
                if blocks[i] == 0:
                    notes[i] = notes[i] or f"the block cannot launch on {cc_preset}"
                derived[i].setdefault(name, quantity[i])
    ok = [i for i, note in enumerate(notes) if not note]
    if not ok or not table.prediction:
        return [_with(r, note=n or f"{table.path} names no prediction quantity") for r, n in zip(rows, notes)]
    names = sorted(set.intersection(*(set(derived[i]) for i in ok)))
    stacked = {n: _stack([derived[i][n] for i in ok], model.units[n]) for n in names}
    predicted = model.evaluate(table.prediction, preset=preset, values={**stacked, **values})
    magnitudes = np.asarray(predicted.magnitude, dtype=float) * np.ones(len(ok))
    out = [_with(r, note=n) for r, n in zip(rows, notes)]
    for j, i in enumerate(ok):
        single = predicted.__class__(float(magnitudes[j]), predicted.units)
        try:
            launch = configs[i].launch
            if launch is None:  # a configuration, not a profiled launch: nothing measured to compare
                out[i] = _with(rows[i], predicted=float(magnitudes[j]), unit=f"{predicted.units:~}")
                continue
            compared = mapping.compare(table, launch, single, cc_preset)[:1]
        except errors.UsageError as exc:
            out[i] = _with(rows[i], predicted=float(magnitudes[j]), unit=f"{predicted.units:~}", note=f"not compared: {exc}")
            continue
        if compared:
            c = compared[0]
            out[i] = _with(rows[i], predicted=float(c.predicted.magnitude), measured=float(c.measured.magnitude), unit=c.comparison.unit)
        else:
            out[i] = _with(rows[i], predicted=float(magnitudes[j]), unit=f"{predicted.units:~}")
    return out


def _stack(quantities: list[Any], unit: Any) -> Any:
    first = quantities[0]
    return first.__class__(np.array([float(units.magnitude_in(q, unit)) for q in quantities]), unit)


def _with(row: LaunchAnswer, **changes: Any) -> LaunchAnswer:
    return replace(row, **changes)


HEADER = ("launch", "kernel", "threads", "registers", "smem_per_block [B]", "active_blocks [block/SM]", "active_warps [warp/SM]",
          "occupancy", "limiting", "predicted", "measured", "unit", "ratio", "note")


def cells(row: LaunchAnswer, exact: bool = False) -> tuple[Any, ...]:
    """A row's cells in :data:`HEADER` order (NaN as an empty cell): for reading, six significant digits
    (occupancy four); ``exact``, for a file a program reads back (``-o``), each float's shortest
    round-trip ``repr``, so ``float(cell)`` is the value computed."""
    def number(x: float, digits: str = ".6g") -> str:
        return "" if math.isnan(x) else repr(float(x)) if exact else format(x, digits)
    return (row.label, row.kernel, row.threads, row.registers, row.smem_per_block, row.active_blocks, row.active_warps,
            number(row.occupancy, ".4g"), row.limiting, number(row.predicted), number(row.measured), row.unit, number(row.ratio), row.note)


def as_json(row: LaunchAnswer) -> dict[str, Any]:
    """A row as a JSON object (NaN as null)."""
    data = dict(zip(("launch", "kernel", "threads", "registers", "smem_per_block", "active_blocks", "active_warps"), cells(row)[:7]))
    data.update(max_warps=row.max_warps, occupancy=row.occupancy, limiting=row.limiting, unit=row.unit, note=row.note)
    for key in ("predicted", "measured", "ratio"):
        value = getattr(row, key)
        data[key] = None if math.isnan(value) else value
    return data
