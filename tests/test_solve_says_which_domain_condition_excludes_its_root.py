"""A solve asked at a point whose only root the model's domain excludes says so, and which condition excludes it
(:mod:`symgpu.derive.solve_outside`); one whose point lies outside the domain at every value of the unknown is refused
before a root is sought, as an extremum is.

Before: "none of the 1 root(s) for c lies in its regime ... the regime conditions, or those of the domain ..., fail there"
(which one, and that a root exists, hidden), and Volkov's loaded latency solved for ``a`` or ``alpha`` at ``x = 0.1``
(``theta_loaded = 276.48 GB/s`` past ``c = 81 GB/s``: no value at any ``a``) printed "check failed ... please report it",
its ``<=`` inequality a bound ``alpha <= 11.66`` where the model has no value at all.

Every expected number is by hand (G80's preset: a = 453 cycle, b = 61 cycle, c = 81 GB/s, alu_lat = 20 cycle, 16 SMs,
128 B/winst, 1.35 GHz) and the domain verdicts by ``Model.evaluate``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

import symgpu
from symgpu import derive, errors

from conftest import toy_header

A, B, C, ALU = 453, 61, 81, 20
#: theta_loaded = x*bytes_per_inst*SMs*clock in GB/s at x = 0.01 winst/cycle/SM
THETA = Fraction(1, 100) * 128 * 16 * Fraction(135, 100)
AT = {"x": 0.01, "alpha": 2.0}


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def _number(text: str, name: str) -> float:
    found = re.search(rf"\b{name} = (-?[0-9.e+-]+)", text)
    assert found, text
    return float(found.group(1))


def test_the_one_root_for_c_lies_below_theta_loaded_and_the_message_names_that_condition(
        volkov: symgpu.Model, cli: Callable[..., tuple[int, str, str]]) -> None:
    # a + b*theta/(c - theta) + alpha*alu_lat = 400 gives c = theta + b*theta/(400 - a - alpha*alu_lat): 400 < 493, so c < theta
    root = THETA + B * THETA / (400 - A - 2 * ALU)
    assert THETA == Fraction(27648, 1000) and 0 < root < THETA
    with pytest.raises(errors.DomainError, match="theta_loaded < c"):  # outside the domain: the model gives no value there
        volkov.evaluate("Latency_loaded", "g80", values={**AT, "c": float(root)})
    code, out, err = cli("solve", "volkov_2016", "Latency_loaded", "--for", "c", "--target", "400", "-p", "g80",
                         "--set", "x=0.01", "--set", "alpha=2")
    assert code == 1 and out == ""
    assert "the root c = " in err and "lies outside the domain where the model gives Latency_loaded a value" in err
    assert "equation s6_5_latency is valid only when theta_loaded < c" in err
    said = err.split("the root ", 1)[1]
    assert _number(said, "c") == pytest.approx(float(root), rel=1e-9)
    assert _number(said.split("but ", 1)[1], "theta_loaded") == pytest.approx(float(THETA), rel=1e-9)
    # the same through the API's evaluate_result
    answer = volkov.solve("Latency_loaded", "c", target=400, preset="g80", values=AT)
    with pytest.raises(errors.NoAnswerHere, match=r"the root c = 9\.5132903\d* GB/s lies outside the domain .* theta_loaded < c"):
        derive.evaluate_result(volkov, answer, "g80", **AT)


def test_a_root_of_the_wrong_sign_is_said_to_break_the_declared_sign(cli: Callable[..., tuple[int, str, str]]) -> None:
    # a + b*theta/(c - theta) = 400 gives theta = c*(400 - a)/(400 - a + b) = 81*(-53)/8, negative: theta is nonnegative
    root = Fraction(C * (400 - A), 400 - A + B)
    assert root < 0
    code, _, err = cli("solve", "volkov_2016", "memory_latency", "--for", "theta", "--target", "400", "-p", "g80")
    assert code == 1 and "breaks its declared sign (theta is declared nonnegative" in err
    assert _number(err.split("the root ", 1)[1], "theta") == pytest.approx(float(root), rel=1e-9)


def test_a_point_outside_the_domain_at_every_value_of_the_unknown_is_refused_as_such(
        volkov: symgpu.Model, cli: Callable[..., tuple[int, str, str]]) -> None:
    # at x = 0.1: theta_loaded = 276.48 GB/s > c = 81 GB/s whatever a or alpha is: no value, so no root and no range
    theta = Fraction(1, 10) * 128 * 16 * Fraction(135, 100)
    assert theta == Fraction(27648, 100) and theta > C
    for name, value in (("a", 300.0), ("a", 1e4), ("alpha", 0.0), ("alpha", 50.0)):
        with pytest.raises(errors.DomainError, match="theta_loaded < c"):
            volkov.evaluate("Latency_loaded", "g80", values={"x": 0.1, "alpha": 2.0, name: value})
    for asked in (("--for", "a", "--set", "alpha=2"), ("--for", "alpha"), ("--for", "alpha", "--relation", "<=")):
        code, out, err = cli("solve", "volkov_2016", "Latency_loaded", "--target", "600", "-p", "g80", "--set", "x=0.1", *asked)
        assert code == 1 and out == "" and "check failed" not in err, err
        assert "the model gives Latency_loaded no value at preset g80 with x = 0.1" in err and f"at any {asked[1]}" in err
        assert "equation s6_5_latency is valid only when theta_loaded < c, but theta_loaded = 276.48 GB/s, c = 81 GB/s" in err


def _queue(tmp_path: Path) -> Path:
    """A user's model: T = s/(1 - r), valid when r < 1 (r nonnegative)."""
    path = tmp_path / "queue.toml"
    path.write_text(toy_header("queue", "Toy queue", "Residence time below saturation.") + """
[symbols.T]
description = "residence time"
unit = "ns"
role = "output"

[symbols.r]
description = "utilization"
unit = "1"
assumptions = ["nonnegative"]

[symbols.s]
description = "service time"
unit = "ns"
assumptions = ["positive"]

[[equations]]
id = "residence"
defines = "T"
rhs = "s/(1 - r)"
valid_when = ["r < 1"]
source = { ref = "toy2026", locator = "Eq. (1)" }
""", encoding="utf-8")
    return path


def test_a_user_models_valid_when_is_named_where_it_excludes_the_only_root(
        tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _queue(tmp_path)
    model = symgpu.load(path)
    # s/(1 - r) = T gives r = 1 - s/T: at s = 10 ns, T = -5 ns, r = 3 (past r < 1); at T = 5 ns, r = -1 (negative)
    with pytest.raises(errors.DomainError, match="r < 1"):
        model.evaluate("T", values={"s": 10.0, "r": 3.0})
    code, _, err = cli("solve", path, "T", "--for", "r", "--target=-5 ns", "--set", "s=10")
    assert code == 1 and "the root r = 3 lies outside the domain where the model gives T a value: equation residence is " \
        "valid only when r < 1, but r = 3" in err, err
    code, _, err = cli("solve", path, "T", "--for", "r", "--target=5 ns", "--set", "s=10")
    assert code == 1 and "the root r = -1 breaks its declared sign (r is declared nonnegative" in err, err
    # solved for s at r = 2: no s gives T a value there (it printed "check failed ... please report it")
    code, _, err = cli("solve", path, "T", "--for", "s", "--target=-5 ns", "--set", "r=2")
    assert code == 1 and "the model gives T no value at the given values r = 2.0, at any s: equation residence is valid " \
        "only when r < 1, but r = 2" in err, err
