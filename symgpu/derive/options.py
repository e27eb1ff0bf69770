"""What every derivation operation is asked besides its own arguments, as one frozen record.

:class:`Options` is built once at the front door (the keyword arguments of
:func:`symgpu.derive.solve` and its siblings, or a ``[[derivations]]`` entry's
:class:`~symgpu.model.operations.Question`) and read by the one prologue of
:mod:`symgpu.derive.checked`: the rewrites handed to the operation, the point it is asked at,
and what the certificate needs to know. :data:`REQUEST_FIELD` names the model-file field each
option is written as, so a test can hold the API, the command line and the registry
(:data:`symgpu.model.operations.SPECS`) to the same fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from symgpu.model.operations import Question

Pairs = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Options:
    """The options shared by the derivation operations, as given.

    NOTE: ``None`` and an empty value are kept apart where the caller could give either
    (``substitute``, ``assume``, ``values``), so each operation receives exactly what it was given
    before the record existed: the stored derivations are keyed on those arguments.

    Attributes:
        substitute: name -> expression (text, number or SymPy), put in before deriving (None: not given).
        assume: extra assumptions, relation texts (None: not given).
        stop_at: quantities kept as symbols instead of their equations.
        omit: Min/Max arguments left out (``"limiter"``, ``"equation.limiter"`` or pairs).
        preset: the preset the question is asked at.
        values: name -> value at the point the question is asked at (None: not given).
        case: one case of a quantity defined by cases (``solve`` only).
        relation: ``==``, or the inequality solved (``solve`` only).
    """

    substitute: Pairs | None = None
    assume: tuple[Any, ...] | None = None
    stop_at: tuple[str, ...] = ()
    omit: tuple[Any, ...] = ()
    preset: str | None = None
    values: Pairs | None = None
    case: str | None = None
    relation: str = "=="

    @classmethod
    def of(cls, *, substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None,
           stop_at: Iterable[str] = (), omit: Iterable[Any] = (), preset: str | None = None,
           values: Mapping[str, Any] | None = None, case: str | None = None, relation: str = "==") -> Options:
        """The record of the keyword arguments of a public operation (iterables read once, here; one
        text for ``assume``, ``stop_at`` or ``omit`` is one item, not its characters)."""
        assume, stop_at, omit = (_items(x) for x in (assume, stop_at, omit))
        return cls(substitute=None if substitute is None else tuple(dict(substitute).items()),
                   assume=None if assume is None else tuple(assume), stop_at=tuple(stop_at), omit=tuple(omit),
                   preset=preset, values=None if values is None else tuple(dict(values).items()), case=case,
                   relation=relation)

    @classmethod
    def read(cls, q: Question) -> Options:
        """The record of a ``[[derivations]]`` entry read at load (its ``inputs`` are the values)."""
        return cls(substitute=q.substitute, assume=q.assume, stop_at=q.stop_at, omit=q.omit, preset=q.preset,
                   values=q.inputs or None, case=q.get("case"), relation=str(q.get("relation", "==")))

    @property
    def substitutions(self) -> dict[str, Any] | None:
        """``substitute`` as the mapping the operations take (None: not given)."""
        return None if self.substitute is None else dict(self.substitute)

    @property
    def at(self) -> dict[str, Any] | None:
        """``values`` as the mapping the operations take (None: not given)."""
        return None if self.values is None else dict(self.values)

    @property
    def at_a_point(self) -> bool:
        """Whether a preset or values were given (the question is asked at a point)."""
        return self.preset is not None or bool(self.values)

    @property
    def plain(self) -> bool:
        """Whether the question is asked at a point without rewrites (``--substitute``, ``--omit``, ``--keep``)."""
        return self.at_a_point and not (self.substitutions or self.omit or self.stop_at)

    def rewrites(self) -> dict[str, Any]:
        """The keyword arguments every symbolic operation takes: substitute, assume, stop_at, omit."""
        return {"substitute": self.substitutions, "assume": self.assume, "stop_at": self.stop_at, "omit": self.omit}

    def point(self) -> dict[str, Any]:
        """The keyword arguments of the point asked at: preset, values."""
        return {"preset": self.preset, "values": self.at}

    def keywords(self) -> dict[str, Any]:
        """The keyword arguments every public operation (:mod:`symgpu.derive.checked`, ``regimes``)
        takes: the rewrites and the point."""
        return {**self.rewrites(), **self.point()}


#: option (or a front door's own argument) -> the ``[[derivations]]`` field it is written as
#: (:data:`symgpu.model.operations.SPECS`); the variable's names are all ``variable``.
REQUEST_FIELD: Mapping[str, str] = MappingProxyType({
    "quantity": "quantity", "quantity_or_equation": "quantity", "for_": "variable", "over": "variable",
    "var": "variable", "variable": "variable", "substitute": "substitute", "assume": "assume",
    "stop_at": "stop_at", "omit": "omit_limiters", "preset": "preset", "values": "inputs", "case": "case",
    "relation": "relation", "target": "target", "kind": "kind", "between": "between", "to": "to",
    "direction": "direction", "grid": "grid",
})


def _items(given: Any) -> Any:
    """``given``, a lone text (or SymPy relation) made a one-item tuple: ``assume="alpha <= 40"`` is one
    assumption (iterated, its characters were read as symbols, ``'l'`` blamed on the model file)."""
    return (given,) if isinstance(given, str) or hasattr(given, "free_symbols") else given  # a text or a SymPy object
