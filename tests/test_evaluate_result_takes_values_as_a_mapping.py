"""``derive.evaluate_result(..., values={...})`` reads the mapping as the point's values, as ``Model.evaluate`` does
(round 34g: a notebook user's ``values=`` was read as a symbol named ``values`` and refused)."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu import derive, errors


def test_values_given_as_a_mapping_are_the_point_of_the_answer() -> None:
    volkov = symgpu.load("volkov_2016")
    answer = derive.solve(volkov, "n_needed", "mem_lat", target=60)
    mapped = derive.evaluate_result(volkov, answer, "h100", values={"alpha": 0})
    # n_needed is proportional to mem_lat at alpha = 0 (Volkov's Little's law): by hand from the preset's own value
    at_1000 = float(volkov.evaluate("n_needed", preset="h100", values={"alpha": 0, "mem_lat": 1000}).magnitude)
    # the answer holds a root per regime; the one that applies at the point is given
    assert np.asarray(mapped.magnitude).tolist() == [pytest.approx(1000 * 60 / at_1000, rel=1e-12)]
    assert np.array_equal(mapped.magnitude, derive.evaluate_result(volkov, answer, "h100", alpha=0).magnitude)


def test_a_value_given_both_in_the_mapping_and_as_a_keyword_is_refused() -> None:
    volkov = symgpu.load("volkov_2016")
    answer = derive.solve(volkov, "n_needed", "mem_lat", target=60)
    with pytest.raises(errors.UsageError, match="alpha given both in values= and as a keyword"):
        derive.evaluate_result(volkov, answer, "h100", values={"alpha": 0}, alpha=1)
