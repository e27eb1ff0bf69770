"""A domain refusal quotes the inputs with digits enough that, as printed, they fail the condition it names
(an audit's finding: ``valid only when B >= 100 GiB/s; got B = 100 GiB/s`` for B = 99.9999998 GiB/s, the value
rounded to six digits meeting the condition the message said it failed)."""

from __future__ import annotations

from fractions import Fraction

from symgpu.evaluate import refusal_digits
from tests.conftest import read_fixture

POINT = ("--set", "P_peak=1 TFLOP/s", "--set", "I=1 FLOP/B")


def _bounded(write_model, relation: str):  # type: ignore[no-untyped-def]
    """The tiny roofline with B declared in GiB/s and ``valid_when = ["B <relation> 100"]`` (100 GiB/s)."""
    text = (read_fixture("tiny").replace('unit = "B/s"', 'unit = "GiB/s"')
            .replace('rhs = "Min(P_peak, I*B)"', f'rhs = "Min(P_peak, I*B)"\nvalid_when = ["B {relation} 100"]'))
    return write_model(text)


def test_a_value_just_below_the_bound_is_quoted_below_it(cli, write_model) -> None:  # type: ignore[no-untyped-def]
    path = _bounded(write_model, ">=")
    code, out, err = cli("eval", path, "P", "--set", "B=99.9999998 GiB/s", *POINT)
    # six digits round 99.9999998 to 100, which meets B >= 100; nine give it back, below the bound
    assert code == 2 and "valid only when B >= 100 GiB / s; got B = 99.9999998 GiB/s." in err


def test_a_value_in_another_unit_is_quoted_with_the_fewest_digits_below_the_bound(cli, write_model) -> None:  # type: ignore[no-untyped-def]
    path = _bounded(write_model, ">=")
    # 107374182300 B/s = 100 GiB/s - 100 B/s = (100 - 100/2**30) GiB/s = 99.99999990686... GiB/s: six to eight digits
    # round it to 100, nine give 99.9999999 (< 100)
    exact = Fraction(107374182300, 2**30)
    assert Fraction("99.9999999") < 100 and abs(exact - Fraction("99.9999999")) < Fraction(1, 10**7) and exact < 100
    assert round(exact, 6) == 100  # eight significant digits (six decimals) still say 100
    code, out, err = cli("eval", path, "P", "--set", "B=107374182300 B/s", *POINT)
    assert code == 2 and "got B = 99.9999999 GiB/s." in err


def test_a_value_that_fails_at_six_digits_keeps_six_digits(cli, write_model) -> None:  # type: ignore[no-untyped-def]
    path = _bounded(write_model, ">=")
    code, out, err = cli("eval", path, "P", "--set", "B=99.1234567 GiB/s", *POINT)
    assert code == 2 and "got B = 99.1235 GiB/s." in err
    # a strict bound met with equality: the bound itself fails B > 100, quoted as it is
    path = _bounded(write_model, ">")
    code, out, err = cli("eval", path, "P", "--set", "B=100 GiB/s", *POINT)
    assert code == 2 and "valid only when B > 100 GiB / s; got B = 100 GiB/s." in err


def test_the_fewest_digits_are_taken_at_which_every_quoted_value_fails_together() -> None:
    # N >= L/t at N = 9.9999996, L = 100, t = 10: six and seven digits give N = 10, which meets it; eight give 9.9999996
    def fails(q):  # type: ignore[no-untyped-def]
        return not q["N"] >= q["L"] / q["t"]
    assert refusal_digits.failing({"N": 9.9999996, "L": 100.0, "t": 10.0}, fails) == {"N": "9.9999996", "L": "100", "t": "10"}
    # no digits make it fail (the test never holds): each value's shortest round-trip digits
    assert refusal_digits.failing({"x": 0.1 + 0.2}, lambda q: False) == {"x": "0.30000000000000004"}


def test_a_quantity_an_equation_defines_is_quoted_below_the_bound_too(cli, write_model) -> None:  # type: ignore[no-untyped-def]
    # B2 = 2*B (GiB/s), valid_when B2 >= 200: at B = 99.9999999 GiB/s, B2 = 199.9999998, which six digits print as 200
    text = (read_fixture("tiny").replace('unit = "B/s"', 'unit = "GiB/s"')
            .replace('rhs = "Min(P_peak, I*B)"', 'rhs = "Min(P_peak, I*B)"\nvalid_when = ["B2 >= 200"]')
            .replace("[[equations]]", '[symbols.B2]\ndescription = "twice B"\nunit = "GiB/s"\n\n[[equations]]\nid = "twice"\n'
                     'defines = "B2"\nrhs = "2*B"\nsource = { ref = "toy2026", locator = "Eq. (0)" }\n\n[[equations]]', 1))
    path = write_model(text)
    assert f"{2 * 99.9999999:.6g}" == "200" and Fraction("199.9999998") == 2 * Fraction("99.9999999")
    code, out, err = cli("eval", path, "P", "--set", "B=99.9999999 GiB/s", *POINT)
    assert code == 2 and "valid only when B2 >= 200 GiB / s, but B2 = 199.9999998 GiB/s." in err
    code, out, err = cli("eval", path, "P", "--set", "B=99 GiB/s", *POINT)  # failing at six digits: six digits, as before
    assert code == 2 and "but B2 = 198 GiB/s." in err
