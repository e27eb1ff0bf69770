"""The derivation operations a model file's ``[[derivations]]`` may ask for, as data: one frozen
:class:`OperationSpec` per operation (the fields it reads, the ones it needs, what it does), and
:class:`Question`, a request read into typed fields. Plain data: no SymPy, no pint.

The model file reader checks each entry against its operation's spec when the model loads; the
derivation engine (:mod:`symgpu.derive.requests`) maps each name here to the function that answers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from symgpu import errors

#: Fields for readers (reports show them), not read by the engine; every operation allows them.
DOCUMENTATION = frozenset({"note", "source", "counts", "forms"})
#: The variable asked about, under any of its names: ``variable``, else ``over``, else ``for``.
VARIABLE = ("variable", "over", "for")
#: Expectations every operation checks its answer against (:func:`symgpu.derive.requests.run_request`).
_EXPECT = ("expect", "expect_value")
#: Rewrites every operation applies before deriving.
_REWRITES = ("substitute", "assume", "stop_at")
#: Min/Max arguments left out (``omit_limiters`` of the equation ``limiters_from``).
_OMIT = ("limiters_from", "omit_limiters")
#: The values that pick the active regime or branch.
_AT = ("preset", "inputs")


@dataclass(frozen=True)
class OperationSpec:
    """One derivation operation of ``[[derivations]]``.

    Attributes:
        name: the ``op`` text.
        reads: the fields the engine reads for it (besides ``id`` and ``op``), in a fixed order.
        required: groups of fields; each group needs one of its fields (``("variable", "over", "for")``).
        description: what it answers, one line.
        documents: fields of this operation that readers see but the engine does not read
            (besides :data:`DOCUMENTATION`).
    """

    name: str
    reads: tuple[str, ...]
    required: tuple[tuple[str, ...], ...]
    description: str
    documents: tuple[str, ...] = ()

    @property
    def allowed(self) -> frozenset[str]:
        """Every field an entry of this operation may have, besides ``id`` and ``op``."""
        return frozenset(self.reads) | DOCUMENTATION | frozenset(self.documents)

    def unknown(self, fields: tuple[tuple[str, Any], ...]) -> list[str]:
        """The fields of ``fields`` this operation does not allow, sorted."""
        return sorted(set(dict(fields)) - self.allowed)

    def missing(self, fields: tuple[tuple[str, Any], ...]) -> tuple[str, ...] | None:
        """The first required group of which ``fields`` has none (None: nothing missing)."""
        given = {key for key, value in fields if value is not None}
        return next((group for group in self.required if not given & set(group)), None)


def _spec(name: str, own: tuple[str, ...], required: tuple[tuple[str, ...], ...], description: str,
          *, omit: bool = True, documents: tuple[str, ...] = ()) -> OperationSpec:
    reads = own + _REWRITES + (_OMIT if omit else ()) + _EXPECT
    return OperationSpec(name, reads, required, description, documents)


_QUANTITY = ("quantity",)
#: ``op`` -> its spec, in the order the documentation lists them (read-only).
SPECS: Mapping[str, OperationSpec] = MappingProxyType({spec.name: spec for spec in (
    _spec("solve", ("quantity",) + VARIABLE + ("target", "relation", "kind", "case") + _AT, (_QUANTITY, VARIABLE),
          "solve quantity = target (or an inequality, relation) for the variable, every root with its regime"),
    _spec("boundary", ("quantity",) + VARIABLE + ("between",), (_QUANTITY,),
          "where two regimes (limiters or cases) of a quantity meet, solved for the variable", documents=("kind",)),
    _spec("extremum", ("quantity",) + VARIABLE + ("kind", "grid") + _AT, (_QUANTITY, VARIABLE),
          "maximum or minimum of a quantity over the variable (cusps included; grid: a numeric search)"),
    _spec("limit", ("quantity",) + VARIABLE + ("to", "point", "direction", "ratio"), (_QUANTITY, VARIABLE),
          "limit of a quantity as the variable tends to a point (ratio: of the two one-sided limits)"),
    _spec("fixed_point", ("quantity",) + VARIABLE + _AT, (_QUANTITY, VARIABLE),
          "self-consistent value of the variable in variable = quantity(variable)", documents=("kind",)),
    _spec("simplify", ("expression", "quantity"), (("expression", "quantity"),),
          "an expression in the model's symbols, simplified", omit=False),
    _spec("substitute", ("quantity", "case"), (_QUANTITY,),
          "a quantity with the substitutions applied (case: one case of a piecewise equation)", omit=False),
    _spec("regimes", ("quantity",) + VARIABLE + _AT + ("expect_regime",), (_QUANTITY,),
          "the regimes of a piecewise quantity, and the one active at preset/inputs"),
)})
#: The operation names, in the order of :data:`SPECS`.
NAMES = tuple(SPECS)
#: Every field some operation reads.
FIELDS = frozenset(field for spec in SPECS.values() for field in spec.reads)


class _Named(Protocol):
    """What :meth:`Question.read` needs of a model: its id, for messages."""

    @property
    def id(self) -> str: ...


class _Request(Protocol):
    """What :meth:`Question.read` needs of a request (:class:`symgpu.model.schema.DerivationRequest`)."""

    @property
    def id(self) -> str: ...
    @property
    def op(self) -> str: ...
    @property
    def fields(self) -> tuple[tuple[str, Any], ...]: ...
    @property
    def question(self) -> Question | None: ...


@dataclass(frozen=True)
class Question:
    """A ``[[derivations]]`` request read into typed fields.

    Attributes:
        id: request id.
        op: operation (a key of :data:`SPECS`).
        quantity: the quantity (or equation id) asked about.
        variable: the unknown / variable (``variable``, ``over`` or ``for``).
        kind: ``max`` or ``min`` (extremum; solve of an inequality).
        kind_given: whether the file set ``kind``.
        substitute: name -> expression text, applied before deriving (and to the expectation).
        assume: extra assumptions (relation texts).
        stop_at: quantities kept as symbols.
        omit: (equation, limiter) pairs left out of Min/Max.
        preset: preset whose values select the active regime / branch.
        inputs: name -> value text added to the preset.
        fields: every field as read (for the operation-specific ones).
    """

    id: str
    op: str
    quantity: Any
    variable: Any
    kind: str
    kind_given: bool
    substitute: tuple[tuple[str, Any], ...]
    assume: tuple[str, ...]
    stop_at: tuple[str, ...]
    omit: tuple[tuple[str, str], ...]
    preset: str | None
    inputs: tuple[tuple[str, Any], ...]
    fields: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, request_id: str, op: str, fields: tuple[tuple[str, Any], ...]) -> Question:
        """The typed record of a request whose fields were checked against ``SPECS[op]``.

        Raises:
            TypeError, ValueError: a table field (``substitute``, ``inputs``) is not a table, or a
                list field is not a list.
        """
        get = dict(fields).get
        kind = str(get("kind", "max"))
        source = get("limiters_from") or ""
        variable = next((get(key) for key in VARIABLE if get(key)), None)
        return cls(
            id=request_id, op=op, quantity=get("quantity"), variable=variable,
            kind={"maximum": "max", "minimum": "min"}.get(kind, kind), kind_given=get("kind") is not None,
            substitute=_pairs(get("substitute")), assume=_texts(get("assume")), stop_at=_texts(get("stop_at")),
            omit=tuple((source, name) for name in _texts(get("omit_limiters"))),
            preset=get("preset"), inputs=_pairs(get("inputs")), fields=fields,
        )

    @classmethod
    def read(cls, model: _Named, request: _Request) -> Question:
        """The typed record of ``request``: the one read when the model loaded, else (a request
        built by hand) read now.

        Raises:
            errors.UsageError: an unknown operation, a field the operation does not allow, a
                required field missing or a field of the wrong shape, named.
        """
        if request.question is not None:
            return request.question
        where = f"{model.id}: derivation {request.id}"
        spec = SPECS.get(request.op)
        if spec is None:
            raise errors.UsageError(f"{where}: operation '{request.op}' is not supported "
                                    f"by the engine (operations: {', '.join(sorted(SPECS))})")
        unknown = spec.unknown(request.fields)
        if unknown:
            raise errors.UsageError(f"{where}: unknown field '{unknown[0]}' (fields: {', '.join(sorted(spec.allowed))})")
        missing = spec.missing(request.fields)
        if missing is not None:
            raise errors.UsageError(f"{where}: missing required field '{missing[0]}' (fields: {', '.join(sorted(spec.allowed))})")
        try:
            return cls.of(request.id, request.op, request.fields)
        except (TypeError, ValueError) as error:
            raise errors.UsageError(f"{where}: a field has the wrong shape: {error}") from None

    def get(self, key: str, default: Any = None) -> Any:
        """An operation-specific field, or ``default``."""
        return dict(self.fields).get(key, default)


def _pairs(value: Any) -> tuple[tuple[str, Any], ...]:
    return tuple(dict(value or {}).items())


def _texts(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes)):
        raise TypeError(f"expected a list, found the text {value!r}")
    return tuple(value or ())
