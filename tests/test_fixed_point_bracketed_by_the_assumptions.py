"""A fixed point found numerically takes the question's assumptions on its variable as its bracket (an outside tester's
round-13 finding F7): the Hill feedback X = base + peak*theta**2/(theta**2 + h**2) of tests/fixtures/hill_feedback.toml
(peak 100, h 30, base 0 GB/s) has two fixed points, the roots of theta**2 - 100*theta + 900 = 0, 10 and 90 GB/s; with no
finite end it was refused "no finite bracket" naming none tried, and the --assume bounds were ignored. Expected roots by the
quadratic formula here; Model.evaluate confirms each is a fixed point."""

from __future__ import annotations

import math
import re

import pytest

from conftest import FIXTURES
import symgpu

MODEL = FIXTURES / "hill_feedback.toml"
ROOTS = sorted(((100 - s * math.sqrt(100**2 - 4 * 900)) / 2 for s in (1, -1)))  # 10 and 90 GB/s


@pytest.mark.parametrize(("low", "high", "root"), [("50", "200", ROOTS[1]), ("5", "50", ROOTS[0])])
def test_the_assumed_bounds_bracket_the_fixed_point_found(cli, low: str, high: str, root: float) -> None:  # type: ignore[no-untyped-def]
    assert symgpu.load(MODEL).evaluate("X", preset="g", theta=root).to("GB/s").magnitude == pytest.approx(root, rel=1e-12)
    code, out, err = cli("--no-cache", "fixed-point", MODEL, "X", "-p", "g", "--var", "theta",
                         "--assume", f"theta >= {low}", "--assume", f"theta <= {high}")
    assert code == 0, err
    value = float(re.search(r"^  value: ([0-9.e+-]+) GB/s", out, re.M)[1])  # type: ignore[index]
    assert value == pytest.approx(root, rel=1e-9)


def test_a_bracket_holding_no_fixed_point_is_refused_saying_what_was_tried_and_how_to_give_one(cli) -> None:  # type: ignore[no-untyped-def]
    # with no bracket at all the domain is scanned and 90 GB/s answered (the stable root: tests of fixed_point_scan);
    # above 200 GB/s theta - g(theta) > 0 everywhere (g < 100 GB/s), so there is none: the bracket tried is named
    code, _, err = cli("--no-cache", "fixed-point", MODEL, "X", "-p", "g", "--var", "theta", "--assume", "theta >= 200")
    assert code == 2
    assert "(200 GB/s, inf) (low end: --assume theta >= 200 GB/s" in err and "--assume 'theta >= A' --assume 'theta <= B'" in err
