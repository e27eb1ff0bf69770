"""An equation's `assumes`: conditions its source assumes for the value to be what the quantity is described
as. Volkov's cusp alpha = alu_thru/mem_thru and n = alu_lat*alu_thru + mem_lat*mem_thru are derived 'if we
assume that throughput is bound by arithmetic capability, not instruction issue' (§4.5). At that alpha the ALU
bound alu_thru/alpha = mem_thru is at most the issue bound issue_thru/(alpha + 1) exactly when
alu_thru + mem_thru <= issue_thru. On the H100 preset (alu_thru = issue_thru = 4) it does not hold, and
`eval alpha_cusp_alu` printed 46.5441 with no word, though the cusp of n_needed is at 45.5441 (D1 of round 15a).
The value is still given (the published Maxwell 49 and 54 are reproduced by validate), with a note."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

import symgpu
from symgpu import errors, validation
from conftest import tiny_text

Cli = Callable[..., tuple[int, str, str]]

# Table 4.1 / the H100 measurements, as the presets give them (winst/cycle/SM; cycles)
PRESETS = {
    "h100": dict(mem_lat=Fraction(675), alu_lat=Fraction("4.055"), mem_thru=Fraction("0.08594"), alu_thru=Fraction(4), issue_thru=Fraction(4)),
    "maxwell": dict(mem_lat=Fraction(368), alu_lat=Fraction(6), mem_thru=Fraction("0.0814"), alu_thru=Fraction(4), issue_thru=Fraction(4)),
    "g80": dict(mem_lat=Fraction(444), alu_lat=Fraction(20), mem_thru=Fraction("0.0268"), alu_thru=Fraction("0.25"), issue_thru=Fraction("0.5")),
    "gt200": dict(mem_lat=Fraction(434), alu_lat=Fraction(24), mem_thru=Fraction("0.0277"), alu_thru=Fraction("0.25"), issue_thru=Fraction("0.5")),
}


def n_needed(p: dict[str, Fraction], alpha: Fraction) -> Fraction:
    """s4_5_needed by hand: (mem_lat + alpha*alu_lat)*Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1))."""
    bounds = [p["mem_thru"], p["issue_thru"] / (alpha + 1)] + ([p["alu_thru"] / alpha] if alpha else [])
    return (p["mem_lat"] + alpha * p["alu_lat"]) * min(bounds)


def cusp_by_brute_force(p: dict[str, Fraction]) -> tuple[Fraction, Fraction]:
    """The maximum of n_needed over alpha on a grid of step 1/100 up to 200 (each branch is monotonic, so the
    grid's best point is within a step of the true cusp), then the exact corner nearest it."""
    best = max((Fraction(k, 100) for k in range(0, 20001)), key=lambda a: n_needed(p, a))
    corners = [p["alu_thru"] / p["mem_thru"], p["issue_thru"] / p["mem_thru"] - 1]  # memory meets ALU, memory meets issue
    corner = min(corners, key=lambda a: abs(a - best))
    assert abs(corner - best) <= Fraction(1, 100) and n_needed(p, corner) >= n_needed(p, best)
    return corner, n_needed(p, corner)


def test_at_h100_the_alu_cusp_is_not_the_cusp_and_eval_says_so(cli: Cli) -> None:
    p = PRESETS["h100"]
    alu_alpha, alu_n = p["alu_thru"] / p["mem_thru"], p["alu_lat"] * p["alu_thru"] + p["mem_lat"] * p["mem_thru"]
    cusp_alpha, cusp_n = cusp_by_brute_force(p)
    assert cusp_alpha == p["issue_thru"] / p["mem_thru"] - 1 == alu_alpha - 1 and cusp_n < alu_n  # 45.544 and 73.881
    for quantity, value in (("alpha_cusp_alu", alu_alpha), ("n_cusp_alu", alu_n)):
        code, out, err = cli("eval", "volkov_2016", quantity, "--preset", "h100")
        assert code == 0, err
        first, note = out.splitlines()
        assert float(first.split(" = ")[1].split()[0]) == pytest.approx(float(value), rel=1e-9)
        assert note.startswith(f"  note: {quantity} (equation ") and "assumes alu_thru + mem_thru <= issue_thru, which does not hold here" in note
        assert "mem_thru = 0.08594 winst/cycle/SM" in note and "cusp_full" in note
    code, out, err = cli("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", "--preset", "h100", "--json")
    answer = json.loads(out)
    assert code == 0, err
    assert answer["location_value"] == pytest.approx(float(cusp_alpha), rel=1e-9) and answer["value"] == pytest.approx(float(cusp_n), rel=1e-9)
    assert abs(answer["location_value"] - float(alu_alpha)) == pytest.approx(1.0, rel=1e-9)


def test_the_note_is_in_json_with_the_inputs(cli: Cli) -> None:
    code, out, err = cli("eval", "volkov_2016", "n_cusp_alu", "--preset", "h100", "--json")
    record = json.loads(out)
    assert code == 0, err
    [unmet] = record["assumptions_not_met"]
    assert unmet["equation"] == "s4_5_cusp_n_alu" and unmet["assumes"] == "alu_thru + mem_thru <= issue_thru" and unmet["fails_at"] == 1
    assert {k: v["value"] for k, v in unmet["inputs"].items()} == {"alu_thru": 4.0, "issue_thru": 4.0, "mem_thru": 0.08594}


@pytest.mark.parametrize("preset", ["g80", "gt200"])
def test_where_the_alu_bound_binds_at_the_cusp_eval_is_silent_and_right(cli: Cli, preset: str) -> None:
    p = PRESETS[preset]
    assert p["alu_thru"] + p["mem_thru"] <= p["issue_thru"]
    cusp_alpha, cusp_n = cusp_by_brute_force(p)
    assert cusp_alpha == p["alu_thru"] / p["mem_thru"] and cusp_n == p["alu_lat"] * p["alu_thru"] + p["mem_lat"] * p["mem_thru"]
    for quantity, value in (("alpha_cusp_alu", cusp_alpha), ("n_cusp_alu", cusp_n)):
        code, out, err = cli("eval", "volkov_2016", quantity, "--preset", preset)
        assert code == 0, err
        assert len(out.splitlines()) == 1 and float(out.split(" = ")[1].split()[0]) == pytest.approx(float(value), rel=1e-9)


def test_at_maxwell_the_published_alu_cusp_is_given_with_the_note_and_still_validates(cli: Cli) -> None:
    # Maxwell has alu_thru = issue_thru too: issue binds, the cusp is 48.14 (the model's erratum cases), not the printed 49
    p = PRESETS["maxwell"]
    cusp_alpha, _ = cusp_by_brute_force(p)
    assert cusp_alpha == p["issue_thru"] / p["mem_thru"] - 1 != p["alu_thru"] / p["mem_thru"]
    code, out, err = cli("eval", "volkov_2016", "alpha_cusp_alu", "--preset", "maxwell")
    assert code == 0 and "which does not hold here" in out, err
    [pass_alpha, pass_n] = validation.validate(symgpu.load("volkov_2016"), ("s4_5_maxwell_cusp_alu_form",))
    assert pass_alpha.status == pass_n.status == validation.PASS


def test_a_model_file_assumes_is_read_checked_and_noted(cli: Cli, tmp_path: Path, refused_whole) -> None:  # type: ignore[no-untyped-def]
    def model(assumes: str) -> Path:
        path = tmp_path / "tiny.toml"
        text = tiny_text().replace('rhs = "Min(P_peak, I*B)"\n', f'rhs = "Min(P_peak, I*B)"\nassumes = ["{assumes}"]\n')
        path.write_text(text.replace("[[equations]]", '[symbols.B_max]\ndescription = "most bandwidth"\nunit = "B/s"\n\n[[equations]]'),
                        encoding="utf-8")
        return path

    # 2 TB/s x I against 100 TFLOP/s: bandwidth-bound below I = 50 FLOP/B
    code, out, err = cli("eval", model("I*B <= P_peak"), "P", "-p", "toy", "--set", "I=10")
    assert code == 0 and out.strip() == "P = 2e+13 FLOP/s", err
    code, out, err = cli("eval", model("I*B <= P_peak"), "P", "-p", "toy", "--set", "I=80")
    assert code == 0 and out.splitlines()[0] == "P = 1e+14 FLOP/s" and "assumes B*I <= P_peak, which does not hold here" in out, err
    code, out, err = cli("eval", model("B <= B_max"), "P", "-p", "toy", "--set", "I=80")  # P never reads B_max
    assert code == 0 and "not checked: P (equation attainable) assumes B <= B_max; it needs a value for B_max" in out, err
    code, out, err = cli("eval", model("B <= B_max"), "P", "-p", "toy", "--set", "I=80", "--set", "B_max=3 TB/s")
    assert code == 0 and out.strip() == "P = 1e+14 FLOP/s", err
    # refused by the whole check, and by a question that reads the equation, with one message
    for assumes, kind, match in (("I <= P_peak", errors.UnitMismatchError, r"equation attainable\.assumes"),
                                 ("B <= 0", errors.ModelFileError, r"equation attainable\.assumes: 'B <= 0' never holds")):
        refused = refused_whole(model(assumes), kind, match)
        with pytest.raises(kind) as read:
            symgpu.load(model(assumes)).expression("P")
        assert str(read.value) == str(refused)
        code, out, err = cli("eval", model(assumes), "P", "-p", "toy", "--set", "I=10")
        assert code == 2 and out == "" and err == f"symgpu: error: {refused}\n"
