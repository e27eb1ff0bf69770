"""Differential tester (issue 25): random questions over every bundled model, answered through the
public API and compared with brute-force numerics on the evaluate path.

Questions (``tests/differential_questions.py``): solve a quantity for a variable at a target
inside its range; the boundary between two named regimes (limiters or cases); the limit as the
variable goes to oo or 0; the maximum or minimum over the variable; only when named in ``--ops``,
the regime table over the variable (``regimes``) and ``quantity REL target`` solved for the
variable, its bound or its largest or smallest value (``inequality``, judged in
``tests/differential_inequalities.py``) and ``variable = quantity(variable)`` for a variable of the
quantity's own dimension (``fixed_point``, judged in ``tests/differential_fixed_points.py``: the answer
a fixed point, and the scan's others none, or unstable where the answer is the one stable one). Each is checked at a point
(a preset with a validation case's inputs, a nonnegative input sometimes at 0) against a dense
grid of ``Model.evaluate`` over the variable's admissible range, sign changes refined by
bisection (``tests/differential_oracle.py``, judged in ``tests/differential_checks.py``).

Run: ``PYTHONPATH=. python benchmarks/differential.py --questions 300 --seed 0 [--models M ...]
[--ops solve limit ...] [--jobs N] [--limit SECONDS]``.

It prints the counts of questions, agreements, declined (the API refused with a symgpu error),
timeouts (a derivation over ``--limit`` seconds), unchecked and disagreements, each disagreement
with its reproduction (API call and shell command), the answer and the brute-force value, and
the disagreements by class. Exit status 1 on any disagreement. Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import differential_checks as checks  # noqa: E402
import differential_questions as questions  # noqa: E402


@dataclass(frozen=True)
class Report:
    """The verdicts of one run, in question order, and its wall time."""

    verdicts: tuple[checks.Verdict, ...]
    seconds: float

    def count(self, outcome: str) -> int:
        return sum(v.outcome == outcome for v in self.verdicts)

    @property
    def disagreements(self) -> tuple[checks.Verdict, ...]:
        return tuple(v for v in self.verdicts if v.outcome == "disagree")

    def caught_by_subject(self) -> list[str]:
        """The questions their own certificate refused (exit 1, no value shown), by model, quantity and
        variable, most first: where the engine derives a wrong closed form it then refuses to show."""
        caught = collections.Counter(f"{v.question.op} {v.question.model}.{v.question.quantity}/{v.question.variable}"
                                     for v in self.verdicts if v.outcome == "caught")
        return [f"  {n:5d}  {subject}" for subject, n in caught.most_common()]

    def text(self, *, show: int = 50) -> str:
        """The summary: counts, the disagreements by class, then each (up to ``show``) with its reproduction."""
        lines = [f"questions: {len(self.verdicts)}   agreements: {self.count('agree')}   declined: {self.count('declined')}   "
                 f"caught by their certificate: {self.count('caught')}   "
                 f"timeouts: {self.count('timeout')}   unchecked: {self.count('unchecked')}   "
                 f"disagreements: {self.count('disagree')}   ({self.seconds:.1f} s)"]
        by_op = collections.Counter((v.question.op, v.outcome) for v in self.verdicts)
        lines.append("by operation: " + "; ".join(
            f"{op} " + ", ".join(f"{o} {by_op[(op, o)]}" for o in ("agree", "declined", "caught", "timeout", "unchecked", "disagree") if by_op[(op, o)])
            for op in questions.ALL_OPS if any(by_op[(op, o)] for o in ("agree", "declined", "caught", "timeout", "unchecked", "disagree"))))
        bad = self.disagreements
        if bad:
            lines.append("disagreements by class:")
            for reason, n in collections.Counter(v.reason for v in bad).most_common():
                subjects = sorted({f"{v.question.model}.{v.question.quantity}/{v.question.variable}" for v in bad if v.reason == reason})
                lines.append(f"  {n:5d}  {reason}  ({len(subjects)} subjects: {', '.join(subjects[:6])}{' …' if len(subjects) > 6 else ''})")
            lines.append("disagreements (the first of each class and question, with how many share it):")
            firsts: dict[tuple[object, ...], list[checks.Verdict]] = {}
            for verdict in bad:
                firsts.setdefault((verdict.reason,) + verdict.question.symbolic_key()[:5], []).append(verdict)
            for shown, same in enumerate(firsts.values()):
                if shown == show:
                    lines.append(f"  … and {len(firsts) - show} more")
                    break
                lines.append(f"  ({len(same)}x) " + same[0].line())
        return "\n".join(lines)


def _work(group: list[questions.Question], limit: float) -> list[checks.Verdict]:
    return [checks.judge(q, limit=limit) for q in group]


def _work_star(args: tuple[list[questions.Question], float]) -> list[checks.Verdict]:
    return _work(*args)


def run(count: int, seed: int, *, models: Sequence[str] | None = None, ops: Sequence[str] = questions.OPS,
        jobs: int = 1, limit: float = 10.0, progress: bool = False) -> Report:
    """Generate ``count`` questions from ``seed`` and judge each; ``jobs`` > 1 judges groups of
    questions (those sharing a derivation) in that many forked processes."""
    start = time.perf_counter()
    asked = questions.generate(count, seed, models=models, ops=ops)
    work = list(questions.groups(asked))
    bar = _bar(len(asked), progress)
    verdicts: list[checks.Verdict] = []
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for done in pool.imap(_work_star, [(g, limit) for g in work]):
                verdicts.extend(done)
                bar.update(len(done))
    else:
        for group in work:
            done = _work(group, limit)
            verdicts.extend(done)
            bar.update(len(done))
    bar.close()
    return Report(tuple(verdicts), time.perf_counter() - start)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(total: int, progress: bool) -> object:
    if not progress:
        return _NoBar()
    from tqdm import tqdm
    return tqdm(total=total, unit="q", file=sys.stderr, mininterval=1.0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=300, help="how many questions (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--models", nargs="+", help="model ids (default: every bundled model)")
    parser.add_argument("--ops", nargs="+", choices=questions.ALL_OPS, default=list(questions.OPS),
                        help="question kinds (default: all but regimes, inequality and fixed_point, so a seed asks what it always asked)")
    parser.add_argument("--jobs", type=int, nargs="?", const=0, default=1,
                        help="processes (--jobs alone: one per CPU core; default 1)")
    parser.add_argument("--limit", type=float, default=10.0, help="seconds allowed to one symbolic derivation (default 10)")
    parser.add_argument("--show", type=int, default=50, help="disagreements printed in full (default 50)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--caught", action="store_true", help="also list the questions their certificate refused, by subject")
    args = parser.parse_args(argv)
    jobs = args.jobs or multiprocessing.cpu_count()
    report = run(args.questions, args.seed, models=args.models, ops=args.ops, jobs=jobs, limit=args.limit,
                 progress=not args.quiet)
    print(report.text(show=args.show))
    if args.caught and report.count("caught"):
        print("caught by their certificate, by subject:\n" + "\n".join(report.caught_by_subject()))
    return 1 if report.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
