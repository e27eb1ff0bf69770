"""The command line: exit codes 0 / 1 / 2, JSON output, one clear message and no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from symgpu import cli

REPO = Path(__file__).resolve().parent.parent


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_list_shows_bundled_models(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0 and "interval_analysis" in out


def test_show_prints_equations_and_presets(capsys):
    code, out, _ = run(capsys, "show", "interval_analysis")
    assert code == 0 and "P_K0: P_K0 =" in out and "gtx1080" in out


def test_show_prints_each_preset_value_with_every_digit_the_model_uses(cli):
    # outside checker q31c, question 67: equations/perez_piccoli.toml's gtx470 gives Cp_AllAll = "503.849162 GFLOP/s",
    # shown as 503.849 (six digits), so L_Pipe recomputed from show's values was off in the 7th digit
    code, out, _ = cli("show", "perez_piccoli")
    assert code == 0 and "Cp_AllAll=503.849162 GFLOP / s" in out and "GMb_AllOne=9.640949 GB / s" in out
    code, out, _ = cli("show", "hong_kim_2009")  # six digits where they are every digit: as before
    assert code == 0 and "Freq=1.35e+09 Hz, Mem_Bandwidth=8.64e+10 B / s" in out


def test_check_bundled_models_passes(capsys):
    code, out, _ = run(capsys, "check")
    assert code == 0 and "ok   interval_analysis" in out


def test_check_reports_the_as_printed_P_formula_and_exits_1(capsys, tmp_path):
    text = (REPO / "equations" / "interval_analysis.toml").read_text()
    path = tmp_path / "interval_analysis.toml"
    path.write_text(text.replace('rhs = "Theta_M*L_K0/(d_K0*phi)"', 'rhs = "Theta_M*L_K0/d_K0"'))
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    assert "equation P_K0: 'Theta_M*L_K0/d_K0' has dimension [clock]*[thread]/[time], but P_K0 is [thread]; a clock conversion (phi) may be missing" in out


def test_eval_json_has_model_quantity_value_unit(capsys):
    code, out, _ = run(capsys, "eval", "interval_analysis", "P_K0", "--preset", "gtx1080", "--set", "M=16", "--set", "N=16", "--json")
    payload = json.loads(out)
    assert code == 0
    assert payload["model"] == "interval_analysis" and payload["quantity"] == "P_K0" and payload["unit"] == "thread"
    from symgpu import load
    assert payload["value"] == pytest.approx(load("interval_analysis").evaluate("P_K0", preset="gtx1080", M=16, N=16).magnitude)


def test_eval_set_accepts_units_and_unit_converts_result(capsys):
    code, out, _ = run(capsys, "eval", "interval_analysis", "L_K0_time", "--preset", "gtx1080", "--set", "M=16", "--set", "N=16",
                       "--set", "phi=1730 MHz", "--unit", "us")
    assert code == 0 and out.startswith("L_K0_time = 0.3884") and out.strip().endswith(("µs", "us"))


@pytest.mark.parametrize("argv, message", [
    (["eval", "nope", "P"], "symgpu: error: unknown model 'nope'"),
    (["eval", "interval_analysis", "P_K0", "--preset", "gtx1080", "--set", "M"], "symgpu: error: --set 'M': expected NAME=VALUE"),
    (["eval", "interval_analysis", "P_K0", "--preset", "gtx1080", "--set", "M=16", "--set", "N=16", "--set", "Theta_M=3 GB"],
     "symgpu: error: interval_analysis: Theta_M = 3 GB has dimension [information], but Theta_M is [information]/[time]"),
    (["eval", "interval_analysis", "P_K0", "--preset", "gtx1080", "--set", "M=16", "--set", "N=16", "--unit", "s"],
     "symgpu: error: --unit 's': the result is [thread], which cannot be expressed in s ([time])"),
    (["eval", "interval_analysis", "P_K0", "--preset", "gtx1080", "--set", "M=16"], "symgpu: error: interval_analysis: P_K0 needs a value for N"),
    (["frobnicate"], "symgpu: error: argument COMMAND: invalid choice: 'frobnicate'"),
])
def test_bad_input_exits_2_with_one_clear_message(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_validate_bundled_models_passes(capsys):
    code, out, err = run(capsys, "validate", "interval_analysis")
    assert code == 0 and "erratum" in out and " 0 failed" in err


def test_console_script_runs_without_traceback_on_bad_input():
    proc = subprocess.run([sys.executable, "-m", "symgpu", "eval", "interval_analysis", "P_K0"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("symgpu: error: interval_analysis: P_K0 needs a value for")


def test_eval_takes_occupancy_from_resource_usage(capsys):
    from symgpu import load
    from symgpu.kernel import occupancy

    hk = load("hong_kim_2009")
    code, out, _ = run(capsys, "eval", "hong_kim_2009", "Exec_cycles_app", "--preset", "gtx280+tiled_matmul",
                       "--occupancy", "threads=128,regs=18,smem=3960", "--json")
    assert code == 0
    values = occupancy.occupancy_values(hk, "gtx280", threads=128, regs=18, smem=3960)
    expected = hk.evaluate("Exec_cycles_app", preset="gtx280+tiled_matmul", **values)
    assert json.loads(out)["value"] == pytest.approx(expected.magnitude)


@pytest.mark.parametrize("spec, message", [
    ("threads=128,regs=18", "--occupancy 'threads=128,regs=18': missing smem"),
    ("threads=128,regs=x,smem=1", "--occupancy 'threads=128,regs=x,smem=1': regs must be a number, got 'x'"),
    ("warps=4,regs=1,smem=1", "--occupancy 'warps=4,regs=1,smem=1': expected threads=T,regs=R,smem=S (got 'warps=4')"),
])
def test_malformed_occupancy_option_exits_2(capsys, spec, message):
    code, _, err = run(capsys, "eval", "hong_kim_2009", "N", "--preset", "gtx280", "--occupancy", spec)
    assert code == 2 and message in err


def test_eval_occupancy_reads_shared_memory_given_with_a_byte_unit(cli):
    # outside checker q31c, question 66: 'smem=48KiB' (as symgpu.kernel.occupancy.parse_spec reads it) was refused.
    # By hand on cc_9_0 (the h100 preset): 256 threads, 32 regs, 48 KiB = 49152 B + 1024 B reserved = 50176 B per block,
    # 233472 // 50176 = 4 blocks of 8 warps: n = 32 warp/SM, alpha = 0: Min(0.08594, 32/675) = 32/675 winst/cycle/SM
    code, out, _ = cli("eval", "volkov_2016", "memory_throughput", "--preset", "h100", "--set", "alpha=0",
                       "--occupancy", "threads=256,regs=32,smem=48KiB", "--json")
    assert code == 0 and json.loads(out)["value"] == pytest.approx(32 / 675, rel=1e-12)
    code, _, err = cli("eval", "volkov_2016", "memory_throughput", "--preset", "h100", "--set", "alpha=0",
                       "--occupancy", "threads=256,regs=32,smem=1 s")
    assert code == 2 and "smem must be a number of bytes or a byte quantity (48KiB), got '1 s'" in err


def test_eval_says_which_valid_when_condition_it_could_not_check(cli):
    # L_K0x_time never reads L_F, but its equation holds for N >= L_F/t_issue: without L_F the value is shown
    # with the condition it could not check; with L_F = 6 (N = 10 >= 6) the note is gone
    given = ["--set", "N=10", "--set", "B_threads=64", "--set", "G_blocks=10", "--set", "L_M=400", "--set", "M=16",
             "--set", "n_X=19", "--set", "phi=1"]
    code, out, _ = cli("eval", "interval_analysis", "L_K0x_time", *given)
    assert code == 0 and "not checked: valid_when N >= L_F/t_issue" in out and "--set L_F=VALUE" in out
    code, out, _ = cli("eval", "interval_analysis", "L_K0x_time", *given, "--json")
    assert code == 0 and json.loads(out)["domain_not_checked"] == [{"equation": "L_K0", "valid_when": "N >= L_F/t_issue", "needs": ["L_F"]}]
    code, out, _ = cli("eval", "interval_analysis", "L_K0x_time", *given, "--set", "L_F=6")
    assert code == 0 and "not checked" not in out
    code, _, err = cli("eval", "interval_analysis", "L_K0x_time", *given, "--set", "L_F=12")  # N = 10 < 12: outside
    assert code != 0 and "L_F" in err


def test_solve_whose_root_overflows_a_double_is_refused_in_one_line(write_model, cli):
    # P = P_peak*1e-300, so P = 1e10 FLOP/s needs P_peak = 1e310 FLOP/s: beyond a double (1.8e308)
    code, out, err = cli("solve", write_model(rhs="P_peak*1e-300"), "P", "--for", "P_peak", "--target", "1e10 FLOP/s", "--preset", "toy")
    assert code == 2, out + err
    assert "internal error" not in err
    assert "beyond the range of a double" in err and len(err.strip().splitlines()) == 1
