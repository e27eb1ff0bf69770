"""Benchmark: start-up, derivation requests, validation and reports, cold and warm, in one run.

Prints median wall-clock times (each command in a fresh process) of

* ``symgpu --help`` against ``python -c pass`` and ``python -c "import sympy"`` (ratios too),
* ``import symgpu``,
* every bundled derivation request (``symgpu derive MODEL ID``), cold (empty cache) and warm
  (the cache its cold run filled),
* ``symgpu boundary hong_kim_2009 Exec_cycles_app --for Active_blocks_per_SM`` (every pair of
  regimes), cold and warm, and ``symgpu regimes occupancy active_blocks_per_SM`` (the
  ``regimes`` command, cached like a request), cold and warm,
* ``symgpu validate`` (all models), cold and warm; cold with ``-j 1`` against the default workers,
* ``symgpu report --all -o TMP`` cold (empty cache and folder) and warm (median of two more runs: nothing
  changed, so every report is up to date and skipped),
* the first scalar ``evaluate`` of a quantity after its model is loaded (a fresh process per model),
* CPU seconds of ``validate`` (the machine is shared: CPU time is steadier than wall-clock),
* every question of the questions corpus (``tests/test_questions*.py``) with an empty cache:
  pytest's own per-test durations, one process (so Python and SymPy start once; the models a
  question needs are loaded in its set-up, counted with it).

Every cold run uses its own empty cache folder (``SYMGPU_CACHE_DIR``), so results from an
earlier run never leak in. The machine is shared and noisy: compare ratios from one run.

Run: ``python benchmarks/symbolic_speed.py [--repeat N] [--skip-report] [--skip-derive] [--skip-questions] [--only-report]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env(cache: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if cache is None:
        env["SYMGPU_NO_CACHE"] = "1"
    else:
        env["SYMGPU_CACHE_DIR"] = cache
        env.pop("SYMGPU_NO_CACHE", None)
    return env


def timed(argv: list[str], cache: str | None = None) -> float:
    """Wall-clock seconds of one run of ``argv`` (its output discarded)."""
    start = time.perf_counter()
    done = subprocess.run(argv, env=_env(cache), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-400:]}")
    return elapsed


def median(argv: list[str], repeat: int, fresh_cache: bool = False) -> float:
    times = []
    for _ in range(repeat):
        if fresh_cache:
            with tempfile.TemporaryDirectory() as cache:
                times.append(timed(argv, cache))
        else:
            times.append(timed(argv))
    return statistics.median(times)


SYMGPU = [sys.executable, "-m", "symgpu"]


def _requests() -> list[tuple[str, str]]:
    sys.path.insert(0, str(ROOT))
    import symgpu

    out = []
    for model_id in symgpu.list_models():
        model = symgpu.load(model_id)
        out.extend((model_id, r.id) for r in model.definition.derivations)
    return out


FIRST_EVALUATE = """
import sys, time
import symgpu
model = symgpu.load(sys.argv[1])
case = next(c for c in model.definition.validation if not c.derivation and not c.erratum
            and (len(sys.argv) < 3 or c.expect[0][0] == sys.argv[2]))
name = case.expect[0][0]
start = time.perf_counter()
model.evaluate(name, case.preset or None, values=dict(case.inputs))
first = time.perf_counter() - start
start = time.perf_counter()
model.evaluate(name, case.preset or None, values=dict(case.inputs))
print(name, first, time.perf_counter() - start)
"""


def first_evaluate() -> list[tuple[str, float, float]]:
    """(label, seconds of the first scalar evaluate after loading, of the second) for each
    model's first validation case, each model in a fresh process (one-time set-up included)."""
    out = []
    for model_id, *quantity in (("interval_analysis", "P_K0"), ("hong_kim_2009",), ("volkov_2016",), ("mdm_2019",),
                                ("occupancy",), ("perez_piccoli",)):
        done = subprocess.run([sys.executable, "-c", FIRST_EVALUATE, model_id, *quantity], env=_env(None), cwd=ROOT,
                              capture_output=True, text=True, check=True)
        name, first, second = done.stdout.split()
        out.append((f"{model_id}:{name}", float(first), float(second)))
    return out


def questions_cold() -> list[tuple[str, float]]:
    """(question test, seconds of set-up + call) for the questions corpus, run by pytest with an
    empty cache, slowest first."""
    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0",
                               "--durations-min=0", "tests/test_questions.py", "tests/test_questions_cli.py",
                               "tests/test_questions_models.py"], env=_env(cache), cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the questions corpus failed: {done.stdout[-400:]}")
    seconds: dict[str, float] = {}
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].endswith("s") and parts[1] in ("setup", "call", "teardown"):
            name = parts[2].split("::", 1)[-1]
            seconds[name] = seconds.get(name, 0.0) + float(parts[0][:-1])
    return sorted(seconds.items(), key=lambda item: -item[1])


