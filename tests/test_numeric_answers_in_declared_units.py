"""A numeric search's answer (a grid extremum, a fixed point found numerically) is a number in the
declared unit of its quantity, as printed; its value (the command line's ``value:`` line, ``--json``,
``--unit``, :func:`symgpu.derive.evaluate_result`) is that number in that unit, not the number read
back as the base unit (an outside tester's finding: ``31.68 [us]`` shown as ``value: 31680000 us``,
``7042 GFLOP/s`` as ``7.04e-06 GFLOP/s``). And ``Model.extremum`` takes the ``grid=`` its staircase
refusal names (it was a TypeError).

Expected values by hand from ``tests/fixtures/grid_units.toml`` at preset ``toy`` (per_wave = 4,
t_wave = 2.5 us, bytes_per_item = 10 kB, flop_per_item = 3 MFLOP, smem_total = 64 KiB):
t_total = ceiling(n/4)*2.5 us; bw = n*10 kB/t_total; rate = n*3 MFLOP/t_total; waves = ceiling(n/4);
t_smem = ceiling(smem/(64 KiB)*4)*2.5 us.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import symgpu
from symgpu import derive, errors
from tests.conftest import FIXTURES

PATH = FIXTURES / "grid_units.toml"

#: (quantity, over, grid, kind, value, its unit, locations in the variable's unit)
CASES = [
    # n = 9, 10: 3 waves of 2.5 us
    ("t_total", "n", "1:10", "max", Fraction(15, 2), "us", (9, 10)),
    # n = 4: 40 kB / 2.5 us = 16 GB/s; n = 8: 80 kB / 5 us = 16 GB/s (n = 10: 100 kB / 7.5 us = 13.3)
    ("bw", "n", "1:10", "max", Fraction(16), "GB/s", (4, 8)),
    # n = 4: 12 MFLOP / 2.5 us = 4800 GFLOP/s; n = 8: 24 MFLOP / 5 us, the same
    ("rate", "n", "1:10", "max", Fraction(4800), "GFLOP/s", (4, 8)),
    # n = 1: 3 MFLOP / 2.5 us = 1200 GFLOP/s
    ("rate", "n", "1:10", "min", Fraction(1200), "GFLOP/s", (1,)),
    # a base unit: 3 waves at n = 9, 10
    ("waves", "n", "1:10", "max", Fraction(3), "", (9, 10)),
    # smem = 56 KiB: ceiling(3.5) = 4 waves = 10 us; 64 KiB: 4 waves; the location is in KiB too
    ("t_smem", "smem", "8:64:8", "max", Fraction(10), "us", (56, 64)),
]


@pytest.fixture(scope="module")
def model() -> symgpu.Model:
    return symgpu.load(PATH, cache=False)


@pytest.mark.parametrize("quantity, over, grid, kind, value, unit, where", CASES)
def test_a_grid_extremum_is_valued_in_its_declared_unit_through_the_api(model, quantity, over, grid, kind, value, unit, where):
    found = model.extremum(quantity, over=over, kind=kind, preset="toy", grid=grid)
    assert float(found.result) == pytest.approx(float(value), rel=1e-12)  # the printed number, as it was
    shown = derive.evaluate_result(model, found, "toy")
    assert f"{shown.units:~}".replace(" ", "") == unit.replace(" ", "") or (unit == "" and shown.dimensionless)
    assert float(shown.magnitude) == pytest.approx(float(value), rel=1e-12)
    at = derive.evaluate_result(model, found, "toy", which="location")
    assert [float(v) for v in at.magnitude] == pytest.approx(list(where), rel=1e-12)


@pytest.mark.parametrize("quantity, over, grid, kind, value, unit, where", CASES)
def test_a_grid_extremum_is_valued_in_its_declared_unit_on_the_command_line(cli, quantity, over, grid, kind, value, unit, where):
    asked = ("extremum", PATH, quantity, "--over", over, f"--{kind}", "--grid", grid, "--preset", "toy")
    code, out, err = cli(*asked)
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("  value: "))
    said = f"{float(value):.10g}" + (f" {unit}" if unit else "")
    assert line.startswith(f"  value: {said} at {over} = {', '.join(map(str, where))}"), line
    code, out, err = cli(*asked, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["value"] == pytest.approx(float(value), rel=1e-12)
    assert data["location_value"] == pytest.approx(list(where), rel=1e-12)


@pytest.mark.parametrize("quantity, unit, value", [
    ("t_total", "ms", 0.0075),  # 7.5 us
    ("bw", "MB/s", 16000.0),  # 16 GB/s
    ("rate", "TFLOP/s", 4.8),  # 4800 GFLOP/s
])
def test_a_grid_extremum_converts_to_another_unit(cli, quantity, unit, value):
    code, out, err = cli("extremum", PATH, quantity, "--over", "n", "--max", "--grid", "1:10", "--preset", "toy",
                         "--unit", unit, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["value"], data["unit"].replace(" ", "")) == (pytest.approx(value, rel=1e-12), unit)


def test_a_numeric_fixed_point_is_valued_in_its_declared_unit(model, cli):
    # x = 10 kB/(1 us + 1 us*x/(4 GB/s - x)) = 2.5*(4 - x) GB/s (x in GB/s): x = 20/7 GB/s, below the 10 GB/s cap
    found = derive.fixed_point(model, "bw_loaded", "x", preset="toy", method="numeric")
    assert float(found.result) == pytest.approx(20 / 7, rel=1e-12)
    shown = derive.evaluate_result(model, found, "toy")
    assert (float(shown.magnitude), f"{shown.units:~}".replace(" ", "")) == (pytest.approx(20 / 7, rel=1e-12), "GB/s")
    code, out, err = cli("fixed-point", PATH, "bw_loaded", "--var", "x", "--preset", "toy", "--numeric")
    assert code == 0, err
    assert "  value: 2.857142857 GB/s" in out


#: t = Min(a*(b - x)/(c - x), k): x in us, t, a, b, c and k in ns (a fixed point whose variable and quantity differ in unit)
FP_UNITS = FIXTURES / "fp_units.toml"


@pytest.mark.parametrize(("preset", "expected"), [
    # a = b = 1000 ns, c = 2000 ns: x*(c - x) = a*(b - x), in ns x**2 - 3000*x + 10**6 = 0, the root below the pole c:
    # (3000 - sqrt(5*10**6))/2 ns = (3 - sqrt(5))/2 us = 0.3819660113 us, below k = 2000 ns
    ("p", (3 - 5 ** 0.5) / 2),
    # k = 300 ns is below that root: the fixed point is k = 0.3 us
    ("q", 0.3),
])
def test_a_numeric_fixed_point_is_read_in_its_variables_unit_not_its_quantitys(cli, preset, expected):
    # the number is x's (us); it was read in t's unit (ns) for the check (0.000382 us: check failed), and before that
    # the bracket's end, the pole c read at 53 bits, lay past the pole (no bracketed root)
    code, out, err = cli("--no-cache", "fixed-point", FP_UNITS, "t", "--var", "x", "--preset", preset, "--numeric")
    assert code == 0, err
    value = next(line for line in out.splitlines() if line.startswith("  value: ")).split()
    assert (float(value[1]), value[2]) == (pytest.approx(expected, rel=1e-9), "us")
    found = derive.fixed_point(symgpu.load(FP_UNITS, cache=False), "t", "x", preset=preset, method="numeric")
    shown = derive.evaluate_result(symgpu.load(FP_UNITS, cache=False), found, preset)
    assert float(shown.to("us").magnitude) == pytest.approx(expected, rel=1e-12)


def test_the_staircase_refusal_names_the_grid_keyword_and_the_model_takes_it(model):
    with pytest.raises(errors.DerivationError, match=r"API grid=\.\.\."):
        model.extremum("t_total", over="n", kind="max", preset="toy")
    found = model.extremum("t_total", over="n", kind="max", preset="toy", grid="1:10")
    assert tuple(found.location) == (9, 10)


@pytest.mark.parametrize("rewrite", [{"substitute": {"per_wave": 2}}, {"omit": ["cap"]}])
def test_a_grid_extremum_refuses_rewrites_it_would_not_apply(model, rewrite):
    with pytest.raises(errors.UsageError, match=r"extremum over a grid evaluates the model as written .* would not be applied"):
        model.extremum("t_total", over="n", kind="max", preset="toy", grid="1:10", **rewrite)


def test_the_command_line_refuses_omit_with_a_grid(cli):
    code, out, err = cli("extremum", PATH, "bw_loaded", "--over", "x", "--max", "--grid", "1:3", "--preset", "toy", "--omit", "cap")
    assert code == 2 and "--omit" not in out and "omit would not be applied" in err
