"""A boundary at the end of the variable's declared range (my_tile's ``no_smem`` case, ``smem_block <= 0``, for a
nonnegative smem_block: the switch to ``smem_limited`` is at 0) is checked between the value there and just inside the
range, and the check says so: it read "the regime switches at 0 of 1 boundaries; at smem_block = 0 arguments that do not
bind there cross", as if the check had failed (a newcomer's question, round 34g): the two sides it compared were both the
end itself.

Expected by hand: the case condition smem_block <= 0 holds for a nonnegative smem_block at 0 only, so the case switches
there; at the point (H100) the value is 32 block/SM on both sides (32 slots; floor(228/s) is above 32 for s < 7.125).
"""

from __future__ import annotations

import symgpu
from conftest import FIXTURES

MY_TILE = FIXTURES / "my_tile.toml"


def test_the_switch_at_the_range_end_is_checked_from_inside_and_said_so(cli) -> None:  # type: ignore[no-untyped-def]
    tile = symgpu.load(MY_TILE)
    assert [tile.evaluate("blocks_smem", "h100", smem_block=s).magnitude for s in (0.0, 1e-9, 7.0)] == [32, 32, 32]
    code, out, err = cli("boundary", MY_TILE, "blocks_smem", "--between", "no_smem", "smem_limited", "--for", "smem_block", "-p", "h100")
    assert code == 0, err
    assert "value: 0 KiB/block" in out
    assert ("the regime switches at the boundary, the end of smem_block's declared range (smem_block = 0): between its value "
            "there and just inside the range") in out
    assert "0 of 1 boundaries" not in out and "do not bind there cross" not in out
