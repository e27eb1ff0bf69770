"""The plot kinds a model file's ``[[plots]]`` may ask for, as data: one frozen :class:`PlotKind`
per kind (the fields it reads, the ones it needs, how many variables it sweeps, what it draws), and
the typed record each kind's entries are read into (:class:`CurvePlot`, :class:`AsymptotesPlot`,
:class:`RegimeMapPlot`). Plain data (no SymPy, pint or matplotlib import); a mark also holds its
expression as the model parsed it, a SymPy object made by the model.

The model checks each entry against its kind's spec when it is built
(:mod:`symgpu.model.plot_requests`); the report (:mod:`symgpu.report.plot_specs`) plans its
plots from the records, :attr:`symgpu.model.Model.plots`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

#: Fields every plot kind reads (besides ``id`` and ``kind``).
COMMON = ("quantity", "variables", "ranges", "presets", "case", "inputs", "bind", "substitute", "centers",
          "marks", "caption", "title", "xscale", "yscale")
#: Fields of the kinds that sweep one variable into a curve.
SWEPT = ("x", "series", "show_regimes", "regime_of")
#: Fields every entry needs.
REQUIRED = ("quantity", "variables")
#: Fields of a ``marks`` table.
MARK_FIELDS = ("axis", "label", "expression", "variable")
#: Axis scales.
SCALES = ("linear", "log")
#: At most this many points in a stepped range, and curves in a series.
MAX_STEPS = 2001
MAX_SERIES = 10


@dataclass(frozen=True)
class Mark:
    """A line drawn at the value of a model expression in the plot's scenario.

    Attributes:
        axis: ``x`` or ``y``.
        label: legend text (the expression when the file gives none).
        expression: model expression text.
        variable: the regime map variable it marks ("" = the x variable, or none given).
        parsed: ``expression`` as the model parsed it (a SymPy expression): for a file's mark when
            the model is built (a bad one is refused there), for a mark a report makes from a
            derivation's expected form when it plans the plot; ``None`` where that does not parse.
        problem: why ``expression`` does not parse, as the report shows it ("" when it does).
    """

    axis: str
    label: str
    expression: str
    variable: str = ""
    parsed: Any = None
    problem: str = ""


@dataclass(frozen=True)
class Center:
    """The middle of a swept variable's automatic range: a model expression in the plot's scenario.

    Attributes:
        variable: the swept variable.
        expression: model expression text.
        parsed: ``expression`` as the model parsed it when it was built (a SymPy expression).
    """

    variable: str
    expression: str
    parsed: Any = None


@dataclass(frozen=True)
class PlotEntry:
    """The fields every kind of checked ``[[plots]]`` entry has.

    Attributes:
        id: plot id.
        quantity: the plotted quantity (defined by an equation).
        variables: swept symbols (:attr:`PlotKind.variables` of them).
        ranges: variable -> (start, stop, step or None), in the variable's declared unit.
        presets: preset ids (``a+b`` combined presets allowed); empty = every preset.
        case: validation case whose inputs join the preset ("" = none).
        bind: symbol -> quantity of the model, for values the presets lack.
        inputs: symbol -> quantity string.
        substitute: symbol -> expression text.
        centers: the centre of each automatic range given (:class:`Center`).
        marks: lines at model expressions.
        caption: text under the plot (whitespace runs made one space).
        title: title override ("" = automatic).
        xscale, yscale: ``linear``, ``log`` or "" (automatic).
    """

    kind: ClassVar[str]

    id: str
    quantity: str
    variables: tuple[str, ...]
    ranges: tuple[tuple[str, tuple[float, float, float | None]], ...] = ()
    presets: tuple[str, ...] = ()
    case: str = ""
    bind: tuple[tuple[str, str], ...] = ()
    inputs: tuple[tuple[str, str], ...] = ()
    substitute: tuple[tuple[str, str], ...] = ()
    centers: tuple[Center, ...] = ()
    marks: tuple[Mark, ...] = ()
    caption: str = ""
    title: str = ""
    xscale: str = ""
    yscale: str = ""


@dataclass(frozen=True)
class SweptPlot(PlotEntry):
    """A plot of a quantity against one variable (the fields of :data:`SWEPT`).

    Attributes:
        x: quantity drawn on the x axis instead of the variable ("" = the variable).
        series: (parameter, values as quantity strings) or ``None``.
        show_regimes: colour points by the active case / limiter of ``regime_of``.
        regime_of: the bounded quantity whose regime is shown ("" unless ``show_regimes``).
    """

    x: str = ""
    series: tuple[str, tuple[str, ...]] | None = None
    show_regimes: bool = False
    regime_of: str = ""


@dataclass(frozen=True)
class CurvePlot(SweptPlot):
    """``kind = "curve"``: a quantity against one variable, with marks."""

    kind: ClassVar[str] = "curve"


@dataclass(frozen=True)
class AsymptotesPlot(SweptPlot):
    """``kind = "asymptotes"``: a bounded quantity against one variable, each bound drawn dashed."""

    kind: ClassVar[str] = "asymptotes"


@dataclass(frozen=True)
class RegimeMapPlot(PlotEntry):
    """``kind = "regime_map"``: which limiter or case is active over two variables."""

    kind: ClassVar[str] = "regime_map"


@dataclass(frozen=True)
class PlotKind:
    """One plot kind of ``[[plots]]``.

    Attributes:
        name: the ``kind`` text.
        record: the typed record its entries are read into.
        reads: the fields it reads (besides ``id`` and ``kind``), in a fixed order.
        variables: how many variables it sweeps.
        bounded: whether its quantity must be piecewise or a top-level Min/Max.
        description: what it draws, one line.
    """

    name: str
    record: type[PlotEntry]
    reads: tuple[str, ...]
    variables: int
    bounded: bool
    description: str

    @property
    def allowed(self) -> frozenset[str]:
        """Every field an entry of this kind may have, besides ``id`` and ``kind``."""
        return frozenset(self.reads)

    def unknown(self, fields: tuple[tuple[str, Any], ...]) -> list[str]:
        """The fields of ``fields`` this kind does not read, sorted."""
        return sorted(set(dict(fields)) - self.allowed)


#: ``kind`` -> its spec, in the order the documentation lists them (read-only).
KINDS: Mapping[str, PlotKind] = MappingProxyType({spec.name: spec for spec in (
    PlotKind("curve", CurvePlot, COMMON + SWEPT, 1, False,
             "a quantity against one variable, with x-marks and y-marks"),
    PlotKind("asymptotes", AsymptotesPlot, COMMON + SWEPT, 1, True,
             "a piecewise or Min/Max quantity against one variable, each limiter or case drawn dashed"),
    PlotKind("regime_map", RegimeMapPlot, COMMON, 2, True,
             "which limiter or case of a quantity is active over a grid of two variables"),
)})
#: The kind names, in the order of :data:`KINDS`.
NAMES = tuple(KINDS)
