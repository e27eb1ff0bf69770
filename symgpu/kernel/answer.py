"""The occupancy answer for one kernel launch: active blocks and warps, the binding limit and
its reason, the next register / shared-memory step, and the block size that maximises occupancy.

Every number comes from the occupancy model (``equations/occupancy.toml``) evaluated at the
kernel's resource usage (:mod:`symgpu.kernel.resources`); the reason a limit binds is the
model's own piecewise case (``block_too_large``, ``too_many_registers_per_thread``,
``per_warp_allocation``...), found by checking the case conditions at the launch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from symgpu import textfiles
from symgpu.evaluate import evaluator
from symgpu.kernel import occupancy
from symgpu.kernel import resources

@dataclass(frozen=True)
class Limit:
    """One resource's limit on resident blocks.

    Attributes:
        name: limiter name (warp_limit, block_limit, register_limit, smem_limit, barrier_limit).
        blocks: blocks per SM the resource allows.
        case: the model's case that applies ("" for a limit without cases).
        reason: the case's note, or a sentence for the block slots.
        binding: True when this limit equals the active blocks (ties: several, equal within
            :data:`symgpu.evaluate.active.TIE`, as :func:`symgpu.kernel.occupancy.compute` decides).
    """

    name: str
    blocks: int
    case: str
    reason: str
    binding: bool


@dataclass(frozen=True)
class Step:
    """A resource change that changes occupancy.

    Attributes:
        resource: "registers per thread" or "shared memory per block".
        unit: "reg/thread" or "B/block".
        current: the kernel's value.
        keeps_up_to: the largest value with the same active blocks.
        better_at: the largest value with more active blocks (None: no smaller value gives more).
        better_blocks: active blocks at ``better_at``.
    """

    resource: str
    unit: str
    current: int
    keeps_up_to: int
    better_at: int | None
    better_blocks: int


@dataclass(frozen=True)
class KernelAnswer:
    """The answer for one kernel, launch configuration and compute capability."""

    kernel: resources.KernelResources
    cc_preset: str
    threads_per_block: int
    dynamic_smem: int
    active_blocks: int
    active_warps: int
    max_warps: int
    occupancy: float
    limits: tuple[Limit, ...]
    register_step: Step
    smem_step: Step
    best_block_sizes: tuple[int, ...]
    best_warps: int

    @property
    def can_launch(self) -> bool:
        """False when the block cannot launch (0 active blocks)."""
        return self.active_blocks > 0

    @property
    def smem_per_block(self) -> int:
        """Shared memory per block: static (compiler) plus dynamic (launch)."""
        return self.kernel.shared_bytes + self.dynamic_smem


def answer(kernel: resources.KernelResources, cc_preset: str, threads_per_block: int, dynamic_smem: int = 0) -> KernelAnswer:
    """Evaluate the occupancy model for ``kernel`` launched with ``threads_per_block`` on ``cc_preset``.

    Raises:
        errors.UsageError: unknown compute-capability preset.
    """
    occ = occupancy.occupancy_model()
    hardware = occ.preset(cc_preset)  # UsageError for an unknown preset
    smem = kernel.shared_bytes + dynamic_smem
    values = {"threads_per_block": threads_per_block, "regs_per_thread": kernel.registers, "smem_per_block": smem,
              **launch_barriers(kernel)}

    def blocks(quantity: str, **override: object) -> np.ndarray:
        return np.asarray(evaluator.evaluate(occ, quantity, preset=cc_preset, values={**values, **override}).magnitude)

    # the limits, their cases and which bind: the same answer as `symgpu eval` (kernel.occupancy.compute)
    chain = occupancy.compute(cc_preset, threads_per_block, kernel.registers, smem, extra=launch_barriers(kernel))
    active_blocks = int(chain.active_blocks.magnitude)
    limits = [Limit(name, int(value.magnitude), chain.cases.get(name, ""), chain.reasons.get(name, ""), name in chain.limiting)
              for name, value in chain.limits.items()]
    max_warps = int(hardware["max_warps_per_SM"].magnitude)
    active_warps = int(blocks("active_warps_per_SM"))

    max_regs = int(hardware["max_regs_per_thread"].magnitude)
    regs = np.arange(0, max_regs + 1)
    by_regs = blocks("active_blocks_per_SM", regs_per_thread=regs) * np.ones_like(regs)
    max_smem = int(hardware["max_smem_per_block"].magnitude)
    # from the static shared memory (no launch uses less) to the per-block limit; static memory above the
    # limit (20000 B on CC 1.x's 16 KiB) leaves that one value: 0 blocks, limited by shared memory per block
    smem_grid = np.arange(kernel.shared_bytes, max(max_smem, kernel.shared_bytes) + 1)
    by_smem = blocks("active_blocks_per_SM", smem_per_block=smem_grid) * np.ones_like(smem_grid)

    max_threads = int(hardware["max_threads_per_block"].magnitude)
    sizes = np.arange(32, max_threads + 1, 32)
    warps = blocks("active_warps_per_SM", threads_per_block=sizes) * np.ones_like(sizes)
    best = int(np.max(warps))
    return KernelAnswer(
        kernel=kernel, cc_preset=cc_preset, threads_per_block=threads_per_block, dynamic_smem=dynamic_smem,
        active_blocks=active_blocks, active_warps=active_warps, max_warps=max_warps,
        occupancy=active_warps / max_warps, limits=tuple(limits),
        register_step=_step("registers per thread", "reg/thread", kernel.registers, regs, by_regs, active_blocks),
        smem_step=_step("shared memory per block", "B/block", smem, smem_grid, by_smem, active_blocks),
        best_block_sizes=tuple(int(s) for s in sizes[warps == best]), best_warps=best,
    )


def launch_barriers(kernel: resources.KernelResources) -> dict[str, int]:
    """The occupancy input for the kernel's named barriers per block: the count ptxas reports
    (``used N barriers``), or nothing when the output does not say (cuobjdump), so the model's
    default (the CUDA occupancy header's, 1 barrier) applies."""
    return {"barriers_per_block": kernel.barriers} if kernel.barriers >= 0 else {}


def _step(resource: str, unit: str, current: int, grid: np.ndarray, blocks: np.ndarray, active_blocks: int) -> Step:
    """Headroom and the next improving value of one resource, from blocks evaluated on ``grid``."""
    at_or_above = grid >= current
    same = grid[at_or_above & (blocks == active_blocks)]
    # the same occupancy holds up to the first value above current where blocks change
    changes = grid[at_or_above & (blocks != active_blocks)]
    keeps = int(changes[0] - 1) if changes.size else int(grid[-1])
    if not same.size:
        keeps = current
    better = (grid < current) & (blocks > active_blocks)
    if not np.any(better):
        return Step(resource, unit, current, keeps, None, active_blocks)
    better_at = int(np.max(grid[better]))
    return Step(resource, unit, current, keeps, better_at, int(blocks[grid == better_at][0]))


def lines(result: KernelAnswer) -> list[str]:
    """The answer as text lines for the terminal."""
    k = result.kernel
    show = textfiles.printable
    out = [f"kernel {show(k.display_name)}" + (f" [{show(k.name)}]" if k.demangled else "") + (f" ({show(k.arch)})" if k.arch else "")
           + f", from {show(k.origin)}",
           f"  resources: {k.registers} reg/thread, {k.shared_bytes} B/block static shared memory"
           + (f" + {result.dynamic_smem} B/block dynamic" if result.dynamic_smem else "")
           + f", {k.local_bytes} B/thread local memory" + (f" (spills: {k.spill_stores} B stores, {k.spill_loads} B loads)" if k.spills else "")
           + (f", {k.barriers} named barriers/block" if k.barriers >= 0 else ", named barriers not reported (1 assumed)"),
           f"  launch: {result.threads_per_block} thread/block on {result.cc_preset}",
           f"  active blocks per SM: {result.active_blocks}; active warps per SM: {result.active_warps} of {result.max_warps}; occupancy {result.occupancy:.1%}"]
    if not result.can_launch:
        out.append("  the block cannot launch (the CUDA occupancy API answers 0 blocks)")
    for limit in result.limits:
        mark = "  <- binds" if limit.binding else ""
        case = f" [{limit.case}]" if limit.case else ""
        out.append(f"    {limit.name}: {limit.blocks} block/SM{case}{mark}")
        if limit.binding and limit.reason:
            out.append(f"      {limit.reason}")
    for step in (result.register_step, result.smem_step):
        text = f"  {step.resource}: {step.current} {step.unit}; the same occupancy up to {step.keeps_up_to} {step.unit}"
        if step.better_at is not None:
            text += f"; at most {step.better_at} {step.unit} gives {step.better_blocks} block/SM"
        out.append(text)
    out.append(f"  block sizes maximising active warps ({result.best_warps} warp/SM): {', '.join(map(str, result.best_block_sizes))}")
    return out
