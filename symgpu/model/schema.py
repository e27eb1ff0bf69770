"""Frozen records for everything read from a model file (plain data: no SymPy, no pint)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from symgpu.model import operations, plot_kinds

SCHEMA_VERSION = 1
ROLES = ("input", "output", "intermediate", "constant")
ASSUMPTIONS = ("positive", "nonnegative", "integer")
#: The ``expect`` text of a validation case saying that evaluation must fail with a domain error.
DOMAIN_ERROR = "domain error"
#: The operations ``[[derivations]]`` may name (:data:`symgpu.model.operations.SPECS`).
DERIVATION_OPS = operations.NAMES
#: The kinds ``[[plots]]`` may name (:data:`symgpu.model.plot_kinds.KINDS`).
PLOT_KINDS = plot_kinds.NAMES


@dataclass(frozen=True)
class Reference:
    """A bibliographic record.

    Attributes:
        key: the reference key used by ``source = { ref = ... }``.
        authors: author names as printed.
        title: title of the work.
        venue: journal, conference, institution or course.
        year: publication year (``None`` if unknown).
        url: optional link.
        doi: optional DOI.
        note: optional remark (e.g. about the plain-text extraction).
    """

    key: str
    authors: tuple[str, ...]
    title: str
    venue: str
    year: int | None
    url: str = ""
    doi: str = ""
    note: str = ""

    def citation(self) -> str:
        """Return a one-line citation: ``A, B: "Title", Venue, Year.``"""
        authors = ", ".join(self.authors) if self.authors else "Anonymous"
        year = f", {self.year}" if self.year else ""
        venue = f", {self.venue}" if self.venue else ""
        return f'{authors}: "{self.title}"{venue}{year}.'


@dataclass(frozen=True)
class SourceLocator:
    """Where in a reference something is printed: ``ref`` key and ``locator`` as printed, and
    the source's ``kind`` where the file gives one (``hand-computed``, ``derived``, ``measured``:
    a number not printed in the reference; "" for a printed one)."""

    ref: str
    locator: str
    kind: str = ""

    def __str__(self) -> str:
        return f"{self.ref}, {self.locator}" if self.locator else self.ref


@dataclass(frozen=True)
class SymbolDefinition:
    """A declared symbol.

    Attributes:
        name: identifier used in expressions.
        description: meaning in the source's words.
        unit: unit string in the symgpu registry (``"1"`` for pure numbers).
        role: ``input``, ``output``, ``intermediate`` or ``constant``.
        latex: LaTeX for reports ("" = SymPy's default rendering).
        assumptions: subset of ``positive``, ``nonnegative``, ``integer``.
        value: for constants, the quantity string.
        source: optional locator text.
    """

    name: str
    description: str
    unit: str
    role: str = "input"
    latex: str = ""
    assumptions: tuple[str, ...] = ()
    value: str = ""
    source: str = ""


@dataclass(frozen=True)
class CaseDefinition:
    """One branch of a piecewise equation: ``value`` applies ``when`` (``otherwise`` last)."""

    id: str
    when: str
    value: str
    note: str = ""


@dataclass(frozen=True)
class EquationDefinition:
    """A relation ``defines = rhs`` (or piecewise ``cases``) as written in the file.

    Attributes:
        id: unique id in the file.
        defines: the symbol on the left-hand side.
        rhs: right-hand side text ("" when ``cases`` is used).
        cases: ordered piecewise branches (empty when ``rhs`` is used).
        limiters: regime name -> argument text of a top-level Min/Max.
        source: where the equation is printed.
        counts: dimension names treated as pure counts in this equation.
        valid_when: domain conditions (text).
        assumes: conditions the source assumes for the value to be what ``defines`` is described as (text):
            the value is given outside them too, with a note (Volkov's cusp 'if we assume that throughput is
            bound by arithmetic capability, not instruction issue').
        note: remarks, including known defects of the source.
    """

    id: str
    defines: str
    source: SourceLocator
    rhs: str = ""
    cases: tuple[CaseDefinition, ...] = ()
    limiters: tuple[tuple[str, str], ...] = ()
    counts: tuple[str, ...] = ()
    valid_when: tuple[str, ...] = ()
    assumes: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class PresetDefinition:
    """A named parameter set: symbol name -> quantity text.

    Attributes:
        id: preset id.
        description: what the preset stands for.
        source: where the values come from.
        values: symbol name -> quantity string (own values only).
        based_on: id of a preset whose values this one inherits.
        notes: symbol name -> remark on that value.
    """

    id: str
    description: str
    source: SourceLocator
    values: tuple[tuple[str, str], ...]
    based_on: str = ""
    notes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ValidationCase:
    """A published number the engine must reproduce (or, with ``erratum``, must not).

    Attributes:
        id: case id.
        preset: preset id ("" for none).
        inputs: symbol name -> quantity text (overrides the preset).
        expect: quantity name -> quantity text as printed.
        source: where the number is printed.
        rel_tol: explicit relative tolerance (``None``: from the printed digits).
        abs_tol: explicit absolute tolerance in the expected unit (``None``: from digits).
        erratum: why the printed number is wrong ("" for a number that reproduces).
        note: remarks that do not change the verdict.
        derivation: id of a ``[[derivations]]`` entry whose ``result`` / ``location`` the
            case checks ("" for a case on quantities).
    """

    id: str
    preset: str
    inputs: tuple[tuple[str, Any], ...]
    expect: tuple[tuple[str, str], ...]
    source: SourceLocator
    rel_tol: float | None = None
    abs_tol: float | None = None
    erratum: str = ""
    note: str = ""
    derivation: str = ""


@dataclass(frozen=True)
class DerivationRequest:
    """A question the model file asks the derivation engine.

    Attributes:
        id: request id.
        op: operation name (``solve``, ``boundary``, ``extremum``, ``limit``, ...: a key of
            :data:`symgpu.model.operations.SPECS`).
        fields: every other key of the entry, as read (strings, numbers, lists, tables).
        question: the entry read into typed fields when the model loaded, its fields checked
            against its operation's spec (None for a request built by hand: the engine reads and
            checks it when it runs). Not compared and not in ``repr`` (it follows from the rest).
    """

    id: str
    op: str
    fields: tuple[tuple[str, Any], ...] = ()
    question: operations.Question | None = field(default=None, compare=False, repr=False)

    def get(self, key: str, default: Any = None) -> Any:
        """Return the field ``key`` or ``default``."""
        return dict(self.fields).get(key, default)


@dataclass(frozen=True)
class Erratum:
    """A defect of the source that the model file records (typo, wrong number, inconsistency).

    Attributes:
        id: erratum id.
        source: where the defect is printed.
        text: what is wrong.
        evidence: how we know (a computation, a contradiction with another passage).
        cases: validation case ids that demonstrate it numerically (may be empty).
    """

    id: str
    source: SourceLocator
    text: str
    evidence: str
    cases: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlotRequest:
    """A plot the model file asks its report to draw, as read; the model reads it into its kind's
    typed record when it is built (:mod:`symgpu.model.plot_requests`, :attr:`Model.plots`).

    Attributes:
        id: plot id (used in file names).
        kind: plot kind (a key of :data:`symgpu.model.plot_kinds.KINDS`).
        fields: every other key of the entry, as read.
    """

    id: str
    kind: str
    fields: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """Return the field ``key`` or ``default``."""
        return dict(self.fields).get(key, default)


@dataclass(frozen=True)
class MeasurementRequest:
    """A measured-data file the report compares the model with (``[[measurements]]``).

    Attributes:
        id: entry id (names the plot files).
        data: measured-data CSV, relative to the repository root (units in the headers).
        quantity: the compared quantity (a column of the file, defined by an equation).
        preset: preset for the values no column gives ("" for none).
        variable: the swept column ("" for the default: ``n`` or the most varied column).
        column: the measured column when it is not named ``quantity`` ("" for ``quantity``).
        where: (column, value) filters applied to the rows.
        caption: text under the plot, including where and why the model fails.
        source: where the data come from.
    """

    id: str
    data: str
    quantity: str
    source: SourceLocator
    preset: str = ""
    variable: str = ""
    column: str = ""
    where: tuple[tuple[str, float], ...] = ()
    caption: str = ""


@dataclass(frozen=True)
class TableRequest:
    """A table the report prints (``[[tables]]``): one row per preset, one column per symbol.

    Attributes:
        id: table id.
        title: heading of the table.
        presets: the rows, preset ids (``a+b`` combinations allowed), in order.
        columns: the columns, symbol names (inputs or quantities), each in its declared unit.
        source: where the compared numbers come from.
        caption: text under the table.
    """

    id: str
    title: str
    presets: tuple[str, ...]
    columns: tuple[str, ...]
    source: SourceLocator
    caption: str = ""


@dataclass(frozen=True)
class OccupancyMapping:
    """How a model takes occupancy computed from a launch's resources (``[occupancy]``): the
    occupancy model (``equations/occupancy.toml``) gives the values, this table says where they go.

    Attributes:
        symbols: (this model's symbol, the occupancy model's quantity or input it receives), in file order.
        presets: (this model's preset, a GPU; the occupancy model's compute-capability preset ``cc_X_Y``), in file order.
        source: where the mapping comes from.
    """

    symbols: tuple[tuple[str, str], ...]
    presets: tuple[tuple[str, str], ...]
    source: SourceLocator


@dataclass(frozen=True)
class ModelDefinition:
    """Everything a model file says, validated for shape but not yet built into SymPy.

    Attributes:
        id: model id (the file stem).
        path: file the definition was read from.
        title: model name.
        summary: one paragraph.
        references: reference key -> record, primary first.
        symbols: declared symbols, in file order.
        equations: equations, in file order.
        presets: presets, in file order.
        validation: validation cases, in file order.
        derivations: derivation requests, in file order.
        extends: id of the model this one is a variant of ("" for none).
        plots: plots the report draws, in file order.
        errata: recorded defects of the source, in file order.
        measurements: measured-data comparisons the report draws, in file order.
        tables: tables across presets the report prints, in file order.
        occupancy: how the model takes occupancy from a launch's resources (None: it does not).
    """

    id: str
    path: str
    title: str
    summary: str
    references: tuple[Reference, ...]
    symbols: tuple[SymbolDefinition, ...]
    equations: tuple[EquationDefinition, ...]
    presets: tuple[PresetDefinition, ...] = ()
    validation: tuple[ValidationCase, ...] = ()
    derivations: tuple[DerivationRequest, ...] = ()
    extends: str = ""
    primary_reference: str = field(default="")
    plots: tuple[PlotRequest, ...] = ()
    errata: tuple[Erratum, ...] = ()
    measurements: tuple[MeasurementRequest, ...] = ()
    tables: tuple[TableRequest, ...] = ()
    occupancy: OccupancyMapping | None = None
