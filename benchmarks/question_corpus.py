"""The question corpus, each question cold: a fresh ``symgpu`` process with an empty cache.

The corpus is

* every question command of ``README.md``, by this rule: a line of a ```` ```bash ```` block that
  starts with ``symgpu`` followed by a question subcommand (``eval``, ``solve``, ``boundary``,
  ``limit``, ``extremum``, ``fixed-point``, ``regimes``, ``derive``), continuation lines (``\\``)
  joined and ``#`` comments dropped, split like a shell; a line whose model is neither a bundled
  model nor an existing file (a placeholder such as ``MODEL``) is left out;
* the questions the README asks in Python (its ``>>>`` lines), written here as the same command;
* every question of ``tests/test_questions*.py`` (in Python or through the CLI), written here as a
  command with the test it comes from.

Each command runs in a new Python process (``python -m symgpu ...`` from the checkout, with
``$SYMGPU_CACHE_DIR`` a new empty folder), one after another, with symgpu's byte code compiled
first (``compileall``, as an install does; ``$PYTHONDONTWRITEBYTECODE`` is dropped for the
children). Prints wall and CPU seconds (user +
system of the child) per question, slowest first, with the count over 1 s and the CPU seconds
beyond ``python -c "import sympy, pint"`` (the floor of any question), then two higher floors (the
same plus SymPy's first-use imports, which any question that simplifies or solves pays; that plus
importing symgpu's command line and loading a one-equation model file), then the model-load
times in process: the first load right after ``import sympy, pint`` (empty cache, then the cache
that load's process filled, its CPU time against the 0.2 s target of issue 31), and a second load in the same process.

``--record FILE`` writes every question's exit code, stdout and stderr to FILE (JSON);
``--check FILE`` runs the corpus and compares each answer with FILE byte for byte, printing the
questions that differ (exit status 1 if any). Timing is information only, never pass/fail.

Usage: ``python benchmarks/question_corpus.py [--only TEXT] [--record FILE | --check FILE] [--skip-load]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTION_COMMANDS = ("eval", "solve", "boundary", "limit", "extremum", "fixed-point", "regimes", "derive")
HK = "gtx280+tiled_matmul"
MEM_L_SETS = ("--set", "Departure_del_uncoal=10", "--set", "Uncoal_per_mw=2", "--set", "Coal_Mem_insts=1")

# (where the question comes from, the command after ``symgpu``)
LISTED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("README.md: Asking a model a question (Python)",
     ("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max")),
    ("README.md: Asking a model a question (Python)",
     ("boundary", "volkov_2016", "memory_throughput", "--between", "memory_bound", "issue_bound", "--for", "alpha")),
    ("tests/test_questions.py::test_mwp_equals_cwp_for_every_n_up_to_the_smallest_bound",
     ("solve", "hong_kim_2009", "MWP", "--for", "N", "--target", "CWP")),
    ("tests/test_questions.py::test_mwp_turns_bandwidth_bound_between_named_regimes",
     ("boundary", "hong_kim_2009", "MWP", "--for", "Mem_Bandwidth", "--between", "warp_bound", "bandwidth_bound")),
    ("tests/test_questions.py::test_peak_bandwidth_root_is_not_rejected_as_inconsistent",
     ("solve", "hong_kim_2009", "MWP_peak_BW", "--for", "Mem_Bandwidth", "--target", "N")),
    ("tests/test_questions.py::test_exec_cycles_never_switches_between_eq23_and_eq24_as_the_blocks_per_sm_vary",
     ("boundary", "hong_kim_2009", "Exec_cycles_app", "--between", "eq23", "eq24", "--for", "Active_blocks_per_SM")),
    ("tests/test_questions.py::test_mdm_memory_stall_tends_to_the_mshr_bound_as_warps_grow",
     ("limit", "mdm_2019", "S_Mem", "--var", "W", "--to", "oo", "--substitute", "M_Write=0")),
    ("tests/test_questions.py::test_regimes_of_exec_cycles_print_a_short_table",
     ("regimes", "hong_kim_2009", "Exec_cycles_app")),
    ("tests/test_questions.py::test_bad_arguments_are_usage_errors",
     ("limit", "volkov_2016", "n_needed", "--var", "alpha", "--to", "1/0")),
    ("tests/test_questions.py::test_bad_arguments_are_usage_errors",
     ("eval", "hong_kim_2009", "Mem_L", *MEM_L_SETS[:2], "--set", "Mem_LD=420", *MEM_L_SETS[2:], "--set", "Uncoal_Mem_insts=1",
      "--unit", "us")),
    ("tests/test_questions.py::test_cycle_count_in_microseconds_through_the_preset_clock",
     ("eval", "hong_kim_2009", "Mem_L", "--preset", HK, "--unit", "us", "--clock", "1 GHz")),
    ("tests/test_questions_cli.py::test_roofline_ridge_point_of_a_users_own_model_file",
     ("boundary", "tests/fixtures/roofline.toml", "perf", "--for", "intensity", "--preset", "h100")),
    ("tests/test_questions_cli.py::test_derived_cycle_count_in_microseconds_through_the_preset_clock_or_clock",
     ("limit", "hong_kim_2009", "Mem_L", "--var", "Departure_del_uncoal", "--to", "0", "--preset", HK, "--unit", "ns",
      "--clock", "2 GHz")),
    ("tests/test_questions_cli.py::test_unit_and_clock_mistakes_on_derived_values_are_usage_errors",
     ("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2600", *MEM_L_SETS, "--set", "Uncoal_Mem_insts=1",
      "--unit", "GB/s")),
    ("tests/test_questions_cli.py::test_substituted_line_omits_quantities_only_used_to_name_regimes",
     ("boundary", "mdm_2019", "S_NoC", "--for", "W", "--between", "md", "nmd", "--preset", "table1", "--set", "M_Read=4")),
    ("tests/test_questions_cli.py::test_substituted_line_omits_quantities_only_used_to_name_regimes",
     ("boundary", "prior_zhang_owens", "arithmetic_time", "--for", "n", "--preset", "kepler")),
    ("tests/test_questions_cli.py::test_substituted_line_lists_exactly_the_equations_the_quantity_depends_on",
     ("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "500")),
    ("tests/test_questions_cli.py::test_time_target_with_clock_needs_no_preset",
     ("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2 us", "--clock", "1.4 GHz", *MEM_L_SETS,
      "--set", "Uncoal_Mem_insts=3")),
    ("tests/test_questions_cli.py::test_time_target_without_a_clock_names_the_clock_it_needs",
     ("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2 us", *MEM_L_SETS, "--set", "Uncoal_Mem_insts=3")),
    ("tests/test_questions_models.py::test_agarwal_knee_where_utilization_saturates",
     ("boundary", "prior_agarwal", "utilization", "--for", "n", "--preset", "g80", "--set", "alpha=16")),
    ("tests/test_questions_models.py::test_cuda_guide_warps_needed_is_the_knee_of_its_throughput",
     ("boundary", "prior_cuda_guide", "memory_throughput", "--for", "n", "--preset", "guide", "--set", "alpha=10")),
    ("tests/test_questions_models.py::test_huang_gto_ipc_at_infinite_alpha_tends_to_alu_lat_over_alu_lat_minus_one",
     ("limit", "prior_huang", "IPC_gto_alpha_inf", "--var", "n", "--to", "oo", "--preset", "fermi", "--assume", "alu_lat > 1")),
    ("tests/test_questions_models.py::test_huang_gto_limit_without_an_assumption_says_what_to_assume",
     ("limit", "prior_huang", "IPC_gto_alpha_inf", "--var", "n", "--to", "oo")),
    ("tests/test_questions_models.py::test_mdm_memory_divergence_starts_when_the_warps_fill_the_mshrs",
     ("boundary", "mdm_2019", "S_NoC", "--for", "W", "--between", "md", "nmd", "--preset", "table1", "--set", "M_Read=4")),
    ("tests/test_questions_models.py::test_perez_piccoli_one_sm_throughput_for_sixteen_sms",
     ("solve", "perez_piccoli", "SM_count", "--for", "Cp_OneAll", "--target", "16", "--preset", "gts250")),
    ("tests/test_questions_models.py::test_interval_analysis_square_kernel_size_for_a_thousand_threads",
     ("solve", "interval_analysis", "P_K0", "--for", "N", "--target", "1000", "--preset", "gtx1080", "--substitute", "M=N")),
    ("tests/test_questions_models.py::test_hong_kim_departure_delay_for_a_given_memory_latency",
     ("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "500", *MEM_L_SETS, "--set", "Uncoal_Mem_insts=3")),
    ("tests/test_questions_models.py::test_hong_kim_intended_total_time_in_milliseconds",
     ("eval", "hong_kim_2009_intended", "Exec_cycles_app", "--preset", HK, "--set", "Active_blocks_per_SM=2", "--unit", "ms")),
    ("tests/test_questions_models.py::test_volkov_warps_needed_peak_at_the_cusp",
     ("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", "--preset", "kepler")),
    ("tests/test_questions_models.py::test_volkov_warps_needed_peak_at_the_cusp",
     ("extremum", "volkov_2016_ilp", "n_needed", "--over", "alpha", "--max", "--preset", "maxwell")),
    ("tests/test_questions_models.py::test_occupancy_best_block_size_on_ampere",
     ("extremum", "occupancy", "active_warps_per_SM", "--over", "threads_per_block", "--max", "--grid", "32:1024:32",
      "--preset", "cc_8_6", "--set", "regs_per_thread=40", "--set", "smem_per_block=4 KiB/block")),
    ("tests/test_questions_models.py::test_baghsorkhi_alpha_zero_throughput_saturates_beyond_a_hundred_warps",
     ("boundary", "prior_baghsorkhi", "Warp_latency_simplified", "--for", "n", "--substitute", "alpha=0",
      "--between", "max_arg1", "max_arg3", "--preset", "g80")),
    ("tests/test_questions_models.py::test_hong_kim_arithmetic_latency_fix_tends_to_alu_lat_over_instruction_time",
     ("limit", "prior_hong_kim", "hk_fix_ratio", "--var", "alpha", "--to", "oo", "--preset", "gt200")),
    ("tests/test_questions_models.py::test_hong_kim_fixed_halves_the_latency_bound_throughput_at_alpha",
     ("solve", "prior_hong_kim_fixed", "hk_fix_ratio", "--for", "alpha", "--target", "2", "--preset", "gt200")),
    ("tests/test_questions_models.py::test_huang_bandwidth_delay_is_singular_where_the_memory_is_fully_utilised",
     ("solve", "prior_huang_bw", "rho", "--for", "n", "--target", "1", "--preset", "fermi")),
    ("tests/test_questions_models.py::test_huang_gto_alu_cycles_stop_overlapping_past_one_plus_one_over_p_warps",
     ("boundary", "prior_huang_gto", "NO_alu", "--for", "n", "--between", "max_arg1", "min_arg2+max_arg2",
      "--preset", "fermi", "--set", "alpha=1")),
    ("tests/test_questions_models.py::test_sim_cwp_minus_one_overestimates_memory_time_by_n_over_n_minus_one",
     ("eval", "prior_sim", "cwp_minus_one_factor", "--preset", "fermi", "--set", "n=2", "--set", "alpha=1")),
    ("tests/test_questions_models.py::test_zhang_owens_additive_throughput_at_full_occupancy_adds_the_two_times",
     ("limit", "prior_zhang_owens_additive", "arithmetic_throughput", "--var", "n", "--to", "oo", "--preset", "gt200",
      "--set", "alpha=8")),
    ("tests/test_questions_models.py::test_huang_gto_ipc_as_alpha_grows_picks_the_branches_that_win_eventually",
     ("limit", "prior_huang_gto", "IPC_gto", "--var", "alpha", "--to", "oo", "--assume", "alu_lat > 1",
      "--assume", "mem_lat > alu_lat", "--assume", "n > issue_units*(mem_lat + 1)")),
    ("tests/test_questions_models.py::test_huang_gto_limit_that_depends_on_the_warp_count_asks_for_an_assumption",
     ("limit", "prior_huang_gto", "IPC_gto", "--var", "alpha", "--to", "oo", "--assume", "alu_lat > 1")),
)


@dataclass(frozen=True)
class Question:
    """One corpus question: where it comes from and the command after ``symgpu``."""

    source: str
    argv: tuple[str, ...]

    @property
    def text(self) -> str:
        return "symgpu " + shlex.join(self.argv)


@dataclass(frozen=True)
class Answer:
    """What one cold run printed, and what it cost."""

    code: int
    stdout: str
    stderr: str
    wall: float
    cpu: float


def readme_questions(readme: Path, models: set[str]) -> list[Question]:
    """The question commands of the README's bash blocks, by the rule of the module docstring."""
    out: list[Question] = []
    in_bash, pending, start = False, "", 0
    for number, line in enumerate(readme.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            in_bash, pending = line.strip() == "```bash", ""
            continue
        if not in_bash:
            continue
        if pending or line.startswith("symgpu "):
            start = start if pending else number
            pending += line.rstrip().removesuffix("\\") + " "
            if line.rstrip().endswith("\\"):
                continue
            words, pending = shlex.split(pending, comments=True), ""
            if (len(words) >= 3 and words[1] in QUESTION_COMMANDS
                    and (words[2] in models or (ROOT / words[2]).is_file())):
                out.append(Question(f"README.md:{start}", tuple(words[1:])))
    return out


def corpus() -> list[Question]:
    """The README's questions, then the listed ones; each command once, at its first source."""
    models = {p.stem for p in (ROOT / "equations").glob("*.toml")}
    seen: set[tuple[str, ...]] = set()
    out = []
    for question in readme_questions(ROOT / "README.md", models) + [Question(s, a) for s, a in LISTED]:
        if question.argv not in seen:
            seen.add(question.argv)
            out.append(question)
    return out


def environment(cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["SYMGPU_CACHE_DIR"] = cache
    env.pop("SYMGPU_NO_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: byte code compiled once, not in every process
    return env


def ask(question: Question) -> Answer:
    """Run one question in a fresh process with an empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        begin = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "symgpu", *question.argv], env=environment(cache), cwd=ROOT,
                              capture_output=True, text=True)
        wall = time.perf_counter() - begin
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Answer(done.returncode, done.stdout, done.stderr, wall, cpu)


#: the least a question that does symbolic work can cost: import sympy and pint, then one sum and one
#: ``simplify``, which import what SymPy imports on first use (``sympy.tensor`` in the first ``Add``,
#: ``sympy.physics.units`` in the first ``simplify`` or ``solve``)
SYMBOLIC_FLOOR = "import sympy, pint; x, y = sympy.symbols('x y'); sympy.simplify(x/y + y/x)"
#: that, plus importing symgpu's command line and loading a small model file (the roofline test fixture), cold
SYMGPU_FLOOR = SYMBOLIC_FLOOR + "; import symgpu.cli.app, symgpu; symgpu.load('tests/fixtures/roofline.toml')"


def import_floor(code: str = "import sympy, pint") -> tuple[float, float]:
    """(wall, CPU) seconds of ``python -c CODE`` (by default ``import sympy, pint``: the least any
    question can cost), medians of three fresh processes with an empty cache."""
    runs = []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        begin = time.perf_counter()
        with tempfile.TemporaryDirectory() as cache:
            subprocess.run([sys.executable, "-c", code], env=environment(cache), cwd=ROOT, check=True)
        wall = time.perf_counter() - begin
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append((wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)))
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


LOAD = """
import sys, time
begin = time.perf_counter()
import sympy, pint
imports = time.perf_counter() - begin
import symgpu
from symgpu import memo
begin, cpu = time.perf_counter(), time.process_time()
symgpu.load(sys.argv[1])
first, first_cpu = time.perf_counter() - begin, time.process_time() - cpu
begin = time.perf_counter()
symgpu.load(sys.argv[1])
second = time.perf_counter() - begin
memo.clear_all()
begin = time.perf_counter()
symgpu.load(sys.argv[1])
again = time.perf_counter() - begin
symgpu.store.flush()
print(imports, first, second, again, first_cpu)
"""
#: a model's first load in a new process whose cache an earlier process filled, at most (issue 31), s
WARM_TARGET = 0.2


def load_times(model_id: str) -> tuple[float, float, float, float, float, float]:
    """(import sympy+pint, first load with an empty cache, second load in the same process, a load after
    clearing the in-memory memos, first load in a new process with the cache the first run filled, and its
    CPU time), s."""
    with tempfile.TemporaryDirectory() as cache:
        cold = subprocess.run([sys.executable, "-c", LOAD, model_id], env=environment(cache), cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.split()
        warm = subprocess.run([sys.executable, "-c", LOAD, model_id], env=environment(cache), cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.split()
    return float(cold[0]), float(cold[1]), float(cold[2]), float(cold[3]), float(warm[1]), float(warm[4])


def first_difference(recorded: dict[str, object] | None, answer: Answer) -> str:
    """Where an answer first differs from the recorded one (exit code, or the first differing line)."""
    if recorded is None:
        return "not recorded"
    if recorded["code"] != answer.code:
        return f"exit code {recorded['code']} recorded, {answer.code} now"
    for stream in ("stdout", "stderr"):
        old, new = str(recorded[stream]).splitlines(), getattr(answer, stream).splitlines()
        for number, (was, now) in enumerate(zip(old + [""] * len(new), new + [""] * len(old)), 1):
            if was != now:
                return f"{stream} line {number}: recorded {was[:150]!r}, now {now[:150]!r}"
    return "line endings differ"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run only the questions whose command contains this text")
    parser.add_argument("--record", type=Path, help="write every answer (code, stdout, stderr) to this JSON file")
    parser.add_argument("--check", type=Path, help="compare every answer with this JSON file, byte for byte")
    parser.add_argument("--skip-load", action="store_true", help="skip the in-process model-load times")
    parser.add_argument("--list", action="store_true", help="print the corpus and its sources, run nothing")
    args = parser.parse_args()
    questions = [q for q in corpus() if args.only in q.text]
    if args.list:
        print("\n".join(f"{q.text}\n    from {q.source}" for q in questions))
        return 0
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "symgpu")], check=True, env=environment(""))
    recorded = json.loads(args.check.read_text(encoding="utf-8")) if args.check else {}
    answers: dict[str, Answer] = {}
    for question in questions:
        answers[question.text] = ask(question)
        print(f"{answers[question.text].wall:7.2f} s  {question.text}", file=sys.stderr, flush=True)
    floor = import_floor()
    print(f"{len(questions)} questions, each in a fresh process with an empty cache ({os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}); slowest first; 'beyond' = CPU s beyond the "
          f"floor, python -c 'import sympy, pint' ({floor[1]:.2f} s CPU, {floor[0]:.2f} s wall, median of 3)")
    print(f"{'wall s':>7} {'cpu s':>7} {'beyond':>7} {'exit':>4}  question")
    for text, answer in sorted(answers.items(), key=lambda item: -item[1].wall):
        print(f"{answer.wall:7.2f} {answer.cpu:7.2f} {answer.cpu - floor[1]:7.2f} {answer.code:4d}  {text}")
    over = sum(1 for a in answers.values() if a.wall > 1.0)
    over_cpu = sum(1 for a in answers.values() if a.cpu > 1.0)
    print(f"over 1 s: {over} of {len(answers)} by wall time, {over_cpu} by CPU time")
    symbolic, symgpu_floor = import_floor(SYMBOLIC_FLOOR), import_floor(SYMGPU_FLOOR)
    print(f"floors (wall s, CPU s; medians of 3): import sympy, pint {floor[0]:.2f}, {floor[1]:.2f}; + SymPy's first-use "
          f"imports (one Add, one simplify) {symbolic[0]:.2f}, {symbolic[1]:.2f}; + importing symgpu's command line and "
          f"loading tests/fixtures/roofline.toml {symgpu_floor[0]:.2f}, {symgpu_floor[1]:.2f}")
    if not args.skip_load:
        print(f"\n{'model load, s':<28} {'sympy+pint':>10} {'1st cold':>9} {'2nd':>9} {'memo clr':>9} {'1st warm':>9} {'warm CPU':>9}")
        over_target = 0
        for model_id in ("volkov_2016", "hong_kim_2009", "mdm_2019", "occupancy", "prior_huang_gto"):
            times = load_times(model_id)
            over_target += times[-1] > WARM_TARGET
            print(f"{model_id:<28} " + " ".join(f"{t:>9.4f}" for t in times))
        print("(1st cold: first load after import sympy, pint with an empty cache; 2nd: again in that process; memo clr: "
              "after symgpu.memo.clear_all(); 1st warm: first load in a new process with the cache the cold one filled; "
              "warm CPU: its CPU seconds)")
        print(f"warm loads over the {WARM_TARGET} s target (issue 31), by CPU time: {over_target} of 5")
    if args.record:
        data = {text: {"code": a.code, "stdout": a.stdout, "stderr": a.stderr} for text, a in answers.items()}
        args.record.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.check:
        differ = [text for text, a in answers.items()
                  if recorded.get(text) != {"code": a.code, "stdout": a.stdout, "stderr": a.stderr}]
        print(f"\n--check {args.check}: {len(answers) - len(differ)} of {len(answers)} answers byte-identical")
        for text in differ:
            print(f"  DIFFERS: {text}\n    {first_difference(recorded.get(text), answers[text])}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
