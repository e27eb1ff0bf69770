"""A time given for a symbol in cycles is converted at the preset's own clock, exactly, wherever a value is given, as
``--set`` and ``--target`` convert it: in a preset FILE (``mem_lat = "0.25 us"`` in a preset that sets
``clock = "2.52 GHz"``), said by ``check`` and ``show``, and in ``compare --set "mem_lat=300 ns"``; both were refused
(outside testers' findings, round 13a F6.1, round 13c F10). Expected values by hand (Fraction) and by
``Model.evaluate`` at the hand value in cycles."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from tests.conftest import assert_one_line_refusal

import symgpu

#: a variant of Volkov's model with one preset, ``rtx``, whose values each test writes
HEAD = ("schema_version = 1", "[model]", 'id = "mygpu"', 'extends = "volkov_2016"', 'title = "t"', 'summary = "s"', "references = []",
        "[presets.rtx]", 'description = "a preset with a latency in us"', 'source = { ref = "h100measured2026", locator = "t" }')


def _variant(tmp_path: Path, values: str) -> Path:
    (tmp_path / "mygpu.toml").write_text("\n".join(HEAD) + "\n" + values, encoding="utf-8")
    return tmp_path / "mygpu.toml"


def test_a_preset_files_time_for_a_cycle_symbol_is_converted_at_its_own_clock(tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _variant(tmp_path, 'based_on = "h100"\n[presets.rtx.values]\nclock = "2.52 GHz"\nmem_lat = "0.25 us"\n')
    cycles = Fraction(25, 10**8) * Fraction(252, 100) * 10**9  # 0.25 us x 2.52 GHz
    assert cycles == 630
    code, out, err = cli("check", str(path))
    assert code == 0, err
    assert "note: preset rtx: mem_lat = 0.25 us = 630 cycle at clock = 2.52 GHz (converted at the preset's clock)" in out
    model = symgpu.load(str(path))
    assert model.presets["rtx"]["mem_lat"].magnitude == 630.0  # the exact product, rounded once
    base = symgpu.load("volkov_2016")
    at = {"alpha": 8.0, "n": 4.0}
    expected = base.evaluate("Latency", "h100", values={**at, "clock": "2.52 GHz", "mem_lat": float(cycles)})
    assert model.evaluate("Latency", "rtx", values=at).magnitude == expected.magnitude
    code, out, err = cli("show", str(path))
    assert code == 0, err
    assert "(converted at the preset's clock: mem_lat = 0.25 us = 630 cycle at clock = 2.52 GHz)" in out


def test_a_preset_files_time_with_no_clock_in_the_preset_is_refused_saying_what_to_write(
        tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = _variant(tmp_path, '[presets.rtx.values]\nmem_lat = "0.25 us"\n')
    code, out, err = cli("eval", str(path), "Latency", "-p", "rtx")
    assert_one_line_refusal(code, out, err, "[presets.rtx].values.mem_lat", "preset rtx gives no clock", "write mem_lat in cycle",
                            "or give clock in the preset")


def test_compare_converts_a_set_time_at_the_presets_clock_in_both_models(cli: Callable[..., tuple[int, str, str]]) -> None:
    cycles = Fraction(300, 10**9) * Fraction(198, 100) * 10**9  # 300 ns x 1.98 GHz (h100's clock)
    assert cycles == 594
    code, out, err = cli("compare", "volkov_2016", "volkov_2016_h100", "Latency", "--preset", "h100", "--set", "mem_lat=300 ns",
                         "--set", "alpha=8", "--over", "n=1:3", "--json")
    assert code == 0, err
    assert "mem_lat = 300 ns = 594 cycle at clock 1.98 GHz (clock of preset h100)" in err
    answer = json.loads(out)
    for side, name in (("a", "volkov_2016"), ("b", "volkov_2016_h100")):
        model = symgpu.load(name)
        by_hand = [float(model.evaluate("Latency", "h100", values={"alpha": 8.0, "n": float(n), "mem_lat": float(cycles)}).magnitude)
                   for n in (1, 2, 3)]
        assert answer[side] == by_hand
