"""A decimal target that equals a plateau of the quantity only to a double's precision is refused with
what happened and what to give instead, not as a closed form to report (an outside tester's finding:
interval_analysis's t_P plateau N_exec*d_iota/Theta_M = 32/80075 s, given as the printed 399.6253512332188 us);
one that equals it exactly is answered with the plateau's range, though the doubles sum an ulp off it (another
tester's finding: 20.3 us = a 19.3 us launch + a 1 us floor failed its own check)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import symgpu
from conftest import toy_header
from symgpu.evaluate import active

POINT = ("-p", "gtx1080", "-s", "N_exec=1e6", "-s", "L_iota=672", "-s", "d_iota=128")


def test_the_printed_plateau_is_refused_with_the_reason_and_its_expression_answers(cli) -> None:  # type: ignore[no-untyped-def]
    # by hand: the plateau is 1e6 x 128 B / 320.3 GB/s = 32/80075 s, whose shortest double prints as 399.6253512332188 us,
    # not equal to that decimal exactly
    plateau = Fraction(10**6 * 128, 320_300_000_000)
    assert plateau == Fraction(32, 80075) and Fraction("399.6253512332188") / 10**6 != plateau
    code, out, err = cli("solve", "interval_analysis", "t_P", "--for", "P", "--target", "399.6253512332188 us", *POINT)
    assert code == 1 and out == ""
    assert "at a value the target equals only to the precision of a double" in err and "please report" not in err
    code, out, err = cli("solve", "interval_analysis", "t_P", "--for", "P", "--target", "N_exec*d_iota/Theta_M", *POINT)
    assert code == 0, err
    assert "holds for every P where P >= L_iota*Theta_M/(d_iota*phi)" in out


FLOOR = toy_header("floored", "A kernel with a floor", "t_kernel = t_launch + Max(n*size/BW, 1 us).") + """
[symbols.n]
description = "elements"
unit = "1"
assumptions = ["positive"]
[symbols.size]
description = "bytes per element"
unit = "B"
assumptions = ["positive"]
[symbols.BW]
description = "bandwidth"
unit = "GB/s"
assumptions = ["positive"]
[symbols.t_launch]
description = "launch overhead"
unit = "us"
assumptions = ["positive"]
[symbols.t_mem]
description = "memory time"
unit = "us"
role = "intermediate"
[symbols.t_body]
description = "body time, at least 1 us"
unit = "us"
role = "intermediate"
[symbols.t_kernel]
description = "kernel time"
unit = "us"
role = "output"
[[equations]]
id = "mem"
defines = "t_mem"
rhs = "n*size/BW"
source = { ref = "toy2026", locator = "1" }
[[equations]]
id = "body"
defines = "t_body"
rhs = "Max(t_mem, 1)"
source = { ref = "toy2026", locator = "2" }
[[equations]]
id = "kernel"
defines = "t_kernel"
rhs = "t_launch + t_body"
source = { ref = "toy2026", locator = "3" }
[presets.p]
description = "p"
source = { ref = "toy2026", locator = "p" }
[presets.p.values]
t_launch = "19.3 us"
BW = "1555 GB/s"
size = "12 B"
"""


def test_a_target_exactly_on_a_plateau_summed_from_decimals_is_answered_with_the_plateaus_range(
        write_model: Callable[..., Path], cli) -> None:  # type: ignore[no-untyped-def]
    # by hand: 20.3 us = 19.3 us + the 1 us floor exactly, so every n with n*12 B/1555 GB/s <= 1 us is a root:
    # n <= 1555e9 * 1e-6 / 12 = 388750/3 (129583.33); in doubles 19.3e-6 + 1e-6 s is not 20.3e-6 s
    assert Fraction("19.3") + 1 == Fraction("20.3") and 19.3e-6 + 1e-6 != 20.3e-6
    end = Fraction(1555 * 10**9) * Fraction(1, 10**6) / 12
    assert end == Fraction(388750, 3)
    path = write_model(FLOOR, name="floored")
    code, out, err = cli("solve", path, "t_kernel", "--for", "n", "--target", "20.3 us", "-p", "p")
    assert code == 0, err
    assert "holds for every n where n <= BW*lit_1_us/size" in out and "please report" not in err
    # the range's end is the plateau's, by brute force over the evaluate path: 20.3 us at 129583, more at 129584
    model = symgpu.load(path)
    assert [model.evaluate("t_kernel", "p", values={"n": n}).magnitude for n in (1, 129583)] == [20.3, 20.3]
    assert model.evaluate("t_kernel", "p", values={"n": 129584}).magnitude > 20.3
    answer = model.solve("t_kernel", "n", target="20.3 us", preset="p")
    (flat,) = answer.extra.ranges
    assert [active.condition_true(model, flat.when, "p", {"n": n}) for n in (129583, 129584)] == [True, False]
