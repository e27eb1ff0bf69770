"""A solve whose root is found numerically (Volkov's H100 model, dram_throughput = 2000 GB/s for n) prints its result at
the value line's ten significant digits, not as the 30-digit number the root finder keeps (a newcomer's question, round
34g); ``--json`` keeps the whole number.

Expected by a second path: Brent's method on ``Model.evaluate`` (dram_throughput(n) - 2000 GB/s at h100_fit, alpha 0,
ilp 2) over n = 1 .. 64 warp/SM.
"""

from __future__ import annotations

import json

from scipy.optimize import brentq

import symgpu

QUESTION = ("solve", "volkov_2016_h100", "dram_throughput", "--for", "n", "--target", "2000 GB/s", "-p", "h100_fit",
            "-s", "alpha=0", "-s", "ilp=2")


def test_the_result_line_has_ten_digits_and_json_the_whole_root(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("volkov_2016_h100")
    root = brentq(lambda n: float(model.evaluate("dram_throughput", "h100_fit", alpha=0, ilp=2, n=n).to("GB/s").magnitude) - 2000,
                  1, 64, xtol=1e-14)
    code, out, err = cli(*QUESTION)
    assert code == 0, err
    assert f"  result: {root:.10g}  [warp/SM]" in out
    code, raw, err = cli(*QUESTION, "--json")
    assert code == 0, err
    exact = json.loads(raw)["result"]
    assert len(exact.replace(".", "")) > 20 and abs(float(exact) - root) < 1e-9 * root
