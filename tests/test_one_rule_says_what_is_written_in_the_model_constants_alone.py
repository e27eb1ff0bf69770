"""One rule (``derive.result_form.of_constants``) says whether what an expression or a question reads, beside the
variable, is one or more of the model's constants (a literal made one, ``lit_500_ns``): a result shown with its value at
no point, a limit's case edge decided by the constants' values, a question certified at the constants alone (review
leftover: three separate checks). The answers those give are held by
``test_limit_at_a_point_in_a_scaled_unit_decides_the_case_by_the_constants.py``."""

from __future__ import annotations

import symgpu
from symgpu.derive import result_form

from test_limit_at_a_point_in_a_scaled_unit_decides_the_case_by_the_constants import MODEL


def test_names_are_of_the_constants_when_one_or_more_are_given_and_every_one_is_a_constant(tmp_path) -> None:
    path = tmp_path / "edge_in_ns.toml"
    path.write_text(MODEL, encoding="utf-8")
    model = symgpu.load(str(path))
    # the file writes ``L < 500`` with L in ns: the 500 is made the constant lit_500_ns (by hand: the literal's name)
    assert "lit_500_ns" in model.constants and "L" not in model.constants
    assert result_form.of_constants(model, ["lit_500_ns"]) is True
    assert result_form.of_constants(model, iter(["lit_500_ns", "lit_500_ns"])) is True   # any iterable, once read
    assert result_form.of_constants(model, ["lit_500_ns", "L"]) is False                # an input has no value here
    assert result_form.of_constants(model, ["y"]) is False                              # nor a quantity
    assert result_form.of_constants(model, []) is False                                 # a bare number reads none
