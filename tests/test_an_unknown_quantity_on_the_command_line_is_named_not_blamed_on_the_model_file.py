"""A quantity name given on the command line that the model does not know is refused naming that name, with the closest
quantities first, exit 2, by every command that takes one, and never as a fault of the model file (review leftover,
round 12: ``solve volkov_2016 nosuch`` said "equations/volkov_2016.toml: quantity: undeclared symbol 'nosuch'; declare it
under [symbols.nosuch]", as if the file were wrong). A name the model declares (an input) is still an expression
``solve`` may take."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import assert_one_line_refusal

Cli = Callable[..., tuple[int, str, str]]
MODEL = "volkov_2016"
TYPO = "n_neded"   # one letter short of the model's n_needed


@pytest.mark.parametrize("argv", [
    ("solve", MODEL, TYPO, "--for", "alpha", "--target", "1"),
    ("boundary", MODEL, TYPO, "--for", "alpha"),
    ("extremum", MODEL, TYPO, "--over", "alpha", "--max"),
    ("extremum", MODEL, TYPO, "--over", "alpha", "--max", "--preset", "kepler", "--grid", "1:4:1"),
    ("limit", MODEL, TYPO, "--var", "alpha", "--to", "oo"),
    ("regimes", MODEL, TYPO),
    ("fixed-point", MODEL, TYPO, "--var", "alpha"),
    ("eval", MODEL, TYPO, "--preset", "kepler"),
    ("sweep", MODEL, TYPO, "--preset", "kepler", "--grid", "alpha=1:4:1", "-o", "{tmp}/out.csv"),
])
def test_every_command_names_the_unknown_quantity_and_offers_the_closest_not_the_model_file(cli: Cli, tmp_path: Path,
                                                                                             argv: tuple[str, ...]) -> None:
    code, out, err = cli(*(a.replace("{tmp}", str(tmp_path)) for a in argv))
    assert_one_line_refusal(code, out, err, f"{MODEL}: '{TYPO}' is not a quantity defined by an equation",
                            "(quantities: closest n_needed,")
    assert ".toml" not in err and "declare it" not in err and "[symbols." not in err
    assert code == 2


def test_two_model_commands_name_the_model_that_lacks_the_quantity(cli: Cli) -> None:
    for command in ("compare", "diff"):
        code, out, err = cli(command, MODEL, "volkov_2016_h100", TYPO)
        assert_one_line_refusal(code, out, err, f"{MODEL} does not define '{TYPO}'", "closest n_needed")
        assert code == 2 and ".toml" not in err


def test_a_declared_input_is_still_an_expression_the_derivations_take(cli: Cli) -> None:
    code, out, err = cli("limit", MODEL, "alu_lat", "--var", "alu_lat", "--to", "0")
    assert code == 0, err
    assert "result: 0  [cycle]" in out   # by hand: alu_lat -> 0
