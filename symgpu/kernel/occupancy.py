"""Occupancy from resource usage, for models that take occupancy as an input.

Hong & Kim's ``Active_blocks_per_SM`` and ``N``, Volkov's ``n``: these models take the
number of resident blocks or warps per SM as a given number. This module computes it from
the launch's resources (threads per block, registers per thread, shared memory per block)
with the ``occupancy`` model (``equations/occupancy.toml``) and returns values keyed by
the *target* model's symbol names, ready to pass to ``Model.evaluate``::

    >>> from symgpu.kernel import occupancy                            # doctest: +SKIP
    >>> values = occupancy.occupancy_values("hong_kim_2009", "gtx280",
    ...                                     threads=128, regs=18, smem=3960)
    >>> symgpu.load("hong_kim_2009").evaluate("Exec_cycles_app", preset="gtx280", **values, ...)

The hardware limits come from a compute-capability preset of the occupancy model
(``cc_1_3``...). The caller names either that preset directly or a preset of the target
model; the target model's ``[occupancy]`` table (:func:`mapping_of`) maps its presets (GPUs)
to compute capabilities and its symbols to occupancy quantities. A GPU that is not in the
table is an error, never a guess.

This module composes two models, so it lives above ``evaluate/``, which evaluates one.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pint

from symgpu import errors, units

from symgpu.evaluate import active, evaluator, input_values
from symgpu.evaluate.record import Regime, evaluation_record
from symgpu.model import Model, catalog, schema

OCCUPANCY_MODEL = "occupancy"

#: The occupancy model's quantities whose value follows active_blocks_per_SM; ``eval`` names the
#: limiter (and, at 0 blocks, the reason the block cannot launch) for these.
BLOCK_QUANTITIES = ("active_blocks_per_SM", "active_warps_per_SM", "occupancy")

#: What the block-slot limit (a preset value, no cases) means.
BLOCK_SLOTS_REASON = "block slots: the most blocks an SM holds"

#: Names of the launch parameters, as the ``--occupancy`` option spells them, mapped to
#: the occupancy model's input symbols (declared units: thread/block, reg/thread, B/block).
INPUTS: dict[str, str] = {
    "threads": "threads_per_block",
    "regs": "regs_per_thread",
    "smem": "smem_per_block",
}


def mapping_of(model: Any) -> schema.OccupancyMapping | None:
    """How ``model`` takes occupancy: its file's ``[occupancy]`` table (a variant's, else its base's); None when it takes none."""
    return _load(model).definition.occupancy


