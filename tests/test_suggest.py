"""An unknown model id or symbol is answered with the names it may have meant: the same letters in
another case first, then close spellings, compared without case."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import errors, suggest


def test_the_same_letters_in_another_case_come_first():
    # Mem_LD is the only name whose lower case is 'mem_ld'; Mem_L is a close spelling after it
    assert suggest.closest("mem_ld", ["Mem_L", "Mem_LD", "n"], 5) == ["Mem_LD", "Mem_L"]


def test_a_misspelling_in_capitals_finds_the_lower_case_id():
    # 'VOLKOV_2061' lower-cased is one transposition from volkov_2016 (difflib ratio 10/11 > 0.6)
    assert suggest.closest("VOLKOV_2061", ["hong_kim_2009", "volkov_2016"], 3) == ["volkov_2016"]


def test_no_more_than_the_limit_and_nothing_unlike():
    # difflib's ratio against 'mem': mem_a 2*3/(3+5) = 0.75, memo_b 2*3/(3+6) = 0.67; Mem first, then the closer one
    assert suggest.closest("mem", ["Mem", "memo_b", "mem_a"], 2) == ["Mem", "mem_a"]
    assert suggest.closest("zzz", ["alpha", "beta"], 3) == []


def test_an_unknown_model_id_in_capitals_suggests_the_bundled_one():
    with pytest.raises(errors.UsageError, match=r"did you mean prior_hong_kim\b"):
        symgpu.load("Prior_Hong_Kim")
