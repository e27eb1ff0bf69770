"""A bare number beside terms in a scaled unit keeps that unit in every derivation and sweep (outside
tester 10, F2, F9, F7).

``Min(L, 200)`` with L in ns is 200 ns (equations/README.md): ``eval`` read it so, but a derivation
moved the 200 into other sums and products, where it was read in another unit: "no root", "no
minimum", "boundary '200' has dimension 1", certificates failing, and an array evaluation of an
expanded quantity read ``Max(tm, 5)`` (all us) as 5 ns. The model now makes each such literal a
constant of its unit when it is built (``lit_200_ns``). Expected values by hand from
``tests/fixtures/scaled_literals.toml`` at preset p (c = 1 us, peak = 2000 GB/s, bw = 100 GB/s,
lat = 500 ns).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import symgpu

from conftest import FIXTURES, toy_header

MODEL = FIXTURES / "scaled_literals.toml"
Cli = Callable[..., tuple[int, str, str]]


def value_line(out: str) -> str:
    return next(line.strip() for line in out.splitlines() if line.strip().startswith("value:"))


def test_the_cusp_is_the_maximum_at_200_ns(cli: Cli) -> None:
    # t = Min(L, 200 ns) + 1 us - L/4 rises as 3L/4 below 200 ns and falls as -L/4 above: 1 us + 150 ns at 200 ns
    code, out, err = cli("extremum", MODEL, "t", "--over", "L", "--max", "--preset", "p")
    assert code == 0, err
    assert value_line(out) == "value: 1.15 us at L = 200 ns  (preset p)"


def test_a_target_time_has_a_root_on_each_side_of_the_cusp(cli: Cli) -> None:
    # 3L/4 + 1000 ns = 1100 ns -> L = 400/3 ns; 1200 ns - L/4 = 1100 ns -> L = 400 ns
    code, out, err = cli("solve", MODEL, "t", "--for", "L", "--target", "1.1 us", "--preset", "p")
    assert code == 0, err
    assert value_line(out) == "value: 133.3333333 (min_arg1), 400 (min_arg2) [ns]  (preset p)"


def test_an_input_beside_the_literal_solves_without_blaming_the_model(cli: Cli) -> None:
    # at L = 100 ns: t = 100 ns + c - 25 ns = 1.1 us -> c = 1.025 us
    code, out, err = cli("solve", MODEL, "t", "--for", "c", "--target", "1.1 us", "--preset", "p", "--set", "L=0.1 us")
    assert code == 0, err
    assert "1.025" in value_line(out) and "bare literal" not in err


@pytest.mark.parametrize(("quantity", "variable", "expected"), [
    ("t", "L", "value: 200 ns  (preset p)"),                      # Min(L, 200 ns) switches at L = 200 ns
    ("floorbw", "peak", "value: 600 GB/s  (preset p)"),           # peak - 100 GB/s = 500 GB/s
    ("tk", "x", "value: 64 KiB  (preset p)"),                     # the cap of eff
])
def test_each_boundary_is_in_the_literal_s_unit(cli: Cli, quantity: str, variable: str, expected: str) -> None:
    code, out, err = cli("boundary", MODEL, quantity, "--for", variable, "--preset", "p")
    assert code == 0, err
    assert value_line(out) == expected


def test_limits_and_roots_of_a_capped_size(cli: Cli) -> None:
    # tk = min(x, 64 KiB)/100 GB/s + 500 ns: 65536 B / 100 GB/s = 655.36 ns, so 1155.36 ns for x >= 64 KiB
    code, out, err = cli("limit", MODEL, "tk", "--var", "x", "--to", "oo", "--preset", "p")
    assert code == 0, err
    assert value_line(out) == "value: 1155.36 ns  (preset p)"
    # 1000 ns - 500 ns = 500 ns at 100 GB/s: 50000 B = 48.828125 KiB
    code, out, err = cli("solve", MODEL, "tk", "--for", "x", "--target", "1000", "--preset", "p")
    assert code == 0, err
    assert value_line(out) == "value: 48.828125 KiB  (preset p)"
    # Max(peak - 100 GB/s, 500 GB/s) as peak -> 0: 500 GB/s
    code, out, err = cli("limit", MODEL, "floorbw", "--var", "peak", "--to", "0", "--preset", "p")
    assert code == 0, err
    assert value_line(out) == "value: 500 GB/s  (preset p)"


def test_a_literal_inside_parentheses_takes_the_unit_written_beside_it(cli: Cli) -> None:
    # c + (L - 300 ns) at L = 500 ns: 1 us + 200 ns (it was refused as '-300 + L + c')
    code, out, err = cli("eval", MODEL, "pw", "--preset", "p", "--set", "L=500")
    assert code == 0, err
    assert out.strip() == "pw = 1.2 us"


def test_an_array_evaluation_of_an_expanded_quantity_reads_the_floor_in_us() -> None:
    model = symgpu.load(MODEL)
    q = np.array([1.0, 1e6, 1e8])  # B at 2000 GB/s: 0.0005 us, 0.5 us, 50 us
    array = model.evaluate("tb", "p", values={"q": q})
    assert array.units == symgpu.units.unit("us")
    assert np.allclose(array.magnitude, [5.0, 5.0, 50.0], rtol=1e-12)  # it read 5 ns: 0.005, 0.5, 50
    assert [model.evaluate("tb", "p", values={"q": v}).magnitude for v in q] == pytest.approx([5.0, 5.0, 50.0], rel=1e-12)


def test_show_lists_each_literal_as_a_constant_of_its_equation(cli: Cli) -> None:
    code, out, _ = cli("show", MODEL)
    assert code == 0
    assert "t_eq: t = -L/4 + c + Min(L, lit_200_ns)" in out
    assert "      lit_200_ns = 200 ns   (the bare 200, in its siblings' unit)" in out
    assert "      lit_5_us = 5 us   (the bare 5, in its siblings' unit)" in out


def test_an_assumed_end_in_ns_beside_a_literal_is_the_minimum(cli: Cli) -> None:
    # on L <= 1000 ns, t falls from its cusp (1.15 us at 200 ns) to 1 us + 200 ns - 250 ns = 0.95 us at 1000 ns,
    # below the 1 us it tends to as L -> 0 (it said: no minimum, tends to 1 us)
    code, out, err = cli("extremum", MODEL, "t", "--over", "L", "--min", "--preset", "p", "--assume", "L <= 1000")
    assert code == 0, err
    assert value_line(out) == "value: 0.95 us at L = 1000 ns  (preset p)"


def _toy(write_model: Callable[..., object], bytes_unit: str) -> object:
    """``regime_t`` in us by cases of ``flops/peak + 5`` and ``bytes/bw + 5``, bytes declared in ``bytes_unit``."""
    symbols = "".join(f'\n[symbols.{n}]\ndescription = "{n}"\nunit = "{u}"\nassumptions = ["positive"]\n'
                      for n, u in (("flops", "GFLOP"), ("bytes", bytes_unit), ("peak", "TFLOP/s"), ("bw", "GB/s")))
    return write_model(toy_header(f"lit_{bytes_unit}", "literals", "bare numbers beside ratios of scaled units") + symbols
                       + '\n[symbols.regime_t]\ndescription = "t"\nunit = "us"\nrole = "output"\n'
                       + '\n[[equations]]\nid = "cases_t"\ndefines = "regime_t"\ncases = [\n'
                       + '  { id = "compute", when = "flops/peak >= bytes/bw", value = "flops/peak + 5" },\n'
                       + '  { id = "memory", when = "otherwise", value = "bytes/bw + 5" },\n]\n'
                       + 'source = { ref = "toy2026", locator = "1" }\n', name=f"lit_{bytes_unit}")


@pytest.mark.parametrize(("bytes_unit", "five"), [("MiB", 5 * 2**20 / 1e9), ("B", 5 / 1e9)])
def test_a_literal_beside_a_ratio_of_scaled_units_is_in_their_compound_unit(cli: Cli, write_model, bytes_unit: str,
                                                                              five: float) -> None:
    # what equations/README.md says (q34g): the 5 of bytes/bw + 5 is 5 MiB*s/GB = 5.24288 ms with bytes in MiB and
    # 5 B*s/GB = 5 ns with bytes in B, not 5 us (regime_t's unit); the compute case's 5 is 5 GFLOP*s/TFLOP = 5 ms.
    # By hand at 1 GFLOP, 64 MiB, 67 TFLOP/s, 3350 GB/s (memory-bound: 2**26/3.35e12 s = 20.0325 us)
    path = _toy(write_model, bytes_unit)
    code, out, err = cli("eval", path, "regime_t", "--set", "flops=1 GFLOP", "--set", "bytes=64 MiB",
                         "--set", "peak=67 TFLOP/s", "--set", "bw=3350 GB/s")
    assert code == 0, err
    assert float(out.split("=")[1].split()[0]) == pytest.approx((2**26 / 3.35e12 + five) * 1e6, rel=1e-9)
    code, out, err = cli("eval", path, "regime_t", "--set", "flops=1 GFLOP", "--set", "bytes=1 MiB",
                         "--set", "peak=67 TFLOP/s", "--set", "bw=3350 GB/s")
    assert code == 0, err  # compute-bound: 1e9/67e12 s + 5 ms
    assert float(out.split("=")[1].split()[0]) == pytest.approx((1e9 / 67e12 + 5e-3) * 1e6, rel=1e-9)
