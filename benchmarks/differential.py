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
[--ops solve limit ...] [--jobs N] [--limit SECONDS] [--generated N [--generated-dir DIR]]``.

``--generated N`` asks the questions of N models no one wrote instead of the bundled ones
(``tests/differential_models.py``: 2-6 chained equations in scaled units, literals beside them,
limiters, case tables, Piecewise, ceiling/floor, valid_when domains, powers and roots, presets in
other scales), drawn from the seed and written to a folder put on ``$SYMGPU_MODEL_PATH``. Before
any question, each model is loaded as ``symgpu check`` loads it and the oracle's numbers are held to
the generator's own float arithmetic (``tests/differential_generated.py``); a model refused or where
they differ is listed, with its file, as a fault and asked nothing. Every disagreement or question
its certificate caught prints its model's file text.

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
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import differential_checks as checks  # noqa: E402
import differential_generated as generated_models  # noqa: E402
import differential_questions as questions  # noqa: E402


@dataclass(frozen=True)
class Report:
    """The verdicts of one run, in question order, and its wall time."""

    verdicts: tuple[checks.Verdict, ...]
    seconds: float
    generated: generated_models.Generated | None = None

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

    def declined_by_reason(self, width: int = 220) -> list[str]:
        """The questions the API refused, by operation and reason (numbers and names left as they are), most first,
        each with the first such question's shell command."""
        found: dict[str, list[checks.Verdict]] = {}
        for v in self.verdicts:
            if v.outcome == "declined":
                found.setdefault(v.reason[:width], []).append(v)
        return [f"  {len(vs):5d}  {reason}\n         e.g. {vs[0].question.cli()}"
                for reason, vs in sorted(found.items(), key=lambda kv: -len(kv[1]))]

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
        if self.generated is not None:
            g = self.generated
            lines.insert(0, f"generated models: {len(g.models)} in {g.folder} (SYMGPU_MODEL_PATH), asked: {len(g.usable)}, "
                            f"faults: {len(g.faults)}")
            lines.extend(f"fault: {f.line()}" for f in g.faults)
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
        if self.generated is not None:
            shown_models = [f.model for f in self.generated.faults] + [v.question.model for v in self.verdicts if v.outcome in ("disagree", "caught")]
            if shown_models:
                lines.append("model files (of each fault, disagreement and caught question):")
                lines.append(generated_models.model_files(self.generated, shown_models))
        return "\n".join(lines)


def _work(group: list[questions.Question], limit: float) -> list[checks.Verdict]:
    return [checks.judge(q, limit=limit) for q in group]


def _work_star(args: tuple[list[questions.Question], float]) -> list[checks.Verdict]:
    return _work(*args)


def run(count: int, seed: int, *, models: Sequence[str] | None = None, ops: Sequence[str] = questions.OPS,
        jobs: int = 1, limit: float = 10.0, progress: bool = False, generated: int = 0, folder: Path | None = None) -> Report:
    """Generate ``count`` questions from ``seed`` and judge each; ``jobs`` > 1 judges groups of
    questions (those sharing a derivation) in that many forked processes. ``generated`` > 0: the
    questions are asked of that many generated models (written to ``folder``, a new temporary one by
    default) instead of ``models``."""
    start = time.perf_counter()
    made = None
    if generated:
        made = generated_models.prepare(generated, seed, folder or Path(tempfile.mkdtemp(prefix="symgpu-generated-")))
        models = made.usable
        if not models:
            return Report((), time.perf_counter() - start, made)
    asked = questions.generate(count, seed, models=models, ops=ops, per_group=3 if generated else 5)  # more subjects of new models
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
    return Report(tuple(verdicts), time.perf_counter() - start, made)


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
    parser.add_argument("--declined", action="store_true", help="also list the questions the API refused, by reason")
    parser.add_argument("--generated", type=int, default=0, metavar="N",
                        help="ask the questions of N generated models (tests/differential_models.py) instead of the bundled ones")
    parser.add_argument("--generated-dir", type=Path, help="folder the generated models are written to (default: a new temporary one)")
    args = parser.parse_args(argv)
    jobs = args.jobs or multiprocessing.cpu_count()
    report = run(args.questions, args.seed, models=args.models, ops=args.ops, jobs=jobs, limit=args.limit,
                 progress=not args.quiet, generated=args.generated, folder=args.generated_dir)
    print(report.text(show=args.show))
    if args.declined and report.count("declined"):
        print("declined, by reason:\n" + "\n".join(report.declined_by_reason()))
    if args.caught and report.count("caught"):
        print("caught by their certificate, by subject:\n" + "\n".join(report.caught_by_subject()))
    return 1 if report.disagreements or (report.generated is not None and report.generated.faults) else 0


if __name__ == "__main__":
    sys.exit(main())
