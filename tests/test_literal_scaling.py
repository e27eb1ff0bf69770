"""A bare literal beside a dimensionless ratio of prefixed units is a pure number: 1 - L2/ws
with L2 in MiB and ws in B is one minus the ratio, on the scalar and the array paths alike
(before, the literal took the ratio's scale, 2**20, and the share came out as 1048575.23)."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from conftest import FIXTURES


@pytest.fixture(scope="module")
def share() -> symgpu.Model:
    return symgpu.load(FIXTURES / "share.toml")


def test_one_minus_a_ratio_of_mib_to_bytes_is_a_share_on_the_scalar_path(share: symgpu.Model) -> None:
    # by hand: L2 = 40 MiB = 40 * 2**20 B; ws = L2 / 0.768, so 1 - L2/ws = 1 - 0.768 = 0.232
    ws = 40 * 2**20 / 0.768
    assert share.evaluate("f", values={"L2": 40, "ws": ws}).magnitude == pytest.approx(0.232, rel=1e-12)


def test_one_minus_a_ratio_of_mib_to_bytes_is_a_share_on_the_array_path(share: symgpu.Model) -> None:
    # a working set smaller than the cache has no share outside it: Max(0, ...) = 0
    ws = np.array([40 * 2**20 / 0.768, 40 * 2**20 / 2])
    assert share.evaluate("f", values={"L2": np.array([40.0, 40.0]), "ws": ws}).magnitude == pytest.approx([0.232, 0.0], abs=1e-12)
