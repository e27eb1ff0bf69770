"""A result's unit is one the unit grammar reads back: ``sqrt(bw0*bw1)``, bw0 in B/s and bw1 in GiB/s, is in
``B ** 0.5 * GiB ** 0.5 / s`` with each symbol in its declared unit, which no unit text can say; the result is then
written in the declared unit (its value is the same: the unit only names how it is shown). An infinity beside it is
read in no unit (it is infinite in every one). The differential tester's generated models found ``limit`` refused with
"cannot read unit 'B ** 0.5 * GiB ** 0.5 / s'", and the API's ``evaluate_result`` raising a plain ValueError."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import derive
from symgpu.evaluate import scaling
from conftest import toy_header

_TEXT = toy_header("half_units", "A square root of two bandwidths", "q from bw0 and bw1") + """
[symbols.bw0]
description = "a bandwidth in B/s"
unit = "B/s"
assumptions = ["positive"]
[symbols.bw1]
description = "a bandwidth in GiB/s"
unit = "GiB/s"
assumptions = ["positive"]
[symbols.r0]
description = "a ratio"
unit = "1"
assumptions = ["positive"]
[symbols.q]
description = "q"
unit = "MB/s"
role = "output"
[[equations]]
id = "eq_q"
defines = "q"
rhs = "Piecewise((bw1/r0, bw0 <= 3.4), (sqrt(bw0*bw1), True))"
source = { ref = "toy2026", locator = "1" }
[presets.p0]
description = "values"
source = { ref = "toy2026", locator = "p0" }
[presets.p0.values]
bw0 = "100 B/s"
bw1 = "2 GiB/s"
r0 = "3"
"""


@pytest.fixture
def model(write_model: Callable[..., Path]) -> symgpu.Model:
    return symgpu.load(write_model(_TEXT, name="half_units"))


def test_a_limit_whose_formula_unit_has_half_powers_is_written_in_the_declared_unit(model: symgpu.Model) -> None:
    d = model.limit("q", "r0", "0", preset="p0")
    assert d.unit == "MB/s" and d.extra.written_in is None
    # by hand: bw0 = 100 B/s > 3.4 B/s, so q = sqrt(100 B/s * 2 GiB/s) = sqrt(100 * 2**31) B/s, in MB/s
    assert math.isclose(float(derive.evaluate_result(model, d, "p0").magnitude), math.sqrt(100 * 2**31) / 1e6)


def test_the_command_line_answers_it(model: symgpu.Model, cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("limit", str(model.path), "q", "--var", "r0", "--to", "0", "--preset", "p0")
    assert code == 0, err
    assert f"{math.sqrt(100 * 2**31) / 1e6:.10g} MB/s" in out


def test_an_infinity_beside_a_term_is_read_in_no_unit(model: symgpu.Model) -> None:
    bw0, bw1 = model.symbols["bw0"], model.symbols["bw1"]
    condition = bw0 <= 3
    assert scaling.literals_read_in(model, sympy.Piecewise((sympy.oo, condition), (bw1, True))) == ()
    assert scaling.literals_read_in(model, sympy.Piecewise((5, condition), (bw1, True))) == (model.units["bw1"],)
