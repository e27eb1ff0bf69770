"""A limit toward a pole that only the given values make (``r = 1/(x*y - z)`` as ``z -> 1`` at
``x = y = 1``): taken with ``x``, ``y`` as symbols it is ``1/(x*y - 1)``, an unsigned infinity at the
point, and the default side and the two-sided question ended in "check failed ... please report it".
At the point the limit is taken again with the values in: by hand ``1/(1 - z)`` is ``-oo`` from above
(the default side: ``z`` is declared positive), ``+oo`` from below, and has no two-sided limit."""

from __future__ import annotations

import re

import pytest

from tests.conftest import FIXTURES

MODEL = str(FIXTURES / "pole_product.toml")
AT_ONE = ("--set", "x=1", "--set", "y=1")


def _value(out: str) -> str:
    found = re.search(r"^  value: (\S+)", out, re.M)
    assert found, out
    return found.group(1)


@pytest.mark.parametrize(("side", "expected"), [((), "-oo"), (("--dir=+",), "-oo"), (("--dir=-",), "oo")])
def test_one_sided_limit_at_a_pole_the_values_make_has_the_sign_of_that_side(cli, side, expected):
    code, out, err = cli("--no-cache", "limit", MODEL, "r", "--var", "z", "--to", "1", *AT_ONE, *side)
    assert code == 0, err
    assert _value(out) == expected and re.search(r"^  result: " + re.escape(expected) + r"\s", out, re.M)


def test_two_sided_limit_at_that_pole_is_refused_as_none_not_as_a_failed_check(cli):
    code, out, err = cli("--no-cache", "limit", MODEL, "r", "--var", "z", "--to", "1", *AT_ONE, "--dir=+-")
    assert code != 0 and out == ""
    assert "no two-sided limit at the given values" in err and "please report" not in err


def test_limit_away_from_the_pole_keeps_its_closed_form(cli):
    code, out, err = cli("--no-cache", "limit", MODEL, "r", "--var", "z", "--to", "1", "--set", "x=2", "--set", "y=1")
    assert code == 0, err
    assert "result: 1/(x*y - 1)" in out and _value(out) == "1"  # 1/(2*1 - 1) = 1
