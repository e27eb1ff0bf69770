"""Which regime names a derivation looked up, recorded as it runs: a stored derivation is reused in
another model (a variant) only where those lookups give the same names there.

A regime's label comes from a table of every equation's limiter terms and case values, expanded
as the question expands its quantity (:func:`symgpu.derive.regime_split._names`), not only of the
equations the question reaches (a quantity with an unnamed ``Min`` takes the names of another
equation's limiters). A lookup compares the looked-up expression only with the table's entries
of the same kind whose free symbols are the same (exactly, else by ``cancel``), first match in the
table's order; so what a lookup answers is decided by that *class* of entries. A case table's conditions
(kind ``cases``: each case of each equation with cases, keyed by its table's expanded conditions and its
position) are matched against every table, so that kind is one class. A derivation
records each table it looked in (its context: the quantity, the symbols kept unexpanded and the
substitution it was built with) and the classes it looked up; its stored entry keeps, per class,
a digest of the class's entries in order (their ``srepr`` and name), and a model reading the
entry rebuilds its own tables and compares. The request key (:mod:`.request_keys`) then need not
hold every equation of the model that has limiters or cases.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import sympy


@dataclass(frozen=True)
class Context:
    """What a name table was built from.

    Attributes:
        quantity: the question's quantity (its dependencies come first in the table).
        stop: the names kept unexpanded, sorted.
        substitution: (symbol, value) pairs put into every expanded entry, in order.
    """

    quantity: str
    stop: tuple[str, ...]
    substitution: tuple[tuple[sympy.Basic, sympy.Basic], ...]


#: one looked-up class: (kind, names of the free symbols, sorted)
Class = tuple[str, tuple[str, ...]]
#: a derivation's record: each table's context with the digest of each class looked up in it
Witness = tuple[tuple[Context, tuple[tuple[str, tuple[str, ...], str], ...]], ...]


class NameTable(dict[tuple[str, Any], str]):
    """(kind, expanded term or case value) -> regime name, in the order entries were first made,
    with the :class:`Context` it was built in."""

    def __init__(self, context: Context) -> None:
        super().__init__()
        self.context = context
        #: the entries of kind ``cases`` by their table's conditions: position -> case id (filled with the table)
        self.case_tables: dict[sympy.Basic, dict[int, str]] = {}


#: kinds whose lookups read every entry of the kind (a case table's conditions are matched against every table's, not
#: only those with the same symbols: :func:`symgpu.derive.regime_split.case_labels`), so one class holds them all
WHOLE_KINDS = frozenset({"cases"})


def class_of(kind: str, key: sympy.Basic) -> Class:
    """The class a lookup of ``key`` reads: its kind and its free symbols' names (the kind alone for
    :data:`WHOLE_KINDS`)."""
    if kind in WHOLE_KINDS:
        return kind, ()
    return kind, tuple(sorted({s.name for s in key.free_symbols}))


def class_digest(table: NameTable, cls: Class) -> str:
    """A digest of ``table``'s entries of class ``cls``, in order (``srepr``: symbols with their
    assumptions, numbers with their type and precision)."""
    kind, names = cls
    h = hashlib.sha256()
    for (entry_kind, expr), name in table.items():
        if entry_kind == kind and isinstance(expr, sympy.Basic) and class_of(kind, expr) == cls:
            h.update(f"{sympy.srepr(expr)}\t{name}\n".encode("utf-8"))
    return h.hexdigest()


class Reads:
    """The lookups of one derivation (and of the derivations it asked for) while it runs."""

    def __init__(self) -> None:
        self.tables: dict[Context, NameTable] = {}
        self.looked: dict[Context, set[Class]] = {}
        self.carried: dict[Context, dict[Class, str]] = {}

    def witness(self) -> Witness:
        """Each context with its classes' digests, in a fixed order."""
        found: dict[Context, dict[Class, str]] = {c: dict(d) for c, d in self.carried.items()}
        for context, classes in self.looked.items():
            table = self.tables[context]
            found.setdefault(context, {}).update({cls: class_digest(table, cls) for cls in classes})
        return tuple((c, tuple((k, n, d) for (k, n), d in sorted(found[c].items()))) for c in sorted(found, key=repr))


#: the derivations running now, innermost last (each records what the inner ones look up too)
_ACTIVE: list[Reads] = []


@contextlib.contextmanager
def recording() -> Iterator[Reads]:
    """Record the lookups made inside the ``with`` block (and still into the enclosing records)."""
    reads = Reads()
    _ACTIVE.append(reads)
    try:
        yield reads
    finally:
        _ACTIVE.remove(reads)


def note(table: NameTable, kind: str, key: sympy.Basic) -> None:
    """A lookup of ``key`` in ``table`` (a no-op when nothing records)."""
    if not _ACTIVE:
        return
    cls = class_of(kind, key)
    for reads in _ACTIVE:
        reads.tables.setdefault(table.context, table)
        reads.looked.setdefault(table.context, set()).add(cls)


def carry(witness: Witness) -> None:
    """The record of a derivation taken from the store, into the derivations that asked for it."""
    for reads in _ACTIVE:
        for context, classes in witness:
            reads.carried.setdefault(context, {}).update({(k, n): d for k, n, d in classes})


def holds(witness: Witness, tables: Iterable[tuple[Context, NameTable]]) -> bool:
    """Do ``tables`` (rebuilt in the reading model, one per context of ``witness``) give every
    recorded class the recorded digest?"""
    rebuilt = dict(tables)
    return all(class_digest(rebuilt[context], (k, n)) == d for context, classes in witness for k, n, d in classes)


__all__ = ["WHOLE_KINDS", "Class", "Context", "NameTable", "Reads", "Witness", "carry", "class_digest", "class_of", "holds", "note", "recording"]
