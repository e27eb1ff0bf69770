"""``--set NAME=TEXT`` where the text names the model's symbols (``theta=c/2``) is refused saying that ``--set`` takes a
number with a unit and that ``--substitute`` puts an expression into the model, with a command that prints its value
at a preset (round 34g, finding 157: it was refused as "unknown unit 'c/2'"). ``eval`` keeps no ``--substitute``: its
numeric path substitutes nothing, and ``regimes ... --substitute`` already prints the value at the preset; the test
checks that value against ``eval`` at the number the expression is, computed here by hand."""

from __future__ import annotations

from collections.abc import Callable

from tests.conftest import assert_one_line_refusal

import symgpu


def test_a_set_value_naming_a_symbol_is_refused_pointing_to_substitute(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("eval", "volkov_2016", "memory_latency", "--set", "theta=c/2", "-p", "maxwell")
    assert_one_line_refusal(code, out, err, "c is a symbol of volkov_2016", "--set takes a number with a unit",
                            "--substitute 'theta=c/2'")
    assert "unknown unit" not in err


def test_a_set_value_with_an_unknown_unit_is_still_refused_as_one(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("eval", "volkov_2016", "memory_latency", "--set", "theta=2 parsec/s", "-p", "maxwell")
    assert_one_line_refusal(code, out, err, "--set 'theta=2 parsec/s'")
    assert "--substitute" not in err


def test_the_command_the_refusal_names_prints_the_value_at_the_substituted_point(cli: Callable[..., tuple[int, str, str]]) -> None:
    c = symgpu.load("volkov_2016").presets["maxwell"]["c"].to("GB/s").magnitude
    assert c == 221.0  # the maxwell preset: c = 221 GB/s, so theta = c/2 = 110.5 GB/s
    code, by_number, err = cli("eval", "volkov_2016", "memory_latency", "--set", f"theta={c / 2} GB/s", "-p", "maxwell")
    assert code == 0, err
    number = by_number.split("=")[1].split()[0]
    code, out, err = cli("regimes", "volkov_2016", "memory_latency", "--substitute", "theta=c/2", "-p", "maxwell")
    assert code == 0, err
    assert f"value: {number} cycle" in out
