"""``symgpu compare`` says where B/A has no value: where model A is 0 and B is not (the ratio is unbounded
there, so a finite "max ratio" alone was a silently wrong answer) and where both are 0 (0/0); and it
prints a ratio of -0.0 as 0 (outside checker q31c, questions 41-42)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import toy_header


def _model(folder: Path, model_id: str, rhs: str) -> Path:
    """A one-equation model q = RHS of a nonnegative input x."""
    text = toy_header(model_id, f"q = {rhs}", "compare test") + (
        '\n[symbols.x]\ndescription = "x"\nunit = "1"\nassumptions = ["nonnegative"]\n'
        '\n[symbols.q]\ndescription = "q"\nunit = "1"\nrole = "output"\n'
        f'\n[[equations]]\nid = "q"\ndefines = "q"\nrhs = "{rhs}"\nsource = {{ ref = "toy2026", locator = "1" }}\n')
    path = folder / f"{model_id}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_point_where_a_is_zero_and_b_is_not_is_named_beside_the_finite_extremes(
        cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    a, b = _model(tmp_path, "ratio_a", "x - 1"), _model(tmp_path, "ratio_b", "x")
    # by hand, B/A = x/(x - 1) at x = 0, 1, 2, 3: 0/(-1) = 0, 1/0 (no value, unbounded near it), 2, 3/2
    code, out, err = cli("compare", a, b, "q", "--over", "x=0:3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1] == "  min ratio 0 at x = 0"  # -0.0 is printed as 0
    assert lines[2] == "  max ratio 2 at x = 2"
    assert lines[3] == ("  1 point where ratio_a is 0 and ratio_b is not: B/A is unbounded there (the first at x = 1), "
                        "left out of the min and max")
    code, out, _ = cli("compare", a, b, "q", "--over", "x=0:3", "--json")
    data = json.loads(out)
    assert data["ratio"] == [0.0, None, 2.0, 1.5]
    assert data["no_ratio"] == {"a_zero_b_nonzero": 1, "both_zero": 0}


def test_points_where_both_models_are_zero_are_counted(cli: Callable[..., tuple[int, str, str]]) -> None:
    # arithmetic_throughput is alpha*(...) in both Huang models: 0 and 0 at alpha = 0 for every n
    code, out, err = cli("compare", "prior_huang", "prior_huang_bw", "arithmetic_throughput", "--preset", "fermi",
                         "--over", "n=1:3", "--over", "alpha=0:8:4")
    assert code == 0, err
    assert "  3 points where both models are 0: B/A is 0/0 (the first at n = 1, alpha = 0), left out of the min and max" in out
    code, out, _ = cli("compare", "prior_huang", "prior_huang_bw", "arithmetic_throughput", "--preset", "fermi",
                       "--over", "n=1:3", "--over", "alpha=0:8:4", "--json")
    data = json.loads(out)
    assert data["no_ratio"] == {"a_zero_b_nonzero": 0, "both_zero": 3}
    assert [row[0] for row in data["ratio"]] == [None, None, None]
