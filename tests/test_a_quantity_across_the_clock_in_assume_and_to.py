"""An ``--assume`` bound, a ``limit --to`` point or a ``--substitute`` value given across the clock or the warp size
(``mem_lat <= 700 ns``, ``--to '400 ns'`` for a symbol in cycles; ``n <= 1024 thread/SM`` for one in warp/SM) is moved at
the request's point as ``--set`` moves one, said on stderr; refused naming the clock where none is known, and where the
clock is the variable asked for (round 34g, findings 112 and 114: both were refused as another dimension, while ``--set``
and ``--target`` converted them). Each converted number is computed here by hand: volkov_2016's preset h100 has a
1.98 GHz clock and a 32 thread/warp warp size."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

from tests.conftest import assert_one_line_refusal

import symgpu
from symgpu.cli import assume_units
from symgpu.cli.common import clock_and_symbol

CLOCK_H100 = Fraction(198, 100) * 10**9  # Hz


def _cycles(ns: int) -> Fraction:
    return Fraction(ns, 10**9) * CLOCK_H100


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def _point(model: symgpu.Model, preset: str | None, moving: tuple[str, ...] = ()) -> assume_units.Point:
    return assume_units.Point(preset, {}, lambda missing: clock_and_symbol(model, None, preset=preset, values={}, missing=missing),
                              moving)


def test_the_preset_clock_and_warp_size_are_read_from_the_model(volkov: symgpu.Model) -> None:
    h100 = volkov.presets["h100"]
    assert Fraction(str(h100["clock"].to("Hz").magnitude)) == CLOCK_H100
    assert volkov.constants["simd_width"].to("thread/warp").magnitude == 32


@pytest.mark.parametrize(("given", "read"), [
    ("mem_lat <= 700 ns", f"mem_lat <= {_cycles(700)}"),   # 700 ns x 1.98 GHz = 1386 cycles
    ("mem_lat >= 0.4 us", f"mem_lat >= {_cycles(400)}"),   # 792 cycles
    ("n <= 1024 thread/SM", f"n <= {1024 // 32}"),          # 1024 threads / 32 per warp = 32 warps
])
def test_an_assume_bound_across_a_rate_is_its_number_at_the_preset(volkov: symgpu.Model, given: str, read: str,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert assume_units.in_declared_units(volkov, [given], _point(volkov, "h100")) == [read]
    assert "symgpu: note:" in capsys.readouterr().err  # said, as a --set value across the clock is


def test_without_a_point_a_bound_across_a_rate_is_refused_as_before(volkov: symgpu.Model) -> None:
    with pytest.raises(symgpu.SymgpuError, match=r"700 ns is \[time\]"):
        assume_units.in_declared_units(volkov, ["mem_lat <= 700 ns"])


def test_a_limit_point_in_ns_for_a_symbol_in_cycles_is_the_limit_at_its_cycles(cli: Callable[..., tuple[int, str, str]]) -> None:
    asked = ("limit", "volkov_2016", "Latency", "--var", "mem_lat", "-p", "h100", "-s", "alpha=8")
    code, out, err = cli(*asked, "--to", "400 ns")
    assert code == 0, err
    assert "400 ns = 792 cycle for mem_lat at clock 1.98 GHz (clock of preset h100)" in err
    code, by_number, err = cli(*asked, "--to", str(_cycles(400)))
    assert code == 0, err
    value = [line for line in out.splitlines() if line.strip().startswith("value:")]
    assert value and value == [line for line in by_number.splitlines() if line.strip().startswith("value:")]


@pytest.mark.parametrize(("bound_ns", "kept"), [(300, False), (310, True)])
def test_an_assume_in_ns_keeps_or_drops_a_root_as_its_cycles_do(cli: Callable[..., tuple[int, str, str]], bound_ns: int,
                                                               kept: bool) -> None:
    # the root: mem_lat = 20 n - alpha alu_lat = 640 - 8 x 4.055 = 607.56 cycles; 300 ns is 594 cycles, 310 ns 613.8
    root = 20 * 32 - 8 * Fraction("4.055")
    assert (root <= _cycles(bound_ns)) is kept
    asked = ("solve", "volkov_2016", "memory_throughput", "--for", "mem_lat", "--target", "0.05", "-p", "h100",
             "-s", "alpha=8", "-s", "n=32")
    by_time = cli(*asked, "--assume", f"mem_lat <= {bound_ns} ns")
    by_cycles = cli(*asked, "--assume", f"mem_lat <= {_cycles(bound_ns)}")
    assert by_time[:2] == by_cycles[:2]
    assert (by_time[0] == 0 and "value: 607.56 cycle" in by_time[1]) is kept


def test_a_bound_across_the_clock_with_no_clock_known_is_refused_naming_the_clock(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("solve", "volkov_2016", "memory_throughput", "--for", "mem_lat", "--target", "0.05",
                         "-s", "alpha=8", "-s", "n=32", "--assume", "mem_lat <= 700 ns")
    assert_one_line_refusal(code, out, err, "--assume 'mem_lat <= 700 ns'", "needs a clock", "clock=1.3 GHz")


def test_a_bound_across_the_clock_that_is_the_variable_is_refused(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("solve", "volkov_2016", "Latency", "--for", "clock", "--target", "800", "-p", "h100",
                         "-s", "alpha=8", "--assume", "mem_lat <= 700 ns")
    assert_one_line_refusal(code, out, err, "--assume 'mem_lat <= 700 ns'", "clock clock", "give mem_lat in cycle")


def test_an_extremum_under_a_bound_in_ns_ends_at_its_cycles(cli: Callable[..., tuple[int, str, str]]) -> None:
    # n_needed grows with mem_lat, so its maximum under mem_lat <= 500 ns is at 500 ns x 1.98 GHz = 990 cycles
    assert _cycles(500) == 990
    code, out, err = cli("extremum", "volkov_2016", "n_needed", "--over", "mem_lat", "--max", "-p", "h100", "-s", "alpha=8",
                         "--assume", "mem_lat <= 500 ns")
    assert code == 0, err
    assert "at mem_lat = 990 cycle  (preset h100)" in out
