"""Benchmark: ``symgpu kernel --launches`` on arrays vs one launch at a time (information only).

Builds a launch table over a few synthetic ptxas kernels (block sizes 1..1024, dynamic shared memory
0..48 KiB, every launch distinct) and prints, from one run, launches per second (CPU time) of

* the table answered as ``--launches`` answers it (:func:`symgpu.kernel.batch.answer_all`: each distinct
  configuration once, all on arrays), after a first call that builds the compiled functions, and
* the same launches answered one at a time by the scalar path (:func:`symgpu.kernel.occupancy.compute`,
  what ``answer_all`` did per distinct configuration before), on a sample.

Run: ``python benchmarks/kernel_launches_speed.py [--launches N] [--sample S] [--cc cc_9_0]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from symgpu.kernel import answer, batch, occupancy, resources

KERNELS = [(8, 0), (32, 4096), (64, 1024), (128, 16384), (200, 0), (255, 3072)]


def kernels() -> tuple[resources.KernelResources, ...]:
    lines = []
    for regs, smem in KERNELS:
        name = f"k_r{regs}_s{smem}"
        lines += [f"ptxas info    : Compiling entry function '{name}' for 'sm_90'", f"ptxas info    : Function properties for {name}",
                  "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
                  f"ptxas info    : Used {regs} registers, used 1 barriers" + (f", {smem} bytes smem" if smem else "")]
    return resources.parse("\n".join(lines) + "\n", source="benchmark")


def table(found: tuple[resources.KernelResources, ...], count: int) -> list[batch.LaunchConfig]:
    rng = np.random.default_rng(0)
    seen: set[tuple[str, int, int]] = set()
    out = []
    while len(out) < count:
        kernel = found[int(rng.integers(len(found)))]
        threads, dynamic = int(rng.integers(1, 1025)), int(rng.integers(0, 48 * 1024))
        if (kernel.name, threads, dynamic) not in seen:
            seen.add((kernel.name, threads, dynamic))
            out.append(batch.LaunchConfig(f"row {len(out) + 2}", kernel, threads, dynamic))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=5000)
    parser.add_argument("--sample", type=int, default=200, help="launches answered one at a time")
    parser.add_argument("--cc", default="cc_9_0")
    args = parser.parse_args()
    configs = table(kernels(), args.launches)

    start = time.process_time()
    batch.answer_all(configs[:10], args.cc)
    print(f"first call (compiling the array path): {time.process_time() - start:.2f} s CPU")
    start = time.process_time()
    rows = batch.answer_all(configs, args.cc)
    arrays = time.process_time() - start
    print(f"arrays:       {len(rows)} launches in {arrays:.3f} s CPU = {len(rows) / arrays:,.0f} launches/s")

    sample = configs[:args.sample]
    occupancy.compute(args.cc, 64, 32, 0)  # its own first call
    start = time.process_time()
    for c in sample:
        occupancy.compute(args.cc, c.threads, c.kernel.registers, c.kernel.shared_bytes + c.dynamic_smem, extra=answer.launch_barriers(c.kernel))
    scalar = time.process_time() - start
    print(f"one at a time: {len(sample)} launches in {scalar:.3f} s CPU = {len(sample) / scalar:,.0f} launches/s")
    print(f"ratio: {(len(rows) / arrays) / (len(sample) / scalar):,.0f}x")


if __name__ == "__main__":
    main()
