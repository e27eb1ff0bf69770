"""An extremum whose one regime at the point has the variable under a root, with a slope of more than
``extrema.MAX_CANCELLED_RADICAL_SLOPE`` operations, ends in seconds: Volkov's H100 ``dram_throughput`` over ``n`` at
``h100_fit``, alpha = 0, ilp = 1 ran past 150 s in ``sympy.cancel`` of its slope (an outside tester's finding, round
13a F5). The quantity rises with ``n`` towards its capacity there, so it has no maximum: the answer says so and
gives the supremum, the limit as ``n -> oo``."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np

import symgpu

REPO = Path(__file__).resolve().parents[1]
ASK = ("extremum", "volkov_2016_h100", "dram_throughput", "--over", "n", "--max", "--preset", "h100_fit",
       "--set", "alpha=0", "--set", "ilp=1")
#: CPU seconds the question may take (about 12 with the fix on a loaded 2-core machine; minutes without it)
CPU_SECONDS = 90


def test_the_h100_dram_throughput_rises_with_n_at_the_point_so_it_has_no_maximum() -> None:
    model = symgpu.load("volkov_2016_h100")
    n = np.geomspace(0.5, 4096, 400)
    found = model.evaluate("dram_throughput", "h100_fit", values={"alpha": 0.0, "ilp": 1.0, "n": n}).to("GB/s").magnitude
    capacity = model.preset("h100_fit")["c"].to("GB/s").magnitude
    assert np.all(np.diff(found) > 0) and found[-1] < capacity


def test_the_extremum_over_n_ends_in_seconds_saying_there_is_no_maximum_and_the_supremum(tmp_path: Path) -> None:
    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))

    env = {**os.environ, "PYTHONPATH": str(REPO), "SYMGPU_CACHE_DIR": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-m", "symgpu", *ASK], capture_output=True, text=True, env=env, cwd=REPO,
                          preexec_fn=bounded, timeout=20 * CPU_SECONDS)
    assert done.returncode == 0, (done.returncode, done.stderr)  # not killed by the CPU limit (a negative code)
    assert "Traceback" not in done.stderr
    # answered since tester round 13a, F5: the supremum approached as n -> oo (test_an_extremum_approached_at_an_open_end_...)
    assert "no maximum: the supremum" in done.stdout and "n -> oo" in done.stdout
