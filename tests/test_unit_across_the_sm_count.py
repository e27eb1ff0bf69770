"""`--unit` moves a per-SM value to a per-GPU one (and back) at the model's SM count, with the clock or the warp size
where the units need them too, each said on stderr (outside round 11a, F5: refused though the preset gives SMs).
Expected values by hand from the kepler preset's numbers (mem_thru 0.1338 winst/cycle/SM, clock 1.124 GHz, 8 SMs)."""

from __future__ import annotations

import pytest

import symgpu
from conftest import assert_one_line_refusal, toy_header

THROUGHPUT = ("eval", "volkov_2016", "memory_throughput", "-p", "kepler", "-s", "alpha=10", "-s", "n=64")


def _number(out: str) -> float:
    return float(out.split("=")[1].split()[0])


def test_a_per_sm_throughput_per_gpu_in_microseconds_is_times_the_clock_and_the_sm_count(cli):
    kepler = symgpu.load("volkov_2016").preset("kepler")
    assert kepler["SMs"].magnitude == 8 and kepler["clock"].to("GHz").magnitude == 1.124
    code, out, err = cli(*THROUGHPUT, "--unit", "winst/us")  # memory-bound at alpha = 10, n = 64: mem_thru
    assert code == 0, err
    assert _number(out) == pytest.approx(0.1338 * 1124 * 8, rel=1e-12)
    assert "per-SM values converted at SMs = 8 SM" in err and "cycles converted at clock = 1.124 GHz" in err
    code, out, err = cli(*THROUGHPUT, "--unit", "tinst/us")  # and in thread instructions: 32 lanes a warp
    assert code == 0 and _number(out) == pytest.approx(0.1338 * 1124 * 8 * 32, rel=1e-12), err


def test_a_per_gpu_bandwidth_per_sm_per_cycle_is_divided_by_both(cli):
    # theta_loaded at x = 0.1 winst/cycle/SM: x * 128 B * 8 SM * 1.124 GHz = 115.0976 GB/s, or 12.8 B/cycle/SM
    code, out, err = cli("eval", "volkov_2016", "theta_loaded", "-p", "kepler", "-s", "x=0.1", "--unit", "B/cycle/SM")
    assert code == 0 and _number(out) == pytest.approx(0.1 * 128, rel=1e-12), err


def test_a_unit_no_rate_reaches_is_still_refused_in_one_line(cli):
    code, out, err = cli(*THROUGHPUT, "--unit", "B/us")
    assert code != 0 and out == "" and "cannot be expressed in B/us" in err and "Traceback" not in err


#: a per-SM rate and the SM count as inputs, the preset giving the rate only
NO_SMS = (toy_header("no_sms", "t", "t")
          + '\n[symbols.thr]\ndescription = "rate"\nunit = "winst/cycle/SM"\nassumptions = ["positive"]\n'
          + '\n[symbols.n_SM]\ndescription = "SM count"\nunit = "SM"\nassumptions = ["positive"]\n'
          + '\n[symbols.per_sm]\ndescription = "rate per SM"\nunit = "winst/cycle/SM"\nrole = "output"\n'
          + '\n[symbols.per_gpu]\ndescription = "rate per GPU"\nunit = "winst/cycle"\nrole = "output"\n'
          + '\n[[equations]]\nid = "e1"\ndefines = "per_sm"\nrhs = "thr"\nsource = { ref = "toy2026", locator = "1" }\n'
          + '\n[[equations]]\nid = "e2"\ndefines = "per_gpu"\nrhs = "thr*n_SM"\nsource = { ref = "toy2026", locator = "2" }\n'
          + '\n[presets.p]\ndescription = "p"\nsource = { ref = "toy2026", locator = "p" }\n[presets.p.values]\nthr = "0.25 winst/cycle/SM"\n')


def test_a_per_sm_value_without_the_sm_count_here_says_to_set_it(cli, write_model):
    path = str(write_model(NO_SMS, name="no_sms"))
    code, out, err = cli("eval", path, "per_sm", "-p", "p", "--unit", "winst/cycle")
    assert_one_line_refusal(code, out, err, "--unit 'winst/cycle'", "except across the model's SM count n_SM, which has no value "
                            "here (not in preset 'p'): give --set n_SM=... or a preset with it")
    # given, the value moves across it: 0.25 winst/cycle/SM * 6 SM = 1.5 winst/cycle, and back
    code, out, err = cli("eval", path, "per_sm", "-p", "p", "--set", "n_SM=6", "--unit", "winst/cycle")
    assert code == 0 and _number(out) == 0.25 * 6, err
    code, out, err = cli("eval", path, "per_gpu", "-p", "p", "--set", "n_SM=6", "--unit", "winst/cycle/SM")
    assert code == 0 and _number(out) == 0.25, err
