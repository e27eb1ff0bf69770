"""A variant's ``extends`` reads a base beside it first; where that file has a bundled model's id, ``list``
calls it hidden and the id loads the bundled one, so both say which file the variant really extends
(outside tester, round 6, finding F12: `list` said "not used" of the file `eval v2_ok` took its numbers from)."""

from __future__ import annotations

import json
from pathlib import Path

from symgpu.cli.app import main

REPO = Path(__file__).resolve().parents[1]


def _folder(tmp_path: Path) -> Path:
    """A model folder holding a user copy of interval_analysis with L_M = 800 cycles and a variant extending it."""
    text = (REPO / "equations" / "interval_analysis.toml").read_text(encoding="utf-8")
    assert 'L_M = "400 cycle"' in text
    (tmp_path / "interval_analysis.toml").write_text(text.replace('L_M = "400 cycle"', 'L_M = "800 cycle"', 1), encoding="utf-8")
    (tmp_path / "v.toml").write_text('schema_version = 1\n[model]\nid = "v"\ntitle = "variant"\nsummary = "s"\n'
                                     'extends = "interval_analysis"\n', encoding="utf-8")
    return tmp_path


def test_eval_of_a_variant_says_it_extends_the_copy_beside_it_not_the_bundled_model(tmp_path, monkeypatch, capsys):
    folder = _folder(tmp_path)
    monkeypatch.setenv("SYMGPU_MODEL_PATH", str(folder))
    # L_K0 = L_M + M*N + N: the copy's 800 + 256 + 16 = 1072 cycles (the bundled base: 400 + 272 = 672)
    for name in ("v", str(folder / "v.toml")):  # by id and by path alike
        assert main(["eval", name, "L_K0", "--preset", "gtx1080", "--set", "M=16", "--set", "N=16"]) == 0
        out, err = capsys.readouterr()
        assert out.strip() == "L_K0 = 1072 cycle"
        assert err.count("\n") == 1 and "warning: model 'v' extends 'interval_analysis' from " + str(folder / "interval_analysis.toml") in err
        assert str(REPO / "equations" / "interval_analysis.toml") in err


def test_list_says_the_hidden_copy_is_the_base_of_the_variant_beside_it(tmp_path, monkeypatch, capsys):
    folder = _folder(tmp_path)
    monkeypatch.setenv("SYMGPU_MODEL_PATH", str(folder))
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("interval_analysis "))
    assert "not used" not in lines[row + 1] and "used as the base of v beside it" in lines[row + 1]
    assert main(["list", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["interval_analysis"]["base_of"] == {str(folder / "interval_analysis.toml"): ["v"]}


def test_a_variant_whose_base_its_id_loads_says_nothing(tmp_path, capsys):
    (tmp_path / "v.toml").write_text('schema_version = 1\n[model]\nid = "v"\ntitle = "variant"\nsummary = "s"\n'
                                     'extends = "interval_analysis"\n', encoding="utf-8")
    assert main(["eval", str(tmp_path / "v.toml"), "L_K0", "--preset", "gtx1080", "--set", "M=16", "--set", "N=16"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "L_K0 = 672 cycle" and err == ""  # 400 + 16*16 + 16
