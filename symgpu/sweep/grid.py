"""Sweep grids: axes parsed from ``NAME=SPEC`` text, their Cartesian product, and its chunks.

Axis specs (values in the symbol's declared unit, or with one unit for the whole axis: ``L_M=0.2us:0.8us:log4``,
converted where the plan meets the model):

* ``n=1:64`` — start to stop inclusive, step 1;
* ``alpha=0:256:2`` — with a step (each point START + i*STEP in exact decimal arithmetic, rounded once);
* ``a=1,2,4`` — a list;
* ``x=1e3:1e6:log20`` — 20 points evenly spaced in log10 from start to stop (both included).

The grid is never built as a whole: :meth:`Grid.chunk` gives the coordinates of the points
``start..stop`` of the flattened grid (C order: the last axis varies fastest).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from symgpu import errors

#: the most values one axis may have, and the most points a grid may have (NOTE: 10**9 points are
#: minutes of evaluation and gigabytes per column written; a grid over it is refused before it starts)
MAX_AXIS = 10_000_000
MAX_POINTS = 10**9
#: longest accepted axis text
MAX_TEXT = 100_000


@dataclass(frozen=True)
class Axis:
    """One swept symbol: its name, its values (declared unit) and the text it came from.

    ``unit``: the unit the text gives its numbers in (``L_M=0.2us:0.8us:log4``), "" for the declared unit; its values
    are in the declared unit once ``scale`` (the exact ratio from ``unit`` to it) is known: where the plan meets the
    model (:func:`symgpu.sweep.plan.in_declared_units`), since parsing a grid knows no model. ``across``: the rates
    (clock, warp size) that ratio was taken across, as a note says them (``clock 1.266 GHz (clock of preset maxwell)``),
    "" where none."""

    name: str
    values: np.ndarray
    text: str
    unit: str = ""
    scale: Fraction | None = None
    across: str = ""

    @property
    def size(self) -> int:
        return int(self.values.size)

    @property
    def converted(self) -> bool:
        """Are the values in the declared unit (no unit given, or its ratio applied)?"""
        return not self.unit or self.scale is not None


#: a number, then what follows it (a unit, read where the plan meets the model: ``0.2us``, ``200 ns``, ``1.5 GB/s``)
_WITH_UNIT = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z_(][\w\s/*^().-]*)?\s*")


def _number(text: str, item: str, what: str, option: str = "--grid") -> tuple[float, str]:
    """The number of ``text`` and the unit written after it ("" for none)."""
    match = _WITH_UNIT.fullmatch(text)
    try:
        value = float(match.group(1) if match else text)
    except ValueError:
        raise errors.UsageError(f"{option} {item!r}: {what} {text!r} is not a number (a number, or a number and a unit "
                                "such as 0.2us; a bare number is in the symbol's declared unit)") from None
    if not math.isfinite(value):
        raise errors.UsageError(f"{option} {item!r}: {what} must be finite")
    return value, " ".join((match.group(2) or "").split()) if match else ""


def _one_unit(found: Sequence[str], item: str, option: str) -> str:
    """The one unit an axis's numbers are written in ("" for none); numbers in several, or some without, refused."""
    given = set(found)
    if len(given) > 1:
        shown = ", ".join(repr(u) if u else "none" for u in sorted(given))
        raise errors.UsageError(f"{option} {item!r}: the numbers are in several units ({shown}); write every number of the "
                                "axis in one unit (or none: the symbol's declared unit)")
    return given.pop() if given else ""


def _exact(value: float, scale: Fraction | None) -> Fraction:
    return Fraction(Decimal(repr(value))) * (scale if scale is not None else 1)


