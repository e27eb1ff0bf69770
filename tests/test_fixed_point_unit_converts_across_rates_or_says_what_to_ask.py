"""``fixed-point ... --unit``: a per-SM fixed point is converted per GPU at the model's SM count and clock, and a unit of
another dimension (GB/s for Volkov's loaded throughput in winst/cycle/SM) is refused in one line saying why and what to
ask instead (an earlier review asked whether ``fixed-point --unit GB/s`` works or refuses clearly)."""

from __future__ import annotations

import json

import pytest

from conftest import assert_one_line_refusal

FIXED = ("fixed-point", "volkov_2016", "memory_throughput_loaded", "--var", "x", "--preset", "kepler", "--set", "n=32",
         "--set", "alpha=8")


def test_the_fixed_point_per_gpu_is_times_the_sm_count_and_the_clock(cli):
    code, out, err = cli(*FIXED, "--json")
    assert code == 0, err
    per_sm = json.loads(out)["value"]
    code, out, err = cli(*FIXED, "--unit", "winst/us", "--json")
    assert code == 0, err
    # by hand: the kepler preset's 8 SMs and 1.124 GHz clock (1124 cycles a microsecond)
    assert json.loads(out)["value"] == pytest.approx(per_sm * 8 * 1124, rel=1e-12)


def test_a_bandwidth_unit_is_refused_saying_what_to_ask(cli):
    code, out, err = cli(*FIXED, "--unit", "GB/s")
    assert_one_line_refusal(code, out, err, "--unit 'GB/s'", "cannot be expressed in GB/s", "at any rate of the model",
                            "ask in a unit of its own dimension (such as winst / cy / SM)",
                            "or for a quantity of the model that is in GB/s")
