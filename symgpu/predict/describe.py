"""A kernel described on the command line (``--kernel gemm --gpu a100_pcie_40gb --set M=4096 ...``)
as the NeuSight row PyTorch 2.1 would launch for it, so :mod:`symgpu.predict.mapping` assigns it
exactly as it assigns a measured row.

Launch choices (overridable with ``--set grid=X`` or ``--set block=N``):

* elementwise (``add``, ``relu``, ...): 128 threads, 4 elements per thread, grid
  ceiling(B H / 512) (PyTorch's ``vectorized_elementwise_kernel<4>``);
* ``ln``/``layernorm``: one row per block of 32 x 4 threads (``vectorized_layer_norm_kernel``);
* ``softmax``: ``softmax_warp_forward`` (one row per warp, 128 threads) for H <= 1024, else
  ``cunn_SoftMaxForward`` with one row per block of min(512, the power of 2 >= H/8) threads;
* ``gemm``/``linear``: ``sgemm_<TM>x<TN>_tn`` with ``tile=TMxTN`` (default 128x128), grid
  ceiling(N/TM) x ceiling(M/TN) x split_k, 256 threads (M rows, N output features, K the
  reduction, as torch.nn.functional.linear's NeuSight columns M, K, N).
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
_TILE = re.compile(r"^(\d+)x(\d+)$")
#: the most threads a block may hold (CUDA: every compute capability of the GPU presets)
MAX_BLOCK = 1024


def kernel_row(kind: str, gpu: str, settings: Mapping[str, str]) -> KernelRow:
    """The row PyTorch would launch for kernel ``kind`` on GPU preset ``gpu`` with ``settings``.

    Raises:
        errors.UsageError: an unknown kind, GPU or name, a value that is not a positive whole number, or a
            block of more threads than CUDA allows.
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
    if op == "linear":
        need = [n for n in "MNK" if n not in number]
        if need:
            raise errors.UsageError(f"--kernel {kind}: give --set {need[0]}=... (M, N, K needed)")
        tm, tn, split = int(match.group(1)), int(match.group(2)), int(number.get("split_k", 1))
        grid = (math.ceil(number["N"] / tm), math.ceil(number["M"] / tn), split)
        name, block = f"sgemm_{tm}x{tn}_tn", 256
        sizes: tuple[tuple[str, float], ...] = (("B", 1.0), ("M", number["M"]), ("N", number["K"]), ("K", number["N"]))
    else:
        need = [n for n in "BH" if n not in number]
        if need:
            raise errors.UsageError(f"--kernel {kind}: give --set {need[0]}=... (B rows, H elements per row)")
        b, h = number["B"], number["H"]
        sizes = (("B", b), ("H", h))
        if op == "ln":
            name, block, grid = "vectorized_layer_norm_kernel", 128, (int(b), 1, 1)
        elif op == "softmax" and h <= 1024:
            name, block, grid = "softmax_warp_forward", 128, (math.ceil(b / 4), 1, 1)
        elif op == "softmax":
            name, block, grid = "cunn_SoftMaxForward", min(512, 1 << max(5, math.ceil(math.log2(h / 8)))), (int(b), 1, 1)
        else:
            name, block, grid = "vectorized_elementwise_kernel<4", 128, (math.ceil(b * h / 512), 1, 1)
    if "grid" in number:
        grid = (int(number["grid"]), 1, grid[2] if op == "linear" else 1)
    if "block" in number:
        block = int(number["block"])
    return KernelRow(0, (), op, devices[gpu], name, grid, (block, 1, 1), sizes, math.nan)


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
