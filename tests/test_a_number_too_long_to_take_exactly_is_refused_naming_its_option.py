"""A number the command line gives for a symbol is taken exactly, as a constant of the model in the symbol's unit, whose
value text a number's length limit bounds (``units.grammar.MAX_NUMBER``, 40 characters). ``limit ... --to 1e300`` was
refused as a malformed constant of the model file (``equations/mdm_2019.toml: constant lit_1000…``): it is refused
naming ``--to``, what it got and what is taken, exit 2, one line. The same for ``--substitute`` and a ``--target``
quantity; a ``--target`` of zero in a unit is 0, and a sweep's point count of hundreds of digits is said by its size."""

from __future__ import annotations

import pytest

from symgpu.units import grammar
from tests.conftest import assert_one_line_refusal

LIMIT = ("limit", "mdm_2019", "M", "--var", "W")


@pytest.mark.parametrize(("to", "size", "length"), [("1e300", "large", 301), ("1e400", "large", 401), ("1e-400", "small", 402),
                                                    ("1e40", "large", 41), ("1e-39", "small", 41), ("-1e41", "large", 42)])
def test_a_limit_point_too_long_is_refused_naming_to(cli, to: str, size: str, length: int) -> None:  # type: ignore[no-untyped-def]
    # length by hand: 1e300 is a 1 and 300 zeros; 1e-400 is '0.', 399 zeros and a 1
    code, out, err = cli(*LIMIT, f"--to={to}")
    assert code == 2
    assert_one_line_refusal(code, out, err, f"--to '{to}': too {size} to take exactly ({length} characters written out in warp/SM)",
                            f"up to {grammar.MAX_NUMBER} characters written out")
    assert "equations/" not in err and "lit_" not in err
    assert ("--to -oo for W -> -oo" if to.startswith("-") else "--to oo for W -> oo" if size == "large" else "0 for the point 0") in err


def test_the_longest_limit_points_taken_are_forty_characters(cli) -> None:  # type: ignore[no-untyped-def]
    for to, written in (("1e39", "1" + "0" * 39), ("1e-38", "0." + "0" * 37 + "1")):
        assert len(written) == grammar.MAX_NUMBER
        code, out, err = cli(*LIMIT, f"--to={to}")
        assert code == 0, err
        assert f"*({written} warp/SM)" in out


def test_a_substituted_number_too_long_is_refused_naming_substitute(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "mdm_2019", "M", "--for", "W", "--substitute", "W_max=1e300")
    assert code == 2
    assert_one_line_refusal(code, out, err, "--substitute 'W_max=1e300': too large to take exactly (301 characters")


def test_a_target_quantity_too_long_is_refused_naming_target(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "volkov_2016", "Latency", "--for", "alpha", "--target", "1e300 us", "--preset", "g80")
    assert code == 2
    assert_one_line_refusal(code, out, err, "--target '1e300 us': too large to take exactly (301 characters written out in us)")
    assert "equations/" not in err


def test_a_target_of_zero_in_a_unit_is_zero(cli) -> None:  # type: ignore[no-untyped-def]
    # 0 us is 0 cycles at every clock: asked as such (it was refused as a constant 'lit_0_us' declared positive)
    for target in ("0 us", "-0 us"):
        code, out, err = cli("solve", "volkov_2016", "Latency", "--for", "alpha", "--target", target, "--preset", "g80")
        assert code == 1 and "equations/" not in err and "lit_0" not in err
        assert "Latency stays above the target 0 cycle for every alpha" in err  # Latency = alpha*alu_lat + mem_lat > 0


def test_a_sweeps_point_count_of_hundreds_of_digits_is_said_by_its_size(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("sweep", "mdm_2019", "M", "--preset", "table1", "--grid", "W=1:1e300", "-o", tmp_path / "s.csv")
    assert code == 2
    # by hand: 1 to 1e300 in steps of 1 is 1e300 - 1 + 1 = 10^300 points
    assert_one_line_refusal(code, out, err, "--grid 'W=1:1e300': at least 10^300 points is too many (at most 10000000)")


def test_an_assumption_or_substitution_that_does_not_parse_names_its_option_not_the_model_file(cli) -> None:  # type: ignore[no-untyped-def]
    for option, text, said in (("--assume", "W <= 1e400", "mdm_2019: --assume: number 1e400 is out of range"),
                               ("--assume", "W <= nan", "mdm_2019: --assume: undeclared symbol 'nan' in 'W <= nan'"),
                               ("--substitute", "W_max=inf", "mdm_2019: --substitute W_max: undeclared symbol 'inf' in 'inf'")):
        code, out, err = cli("solve", "mdm_2019", "M", "--for", "M_Read", option, text)
        assert code == 2
        assert_one_line_refusal(code, out, err, said, "write it with numbers and the model's symbols")
        assert "equations/" not in err and "[symbols." not in err


def test_a_target_of_an_unknown_name_is_told_to_correct_it_not_to_declare_it_in_the_file(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "mdm_2019", "M", "--for", "W", "--target", "nan")
    assert code == 2
    assert_one_line_refusal(code, out, err, "--target 'nan': neither an expression of mdm_2019 (undeclared symbol 'nan' in 'nan'; "
                            "correct the name (declared: ")
    assert "[symbols." not in err
