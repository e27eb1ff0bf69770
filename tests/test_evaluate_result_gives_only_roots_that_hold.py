"""``derive.evaluate_result`` of a solve with regime roots gives only the roots that hold at the point,
as the command line shows them (outside tester, finding F11)."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import derive, errors


def test_a_regime_root_that_does_not_hold_at_the_point_is_left_out() -> None:
    # prior_hong_kim, Time = 648 cycles at gt200, n = 2: the compute_bound root alpha = -1 + 648/(4n) = 80
    # does not hold there (Time at alpha = 80 is 758 cycles by Model.evaluate), the latency_bound one (52.5) does
    model = symgpu.load("prior_hong_kim")
    answer = model.solve("Time", for_="alpha", target=648, preset="gt200", values={"n": 2})
    got = [float(x) for x in derive.evaluate_result(model, answer, "gt200", n=2).magnitude]
    assert got == pytest.approx([52.5], rel=1e-12)
    for alpha in got:  # brute force: each value given is a root at the point
        assert float(model.evaluate("Time", "gt200", n=2, alpha=alpha).magnitude) == pytest.approx(648.0, rel=1e-12)
    assert float(model.evaluate("Time", "gt200", n=2, alpha=80.0).magnitude) != pytest.approx(648.0, rel=1e-6)


def test_no_root_holding_at_the_point_is_refused_with_the_reason() -> None:
    # same solve asked at n = 200: the compute_bound root -1 + 648/(4*200) is negative (alpha is declared positive),
    # and Model.evaluate over alpha in (0, 200] never gives 648 there (brute force below)
    model = symgpu.load("prior_hong_kim")
    answer = model.solve("Time", for_="alpha", target=648, preset="gt200", values={"n": 2})
    times = [float(model.evaluate("Time", "gt200", n=200, alpha=k / 4).magnitude) for k in range(1, 801)]
    assert min(times) > 648
    with pytest.raises(errors.NoAnswerHere, match="no root for alpha"):
        derive.evaluate_result(model, answer, "gt200", n=200)
