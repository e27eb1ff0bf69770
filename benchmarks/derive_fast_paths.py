"""Benchmark: the derivation engine's fast paths against the general SymPy route they skip, in one run.

Prints CPU seconds (the machine is shared: CPU time is steadier than wall-clock) and ratios of

* ``roots.linear_roots`` vs ``sympy.solve`` on the linear equations of the all-pairs boundary
  ``hong_kim_2009 Exec_cycles_app --for Active_blocks_per_SM`` (captured while it runs), the
  roots checked equal with ``cancel``;
* ``requests.proved_equal`` (refuted at an exact point, or proved by expanding the numerator, before
  ``simplify``) vs ``radsimp`` + ``simplify`` of the difference, on the Min arguments of the
  ``volkov_2016 s6_5_fixed_point`` result against its expectation (every pair, as the matcher
  tries them);
* ``compare.normalize`` with one memo shared by both models vs a fresh one each, on
  ``hong_kim_2009`` vs ``hong_kim_2009_intended`` ``Exec_cycles_app``;
* ``regime_split._table`` (a large regime table as one unevaluated ``Piecewise``, a piece per
  regime) vs SymPy's evaluated ``Piecewise`` of the same pairs, on the regimes of ``occupancy
  active_blocks_per_SM``; both checked to give the same value at a preset's inputs.

Run: ``python benchmarks/derive_fast_paths.py``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["SYMGPU_CACHE_DIR"] = tempfile.mkdtemp()  # cold: nothing from an earlier run

import sympy  # noqa: E402
from sympy.core.cache import clear_cache  # noqa: E402

import symgpu  # noqa: E402
from symgpu import derive, memo  # noqa: E402
from symgpu.compare import normal_forms  # noqa: E402
from symgpu.derive import limits, regime_split, requests, roots, signs, solving  # noqa: E402


def cpu(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    out = function()
    return time.process_time() - start, out


def report(name: str, fast: float, slow: float) -> None:
    print(f"{name}: fast path {fast:.3f} s, general route {slow:.3f} s, ratio {slow / fast:.1f}x")


def linear_equations() -> None:
    memo.clear_all()
    solving.boundary(symgpu.load("hong_kim_2009"), "Exec_cycles_app", None, "Active_blocks_per_SM")  # the derivation alone, uncertified
    # the equations it solved are the keys of the roots memo: those with a linear root, in the
    # form roots.real_roots hands to roots.linear_roots (the variable a real stand-in)
    captured: list[tuple[sympy.Expr, sympy.Symbol]] = []
    for equation, var in memo.registered()["derive.roots.found"]:
        free = sympy.Dummy(var.name, real=True)
        eq = equation.xreplace({var: free})
        target = eq.lhs - eq.rhs if isinstance(eq, sympy.Eq) else eq
        if isinstance(target, sympy.Expr) and free in target.free_symbols and roots.linear_roots(target, free):
            captured.append((target, free))
    clear_cache()
    fast, mine = cpu(lambda: [roots.linear_roots(t, v) for t, v in captured])
    clear_cache()
    slow, theirs = cpu(lambda: [sympy.solve(t, v) for t, v in captured])
    assert all(len(m) == len(s) == 1 and sympy.cancel(m[0] - s[0]) == 0 for m, s in zip(mine, theirs))
    report(f"{len(captured)} linear boundary equations", fast, slow)


def expectations() -> None:
    model = symgpu.load("volkov_2016")
    entry = next(r for r in model.definition.derivations if r.id == "s6_5_fixed_point")
    result = derive.run_request(model, entry).result
    expected = model.parse(str(entry.get("expect")), "expect")
    ctx = signs.reasoner(model)
    ours = limits._lift(ctx, result.xreplace(ctx.constants)).args
    theirs = limits._lift(ctx, expected.xreplace(ctx.constants)).args
    pairs = [(p, q) for p in ours for q in theirs]

    def general(p: sympy.Expr, q: sympy.Expr) -> bool:
        difference = p - q
        if any(w.exp.is_Rational and not w.exp.is_Integer for w in difference.atoms(sympy.Pow)):
            difference = sympy.radsimp(difference)
        return bool(sympy.simplify(difference) == 0)

    clear_cache()
    fast, verdicts = cpu(lambda: [requests.proved_equal(p, q) for p, q in pairs])
    clear_cache()
    slow, reference = cpu(lambda: [general(p, q) for p, q in pairs])
    assert verdicts == reference
    report(f"{len(pairs)} expectation comparisons ({sum(verdicts)} equal)", fast, slow)


def normal_forms_memo() -> None:
    a, b = symgpu.load("hong_kim_2009"), symgpu.load("hong_kim_2009_intended")
    ea, eb = normal_forms._unify((a, b), (a.expression("Exec_cycles_app"), b.expression("Exec_cycles_app")))
    clear_cache()
    kept: dict[sympy.Basic, sympy.Basic] = {}
    fast, shared = cpu(lambda: (normal_forms.normalize(ea, kept), normal_forms.normalize(eb, kept)))
    clear_cache()
    slow, fresh = cpu(lambda: (normal_forms.normalize(ea), normal_forms.normalize(eb)))
    assert shared == fresh
    report("normal forms of both models' Exec_cycles_app", fast, slow)


#: the most CPU seconds SymPy's evaluation of the whole regime table is given (it ran for minutes once
#: the infeasible regimes were refuted and the proved floor(...) >= 0 conditions dropped)
SYMPY_LIMIT_S = 60


def _sympy_evaluation(pairs: list[tuple[sympy.Expr, sympy.Basic]], out: Any) -> None:
    seconds, evaluated = cpu(lambda: sympy.Piecewise(*pairs))
    out.put((seconds, len(evaluated.args)))


def regime_table() -> None:
    import multiprocessing
    import queue

    model = symgpu.load("occupancy")
    found = regime_split.regime_list(model.regimes("active_blocks_per_SM"))
    pairs = [(r.expression, sympy.And(*r.conditions)) for r in found]
    clear_cache()
    fast, table = cpu(lambda: regime_split._table(found))
    inputs = {"threads_per_block": 256, "regs_per_thread": 40, "smem_per_block": 4096, "barriers_per_block": 3}
    point = {model.symbols[k]: sympy.Rational(str(q.to(model.units[k]).magnitude))
             for k, q in {**model.constants, **model.presets["cc_9_0"]}.items()}
    point.update({model.symbols[k]: v for k, v in inputs.items()})
    # SymPy's value at the point: its first piece whose condition holds
    assert table.xreplace(point) == sympy.Piecewise(*((e.xreplace(point), c.xreplace(point)) for e, c in pairs))
    # SymPy's evaluation of the whole table, in a child process given SYMPY_LIMIT_S of wall time
    results: Any = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=_sympy_evaluation, args=(pairs, results))
    child.start()
    try:
        slow, pieces = results.get(timeout=SYMPY_LIMIT_S)
    except queue.Empty:
        child.kill()
        print(f"{len(found)} regimes as one Piecewise ({len(table.args)} pieces): fast path {fast:.3f} s; "
              f"SymPy's evaluation of the same pieces did not finish in {SYMPY_LIMIT_S} s (stopped)")
        return
    finally:
        child.join()
    report(f"{len(found)} regimes as one Piecewise ({len(table.args)} pieces; SymPy's evaluation {pieces})", fast, slow)


if __name__ == "__main__":
    linear_equations()
    expectations()
    normal_forms_memo()
    regime_table()
