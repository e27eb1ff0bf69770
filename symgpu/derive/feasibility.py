"""Feasibility of a regime by sampling: inputs allowed by the symbols' declared assumptions that
satisfy every condition of the regime prove it feasible (a witness); none among the samples
leaves it undecided, never refuted. Used by :mod:`symgpu.derive.regime_split`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import sympy

from symgpu.evaluate import compiler, scaling
from symgpu.proofs import sample_points

if TYPE_CHECKING:
    from symgpu.model import Model


#: sample points of the feasibility check (:func:`witnesses`)
SAMPLES = 32768


def witnesses(model: Model, regimes: Sequence[Sequence[sympy.Basic]], samples: int = SAMPLES) -> list[bool | None]:
    """Per regime (its conditions, relations): True if some sample of inputs allowed by the declared
    assumptions satisfies every condition (a witness of feasibility); None if none does
    (undecided, not refuted). A regime without conditions is feasible.

    Row i of every symbol's column is one sample point; each distinct condition is evaluated
    once on all of them, the conditions of every regime compiled together as one function."""
    relations = list(dict.fromkeys(c for conds in regimes for c in conds))
    truth = _truth(model, relations, samples)
    out: list[bool | None] = []
    for conds in regimes:
        holds = np.ones(samples, dtype=bool)
        for c in conds:
            values = truth[c]
            if values is None:
                holds[:] = False
                break
            holds &= values
        out.append(True if not conds or np.any(holds) else None)
    return out


def _truth(model: Model, relations: Sequence[sympy.Basic], samples: int) -> dict[sympy.Basic, np.ndarray | None]:
    """Each relation's truth values on the samples (None where it cannot be evaluated)."""
    # symbols of one name (dummies, or assumptions that differ) each get their own draws
    symbols = tuple(sorted(set().union(*[r.free_symbols for r in relations]), key=lambda s: (s.name, sympy.srepr(s))))
    columns: dict[sympy.Symbol, np.ndarray] = {}
    for i, symbol in enumerate(symbols):
        same = sum(1 for other in symbols[:i] if other.name == symbol.name)
        columns[symbol] = _column(model, symbol, samples, same)
    try:  # all at once; one by one if any of them fails
        function = compiler.numpy_function(symbols, list(relations))
        with np.errstate(all="ignore"):
            values = function(*[columns[s] for s in symbols])
        return {r: np.broadcast_to(np.asarray(v, dtype=bool), (samples,)) for r, v in zip(relations, values)}
    except (TypeError, ValueError, NameError, ZeroDivisionError, AttributeError):
        pass
    out: dict[sympy.Basic, np.ndarray | None] = {}
    for relation in relations:
        own = tuple(sorted(relation.free_symbols, key=str))
        try:
            function = compiler.numpy_function(own, relation)
            with np.errstate(all="ignore"):
                values = function(*[columns[s] for s in own])
            out[relation] = np.broadcast_to(np.asarray(values, dtype=bool), (samples,))
        except (TypeError, ValueError, NameError, ZeroDivisionError, AttributeError):
            out[relation] = None
    return out


def _column(model: Model, symbol: sympy.Symbol, samples: int, rank: int = 0) -> np.ndarray:
    """Samples of ``symbol`` allowed by its declared assumptions (a constant: its value), drawn by
    :func:`symgpu.proofs.sample_points.column` (seeded by the symbol's name and ``rank``)."""
    definition = model.symbol_definitions.get(symbol.name)
    if symbol.name in model.constants:
        return np.full(samples, float(model.constants[symbol.name].magnitude) * float(scaling.unit_scale(model.units[symbol.name])))
    return sample_points.column(symbol.name, definition.assumptions if definition is not None else (), samples, rank)
