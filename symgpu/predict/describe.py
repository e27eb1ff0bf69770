"""A kernel described on the command line (``--kernel gemm --gpu a100_pcie_40gb --set M=4096 ...``)
as the NeuSight row PyTorch 2.1 would launch for it, so :mod:`symgpu.predict.mapping` assigns it
exactly as it assigns a measured row.

Launch choices (``--set block=N`` re-derives the grid from the block by the same rule; ``--set grid=X``
alone overrides the grid, which the explanation then holds fixed; both given must agree with the rule):

* elementwise (``add``, ``relu``, ...): 128 threads, 4 elements per thread, grid
  ceiling(B H / (4 x threads)) (PyTorch's ``vectorized_elementwise_kernel<4>``);
* ``ln``/``layernorm``: one row per block of 32 x 4 threads (``vectorized_layer_norm_kernel``), grid B;
* ``softmax``: ``softmax_warp_forward`` (one row per warp, 128 threads: grid ceiling(B/(threads/32)))
  for H <= 1024, else ``cunn_SoftMaxForward`` with one row per block of min(512, the power of 2 >= H/8) threads;
* ``gemm``/``linear``: ``sgemm_<TM>x<TN>_tn`` with ``tile=TMxTN`` (default 128x128), grid
  ceiling(N/TM) x ceiling(B M/TN) x split_k, 256 threads (M rows, N output features, K the
  reduction, as torch.nn.functional.linear's NeuSight columns M, K, N; B the batch of a [B, M, K]
  input, flattened to B M rows as torch does).

Each operator reads only its own names (:data:`READS`); a name it does not read is refused, never ignored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from symgpu import errors
from symgpu.predict.mapping import DEVICES, ELEMENTWISE_READS
from symgpu.predict.rows import KernelRow

#: the kernel kinds a description may name
KINDS = tuple(sorted(ELEMENTWISE_READS)) + ("gemm", "linear", "ln", "layernorm", "softmax")
#: the --set names a description reads
NAMES = ("B", "H", "M", "N", "K", "tile", "split_k", "grid", "block")
#: the names each operator reads (B of a GEMM: the batch, default 1); the GEMM's block is fixed by cuBLAS (256 threads)
READS = {"linear": ("B", "M", "N", "K", "tile", "split_k", "grid"), "rows": ("B", "H", "grid", "block")}
_TILE = re.compile(r"^(\d+)x(\d+)$")
#: the most threads a block may hold (CUDA: every compute capability of the GPU presets)
MAX_BLOCK = 1024
#: threads per warp (every GPU preset here)
WARP = 32
#: elements per thread of PyTorch's vectorized_elementwise_kernel<4>
ELEMENTS_PER_THREAD = 4


def kernel_row(kind: str, gpu: str, settings: Mapping[str, str]) -> KernelRow:
    """The row PyTorch would launch for kernel ``kind`` on GPU preset ``gpu`` with ``settings``.

    Raises:
        errors.UsageError: an unknown kind, GPU or name, a value that is not a positive whole number, or a
            block of more threads than CUDA allows, a name the operator does not read, a grid that disagrees with a given block.
    """
    devices = {preset: name for name, preset in DEVICES.items()}
    if gpu not in devices:
        raise errors.UsageError(f"--gpu {gpu}: no such GPU preset (known: {', '.join(sorted(devices))})")
    if kind not in KINDS:
        raise errors.UsageError(f"--kernel {kind}: unknown kernel (known: {', '.join(KINDS)})")
    unknown = sorted(set(settings) - set(NAMES))
    if unknown:
        raise errors.UsageError(f"--set {unknown[0]}: not a kernel description name (names: {', '.join(NAMES)})")
    tile = settings.get("tile", "128x128")
    match = _TILE.match(tile)
    if not match or int(match.group(1)) == 0 or int(match.group(2)) == 0:
        raise errors.UsageError(f"--set tile={tile}: give TMxTN with positive whole numbers, e.g. 128x64")
    number = {k: _count(k, v) for k, v in settings.items() if k != "tile"}
    if number.get("block", 1) > MAX_BLOCK:
        raise errors.UsageError(f"--set block={settings['block']}: a block holds at most {MAX_BLOCK} threads (CUDA, every GPU preset here)")
    op = {"gemm": "linear", "layernorm": "ln"}.get(kind, kind)
    reads = READS["linear" if op == "linear" else "rows"]
    unread = [n for n in NAMES if n in settings and n not in reads]
    if unread:
        raise errors.UsageError(f"--set {unread[0]}: --kernel {kind} does not read {unread[0]} (it reads {', '.join(reads)}); leave it out")
    if op == "linear":
        need = [n for n in "MNK" if n not in number]
        if need:
            raise errors.UsageError(f"--kernel {kind}: give --set {need[0]}=... (M, N, K needed)")
        tm, tn, split = int(match.group(1)), int(match.group(2)), int(number.get("split_k", 1))
        batch = number.get("B", 1.0)
        grid = (math.ceil(number["N"] / tm), math.ceil(batch * number["M"] / tn), split)
        name, block = f"sgemm_{tm}x{tn}_tn", 256
        sizes: tuple[tuple[str, float], ...] = (("B", batch), ("M", number["M"]), ("N", number["K"]), ("K", number["N"]))
    else:
        need = [n for n in "BH" if n not in number]
        if need:
            raise errors.UsageError(f"--kernel {kind}: give --set {need[0]}=... (B rows, H elements per row)")
        b, h = number["B"], number["H"]
        sizes = (("B", b), ("H", h))
        if op == "ln":
            name, block = "vectorized_layer_norm_kernel", int(number.get("block", 128))
        elif op == "softmax" and h <= 1024:
            name, block = "softmax_warp_forward", int(number.get("block", 128))
            if block < WARP:
                raise errors.UsageError(f"--set block={block}: softmax_warp_forward puts one row on each warp of {WARP} threads; "
                                        f"give a block of at least {WARP} threads")
        elif op == "softmax":
            name = "cunn_SoftMaxForward"
            block = int(number.get("block", min(512, 1 << max(5, math.ceil(math.log2(h / 8))))))
        else:
            name, block = "vectorized_elementwise_kernel<4", int(number.get("block", 128))
        grid = (_rows_grid(name, b, h, block), 1, 1)
    if "grid" in number:
        grid = _given_grid(kind, int(number["grid"]), grid, "block" in number, block)
    return KernelRow(0, (), op, devices[gpu], name, grid, (block, 1, 1), sizes, math.nan)


def _rows_grid(name: str, b: float, h: float, block: int) -> int:
    """The grid PyTorch launches for kernel ``name`` over B rows of H elements with blocks of ``block`` threads."""
    if name.startswith("vectorized_elementwise_kernel"):
        return math.ceil(b * h / (ELEMENTS_PER_THREAD * block))
    if name == "softmax_warp_forward":
        return math.ceil(b / (block // WARP))
    return int(b)                                   # one row per block


def _given_grid(kind: str, given: int, rule: tuple[int, int, int], block_given: bool, block: int) -> tuple[int, int, int]:
    """``--set grid`` (x; a GEMM keeps its split-K z): with ``--set block`` it must be the rule's grid for that block."""
    if block_given and given != rule[0] * rule[1]:
        raise errors.UsageError(f"--set grid={given}: with --set block={block} --kernel {kind} launches {rule[0] * rule[1]} blocks "
                                f"(grid {rule}); give grid={rule[0] * rule[1]}, or leave grid out and it is derived from the block")
    return (given, 1, rule[2])


def _count(name: str, text: str) -> float:
    """A size, count or launch dimension: a positive whole number (``1e6`` and ``512.0`` are)."""
    try:
        value = float(text)
    except ValueError:
        raise errors.UsageError(f"--set {name}={text}: not a number") from None
    if not math.isfinite(value) or value <= 0 or value != math.floor(value):
        raise errors.UsageError(f"--set {name}={text}: give a positive whole number ({name} counts "
                                f"{'threads' if name == 'block' else 'blocks' if name in ('grid', 'split_k') else 'elements'})")
    return value
