"""The questions corpus, one question (or more) per bundled model, asked through the CLI as a
researcher would: a closed form solved for a quantity, a regime boundary, a limit, a cusp, a
value with units. Each answer is computed independently here, by hand from the paper's
formula written out in the test or by brute force over ``evaluate``, and the default output
must stay readable (no line over 200 characters, a bounded size)."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu

from conftest import assert_readable

HK = "gtx280+tiled_matmul"


def preset(model_id: str, name: str, unit: str, preset_id: str) -> float:
    """A preset value in ``unit`` (the paper's number)."""
    return symgpu.load(model_id).preset(preset_id)[name].to(unit).magnitude


def shown_value(out: str) -> tuple[list[float], str]:
    """The numbers and unit of the summary's ``value:`` line."""
    line = next(line for line in out.splitlines() if line.strip().startswith("value:"))
    text = line.split("value:", 1)[1].split("(preset")[0].split(" at ")[0].strip()
    if text.startswith("["):
        numbers, unit = text[1:text.index("]")], text[text.index("]") + 1:].strip()
        return [float(x) for x in numbers.split(",")], unit
    number, _, unit = text.partition(" ")
    return [float(number)], unit.strip()


def ask(cli, *argv: str) -> tuple[list[float], str, str]:
    code, out, err = cli(*argv)
    assert code == 0, err
    assert_readable(out)
    numbers, unit = shown_value(out)
    return numbers, unit, out


def test_agarwal_knee_where_utilization_saturates(cli):
    # Saavedra-Barrera: utilization = min(R/(C+R), R*n/(C+L+R)); the two meet at n = (C+L+R)/(C+R)
    numbers, unit, out = ask(cli, "boundary", "prior_agarwal", "utilization", "--for", "n", "--preset", "g80", "--set", "alpha=16")
    R = preset("prior_agarwal", "instruction_time", "cycle*SM/winst", "g80") * (16 + 1)
    L = preset("prior_agarwal", "mem_lat", "cycle", "g80")
    C = preset("prior_agarwal", "C", "cycle", "g80")
    assert unit == "warp/SM" and numbers[0] == pytest.approx((C + L + R) / (C + R), rel=1e-9)


def test_cuda_guide_warps_needed_is_the_knee_of_its_throughput(cli):
    numbers, unit, _ = ask(cli, "boundary", "prior_cuda_guide", "memory_throughput", "--for", "n", "--preset", "guide", "--set", "alpha=10")
    # the guide's rule: latency / (alpha * instruction time) = 600 / (10 * 4)
    hand = preset("prior_cuda_guide", "mem_lat", "cycle", "guide") / (10 * preset("prior_cuda_guide", "instruction_time", "cycle*SM/winst", "guide"))
    assert unit == "warp/SM" and numbers[0] == pytest.approx(hand, rel=1e-9) and hand == pytest.approx(15)


def test_huang_gto_ipc_at_infinite_alpha_tends_to_alu_lat_over_alu_lat_minus_one(cli):
    numbers, unit, out = ask(cli, "limit", "prior_huang", "IPC_gto_alpha_inf", "--var", "n", "--to", "oo", "--preset", "fermi",
                             "--assume", "alu_lat > 1")
    alu_lat = preset("prior_huang", "alu_lat", "cycle", "fermi")
    assert "alu_lat/(alu_lat - 1)" in out and numbers[0] == pytest.approx(alu_lat / (alu_lat - 1), rel=1e-9)  # 10 digits shown


def test_huang_gto_limit_without_an_assumption_says_what_to_assume(cli):
    code, _, err = cli("limit", "prior_huang", "IPC_gto_alpha_inf", "--var", "n", "--to", "oo")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "internal error" not in err
    assert "--assume" in err


def test_zhang_owens_arithmetic_latency_is_hidden_from_alu_lat_times_alu_thru_warps(cli):
    numbers, unit, _ = ask(cli, "boundary", "prior_zhang_owens", "arithmetic_time", "--for", "n", "--preset", "kepler")
    hand = preset("prior_zhang_owens", "alu_lat", "cycle", "kepler") * preset("prior_zhang_owens", "alu_thru", "winst/cycle/SM", "kepler")
    assert unit == "warp/SM" and numbers[0] == pytest.approx(hand, rel=1e-9) and hand == pytest.approx(36)


def test_mdm_memory_divergence_starts_when_the_warps_fill_the_mshrs(cli):
    numbers, unit, out = ask(cli, "boundary", "mdm_2019", "S_NoC", "--for", "W", "--between", "md", "nmd", "--preset", "table1",
                             "--set", "M_Read=4")
    hand = preset("mdm_2019", "MSHRs", "req/SM", "table1") / 4  # M_Read * W = #MSHRs (Eq. 5)
    assert "MSHRs/M_Read" in out and unit == "warp/SM" and numbers[0] == pytest.approx(hand, rel=1e-9)


def test_perez_piccoli_one_sm_throughput_for_sixteen_sms(cli):
    numbers, unit, out = ask(cli, "solve", "perez_piccoli", "SM_count", "--for", "Cp_OneAll", "--target", "16", "--preset", "gts250")
    hand = preset("perez_piccoli", "Cp_AllAll", "GFLOP/s", "gts250") / 16  # ||SM|| = Cp_All-All / Cp_One-All
    assert unit == "GFLOP/s" and numbers[0] == pytest.approx(hand, rel=1e-9)


def test_interval_analysis_square_kernel_size_for_a_thousand_threads(cli):
    numbers, unit, _ = ask(cli, "solve", "interval_analysis", "P_K0", "--for", "N", "--target", "1000", "--preset", "gtx1080",
                           "--substitute", "M=N")
    ia = symgpu.load("interval_analysis")
    assert len(numbers) == 2
    for n in numbers:  # brute force: each root put back gives 1000 threads
        assert ia.evaluate("P_K0", "gtx1080", M=n, N=n).to("thread").magnitude == pytest.approx(1000, rel=1e-9)


def test_hong_kim_departure_delay_for_a_given_memory_latency(cli):
    values = {"Departure_del_uncoal": 10, "Uncoal_per_mw": 2, "Coal_Mem_insts": 1, "Uncoal_Mem_insts": 3}
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v}")]
    numbers, unit, _ = ask(cli, "solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "500", *sets)
    # by hand (Eq. 11-13): Mem_L = (Mem_LD*C + (Mem_LD + (U_per_mw - 1)*D)*U) / (C + U)
    hand = (500 * 4 - (2 - 1) * 10 * 3) / 4
    assert unit == "cycle" and numbers[0] == pytest.approx(hand, rel=1e-9)
    hk = symgpu.load("hong_kim_2009")
    assert hk.evaluate("Mem_L", None, values={**values, "Mem_LD": numbers[0]}).to("cycle").magnitude == pytest.approx(500)


def test_hong_kim_intended_total_time_in_milliseconds(cli):
    code, out, err = cli("eval", "hong_kim_2009_intended", "Exec_cycles_app", "--preset", HK, "--set", "Active_blocks_per_SM=2",
                         "--unit", "ms")
    assert code == 0, err
    model = symgpu.load("hong_kim_2009_intended")
    cycles = model.evaluate("Exec_cycles_app", HK, values={"Active_blocks_per_SM": 2}).to("cycle").magnitude
    assert float(out.split("=")[1].split()[0]) == pytest.approx(cycles / model.preset(HK)["Freq"].to("Hz").magnitude * 1e3, rel=1e-9)


def unimodal_max(f, lo: float, hi: float) -> tuple[float, float]:
    """Location and value of the maximum of a unimodal ``f`` on [lo, hi] (ternary search)."""
    for _ in range(200):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if f(a) < f(b):
            lo = a
        else:
            hi = b
    return (lo + hi) / 2, f((lo + hi) / 2)


@pytest.mark.parametrize("model_id, preset_id", [("volkov_2016", "kepler"), ("volkov_2016_ilp", "maxwell")])
def test_volkov_warps_needed_peak_at_the_cusp(cli, model_id, preset_id):
    numbers, unit, out = ask(cli, "extremum", model_id, "n_needed", "--over", "alpha", "--max", "--preset", preset_id)
    model = symgpu.load(model_id)
    grid = np.linspace(0.5, 400, 4000)
    dense = model.evaluate("n_needed", preset_id, alpha=grid).to("warp/SM").magnitude
    start = grid[int(np.argmax(dense))]
    where, top = unimodal_max(lambda a: float(model.evaluate("n_needed", preset_id, alpha=a).to("warp/SM").magnitude),
                              start - 1, start + 1)
    assert unit == "warp/SM" and numbers[0] == pytest.approx(top, rel=1e-9)
    location = float(out.split(" at alpha = ")[1].split()[0])
    assert location == pytest.approx(where, rel=1e-6)


def test_occupancy_best_block_size_on_ampere(cli):
    code, out, err = cli("extremum", "occupancy", "active_warps_per_SM", "--over", "threads_per_block", "--max", "--grid", "32:1024:32",
                         "--preset", "cc_8_6", "--set", "regs_per_thread=40", "--set", "smem_per_block=4 KiB/block")
    assert code == 0, err
    assert_readable(out)
    occ = symgpu.load("occupancy")
    sizes = np.arange(32, 1025, 32)
    warps = [occ.evaluate("active_warps_per_SM", "cc_8_6", threads_per_block=int(t), regs_per_thread=40,
                          smem_per_block="4 KiB/block").to("warp/SM").magnitude for t in sizes]
    numbers, unit = shown_value(out)
    assert numbers[0] == pytest.approx(max(warps)) and unit == "warp/SM"
    shown = out.split("value:")[1].split(" at threads_per_block = ")[1].split(" thread")[0]
    best = [float(x) for x in shown.split(",")]
    assert best == [float(t) for t, w in zip(sizes, warps) if w == max(warps)]  # every block size reaching the maximum


def test_baghsorkhi_alpha_zero_throughput_saturates_beyond_a_hundred_warps(cli):
    # Volkov §7.2: at alpha = 0, Warp latency = Max(37, 448 - 4*n); the two meet at (444 + 4 - 37)/4
    numbers, unit, out = ask(cli, "boundary", "prior_baghsorkhi", "Warp_latency_simplified", "--for", "n", "--substitute", "alpha=0",
                             "--between", "max_arg1", "max_arg3", "--preset", "g80")
    mem_lat, issue_lat, cyc_mem = (preset("prior_baghsorkhi", name, "cycle", "g80") for name in ("mem_lat", "issue_lat", "cyc_mem"))
    hand = (mem_lat + issue_lat - cyc_mem) / issue_lat
    assert unit == "warp/SM" and numbers[0] == pytest.approx(hand, rel=1e-12) and hand == pytest.approx(102.75)
    g80 = symgpu.load("prior_baghsorkhi")
    latency = [g80.evaluate("Warp_latency_simplified", "g80", alpha=0, n=n).to("cycle").magnitude for n in (hand - 0.5, hand + 0.5)]
    assert latency[0] > cyc_mem and latency[1] == pytest.approx(cyc_mem)  # brute force: the bandwidth floor takes over there


def test_hong_kim_arithmetic_latency_fix_tends_to_alu_lat_over_instruction_time(cli):
    numbers, unit, out = ask(cli, "limit", "prior_hong_kim", "hk_fix_ratio", "--var", "alpha", "--to", "oo", "--preset", "gt200")
    # (mem_lat + alu_lat*alpha)/(mem_lat + instruction_time*(alpha + 1)) -> alu_lat/instruction_time = 24/4
    hand = preset("prior_hong_kim", "alu_lat", "cycle", "gt200") / preset("prior_hong_kim", "instruction_time", "cycle*SM/winst", "gt200")
    assert "alu_lat/instruction_time" in out and unit in ("", "1") and numbers[0] == pytest.approx(hand, rel=1e-12) and hand == 6


def test_hong_kim_fixed_halves_the_latency_bound_throughput_at_alpha(cli):
    numbers, unit, out = ask(cli, "solve", "prior_hong_kim_fixed", "hk_fix_ratio", "--for", "alpha", "--target", "2", "--preset", "gt200")
    # by hand: mem_lat + alu_lat*a = 2*(mem_lat + it*(a + 1))  =>  a = (mem_lat + 2*it)/(alu_lat - 2*it)
    mem_lat, alu_lat = (preset("prior_hong_kim_fixed", name, "cycle", "gt200") for name in ("mem_lat", "alu_lat"))
    it = preset("prior_hong_kim_fixed", "instruction_time", "cycle*SM/winst", "gt200")
    hand = (mem_lat + 2 * it) / (alu_lat - 2 * it)
    assert unit in ("", "1") and numbers[0] == pytest.approx(hand, rel=1e-12) and hand == pytest.approx(27.625)
    model = symgpu.load("prior_hong_kim_fixed")
    assert model.evaluate("hk_fix_ratio", "gt200", alpha=hand).magnitude == pytest.approx(2, rel=1e-12)


def test_huang_bandwidth_delay_is_singular_where_the_memory_is_fully_utilised(cli):
    numbers, unit, out = ask(cli, "solve", "prior_huang_bw", "rho", "--for", "n", "--target", "1", "--preset", "fermi")
    # M/D/1: rho = n*cores*s/mem_lat with s = clock*bytes_per_req/pin_BW; rho = 1 at 33.9 warps on Fermi (§7.7)
    s = (preset("prior_huang_bw", "clock", "Hz", "fermi") * preset("prior_huang_bw", "bytes_per_req", "B/req", "fermi")
         / preset("prior_huang_bw", "pin_BW", "B/s", "fermi"))
    hand = preset("prior_huang_bw", "mem_lat", "cycle", "fermi") / (preset("prior_huang_bw", "cores", "SM", "fermi") * s)
    assert unit == "warp/SM" and numbers[0] == pytest.approx(hand, rel=1e-9) and round(hand, 1) == 33.9


def test_huang_gto_alu_cycles_stop_overlapping_past_one_plus_one_over_p_warps(cli):
    numbers, unit, out = ask(cli, "boundary", "prior_huang_gto", "NO_alu", "--for", "n", "--between", "max_arg1", "min_arg2+max_arg2",
                             "--preset", "fermi", "--set", "alpha=1")
    # NO_alu = Max(0, p*(alu_lat - 1)*(n_sched - 1) - alu_lat + 1) is 0 until n_sched - 1 = 1/p,
    # p = (1 + alpha)/(mem_lat + alpha*alu_lat): n = issue_units*(1 + (513 + 18)/2) on Fermi
    mem_lat, alu_lat = (preset("prior_huang_gto", name, "cycle", "fermi") for name in ("mem_lat", "alu_lat"))
    hand = preset("prior_huang_gto", "issue_units", "sched/SM", "fermi") * (1 + (mem_lat + alu_lat) / 2)
    assert unit == "warp/SM" and numbers[0] == pytest.approx(hand, rel=1e-12)
    gto = symgpu.load("prior_huang_gto")
    below, above = (gto.evaluate("NO_alu", "fermi", alpha=1, n=n).to("cycle").magnitude for n in (hand - 1, hand + 1))
    assert below == 0 and above > 0  # brute force: the non-overlapped cycles start there


def test_sim_cwp_minus_one_overestimates_memory_time_by_n_over_n_minus_one(cli):
    for n in (2, 4):
        code, out, err = cli("eval", "prior_sim", "cwp_minus_one_factor", "--preset", "fermi", "--set", f"n={n}", "--set", "alpha=1")
        assert code == 0, err
        assert_readable(out)
        # small n and alpha: CWP = MWP = n, so Tmem/Tmem_cwp = (n*mem_lat/(n - 1))/(n*mem_lat/n) = n/(n - 1)
        assert float(out.split("=")[1].split()[0]) == pytest.approx(n / (n - 1), rel=1e-9)


def test_zhang_owens_additive_throughput_at_full_occupancy_adds_the_two_times(cli):
    numbers, unit, out = ask(cli, "limit", "prior_zhang_owens_additive", "arithmetic_throughput", "--var", "n", "--to", "oo",
                             "--preset", "gt200", "--set", "alpha=8")
    # n -> oo: Time = alpha/alu_thru + 1/mem_thru (both throughput-bound), throughput = 32*alpha/Time
    alu_thru, mem_thru = (preset("prior_zhang_owens_additive", name, "winst/cycle/SM", "gt200") for name in ("alu_thru", "mem_thru"))
    hand = 32 * 8 / (8 / alu_thru + 1 / mem_thru)
    overlap = 32 * min(alu_thru, 8 * mem_thru)  # the Min model it underestimates
    assert unit == "op/cycle/SM" and numbers[0] == pytest.approx(hand, rel=1e-9) and hand < overlap
    # symbolically the additive time is the whole answer: 32*alpha/(alpha/alu_thru + 1/mem_thru) is below both
    # 32*alu_thru and 32*alpha*mem_thru for positive inputs, so the Min of the three reduces to it
    result = next(line for line in out.splitlines() if line.strip().startswith("result:"))
    assert "Min(" not in result and "alpha*alu_thru*mem_thru*simd_width/(alpha*mem_thru + alu_thru)" in result


def test_huang_gto_ipc_as_alpha_grows_picks_the_branches_that_win_eventually(cli):
    # IPC_gto has Max/Min nested in its denominator; with many warps (n > issue_units*(mem_lat + 1)) each one is
    # decided as alpha -> oo. Brute force: the model evaluated on Fermi at n = 600 for a huge alpha
    code, out, err = cli("limit", "prior_huang_gto", "IPC_gto", "--var", "alpha", "--to", "oo", "--assume", "alu_lat > 1",
                         "--assume", "mem_lat > alu_lat", "--assume", "n > issue_units*(mem_lat + 1)")
    assert code == 0, err
    assert_readable(out)
    gto = symgpu.load("prior_huang_gto")
    result = next(line for line in out.splitlines() if line.strip().startswith("result:")).split("result:", 1)[1]
    closed = gto.parse(result.split("[")[0].strip(), "result")
    values = {gto.symbols["alu_lat"]: preset("prior_huang_gto", "alu_lat", "cycle", "fermi"), gto.symbols["n"]: 600,
              gto.symbols["issue_units"]: preset("prior_huang_gto", "issue_units", "sched/SM", "fermi")}
    far = gto.evaluate("IPC_gto", "fermi", n=600, alpha=1e12).magnitude
    assert float(closed.xreplace(values)) == pytest.approx(far, rel=1e-9)
    steps = gto.limit("IPC_gto", "alpha", "oo", assume=["alu_lat > 1", "mem_lat > alu_lat", "n > issue_units*(mem_lat + 1)"]).steps
    assert sum(step.operation == "select branch" for step in steps) >= 2


def test_huang_gto_limit_that_depends_on_the_warp_count_asks_for_an_assumption(cli):
    # without n > issue_units*(alu_lat + 1) the inner Max(0, ...) is 0 for few warps and positive for many
    code, _, err = cli("limit", "prior_huang_gto", "IPC_gto", "--var", "alpha", "--to", "oo", "--assume", "alu_lat > 1")
    assert code == 2 and len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200
    assert "is proved to be the largest as alpha -> oo" in err and "--assume" in err
