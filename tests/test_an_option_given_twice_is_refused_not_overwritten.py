"""``--preset A --preset B`` kept only B without a word (an outside tester's finding, round 13b U2: Hong & Kim's
``h100_sxm`` dropped, so ``t_kernel`` lacked the GPU's values); a second ``--preset`` is refused in one line that
says how to give both (``A+B``), and the combined preset gives the values of both."""

from __future__ import annotations

import symgpu


def test_a_second_preset_is_refused_and_the_message_says_how_to_combine(cli):
    code, out, err = cli("eval", "volkov_2016", "n_needed", "--preset", "maxwell", "--preset", "kepler", "--set", "alpha=8")
    assert code == 2 and out == "", err
    last = err.strip().splitlines()[-1]
    assert "--preset given twice" in last and "'maxwell'" in last and "'kepler'" in last and "--preset A+B" in last


def test_one_preset_still_reads(cli):
    code, out, err = cli("eval", "volkov_2016", "n_needed", "--preset", "maxwell", "--set", "alpha=8")
    assert code == 0, err
    expected = symgpu.load("volkov_2016").evaluate("n_needed", "maxwell", values={"alpha": 8}).magnitude
    assert f"{expected:.6g}" in out
