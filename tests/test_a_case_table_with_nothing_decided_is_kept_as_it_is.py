"""A case table whose conditions compare no constants of the model alone is handed back as the same object by
``result_form.known_cases_decided``, not rebuilt: SymPy's rebuild of occupancy's regime table (hundreds of cases)
distributed And over Or for minutes inside ``report --all``; where a condition of constants alone is decided, the
table is rebuilt without that case (the hand value: 2 us < 2.5 us, so the second case is the first that holds)."""

from __future__ import annotations

import sympy

from conftest import FIXTURES
import symgpu
from symgpu.derive import result_form


def test_a_table_of_undecided_cases_is_the_same_object():
    model = symgpu.load(FIXTURES / "zigzag_cases.toml")
    x = model.symbols["x"]
    table = sympy.Piecewise((x, x < 2), (4 - x, x < 3), (x - 2, True), evaluate=False)
    assert result_form.known_cases_decided(model, table) is table


def test_a_case_of_constants_alone_is_still_decided():
    model = symgpu.load(FIXTURES / "zigzag_cases.toml")
    constants = sorted((s for s in model.constants if s.startswith("lit_")), key=lambda n: model.constants[n].to("us").magnitude)
    assert len(constants) >= 2, constants
    low, high = (model.symbols[n] for n in constants[:2])  # two literals of the model in one unit, low < high by their values
    x = model.symbols["x"]
    table = sympy.Piecewise((x, low > high), (2 * x, True))
    assert result_form.known_cases_decided(model, table) == 2 * x
