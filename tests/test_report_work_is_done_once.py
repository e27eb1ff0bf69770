"""Work a cold ``report --all`` did more than once is done once per process (issue 31): a derivation
request that a model's validation cases name (volkov_2016's two Maxwell cusp cases name ``cusp_full``)
is derived and checked once, not once for the report and again for each case; a unit ratio is
multiplied out once per pair of units, not for every input value of every point."""

from __future__ import annotations

from fractions import Fraction

import pint
import pytest

import symgpu
from symgpu import memo, units, validation
from symgpu.derive import checked
from symgpu.units import quantities

CASES = ("s4_5_maxwell_cusp_exact_alpha", "s4_5_maxwell_cusp_exact_n")


def test_validation_cases_reuse_the_reports_checked_derivation_of_the_request_they_name() -> None:
    model = symgpu.load("volkov_2016")
    request = next(r for r in model.definition.derivations if r.id == "cusp_full")
    assert {c.id: c.derivation for c in model.definition.validation if c.id in CASES} == dict.fromkeys(CASES, "cusp_full")
    answered = memo.registered()["derive.checked.requests"]  # each model's checked answers, by request
    answered.clear()  # another test may have asked it already in this process

    first = checked.run_request(model, request)  # the report's derivations section
    results = validation.validate(model, CASES)  # the report's validation section

    kept = answered.stats()
    assert kept.misses == 1 and kept.hits == len(CASES)  # derived and checked once; each case read that answer
    assert checked.run_request(model, request) is first
    assert [r.case.id for r in results] == list(CASES) and all(r.status != validation.ERROR for r in results)


def test_a_unit_ratio_is_multiplied_out_once_and_a_dimension_mismatch_is_refused_every_time() -> None:
    quantities._FACTORS.clear()
    assert units.exact_factor("us", "ns") == Fraction(1000)  # 1e-06 / 1e-09, the decimals pint's definitions write
    assert units.exact_factor("TB/s", "GB/s") == Fraction(1000)
    hits = quantities._FACTORS.hits
    assert units.exact_factor("us", "ns") == Fraction(1000)
    assert quantities._FACTORS.hits == hits + 1
    for _ in range(2):
        with pytest.raises(pint.DimensionalityError):
            units.exact_factor("us", "GB/s")
