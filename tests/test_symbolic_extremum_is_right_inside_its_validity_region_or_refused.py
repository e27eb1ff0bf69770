"""A symbolic extremum (asked without a point) is either right at the points of its own "valid when"
region or refused (a failed check, exit 1), never printed wrong with a certificate. An outside tester
(round 14b) found four shapes whose closed form was certified at the presets and wrong inside its region:
F2 a saturating ramp plus a narrow spike beyond the saturation, F5 a Max of two Mins minus a slope whose
supremum is approached as x -> 0, F9 a valid_when end inside a spike, F11 an --assume bound the maximum
sits at (and an infimum approached as x -> 0). Each truth here is an exact Fraction scan of the
shape written by hand, at the tester's counterexample points."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction as F
from pathlib import Path

import sympy

import symgpu
from symgpu import errors

HEAD = ('schema_version = 1\nmodel = {{ id = "{id}", title = "t", summary = "A tester\'s shape.", references = ["t"] }}\n'
        'references = {{ t = {{ authors = ["Tester"], title = "notes", venue = "notes", year = 2026 }} }}\n')


def _model(tmp_path: Path, name: str, rhs: str, inputs: str, presets: dict[str, dict[str, str]], valid_when: str = "") -> Path:
    lines = [HEAD.format(id=name)]
    for s in ["x", *inputs]:
        lines.append(f'[symbols.{s}]\ndescription = "{s}"\nunit = "1"\nassumptions = ["positive"]\n')
    lines.append(f'[symbols.Q]\ndescription = "Q"\nunit = "1"\nrole = "output"\n')
    lines.append(f'[[equations]]\nid = "q"\ndefines = "Q"\nrhs = "{rhs}"\nsource = {{ ref = "t", locator = "q" }}\n'
                 + (f'valid_when = ["{valid_when}"]\n' if valid_when else ""))
    for pid, values in presets.items():
        lines.append(f'[presets.{pid}]\ndescription = "{pid}"\nsource = {{ ref = "t", locator = "t" }}\n[presets.{pid}.values]')
        lines.extend(f'{k} = "{v}"' for k, v in values.items())
        lines.append("")
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _scan(f: Callable[[F], F], xs: Sequence[F], kind: str) -> F:
    values = [f(x) for x in xs]
    return max(values) if kind == "max" else min(values)


def _grid(hi: F, kinks: Sequence[F], step: F = F(1, 1000)) -> list[F]:
    """0.001-spaced points of (0, hi] and each kink with the points 1e-9 beside it."""
    n = int(hi / step)
    return [step * k for k in range(1, n + 1)] + [k + d for k in kinks for d in (F(0), F(1, 10**9), -F(1, 10**9)) if 0 < k + d <= hi]


def _at(expr: sympy.Basic, point: dict[str, F]) -> sympy.Basic:
    return expr.xreplace({s: sympy.Rational(point[s.name].numerator, point[s.name].denominator)
                          for s in expr.free_symbols if s.name in point})


def _right_or_refused(path: Path, kind: str, counterexamples: list[tuple[dict[str, F], F, bool]], assume: Sequence[str] = ()) -> None:
    """Asked without a point: refused (a failed check), or, at every counterexample point where the answer's
    stated conditions hold and it gives a number, that number is the exact truth, attained (no number where the
    truth is only approached)."""
    try:
        answer = symgpu.load(path).extremum("Q", "x", kind, assume=list(assume))
    except errors.CertificateError as exc:
        assert "a point of its region" in str(exc) or "preset" in str(exc)
        return
    for point, truth, attained in counterexamples:
        held = all(bool(_at(c, point)) for c in answer.extra.valid_when or ())
        value = _at(answer.result, point) if isinstance(answer.result, sympy.Basic) else None
        if not held or value is None or not value.is_number or value is sympy.nan:
            assert held is False or not attained  # no value where a maximum exists: the answer must give it
            continue
        assert attained and sympy.Rational(truth.numerator, truth.denominator) == value, (point, value, truth)


def test_a_spike_beyond_the_saturation_is_the_maximum_of_the_symbolic_answer_or_it_is_refused(tmp_path: Path) -> None:
    # tester 14b F2: fs = Min(x, a) + Max(0, h*Min(x - s, s + w - x)); main said "a" for every a <= s, certified at p1
    path = _model(tmp_path, "f2", "Min(x, a) + Max(0, h*Min(x - s, s + w - x))", ["a", "h", "s", "w"],
                  {"p1": {"a": "10", "h": "1000", "s": "20", "w": "0.002"}, "p4": {"a": "10", "h": "3", "s": "4", "w": "0.5"}})
    points = []
    for a, h, s, w in [(F(10), F(1000), F(20), F(1, 500)), (F(10), F(10), F(20), F(2))]:
        def f(x: F, a: F = a, h: F = h, s: F = s, w: F = w) -> F:
            return min(x, a) + max(F(0), h * min(x - s, s + w - x))
        truth = _scan(f, _grid(2 * s, [a, s, s + w / 2, s + w]), "max")
        assert truth == a + h * w / 2  # the spike's top, beyond the saturation: 11 at p1, 20 on the wide one
        points.append(({"a": a, "h": h, "s": s, "w": w}, truth, True))
    _right_or_refused(path, "max", points)


def test_a_supremum_approached_as_x_tends_to_0_is_no_maximum_of_the_symbolic_answer(tmp_path: Path) -> None:
    # tester 14b F5: E9 = Max(Min(x, a), Min(b - x, c)) - x/h; main said a - a/h at x = a where sup min(b, c) is at x -> 0
    path = _model(tmp_path, "f5", "Max(Min(x, a), Min(b - x, c)) - x/h", ["a", "b", "c", "h"],
                  {"p": {"a": "3", "b": "5", "c": "2", "h": "4"}, "q": {"a": "7", "b": "2", "c": "0.5", "h": "10"}})
    points = []
    for a, b, c, h in [(F(4), F(25, 4), F(35, 8), F(7, 4)), (F(29, 4), F(9), F(15, 2), F(33, 4)), (F(9, 4), F(4), F(7, 4), F(1))]:
        def f(x: F, a: F = a, b: F = b, c: F = c, h: F = h) -> F:
            return max(min(x, a), min(b - x, c)) - x / h
        near_0 = f(F(1, 10**9))
        assert near_0 > _scan(f, _grid(2 * b, [a, b - c, b]), "max") - F(1, 10**6)  # nothing beats the approach to 0
        assert near_0 > a - a / h  # and main's a - a/h is below it
        points.append(({"a": a, "b": b, "c": c, "h": h}, min(b, c), False))
    _right_or_refused(path, "max", points)


def test_a_valid_when_end_inside_a_spike_is_the_maximum_of_the_symbolic_answer_or_it_is_refused(tmp_path: Path) -> None:
    # tester 14b F9: G4 = Min(x, a) + Max(0, 1000*Min(x - s, s + 0.002 - x)), valid when x >= s + 0.0015; main said "a"
    path = _model(tmp_path, "f9", "Min(x, a) + Max(0, 1000*Min(x - s, s + 0.002 - x))", ["a", "s"],
                  {"p": {"a": "10", "s": "6"}, "r": {"a": "3", "s": "6"}}, valid_when="x >= s + 0.0015")
    a, s = F(61, 10), F(6)
    start = s + F(3, 2000)

    def f(x: F) -> F:
        return min(x, a) + max(F(0), 1000 * min(x - s, s + F(2, 1000) - x))
    truth = _scan(f, [x for x in _grid(2 * a, [start, a, s + F(1, 1000)]) if x >= start], "max")
    assert truth == f(start) == F(65015, 10000)  # 6.5015 at the domain's end 6.0015, above a = 6.1
    _right_or_refused(path, "max", [({"a": a, "s": s}, truth, True)])


def test_an_assume_bound_and_an_open_end_are_the_extrema_of_the_symbolic_answer_or_it_is_refused(tmp_path: Path) -> None:
    # tester 14b F11: K5 = Min(Max(x, a), Max(b, c - x)) + x/L with x <= 40: the maximum at 40, the infimum at x -> 0
    path = _model(tmp_path, "f11", "Min(Max(x, a), Max(b, c - x)) + x/L", ["a", "b", "c", "L"],
                  {"p": {"a": "3", "b": "5", "c": "2", "L": "10"}, "q": {"a": "7", "b": "2", "c": "0.5", "L": "3"}})

    def shape(a: F, b: F, c: F, big_l: F) -> Callable[[F], F]:
        return lambda x: min(max(x, a), max(b, c - x)) + x / big_l
    a, b, c, big_l = F(1), F(3, 4), F(13, 4), F(15, 2)
    f = shape(a, b, c, big_l)
    top = _scan(f, _grid(F(40), [a, c - b, c]), "max")
    assert top == f(F(40)) == b + F(40) / big_l  # 73/12 at the bound
    _right_or_refused(path, "max", [({"a": a, "b": b, "c": c, "L": big_l}, top, True)], assume=["x <= 40"])
    a, b, c, big_l = F(29, 4), F(7), F(45, 4), F(10)
    f = shape(a, b, c, big_l)
    low = _scan(f, _grid(F(40), [a, c - b, c]), "min")
    assert a < f(F(1, 10**9)) < low <= a + F(1, 1000) / big_l  # inf a = 29/4 as x -> 0, never attained: no minimum
    assert (big_l * b - b + c) / big_l == f(c - b) > low  # main's (L*b - b + c)/L, the value at x = c - b, is above it
    _right_or_refused(path, "min", [({"a": a, "b": b, "c": c, "L": big_l}, a, False)], assume=["x <= 40"])


def test_the_command_line_answers_the_spike_shape_with_exit_0_checked_at_points_of_its_region(tmp_path: Path) -> None:
    # refused with exit 1 before fix24a (the closed form said a wherever a <= s); now each form is compared with the spike's top
    path = _model(tmp_path, "f2cli", "Min(x, a) + Max(0, h*Min(x - s, s + w - x))", ["a", "h", "s", "w"],
                  {"p1": {"a": "10", "h": "1000", "s": "20", "w": "0.002"}})
    done = subprocess.run([sys.executable, "-m", "symgpu", "extremum", str(path), "Q", "--over", "x", "--max"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-400:]
    assert "checked numerically at preset p1" in done.stdout and "the same at each drawn point of its region" in done.stdout
