"""The plain records the sign reasoner (:mod:`symgpu.proofs.signs`) reads and keeps: what is :class:`Declared` before
any extra relation, a :class:`Verdict`, and the :class:`VerdictStore` a caller may hand down to keep verdicts between
processes (:mod:`symgpu.derive.signs` keeps them in :mod:`symgpu.store`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import sympy

__all__ = ["Declared", "Verdict", "VerdictStore"]


@dataclass(frozen=True)
class Declared:
    """What holds before any extra relation: plain data, read from a model by its caller.

    Attributes:
        symbols: each declared symbol (a SymPy symbol carrying its assumptions) with the
            assumption words it was declared with (``positive``, ``nonnegative``, ``integer``).
        constants: each constant symbol with its value (in any unit: only its sign is used).
        exact: each constant with its exact value in base units, where it has one: an expression of them alone
            has the sign of its value (``lit_2_us - lit_2p5_us < 0``, which two positive symbols leave open).
    """

    symbols: tuple[tuple[sympy.Symbol, frozenset[str]], ...] = ()
    constants: tuple[tuple[sympy.Symbol, float], ...] = ()
    exact: tuple[tuple[sympy.Symbol, Fraction], ...] = ()

    def declared_positive(self, name: str) -> bool:
        """Is a symbol of this name declared ``positive``?"""
        return any(symbol.name == name and "positive" in words for symbol, words in self.symbols)

    def positive_constants(self) -> list[sympy.Symbol]:
        """The constants of positive value not declared positive, in order: the reasoner reads
        each as its positive stand-in."""
        if not any(value > 0 for _, value in self.constants):
            return []
        positive = {symbol.name for symbol, words in self.symbols if "positive" in words}
        return [symbol for symbol, value in self.constants if value > 0 and symbol.name not in positive]


@dataclass(frozen=True)
class Verdict:
    """A sign verdict as kept: +1, -1, 0, or None (undecided: worth keeping too)."""

    sign: int | None


class VerdictStore(Protocol):
    """Where verdicts outlive the process: the reasoner asks it before factoring or simplifying
    and hands it each verdict it had to work for. ``get`` gives None for a verdict not kept."""

    def get(self, expr: sympy.Basic, positives: tuple[sympy.Expr, ...]) -> Verdict | None: ...

    def put(self, expr: sympy.Basic, positives: tuple[sympy.Expr, ...], verdict: Verdict) -> None: ...
