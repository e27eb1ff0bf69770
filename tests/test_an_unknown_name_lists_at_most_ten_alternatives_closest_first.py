"""A message about a name the model does not know lists at most 10 alternatives, the closest first, and says how many
more there are (README, "Reliability"). An outside tester's finding: ``symgpu measured volkov_2016_ilp nosuch`` printed
all 87 quantities on one 1,600-character line, and so did eval, fit, an unknown symbol, preset or derivation."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from symgpu import suggest
from conftest import assert_one_line_refusal

Cli = Callable[..., tuple[int, str, str]]
DATA = "data/h100/stream_read_vs_warps_model.csv"


def test_up_to_ten_names_are_all_listed_in_the_order_given_and_more_are_cut_to_five_with_a_count() -> None:
    ten = [f"q{i}" for i in range(10, 0, -1)]
    assert suggest.alternatives("zz", ten) == ", ".join(ten)
    eleven = ten + ["q0"]
    assert suggest.alternatives("zz", eleven) == "q10, q9, q8, q7, q6, and 6 more; symgpu show MODEL lists them"
    assert suggest.alternatives("q0x", eleven, "see X").startswith("closest q0")
    assert suggest.alternatives("q0x", eleven, "see X").endswith(f"and {11 - len(suggest.closest('q0x', eleven, 5))} more; see X")


def _listed(err: str, label: str) -> list[str]:
    inside = err.split(f"({label}: ", 1)[1]
    head = inside.split("; ", 1)[0] if " more; " in inside else inside.split(")", 1)[0]
    return [n.strip() for n in head.removeprefix("closest ").split(",") if n.strip() and " more" not in n]


@pytest.mark.parametrize("argv", [
    ("eval", "volkov_2016_ilp", "nosuch", "--preset", "h100"),
    # an input (mem_lat) is no longer refused by eval: its value at the point is printed (round 15a D2,
    # test_given_values_across_the_sm_count_and_warp_size.py)
    ("measured", "volkov_2016_ilp", "nosuch", "--data", DATA, "--preset", "h100"),
    ("fit", "volkov_2016_ilp", "nosuch", "--data", DATA, "--preset", "h100", "--params", "a"),
])
def test_a_name_that_is_no_quantity_is_refused_with_ten_names_at_most_and_a_count_of_the_rest(cli: Cli, argv: tuple[str, ...]) -> None:
    from symgpu import load

    quantities = load("volkov_2016_ilp").defining   # 87 quantities: far more than ten
    code, out, err = cli(*argv)
    assert_one_line_refusal(code, out, err, f"'{argv[2]}' is not a quantity defined by an equation", "symgpu show MODEL lists them")
    shown = _listed(err, "quantities")
    assert 0 < len(shown) <= 10 and set(shown) <= set(quantities)
    assert f"and {len(quantities) - len(shown)} more" in err
    assert len(err) < 400


def test_a_misspelt_quantity_is_answered_with_the_right_one_first(cli: Cli) -> None:
    code, out, err = cli("eval", "volkov_2016_ilp", "dram_throughputt", "--preset", "h100")
    assert_one_line_refusal(code, out, err, "(quantities: closest dram_throughput,")


@pytest.mark.parametrize(("argv", "label", "known"), [
    (("fit", "volkov_2016_ilp", "dram_throughput", "--data", DATA, "--preset", "h100", "--params", "nosuch"), "declared", "symbols"),
    (("sweep", "volkov_2016_ilp", "n_needed", "--preset", "h100", "--grid", "nosuch=1:2", "-o", "{tmp}/x.csv"), "declared", "symbols"),
    (("solve", "volkov_2016_ilp", "n_needed", "--for", "alpha", "--keep", "nosuch"), "defined", "defining"),
    (("eval", "volkov_2016_ilp", "n_needed", "--preset", "nosuch"), "presets", "presets"),
])
def test_an_unknown_symbol_preset_or_kept_quantity_lists_ten_names_at_most(cli: Cli, argv: tuple[str, ...], label: str,
                                                                             known: str, tmp_path: Path) -> None:
    from symgpu import load

    names = getattr(load("volkov_2016_ilp"), known)
    assert len(names) > 10
    code, out, err = cli(*(a.replace("{tmp}", str(tmp_path)) for a in argv))
    assert_one_line_refusal(code, out, err, "nosuch")
    shown = _listed(err, label)
    assert 0 < len(shown) <= 10 and set(shown) <= set(names)
    assert re.search(rf"and {len(names) - len(shown)} more; ", err)


def test_an_unknown_derivation_lists_ten_at_most(cli: Cli) -> None:
    from symgpu import load

    ids = [d.id for d in load("volkov_2016_ilp").definition.derivations]
    code, out, err = cli("derive", "volkov_2016_ilp", "knee_memor")
    assert_one_line_refusal(code, out, err, "no derivation knee_memor (derivations: closest knee_memory,",
                            "the model file's [[derivations]] list them")
    assert f"and {len(ids) - len(_listed(err, 'derivations'))} more" in err
