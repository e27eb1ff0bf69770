"""The limits of an expression that equations/README.md (docs/model_files.md) states are the parser's: an exponent of
64 is read and one of 65 refused, naming the limit (an outside tester's finding, round 13c F10: the limit 64 was
not in the docs). The document's numbers are read from its text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sympy

from symgpu import errors
from symgpu.model import expressions

README = Path(__file__).resolve().parents[1] / "equations" / "README.md"


def test_the_documented_exponent_limit_is_the_largest_exponent_read() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    found = re.search(r"a number as exponent at most (\d+) in magnitude", text)
    assert found is not None
    limit = int(found.group(1))
    symbols = {"n": sympy.Symbol("n", positive=True)}
    assert expressions.parse_expression(f"n**{limit}", symbols, path="m.toml", where="e") == symbols["n"] ** limit
    assert expressions.parse_expression(f"n**-{limit}", symbols, path="m.toml", where="e") == symbols["n"] ** -limit
    with pytest.raises(errors.ExpressionError, match=rf"exponent {limit + 1} in 'n\*\*{limit + 1}' is too large \(limit {limit}\)"):
        expressions.parse_expression(f"n**{limit + 1}", symbols, path="m.toml", where="e")


def test_the_documented_sizes_of_an_expression_are_the_parsers() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    found = re.search(r"integer literals at most 10\*\*(\d+), and per expression at most (\d+) characters, (\d+) arithmetic "
                      r"operators and (\d+) levels of nesting", text)
    assert found is not None
    power, length, operators, depth = (int(g) for g in found.groups())
    assert (10**power, length, operators, depth) == (expressions.MAX_INTEGER, expressions.MAX_LENGTH,
                                                      expressions.MAX_OPERATORS, expressions.MAX_DEPTH)
