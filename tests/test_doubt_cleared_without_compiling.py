"""A near tie of equal doubles is cleared of doubt without building its test (issue 31): where every input of
the relation is a whole double and every input and side is well within ``WHOLE_LIMIT`` (``stepwise._clear_of_doubt``),
the scalar path answers "no doubt" without building, rescaling and compiling :func:`stepwise.may_be_unequal`'s
condition (0.16 s of ``regimes occupancy ... --preset cc_3_5``, whose whole parts tie at every whole input).
Proved here against that compiled condition itself, built as the scalar path built it before, at seeded points the
symbols' declarations admit (whole, fractional, zero, near and beyond 2**53 in base units), in bundled models and in
fixtures with scaled units (us, ns, 1/us), integer inputs and ``Min``s that share an argument."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
import sympy
from conftest import FIXTURES

import symgpu
from symgpu.evaluate import compiler, input_values, scaling, stepwise

MODELS = ["hong_kim_2009", "occupancy", "prior_sim", "mdm_2019"]
FIXTURE_MODELS = ["whole_part_tie", "shared_min_tie", "decimal_tie_beyond_whole"]
POINTS = 40


def _compiled_test(model: symgpu.Model, relation: sympy.Basic, given: frozenset[str]) -> tuple[tuple[str, ...], Any]:
    """The compiled ``may_be_unequal`` test of ``relation``, built as ``stepwise._holds`` builds it when it compiles."""
    inputs = stepwise._relation_inputs(model, relation, given)
    condition = stepwise.may_be_unequal(model, relation.lhs, relation.rhs, [model.symbols[a] for a in inputs])
    based = scaling.base_expression(model, condition)
    args = tuple(sorted(s.name for s in based.free_symbols))
    return args, compiler.base_function(model, [model.symbols[a] for a in args], based)


def _verdict(compiled: tuple[tuple[str, ...], Any], known: dict[str, Any]) -> bool:
    """The compiled test's verdict at ``known`` as ``stepwise._holds`` reads it (an error: True, decided exactly)."""
    args, function = compiled
    with np.errstate(all="ignore"):
        try:
            return bool(function(*[known[a] for a in args]))
        except (ArithmeticError, TypeError, ValueError, KeyError):
            return True


def _admissible(model: symgpu.Model, name: str, rng: random.Random) -> float:
    """A base-unit value the symbol's declarations admit: mostly small whole numbers, else a fraction, 0, or a
    whole number near or beyond what 2**53 stands for in its declared unit."""
    symbol = model.symbols[name]
    scale = float(scaling.unit_scale(model.units[name]))
    whole = [1.0, 2.0, 3.0, 7.0, 32.0, 256.0, 1000.0]
    if symbol.is_positive is not True:
        whole.append(0.0)
    large = [np.floor(2.0**52 * scale * 0.99), np.floor(2.0**53 * scale * 1.01), 2.0**60 * scale]
    fractional = [] if symbol.is_integer else [0.5, 0.75, 2.5, 1e-9]
    pool = rng.choice([whole, whole, whole, whole, large] + ([fractional] if fractional else []))
    return float(rng.choice(pool))


def _relations(model: symgpu.Model) -> list[tuple[str, int, sympy.Basic]]:
    """Each step's case and whole-part relations (``stepwise._case_sides``): (step, index, relation)."""
    found = []
    for step in sorted(model.defining):
        sides = stepwise._case_sides(model, step)
        if sides is not None:
            found += [(step, i, r) for i, r in enumerate(sides[2])]
    return found


