"""A number the command line gives for a symbol declared in a scaled unit (an ``--assume`` bound, a ``--substitute``
value, a ``limit --to`` point) is in that unit wherever the derivation puts it (an outside tester's round 11b, F1, F9,
F11, F12): the symbolic location and result, read as written in the declared units, are the answer (they were
SI seconds labelled ns: ``at t_hit = 1/100000000``), a substituted 400 in a product is 400 ns (it was 400 s, and the
check failed), ``--substitute L=0.5 us`` and ``--to '100 block'`` are read, and ``limit --to 100`` for a variable
with a unit is answered. Every expected value is worked out by hand in the comments."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
import sympy

from conftest import assert_one_line_refusal, toy_header
import symgpu
from symgpu import units
from symgpu.model import expressions

#: (name, description, unit, inputs' assumption or "" for an output)
SYMBOLS = (("t_hit", "hit latency", "ns", "positive"), ("t_miss", "miss latency", "ns", "positive"), ("h", "hit rate", "1", "positive"),
           ("inflight", "bytes in flight", "KiB", "positive"), ("L", "memory latency", "ns", "positive"),
           ("blocks", "blocks", "block", "positive"), ("t_block", "time of a block", "us", "positive"),
           ("t_capped", "average latency, capped, plus a floor", "ns", ""), ("bw", "Little's law bandwidth", "GB/s", ""),
           ("t_pw", "time by grid size", "us", ""), ("y", "latency by range", "ns", ""))
#: (equation id, quantity, right-hand side)
EQUATIONS = (("cap", "t_capped", "Min(t_hit*h + t_miss*(1 - h), 300) + Max(t_hit - 20, 0)"), ("little", "bw", "inflight/L"),
             ("grid", "t_pw", "Piecewise((t_block*3, blocks < 100), (t_block*2 + 10, True))"),
             ("range", "y", "Piecewise((2*L, L < 500), (L + 100, True))"))
TOY = (toy_header("scaled_cli", "scaled units from the command line", "latencies in ns, sizes in KiB, times in us")
       + "".join(f'\n[symbols.{name}]\ndescription = "{text}"\nunit = "{unit}"\n'
                 + (f'assumptions = ["{word}"]\n' if word else 'role = "output"\n') for name, text, unit, word in SYMBOLS)
       + "".join(f'\n[[equations]]\nid = "{eq}"\ndefines = "{name}"\nrhs = "{rhs}"\nsource = {{ ref = "toy2026", locator = "Eq. ({i})" }}\n'
                 for i, (eq, name, rhs) in enumerate(EQUATIONS, 1))
       + """
