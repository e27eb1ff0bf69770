"""The kernel_* models' h100_sxm preset keeps NeuSight's Theta_M = 3430 GB/s (its calibration input), and its
description and note say where the number comes from and how far it is from the H100 SXM's pin bandwidth, so it is
not read as a datasheet value (an outside tester's finding, round 13a F7). The numbers in the note are checked here."""

from __future__ import annotations

import re

import pytest

import symgpu


@pytest.mark.parametrize("model_id", ["kernel_streaming", "kernel_row_reduction", "kernel_gemm"])
def test_the_h100_sxm_bandwidth_note_names_its_source_and_the_pin_bandwidth(model_id: str) -> None:
    model = symgpu.load(model_id)
    preset = next(p for p in model.definition.presets if p.id == "h100_sxm")
    theta = float(model.preset("h100_sxm")["Theta_M"].to("GB/s").magnitude)
    assert theta == 3430  # NeuSight's device_configs Mem_Bw, unchanged
    note = dict(preset.notes)["Theta_M"]
    assert "NeuSight" in note and "Mem_Bw" in note and "3.35 TB/s" in note
    pin = 2619e6 * 5120 * 2 / 8 / 1e9  # GB/s: HBM3 at 2619 MHz, 5120-bit bus, double data rate (data/h100/ORIGINAL_README.md)
    assert f"{pin:.0f} GB/s" in note
    percent = re.search(r"= ([0-9.]+) % faster", note)
    assert percent is not None and float(percent.group(1)) == round(100 * (theta / pin - 1), 1)
    assert "NeuSight's" in preset.description and "3.35 TB/s" in preset.description
