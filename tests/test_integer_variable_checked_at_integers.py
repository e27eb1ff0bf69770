"""The numeric check of an answer over a variable declared integer scans integers (an outside tester's finding F17: the
solve of a waves model for ``blocks`` was left "not checked numerically: blocks = 1e-06 block violates the declared
assumption 'integer'; give a integer value", the scan's first value no integer, the sentence's article wrong)."""

from __future__ import annotations

import symgpu
from tests.conftest import toy_header

_MODEL = toy_header("wavesm", "waves", "tail time by waves of blocks") + '''
[symbols.blocks]
description = "blocks"
unit = "block"
assumptions = ["positive", "integer"]
[symbols.n_SM]
description = "SMs"
unit = "SM"
assumptions = ["positive"]
[symbols.per_SM]
description = "blocks per SM"
unit = "block/SM"
assumptions = ["positive"]
[symbols.t_block]
description = "time per wave"
unit = "us"
assumptions = ["positive"]
[symbols.t_launch]
description = "launch"
unit = "us"
assumptions = ["nonnegative"]
[symbols.t_tail]
description = "tail time"
unit = "us"
role = "output"
[[equations]]
id = "tail_eq"
defines = "t_tail"
cases = [
  { id = "single", when = "blocks <= n_SM*per_SM", value = "t_launch + t_block" },
  { id = "few", when = "blocks <= 4*n_SM*per_SM", value = "t_launch + ceiling(blocks/(n_SM*per_SM))*t_block + 1" },
  { id = "many", when = "otherwise", value = "t_launch + 1.1*ceiling(blocks/(n_SM*per_SM))*t_block" },
]
source = { ref = "toy2026", locator = "1" }
[presets.gpu]
description = "GPU"
source = { ref = "toy2026", locator = "p" }
[presets.gpu.values]
n_SM = "108 SM"
per_SM = "4 block/SM"
t_block = "12 us"
t_launch = "3 us"
'''


def test_a_range_answer_over_an_integer_variable_is_checked_at_integers(write_model) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load(write_model(_MODEL, name="wavesm"))
    found = model.solve("t_tail", "blocks", target="52 us", preset="gpu")
    assert found.certificate is not None and found.certificate.checked, found.certificate
    assert "integer" not in found.certificate.unchecked
    # by hand: 3 + 12*w + 1 = 52 at w = 4 waves of 432 blocks, in the "few" case (blocks <= 1728): 1296 < blocks <= 1728;
    # brute force over Model.evaluate at every whole number of blocks agrees (the certificate checks the answer's set
    # against the same evaluate path at integers)
    hits = [b for b in range(1, 3001) if abs(model.evaluate("t_tail", "gpu", values={"blocks": b}).to("us").magnitude - 52) < 1e-9]
    assert hits == list(range(1297, 1729))
    assert "the relation holds at the" in found.certificate.checks[0] and "and at no other" in found.certificate.checks[0]

def test_a_non_integer_value_of_an_integer_input_asks_for_an_integer_value(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("eval", write_model(_MODEL, name="wavesm"), "t_tail", "-p", "gpu", "--set", "blocks=1.5")
    assert code == 2 and out == ""
    assert "violates the declared assumption 'integer'; give an integer value" in err
