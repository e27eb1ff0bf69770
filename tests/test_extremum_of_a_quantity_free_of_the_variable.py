"""An extremum over a variable the quantity does not depend on: every value of the variable gives
the same value, so none is the maximum rather than another. The engine used to say "no maximum in
closed form (… it may be monotone — try limit)", which sent the user looking for a limit that is
just the quantity itself; it now says the quantity does not depend on the variable and what it is.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import symgpu
from symgpu import errors


def test_a_quantity_free_of_the_variable_is_said_to_be_so_with_its_value(cli: Callable[..., tuple[int, str, str]]) -> None:
    model = symgpu.load("volkov_2016")
    # the premise, on the evaluate path: n_needed is the same at two very different word sizes
    one = model.evaluate("n_needed", "maxwell", values={"alpha": 8, "word_bytes": 4}).magnitude
    other = model.evaluate("n_needed", "maxwell", values={"alpha": 8, "word_bytes": 16}).magnitude
    assert one == other
    code, out, err = cli("extremum", "volkov_2016", "n_needed", "--over", "word_bytes", "--max")
    assert code != 0 and out == ""
    assert "n_needed does not depend on word_bytes: it is " in err
    assert "Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1))" in err  # n_needed's own Min (Volkov Eq. 4)
    assert "monotone" not in err and "Traceback" not in err


def test_a_substitution_that_removes_the_variable_is_named_as_the_reason() -> None:
    model = symgpu.load("hong_kim_2009")
    with pytest.raises(errors.DerivationError) as caught:
        model.extremum("Synch_cost", over="Load_bytes_per_warp", kind="min", substitute={"MWP_peak_BW": "1000"})
    assert "does not depend on Load_bytes_per_warp with MWP_peak_BW substituted: it is " in str(caught.value)
    # without the substitution it does depend on it, and the maximum is answered and checked
    answer = model.extremum("Synch_cost", over="Load_bytes_per_warp", kind="max")
    assert answer.certificate is not None and answer.certificate.checks


def test_a_variable_read_only_by_a_valid_when_domain_is_named_as_such() -> None:
    model = symgpu.load("mdm_2019")
    # the premise: M (MDM Eq. 3) never reads W_max; its valid_when does (W <= W_max)
    assert "W_max" not in {s.name for s in model.expression("M").free_symbols}
    with pytest.raises(errors.DerivationError) as caught:
        model.extremum("M", over="W_max", kind="max")
    said = str(caught.value)
    assert "M does not depend on W_max except through where it is valid: it is " in said
    assert "at every W_max where it is valid (W <= W_max)" in said
