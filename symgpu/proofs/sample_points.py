"""Sample points allowed by the symbols' declared assumptions: exact rational values at which a claim
(a sign, an equality, an ordering of two expressions) is refuted without SymPy's search; and every
seeded draw of the model and derivation engine (the one point sampler: no other module seeds a generator
but ``measure.microbench``'s pointer chase, checked by ``tests/test_architecture.py``).

One place decides which values a symbol may take (:func:`meets`: SymPy itself answers each
declared assumption for the value), so every refutation uses only points the model admits:

- :class:`Pool`: a fixed list of candidate values; :meth:`Pool.admissible` keeps those that meet
  a symbol's assumptions (memoised per set of assumptions, the pool's order kept).
- :func:`points`: a deterministic sequence of points over a sorted symbol list, each symbol's
  value drawn from its admissible pool by a seeded :class:`random.Random` (the first
  ``fixed_first`` points take the pool's first values in order, where it has them).
- :func:`one_large`: a point per symbol with that symbol large and the others at their first values.
- :func:`one_large_over_small`: the same with the others at their smallest nonzero values.
- :class:`GenericPoint`: one fixed point shared by many expressions, each symbol its own odd
  value (distinct primes), so a nonzero value is a proof and the values of two expressions at
  it can be added.
- :class:`Draws`: a seeded sequence of draws (Python's ``random.Random``, the same on every run):
  :func:`points`, the Min/Max argument proofs (:mod:`symgpu.proofs.unordered`), the certificates'
  sampled inputs (:mod:`symgpu.derive.certify`) and the quadratic root choice of
  :mod:`symgpu.derive.fixed_points` draw from one.
- :func:`column`: many float samples of one symbol at once (NumPy, seeded by the symbol's name),
  for the feasibility of regimes (:mod:`symgpu.derive.feasibility`).

Values of pools and points are exact (``sympy.Rational`` or :class:`fractions.Fraction`, as the pool
holds them): no rounding ever decides a verdict here (draws and columns are floats where the caller
evaluates numerically). What a caller does with a point (how many it tries,
what it skips) stays with the caller.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Generic, TypeVar

import numpy as np
import sympy

from symgpu.memo import memoised

#: a pool's value type: ``sympy.Rational`` (substituted into SymPy expressions) or ``Fraction`` (fast arithmetic)
V = TypeVar("V", sympy.Rational, Fraction)
#: any drawn value's type
T = TypeVar("T")


def meets(value: sympy.Rational | Fraction, symbol: sympy.Symbol, *, undecided_ok: bool = False) -> bool:
    """Does ``value`` meet every assumption declared for ``symbol`` (SymPy answers ``value.is_<fact>``)?
    With ``undecided_ok`` a fact SymPy leaves open for the value (``polar``, ``antihermitian``) does not
    count against it."""
    exact = value if isinstance(value, sympy.Rational) else sympy.Rational(value.numerator, value.denominator)
    for fact, want in symbol.assumptions0.items():
        got = getattr(exact, f"is_{fact}", None)
        if got != want and not (undecided_ok and got is None):
            return False
    return True


@dataclass(frozen=True)
class Pool(Generic[V]):
    """Candidate values for a symbol, in the order they are tried."""

    values: tuple[V, ...]
    _admissible: dict[frozenset[tuple[str, bool | None]], tuple[V, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def admissible(self, symbol: sympy.Symbol) -> tuple[V, ...]:
        """The pool's values that meet every assumption of ``symbol``, in pool order (empty: none does)."""
        facts = frozenset(symbol.assumptions0.items())
        found = self._admissible.get(facts)
        if found is None:
            found = self._admissible[facts] = tuple(v for v in self.values if meets(v, symbol))
        return found


#: small values first (integers, simple fractions, zero, negatives): refuting signs and equalities
SMALL: Pool[sympy.Rational] = Pool(tuple(sympy.Rational(v) for v in (
    "1", "2", "3", "1/2", "5", "16", "3/2", "1/3", "7", "64", "1/10", "100", "4096",
    "0", "-1", "-2", "-1/2", "-7", "-100")))

