"""An extremum over a variable declared in a scaled unit with an assumed end (``--assume "L_M <= 200"``, L_M in ns):
where a plateau edge is put into the assumption, ``edge <= 200`` was tidied into ``Theta_M*eta_M >= X/200``, where 200
is a pure factor of a product and no longer 200 ns, so the plateau edge (79822 ns at the certificate's point) was offered
beyond the assumed end and the answer refused as failing its check. Expected values by brute force over Model.evaluate."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu import derive

PRESET = "a100_pcie_40gb+neusight_fit"


@pytest.fixture(scope="module")
def answer() -> tuple[symgpu.Model, derive.Derivation]:
    model = symgpu.load("kernel_streaming")
    return model, model.extremum("t_kernel", over="L_M", kind="min", assume=["L_M <= 200"])


@pytest.mark.parametrize("inflight", [0.5, 64.0])  # the plateau's edge near 79 ns (inside the assumed end), 10234 ns (beyond it)
def test_the_minimum_with_an_assumed_end_in_ns_is_the_brute_force_minimum_up_to_that_end(answer, inflight: float) -> None:
    model, found = answer
    values = {"elements": 1e6, "blocks": 1000.0, "threads_per_block": 256.0, "operands": 2.0, "inflight_per_thread": inflight}
    grid = np.linspace(1e-3, 200.0, 20001)  # ns, up to the assumed end
    brute = np.asarray(model.evaluate("t_kernel", preset=PRESET, values={**values, "L_M": grid}).to("s").magnitude, dtype=float)
    value = derive.evaluate_result(model, found, PRESET, **values).to("s").magnitude
    where = derive.evaluate_result(model, found, PRESET, which="location", **values).to("ns").magnitude
    assert value == pytest.approx(brute.min(), rel=1e-12)
    assert 0 < where <= 200 * (1 + 1e-12)
    at = model.evaluate("t_kernel", preset=PRESET, values={**values, "L_M": where}).to("s").magnitude
    assert at == pytest.approx(brute.min(), rel=1e-12)


def test_the_answer_without_a_point_is_checked_at_a_point_it_draws(answer) -> None:
    _, found = answer
    assert found.certificate is not None and found.certificate.checks and not found.certificate.unchecked
