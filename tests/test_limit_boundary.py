"""A limit at a point where a declared-nonnegative input sits on its boundary (0), and no
undetermined value (NaN, None) ever printed as an answer with exit code 0."""

from __future__ import annotations

import math

import pytest
import sympy

import symgpu
from symgpu import derive

from conftest import FIXTURES

QUEUE = str(FIXTURES / "queue_bound.toml")  # MDM's S_Mem without Table 1's W <= W_max, so that W may grow
MDM = ("limit", QUEUE, "S_Mem", "--var", "W", "--to", "oo", "--preset", "table1", "--set", "M_Read=4")


def value_line(out: str) -> list[str]:
    return next(line for line in out.splitlines() if line.strip().startswith("value:")).split()


def mshr_bound_by_hand() -> float:
    # tests/fixtures/queue_bound.toml as W -> oo with M_Read = 4 > 0: M_Read*W > MSHRs eventually, so
    # M = Min(M_Read*W, MSHRs) + M_Write*W = 128 + 0 = 128 req/SM, and
    # S_Mem = L0 + SMs*M*L_service = 230 + 28*128*0.544 = 2179.696 cycles
    return 230 + 28 * 128 * 0.544


def test_limit_at_zero_write_misses_is_the_finite_mshr_bound(cli):
    code, out, err = cli(*MDM, "--set", "M_Write=0")
    assert code == 0, err
    _, number, unit, *_ = value_line(out)
    assert unit == "cycle" and math.isclose(float(number), mshr_bound_by_hand(), rel_tol=1e-9)
    assert "nan" not in out.lower() and "None" not in out
    # the same as substituting M_Write = 0 before the limit
    code, substituted, err = cli(*MDM, "--substitute", "M_Write=0")
    assert code == 0, err
    assert value_line(substituted)[1] == number


def test_limit_at_zero_write_misses_is_what_evaluation_at_growing_warps_tends_to():
    queue = symgpu.load(QUEUE)
    inputs = {"M_Write": 0, "M_Read": 4}
    far = [queue.evaluate("S_Mem", "table1", values={**inputs, "W": w}).magnitude for w in (1e3, 1e6, 1e9)]
    derivation = derive.limit(queue, "S_Mem", "W", "oo", preset="table1", values=inputs)
    limit_value = derive.evaluate_result(queue, derivation, "table1", **inputs).magnitude
    assert all(math.isclose(v, limit_value, rel_tol=1e-9) for v in far)


def test_symbolic_limit_splits_on_zero_write_misses_instead_of_nan():
    queue = symgpu.load(QUEUE)
    derivation = derive.limit(queue, "S_Mem", "W", "oo")
    assert not derivation.result.has(sympy.nan, sympy.zoo)
    at_zero = derive.evaluate_result(queue, derivation, "table1", M_Write=0, M_Read=4).magnitude
    at_one = derive.evaluate_result(queue, derivation, "table1", M_Write=1, M_Read=4).magnitude
    assert math.isclose(at_zero, mshr_bound_by_hand(), rel_tol=1e-9) and at_one == math.inf  # M_Write*W grows without bound


def test_limit_with_write_misses_is_printed_as_infinite_not_none(cli):
    code, out, err = cli(*MDM, "--set", "M_Write=1")
    assert code == 0, err
    assert value_line(out)[1] == "oo" and "None" not in out


NAN_MODEL = '''schema_version = 1

[model]
id = "ratio"
title = "Ratio"
summary = "q = a*x/b: its root in x is q*b/a, undefined at a = b = 0."
references = ["hand"]

[references.hand]
authors = ["nobody"]
title = "hand-made"
venue = "tests"
year = 2024

[symbols.q]
description = "the ratio"
unit = "1"
role = "output"

[symbols.x]
description = "the unknown"
unit = "1"
assumptions = ["positive"]

[symbols.a]
description = "a nonnegative input"
unit = "1"
assumptions = ["nonnegative"]

[symbols.b]
description = "another nonnegative input"
unit = "1"
assumptions = ["nonnegative"]

[[equations]]
id = "ratio"
defines = "q"
rhs = "a*x/b"
source = { ref = "hand", locator = "here" }
'''


def test_an_undefined_value_exits_1_with_one_line_naming_the_question_never_nan_or_none(cli, write_model):
    path = write_model(NAN_MODEL, name="ratio")
    # by hand: x = q*b/a = 1*0/0 at a = b = 0, undefined
    code, out, err = cli("solve", path, "q", "--for", "x", "--target", "1", "--set", "a=0", "--set", "b=0")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, (out, err)
    # the zeros are put in first (limit_cases): q is then undefined for every x, so q = 1 holds for no x
    assert "ratio: q:" in err and "a = 0.0, b = 0.0" in err and "holds for no x" in err and "None" not in out
    # a = 0, b = 1: q = a*x/b = 0 whatever x is (the zero put in first), so q = 1 holds for no x
    code, out, err = cli("solve", path, "q", "--for", "x", "--target", "1", "--set", "a=0", "--set", "b=1")
    assert code == 1 and "holds for no x" in err and "None" not in out


@pytest.mark.parametrize("sets", [("a=2", "b=3")], ids=["defined"])
def test_a_defined_value_still_prints(cli, write_model, sets):
    path = write_model(NAN_MODEL, name="ratio")
    code, out, err = cli("solve", path, "q", "--for", "x", "--target", "1", *[f"--set={s}" for s in sets])
    assert code == 0, err
    assert math.isclose(float(value_line(out)[1]), 1 * 3 / 2, rel_tol=1e-12)  # x = q*b/a = 3/2
