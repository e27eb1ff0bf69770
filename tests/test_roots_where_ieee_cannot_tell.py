"""Where IEEE arithmetic cannot tell: a root's regime is decided at the root's value (its
conditions written in the target's terms tie in IEEE), and exact arithmetic gives a closed-form
root that cancels and the root of a quantity flat below its IEEE digits; a one-sided pole is no
root.

Found by the differential tester (``benchmarks/differential.py --seed 6``): Huang's printed CPI
(``prior_huang_bw``, ``prior_huang_gto``) at ``alpha = 1e9``, solved for ``reqs_per_inst`` /
``cores`` at a target 6e-8 above its asymptote. The quantity there varies by 1e-12 over decades of
the unknown; the queuing root's condition has sides of 1e55 that tie in IEEE (and so was false, a
strict ``<``) but differ by 4e27 exactly; the closed-form root subtracts terms of 1e10 and kept 5
digits; and the bandwidth delay's queuing branch falls to -oo right of ``rho = 1``, a sign change
the scans took for a root.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu.evaluate import evaluator, point

sys.path.insert(0, str(Path(__file__).resolve().parent))
import differential_oracle as oracle  # noqa: E402
from differential_questions import Point  # noqa: E402

AT = {"alpha": 1e9, "n": 64.0}
TARGET = 0.37500002262609267  # cycle*sched/winst: 6e-8 above the quantity's value far out
ASKED = ("solve", "prior_huang_bw", "CPI_final_printed", "--for", "reqs_per_inst", "--target", repr(TARGET),
         "--preset", "maxwell", "--set", "alpha=1000000000.0", "--set", "n=64.0")


@pytest.fixture(scope="module")
def huang_bw() -> symgpu.Model:
    return symgpu.load("prior_huang_bw")


def _exact_gap(model: symgpu.Model, x: float) -> sympy.Expr:
    """The quantity at ``x`` minus the target, in exact arithmetic (the evaluate path's exact mode)."""
    value = evaluator.exact(model, "CPI_final_printed", preset="maxwell", values={**AT, "reqs_per_inst": x})
    return (value - sympy.Rational(repr(TARGET))).evalf(30)


def test_the_queuing_root_is_where_the_exact_quantity_crosses_the_target(cli: Callable[..., tuple[int, str, str]],
                                                                        huang_bw: symgpu.Model) -> None:
    code, out, err = cli(*ASKED)
    assert code == 0, err
    assert "checked numerically" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("value:"))
    assert "(queuing)" in line and "all_at_once" not in line  # at the root's value the regime is queuing, not a tie
    queuing = float(line.split("(queuing)")[0].split()[-1])
    below, above = _exact_gap(huang_bw, queuing * (1 - 1e-9)), _exact_gap(huang_bw, queuing * (1 + 1e-9))
    assert below < 0 < above  # the exact quantity crosses the target within 1e-9 of the printed root


def test_inputs_at_a_point_are_read_to_all_their_digits(huang_bw: symgpu.Model) -> None:
    symbol = huang_bw.symbols["CPI_final_printed"]
    numbers = point.exact_base_values(huang_bw, [symbol], "maxwell", {"CPI_final_printed": TARGET})
    assert numbers is not None and numbers[symbol] == sympy.Rational("0.37500002262609267")


def test_the_testers_scan_takes_neither_the_pole_nor_the_flat_run_for_roots(huang_bw: symgpu.Model) -> None:
    at = Point("maxwell", tuple(sorted(AT.items())))
    xs = oracle.grid(huang_bw, "reqs_per_inst", 0.01)
    ys = oracle.evaluate_on(huang_bw, "CPI_final_printed", at, "reqs_per_inst", xs)
    isolated, plateaus = oracle.roots(huang_bw, "CPI_final_printed", at, "reqs_per_inst", TARGET, xs, ys)
    pole = 1 / huang_bw.evaluate("rho", "maxwell", values={**AT, "reqs_per_inst": 1.0}).magnitude  # rho is linear in reqs_per_inst
    assert huang_bw.evaluate("rho", "maxwell", values={**AT, "reqs_per_inst": pole}).magnitude == pytest.approx(1.0, rel=1e-12)
    assert not any(b.contains(pole, 1e-6) for b in isolated)  # rho = 1: the queuing branch falls to -oo right of it
    isolated, plateaus = oracle.flat_in_exact_arithmetic(huang_bw, "CPI_final_printed", at, "reqs_per_inst", TARGET, isolated, plateaus, xs)
    assert not plateaus
    crossing = [b for b in isolated if 0.001 <= b.middle <= 0.002]
    assert len(crossing) == 1 and _exact_gap(huang_bw, crossing[0].low) < 0 < _exact_gap(huang_bw, crossing[0].high)