@dataclass(frozen=True)
class OccupancyResult:
    """The occupancy derivation for one launch, for reports and for the target model.

    Attributes:
        target: target model id ("" when computed for the occupancy model alone).
        cc_preset: the compute-capability preset used (``cc_1_3``...).
        inputs: occupancy input symbol -> value as given.
        limits: regime name (warp_limit, block_limit, register_limit, smem_limit, barrier_limit) -> blocks/SM.
        active_blocks: resident blocks per SM.
        active_warps: resident warps per SM.
        occupancy: active warps over the maximum warps per SM.
        limiting: the regimes whose limit equals the minimum (several on a tie: within :data:`symgpu.evaluate.active.TIE`).
        values: target symbol -> value in the target symbol's declared unit.
        cases: regime name -> the id of the model's case that applies to that limit
            (``per_warp_allocation``, ``block_too_large``...; "" for the block slots).
        reasons: regime name -> that case's note (why the limit has its value).
    """

    target: str
    cc_preset: str
    inputs: Mapping[str, Any]
    limits: Mapping[str, pint.Quantity]
    active_blocks: pint.Quantity
    active_warps: pint.Quantity
    occupancy: pint.Quantity
    limiting: tuple[str, ...]
    values: Mapping[str, pint.Quantity] = field(default_factory=dict)
    cases: Mapping[str, str] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)

    @property
    def can_launch(self) -> bool:
        """False when the block cannot launch (0 active blocks, as the CUDA occupancy API answers)."""
        return float(self.active_blocks.magnitude) > 0

    def limiting_text(self) -> str:
        """The binding limits with their cases: ``register_limit [per_warp_allocation]``."""
        return ", ".join(f"{name} [{self.cases[name]}]" if self.cases.get(name) else name for name in self.limiting)

    def lines(self) -> list[str]:
        """The derivation as text lines (for the report chain)."""
        shown = ", ".join(f"{k} = {v}" for k, v in self.inputs.items())
        out = [f"occupancy ({self.cc_preset}): {shown}"]
        for name, value in self.limits.items():
            mark = "  <- limits" if name in self.limiting else ""
            case = f" [{self.cases[name]}]" if self.cases.get(name) else ""
            out.append(f"  {name}: {_fmt(value)}{case}{mark}")
        out.append(f"  active blocks per SM = Min(...) = {_fmt(self.active_blocks)} ({', '.join(self.limiting)})")
        out.append(f"  active warps per SM = {_fmt(self.active_warps)}; occupancy = {float(self.occupancy.magnitude):.4g}")
        for name, value in self.values.items():
            out.append(f"  -> {self.target}.{name} = {_fmt(value)}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _fmt(value: pint.Quantity) -> str:
    magnitude = float(value.magnitude)
    number = f"{magnitude:g}"
    return f"{number} {value.units:~}".strip()


def _load(model: Any) -> Any:
    return catalog.load(model, Model, whole=False) if isinstance(model, str) else model


def occupancy_model() -> Any:
    """The occupancy model (``equations/occupancy.toml``)."""
    return _load(OCCUPANCY_MODEL)


def resolve_cc_preset(target_model: Any, preset: str) -> str:
    """Return the compute-capability preset for ``preset``.

    ``preset`` is either a preset of the occupancy model (``cc_1_3``) or a preset of
    ``target_model`` named in its ``[occupancy.presets]``, or one that inherits (``based_on``,
    step by step) the values of such a preset: the same GPU with other workload or fitted values
    (``h100_fit_all`` based on ``h100``).

    Raises:
        errors.UsageError: the name is none of these; unknown GPUs are never guessed.
    """
    occ = occupancy_model()
    if preset in occ.presets:
        return preset
    target = _load(target_model) if target_model is not None else None
    mapping = mapping_of(target) if target is not None else None
    table = dict(mapping.presets) if mapping is not None else {}
    based_on = {p.id: p.based_on for p in target.definition.presets} if target is not None else {}
    name, seen = preset, set()
    while name and name not in table and name not in seen:
        seen.add(name)
        name = based_on.get(name, "")
    if name in table:
        return table[name]
    known = sorted(occ.presets)
    if target is None or mapping is None:
        raise errors.UsageError(f"occupancy: no compute capability known for '{preset}' (compute-capability presets: {', '.join(known)}); "
                                "name a cc_X_Y preset explicitly")
    given = ", ".join(f"{symbol} ({source})" for symbol, source in mapping.symbols)
    raise errors.UsageError(
        f"occupancy: no compute capability known for '{preset}' (presets of {target.id} with a known compute capability: "
        f"{', '.join(sorted(table)) or 'none'}; compute-capability presets: {', '.join(known)}); map it in [occupancy.presets] of "
        f"{target.path} ({preset} = \"cc_X_Y\"), or compute the occupancy on a cc_X_Y preset (symgpu eval occupancy active_warps_per_SM "
        f"-p cc_X_Y -s threads_per_block=T -s regs_per_thread=R -s smem_per_block=S) and give {given} with --set instead of --occupancy"
    )


def compute(cc_preset: str | None, threads: Any, regs: Any, smem: Any, *, target: str = "",
            extra: Mapping[str, Any] | None = None) -> OccupancyResult:
    """Evaluate the occupancy model for one launch on compute-capability preset ``cc_preset``.

    Args:
        cc_preset: a preset of the occupancy model (``cc_8_0``); None: every limit is in ``extra``.
        threads: threads per block (a number in thread/block, or a quantity).
        regs: registers per thread (a number; 0 = no registers).
        smem: shared memory per block (a number in bytes per block, or a quantity).
        target: id of the model the result is meant for (only recorded).
        extra: further occupancy-model values overriding the preset (``max_blocks_per_SM``...).

    Raises:
        errors.UsageError: unknown preset.
    """
    occ = occupancy_model()
    if cc_preset is not None:
        occ.preset(cc_preset)  # raises UsageError for an unknown compute capability
    inputs = {INPUTS["threads"]: threads, INPUTS["regs"]: regs, INPUTS["smem"]: smem}
    given = {**(extra or {}), **inputs}
    limiters = occ.equation_for("active_blocks_per_SM").limiters
    defined = tuple(str(term) for _, term in limiters if str(term) in occ.defining)
    # the launch evaluated once (evaluate.record): every value, and each limit's case by the one rule
    record = evaluation_record(occ, cc_preset, tuple(given.items()), ("active_blocks_per_SM", *defined, "active_warps_per_SM", "occupancy"))

    def value(name: str) -> pint.Quantity:
        return units.registry().Quantity(record.value(name), occ.units[name])

    active_blocks = value("active_blocks_per_SM")
    limits: dict[str, pint.Quantity] = {}
    cases: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for name, term in limiters:
        symbol = str(term)
        if symbol in occ.defining:
            limits[name] = value(symbol)
            cases[name], reasons[name] = applying_case(occ, record.regime(symbol))
        else:
            limits[name] = evaluator.evaluate_expression(occ, term, occ.units["active_blocks_per_SM"], preset=cc_preset, values=given)
            cases[name], reasons[name] = "", BLOCK_SLOTS_REASON
    minimum = float(active_blocks.magnitude)
    unbounded = unbounded_limits(occ, cases)
    # every limit tied with the minimum by evaluate.active's rule, in file order: the first is the one it names
    limiting = tuple(name for name, value in limits.items() if active.tied(float(value.magnitude), minimum) and name not in unbounded)
    return OccupancyResult(
        target=target,
        cc_preset=cc_preset or "the given limits",
        inputs=inputs,
        limits=limits,
        active_blocks=active_blocks,
        active_warps=value("active_warps_per_SM"),
        occupancy=value("occupancy"),
        limiting=limiting,
        cases=cases,
        reasons=reasons,
    )


def unbounded_limits(occ: Any, cases: Mapping[str, str]) -> frozenset[str]:
    """The limits whose applying case imposes no bound of its own.

    cuda_occupancy.h sets such a limit to INT_MAX (no registers, no shared memory, no named
    barriers or a compute capability without the barrier rule), so it is never reported as a
    limiting factor. The model stands in with the block-slot limit to keep the Min() finite: a
    case whose value is exactly the block-slot term is that stand-in, and is not named on a tie.
    """
    equation = occ.equation_for("active_blocks_per_SM")
    block_slots = dict(equation.limiters).get("block_limit")
    out = set()
    for name, term in equation.limiters:
        if name == "block_limit" or str(term) not in occ.defining or not cases.get(name):
            continue
        case = next((c for c in occ.equation_for(str(term)).cases if c.id == cases[name]), None)
        if case is not None and block_slots is not None and case.value == block_slots:
            out.add(name)
    return frozenset(out)


def applying_case(occ: Any, regime: Regime | None) -> tuple[str, str]:
    """The id and note of the case that applies in a limit's regime (the launch's evaluation record:
    the first case whose condition holds, by :mod:`symgpu.evaluate.active`'s rule); ("", "") for a
    limit without cases."""
    if regime is None or regime.kind != "piecewise" or regime.active is None:
        return "", ""
    name = regime.active.name
    return name, next(case.note for case in occ.equation_for(regime.quantity).cases if case.id == name)


def explain(result: OccupancyResult, width: int = 150) -> list[str]:
    """Lines naming what limits the active blocks: the binding limits, and at 0 blocks the reason
    the block cannot launch (each binding limit's case note), wrapped to ``width`` characters."""
    if result.can_launch:
        return [f"  limited by {result.limiting_text()} ({_fmt(result.active_blocks)})"]
    out = [f"  the block cannot launch on {result.cc_preset} (the CUDA occupancy API answers 0 blocks): limited by {result.limiting_text()}"]
    for name in result.limiting:
        reason = result.reasons.get(name, "")
        if reason:
            out.extend(textwrap.wrap(f"{name}: {reason}", width=width, initial_indent="    ", subsequent_indent="      "))
    return out


def occupancy_chain(target_model: Any, cc_preset_or_target_preset: str, threads: Any, regs: Any, smem: Any,
                    *, extra: Mapping[str, Any] | None = None) -> OccupancyResult:
    """Like :func:`occupancy_values`, but return the whole derivation (limits, regimes, values);
    ``extra``: further occupancy inputs (``barriers_per_block``) as in :func:`compute`.

    Raises:
        errors.UsageError: the target model takes no occupancy (no ``[occupancy]`` table in its
            file), the occupancy model lacks a name the table gives, or the preset is unknown.
        errors.DomainError: the launch cannot run on that compute capability.
    """
    model = _load(target_model)
    table = mapping_of(model)
    if table is None:
        raise errors.UsageError(
            f"occupancy: model '{model.id}' takes no occupancy (its file {model.path} has no [occupancy] table); "
            "models that do: hong_kim_2009, volkov_2016 and their variants"
        )
    occ = occupancy_model()
    unknown = [source for _, source in table.symbols if source not in occ.symbols]
    if unknown:
        raise errors.UsageError(f"occupancy: {model.path} [occupancy.symbols] names '{unknown[0]}', which the occupancy model does not declare; "
                                f"use one of: {', '.join(sorted(occ.symbols))}")
    cc = resolve_cc_preset(model, cc_preset_or_target_preset)
    result = compute(cc, threads, regs, smem, target=model.id, extra=extra)
    if float(result.active_blocks.magnitude) == 0:
        raise errors.DomainError(
            f"occupancy: the launch cannot run on {cc} (0 active blocks per SM, limited by {', '.join(result.limiting)}) "
            f"(cases {', '.join(result.cases.get(n) or n for n in result.limiting)}); "
            f"{model.id} has no prediction for it: change the block size, registers or shared memory"
        )
    values: dict[str, pint.Quantity] = {}
    for target_symbol, source in table.symbols:
        if source in occ.defining:
            quantity = evaluator.evaluate(occ, source, preset=cc, values={**(extra or {}), **result.inputs})
        else:  # an input of the occupancy model (threads_per_block): the launch's own value
            quantity = occ_quantity(occ, source, input_values.to_magnitude(occ, source, result.inputs[source]))
        try:
            values[target_symbol] = units.convert(quantity, model.units[target_symbol])
        except pint.DimensionalityError:
            raise errors.UsageError(
                f"occupancy: {source} ({occ.unit_text(source)}) cannot feed {model.id}.{target_symbol} ({model.unit_text(target_symbol)}); fix [occupancy.symbols] in {model.path}"
            ) from None
    return replace(result, values=values)


def occ_quantity(occ: Any, name: str, magnitude: Any) -> pint.Quantity:
    """A magnitude of occupancy-model symbol ``name`` as a quantity in its declared unit."""
    return units.registry().Quantity(magnitude, occ.units[name])


def occupancy_values(target_model: Any, cc_preset_or_target_preset: str, threads: Any, regs: Any, smem: Any) -> dict[str, pint.Quantity]:
    """Values for ``target_model``'s occupancy symbols, computed from a launch's resources.

    Args:
        target_model: a model or model id whose file has an ``[occupancy]`` table (``"hong_kim_2009"``).
        cc_preset_or_target_preset: a compute-capability preset (``"cc_1_3"``) or a preset
            of the target model with a known compute capability (``"gtx280"``).
        threads: threads per block.
        regs: registers per thread (0 = the kernel uses none: no register limit).
        smem: shared memory per block in bytes (static + dynamic; 0 = none).

    Returns:
        target symbol -> pint Quantity in that symbol's declared unit; for
        ``hong_kim_2009``: ``Active_blocks_per_SM``, ``Active_warps_per_SM`` (hence
        ``N``) and ``Threads_per_block``. Pass them as ``**values`` to ``evaluate``;
        they override the preset's numbers.

    Raises:
        errors.UsageError: unknown model mapping or preset (never guessed).
        errors.DomainError: the launch cannot run (the model gives no occupancy then).
    """
    return dict(occupancy_chain(target_model, cc_preset_or_target_preset, threads, regs, smem).values)


_SPEC_ITEM = re.compile(r"^\s*([A-Za-z_]+)\s*=\s*([^=]+?)\s*$")


def parse_spec(text: str) -> dict[str, float]:
    """Parse ``"threads=128,regs=18,smem=3960"`` into ``{"threads": 128, "regs": 18, "smem": 3960}``.

    ``smem`` may carry a byte unit (``smem=48KiB``, ``smem=3960 B``); the others are
    plain counts. All three are required.

    Raises:
        errors.UsageError: malformed text, unknown or missing keys, non-numeric values.
    """
    found: dict[str, float] = {}
    for item in text.split(","):
        match = _SPEC_ITEM.match(item)
        if not match:
            raise errors.UsageError(f"--occupancy: cannot read '{item.strip()}'; write threads=N,regs=N,smem=BYTES")
        key, raw = match.group(1), match.group(2)
        if key not in INPUTS:
            raise errors.UsageError(f"--occupancy: unknown key '{key}' (keys: {', '.join(INPUTS)})")
        if key in found:
            raise errors.UsageError(f"--occupancy: '{key}' given twice")
        try:
            if key == "smem":
                value = float(units.magnitude_in(units.quantity(raw, units.unit("B")), "B"))
            else:
                value = float(raw)
        except (ValueError, pint.DimensionalityError, pint.errors.PintError) as exc:
            raise errors.UsageError(f"--occupancy: {key} = '{raw}' is not a {'byte count' if key == 'smem' else 'number'} ({exc})") from None
        if value != int(value) or value < 0:
            raise errors.UsageError(f"--occupancy: {key} = '{raw}' must be a non-negative whole number")
        found[key] = int(value)
    absent = [k for k in INPUTS if k not in found]
    if absent:
        raise errors.UsageError(f"--occupancy: missing {', '.join(absent)} (write threads=N,regs=N,smem=BYTES)")
    return found
