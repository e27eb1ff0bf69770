"""A command-line process seeds SymPy's generators before a command that uses SymPy (its answers and
times the same in every process), and leaves them alone for the commands that never import it."""

from __future__ import annotations

import random

import sympy.core.random

from symgpu.cli import app, seeding


def test_a_symbolic_command_seeds_sympys_generators_and_list_does_not(capsys) -> None:  # type: ignore[no-untyped-def]
    sympy.core.random.seed(1)
    assert app.main(["list"]) == 0
    assert sympy.core.random.rng.getstate() == random.Random(1).getstate()  # list: SymPy's state as it was
    assert app.main(["show", "occupancy"]) == 0
    # `show` draws nothing from the generator factor uses: it holds the command line's seed
    assert sympy.core.random.rng.getstate() == random.Random(seeding.SYMPY_SEED).getstate()
    capsys.readouterr()
