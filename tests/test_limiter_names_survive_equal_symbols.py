"""A limiter keeps its name when its equation holds an equal symbol spelled otherwise:
``Symbol('n', positive=True)`` (a user's, in a notebook or a test) equals the model's
``Symbol('n', real=True, positive=True)``, and a subexpression built with it first comes back from the
cache inside the model's equation. Matched by ``srepr``, that argument was named ``min_arg2`` and
regime names changed with what ran before in the process (the differential tester failed after
tests/test_compare.py)."""

from __future__ import annotations

import dataclasses

import sympy
from sympy.core.cache import clear_cache

import symgpu
from symgpu.evaluate import active

MODEL = """schema_version = 1

[model]
id = "spelled"
title = "Two limiters"
summary = "A Min of two named limiters."
references = ["r"]

[references.r]
authors = ["A. Author"]
title = "A title"
venue = "A venue"
year = 2026

[symbols.x_spelled]
description = "x"
unit = "1"
assumptions = ["positive"]

[symbols.y_spelled]
description = "y"
unit = "1"
assumptions = ["positive"]

[symbols.q_spelled]
description = "q"
unit = "1"
role = "output"

[[equations]]
id = "q_spelled"
defines = "q_spelled"
rhs = "Min(y_spelled/x_spelled, 2*y_spelled)"
limiters = { ratio_bound = "y_spelled/x_spelled", double_bound = "2*y_spelled" }
source = { ref = "r", locator = "1" }
"""


def test_limiters_are_named_when_the_equation_holds_an_equal_symbol_spelled_otherwise(write_model) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load(write_model(MODEL, name="spelled"))
    equation = model.equation_for("q_spelled")
    # the same Min built afresh (SymPy's cache cleared) from the symbols as a user spells them
    clear_cache()
    x, y = sympy.Symbol("x_spelled", positive=True), sympy.Symbol("y_spelled", positive=True)
    spelled = dataclasses.replace(equation, rhs=sympy.Min(y / x, 2 * y))
    assert spelled.rhs == equation.rhs and sympy.srepr(spelled.rhs) != sympy.srepr(equation.rhs)  # equal, spelled otherwise
    assert sorted(active.argument_labels(spelled)) == ["double_bound", "ratio_bound"]
    assert active.argument_labels(spelled) == active.argument_labels(equation)
