"""A root that is exactly a case's edge is checked there, not at the double beside it (outside round 11b, F19): w = L
below L = 300 ns and L + 1000 ns from there on; w = 1300 ns is L = 1300 - 1000 = 300 ns exactly, the edge, in the
second case. The closed form's IEEE value, 1.3e-6 s - 1e-6 s, is 299.99999999999994 ns, in the first case, and the
certificate refused the right answer. Expected values by hand."""

from __future__ import annotations

from conftest import toy_header

MODEL = toy_header("edge", "a case edge", "a root on the edge between two cases") + """
[symbols.L]
description = "latency"
unit = "ns"
assumptions = ["positive"]

[symbols.w]
description = "its cost"
unit = "ns"
role = "output"

[[equations]]
id = "ew"
defines = "w"
cases = [ { id = "low", when = "L < 300", value = "L" }, { id = "high", when = "otherwise", value = "L + 1000" } ]
source = { ref = "toy2026", locator = "Eq. (1)" }

[presets.p]
description = "the edge"
source = { ref = "toy2026", locator = "Table 1" }
[presets.p.values]
L = "0.3 us"
"""


def test_a_root_on_the_edge_of_the_second_case_is_that_edge(cli, write_model):
    path = write_model(MODEL, name="edge")
    code, out, err = cli("--no-cache", "solve", str(path), "w", "--for", "L", "--target", "1300 ns", "-p", "p")
    assert code == 0, err
    assert "1 root satisfies the relation" in out
    code, out, err = cli("--no-cache", "eval", str(path), "w", "-p", "p")  # 0.3 us is the edge itself: the second case
    assert code == 0 and out.startswith("w = 1300 ns"), err