#: integer and scaled inputs (us, ns, 1/us) inside a whole part and a case condition
SCALED_WHOLE = """schema_version = 1
[model]
id = "scaled_whole"
title = "scaled whole parts"
summary = "whole parts and cases of integer and scaled inputs"
references = ["me"]
[references.me]
authors = ["me"]
title = "t"
venue = "v"
year = 2026
[symbols]
n = { description = "warps", unit = "1", assumptions = ["positive", "integer"] }
k = { description = "count", unit = "1", assumptions = ["nonnegative"] }
t = { description = "time", unit = "us", assumptions = ["positive"] }
L = { description = "latency", unit = "ns", assumptions = ["positive"] }
B = { description = "rate", unit = "1/us", assumptions = ["positive"] }
waves = { description = "waves", unit = "1", role = "output" }
q = { description = "case", unit = "cycle", role = "output" }
[[equations]]
id = "waves"
defines = "waves"
rhs = "floor(n*t/L) + ceiling(B*L/(k + 1))"
source = { ref = "me", locator = "1" }
[[equations]]
id = "q"
defines = "q"
cases = [
  { id = "big", when = "n*t > k*L", value = "200" },
  { id = "small", when = "otherwise", value = "100" },
]
source = { ref = "me", locator = "2" }
"""


def _load(name: str, write_model: Any) -> symgpu.Model:
    if name == "scaled_whole":
        return symgpu.load(write_model(SCALED_WHOLE, name="scaled_whole"))
    return symgpu.load(FIXTURES / f"{name}.toml") if name in FIXTURE_MODELS else symgpu.load(name)


@pytest.mark.parametrize("name", MODELS + FIXTURE_MODELS + ["scaled_whole"])
def test_a_relation_cleared_of_doubt_is_one_its_compiled_test_finds_no_doubt_in(name: str, write_model: Any) -> None:
    model = _load(name, write_model)
    rng = random.Random(name)
    given: frozenset[str] = frozenset()
    cleared = 0
    for step, index, relation in _relations(model):
        how = stepwise.plan(model, step, given)
        bounds = stepwise._doubt_bounds(model, relation, given)
        compiled = _compiled_test(model, relation, given)
        args, function, _ = stepwise._case_sides(model, step)
        for _ in range(POINTS):
            known: dict[str, Any] = {}
            values = {n: _admissible(model, n, rng) for n in sorted(how.inputs)}
            if not stepwise._read(how.inputs, values, known) or not stepwise._run(model, how.steps, known):
                continue
            with np.errstate(all="ignore"):
                numbers = function(*[known[a] for a in args])
            left, right = float(numbers[2 * index]), float(numbers[2 * index + 1])
            if not (np.isfinite(left) and np.isfinite(right)):
                continue
            side = max(abs(left), abs(right))  # both sides within what the check reads of one of them
            if stepwise._clear_of_doubt(bounds, known, side):
                cleared += 1
                assert _verdict(compiled, known) is False, (name, step, relation, values)
    assert cleared > 0  # the cheap path is taken, not only refused


def test_the_occupancy_preset_point_is_cleared_at_every_tie_the_scalar_path_meets() -> None:
    # at cc_3_5 with 256 threads, 40 registers and 3073 B of shared memory every input is a whole number of its base
    # unit and the whole parts tie exactly (floor(a) with a whole): each tie is cleared, and by the compiled test too
    model = symgpu.load("occupancy")
    given: frozenset[str] = frozenset()
    values = {"threads_per_block": 256, "regs_per_thread": 40, "smem_per_block": "3073 B/block"}
    quantity = "active_blocks_per_SM"
    merged = input_values.merge_values(model, "cc_3_5", values)
    how = stepwise.plan(model, quantity, given)
    names = sorted(how.inputs)
    known: dict[str, Any] = {}
    magnitudes = dict(zip(names, input_values.base_magnitudes(model, "cc_3_5", values, merged, names)))
    assert stepwise._read(how.inputs, magnitudes, known) and stepwise._run(model, how.steps, known)
    ties = 0
    for step in how.steps:
        sides = stepwise._case_sides(model, step)
        if sides is None:
            continue
        args, function, relations = sides
        numbers = function(*[known[a] for a in args])
        for left, right, relation in zip(numbers[0::2], numbers[1::2], relations):
            if float(left) != float(right) or stepwise.equal_is_exact(model, relation.lhs, relation.rhs):
                continue
            ties += 1
            assert stepwise._clear_of_doubt(stepwise._doubt_bounds(model, relation, given), known, float(left))
            assert _verdict(_compiled_test(model, relation, given), known) is False
    assert ties > 0
