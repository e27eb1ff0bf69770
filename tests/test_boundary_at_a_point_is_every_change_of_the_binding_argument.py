"""``boundary`` at a preset with no pair named lists exactly the values where the regime changes:
the binding argument of every Min/Max that is reached (a nested one only where its parent binds
through it) or the case of a case table (an outside tester's findings 14b F3, F4, F13: switches of
an inner Min/Max while it binds were missing, crossings of arguments that do not bind were listed,
and a case edge where the value jumps was said to be no boundary).

The expected boundaries are computed here, independently: an exact ``Fraction`` scan of the binding
leaf (the argument that gives the value, followed from the outermost Min/Max down), each change bisected."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction as F
from pathlib import Path

import pytest

HEAD = """schema_version = 1
[model]
id = "{id}"
title = "t"
summary = "Tester shapes."
references = ["t2026"]
[references.t2026]
authors = ["Tester"]
title = "Tester notes"
venue = "notes"
year = 2026
[symbols.x]
description = "x"
unit = "1"
assumptions = ["positive"]
[symbols.Q]
description = "Q"
unit = "1"
role = "output"
"""


def _model(tmp_path: Path, name: str, equation: str, preset: dict[str, str]) -> Path:
    text = HEAD.format(id=name)
    for symbol in preset:
        text += f'[symbols.{symbol}]\ndescription = "{symbol}"\nunit = "1"\nassumptions = ["positive"]\n'
    text += f'[[equations]]\nid = "eq"\ndefines = "Q"\n{equation}\nsource = {{ ref = "t2026", locator = "Eq. 1" }}\n'
    text += '[presets.p]\ndescription = "p"\nsource = { ref = "t2026", locator = "t" }\n[presets.p.values]\n'
    text += "".join(f'{k} = "{v}"\n' for k, v in preset.items())
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def _pick(options: list[tuple[str, F]], largest: bool) -> tuple[str, F]:
    best = max(v for _, v in options) if largest else min(v for _, v in options)
    return next(o for o in options if o[1] == best)  # the first of equal ones


def _changes(leaf: Callable[[F], str], top: float) -> list[float]:
    """Every value in (1e-3, top) where the binding leaf changes: a Fraction scan, each change bisected."""
    xs = [F(10) ** -3 * F(10) ** F(k, 200) for k in range(0, 200 * 3)] + [F(k, 4) for k in range(4, int(top) * 4)]
    xs = sorted(set(xs))
    found = []
    for a, b in zip(xs, xs[1:]):
        if leaf(a) == leaf(b):
            continue
        for _ in range(60):
            m = (a + b) / 2
            a, b = (m, b) if leaf(m) == leaf(a) else (a, m)
        found.append(float(b))
    return found


def _values(out: str) -> list[float]:
    line = next(line for line in out.splitlines() if line.strip().startswith("value:"))
    text = re.sub(r"\(preset \w+\)", "", line.split("value:", 1)[1])
    text = re.sub(r"\([^()]*(\([^()]*\)[^()]*)*\)", "", text)
    return sorted(float(v) for v in text.replace(",", " ").split())


def test_a_switch_of_an_inner_min_while_it_binds_is_a_boundary(cli, tmp_path: Path) -> None:
    """F3: T = Max(L/x, Min(B, c*x), d) at L=100, B=40, c=2, d=30 switches at 10/3, 15 and B/c = 20."""
    L, B, c, d = F(100), F(40), F(2), F(30)

    def leaf(x: F) -> str:
        inner = _pick([("B", B), ("c*x", c * x)], largest=False)
        return _pick([("L/x", L / x), inner, ("d", d)], largest=True)[0]

    expected = _changes(leaf, 200)
    assert expected == pytest.approx([10 / 3, 15, 20], rel=1e-9)
    path = _model(tmp_path, "shC", 'rhs = "Max(L/x, Min(B, c*x), d)"', {"L": "100", "B": "40", "c": "2", "d": "30"})
    code, out, err = cli("boundary", path, "Q", "--for", "x", "--preset", "p")
    assert code == 0, err
    assert _values(out) == pytest.approx(expected, rel=1e-7)
    assert "20 (c*x|B)" in out  # labelled with the regimes on its two sides


@pytest.mark.parametrize(("rhs", "preset", "leaf_of", "top"), [
    ("Min(Max(a/x, b), c + d*x)", {"a": "100", "b": "5", "c": "2", "d": "1"},
     lambda v: lambda x: _pick([_pick([("a/x", v["a"] / x), ("b", v["b"])], True), ("c+d*x", v["c"] + v["d"] * x)], False)[0], 100),
    ("Max(Min(x, a), Min(b, c*x), Min(d, h/x))", {"a": "12", "b": "10", "c": "14", "d": "2", "h": "8"},
     lambda v: lambda x: _pick([_pick([("x", x), ("a", v["a"])], False), _pick([("b", v["b"]), ("c*x", v["c"] * x)], False),
                                _pick([("d", v["d"]), ("h/x", v["h"] / x)], False)], True)[0], 100),
    ("Min(Max(x, a), Max(b, 30 - x), Max(c, d*x - h))", {"a": "4", "b": "6", "c": "0.5", "d": "8", "h": "40"},
     lambda v: lambda x: _pick([_pick([("x", x), ("a", v["a"])], True), _pick([("b", v["b"]), ("30-x", 30 - x)], True),
                                _pick([("c", v["c"]), ("d*x-h", v["d"] * x - v["h"])], True)], False)[0], 100),
])
def test_nested_min_max_switches_are_all_listed(cli, tmp_path: Path, rhs: str, preset: dict[str, str],
                                                leaf_of: Callable[..., Callable[[F], str]], top: int) -> None:
    """F3: the tester's shJ shapes B1 (p), B2 (r), B3 (q): every change of the binding leaf, nothing else."""
    expected = _changes(leaf_of({k: F(v) for k, v in preset.items()}), top)
    path = _model(tmp_path, "shJ", f'rhs = "{rhs}"', preset)
    code, out, err = cli("boundary", path, "Q", "--for", "x", "--preset", "p")
    assert code == 0, err
    assert _values(out) == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize(("preset", "hand"), [
    ({"L": "100", "B": "4", "c": "2", "d": "10"}, [400]),                     # c + 8d = 82 < L never binds: x = B*L only
    ({"L": "100", "B": "40", "c": "2", "d": "30"}, [49 / 15, 8, 9680]),       # L -> c + d*x -> c + 8d -> x/B
])
def test_crossings_of_arguments_that_do_not_bind_are_no_boundary(cli, tmp_path: Path, preset: dict[str, str], hand: list[float]) -> None:
    """F4: thr = x/Max(L, x/B, c + Min(x, 8)*d): 328 (p) and 4000 (q), where arguments that do not bind cross, are not listed."""
    v = {k: F(s) for k, s in preset.items()}

    def leaf(x: F) -> str:
        inner = _pick([("x", x), ("8", F(8))], largest=False)
        return _pick([("L", v["L"]), ("x/B", x / v["B"]), ("c+d*" + inner[0], v["c"] + v["d"] * inner[1])], largest=True)[0]

    expected = _changes(leaf, 20000)
    assert expected == pytest.approx(hand, rel=1e-9)
    path = _model(tmp_path, "shC", 'rhs = "x/Max(L, x/B, c + Min(x, 8)*d)"', preset)
    code, out, err = cli("boundary", path, "Q", "--for", "x", "--preset", "p")
    assert code == 0, err
    assert _values(out) == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize(("s", "hand"), [("20", [20]), ("5", [5, 5.005])])
def test_a_case_edge_where_the_value_jumps_is_a_boundary(cli, tmp_path: Path, s: str, hand: list[float]) -> None:
    """F13: fj = k*x for x < s, else Min(a, h*(x - s) + k*s/2): the case edge s is a boundary though the value jumps there."""
    a, h, k, sv = F(10), F(1000), F(2), F(s)

    def leaf(x: F) -> str:
        return "lo" if x < sv else "hi+" + _pick([("a", a), ("ramp", h * (x - sv) + k * sv / 2)], largest=False)[0]

    expected = _changes(leaf, 100)
    assert expected == pytest.approx(hand, rel=1e-9)
    cases = 'cases = [\n  { id = "lo", when = "x < s", value = "k*x" },\n  { id = "hi", when = "otherwise", value = "Min(a, h*(x - s) + k*s/2)" },\n]'
    path = _model(tmp_path, "shD", cases, {"a": "10", "h": "1000", "s": s, "k": "2"})
    code, out, err = cli("boundary", path, "Q", "--for", "x", "--preset", "p")
    assert code == 0, err
    assert _values(out) == pytest.approx(expected, rel=1e-7)
