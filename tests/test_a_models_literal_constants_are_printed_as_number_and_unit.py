"""A model file's bare literal read in its siblings' unit is a constant of the model (``lit_1_txn_per_warp``, kept as a
symbol by the engine), but every text the command line prints says it as its number and unit (``1 txn/warp``), as the
reports do and as a request's own numbers are said (``cli.given_numbers.spoken``): answers, refusals, ``symgpu derive``
lines and ``symgpu diff``. JSON keeps the engine's names (a program reads them back as expressions)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import sympy

import symgpu
from symgpu.cli import compare_commands, given_numbers
from tests.conftest import assert_one_line_refusal

HK = "hong_kim_2009"


def test_the_constant_is_kept_by_the_engine_with_its_unit() -> None:
    model = symgpu.load(HK)
    assert model.constants["lit_1_txn_per_warp"] == symgpu.units.quantity("1 txn/warp")
    derivation = model.solve("Mem_L", "Mem_LD", target=500)
    assert model.symbols["lit_1_txn_per_warp"] in derivation.result.free_symbols


def test_a_solve_prints_the_one_transaction_per_warp_as_a_number_and_unit(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", HK, "Mem_L", "--for", "Mem_LD", "--target", "500")
    assert code == 0, err
    assert "lit_" not in out
    line = next(line for line in out.splitlines() if line.startswith("    ("))  # the result, folded under 'result:'
    assert "*(1 txn/warp)" in line  # in parentheses beside the product
    # by hand from eq10 and Mem_L's weighting: (C*LD + U*(D*(Upm - 1) + LD))/(C + U) = 500, solved for LD
    C, U, D, Upm = sympy.symbols("Coal_Mem_insts Uncoal_Mem_insts Departure_del_uncoal Uncoal_per_mw", positive=True)
    printed = sympy.sympify(line.strip().replace("(1 txn/warp)", "1"), locals={s.name: s for s in (C, U, D, Upm)})
    assert sympy.simplify(printed - (500 * (C + U) - U * D * (Upm - 1)) / (C + U)) == 0


def test_a_refusal_says_the_constant_as_its_number_and_unit(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("boundary", HK, "Exec_cycles_app", "--between", "eq23", "eq24", "--for", "Active_blocks_per_SM")
    assert_one_line_refusal(code, out, err, "only tie at", "Departure_del_uncoal*Uncoal_Mem_insts*(1 txn/warp)")
    assert "lit_" not in err


def test_symgpu_derive_lines_say_the_constant_as_its_number_and_unit(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("derive", HK, "eq4_simplify", "-j", "1")
    assert code == 0, err
    # Eq. (4) at MWP = N, by hand: Comp_cycles*N/N + Comp_p*(N - 1) + Mem_cycles*N/N, its 1 in warp/SM
    assert "ok   eq4_simplify: substitute -> Comp_cycles + Comp_p*(N - 1 warp/SM) + Mem_cycles  [cycle]" in out, out


def test_symgpu_diff_says_the_constant_as_its_number_and_unit(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("diff", HK, "hong_kim_2009_intended")
    assert code == 0, err
    assert "Comp_cycles*(MWP - 1 warp/SM)/Mem_insts" in out and "lit_1_warp_per_SM" not in out
    code, out, err = cli("diff", HK, "hong_kim_2009_intended", "--json")
    assert code == 0, err
    assert "lit_1_warp_per_SM" in json.loads(out)["changed"][0]["a"]  # JSON: the engine's expression, read back as one


def test_json_keeps_the_engines_name(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", HK, "Mem_L", "--for", "Mem_LD", "--target", "500", "--json")
    assert code == 0, err
    assert "lit_1_txn_per_warp" in json.loads(out)["result"]


def test_a_name_cut_at_a_shortened_lines_ellipsis_is_said_whole() -> None:
    one = (("lit_1_txn_per_warp", "1 txn/warp"),)
    assert given_numbers.spoken("a*lit_1_txn_p … (247 characters; --full for all)", one) == "a*(1 txn/warp) … (247 characters; --full for all)"
    assert given_numbers.spoken("a - lit_1_t … (9 characters)", one) == "a - 1 txn/warp … (9 characters)"
    two = one + (("lit_1_txn_per_block", "1 txn/block"),)
    assert given_numbers.spoken("a - lit_1_txn_per_ … (9 characters)", two) == "a -  … (9 characters)"  # either: left out
    assert given_numbers.spoken("lat … (9 characters)", two) == "lat … (9 characters)"  # a symbol of its own


def test_a_name_the_two_models_of_a_diff_say_differently_is_left_as_its_name() -> None:
    def model(*constants: tuple[str, str, str]) -> SimpleNamespace:
        return SimpleNamespace(literal_constants=[SimpleNamespace(name=n, value=v, unit_text=u, equations=("eq",)) for n, v, u in constants])

    a = model(("lit_1_B", "1", "B"), ("lit_2_B", "2", "B"))
    b = model(("lit_1_B", "1", "B"), ("lit_2_B", "3", "B"))
    assert compare_commands.constants_of_both(a, b) == (("lit_1_B", "1 B"),)