def cpu_timed(argv: list[str], cache: str | None = None) -> tuple[float, float]:
    """(wall-clock, CPU) seconds of one run of ``argv``: CPU time is what counts on a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed(argv, cache)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per start-up measurement (median)")
    parser.add_argument("--skip-report", action="store_true", help="skip report --all (slow)")
    parser.add_argument("--skip-derive", action="store_true", help="skip the derivation requests")
    parser.add_argument("--skip-questions", action="store_true", help="skip the questions corpus")
    parser.add_argument("--only-report", action="store_true", help="only report --all, cold and warm")
    args = parser.parse_args()
    if args.only_report:
        report_cold_warm()
        return

    py = sys.executable
    rows: list[tuple[str, float, str]] = []
    t_pass = median([py, "-c", "pass"], args.repeat)
    t_sympy = median([py, "-c", "import sympy"], args.repeat)
    t_help = median(SYMGPU + ["--help"], args.repeat)
    t_list = median(SYMGPU + ["list"], args.repeat)
    t_import = median([py, "-c", "import symgpu"], args.repeat)
    rows += [("python -c pass", t_pass, ""), ("python -c 'import sympy'", t_sympy, ""),
             ("symgpu --help", t_help, f"{t_help / t_pass:.2f}x pass, {t_help / t_sympy:.2f}x import sympy"),
             ("symgpu list", t_list, f"{t_list / t_pass:.2f}x pass"),
             ("import symgpu", t_import, f"{t_import / t_sympy:.2f}x import sympy")]
    for label, seconds, note in rows:
        print(f"{label:<48} {seconds:8.3f} s  {note}", flush=True)

    for label, first, second in first_evaluate():
        print(f"{'first evaluate ' + label:<48} {first * 1000:8.1f} ms  (second call {second * 1000:.2f} ms; "
              "fresh process, after load)", flush=True)

    if not args.skip_derive:
        worst, worst_warm = 0.0, 0.0
        for model_id, request_id in _requests():
            with tempfile.TemporaryDirectory() as cache:
                cold = timed(SYMGPU + ["derive", model_id, request_id], cache)
                warm = timed(SYMGPU + ["derive", model_id, request_id], cache)
            worst, worst_warm = max(worst, cold), max(worst_warm, warm)
            print(f"{'derive ' + model_id + ' ' + request_id + ' cold / warm':<60} {cold:8.3f} s {warm:8.3f} s", flush=True)
        print(f"{'slowest derivation request cold / warm':<60} {worst:8.3f} s {worst_warm:8.3f} s", flush=True)
        boundary = SYMGPU + ["boundary", "hong_kim_2009", "Exec_cycles_app", "--for", "Active_blocks_per_SM",
                             "--preset", "gtx280+tiled_matmul"]
        with tempfile.TemporaryDirectory() as cache:
            cold = timed(boundary, cache)
            warm = timed(boundary, cache)
        print(f"{'boundary hong_kim_2009 Exec_cycles_app (all pairs) cold / warm':<60} {cold:8.3f} s {warm:8.3f} s", flush=True)
        regimes = SYMGPU + ["regimes", "occupancy", "active_blocks_per_SM"]
        with tempfile.TemporaryDirectory() as cache:
            cold = timed(regimes, cache)
            warm = timed(regimes, cache)
        print(f"{'regimes occupancy active_blocks_per_SM cold / warm':<60} {cold:8.3f} s {warm:8.3f} s  "
              f"({cold / warm:.0f}x)", flush=True)

    if not args.skip_questions:
        timings = questions_cold()
        over = [(name, t) for name, t in timings if t > 2.0]
        print(f"{'questions corpus (cold cache, one process)':<60} {len(timings)} questions, slowest "
              f"{timings[0][1]:.3f} s ({timings[0][0]}), {len(over)} over 2 s", flush=True)
        for name, seconds in timings[:5]:
            print(f"{'  question ' + name:<60} {seconds:8.3f} s", flush=True)

    cpu_sympy = statistics.median(cpu_timed([py, "-c", "import sympy"])[1] for _ in range(args.repeat))
    with tempfile.TemporaryDirectory() as cache:
        cold, cold_cpu = cpu_timed(SYMGPU + ["validate"], cache)
        warm, warm_cpu = cpu_timed(SYMGPU + ["validate"], cache)
        print(f"{'symgpu validate cold / warm':<48} {cold:8.3f} s {warm:8.3f} s  (CPU {cold_cpu:.2f} s / {warm_cpu:.2f} s; "
              f"{cold_cpu / cpu_sympy:.1f}x / {warm_cpu / cpu_sympy:.1f}x the CPU of import sympy)", flush=True)
    # one process against the default workers (model families side by side), alternating, each cold
    runs: dict[str, list[tuple[float, float]]] = {"1": [], "default": []}
    for _ in range(args.repeat):
        for jobs, extra in (("1", ["-j", "1"]), ("default", [])):
            with tempfile.TemporaryDirectory() as cache:
                runs[jobs].append(cpu_timed(SYMGPU + ["validate", *extra], cache))
    (one, one_cpu), (default, default_cpu) = ((statistics.median(w for w, _ in runs[j]), statistics.median(c for _, c in runs[j]))
                                              for j in ("1", "default"))
    print(f"{'symgpu validate cold -j 1 / default':<48} {one:8.3f} s {default:8.3f} s  ({one / default:.2f}x wall; "
          f"CPU of all processes {one_cpu:.2f} s / {default_cpu:.2f} s)", flush=True)

    if not args.skip_report:
        report_cold_warm()


def report_cold_warm() -> None:
    """``report --all`` into an empty temporary folder with an empty cache (cold: everything
    rendered), then twice again (warm: every report up to date, skipped); never into reports/."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        cold = timed(SYMGPU + ["report", "--all", "-o", out], cache)
        warm = statistics.median(timed(SYMGPU + ["report", "--all", "-o", out], cache) for _ in range(2))
        print(f"{'symgpu report --all cold / warm':<48} {cold:8.3f} s {warm:8.3f} s  "
              f"(warm {warm / cold:.3f}x cold)", flush=True)


if __name__ == "__main__":
    main()