#: a wide spread of magnitudes, fractions, zero and negatives: ordering two expressions both ways
WIDE: Pool[Fraction] = Pool(tuple(Fraction(v) for v in (
    1, 2, 3, 4, 5, 7, 8, 12, 16, 32, 64, 100, 256, 1000, 1024, 4096, 100_000,
    "1/1000", "1/64", "1/10", "1/3", "1/2", "3/4", "3/2", "5/2",
    0, -1, -2, "-1/2", -7, -100, -1000,
)))


def ordered(symbols: Iterable[sympy.Symbol]) -> list[sympy.Symbol]:
    """``symbols`` in a fixed order (name, then a Dummy's index), so that seeded points are reproducible."""
    return sorted(symbols, key=lambda s: (s.name, getattr(s, "dummy_index", 0) or 0))


def points(symbols: Sequence[sympy.Symbol], pools: Sequence[tuple[V, ...]], seed: int, count: int, *,
           fixed_first: int = 0) -> Iterator[dict[sympy.Symbol, V]]:
    """``count`` points, ``symbols[i]`` taking a value from ``pools[i]`` (each nonempty): point ``k`` with
    ``k < fixed_first`` takes every pool's ``k``-th value (a random one where the pool is shorter), the
    rest are drawn from ``random.Random(seed)``, symbol by symbol: the same sequence on every run."""
    draws = Draws(seed)
    for index in range(count):
        yield {s: pool[index] if index < fixed_first and index < len(pool) else draws.choice(pool)
               for s, pool in zip(symbols, pools)}


def one_large(symbols: Sequence[sympy.Symbol], pools: Sequence[tuple[V, ...]]) -> Iterator[dict[sympy.Symbol, V]]:
    """A point per symbol, in order: that symbol at its pool's value of largest magnitude (the first such),
    every other at its pool's first value (each pool nonempty). A difference one input outgrows
    (``alu_lat - alpha - mem_lat - 1``) changes sign at one of them where seeded draws of small values may miss it."""
    return _each_large(symbols, pools, {s: pool[0] for s, pool in zip(symbols, pools)})


def one_large_over_small(symbols: Sequence[sympy.Symbol], pools: Sequence[tuple[V, ...]]) -> Iterator[dict[sympy.Symbol, V]]:
    """As :func:`one_large`, but every other symbol at its pool's nonzero value of smallest magnitude (the first such;
    its first value where the pool has only 0). A term that one input scales and another's smallness makes negative
    (Hong & Kim's ``Departure_del_uncoal*Uncoal_Mem_insts*(Uncoal_per_mw - 1)``, negative only for ``Uncoal_per_mw < 1``)
    outweighs the rest at one of them, where the first values (1) leave the factor at 0."""
    return _each_large(symbols, pools, {s: _smallest_nonzero(pool, isinstance(pool[0], Fraction)) for s, pool in zip(symbols, pools)})


def _each_large(symbols: Sequence[sympy.Symbol], pools: Sequence[tuple[V, ...]], base: dict[sympy.Symbol, V]) -> Iterator[dict[sympy.Symbol, V]]:
    """A point per symbol, in order: ``base`` with that symbol at its pool's value of largest magnitude (the first such)."""
    for s, pool in zip(symbols, pools):
        yield {**base, s: _largest(pool, isinstance(pool[0], Fraction))}


@memoised("proofs.sample_points.smallest_nonzero", 1024)
def _smallest_nonzero(pool: tuple[V, ...], fractions: bool) -> V:
    """The pool's nonzero value of smallest magnitude (the first such), its first value where it has only 0. Memoised
    per pool and the kind of its values (``fractions``: a pool of ``Fraction`` values equal to one of SymPy's rationals
    gives its own), a pure function of them: the refutation of each sign asks it for every symbol again, in SymPy's
    comparisons of rationals (a fifth of the sign verdicts of the 228-row occupancy table)."""
    return min((v for v in pool if v != 0), key=abs, default=pool[0])


