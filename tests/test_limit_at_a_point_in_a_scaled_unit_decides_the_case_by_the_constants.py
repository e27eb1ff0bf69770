"""A limit at a finite point of a piecewise quantity whose case edge is written in a scaled unit
(``L < 500`` with L in ns: the edge is the constant ``lit_500_ns``) picks the case on each side from
the constants' exact values, where SymPy, seeing two positive symbols, could not (found beside
round 11's fixes: "no regime of y is proved to apply on the - side of L = 1000 ns/3"), and its value, written in
those constants alone, is given and checked with no preset."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
import sympy

MODEL = """schema_version = 1
[model]
id = "edge_in_ns"
title = "a case edge in ns"
summary = "y = 2 L below 500 ns, L + 100 ns from there"
references = ["r"]
[references.r]
title = "test"
[symbols.L]
description = "latency"
unit = "ns"
role = "input"
assumptions = ["positive"]
[symbols.y]
description = "y"
unit = "ns"
role = "output"
[[equations]]
id = "y_def"
defines = "y"
cases = [ { id = "low", when = "L < 500", value = "2*L" }, { id = "high", when = "otherwise", value = "L + 100" } ]
source = { ref = "r", locator = "x" }
"""


def _in_ns(result: str) -> Fraction:
    """The result's value in ns: each constant ``lit_<n>_ns`` is n ns, ``lit_<a>p<b>_ns`` is a.b ns (the test
    reads the name, by hand)."""
    expr = sympy.sympify(result)
    values = {s: sympy.Rational(re.fullmatch(r"lit_(\d+(?:p\d+)?)_ns", s.name).group(1).replace("p", ".")) for s in expr.free_symbols}
    number = sympy.nsimplify(expr.xreplace(values))
    return Fraction(int(number.p), int(number.q))


@pytest.mark.parametrize(("to", "direction", "expected"), [
    ("1000/3 ns", "-", Fraction(2000, 3)),   # below 500 ns: 2 L
    ("1000/3 ns", "+", Fraction(2000, 3)),
    ("333.3 ns", "-", Fraction(6666, 10)),
    ("500 ns", "-", Fraction(1000)),         # 2 x 500 from below
    ("500 ns", "+", Fraction(600)),          # 500 + 100 from above
])
def test_each_side_takes_the_case_the_constants_put_there(cli, tmp_path, to, direction, expected):
    model = tmp_path / "edge_in_ns.toml"
    model.write_text(MODEL, encoding="utf-8")
    code, out, err = cli("limit", model, "y", "--var", "L", "--to", to, f"--dir={direction}", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert _in_ns(answer["result"]) == expected
    # a result in the model's constants alone has a value with no preset, and is checked at them
    assert answer["value"] == pytest.approx(float(expected), rel=1e-12) and answer["unit"] == "ns"
    assert answer["certificate"]["checked"] is True
