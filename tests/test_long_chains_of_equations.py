"""A chain of equations each using the next (F13 of the sixth outside test): before, a chain of 1000
passed ``check`` and then ``eval``/``solve`` ended in "internal error: RecursionError". Now a chain
longer than ``MAX_CHAIN`` is refused by ``check`` and by a question that reads it (in any file order: the
check itself does not recurse), and one of exactly ``MAX_CHAIN`` is evaluated and solved."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.model.chains import MAX_CHAIN


def chain(tmp_path: Path, length: int) -> Path:
    """c0 = L_F + L_F, c_i = c_(i-1) + L_F, written last equation first (the deepest walk from the top)."""
    lines = ['schema_version = 1', '[model]', f'id = "chain{length}"', 'title = "t"', 'summary = "s"', 'references = ["r"]',
             '[references.r]', 'authors = ["A"]', 'title = "t"', 'venue = "v"', 'year = 2026',
             '[symbols.L_F]', 'description = "latency"', 'unit = "cycle"', 'assumptions = ["positive"]']
    for i in range(length):
        lines += [f'[symbols.c{i}]', 'description = "c"', 'unit = "cycle"', 'role = "intermediate"']
    for i in reversed(range(length)):
        rhs = "L_F + L_F" if i == 0 else f"c{i - 1} + L_F"
        lines += ['[[equations]]', f'id = "c{i}"', f'defines = "c{i}"', f'rhs = "{rhs}"', 'source = { ref = "r", locator = "x" }']
    path = tmp_path / f"chain{length}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_chain_longer_than_the_limit_is_refused_by_check_and_when_read_naming_it(tmp_path: Path, refused_whole) -> None:  # type: ignore[no-untyped-def]
    path = chain(tmp_path, MAX_CHAIN + 1)
    refused = refused_whole(path)
    assert f"equation c{MAX_CHAIN}: 'c{MAX_CHAIN}' is defined through a chain of {MAX_CHAIN + 1} equations" in str(refused)
    assert f"(limit {MAX_CHAIN})" in str(refused)
    with pytest.raises(errors.ModelFileError) as read:  # a question reading the chain's end walks it without recursion
        symgpu.load(path).expression(f"c{MAX_CHAIN}")
    assert str(read.value) == str(refused)


def test_a_chain_at_the_limit_is_evaluated_and_solved(tmp_path: Path) -> None:
    model = symgpu.load(chain(tmp_path, MAX_CHAIN))
    last = f"c{MAX_CHAIN - 1}"
    # by hand: c_i = (i + 2) L_F, so c_(n-1) = (n + 1) L_F; at L_F = 6 cycles that is 6 (n + 1)
    assert model.evaluate(last, values={"L_F": 6}).to("cycle").magnitude == pytest.approx(6 * (MAX_CHAIN + 1), rel=1e-12)
    # and c_(n-1) = 1000 cycles at L_F = 1000 / (n + 1)
    solved = model.solve(last, "L_F", target="1000 cycle")
    assert solved.result == sympy.Rational(1000, MAX_CHAIN + 1)
