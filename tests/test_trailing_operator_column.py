"""A syntax error at the end of an expression (a trailing operator) names the column where the text
ends, not column 0, both in a caller's text (``--target``) and in a model file (``valid_when``); CPython
reports such an error with no column (outside tester 10b F3)."""

from __future__ import annotations

import pytest

import symgpu
from conftest import assert_one_line_refusal, read_fixture
from symgpu import errors

TARGET = "L_M + N*t_issue +"  # the trailing '+' is character 17, where the text ends
CONDITION = "I*B >= P_peak/2 +"  # likewise 17 characters, the '+' the last


def test_a_target_ending_in_an_operator_names_the_column_where_it_ends(cli) -> None:
    assert len(TARGET) == 17
    code, out, err = cli("solve", "interval_analysis", "P_K0", "--for", "N", "--target", TARGET, "--preset", "gtx1080",
                         "--substitute", "M=N")
    assert_one_line_refusal(code, out, err, f"cannot parse '{TARGET}': invalid syntax at column 17, where the text ends")
    assert "column 0" not in err and ".toml" not in err  # the caller's text, not the model file's


def test_a_target_with_an_error_inside_keeps_pythons_column(cli) -> None:
    code, out, err = cli("solve", "interval_analysis", "P_K0", "--for", "N", "--target", "L_M * * N", "--preset", "gtx1080",
                         "--substitute", "M=N")
    assert_one_line_refusal(code, out, err, "invalid syntax at column 7;")  # the second '*', 1-based


def test_a_valid_when_ending_in_an_operator_names_the_column_where_it_ends(cli, write_model, refused_whole) -> None:
    assert len(CONDITION) == 17
    text = read_fixture("tiny").replace('rhs = "Min(P_peak, I*B)"', f'rhs = "Min(P_peak, I*B)"\nvalid_when = ["{CONDITION}"]')
    path = write_model(text)
    refused = refused_whole(path, errors.ExpressionError, r"valid_when.*invalid syntax at column 17, where the text ends")
    with pytest.raises(errors.ExpressionError) as read:  # a question that reads the equation: the same message
        symgpu.load(path).expression("P")
    assert str(read.value) == str(refused)
    code, out, err = cli("check", str(path))
    assert code != 0
    assert f"cannot parse '{CONDITION}': invalid syntax at column 17, where the text ends" in out + err
    assert "column 0" not in out + err
