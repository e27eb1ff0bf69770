"""``symgpu derive MODEL`` on one worker against one per core, cold, one run.

Each command runs in a fresh process with an empty cache folder, ``-j 1`` and the default (one worker per core)
alternating, ``--repeat`` pairs per model; prints the median wall and CPU seconds of each (CPU: the process and its
workers, as ``os.wait4`` reports them), their ratio, and checks that both print the same thing. Timing here is
information, never a pass/fail test.

Usage: ``python benchmarks/derive_side_by_side.py [--models volkov_2016 hong_kim_2009] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(model: str, jobs: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (with the workers) and stdout of one cold ``symgpu derive``."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "SYMGPU_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        begin = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "symgpu", "derive", model, *jobs], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
        out = process.stdout.read().decode() if process.stdout else ""
        _, _, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - begin
    return wall, usage.ru_utime + usage.ru_stime, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["volkov_2016", "hong_kim_2009", "occupancy"])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; medians of {args.repeat} cold runs each, alternating")
    print(f"{'model':<16} {'-j 1 wall':>9} {'cpu':>6} {'default wall':>12} {'cpu':>6} {'wall ratio':>10} {'same output':>11}")
    for model in args.models:
        times: dict[str, list[tuple[float, float]]] = {"one": [], "all": []}
        outputs = set()
        for _ in range(args.repeat):
            for name, jobs in (("one", ["-j", "1"]), ("all", [])):
                wall, cpu, out = run(model, jobs)
                times[name].append((wall, cpu))
                outputs.add(out)
        one = [statistics.median(t[k] for t in times["one"]) for k in (0, 1)]
        every = [statistics.median(t[k] for t in times["all"]) for k in (0, 1)]
        print(f"{model:<16} {one[0]:>9.2f} {one[1]:>6.2f} {every[0]:>12.2f} {every[1]:>6.2f} {every[0] / one[0]:>10.2f} "
              f"{'yes' if len(outputs) == 1 else 'NO':>11}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
