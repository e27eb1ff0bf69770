"""The slowest corpus questions cold, this checkout against another (an earlier commit's), in alternating runs.

A machine's speed drifts within a session (the floor ``import sympy, pint`` moved from 0.39 s to 0.54 s of wall time
within one afternoon on the shared 2-core machine), so a question's time before a change and after it is compared in
runs that alternate: each question of ``benchmarks/question_corpus.py``'s corpus is asked once here to find the
``--slowest`` ones, then each of those ``--repeat`` times in each checkout, one after the other, every run in a fresh
process with an empty cache (``question_corpus.ask``'s environment, the checkout's own code on ``PYTHONPATH``). Prints
the medians (wall and CPU seconds) and whether the two checkouts printed the same (stdout, stderr, exit code).

Usage: ``git worktree add --detach /tmp/base COMMIT`` then ``python benchmarks/corpus_against.py /tmp/base
[--slowest 9] [--repeat 3]``. Timing here is information, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("question_corpus", Path(__file__).resolve().parent / "question_corpus.py")
assert _SPEC is not None and _SPEC.loader is not None
corpus = importlib.util.module_from_spec(_SPEC)
sys.modules["question_corpus"] = corpus  # its dataclasses look their module up while they are built
_SPEC.loader.exec_module(corpus)


def ask(root: Path, argv: tuple[str, ...]) -> tuple[float, float, tuple[int, str, str]]:
    """One cold run of ``symgpu ARGV`` with ``root``'s code: wall s, CPU s, what it printed."""
    with tempfile.TemporaryDirectory() as cache:
        env = corpus.environment(cache) | {"PYTHONPATH": str(root)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        begin = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "symgpu", *argv], env=env, cwd=root, capture_output=True, text=True)
        wall = time.perf_counter() - begin
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, (done.returncode, done.stdout, done.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="another checkout of symgpu (an earlier commit's worktree)")
    parser.add_argument("--slowest", type=int, default=9, help="how many of the slowest questions to compare")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (args.base / "symgpu" / "__init__.py").is_file():
        print(f"corpus_against: {args.base} is not a symgpu checkout (no symgpu/__init__.py there)", file=sys.stderr)
        return 2
    here = corpus.ROOT
    questions = corpus.corpus()
    for root in (here, args.base):  # byte code compiled once in each, not in the first timed run
        ask(root, questions[0].argv)
    first = sorted(questions, key=lambda q: -ask(here, q.argv)[0])[:args.slowest]
    print(f"the {len(first)} slowest of {len(questions)} corpus questions, cold; medians of {args.repeat} alternating runs; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'base wall / cpu':>16} {'this wall / cpu':>16}  same  question")
    for question in first:
        runs: dict[Path, list[tuple[float, float, tuple[int, str, str]]]] = {args.base: [], here: []}
        for round_ in range(args.repeat):  # alternating, each checkout first in every other round
            for root in (args.base, here) if round_ % 2 == 0 else (here, args.base):
                runs[root].append(ask(root, question.argv))
        medians = {root: (statistics.median(r[0] for r in got), statistics.median(r[1] for r in got)) for root, got in runs.items()}
        same = "yes" if len({r[2] for got in runs.values() for r in got}) == 1 else "NO"  # every run printed the same
        print(f"{medians[args.base][0]:7.2f} / {medians[args.base][1]:5.2f} {medians[here][0]:7.2f} / {medians[here][1]:5.2f}  "
              f"{same:>4}  {question.text}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
