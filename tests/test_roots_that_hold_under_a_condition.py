"""A root SymPy gives only under a condition (``Piecewise((r, cond), (nan, True))``, from an
equation with ``Abs``) is a root where that condition holds, not an undefined one to drop; and a
range answer whose ranges hold nowhere at the point is checked by a scan for the roots it lacks.

Found by the differential tester (``benchmarks/differential.py --seed 5``): Volkov's H100 ILP model
at ``b = 0`` has the latency root ``2*c*ilp*n/(S*(ilp*n + A + |ilp*n - A|))``. Below the knee
``ilp*n < A`` it is ``ilp*n/A`` (in IPC units), so the root is ``ilp = a*y/n``; the solve dropped
it as "undefined", answered with the flat regimes alone, and printed that answer unchecked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive import certify, roots
from symgpu.derive.certify import Asked
from symgpu.derive.derivation import Extras

#: the seed-5 question: at Maxwell with no ALU work and no contention term, 8 warps per SM
AT = {"alpha": 0.0, "b": 0.0, "n": 8.0}
TARGET = 0.00034245778112128804  # winst/cycle/SM, below the knee


@pytest.fixture(scope="module")
def h100() -> symgpu.Model:
    return symgpu.load("volkov_2016_h100")


def _below_the_knee(model: symgpu.Model, target: float) -> float:
    """``ilp = a*y/n`` by hand: ``a`` (the unloaded latency, cycles) from the preset."""
    a = model.preset("maxwell")["a"].to("cycle").magnitude
    return a * target / AT["n"]


def test_a_root_sympy_gives_under_a_condition_keeps_that_condition() -> None:
    x, a = sympy.symbols("x a", positive=True)
    root = sympy.Piecewise((a, x < 1), (2 * a, x < 3), (sympy.nan, True))
    assert roots.cases(root) == [(a, x < 1), (2 * a, sympy.And(x < 3, sympy.Not(x < 1)))]
    assert roots.cases(a + 1) == [(a + 1, sympy.true)]
    assert roots.cases(sympy.Piecewise((sympy.nan, x < 1), (a, True))) == [(a, sympy.Not(x < 1))]


def test_the_root_below_the_knee_is_found_and_checked(h100: symgpu.Model) -> None:
    answer = h100.solve("memory_throughput_loaded_ilp", for_="ilp", target=TARGET, preset="maxwell", values=AT)
    assert answer.certificate is not None and answer.certificate.checks and not answer.certificate.unchecked
    assert "1 root satisfies the relation" in answer.certificate.checks[0]
    value = symgpu.derive.evaluate_result(h100, answer, "maxwell", **AT)
    assert value.magnitude == pytest.approx(_below_the_knee(h100, TARGET), rel=1e-12)
    assert h100.evaluate("memory_throughput_loaded_ilp", "maxwell", values={**AT, "ilp": value.magnitude}).magnitude \
        == pytest.approx(TARGET, rel=1e-12)


def test_a_range_answer_that_lacks_the_root_fails_its_certificate(h100: symgpu.Model) -> None:
    """The answer the solve gave before the fix: the flat regimes alone (the root dropped)."""
    answer = h100.solve("memory_throughput_loaded_ilp", for_="ilp", target=TARGET, preset="maxwell", values=AT)
    flats = answer.extra.ranges
    assert flats
    holds = sympy.Or(*[sympy.And(f.equal, f.when) for f in flats])
    extra = Extras().with_(ranges=flats, holds_for=holds)
    wrong = dataclasses.replace(answer, result=holds, extra=extra, certificate=None)
    asked = Asked("solve", "memory_throughput_loaded_ilp", "ilp", "maxwell", tuple(AT.items()), target=TARGET)
    with pytest.raises(errors.CertificateError, match="finds root") as caught:
        certify.certify(h100, wrong, asked)
    assert f"{_below_the_knee(h100, TARGET):.6g}"[:6] in str(caught.value)


def test_at_a_plateau_value_the_cli_says_no_isolated_root_applies(cli: Callable[..., tuple[int, str, str]], h100: symgpu.Model) -> None:
    plateau = h100.evaluate("memory_throughput_loaded_ilp", "maxwell", values={**AT, "ilp": 100.0}).magnitude
    code, out, err = cli("solve", "volkov_2016_h100", "memory_throughput_loaded_ilp", "--for", "ilp", "--target", repr(float(plateau)),
                         "--preset", "maxwell", "--set", "alpha=0", "--set", "b=0", "--set", "n=8")
    assert code == 0, err
    assert "no isolated root here: the closed-form root above (regime min_arg3) gives no root at this point" in out
    assert "holds for every ilp where" in out


def test_without_a_target_the_roots_at_a_point_stay_in_the_quantitys_terms(h100: symgpu.Model) -> None:
    """Values but no target: the conditional root keeps the quantity's symbol, which the point does not value."""
    answer = h100.solve("memory_throughput_loaded_ilp", for_="ilp", preset="maxwell", values=AT)
    assert h100.symbols["memory_throughput_loaded_ilp"] in answer.result.free_symbols
    a, n = h100.symbols["a"], h100.symbols["n"]
    assert sympy.simplify(answer.result - a * h100.symbols["memory_throughput_loaded_ilp"] / n) == 0
    assert answer.certificate is not None and answer.certificate.checks


def test_where_the_slope_vanishes_the_range_is_written_without_the_unknown(cli: Callable[..., tuple[int, str, str]],
                                                                          h100: symgpu.Model) -> None:
    """At ilp = ilp_ref the fork term s_fork*log(ilp/ilp_ref) is 0: every s_fork is a root (differential seed 14). The
    range's value was written ``expression - slope*s_fork``, which kept ``log((1/ilp_ref)**s_fork)`` and so s_fork."""
    at = {"alpha": 64.0, "ilp": 1.0, "n": 64.0}  # ilp_ref is 1 (a constant of the model)
    values = [h100.evaluate("latency_unloaded_h100", "maxwell", values={**at, "s_fork": s}).magnitude for s in (1.0, 500.0)]
    assert values[0] == pytest.approx(values[1], rel=1e-15)  # by hand: log(1) = 0, s_fork drops out
    code, out, err = cli("solve", "volkov_2016_h100", "latency_unloaded_h100", "--for", "s_fork", "--target", repr(float(values[0])),
                         "--preset", "maxwell", "--set", "alpha=64", "--set", "ilp=1", "--set", "n=64")
    assert code == 0, err
    assert "holds for every s_fork where" in out and "checked numerically" in out
