"""A quantity kept as a symbol without a value (``stop_at``, ``--keep``) while its own equation reads the variable asked
about stays a symbol (tests/test_kept_quantity_valued_and_moving_with_the_variable_is_refused.py), and the answer says
that it is then implicit: ``solve interval_analysis P_K0 --keep L_K0 --for M`` gave ``M = L_K0*Theta_M/(P_K0*S_elt*phi) - N``
as the result with no word that L_K0 = L_M + (M*N + M)*t_issue itself moves with M (an audit's finding: an implicit
equation presented as a solution). A kept quantity that does not read the variable, and a solve's target kept as the
quantity's own symbol, say nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sympy

import symgpu


@pytest.fixture(scope="module")
def interval() -> symgpu.Model:
    return symgpu.load("interval_analysis")


def test_the_solve_is_implicit_in_the_variable_and_says_so(interval: symgpu.Model) -> None:
    d = interval.solve("P_K0", for_="M", stop_at=["L_K0"])
    names = {s.name: s for s in d.result.free_symbols}
    assert "L_K0" in names and "M" not in names  # M = f(L_K0, ...): M only on the left as printed
    # independently of the engine: L_K0's equation as the model file writes it (L_M + (M*N + M)*t_issue) put in makes M
    # appear on the right-hand side too, so the printed "solution" is an equation M = g(M)
    by_hand = sympy.sympify("L_M + (M*N + M)*t_issue", locals={n: sympy.Symbol(n) for n in ("L_M", "M", "N", "t_issue")})
    assert sympy.Symbol("M") in d.result.xreplace({names["L_K0"]: by_hand}).free_symbols
    said = d.extra.held_fixed
    assert said is not None and said.startswith("implicit: L_K0, kept as a symbol, depends on M")
    assert "an implicit equation in M, not a solution" in said and "drop --keep L_K0" in said


def test_the_command_line_prints_the_whole_sentence(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = cli("solve", "interval_analysis", "P_K0", "--keep", "L_K0", "--for", "M")
    assert code == 0
    joined = " ".join(line.strip() for line in out.splitlines())
    assert "implicit: L_K0, kept as a symbol, depends on M" in joined
    assert "drop --keep L_K0 (API: stop_at) to have its equation substituted" in joined  # not cut short
    assert all(len(line) <= 200 for line in out.splitlines())
    code, out, _ = cli("solve", "interval_analysis", "P_K0", "--keep", "L_K0", "--for", "M", "--json")
    assert code == 0 and "implicit: L_K0" in out


def test_an_extremum_with_the_kept_quantity_held_constant_says_whose_it_is() -> None:
    d = symgpu.load("volkov_2016").extremum("n_needed", over="alpha", kind="max", stop_at=["Latency"])
    said = d.extra.held_fixed
    assert said is not None and "Latency, kept as a symbol, depends on alpha" in said
    assert "that of n_needed with Latency held constant, not the model's" in said


def test_a_kept_quantity_that_does_not_read_the_variable_says_nothing(interval: symgpu.Model) -> None:
    d = interval.solve("P_K0", for_="Theta_M", stop_at=["L_K0"])  # L_K0 = L_M + (M*N + M)*t_issue: no Theta_M in it
    assert "L_K0" in {s.name for s in d.result.free_symbols}
    assert d.extra.held_fixed is None


def test_the_target_kept_as_the_quantity_symbol_is_not_such_a_quantity(interval: symgpu.Model) -> None:
    d = interval.solve("P_K0", for_="Theta_M")  # the result reads P_K0, which reads Theta_M: the question's own target
    assert "P_K0" in {s.name for s in d.result.free_symbols}
    assert d.extra.held_fixed is None
