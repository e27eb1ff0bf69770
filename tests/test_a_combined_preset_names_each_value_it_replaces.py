"""``-p A+B`` takes A's values, then B's, B's winning (``Model.preset``); where B gives a key A gives too with another
value, one stderr note names each such key with both values, so a run at ``gtx280+table2_example`` is seen to run at
table2_example's 1 GHz and 80 GB/s, not the GTX 280's (a fresh-question audit's finding). Keys given the same value
by both, and combinations that replace nothing, say nothing."""

from __future__ import annotations

import tomllib

from tests.conftest import EQUATIONS


def _values_by_hand(presets: dict, preset: str) -> dict[str, str]:
    """A preset's value texts from the file: those of the preset it is based on, then its own."""
    base = _values_by_hand(presets, presets[preset]["based_on"]) if "based_on" in presets[preset] else {}
    return {**base, **presets[preset]["values"]}


def _replaced_by_hand(first: str, second: str) -> list[tuple[str, str, str]]:
    """(key, A's text, B's text) for each key both presets give, with another value: from the file."""
    presets = tomllib.loads((EQUATIONS / "hong_kim_2009.toml").read_text(encoding="utf-8"))["presets"]
    a, b = _values_by_hand(presets, first), _values_by_hand(presets, second)
    return [(k, a[k], b[k]) for k in b if k in a and a[k] != b[k]]


def test_a_later_preset_that_replaces_values_names_each_with_both_values(cli) -> None:
    replaced = _replaced_by_hand("gtx280", "table2_example")
    assert {k for k, _, _ in replaced} == {"Freq", "Mem_Bandwidth", "Mem_LD", "Departure_del_uncoal", "Active_SMs"}
    code, out, err = cli("eval", "hong_kim_2009", "Exec_cycles_app", "-p", "gtx280+table2_example")
    assert code == 0, err
    expected = "; ".join(f"{k} = {a} (gtx280) by {b} (table2_example)" for k, a, b in replaced)
    assert err == f"symgpu: note: preset gtx280+table2_example: a later part replaces 5 values: {expected}\n"
    assert "Departure_del_coal" not in err  # 4 cycle/txn in both: nothing replaced


def test_presets_that_replace_nothing_say_nothing_and_a_solve_says_it_once(cli) -> None:
    assert _replaced_by_hand("gtx280", "tiled_matmul") == []
    code, out, err = cli("eval", "hong_kim_2009", "Mem_L", "-p", "gtx280+tiled_matmul", "--unit", "us")
    assert code == 0 and "replaces" not in err, err
    code, out, err = cli("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2 us", "--preset", "gtx280+table2_example")
    assert code == 0 and err.count("a later part replaces 5 values") == 1, err