[presets.p]
description = "round numbers"
source = { ref = "toy2026", locator = "Table 1" }
values = { t_hit = "30 ns", t_miss = "0.5 us", h = "0.5", inflight = "64 KiB", L = "450 ns", blocks = "10 block", t_block = "12 us" }
""")

#: t_capped at t_hit = 10 ns, h = 1/2, t_miss = 400 ns, by hand: Min(10/2 + 400/2, 300) + Max(10 - 20, 0) = 205 ns;
#: it rises with t_hit (slope h > 0, then 1 past 20 ns), so it is the minimum over t_hit >= 10
AT_10 = Fraction(205)


def _json(cli, *argv: str) -> dict:
    code, out, err = cli(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


def _as_written(model: symgpu.Model, found: dict, key: str, values: dict[str, Fraction]) -> Fraction:
    """``found[key]`` read as written, each symbol the number of its declared unit (``values``; a constant made of a number
    the number its name says, ``lit_10_ns``: 10 ns, the unit of every latency here), no unit scaling at all: what a reader
    of the answer computes."""
    text = found[key]
    constants = {}
    for name in set(re.findall(r"\blit_\w+", text)):
        match = re.fullmatch(r"lit_([0-9]+(?:p[0-9]+)?)_ns", name)
        assert match, name  # every constant here is a latency in ns, like the answer
        constants[name] = Fraction(match.group(1).replace("p", "."))
    symbols = {name: sympy.Symbol(name) for name in [*model.symbols, *constants]}
    expr = expressions.parse_expression(text, symbols)
    number = expr.xreplace({symbols[n]: sympy.Rational(v.numerator, v.denominator) for n, v in {**values, **constants}.items()})
    assert number.is_Rational, (text, number)
    return Fraction(int(number.p), int(number.q))


def test_an_assumed_end_in_ns_is_the_location_and_result_written_in_ns(cli, write_model):
    # F1: the location was 1/100000000 (10 ns in seconds) and the result 1/100000000-ish under [ns]
    path = write_model(TOY, name="scaled_cli")
    found = _json(cli, "extremum", str(path), "t_capped", "--over", "t_hit", "--min", "-p", "p", "--set", "t_miss=400",
                  "--assume", "t_hit >= 10")
    model = symgpu.load(path)
    point = {"h": Fraction(1, 2), "t_miss": Fraction(400)}
    assert _as_written(model, found, "location", point) == 10
    assert _as_written(model, found, "result", point) == AT_10
    assert found["value"] == pytest.approx(float(AT_10), rel=1e-12)


def test_an_assumed_end_in_ns_without_a_point_is_written_in_ns(cli, write_model):
    # F1 without a point: y = L + 100 ns from L = 500 ns on rises with L, so over L >= 600 its minimum is at 600 ns,
    # 600 + 100 = 700 ns (the end was written in seconds, or refused as having no closed form)
    path = write_model(TOY, name="scaled_cli")
    found = _json(cli, "extremum", str(path), "y", "--over", "L", "--min", "--assume", "L >= 600")
    assert _as_written(symgpu.load(path), found, "location", {}) == 600
    assert _as_written(symgpu.load(path), found, "result", {}) == 700


@pytest.mark.parametrize("given", ["t_miss=400", "t_miss=0.4 us"])
def test_a_substituted_latency_in_a_product_is_in_ns(cli, write_model, given):
    # F11: t_miss*(1 - h) with t_miss = 400 was 400 s, and the check failed (it claimed the cap, 300)
    path = write_model(TOY, name="scaled_cli")
    found = _json(cli, "extremum", str(path), "t_capped", "--over", "t_hit", "--min", "-p", "p", "--substitute", given,
                  "--assume", "t_hit >= 10")
    assert found["value"] == pytest.approx(float(AT_10), rel=1e-12)
    assert _as_written(symgpu.load(path), found, "result", {"h": Fraction(1, 2)}) == AT_10


@pytest.mark.parametrize("given", ["L=500", "L=0.5 us", "L=500000 ps"])
def test_a_substituted_latency_divides_in_ns(cli, write_model, given):
    # F12: inflight = 100 GB/s * 500 ns = 50000 B = 50000/1024 KiB (it was refused as inconsistent; '500 ns' unreadable)
    path = write_model(TOY, name="scaled_cli")
    found = _json(cli, "solve", str(path), "bw", "--for", "inflight", "--target", "100 GB/s", "-p", "p", "--substitute", given)
    assert found["value"] == pytest.approx(50000 / 1024, rel=1e-12)


def test_a_substituted_value_of_another_dimension_is_refused_in_one_line(cli, write_model):
    path = write_model(TOY, name="scaled_cli")
    code, out, err = cli("solve", str(path), "bw", "--for", "inflight", "--target", "100 GB/s", "-p", "p",
                         "--substitute", "L=0.5 GB")
    assert_one_line_refusal(code, out, err, "--substitute 'L=0.5 GB'", "[information]", "ns")


@pytest.mark.parametrize("to, direction, expected", [
    ("100", "-", 3 * 12),              # F9: blocks < 100 from below: 3*t_block = 36 us
    ("100 block", "+", 2 * 12 + 10),   # from above: 2*t_block + 10 us = 34 us
])
def test_a_limit_to_a_number_of_blocks(cli, write_model, to, direction, expected):
    path = write_model(TOY, name="scaled_cli")
    found = _json(cli, "limit", str(path), "t_pw", "--var", "blocks", "--to", to, f"--dir={direction}", "-p", "p")
    assert found["value"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("to, direction, expected", [
    ("500", "-", 2 * 500),       # L < 500 ns from below: 2*L = 1000 ns
    ("0.5 us", "+", 500 + 100),  # from above: L + 100 = 600 ns
])
def test_a_limit_to_a_latency_in_ns(cli, write_model, to, direction, expected):
    path = write_model(TOY, name="scaled_cli")
    found = _json(cli, "limit", str(path), "y", "--var", "L", "--to", to, f"--dir={direction}", "-p", "p")
    assert found["value"] == pytest.approx(expected, rel=1e-12)


def test_the_loaded_model_is_not_given_the_request_constants(cli, write_model):
    # the constant of a request lives on the request's copy: the model loaded once and shared keeps its constants
    path = write_model(TOY, name="scaled_cli")
    before = set(symgpu.load(path).symbols)
    _json(cli, "solve", str(path), "bw", "--for", "inflight", "--target", "100 GB/s", "-p", "p", "--substitute", "L=500")
    assert set(symgpu.load(path).symbols) == before


def test_a_number_with_a_unit_written_as_a_fraction_is_read_exactly(cli, write_model):
    # '1000/3 ns' is 1000/3 exactly (it was the double 333.33333333333331 read as its decimal); '1/3 us' is 1000/3 ns
    path = write_model(TOY, name="scaled_cli")
    found = _json(cli, "solve", str(path), "y", "--for", "L", "--target", "1000/3 ns")
    assert found["extra"]["target_value"] == {"y": "1000/3"}
    found = _json(cli, "solve", str(path), "y", "--for", "L", "--target", "1/3 us")
    assert found["extra"]["target_value"] == {"y": "1000/3"}
    assert units.exact_magnitude("128/3 warp/SM", "warp/SM") == Fraction(128, 3)
    assert units.exact_magnitude("(1/3) us", "ns") == Fraction(1000, 3)


def test_a_limit_point_written_as_a_fraction_with_a_unit_is_that_fraction(cli):
    # --to '128/3 warp/SM': n -> 128/3, kept as the constant 128 warp/SM over 3 (it was lit_42p666666666666664_warp_per_SM)
    found = _json(cli, "limit", "volkov_2016", "arithmetic_throughput", "--var", "n", "--to", "128/3 warp/SM")
    assert "lit_128_warp_per_SM/(3*(alpha*alu_lat + mem_lat))" in found["result"], found["result"]
    assert "p666" not in json.dumps(found)


#: a cap and a floor written with bare numbers in ns (constants lit_200_ns, lit_50_ns of the model)
CAPPED = (toy_header("capped", "capped latency", "a cap and a floor in ns")
          + '\n[symbols.L]\ndescription = "latency"\nunit = "ns"\nassumptions = ["positive"]\n'
          + '\n[symbols.y]\ndescription = "capped"\nunit = "ns"\nrole = "output"\n'
          + '\n[symbols.z]\ndescription = "floored"\nunit = "ns"\nrole = "output"\n'
          + '\n[[equations]]\nid = "cap"\ndefines = "y"\nrhs = "Min(L, 200)"\nsource = { ref = "toy2026", locator = "1" }\n'
          + '\n[[equations]]\nid = "floor"\ndefines = "z"\nrhs = "Max(L, 50)"\nsource = { ref = "toy2026", locator = "2" }\n'
          + '\n[presets.p]\ndescription = "p"\nsource = { ref = "toy2026", locator = "p" }\nvalues = { L = "450 ns" }\n')


@pytest.mark.parametrize("quantity, to, expected", [
    ("y", "500", Fraction(200)),       # Min(500 ns, 200 ns) = 200 ns: it stayed Min(lit_200_ns, lit_500_ns)
    ("y", "0.1 us", Fraction(100)),    # Min(100 ns, 200 ns) = 100 ns
    ("z", "0.5 us", Fraction(500)),    # Max(500 ns, 50 ns) = 500 ns
    ("z", "20", Fraction(50)),         # Max(20 ns, 50 ns) = 50 ns
])
def test_a_min_or_max_of_constants_of_known_value_is_folded_by_their_values(cli, write_model, quantity, to, expected):
    path = write_model(CAPPED, name="capped")
    found = _json(cli, "limit", str(path), quantity, "--var", "L", "--to", to, "-p", "p")
    assert "Min" not in found["result"] and "Max" not in found["result"], found["result"]
    assert _as_written(symgpu.load(path), found, "result", {}) == expected
    assert found["value"] == pytest.approx(float(expected), rel=1e-12)
    # brute force over the evaluate path: the quantity at the point itself (continuous there) is the same number
    assert symgpu.load(path).evaluate(quantity, values={"L": float(Fraction(to.split()[0]) * (1000 if "us" in to else 1))}).magnitude \
        == pytest.approx(float(expected), rel=1e-12)
