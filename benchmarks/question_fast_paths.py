"""Benchmark: the slow questions of the corpus with the engine's fast paths and without them, in one run.

Each question runs in a fresh process with an empty cache (cold), once as the engine does it and
once with one fast path switched off (the general route it replaces), and prints the CPU seconds
of the question itself (start-up and model loading excluded), their ratio, and whether the two
derivations are identical (every step and the result, as text):

* ``tidy_unless_refuted`` (a root's conditions all decided before any is tidied) vs tidying
  every condition, on ``solve hong_kim_2009 MWP --for N --target CWP``;
* ``sign_parts`` (a sign with Min/Max in it bounded part by part) vs bringing it over a common
  denominator and factoring, on Huang's GTO ``IPC_gto`` as alpha -> oo;
* one positive stand-in per constant shared by every sign reasoner vs fresh ones per reasoner, on
  ``regimes hong_kim_2009 Exec_cycles_app`` after the eq23/eq24 boundary in the same process.

The machine is shared: CPU time is steadier than wall-clock.
Run: ``python benchmarks/question_fast_paths.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: the general routes: each switches one fast path off (run in the child before the question)
GENERAL = {
    "tidy": "signs.SignReasoner.tidy_unless_refuted = lambda self, cs: [self.tidy(c) for c in cs]",
    "parts": "sign_parts.sign_from_parts = lambda *args: None",
    "standins": "signs.positive_standin = lambda symbol: sympy.Dummy(symbol.name, positive=True)",
}

#: (name, fast path switched off by the general route, set-up code, timed question)
QUESTIONS = [
    ("solve MWP = CWP for N", "tidy", "hk = symgpu.load('hong_kim_2009')",
     "hk.solve('MWP', for_='N', target='CWP')"),
    ("limit IPC_gto, alpha -> oo", "parts", "gto = symgpu.load('prior_huang_gto')",
     "gto.limit('IPC_gto', 'alpha', 'oo', assume=['alu_lat > 1', 'mem_lat > alu_lat', 'n > issue_units*(mem_lat + 1)'])"),
    ("regimes of Exec_cycles_app after its boundary", "standins",
     # the boundary is refused (eq23 and eq24 only tie, issue 25); its sign reasoning is done before that either way
     "hk = symgpu.load('hong_kim_2009')\ntry:\n    hk.boundary('Exec_cycles_app', ('eq23', 'eq24'), for_='Active_blocks_per_SM')\n"
     "except symgpu.errors.SymgpuError:\n    pass",
     "hk.regimes('Exec_cycles_app')"),
]

CHILD = """
import json, sys, time
import sympy
import symgpu
from symgpu.proofs import sign_parts, signs
{general}
{setup}
start = time.process_time()
derivation = {question}
seconds = time.process_time() - start
text = [str(s.operation) + ': ' + sympy.sstr(s.expression) for s in derivation.steps] + [sympy.sstr(derivation.result)]
print(json.dumps({{"seconds": seconds, "text": text}}))
"""


def run(general: str, setup: str, question: str) -> tuple[float, list[str]]:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "SYMGPU_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        env.pop("SYMGPU_NO_CACHE", None)
        code = CHILD.format(general=general, setup=setup, question=question)
        done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return float(out["seconds"]), list(out["text"])


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    for name, switched_off, setup, question in QUESTIONS:
        fast, fast_text = run("", setup, question)
        slow, slow_text = run(GENERAL[switched_off], setup, question)
        same = "identical" if fast_text == slow_text else "DIFFERENT"
        print(f"{name:<48} fast path {fast:6.3f} s CPU, without it ({switched_off}) {slow:6.3f} s, "
              f"ratio {slow / fast:4.1f}x, derivations {same}", flush=True)


if __name__ == "__main__":
    main()
