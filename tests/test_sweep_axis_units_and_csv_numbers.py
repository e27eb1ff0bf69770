"""A sweep axis may be written with a unit, converted to its symbol's declared unit; CSV cells are the shortest text
that reads back as the same double; a quantity whose regimes live in the one quantity it reads gets their regime
column (an outside tester's findings, round 14c, F3 and F4)."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import pytest

import symgpu
from symgpu import errors
from symgpu.sweep import parse_axis

KS = ["kernel_streaming", "t_kernel", "-p", "a100_pcie_40gb+neusight_fit", "-s", "elements=1e6", "-s", "operands=3",
      "-s", "inflight_per_thread=48", "-s", "threads_per_block=128"]


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def test_an_axis_written_in_microseconds_is_swept_in_the_declared_nanoseconds(cli, tmp_path):  # type: ignore[no-untyped-def]
    # before: "--grid 'L_M=0.2us:0.8us:log4': START '0.2us' is not a number"
    code, _, err = cli("sweep", *KS, "-g", "L_M=0.2us:0.8us:0.2us", "-g", "blocks=10", "-o", tmp_path / "us.csv")
    assert code == 0, err
    code, _, err = cli("sweep", *KS, "-g", "L_M=200:800:200", "-g", "blocks=10", "-o", tmp_path / "ns.csv")
    assert code == 0, err
    header, rows = _rows(tmp_path / "us.csv")
    assert header[0] == "L_M [ns]"
    assert [float(r[0]) for r in rows] == [200.0, 400.0, 600.0, 800.0]  # 0.2 us steps of 0.2 us, in ns by hand
    assert rows == _rows(tmp_path / "ns.csv")[1]  # the same sweep as the one written in ns
    code, _, err = cli("sweep", *KS, "-g", "L_M=0.2us:0.8us:log4", "-g", "blocks=10", "-o", tmp_path / "log.csv")
    assert code == 0, err
    hand = [200 * 4 ** (k / 3) for k in range(4)]  # 200 ns to 800 ns, evenly in log
    assert [float(r[0]) for r in _rows(tmp_path / "log.csv")[1]] == pytest.approx(hand, rel=1e-14)


def test_an_axis_in_a_unit_of_another_dimension_names_the_symbols_declared_unit(cli, tmp_path):  # type: ignore[no-untyped-def]
    code, out, err = cli("sweep", *KS, "-g", "L_M=0.2GB:0.8GB:log4", "-o", tmp_path / "x.csv")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "L_M is in ns ([time])" in err and "give the axis in ns" in err
    assert not (tmp_path / "x.csv").exists()


def test_parsing_an_axis_keeps_its_one_unit_for_the_plan_and_refuses_several():
    axis = parse_axis("L_M=0.2us:0.8us:log4")
    assert axis.unit == "us" and not axis.converted
    scaled = parse_axis("L_M=0.2us:0.8us:0.2us", scale=Fraction(1000))
    assert scaled.converted and scaled.values.tolist() == [200.0, 400.0, 600.0, 800.0]
    with pytest.raises(errors.UsageError, match="the numbers are in several units"):
        parse_axis("L_M=200ns,0.3us")
    with pytest.raises(errors.UsageError, match="the numbers are in several units"):
        parse_axis("L_M=0.2us:800:log4")


def test_csv_cells_are_the_shortest_text_that_reads_back_as_the_same_double(cli, tmp_path):  # type: ignore[no-untyped-def]
    # before: 0.10000000000000001 and 58.362499999999997 (17 significant digits)
    code, _, err = cli("sweep", "volkov_2016", "memory_throughput", "-p", "maxwell", "-s", "n=10",
                       "-g", "alpha=0.1:0.3:0.1", "-o", tmp_path / "v.csv")
    assert code == 0, err
    volkov = symgpu.load("volkov_2016")
    _, rows = _rows(tmp_path / "v.csv")
    for row, alpha in zip(rows, (Fraction(1, 10), Fraction(2, 10), Fraction(3, 10))):
        assert row[0] == repr(float(alpha))  # "0.1", "0.2", "0.3"
        value = float(volkov.evaluate("memory_throughput", "maxwell", values={"n": 10, "alpha": float(alpha)}).magnitude)
        assert float(row[1]) == value and row[1] == repr(value)  # the same double, in its shortest text
    code, _, err = cli("sweep", *KS, "-g", "blocks=10,1000", "-o", tmp_path / "whole.csv")
    assert code == 0, err
    assert [r[0] for r in _rows(tmp_path / "whole.csv")[1]] == ["10", "1000"]  # a column of whole numbers without .0


def test_a_quantity_whose_regimes_live_in_the_one_it_reads_gets_their_regime_column(cli, tmp_path):  # type: ignore[no-untyped-def]
    # before: sweep kernel_streaming t_kernel wrote no regime column (t_kernel = t_launch + t_body, t_body a Max)
    code, _, err = cli("sweep", *KS, "-g", "blocks=10,1000", "-o", tmp_path / "r.csv")
    assert code == 0, err
    header, rows = _rows(tmp_path / "r.csv")
    assert header[-1] == "regime"
    ks = symgpu.load("kernel_streaming")
    point = {"elements": 1e6, "operands": 3, "inflight_per_thread": 48, "threads_per_block": 128}
    for row in rows:  # brute force: the larger of t_body's two limiters, each evaluated by the model
        at = dict(point, blocks=float(row[0]))
        memory = ks.evaluate("t_memory", "a100_pcie_40gb+neusight_fit", values=at).to("us").magnitude
        latency = ks.evaluate("t_latency", "a100_pcie_40gb+neusight_fit", values=at).to("us").magnitude
        assert memory != latency
        assert row[-1] == ("memory_bound" if memory > latency else "latency_bound")


VOLKOV = ["volkov_2016", "memory_throughput", "-p", "maxwell", "-s", "alpha=1"]


def test_an_axis_in_threads_or_nanoseconds_is_moved_across_the_warp_size_and_the_clock_as_set_is(cli, tmp_path):  # type: ignore[no-untyped-def]
    # before: "--grid 'n=32thread/SM:...': its dimension is not the symbol's" (n in warp/SM) and the same for a time axis of
    # mem_lat (cycles), where --set moves both across the warp size and the clock
    code, _, err = cli("sweep", *VOLKOV, "-g", "n=32thread/SM:2048thread/SM:672thread/SM", "-g", "mem_lat=200ns:300ns:100ns",
                       "-o", tmp_path / "moved.csv")
    assert code == 0, err
    assert "--grid 'n=32thread/SM:2048thread/SM:672thread/SM': thread/SM moved to warp/SM at warp size" in err
    assert "--grid 'mem_lat=200ns:300ns:100ns': ns moved to cycle at clock 1.266 GHz (clock of preset maxwell)" in err
    header, rows = _rows(tmp_path / "moved.csv")
    assert header[:2] == ["n [warp/SM]", "mem_lat [cycle]"]
    clock = Fraction("1.266")  # GHz, maxwell's clock: cycles = ns x GHz, exactly, rounded once
    assert sorted({float(r[0]) for r in rows}) == [1.0, 22.0, 43.0, 64.0]  # 32, 704, 1376, 2048 threads over 32 a warp
    assert sorted({float(r[1]) for r in rows}) == [float(200 * clock), float(300 * clock)]
    model = symgpu.load("volkov_2016")
    for n, mem_lat, value, _ in rows:  # each point the model's value there, given in the declared units
        given = {"alpha": 1, "n": float(n), "mem_lat": float(mem_lat)}
        assert float(value) == model.evaluate("memory_throughput", "maxwell", values=given).magnitude


def test_an_axis_moved_across_a_rate_that_is_swept_or_unknown_is_refused(cli, tmp_path):  # type: ignore[no-untyped-def]
    code, out, err = cli("sweep", *VOLKOV, "-s", "n=20", "-g", "mem_lat=200ns:300ns:50ns", "-g", "clock=1:2:1", "-o", tmp_path / "x.csv")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "needs the clock clock, which is swept too" in err and "give the axis in cycle" in err
    code, out, err = cli("sweep", "volkov_2016", "memory_throughput", "-s", "alpha=1", "-s", "n=20", "-g", "mem_lat=200ns:300ns:50ns",
                         "-o", tmp_path / "x.csv")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "needs a clock: give a preset with clock or --set 'clock=1.3 GHz'" in err
    assert not (tmp_path / "x.csv").exists()
