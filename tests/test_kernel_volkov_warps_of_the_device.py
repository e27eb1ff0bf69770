"""Volkov's occupancy n from Nsight Compute's achieved occupancy: a percentage of the profiled GPU's peak sustained
warps, converted with that GPU's own maximum warps per SM (the ``--cc`` preset of the occupancy model), never a
constant written for one GPU; a warp count above the device's maximum is never passed on.

Outside tester, round 13a, F2: ``equations/metrics/volkov_2016.toml`` converted with ``max_warps = 64 warp/SM`` on
any device: 85.31 % became 54.6 warps on a CC 8.9 GPU of 48 (the prediction 33 % high), 2x on CC 7.5's 32.
The expected warp counts are the percentage times the CUDA programming guide's maximum resident warps per SM
(Table "Technical Specifications per Compute Capability"), written out here; the prediction at that n is the
model's own ``evaluate`` (the brute-force reference), not the command's output.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

import symgpu
from symgpu import cli, errors
from symgpu.kernel import mapping, ncu

DATA = Path(__file__).resolve().parent.parent / "data"
EXPORT = DATA / "ncu" / "scale_h100_raw_synthetic.csv"
USAGE = DATA / "kernels" / "resource_usage_kernels_sm90.txt"
#: compute capability -> maximum resident warps per SM (CUDA C++ Programming Guide)
MAX_WARPS = {"cc_8_9": 48, "cc_7_5": 32, "cc_9_0": 64}
#: the export's achieved occupancy of the 'scale' launch (sm__warps_active.avg.pct_of_peak_sustained_active)
ACHIEVED = Fraction("85.31") / 100


def export_for(tmp_path: Path, cc: str, percent: str | None = None) -> Path:
    """The bundled export as if profiled on ``cc`` (its CC column), the first launch's achieved occupancy ``percent``."""
    major, minor = cc.removeprefix("cc_").split("_")
    text = EXPORT.read_text().replace('"9.0"', f'"{major}.{minor}"')
    if percent is not None:
        text = text.replace('"85.31"', f'"{percent}"', 1)
    path = tmp_path / f"ncu_{cc}.csv"
    path.write_text(text)
    return path


def usage_for(tmp_path: Path, cc: str) -> Path:
    """The bundled compiler output as if compiled for ``cc``'s own target (no note about another one)."""
    major, minor = cc.removeprefix("cc_").split("_")
    path = tmp_path / f"usage_{cc}.txt"
    path.write_text(USAGE.read_text().replace("'sm_90'", f"'sm_{major}{minor}'"))
    return path


def printed(name: str, out: str) -> float:
    found = re.search(rf"^  {name} = (\S+) ", out, re.MULTILINE)
    assert found, out
    return float(found.group(1))


@pytest.mark.parametrize("cc", ["cc_8_9", "cc_7_5"])
def test_achieved_occupancy_is_converted_with_the_devices_own_maximum_warps(tmp_path, capsys, cc):
    n = ACHIEVED * MAX_WARPS[cc]  # 40.9488 on 8.9, 27.2992 on 7.5
    code = cli.main(["kernel", str(usage_for(tmp_path, cc)), "--kernel", "scale", "--threads", "256", "--cc", cc,
                     "--ncu", str(export_for(tmp_path, cc)), "--model", "volkov_2016", "--preset", "h100"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert printed("n", out) == pytest.approx(float(n), rel=1e-6) and printed("n", out) <= MAX_WARPS[cc]
    assert f"{cc} max_warps_per_SM = {MAX_WARPS[cc]} warp / SM" in out
    model = symgpu.load("volkov_2016")
    inputs = {name: f"{printed(name, out)!r} {model.unit_text(name)}" for name in ("alpha", "gmem_insts", "cuda_insts")}
    expected = model.evaluate("memory_throughput", preset="h100", values={**inputs, "n": f"{float(n)!r} warp/SM"})
    assert f"prediction: memory_throughput = {float(expected.magnitude):.6g} " in out

    code = cli.main(["kernel", str(usage_for(tmp_path, cc)), "--cc", cc, "--ncu", str(export_for(tmp_path, cc)),
                     "--all-launches", "--model", "volkov_2016", "--preset", "h100", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    row = json.loads(out)[0]
    assert row["predicted"] == pytest.approx(float(expected.magnitude), rel=1e-9) and row["note"] == ""


def test_a_percentage_rounded_above_100_gives_the_devices_maximum_and_no_more(tmp_path):
    model = symgpu.load("volkov_2016")
    table = mapping.load(model)
    (launch, *_) = ncu.read(export_for(tmp_path, "cc_8_9", "100.3"))
    n = next(d.value for d in mapping.derive(table, model, launch, "cc_8_9") if d.symbol == "n")
    assert float(n.magnitude) == MAX_WARPS["cc_8_9"]
    (launch, *_) = ncu.read(export_for(tmp_path, "cc_8_9", "60"))
    n = next(d.value for d in mapping.derive(table, model, launch, "cc_8_9") if d.symbol == "n")
    assert float(n.magnitude) == pytest.approx(float(Fraction(60, 100) * MAX_WARPS["cc_8_9"]), rel=1e-12)


def test_a_warp_count_above_the_devices_maximum_is_refused(tmp_path):
    # a mapping whose n reads another percentage than the one of the device's peak: 100 % of 64 warps on a GPU of 48
    model = symgpu.load("volkov_2016")
    text = mapping.path_for("volkov_2016").read_text().replace('expression = "active_pct*max_warps"',
                                                                 'expression = "active_pct*max_warps*4/3"')
    path = tmp_path / "volkov_2016.toml"
    path.write_text(text)
    table = mapping.load(model, path)
    (launch, *_) = ncu.read(export_for(tmp_path, "cc_8_9", "100"))
    with pytest.raises(errors.UsageError, match=r"volkov_2016\.n = 64 warp / SM .* is above its most, max_warps = 48 warp / SM on cc_8_9"):
        mapping.derive(table, model, launch, "cc_8_9")


def test_a_compute_capability_the_export_contradicts_is_refused(tmp_path, capsys):
    # the percentage is of the profiled GPU's peak: --cc must be that GPU's
    code = cli.main(["kernel", str(usage_for(tmp_path, "cc_9_0")), "--kernel", "scale", "--threads", "256", "--cc", "cc_9_0",
                     "--ncu", str(export_for(tmp_path, "cc_8_9")), "--model", "volkov_2016", "--preset", "h100"])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "the export's CC column says 8.9 (the GPU profiled), but --cc is cc_9_0" in err and "give --cc cc_8_9" in err


def test_a_device_value_without_a_compute_capability_is_refused():
    model = symgpu.load("volkov_2016")
    (launch, *_) = ncu.read(EXPORT)
    with pytest.raises(errors.UsageError, match="max_warps is the profiled GPU's max_warps_per_SM; give its compute capability with --cc"):
        mapping.derive(mapping.load(model), model, launch)
