"""A variant's own `[occupancy]` table is merged into its base's (equations/README.md: "Variants inherit the base's
table"): the base's presets keep their compute capability, the variant's new entries work, and a variant's entry
for a name the base maps wins (round 13a F6.3: a variant adding one GPU lost every preset of the base)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import symgpu

# 256 threads = 8 warps/block, 32 registers x 32 threads = 1024 registers/warp: 16384 registers per sub-partition
# / 1024 = 16 warps, x 4 = 64 warps/SM by registers; no shared memory.
# cc_9_0 (H100): 64 warp slots -> 64/8 = 8 blocks, 64 warps/SM; cc_8_9 (Ada): 48 warp slots -> 6 blocks, 48 warps/SM.
LAUNCH = "threads=256,regs=32,smem=0"
WARPS = {"cc_9_0": 64, "cc_8_9": 48}

HEAD = '''schema_version = 1
[model]
id = "myada"
extends = "volkov_2016_h100"
title = "variant with an Ada GPU"
summary = "adds a preset and its compute capability"
[presets.ada]
based_on = "h100_fit"
values = { SMs = "128 SM" }
description = "an Ada GPU: the H100 fit's values with 128 SMs"
source = { kind = "measured", note = "test" }
'''


def _variant(tmp_path: Path, occupancy: str) -> Path:
    path = tmp_path / "myada.toml"
    path.write_text(HEAD + occupancy, encoding="utf-8")
    return path


def _by_hand(preset: str, warps: int) -> float:
    values = {"n": warps, "alpha": 8, "ilp": 1}
    if preset == "ada":
        preset, values["SMs"] = "h100_fit", 128
    return float(symgpu.load("volkov_2016_h100").evaluate("dram_throughput", preset, values=values).magnitude)


def _eval(cli, path: Path, preset: str) -> float:  # type: ignore[no-untyped-def]
    code, out, err = cli("eval", path, "dram_throughput", "--preset", preset, "--occupancy", LAUNCH,
                         "-s", "alpha=8", "-s", "ilp=1", "--json")
    assert code == 0, err
    return float(json.loads(out)["value"])


FULL_TABLE = '''[occupancy]
source = { ref = "volkov2016", locator = "tester's mapping" }
[occupancy.symbols]
n = "active_warps_per_SM"
[occupancy.presets]
ada = "cc_8_9"
'''


@pytest.mark.parametrize("occupancy", [FULL_TABLE, '[occupancy.presets]\nada = "cc_8_9"\n'], ids=["whole_table", "presets_only"])
@pytest.mark.parametrize(("preset", "cc"), [("h100_fit", "cc_9_0"), ("h200_transfer", "cc_9_0"), ("ada", "cc_8_9")])
def test_a_variants_occupancy_presets_add_to_the_bases(cli, tmp_path, occupancy, preset, cc) -> None:  # type: ignore[no-untyped-def]
    path = _variant(tmp_path, occupancy)
    assert _eval(cli, path, preset) == pytest.approx(_by_hand(preset, WARPS[cc]), rel=1e-12)


def test_a_variants_entry_for_a_mapped_preset_replaces_the_bases(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # h100_fit is based_on h100_stream, based_on h100: the variant's h100 entry is the one it inherits
    path = _variant(tmp_path, '[occupancy.presets]\nh100 = "cc_8_9"\n')
    assert _eval(cli, path, "h100_fit") == pytest.approx(_by_hand("h100_fit", WARPS["cc_8_9"]), rel=1e-12)