@memoised("proofs.sample_points.largest", 1024)
def _largest(pool: tuple[V, ...], fractions: bool) -> V:
    """The pool's value of largest magnitude (the first such); memoised as :func:`_smallest_nonzero`."""
    return max(pool, key=abs)


class Draws:
    """A seeded sequence of draws: ``random.Random(seed)`` (a ``str`` seed is hashed by SHA-512, not
    by Python's per-process string hash), so the same seed gives the same draws on every run."""

    def __init__(self, seed: int | str) -> None:
        self._rng = random.Random(seed)

    def choice(self, values: Sequence[T]) -> T:
        """One of ``values`` (nonempty)."""
        return self._rng.choice(values)

    def uniform(self, lo: float, hi: float) -> float:
        """A float between ``lo`` and ``hi``."""
        return self._rng.uniform(lo, hi)

    def admissible(self, symbol: sympy.Symbol, pool: Pool[V]) -> V | None:
        """A value of ``pool`` that meets every assumption of ``symbol`` (None, drawing nothing, where none does)."""
        found = pool.admissible(symbol)
        return self._rng.choice(found) if found else None


#: integer values of :func:`column` (0 and 1, the values case conditions single out, are drawn often)
WHOLE = (1, 2, 3, 4, 6, 8, 16, 32, 64, 128, 256, 1024, 4096, 65536)


def column(name: str, assumptions: Iterable[str], samples: int, rank: int = 0) -> np.ndarray:
    """``samples`` float values of a symbol declared with ``assumptions`` (``integer``: :data:`WHOLE`, 1 in
    about a quarter, 0 in about 30% unless ``positive``; else log-uniform over [1e-2, 1e2], 0 in about
    30% where ``nonnegative`` but not ``positive``, either sign without a sign assumption), from a NumPy
    generator seeded by ``name`` (and ``rank``, for the second and later symbols of one name)."""
    declared = set(assumptions)
    rng = np.random.default_rng([20240601, *name.encode()] + ([rank] if rank else []))
    if "integer" in declared:
        values = rng.choice(np.array(WHOLE, dtype=float), samples)
        values[rng.random(samples) < 0.25] = 1.0
        if "positive" not in declared:
            values[rng.random(samples) < 0.3] = 0.0
    else:
        values = 10.0 ** rng.uniform(-2, 2, samples)
        if "nonnegative" in declared and "positive" not in declared:
            values[rng.random(samples) < 0.3] = 0.0
        elif not declared & {"positive", "nonnegative"}:
            values *= rng.choice([-1.0, 1.0], samples)
    return values


#: primes for :class:`GenericPoint` (one per symbol, in order of first use)
PRIMES = (53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173)


class GenericPoint:
    """One point for every expression evaluated at it: the ``k``-th symbol seen takes the ``k``-th prime
    (plus 180 per round once all are used), over 7 where it need not be an integer, negated where it
    must be negative or nonpositive. Admissibility is the caller's check (:func:`meets`)."""

    def __init__(self) -> None:
        self._values: dict[sympy.Symbol, sympy.Rational] = {}

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        """Forget every symbol's value (values computed at the old point must be forgotten with it)."""
        self._values.clear()

    def at(self, symbols: Iterable[sympy.Symbol]) -> dict[sympy.Symbol, sympy.Rational]:
        """The point's value of each of ``symbols`` (a symbol not seen before gets the next value)."""
        point = {}
        for sym in symbols:
            if sym not in self._values:
                used = len(self._values)
                prime = PRIMES[used % len(PRIMES)] + 180 * (used // len(PRIMES))
                value = sympy.Integer(prime) if sym.is_integer else sympy.Rational(prime, 7)
                self._values[sym] = -value if sym.is_negative or sym.is_nonpositive else value
            point[sym] = self._values[sym]
        return point
