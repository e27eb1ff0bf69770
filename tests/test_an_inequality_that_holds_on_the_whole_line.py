"""An inequality over a variable with no declared sign that holds at every real value (an outside tester's round-13 finding
F9): ``y = Max(s*x + c, b)`` with b = 1 us is at least 0.5 us (and -3 us) for every x, the whole line, which the answer's check
refused as "UniversalSet is no union of intervals"; and a negative value given as ``--to -oo`` says to write ``--to=-oo``.
Expected: y >= b by the Max, b = 1 us at both presets; brute force over Model.evaluate confirms it along x."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import FIXTURES
import symgpu

MODEL = FIXTURES / "floor_of_a_line.toml"


@pytest.mark.parametrize(("preset", "target"), [("neg", "-3"), ("pos", "0.5")])
def test_a_relation_that_holds_for_every_real_x_is_answered_and_checked(cli, preset: str, target: str) -> None:  # type: ignore[no-untyped-def]
    xs = np.concatenate([-np.geomspace(1e-6, 1e9, 200), [0.0], np.geomspace(1e-6, 1e9, 200)])
    model = symgpu.load(MODEL)
    assert all(model.evaluate("y", preset=preset, x=float(x)).to("us").magnitude >= float(target) for x in xs)
    code, out, err = cli("--no-cache", "solve", MODEL, "y", "--for", "x", "-p", preset, f"--target={target}", "--relation", ">=")
    assert code == 0, err
    assert "holds for every x" in out and "checked numerically at preset" in out and "0 outside" in out


def test_a_negative_value_after_an_option_says_to_write_it_with_an_equals_sign(cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("limit", MODEL, "y", "--over", "x", "--to", "-oo")
    assert code == 2 and "a value that begins with '-' is written with '=' (--to=-3)" in err
