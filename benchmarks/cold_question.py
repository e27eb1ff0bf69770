"""Cold questions: a fresh ``symgpu`` process per question against ``python -c "import sympy"``, one run.

Each command runs in a new Python process (nothing imported, nothing compiled in memory; the
on-disk cache as ``$SYMGPU_CACHE_DIR`` leaves it), the commands interleaved round by round,
medians of ``--repeat`` rounds. Prints wall seconds and CPU seconds (user + system of the child,
steadier than wall time on a shared machine) and both as a ratio to ``import sympy`` alone, the
floor of any question SymPy answers:

* ``import sympy``, ``import pint`` and ``import sympy, pint``: the libraries every question
  needs (pint's ``compat`` module imports ``dask.base`` whenever dask is installed: the line
  ``import pint (dask hidden)`` runs it with dask made unfindable in the child, to show that cost;
  symgpu itself never does this);
* ``symgpu eval``: ``eval volkov_2016 memory_throughput -p maxwell -s n=100 -s alpha=10``;
* ``symgpu --help``: the command line's own start-up (no SymPy).

Also lists which heavy optional packages the ``eval`` process imported (matplotlib, jinja2,
scipy, pyarrow, numba, dask). Usage: ``python benchmarks/cold_question.py [--repeat 5]``. Timing
here is information, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

EVAL = ["-m", "symgpu", "eval", "volkov_2016", "memory_throughput", "-p", "maxwell", "-s", "n=100", "-s", "alpha=10"]
HIDE_DASK = "import sys; sys.modules['dask'] = None; import pint"  # the child only: shows the cost, fixes nothing

COMMANDS: dict[str, list[str]] = {
    "import sympy": ["-c", "import sympy"],
    "import pint": ["-c", "import pint"],
    "import pint (dask hidden)": ["-c", HIDE_DASK],
    "import sympy, pint": ["-c", "import sympy, pint"],
    "symgpu --help": ["-m", "symgpu", "--help"],
    "symgpu eval": EVAL,
}

HEAVY = ("matplotlib", "jinja2", "scipy", "pyarrow", "numba", "dask", "sympy.tensor")


def run(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    subprocess.run([sys.executable, *arguments], check=True, env=env, stdout=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def imported_by_eval(env: dict[str, str]) -> list[str]:
    """The heavy optional packages a cold ``eval`` imports."""
    code = ("import runpy, sys; sys.argv = ['symgpu'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('symgpu', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, *EVAL[2:]], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stderr.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for arguments in COMMANDS.values():  # warm the OS file cache and symgpu's on-disk cache
        run(arguments, env)
    walls: dict[str, list[float]] = {k: [] for k in COMMANDS}
    cpus: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for _ in range(args.repeat):
        for name, arguments in COMMANDS.items():
            wall, cpu = run(arguments, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    wall = {k: statistics.median(v) for k, v in walls.items()}
    cpu = {k: statistics.median(v) for k, v in cpus.items()}
    print(f"fresh processes, medians of {args.repeat} interleaved rounds ({os.cpu_count()} cores)")
    print(f"{'':<28} {'wall s':>7} {'/sympy':>7} {'cpu s':>7} {'/sympy':>7}")
    for name in COMMANDS:
        print(f"{name:<28} {wall[name]:>7.3f} {wall[name] / wall['import sympy']:>7.2f} "
              f"{cpu[name]:>7.3f} {cpu[name] / cpu['import sympy']:>7.2f}")
    print(f"eval imported: {', '.join(imported_by_eval(env)) or 'none of ' + ', '.join(HEAVY)}")


if __name__ == "__main__":
    main()
