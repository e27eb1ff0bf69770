"""Which model predicts a kernel row, with which GPU preset and inputs (or why none can).

Kernel families (PyTorch 2.1 / cuBLAS names, as NeuSight's rows give them):

* ``vectorized_elementwise_kernel<V, ...>`` (and any row whose operator is elementwise) ->
  ``kernel_streaming``: V elements per thread (4 when the name does not say), every input
  read and the output written once;
* ``vectorized_layer_norm_kernel`` (one re-read), ``cunn_SoftMaxForward`` (two re-reads: max,
  sum of exp, normalise) and ``softmax_warp_forward`` (row kept in registers, no re-read) ->
  ``kernel_row_reduction``;
* ``<arch>_sgemm_<TM>x<TN>[_sliced1x4]_tn`` and ``..._tilesize<TM>x<TN>x<TK>_...`` ->
  ``kernel_gemm``; the grid's z is the split-K factor.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from symgpu.predict.rows import KernelRow

#: CUDA device name -> GPU preset id of the kernel models
DEVICES = {
    "Tesla P4": "p4",
    "Tesla P100-PCIE-16GB": "p100_pcie_16gb",
    "Tesla T4": "t4",
    "Tesla V100-PCIE-32GB": "v100_pcie_32gb",
    "NVIDIA A100-PCIE-40GB": "a100_pcie_40gb",
    "NVIDIA A100-SXM4-40GB": "a100_sxm4_40gb",
    "NVIDIA A100 80GB PCIe": "a100_80gb_pcie",
    "NVIDIA L4": "l4",
    "NVIDIA H100 80GB HBM3": "h100_sxm",
}
#: elementwise operators: tensors read per element (the output adds one tensor written)
ELEMENTWISE_READS = {"add": 2, "mul": 2, "pow": 2, "div": 2, "sub": 2,
                     "addu": 1, "mulu": 1, "powu": 1, "divu": 1, "subu": 1,
                     "relu": 1, "gelu": 1, "tanh": 1, "sigmoid": 1, "exp": 1, "neg": 1}
#: row-reduction kernels: (name fragment, re-read passes)
REDUCTIONS = (("vectorized_layer_norm_kernel", 1), ("cunn_SoftMaxForward", 2), ("softmax_warp_forward", 0))
_VECTOR = re.compile(r"elementwise_kernel<(\d+)")
_SGEMM = re.compile(r"sgemm_(\d+)x(\d+)(?:_|$)")
_XMMA = re.compile(r"tilesize(\d+)x(\d+)x\d+")
#: bytes per FP32 element
FP32 = 4


@dataclass(frozen=True)
class Assignment:
    """A row's model, GPU preset and inputs (declared units), or the reason it has none."""

    row: int
    model: str = ""
    gpu: str = ""
    inputs: tuple[tuple[str, float], ...] = ()
    reason: str = ""


def assign(row: KernelRow) -> Assignment:
    """The model and inputs for ``row`` (``reason`` set when it cannot be predicted)."""
    if row.problem:
        return Assignment(row.index, reason=row.problem)
    gpu = DEVICES.get(row.device)
    if gpu is None:
        return Assignment(row.index, reason=f"no GPU preset for device {row.device!r} (known: {', '.join(sorted(DEVICES))})")
    blocks = float(row.grid[0] * row.grid[1] * row.grid[2])
    threads = float(row.block[0] * row.block[1] * row.block[2])
    op, kernel = row.operator, row.kernel
    if op in ELEMENTWISE_READS or "elementwise_kernel" in kernel:
        return _streaming(row, gpu, blocks, threads)
    for fragment, rereads in REDUCTIONS:
        if fragment in kernel:
            return _reduction(row, gpu, blocks, threads, rereads)
    if op in ("ln", "layernorm", "softmax"):
        return Assignment(row.index, reason=f"{op}: kernel {kernel[:60]!r} is none of {', '.join(f for f, _ in REDUCTIONS)}")
    tile = _SGEMM.search(kernel) or _XMMA.search(kernel)
    if tile:
        return _gemm(row, gpu, blocks, tile)
    if op in ("linear", "bmm", "matmul"):
        return Assignment(row.index, reason=f"{op}: no tile size in kernel name {kernel[:60]!r} (expected ..._sgemm_TMxTN_... or tilesizeTMxTNxTK)")
    return Assignment(row.index, reason=f"operator {op!r} with kernel {kernel[:60]!r}: no model (elementwise, layer norm, softmax and SGEMM are known)")


def _needs(row: KernelRow, names: str) -> str:
    lacking = [n for n in names if not math.isfinite(row.size(n))]
    return f"{row.operator}: column {', '.join(lacking)} missing or not a positive number" if lacking else ""


def _streaming(row: KernelRow, gpu: str, blocks: float, threads: float) -> Assignment:
    problem = _needs(row, "BH")
    if problem:
        return Assignment(row.index, reason=problem)
    reads = ELEMENTWISE_READS.get(row.operator)
    if reads is None:
        return Assignment(row.index, reason=f"elementwise operator {row.operator!r}: how many tensors it reads is unknown "
                                            f"(known: {', '.join(sorted(ELEMENTWISE_READS))})")
    vector = _VECTOR.search(row.kernel)
    width = int(vector.group(1)) if vector else 4
    return Assignment(row.index, "kernel_streaming", gpu, (
        ("elements", row.size("B") * row.size("H")), ("operands", float(reads + 1)), ("blocks", blocks),
        ("threads_per_block", threads), ("inflight_per_thread", float(width * FP32 * reads))))


def _reduction(row: KernelRow, gpu: str, blocks: float, threads: float, rereads: int) -> Assignment:
    problem = _needs(row, "BH")
    if problem:
        return Assignment(row.index, reason=problem)
    rows = row.size("B")
    return Assignment(row.index, "kernel_row_reduction", gpu, (
        ("rows", rows), ("row_len", row.size("H")), ("rereads", float(rereads)), ("rows_per_block", max(1.0, rows / blocks)),
        ("blocks", blocks), ("threads_per_block", threads)))


def _gemm(row: KernelRow, gpu: str, blocks: float, tile: re.Match[str]) -> Assignment:
    problem = _needs(row, "MNK")
    if problem:
        return Assignment(row.index, reason=problem)
    batch = row.size("B") if math.isfinite(row.size("B")) else 1.0
    return Assignment(row.index, "kernel_gemm", gpu, (
        ("M", batch * row.size("M")), ("K_out", row.size("K")), ("K_red", row.size("N")),
        ("tile_m", float(tile.group(1))), ("tile_n", float(tile.group(2))), ("split_k", float(row.grid[2])), ("blocks", blocks)))
