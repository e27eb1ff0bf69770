"""A sweep whose ``-o`` cannot be written for want of permission (sysfs: no file can be created there, not even by
root) says to check permissions, not to "free some space", which fits a full disk only (outside tester round 14c, F2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import assert_one_line_refusal

SYSFS = Path("/sys")


@pytest.mark.skipif(not SYSFS.is_dir(), reason="no sysfs here to refuse a new file")
def test_an_output_refused_for_permission_names_permissions_not_space(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("sweep", "kernel_streaming", "t_kernel", "--preset", "h100_sxm+neusight_fit", "--grid", "elements=1e6:1e7:3",
                         "--set", "blocks=1000", "--set", "inflight_per_thread=4", "--set", "operands=3",
                         "--set", "threads_per_block=256", "-o", str(SYSFS / "x.csv"))
    assert_one_line_refusal(code, out, err, "/sys/x.csv", "cannot write the sweep there", "permissions")
    assert "free some space" not in err
