"""Where ``--unit`` asks for another unit than the closed form's, the result line says both: the closed form's unit and
the value line's (``[warp/SM; the value below in thread / SM]``), for every derive command that prints one (solve, limit,
extremum, boundary, fixed-point); a bare ``[warp/SM]`` above a value in thread/SM read as a wrong unit (a newcomer's
question, round 34g). The JSON answer keeps the result's unit as ``result_unit`` beside the value's ``unit``. ``eval``
prints one line in the asked unit and ``sweep`` takes no ``--unit`` (units in its column headers): nothing to disagree.

Each value in the asked unit is checked against the same question without ``--unit`` times the exact factor (32 threads
per warp; 1000 cycles per kcycle), a second path; a pure-number result asked in a unit is refused without an empty
"such as" suggestion.
"""

from __future__ import annotations

import json
import re

import pytest

H100 = ("-p", "h100")
QUESTIONS = [
    (("limit", "volkov_2016", "n_needed", "--var", "alpha", "--to", "oo", *H100), "thread/SM", "warp/SM", "thread / SM", 32),
    (("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", *H100), "thread/SM", "warp/SM", "thread / SM", 32),
    (("boundary", "volkov_2016", "memory_throughput", "--between", "latency_bound", "memory_bound", "--for", "n", *H100,
      "-s", "alpha=8"), "thread/SM", "warp/SM", "thread / SM", 32),
    (("solve", "volkov_2016", "memory_throughput", "--for", "n", "--target", "0.04", *H100, "-s", "alpha=0"), "thread/SM",
     "warp/SM", "thread / SM", 32),
    (("fixed-point", "volkov_2016", "memory_throughput_loaded", "--var", "x", "-p", "kepler", "-s", "n=32", "-s", "alpha=8"),
     "winst/kcycle/SM", "winst/cycle/SM", "winst / kcy / SM", 1000),
]


def _value(out: str) -> float:
    found = re.search(r"value: ([-0-9.e+]+)", out)
    assert found, out
    return float(found.group(1))


@pytest.mark.parametrize(("question", "asked", "declared", "shown", "factor"), QUESTIONS, ids=[q[0][0] for q in QUESTIONS])
def test_the_result_line_names_the_value_lines_unit(cli, question, asked, declared, shown, factor) -> None:  # type: ignore[no-untyped-def]
    code, plain, err = cli(*question)
    assert code == 0, err
    code, out, err = cli(*question, "--unit", asked)
    assert code == 0, err
    assert f"[{declared}; the value below in {shown}]" in out
    assert "value: " in out and f" {shown}" in out.split("value: ")[1].split("\n")[0]
    assert _value(out) == pytest.approx(_value(plain) * factor, rel=1e-9)
    code, raw, err = cli(*question, "--unit", asked, "--json")
    assert code == 0, err
    data = json.loads(raw)
    assert (data["unit"], data["result_unit"]) == (shown, declared)


def test_the_declared_unit_asked_again_adds_nothing(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("limit", "volkov_2016", "n_needed", "--var", "alpha", "--to", "oo", *H100, "--unit", "warp/SM")
    assert code == 0, err
    assert "  [warp/SM]" in out and "the value below" not in out


def test_a_pure_number_asked_in_a_unit_is_refused_without_an_empty_suggestion(cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("boundary", "volkov_2016", "n_needed", "--between", "memory_bound", "issue_bound", "--for", "alpha", *H100,
                       "--unit", "thread/SM")
    assert code == 2
    assert "the result is a pure number (no unit)" in err and "such as )" not in err
