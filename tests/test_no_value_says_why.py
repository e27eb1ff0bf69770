"""``eval`` refuses a quantity with no value at the point saying why, with the term where exact arithmetic finds none:
not every NaN is a 0/0 (every one was called "its formula is 0/0 there" before). ``tests/fixtures/no_value.toml``:
r_sqrt = sqrt(x - y), r_log = log(x - y + 1), r_split = x/(x - y) - z/(x - y), r_ratio = z/(x - y)."""

from __future__ import annotations

import pytest
import sympy

from conftest import FIXTURES

MODEL = str(FIXTURES / "no_value.toml")


@pytest.mark.parametrize(("quantity", "point", "why"), [
    # x - y = 1 - 2 = -1: no real square root (IEEE: nan)
    ("r_sqrt", ("x=1", "y=2"), "takes a square root of a negative number there: sqrt(x - y), where x - y = -1"),
    # x - y + 1 = 1 - 3 + 1 = -1: no real logarithm (IEEE: nan)
    ("r_log", ("x=1", "y=3"), "takes the logarithm of a negative number there: log(x - y + 1), where x - y + 1 = -1"),
    # x = y = 1, z = 2: 1/0 - 2/0, inf - inf in IEEE (nan): a division by zero, not a 0/0
    ("r_split", ("x=1", "y=1", "z=2"), "divides by zero there: 1/(x - y), where x - y = 0"),
    # x = y = 1, z = 0: 0/0 indeed
    ("r_ratio", ("x=1", "y=1", "z=0"), "is 0/0 there: z = 0 over x - y = 0"),
])
def test_a_quantity_with_no_value_is_refused_with_the_term_that_has_none(cli, quantity, point, why) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--no-cache", "eval", MODEL, quantity, *[f"--set={p}" for p in point])
    assert code != 0 and out == ""
    assert f"{quantity} has no value at these inputs: its formula {why} (" in err and err.count("\n") == 1


def test_a_case_condition_with_no_value_is_the_reason_not_a_traceback() -> None:
    # b/c > 1 at c = 0: SymPy cannot compare zoo with 1 (TypeError); the reason names the condition
    from symgpu.evaluate.no_value import _Walk
    b, c, x = sympy.symbols("b c x")
    value, why = _Walk({b: sympy.Integer(1), c: sympy.Integer(0), x: sympy.Integer(2)}).at(sympy.Piecewise((x, b / c > 1), (2 * x, True)))
    assert value is sympy.nan and why is not None and "case condition" in why and "b/c > 1" in why
