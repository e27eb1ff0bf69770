"""The derivation commands: text and JSON output, values per preset, exit codes, repl."""

from __future__ import annotations

import json
import os

import pytest
import sympy

from symgpu import cli
from symgpu.cli import app


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def parsed(model, text):
    """A JSON result string read back through the model's safe parser."""
    return model.parse(text, "json result")


def test_every_derivation_command_has_a_parser_and_a_runner():
    parser_choices = next(a for a in cli.create_parser()._actions if a.dest == "command").choices
    for name in ("solve", "regimes", "boundary", "extremum", "limit", "fixed-point", "derive", "repl"):
        assert name in parser_choices and name in app.commands()


def test_solve_json_result_is_parsable_and_unit_checked(capsys, ia):
    code, out, _ = run(capsys, "solve", "interval_analysis", "P_sat", "--for", "L_iota", "--json")
    data = json.loads(out)
    assert code == 0 and data["unit"] == "cycle"
    assert sympy.simplify(parsed(ia, data["result"]) - parsed(ia, "P_sat*d_iota*phi/Theta_M")) == 0
    assert "value" not in data


def test_extremum_json_gives_location_value_and_unit_per_preset(capsys, ia):
    code, out, _ = run(capsys, "extremum", "interval_analysis", "P_K0", "--over", "N", "--min",
                       "--substitute", "M=N", "--preset", "gtx1080", "--json")
    data = json.loads(out)
    assert code == 0 and data["unit"] == "thread"
    location = parsed(ia, data["location"])
    preset = {ia.symbols[k]: sympy.Rational(repr(v.magnitude)) for k, v in {**ia.constants, **ia.preset("gtx1080")}.items()}
    assert data["location_value"] == pytest.approx(float(location.xreplace(preset)), rel=1e-12)
    assert data["value"] == pytest.approx(float(parsed(ia, data["result"]).xreplace(preset)), rel=1e-12)
    # the minimum is the model's own P_K0 at that N
    direct = ia.evaluate("P_K0", preset="gtx1080", M=data["location_value"], N=data["location_value"]).magnitude
    assert data["value"] == pytest.approx(direct, rel=1e-12)


def test_limit_text_output_shows_steps_and_where_the_model_has_no_value(capsys):
    # the notes' "for large N" asymptote: the formula's limit, said to lie outside the model's domain (N <= 2*L_M/t_issue)
    code, out, _ = run(capsys, "limit", "interval_analysis", "Q_K0", "--var", "N", "--to", "oo", "-S", "M=N", "--full")
    assert code == 0 and "result: Theta_IF*t_issue" in out and "outside the model's domain" in out and "1. " in out
    # at a point the model gives no value that far out: refused, naming the condition
    code, out, err = run(capsys, "limit", "interval_analysis", "Q_K0", "--var", "N", "--to", "oo", "-S", "M=N", "-p", "gtx1080")
    assert code != 0 and "value:" not in out and "L_M >= N*t_issue/2" in err


def test_regimes_lists_the_named_branches(capsys):
    code, out, _ = run(capsys, "regimes", "interval_analysis", "t_P", "--over", "P", "--full")
    assert code == 0 and "regime latency_bound" in out and "regime bandwidth_bound" in out


def test_a_long_regime_table_answers_with_the_active_regime_and_counts_the_rest(capsys):
    from collections import Counter

    from conftest import assert_readable
    from symgpu.derive import summary
    argv = ("regimes", "occupancy", "active_blocks_per_SM", "-p", "cc_3_5", "--set", "threads_per_block=256",
            "--set", "regs_per_thread=40", "--set", "smem_per_block=3073 B/block")
    code, out, _ = run(capsys, *argv)
    _, data, _ = run(capsys, *argv, "--json")
    every = json.loads(data)["extra"]["regimes"]
    assert code == 0 and len(every) > summary.MAX_ROWS
    assert_readable(out, max_bytes=8000)
    lines = out.splitlines()
    assert lines[1].startswith("  active: ") and lines[1].split()[1].rstrip("#0123456789").endswith("register_limit")
    counts = Counter(r["terms"][-1] for r in every)
    assert f"{len(every)} regimes, by the term that binds: " + ", ".join(f"{t} {n}" for t, n in counts.most_common()) in out
    assert f"... {len(every) - summary.MAX_ROWS} more regimes" in out


def test_boundary_with_values(capsys, ia):
    code, out, _ = run(capsys, "boundary", "interval_analysis", "t_P", "--for", "P", "--json", "-p", "gtx1080",
                       "--set", "L_iota=672 cycle", "--set", "d_iota=128 B/thread")
    data = json.loads(out)
    expected = ia.evaluate("P_sat", preset="gtx1080", L_iota=672, d_iota=128).magnitude
    assert code == 0 and data["value"] == pytest.approx(expected, rel=1e-12) and data["unit"] == "thread"


def test_fixed_point_command_numeric(capsys, tmp_path):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("_derive_models", Path(__file__).with_name("test_derive.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path / "mini_fp.toml"
    path.write_text(module.MINI_FIXED_POINT)
    code, out, _ = run(capsys, "fixed-point", str(path), "thru_two_term", "--var", "x", "-p", "g80_two_term",
                       "--set", "n=16", "--set", "alpha=4", "--json")
    data = json.loads(out)
    assert code == 0 and "mpmath.findroot" in data["method"] and data["value"] > 0


def test_derive_runs_the_model_file_requests(capsys):
    code, out, _ = run(capsys, "derive", "interval_analysis")
    assert code == 0 and out.count("ok  ") == 4  # N_minimising_P_K0, Q_K0_large_N, P_sat_knee, P_K1_linear_in_N


def test_bad_variable_is_exit_2_with_one_message(capsys):
    code, _, err = run(capsys, "limit", "interval_analysis", "Q_K0", "--var", "nope", "--to", "oo")
    assert code == 2 and "unknown symbol 'nope'" in err


def test_extremum_needs_max_or_min(capsys):
    code, _, err = run(capsys, "extremum", "interval_analysis", "P_K0", "--over", "N")
    assert code == 2


def test_malformed_substitution_is_a_usage_error(capsys):
    code, _, err = run(capsys, "limit", "interval_analysis", "Q_K0", "--var", "N", "--to", "oo", "-S", "M")
    assert code == 2 and "NAME=EXPR" in err


def test_repl_namespace_has_symgpu_and_models_by_id():
    """The plain REPL reads its lines from standard input: a line printed there shows its namespace."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    line = ("print('namespace:', symgpu.__name__, isinstance(interval_analysis, symgpu.Model), "
            "derive.__name__, sympy.__name__)\n")
    done = subprocess.run([sys.executable, "-m", "symgpu", "repl", "--plain"], input=line, capture_output=True, text=True,
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "namespace: symgpu True symgpu.derive sympy" in done.stdout + done.stderr


def test_derivation_json_is_the_same_under_any_string_hash_seed() -> None:
    """The 'substituted' list follows the names, not Python's set order: two hash seeds (under
    which the old set iteration gave two different orders) print the same JSON."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    outputs = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, SYMGPU_NO_CACHE="1",
                   PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        done = subprocess.run([sys.executable, "-m", "symgpu", "derive", "perez_piccoli", "bandwidth_from_W_T", "--json"],
                              env=env, capture_output=True, text=True, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop())
