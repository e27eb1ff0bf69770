"""Two extrema of volkov_2016_h100 ran past 90 s (the second past 300 s); each now ends in seconds, under a CPU limit:

* ``Latency_h100 = latency_unloaded_h100 + b*x/(capacity_h100 - x)``, valid when ``x < capacity_h100``, the capacity a Min of
  three bounds: the regime pairs of that Min (whose conditions are free of ``x``: they never switch along it) were solved for
  meeting points for minutes, and the pole at ``x -> capacity_h100`` was no end of the domain, so ``x = 0`` was said to be the
  maximum (a check failure). Now: no maximum where ``b > 0`` (it grows without bound towards the least bound), checked by
  brute force on ``Model.evaluate`` below; where ``b = 0`` the latency does not change with ``x``.
* ``n_knee_h100`` over ``plateau_fraction``: its critical point is a root in radicals whose second derivative has some 3900
  operations; tidying its sign condition ran for minutes. Now refused at once, pointing to a sweep at a point.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import symgpu

REPO = Path(__file__).resolve().parents[1]
#: CPU seconds each question may take (about 10 and 3 with the fix; past 90 and 300 without it)
CPU_SECONDS = 60


def _ask(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))

    env = {**os.environ, "PYTHONPATH": str(REPO), "SYMGPU_CACHE_DIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "symgpu", *argv], capture_output=True, text=True, env=env, cwd=REPO,
                          preexec_fn=bounded, timeout=20 * CPU_SECONDS)


def test_the_loaded_latency_has_no_maximum_towards_its_pole_and_says_so_in_seconds(tmp_path: Path) -> None:
    model = symgpu.load("volkov_2016_h100")
    at = {"alpha": 0, "ilp": 1}
    capacity = float(model.evaluate("capacity_h100", "h100_fit", values=at).magnitude)
    # brute force: the latency rises towards the pole at the capacity, past any bound
    near = [float(model.evaluate("Latency_h100", "h100_fit", values={**at, "x": capacity * (1 - 10.0 ** -k)}).magnitude)
            for k in range(1, 9)]
    assert all(b > a for a, b in zip(near, near[1:])) and near[-1] > 1e9
    done = _ask(tmp_path, "extremum", "volkov_2016_h100", "Latency_h100", "--over", "x", "--max", "--full")
    assert done.returncode == 0, (done.returncode, done.stderr)  # not killed by the CPU limit (a negative code), checked
    assert "there is no maximum: the quantity grows without bound as x -> c/(SMs*bytes_per_inst*clock)" in done.stdout
    assert "b > 0" in done.stdout
    for bound in ("c/(SMs*bytes_per_inst*clock)", "alu_sat*ilp/(alpha*ilp + alpha*ilp_half + ilp + ilp_half)",
                  "ilp*issue_thru/(addr_insts*ilp + alpha*ilp + 2*ilp + loop_insts)"):  # an edge where each bound is the least
        assert f"open end: Eq(lim_x->{bound}, oo)" in done.stdout, bound


def test_the_knees_maximum_over_the_plateau_fraction_is_refused_at_once(tmp_path: Path) -> None:
    done = _ask(tmp_path, "extremum", "volkov_2016_h100", "n_knee_h100", "--over", "plateau_fraction", "--max")
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "second derivative there has" in done.stderr and "symgpu sweep volkov_2016_h100 n_knee_h100" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
