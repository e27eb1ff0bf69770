"""The seed of SymPy's random generators in a command-line process (and in each of ``symgpu derive``'s requests)."""

from __future__ import annotations

#: the seed of SymPy's generators in a command-line process
SYMPY_SEED = 20261127


def seed_sympy() -> None:
    """Seed SymPy's two generators (:data:`SYMPY_SEED`), so that a command's answer and its time are
    the same in every process.

    NOTE: SymPy draws from generators seeded by the operating system at import: the order in which
    its assumption system tries the facts that imply a queried one (``_ask`` shuffles them; a query
    met again while it is being answered gives None, so an undecided query, and what rests on it,
    may depend on the order), and the evaluation points of ``factor``'s Wang algorithm (one
    factorisation in tests/test_linear_factors.py ran for 7 s in one process and over 8 minutes in
    another). Only the command line seeds them (once per command, and ``symgpu derive`` again before each
    request, so a request's answer does not depend on which requests ran before it or in which process):
    it owns its process; ``import symgpu`` in a user's program or notebook leaves SymPy's generators as it finds them.
    """
    import sympy.core.random  # noqa: PLC0415 - here: `symgpu --help` and `symgpu list` import no SymPy

    sympy.core.random.seed(SYMPY_SEED)
