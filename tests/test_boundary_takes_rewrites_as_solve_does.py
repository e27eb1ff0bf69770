"""``boundary`` with ``--substitute``, ``--omit`` or ``--keep`` answers as ``solve`` with the same rewrites does (an outside
tester's round 8, findings 7, 8, 9 and 13): at a point the switch is checked on the quantity as rewritten, not on
the model as written (a substituted eta_M = 1 where the preset gives 0.902 was refused as "do not meet"); a kept
intermediate does not pair two regimes that never touch ("check failed ... please report"); a substitution of the
wrong dimension is refused for its dimension; a limiter to omit inside an intermediate quantity is found.

Expected values by hand from equations/kernel_streaming.toml, kernel_row_reduction.toml and kernel_gemm.toml, the
preset's numbers read from the model (A100 PCIe 40 GB: L_M = 330 ns, Theta_M = 1555 GB/s, n_SM = 108)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import symgpu
from conftest import assert_one_line_refusal, read_fixture

PRESET = "a100_pcie_40gb+neusight_fit"
STREAMING = ("boundary", "kernel_streaming", "t_body", "--for", "blocks", "--between", "memory_bound", "latency_bound",
             "-p", PRESET, "-s", "elements=1000000", "-s", "operands=3", "-s", "threads_per_block=128")
GEMM = ("boundary", "kernel_gemm", "t_roofline", "--for", "M", "--between", "compute_bound", "memory_bound", "-p", PRESET,
        "-s", "K_out=4096", "-s", "K_red=4096", "-s", "tile_m=128", "-s", "tile_n=128", "-s", "split_k=1")

Cli = Callable[..., tuple[int, str, str]]


def _value(out: str) -> float:
    return float(next(line for line in out.splitlines() if line.strip().startswith("value:")).split()[1])


#: the unit each preset value is read in
UNITS = {"L_M": "s", "t_launch": "s", "Theta_M": "B/s", "P_fp32": "flop/s", "elem_size": "B", "eta_M": "", "eta_F": "", "eta_R": ""}


def _preset(model_id: str, *names: str) -> list[float]:
    values = symgpu.load(model_id).preset(PRESET)
    return [float(values[n].to(UNITS[n]).magnitude) for n in names]


def test_a_substituted_preset_value_moves_the_boundary_at_the_point(cli: Cli) -> None:
    # partial wave: t_memory = t_latency at blocks = L_M*eta_M*Theta_M/(threads_per_block*inflight_per_thread) (B/thread * thread/block)
    l_m, theta = _preset("kernel_streaming", "L_M", "Theta_M")  # s, B/s
    code, out, err = cli(*STREAMING, "-s", "inflight_per_thread=32", "--substitute", "eta_M=1")
    assert code == 0, err
    assert _value(out) == pytest.approx(l_m * 1 * theta / (128 * 32), rel=1e-7)  # 330e-9*1555e9/4096 = 125.2808


def test_a_substitution_by_another_input_moves_the_boundary_at_the_point(cli: Cli) -> None:
    t_launch, theta, eta = _preset("kernel_streaming", "t_launch", "Theta_M", "eta_M")
    code, out, err = cli(*STREAMING, "-s", "inflight_per_thread=32", "--substitute", "L_M=t_launch/40")
    assert code == 0, err
    assert _value(out) == pytest.approx(t_launch / 40 * eta * theta / (128 * 32), rel=1e-7)  # 482.5 ns*0.902*1555 GB/s/4096 B = 165.2244


def test_a_substituted_efficiency_moves_the_row_reduction_boundary(cli: Cli) -> None:
    # 256 threads = 8 warps, 64/8 = 8 resident blocks (32 allowed): one wave holds 108*8 = 864 blocks, 4096 blocks take 5 waves;
    # working set 864 rows*4096*4 B = 14.2 MB fits the 40 MB L2 (miss_fraction 0): bytes = rows*4096*4 B*(1 read + 1 write);
    # t_latency = 5 waves*(1 + 1 + 1 reread)*L_M; equal at rows = 15*L_M*eta_R*Theta_M/(4096*4*2), eta_R = 1: 234.9014
    l_m, theta = _preset("kernel_row_reduction", "L_M", "Theta_M")
    code, out, err = cli("boundary", "kernel_row_reduction", "t_body", "--for", "rows", "--between", "memory_bound", "latency_bound",
                         "-p", PRESET, "-s", "row_len=4096", "-s", "rereads=1", "-s", "rows_per_block=1", "-s", "blocks=4096",
                         "-s", "threads_per_block=256", "--substitute", "eta_R=1")
    assert code == 0, err
    assert _value(out) == pytest.approx(15 * l_m * theta / (4096 * 4 * 2), rel=1e-7)


def test_a_kept_intermediate_does_not_pair_regimes_that_never_touch(cli: Cli) -> None:
    l_m, theta, eta = _preset("kernel_streaming", "L_M", "Theta_M", "eta_M")
    code, out, err = cli(*STREAMING, "-s", "inflight_per_thread=32", "--keep", "resident_blocks")
    assert code == 0, err
    assert _value(out) == pytest.approx(l_m * eta * theta / (128 * 32), rel=1e-7)  # 113.0032, as without --keep
    assert "n_SM*resident_blocks" not in out  # the partial/full-wave switch is no memory/latency boundary


def test_a_substitution_of_the_wrong_dimension_is_refused_for_its_dimension(cli: Cli) -> None:
    # elem_size*8/threads_per_block is [B*block/thread]; inflight_per_thread is [B/thread]
    code, _, err = cli(*STREAMING, "--substitute", "inflight_per_thread=elem_size*8/threads_per_block")
    assert code == 2, err
    assert "inflight_per_thread" in err and "dimension" in err and "please report" not in err


def test_a_limiter_omitted_inside_an_intermediate_is_found(cli: Cli) -> None:
    # without power_bound P_sustained = P_fp32: 2*M*N*K/(eta_F*P_fp32) = e*(M*K + K*N + M*N)/(eta_M*Theta_M), N = K = 4096,
    # linear in M: M* = e*N*K*eta_F*P/(2*N*K*eta_M*Theta_M - e*eta_F*P*(N + K)) = 23.58766
    e, eta_f, p_fp32, eta_m, theta = _preset("kernel_gemm", "elem_size", "eta_F", "P_fp32", "eta_M", "Theta_M")
    n = k = 4096
    code, out, err = cli(*GEMM, "--omit", "power_bound")
    assert code == 0, err
    assert _value(out) == pytest.approx(e * n * k * eta_f * p_fp32 / (2 * n * k * eta_m * theta - e * eta_f * p_fp32 * (n + k)), rel=1e-7)


def test_a_rewritten_boundary_at_the_edge_of_the_domain_is_refused_as_the_model_as_written_refuses_it(cli: Cli, write_model) -> None:  # type: ignore[no-untyped-def]
    # P = Min(P_peak, e*I*B), valid where I*B <= P_peak; with e = 1 substituted the arms meet at I = P_peak/B = 100e12/2e12 = 50
    # FLOP/B (by hand), the domain's edge: above it the model gives no value, so the regime does not switch there (the one
    # switch check, results.applying_boundaries, with its valid_when filter beside the value); it printed 50 with exit 0
    text = read_fixture("tiny").replace('rhs = "Min(P_peak, I*B)"', 'rhs = "Min(P_peak, e*I*B)"\nvalid_when = ["I*B <= P_peak"]')
    text = text.replace("[[equations]]", '[symbols.e]\ndescription = "efficiency"\nunit = "dimensionless"\nassumptions = ["positive"]\n\n[[equations]]')
    path = write_model(text.replace('B = "2 TB/s"', 'B = "2 TB/s"\ne = 0.5'))
    code, out, err = cli("--no-cache", "boundary", path, "P", "--for", "I", "-p", "toy", "--substitute", "e=1")
    assert_one_line_refusal(code, out, err, "do not meet", "outside the model's domain")
    wide = write_model(text.replace("I*B <= P_peak", "I*B <= 2*P_peak").replace('id = "tiny"', 'id = "wide"')
                       .replace('B = "2 TB/s"', 'B = "2 TB/s"\ne = 0.5'), name="wide")
    code, out, err = cli("--no-cache", "boundary", wide, "P", "--for", "I", "-p", "toy", "--substitute", "e=1")
    assert code == 0, err
    assert _value(out) == pytest.approx(50.0, rel=1e-12)  # inside the domain (I <= 100): the switch is kept


def test_a_rewritten_boundary_inside_the_domain_the_substitution_widens_is_kept(cli: Cli, write_model) -> None:  # type: ignore[no-untyped-def]
    # P = Min(P_peak, e*I*B), valid where I*B <= 2*e*P_peak. The preset's e = 0.5 gives I <= 2*0.5*100e12/2e12 = 50 FLOP/B;
    # with e = 1 substituted it is I <= 100 and the arms meet at I = P_peak/B = 50 (by hand), 51 beside it inside: a switch.
    # The domain was read at the preset's e (51 outside) and "do not meet" printed
    text = read_fixture("tiny").replace('rhs = "Min(P_peak, I*B)"', 'rhs = "Min(P_peak, e*I*B)"\nvalid_when = ["I*B <= 2*e*P_peak"]')
    text = text.replace("[[equations]]", '[symbols.e]\ndescription = "efficiency"\nunit = "dimensionless"\nassumptions = ["positive"]\n\n[[equations]]')
    path = write_model(text.replace('B = "2 TB/s"', 'B = "2 TB/s"\ne = 0.5'))
    code, out, err = cli("--no-cache", "boundary", path, "P", "--for", "I", "-p", "toy", "--substitute", "e=1")
    assert code == 0, err
    assert _value(out) == pytest.approx(50.0, rel=1e-12)
    # e = 0.25 substituted: the domain is I <= 25, short of where the arms meet (I = P_peak/(e*B) = 200): refused
    code, out, err = cli("--no-cache", "boundary", path, "P", "--for", "I", "-p", "toy", "--substitute", "e=0.25")
    assert_one_line_refusal(code, out, err, "do not meet", "outside the model's domain")
