"""Every value `symgpu validate` cannot compute or compare is reported with the model file, the
validation case and its key (an outside tester's finding, round 13, F2: `FAIL d3: Cannot convert from
'cycle' ([clock]) to 'microsecond' ([time])`, pint's message with no file, key or fix)."""

from __future__ import annotations

from tests.conftest import toy_header

SATURATION = toy_header("sat", "Saturation", "A saturating throughput.") + '''
[symbols.n]
description = "warps"
unit = "warp/SM"
assumptions = ["positive"]

[symbols.n0]
description = "saturation scale"
unit = "warp/SM"
assumptions = ["positive"]

[symbols.peak]
description = "peak bandwidth"
unit = "TB/s"
assumptions = ["positive"]

[symbols.thr]
description = "throughput"
unit = "GB/s"
role = "output"

[[equations]]
id = "sat"
defines = "thr"
rhs = "peak*(1 - exp(-n/n0))"
source = { ref = "toy2026", locator = "1" }

[[derivations]]
id = "beyond_peak"
op = "solve"
quantity = "thr"
variable = "n"
target = "3*peak"

[[derivations]]
id = "ninety"
op = "solve"
quantity = "thr"
variable = "n"
target = "9*peak/10"

[presets.g]
description = "g"
source = { ref = "toy2026", locator = "t" }
[presets.g.values]
n0 = "8 warp/SM"
peak = "2 TB/s"

[[validation]]
id = "never"
preset = "g"
derivation = "beyond_peak"
expect = { result = "20 warp/SM" }
source = { ref = "toy2026", locator = "x", kind = "derived" }

[[validation]]
id = "ninety_n"
preset = "g"
derivation = "ninety"
expect = { result = "18.42 warp/SM" }
source = { ref = "toy2026", locator = "x", kind = "derived" }
'''


def test_a_derivation_that_fails_at_validate_names_the_file_the_case_and_its_key(tmp_path, cli):
    # thr = peak*(1 - exp(-n/n0)) < peak for every n > 0, so thr = 3*peak has no root: the derivation fails
    path = tmp_path / "sat.toml"
    path.write_text(SATURATION, encoding="utf-8")
    code, out, _ = cli("validate", path)
    assert code == 1
    (line,) = [row for row in out.splitlines() if row.strip().startswith("FAIL")]
    assert f"never: {path}: validation never.expect.result: derivation beyond_peak failed: " in line, line
    assert "run 'symgpu derive'" in line