def parse_axis(text: str, option: str = "--grid", scale: Fraction | None = None) -> Axis:
    """Parse ``NAME=START:STOP[:STEP|:logN]`` or ``NAME=V1,V2,...`` into an :class:`Axis`
    (``option``: the command-line option the text came with, named in errors). Numbers may carry a unit, one for the
    whole axis (``L_M=0.2us:0.8us:0.1us``); ``scale``: the exact ratio from it to the symbol's declared unit, applied
    to each number exactly (each value rounded once), None where it is not yet known.

    Raises:
        errors.UsageError: malformed text, a non-positive step, an empty or oversized range,
            or a log range whose ends are not positive.
    """
    if len(text) > MAX_TEXT:
        raise errors.UsageError(f"{option}: an axis text of {len(text)} characters is too long (at most {MAX_TEXT})")
    name, sep, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    hint = f"expected NAME=START:STOP[:STEP], NAME=START:STOP:logN or NAME=V1,V2,..., e.g. {option} n=1:64"
    if not sep or not name.isidentifier() or not spec:
        raise errors.UsageError(f"{option} {text!r}: {hint}")
    if "," in spec or ":" not in spec:
        read = [_number(part.strip(), text, "value", option) for part in spec.split(",")]
        unit = _one_unit([u for _, u in read], text, option)
        values = np.array([float(_exact(v, scale)) if scale is not None else v for v, _ in read], dtype=float)
        if values.size > MAX_AXIS:
            raise errors.UsageError(f"{option} {text!r}: {values.size} values is too many (at most {MAX_AXIS})")
        return Axis(name, values, text, unit, scale)
    parts = spec.split(":")
    if len(parts) not in (2, 3):
        raise errors.UsageError(f"{option} {text!r}: {hint}")
    (start, start_unit), (stop, stop_unit) = _number(parts[0], text, "START", option), _number(parts[1], text, "STOP", option)
    if stop < start:
        raise errors.UsageError(f"{option} {text!r}: STOP is smaller than START")
    step_text = parts[2].strip() if len(parts) == 3 else "1"
    if step_text.lower().startswith("log"):
        unit = _one_unit([start_unit, stop_unit], text, option)
        count_text = step_text[3:]
        if not count_text.isdigit() or int(count_text) < 2:
            raise errors.UsageError(f"{option} {text!r}: logN needs a whole number N >= 2 of points, e.g. log20")
        count = int(count_text)
        if not start > 0:
            raise errors.UsageError(f"{option} {text!r}: a log range needs START > 0")
        if count > MAX_AXIS:
            raise errors.UsageError(f"{option} {text!r}: {count} points is too many (at most {MAX_AXIS})")
        start, stop = float(_exact(start, scale)), float(_exact(stop, scale))
        values = np.logspace(math.log10(start), math.log10(stop), count)
        values[0], values[-1] = start, stop  # the ends exactly as given
        return Axis(name, values, text, unit, scale)
    step, step_unit = _number(step_text, text, "STEP", option)
    if len(parts) == 2 and start_unit:
        step_unit = start_unit  # the default step of 1 is in the axis's unit
    unit = _one_unit([start_unit, stop_unit, step_unit], text, option)
    if not step > 0:
        raise errors.UsageError(f"{option} {text!r}: STEP must be a positive number")
    first, last, stride = (_exact(v, scale) for v in (start, stop, step))
    count = int((last - first) // stride) + 1
    if count > MAX_AXIS:  # a count of hundreds of digits (1:1e300) said by its size
        shown = str(count) if count < 10**15 else f"at least 10^{len(str(count)) - 1}"
        raise errors.UsageError(f"{option} {text!r}: {shown} points is too many (at most {MAX_AXIS})")
    return Axis(name, _exact_range(first, stride, count), text, unit, scale)


def _exact_range(first: Fraction, stride: Fraction, count: int) -> np.ndarray:
    """``first + i*stride`` for ``i < count``, each in exact arithmetic and rounded once to the nearest
    double: the point written ``1.4`` is ``float('1.4')``, where accumulating doubles gives
    ``0.2 + 6*0.2 = 1.4000000000000001`` (a ceiling or a case boundary there then differs from ``eval`` at 1.4).
    Over one denominator the numerators are integers: below 2**53 both are exact doubles and one IEEE
    division rounds the quotient once; larger ones are divided as Python integers, also rounded once."""
    denominator = math.lcm(first.denominator, stride.denominator)
    a, b = first.numerator * (denominator // first.denominator), stride.numerator * (denominator // stride.denominator)
    biggest = max(abs(a), abs(a + b * (count - 1)), denominator)
    if biggest < 2**53:
        return (a + b * np.arange(count, dtype=np.int64)).astype(float) / float(denominator)
    return np.array([(a + b * i) / denominator for i in range(count)], dtype=float)


@dataclass(frozen=True)
class Grid:
    """The Cartesian product of axes, evaluated chunk by chunk."""

    axes: tuple[Axis, ...]
    #: the option the axes were given with, named by messages (``compare`` gives them as ``--over``)
    option: str = "--grid"

    def __post_init__(self) -> None:
        names = [a.name for a in self.axes]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise errors.UsageError(f"{self.option}: {', '.join(repeated)} given more than once; give each axis once")
        if self.size > MAX_POINTS:
            raise errors.UsageError(f"{self.option}: {self.size} points is too many (at most {MAX_POINTS}); "
                                    "use coarser axes or split the sweep into several")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.axes)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.size for a in self.axes)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def chunks(self, chunk_size: int) -> list[tuple[int, int]]:
        """``(start, stop)`` of each chunk of the flattened grid: at most ``chunk_size`` points,
        each chunk a box of the grid (a run of whole rows of the trailing axes), so that a
        compiled pass computes every subexpression at the size of the axes it uses."""
        if chunk_size < 1:
            raise errors.UsageError(f"chunk size must be at least 1, got {chunk_size}")
        shape = self.shape
        split = next((d for d in range(len(shape)) if math.prod(shape[d + 1:]) <= chunk_size), len(shape))
        if split == len(shape) or not shape:
            return [(s, min(s + chunk_size, self.size)) for s in range(0, self.size, chunk_size)]
        row = math.prod(shape[split + 1:])  # points per index of the split axis
        rows = max(1, chunk_size // row) if row else 1
        out = []
        for outer in range(math.prod(shape[:split])):
            base = outer * shape[split] * row
            out += [(base + i * row, base + min(i + rows, shape[split]) * row) for i in range(0, shape[split], rows)]
        return out

    def boxes(self, start: int, stop: int) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
        """The points ``start..stop-1`` of the flattened grid as boxes, in order: ``(first flat
        index, ((lo, hi) per axis))`` (one box for a chunk of :meth:`chunks`)."""
        return [(start + offset, bounds) for offset, bounds in _boxes(start, stop, self.shape)]

    def chunk(self, start: int, stop: int) -> list[np.ndarray]:
        """Each axis's values at the points ``start..stop-1`` of the flattened grid (C order)."""
        if not self.axes:
            return []
        indices = np.unravel_index(np.arange(start, stop, dtype=np.int64), self.shape)
        return [axis.values[index] for axis, index in zip(self.axes, indices)]


def _boxes(start: int, stop: int, shape: tuple[int, ...]) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """``(offset from start, bounds)`` of the boxes covering the flat range ``start..stop-1`` of ``shape``."""
    if start >= stop:
        return []
    if len(shape) <= 1:
        return [(0, ((start, stop),) if shape else ())]
    inner = math.prod(shape[1:])
    first, head = divmod(start, inner)
    last, tail = divmod(stop, inner)
    full = tuple((0, n) for n in shape[1:])
    if first == last:
        return [(o, ((first, first + 1),) + b) for o, b in _boxes(head, tail, shape[1:])]
    out: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    if head:
        out += [(o, ((first, first + 1),) + b) for o, b in _boxes(head, inner, shape[1:])]
        first += 1
    if last > first:
        out.append((first * inner - start, ((first, last),) + full))
    if tail:
        out += [(last * inner - start + o, ((last, last + 1),) + b) for o, b in _boxes(0, tail, shape[1:])]
    return out


def parse_grid(texts: Sequence[str]) -> Grid:
    """A :class:`Grid` from ``--grid`` texts (see :func:`parse_axis`)."""
    return Grid(tuple(parse_axis(t) for t in texts))
