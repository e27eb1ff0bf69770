"""The API's arguments of the wrong type are symgpu's one-line refusal naming the argument, what was given and what
is expected, and a ``substitute`` value is read in its symbol's unit as the command line's ``--substitute`` is (an
outside tester's findings, round 14a, F4 and F10)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import symgpu
from symgpu import derive, errors


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


@pytest.mark.parametrize("call, argument", [
    (lambda v: v.evaluate("memory_throughput", 3, values={"n": 1, "alpha": 1}), "preset=3"),
    (lambda v: v.evaluate(None, "maxwell", values={"n": 1, "alpha": 1}), "name=None"),
    (lambda v: v.evaluate("memory_throughput", "maxwell", values="n=1"), "values='n=1'"),
    (lambda v: v.solve("n_needed", for_="alpha", target=40, substitute="alu_thru=issue_thru"), "substitute='alu_thru=issue_thru'"),
    (lambda v: v.solve("n_needed", for_="alpha", target=40, preset=["maxwell"]), "preset=['maxwell']"),
    (lambda v: v.extremum("n_needed", over=3), "over=3"),
    (lambda v: v.solve("n_needed", for_="alpha", target=40, stop_at=3), "stop_at=3"),
    (lambda v: v.boundary("memory_throughput", "latency_bound,memory_bound", for_="n"), "between='latency_bound,memory_bound'"),
])
def test_an_argument_of_the_wrong_type_is_a_usage_error_naming_it_and_what_is_expected(volkov, call, argument):
    # before: AttributeError 'int' object has no attribute 'split', ValueError "dictionary update sequence", a between
    # text read as its characters ['l', 'a', 't', ...]
    with pytest.raises(errors.ArgumentTypeError) as raised:
        call(volkov)
    message = str(raised.value)
    assert isinstance(raised.value, errors.UsageError) and isinstance(raised.value, TypeError)
    assert message.startswith(f"volkov_2016: {argument}: ") and "is expected" in message and "\n" not in message


def test_a_between_text_is_refused_with_the_tuple_to_write_instead(volkov):
    with pytest.raises(errors.ArgumentTypeError, match=r"write between=\('latency_bound', 'memory_bound'\)"):
        volkov.boundary("memory_throughput", "latency_bound, memory_bound", for_="n")


def test_solving_a_quantity_for_itself_is_refused_not_answered_with_its_relation(volkov):
    # before: the result was the Boolean Eq(40, ...) & ... with unit warp/SM
    with pytest.raises(errors.UsageError, match="the variable is the quantity itself"):
        volkov.solve("n_needed", for_="n_needed", target=40)


def test_expression_reads_a_lone_stop_at_text_as_one_quantity_not_ignored(volkov):
    kept = volkov.symbol("memory_throughput")
    assert volkov.expression("arithmetic_throughput", stop_at="memory_throughput").has(kept)
    assert volkov.expression("arithmetic_throughput", stop_at="memory_throughput") == \
        volkov.expression("arithmetic_throughput", stop_at=("memory_throughput",))


def _memory_root(preset: dict, mem_lat_cycles: Fraction) -> Fraction:
    """alpha where n_needed = (mem_lat + alpha*alu_lat)*mem_thru reaches 40 (the memory-bound regime), by hand."""
    mem_thru, alu_lat = Fraction(str(preset["mem_thru"].magnitude)), Fraction(str(preset["alu_lat"].magnitude))
    return (40 - mem_lat_cycles * mem_thru) / (alu_lat * mem_thru)


@pytest.mark.parametrize("preset_id", ["maxwell", "kepler"])
def test_a_time_substituted_for_a_symbol_in_cycles_is_moved_across_each_presets_clock(volkov, preset_id):
    # before: substitute={"mem_lat": "250 ns"} was refused as an expression ("cannot parse '250 ns'")
    answer = volkov.solve("n_needed", for_="alpha", target=40, preset="maxwell", substitute={"mem_lat": "250 ns"})
    preset = volkov.preset(preset_id)
    cycles = Fraction(250) * Fraction(str(preset["clock"].to("GHz").magnitude))  # 250 ns at the preset's clock
    roots = np.atleast_1d(derive.evaluate_result(volkov, answer, preset_id).magnitude)
    assert len(roots) > 0
    assert min(abs(roots - float(_memory_root(preset, cycles)))) < 1e-9
    for root in roots:  # brute force: the model itself reaches the target there
        reached = volkov.evaluate("n_needed", preset_id, values={"alpha": float(root), "mem_lat": float(cycles)})
        assert reached.magnitude == pytest.approx(40, rel=1e-12)


def test_a_bare_number_substitute_is_read_in_the_symbols_declared_unit(volkov):
    # before: {"mem_lat": 368} (cycles) was a pure number and the solve "dimensionally inconsistent"; {"L_M": 330} (ns)
    # blamed "the model's equations or the request"
    answer = volkov.solve("n_needed", for_="alpha", target=40, preset="maxwell", substitute={"mem_lat": 368})
    roots = sorted(np.atleast_1d(derive.evaluate_result(volkov, answer, "maxwell").magnitude))
    hand_memory = _memory_root(volkov.preset("maxwell"), Fraction(368))  # 20.5667...
    hand_issue = Fraction(4 * 368 - 40, 4 * 6 - 40) * -1  # (issue_thru*mem_lat - 40)/(40 - alu_lat*issue_thru) = 89.5
    assert roots == pytest.approx([float(hand_memory), float(hand_issue)], rel=1e-12)
    ks = symgpu.load("kernel_streaming")
    point = {"operands": 3, "blocks": 4224, "threads_per_block": 256, "inflight_per_thread": 16}
    as_number = ks.solve("t_kernel", for_="elements", target=100, preset="h100_sxm+neusight_fit", values=point, substitute={"L_M": 330})
    as_text = ks.solve("t_kernel", for_="elements", target=100, preset="h100_sxm+neusight_fit", values=point, substitute={"L_M": "0.33 us"})
    # memory-bound: elements = (t_kernel - t_launch)*eta_M*Theta_M/(operands*elem_size), by hand from the preset's inputs
    h = ks.preset("h100_sxm+neusight_fit")
    hand = (Fraction(100) - Fraction(str(h["t_launch"].to("us").magnitude))) * Fraction(str(h["eta_M"].magnitude)) \
        * Fraction(str(h["Theta_M"].to("B/us").magnitude)) / (3 * Fraction(str(h["elem_size"].to("B").magnitude)))
    for answer in (as_number, as_text):
        valued = derive.evaluate_result(ks, answer, "h100_sxm+neusight_fit", **point).magnitude
        assert min(abs(np.atleast_1d(valued) - float(hand))) <= 1e-12 * float(hand)


def test_a_substitute_of_another_dimension_is_refused_naming_the_symbols_unit(volkov):
    with pytest.raises(errors.UsageError, match=r"substitute mem_lat='3 GB': mem_lat is in cycle"):
        volkov.solve("n_needed", for_="alpha", target=40, preset="maxwell", substitute={"mem_lat": "3 GB"})


def test_the_command_lines_bare_number_substitute_for_a_symbol_in_cycles_is_answered(cli):  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "40", "--preset", "maxwell",
                         "--substitute", "mem_lat=368")
    assert code == 0, err
    # hand: memory root (40 - 368*0.0814)/(6*0.0814) = 20.56674857, issue root (4*368 - 40)/(4*6 - 40)*-1 = 89.5
    assert "value: 20.56674857 (memory_bound), 89.5 (issue_bound)" in out


def test_a_time_value_for_a_symbol_in_cycles_is_moved_across_the_presets_clock(volkov):
    # before: "mem_lat = 250 ns has dimension [time], but mem_lat is [clock]" where the command line's --set converts
    clock_ghz = Fraction(str(volkov.preset("maxwell")["clock"].to("GHz").magnitude))
    latency = Fraction(250) * clock_ghz + 1 * Fraction(str(volkov.preset("maxwell")["alu_lat"].magnitude))  # cycles, alpha = 1
    hand = Fraction(20) / latency  # n/Latency, below mem_thru, alu_thru/alpha and issue_thru/(alpha + 1) here
    got = volkov.evaluate("memory_throughput", "maxwell", values={"n": 20, "alpha": 1, "mem_lat": "250 ns"})
    assert got.magnitude == pytest.approx(float(hand), rel=1e-14)


def test_the_answers_unit_is_given_as_the_command_lines_unit_across_the_clock(volkov):
    maxwell = volkov.preset("maxwell")
    cycles = Fraction(str(maxwell["mem_lat"].magnitude)) + Fraction(str(maxwell["alu_lat"].magnitude))  # Latency at alpha = 1
    in_ns = volkov.evaluate("Latency", "maxwell", values={"alpha": 1}, unit="ns")
    assert str(in_ns.units) == "ns"
    assert in_ns.magnitude == pytest.approx(float(cycles / Fraction(str(maxwell["clock"].to("GHz").magnitude))), rel=1e-14)
    assert volkov.evaluate("Latency", "maxwell", values={"alpha": 1}, unit="kcycle").magnitude == pytest.approx(float(cycles / 1000))
    with pytest.raises(errors.UsageError, match=r"unit='GB': Latency is in cycle"):
        volkov.evaluate("Latency", "maxwell", values={"alpha": 1}, unit="GB")


def test_the_answers_unit_moves_across_the_warp_size_and_the_sm_count_as_the_command_lines_unit(volkov, ia, cli):
    # before: evaluate(..., unit="thread/SM") of a per-GPU quantity, and unit="warp/SM" of one in thread/SM, were refused
    # ("give a unit of that dimension") where eval --unit gives them at the model's SM count and warp size
    p_k0 = Fraction(672) * Fraction("320.3") / (Fraction("1.73") * 128)  # 672 cycles x 320.3 GB/s / (1.73 GHz x 128 B)
    asked = {"P_K0": {"thread/SM": p_k0 / 20, "warp/SM": p_k0 / 20 / 32},
             "Q_K0": {"warp/SM": Fraction(672) / (Fraction(32, 64) + Fraction(256, 128)) / 32}}
    for quantity, wanted in asked.items():
        for unit, hand in wanted.items():
            got = ia.evaluate(quantity, "gtx1080", M=16, N=16, unit=unit)
            assert got.units == symgpu.units.unit(unit) and got.magnitude == pytest.approx(float(hand), rel=1e-14)
            code, out, _ = cli("eval", "interval_analysis", quantity, "--preset", "gtx1080", "--set", "M=16", "--set", "N=16",
                               "--unit", unit)
            assert code == 0 and float(out.split("=")[1].split()[0]) == pytest.approx(float(hand), rel=1e-9)
    kepler = volkov.preset("kepler")  # per SM per cycle to per GPU per microsecond: the SM count and the clock together
    per_sm = volkov.evaluate("memory_throughput", "kepler", n=32, alpha=4).magnitude
    chip = volkov.evaluate("memory_throughput", "kepler", n=32, alpha=4, unit="winst/us").magnitude
    assert chip == pytest.approx(per_sm * kepler["SMs"].magnitude * kepler["clock"].to("MHz").magnitude, rel=1e-14)
    with pytest.raises(errors.UsageError, match=r"needs the SM count SMs, which has no value here"):
        ia.evaluate("P_K0", M=16, N=16, L_M=400, Theta_M=320, phi=1.7, unit="thread/SM")
    with pytest.raises(errors.UsageError, match=r"unit='s': P_K0 is in thread"):
        ia.evaluate("P_K0", "gtx1080", M=16, N=16, unit="s")
    # a rate swept as an array is divided out element by element (it raised TypeError)
    swept = ia.evaluate("P_K0", "gtx1080", M=16, N=16, SMs=np.array([10, 20]), unit="thread/SM").magnitude
    assert swept == pytest.approx([float(p_k0 / 10), float(p_k0 / 20)], rel=1e-14)
    clocked = ia.evaluate("L_K0_time", "gtx1080", M=16, N=16, phi=np.array([1.0, 2.0]), unit="cycle").magnitude
    assert clocked == pytest.approx([672, 672], rel=1e-14)


def test_a_time_value_for_a_symbol_in_cycles_is_moved_across_the_clock_by_every_question_of_the_api(volkov):
    # before: solve/extremum/limit/... refused values={"mem_lat": "250 ns"} ("has dimension [time], but mem_lat is
    # [clock]") where evaluate and the command line's --set move it across the preset's clock
    maxwell = volkov.preset("maxwell")
    cycles = Fraction(250) * Fraction(str(maxwell["clock"].to("GHz").magnitude))
    solved = volkov.solve("n_needed", for_="alpha", target=40, preset="maxwell", values={"mem_lat": "250 ns"})
    roots = [v.value for v in solved.extra.values_at or ()]
    assert min(abs(r - float(_memory_root(maxwell, cycles))) for r in roots) < 1e-9
    for root in roots:  # brute force: the model reaches the target there
        assert volkov.evaluate("n_needed", "maxwell", values={"alpha": root, "mem_lat": float(cycles)}).magnitude == pytest.approx(40, rel=1e-12)
    asked = [(volkov.extremum, ("n_needed",), {"over": "alpha"}, {}),
             (volkov.limit, ("memory_throughput", "n", "oo"), {}, {"alpha": 1}),
             (volkov.regimes, ("memory_throughput",), {"over": "n"}, {"alpha": 1}),
             (volkov.boundary, ("memory_throughput", ("latency_bound", "memory_bound")), {"for_": "n"}, {"alpha": 1})]
    for method, args, keywords, point in asked:  # each the same as the question given the value in cycles
        in_time = method(*args, **keywords, preset="maxwell", values={**point, "mem_lat": "250 ns"})
        in_cycles = method(*args, **keywords, preset="maxwell", values={**point, "mem_lat": float(cycles)})
        assert (in_time.extra.value_at, in_time.extra.values_at) == (in_cycles.extra.value_at, in_cycles.extra.values_at), method.__name__
        assert in_time.result == in_cycles.result
