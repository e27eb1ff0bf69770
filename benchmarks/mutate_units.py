"""Mutation testing of the unit checker over every bundled model (issue 12).

For every equation, every single mutation of ``tests/unit_mutations.py`` (drop a factor,
invert a factor, replace a symbol by one of another dimension, change a declared unit's
dimension) is built again as a model; a brute-force scaling oracle says whether it changes
the dimension. Prints, per model, caught / total for the dimension-changing mutations
(target 100 %) and, separately, the mutations that keep the dimension and how many of
those the checker (rightly) accepts.

Run: ``PYTHONPATH=. python benchmarks/mutate_units.py [MODEL ...]``. Exit status 1 when a
dimension-changing mutation was not caught.
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import unit_mutations  # noqa: E402

import symgpu  # noqa: E402


def main(argv: list[str]) -> int:
    """Mutate every equation of the given (default: all bundled) models and print the counts."""
    started = time.perf_counter()
    total: collections.Counter[str] = collections.Counter()
    missed: list[unit_mutations.Mutant] = []
    for model_id in argv or symgpu.list_models():
        model = symgpu.load(model_id)
        counts: collections.Counter[str] = collections.Counter()
        for mutant in unit_mutations.mutants(model):
            caught = unit_mutations.caught(mutant)
            if mutant.changes:
                counts["changing"] += 1
                counts["caught"] += caught
                counts[f"{mutant.kind}"] += 1
                if not caught:
                    missed.append(mutant)
            else:
                counts["keeping"] += 1
                counts["keeping_accepted"] += not caught
        total.update(counts)
        kinds = ", ".join(f"{k} {counts[k]}" for k in ("drop", "invert", "replace", "unit"))
        print(f"{model_id:>27}: {counts['caught']}/{counts['changing']} dimension-changing caught ({kinds}); "
              f"{counts['keeping_accepted']}/{counts['keeping']} dimension-keeping accepted")
    rate = 100.0 * total["caught"] / max(total["changing"], 1)
    print(f"{'total':>27}: {total['caught']}/{total['changing']} caught ({rate:.1f} %); "
          f"{total['keeping_accepted']}/{total['keeping']} dimension-keeping accepted ({time.perf_counter() - started:.0f} s)")
    for mutant in missed[:20]:
        print(f"    missed: {mutant.model} equation {mutant.equation}: {mutant.kind} {mutant.description}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
