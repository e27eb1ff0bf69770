"""A symbolic extremum (asked without a point) compares each critical point and cusp with every other
candidate (the other kinks, a spike's top beyond a saturation) and with the domain's ends: an --assume
bound, a valid_when end, and the value approached at an open end x -> 0, where no value is a maximum.
Main refused these four shapes of the outside tester (round 14b F2, F5, F9, F11) with a failed check;
now each is answered, and right: at seeded points of its region the answer is compared with an exact
Fraction scan of the shape written by hand (every kink, the ends, a grid), attained where it gives a
number, and no number where the extreme is only approached at x -> 0."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from fractions import Fraction as F
from pathlib import Path

import sympy

import symgpu
from tests.conftest import toy_header

Shape = Callable[[F, dict[str, F]], F]


def _write(tmp_path: Path, name: str, rhs: str, inputs: Sequence[str], preset: dict[str, str], where: str = "") -> Path:
    text = [toy_header(name, "a tester's shape", "One quantity Q of x.")]
    text += [f'[symbols.{s}]\ndescription = "{s}"\nunit = "1"\nassumptions = ["positive"]\n' for s in ("x", *inputs)]
    text.append('[symbols.Q]\ndescription = "Q"\nunit = "1"\nrole = "output"\n')
    text.append(f'[[equations]]\nid = "q"\ndefines = "Q"\nrhs = "{rhs}"\nsource = {{ ref = "toy2026", locator = "q" }}\n'
                + (f'valid_when = ["{where}"]\n' if where else ""))
    text.append('[presets.p]\ndescription = "p"\nsource = { ref = "toy2026", locator = "p" }\n[presets.p.values]\n'
                + "".join(f'{k} = "{v}"\n' for k, v in preset.items()))
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(text))
    return path


def _truth(f: Shape, p: dict[str, F], kinks: Sequence[F], low: F, high: F, kind: str, open_low: bool) -> tuple[F, bool]:
    """(extreme, attained) of the piecewise-linear ``f`` on its domain [low, high] (``open_low``: (0, high], the value at 0
    approached, not attained): the best of every kink inside, the ends and a 1/64 grid, exactly."""
    better = max if kind == "max" else min
    xs = [x for x in (*kinks, high, *(low + F(k, 64) for k in range(int((high - low) * 64) + 1))) if low <= x <= high]
    best = better(f(x, p) for x in xs if not (open_low and x == 0))
    limit = f(F(0), p) if open_low else best  # continuous at 0: its value there is the limit as x -> 0+
    return (limit, False) if better(limit, best) != best else (best, True)


def _at(expr: sympy.Basic, p: dict[str, F]) -> sympy.Basic:
    return expr.xreplace({s: sympy.Rational(p[s.name].numerator, p[s.name].denominator) for s in expr.free_symbols if s.name in p})


def _check(path: Path, kind: str, f: Shape, kinks: Callable[[dict[str, F]], Sequence[F]], points: Sequence[dict[str, F]],
           low: Callable[[dict[str, F]], F], high: F | None, assume: Sequence[str] = ()) -> int:
    """The symbolic answer at each point where it holds: the exact extreme, at a location where the quantity has it;
    no number (or, outside its valid-when, "no maximum" said) where the extreme is only approached as x -> 0. Returns
    how many points it was compared at."""
    answer = symgpu.load(path).extremum("Q", "x", kind, assume=list(assume))
    compared = 0
    for p in points:
        top = high if high is not None else 4 * max(p.values()) + 4  # past every kink: the quantity is monotone beyond
        truth, attained = _truth(f, p, [k for k in kinks(p) if k >= 0], low(p), top, kind, low(p) == 0)
        if not all(bool(_at(c, p)) for c in answer.extra.valid_when or ()):
            said = answer.extra.elsewhere or ""  # where it is not valid: no extremum, if it says so
            assert f"no {kind}imum" not in said or not attained, (p, said, truth)
            compared += f"no {kind}imum" in said
            continue
        value, at = _at(answer.result, p), _at(answer.location, p)
        if not attained:
            assert value is sympy.nan, (p, value, truth)  # the extreme is approached at x -> 0: no maximum there
        else:
            assert value.is_number and value is not sympy.nan, (p, value, truth)
            assert abs(F(str(sympy.nsimplify(value))) - truth) <= F(1, 10**12) * (1 + abs(truth)), (p, value, truth)
            assert abs(f(F(str(sympy.nsimplify(at))), p) - truth) <= F(1, 10**12) * (1 + abs(truth)), (p, at, truth)
        compared += 1
    return compared


def _draws(names: str, seed: int, n: int = 24) -> list[dict[str, F]]:
    rng = random.Random(seed)
    return [{k: F(rng.randint(1, 48), 4) for k in names} for _ in range(n)]


def test_a_spike_beyond_the_saturation_point_is_the_symbolic_maximum(tmp_path: Path) -> None:
    # F2: Min(x, a) + Max(0, h*Min(x - s, s + w - x)); main refused it (its closed form said a wherever a <= s)
    path = _write(tmp_path, "spike", "Min(x, a) + Max(0, h*Min(x - s, s + w - x))", "ahsw",
                  {"a": "10", "h": "1000", "s": "20", "w": "0.002"})

    def f(x: F, p: dict[str, F]) -> F:
        return min(x, p["a"]) + max(F(0), p["h"] * min(x - p["s"], p["s"] + p["w"] - x))
    p1 = {"a": F(10), "h": F(1000), "s": F(20), "w": F(1, 500)}
    assert f(p1["s"] + p1["w"] / 2, p1) == 11  # the spike's top at 20.001 beats the saturation value a = 10
    points = [p1, {"a": F(10), "h": F(10), "s": F(20), "w": F(2)}, *_draws("ahsw", 2)]
    assert _check(path, "max", f, lambda p: [p["a"], p["s"], p["s"] + p["w"] / 2, p["s"] + p["w"]], points, lambda p: F(0), None) >= 20


def test_a_supremum_approached_as_x_tends_to_0_leaves_no_maximum_in_the_symbolic_answer(tmp_path: Path) -> None:
    # F5: Max(Min(x, a), Min(b - x, c)) - x/h; main refused it (its closed form said a - a/h where sup min(b, c) is at x -> 0)
    path = _write(tmp_path, "early", "Max(Min(x, a), Min(b - x, c)) - x/h", "abch", {"a": "3", "b": "5", "c": "2", "h": "4"})

    def f(x: F, p: dict[str, F]) -> F:
        return max(min(x, p["a"]), min(p["b"] - x, p["c"])) - x / p["h"]
    tester = {"a": F(4), "b": F(25, 4), "c": F(35, 8), "h": F(7, 4)}
    assert f(F(0), tester) == F(35, 8) > f(tester["a"], tester)  # sup 4.375 as x -> 0, above a - a/h at x = a
    points = [tester, *_draws("abch", 5)]
    kinks = lambda p: [p["a"], p["c"], p["b"] - p["c"], p["b"] / 2, p["b"] - p["a"], p["b"]]  # noqa: E731
    assert _check(path, "max", f, kinks, points, lambda p: F(0), None) >= 20


def test_a_valid_when_end_inside_a_spike_is_the_symbolic_maximum(tmp_path: Path) -> None:
    # F9: Min(x, a) + Max(0, 1000*Min(x - s, s + 0.002 - x)) valid when x >= s + 0.0015; main refused it
    path = _write(tmp_path, "cut", "Min(x, a) + Max(0, 1000*Min(x - s, s + 0.002 - x))", "as", {"a": "10", "s": "6"},
                  where="x >= s + 0.0015")

    def f(x: F, p: dict[str, F]) -> F:
        return min(x, p["a"]) + max(F(0), 1000 * min(x - p["s"], p["s"] + F(2, 1000) - x))
    start = lambda p: p["s"] + F(3, 2000)  # noqa: E731
    tester = {"a": F(61, 10), "s": F(6)}
    assert f(start(tester), tester) == F(65015, 10000)  # 6.5015 at the domain's first point, above a = 6.1
    points = [tester, *_draws("as", 9, 30)]
    kinks = lambda p: [p["a"], p["s"] + F(1, 1000), start(p)]  # noqa: E731
    assert _check(path, "max", f, kinks, points, start, None) >= 20


def test_an_assume_bound_and_the_open_end_are_the_symbolic_maximum_and_infimum(tmp_path: Path) -> None:
    # F11: Min(Max(x, a), Max(b, c - x)) + x/L with x <= 40; main refused both (the maximum at 40, the infimum at x -> 0)
    path = _write(tmp_path, "bounded", "Min(Max(x, a), Max(b, c - x)) + x/L", "abcL", {"a": "3", "b": "5", "c": "2", "L": "10"})

    def f(x: F, p: dict[str, F]) -> F:
        return min(max(x, p["a"]), max(p["b"], p["c"] - x)) + x / p["L"]
    tester = {"a": F(1), "b": F(3, 4), "c": F(13, 4), "L": F(15, 2)}
    assert f(F(40), tester) == F(73, 12) > f(tester["c"] / 2, tester)  # 6.083 at the bound beats the cusp at c/2
    kinks = lambda p: [p["a"], p["b"], p["c"] - p["b"], p["c"] / 2, p["c"] - p["a"], p["c"]]  # noqa: E731
    points = [tester, *_draws("abcL", 11)]
    assert _check(path, "max", f, kinks, points, lambda p: F(0), F(40), assume=["x <= 40"]) >= 20
    assert _check(path, "min", f, kinks, points, lambda p: F(0), F(40), assume=["x <= 40"]) >= 20
