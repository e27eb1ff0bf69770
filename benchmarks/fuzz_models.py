"""Fuzz run: random and mutated model files through load, checks and evaluation (issue 12).

Runs ``--examples`` Hypothesis examples of each family of ``tests/fuzzing.py`` (mutated
bundled models; generated small models, also evaluated) and prints, per family, how many
examples were used, how many were refused and with which symgpu error, how many raised
anything else (a traceback; must be 0), and how many passed the per-example alarm (a hang;
must be 0), with the slowest example's time.

Run: ``PYTHONPATH=. python benchmarks/fuzz_models.py [--examples 5000] [--alarm 20]``.
Exit status 1 when a traceback or a hang was seen.
"""

from __future__ import annotations

import argparse
import collections
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import fuzzing  # noqa: E402


class _Hang(Exception):
    """Raised by the alarm inside an example that ran too long."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang()


def run_family(name: str, strategy: Any, examples: int, alarm: int, evaluate: bool) -> dict[str, Any]:
    """Run ``examples`` examples of one family; return the counts."""
    counts: collections.Counter[str] = collections.Counter()
    slowest = [0.0]
    findings: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix=f"symgpu-fuzz-{name}-"))

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(case: tuple[str, str]) -> None:
        start = time.perf_counter()
        signal.alarm(alarm)
        try:
            outcome = fuzzing.exercise(folder, *case, evaluate=evaluate)
        except _Hang:
            outcome = "HANG"
            findings.append(f"hang: {case[1][:300]!r}")
        except Exception as exc:  # noqa: BLE001 - counted: this is what the fuzz run looks for
            outcome = "TRACEBACK"
            findings.append(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}\ninput: {case[1][:300]!r}")
        finally:
            signal.alarm(0)
        slowest[0] = max(slowest[0], time.perf_counter() - start)
        counts[outcome] += 1

    run()
    return {"family": name, "counts": counts, "slowest": slowest[0], "findings": findings}


def main() -> int:
    """Run both families and print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000, help="examples per family (default 5000: 10**4 in all)")
    parser.add_argument("--alarm", type=int, default=20, help="seconds after which an example counts as a hang")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    started = time.perf_counter()
    results = [
        run_family("mutated", fuzzing.mutated_models(), args.examples, args.alarm, evaluate=False),
        run_family("generated", fuzzing.generated_models(), args.examples, args.alarm, evaluate=True),
    ]
    total = collections.Counter[str]()
    for result in results:
        counts = result["counts"]
        total.update(counts)
        refused = {k: v for k, v in sorted(counts.items()) if k not in ("ok", "TRACEBACK", "HANG")}
        print(f"{result['family']:>9}: {sum(counts.values())} examples, {counts['ok']} used, "
              f"{sum(refused.values())} refused {refused}, {counts['TRACEBACK']} tracebacks, {counts['HANG']} hangs, "
              f"slowest {result['slowest']:.2f} s")
        for finding in result["findings"][:5]:
            print("   ", finding)
    print(f"    total: {sum(total.values())} examples, {total['TRACEBACK']} tracebacks, {total['HANG']} hangs "
          f"({time.perf_counter() - started:.0f} s)")
    return 1 if total["TRACEBACK"] or total["HANG"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
