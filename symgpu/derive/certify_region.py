"""The region check of a symbolic extremum (one asked without a point): the closed form is checked at
many seeded points inside its own "valid when" region, not only at the model's presets, and each
check's scan holds the points a plain grid steps over (outside tester round 14b, F2, F5, F9, F11).

:func:`region_points` draws, for the inputs of the quantity and of the answer, values near the
presets' (a preset's value times a factor k/8) small rationals n/4 and, a quarter of the time, near another input's
value (plus or minus 1/64 to 1: where the answer's conditions tie), all exact binary fractions,
and keeps the points where the answer's closed form has a value (a branch of its Piecewise holds)
and its stated conditions hold, at most :data:`REGION_POINTS` of them from :data:`REGION_DRAWS`
draws. :func:`extra_scan` adds to a check's scan, at its point: each meeting point of the quantity's
Min/Max arguments (:func:`symgpu.derive.certify_path.meeting_points`) and the ends of the
variable's admissible set (``valid_when`` domains, ``--assume`` bounds) found by bisection between
scan points, each with a point just beside it on each side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import pint
import sympy

from symgpu import errors, units
from symgpu.derive.certify_path import Asked, _inside, _Point, _result_at, beside, meeting_points
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import active
from symgpu.proofs import sample_points

if TYPE_CHECKING:
    from symgpu.model import Model

#: a certificate's check at one point: what it checked, None where it checks nothing
Check = Callable[["Model", Derivation, Asked, _Point], "str | None"]

#: points inside the answer's region checked beside the presets (the certificate's budget: each is one scan)
REGION_POINTS = 24
#: draws tried to find them
REGION_DRAWS = 240
#: factors (k/8) a preset's value is drawn scaled by, and numerators (n/4) of the small rationals drawn
FACTORS = tuple(range(1, 25))
SMALL = tuple(range(1, 49))
#: offsets of an input drawn near another's value (exact binary fractions)
OFFSETS = (-1, -1 / 2, -1 / 4, -1 / 16, -1 / 64, 1 / 64, 1 / 16, 1 / 4, 1 / 2, 1)


def region_points(model: Model, derivation: Derivation, asked: Asked, answer_inputs: frozenset[str], *,
                  unattained: bool = False) -> Iterator[_Point]:
    """Seeded points where the answer claims something: its result has a value there and every
    condition it states holds (at most :data:`REGION_POINTS`); ``unattained``: instead, every condition
    it states holds and no branch of its result does, where it says there is no extremum (``extra.elsewhere``)."""
    wanted = sorted((set(model.inputs(asked.quantity)) | answer_inputs) - {asked.variable, *model.constants,
                                                                             *(n for n, _ in asked.substitute)})
    if not wanted or not isinstance(derivation.result, sympy.Basic):
        return
    scales = _preset_scales(model, wanted)
    rng = sample_points.Draws(f"{model.id}/{asked.quantity}/{asked.variable}/region")
    kept = 0
    for attempt in range(REGION_DRAWS):
        values: dict[str, float] = {}
        for name in wanted:
            assumptions = model.symbol_definitions[name].assumptions
            if values and attempt % 4 == 3 and rng.choice((True, False)):  # near another input: where conditions tie
                value = abs(rng.choice(list(values.values())) + rng.choice(OFFSETS)) or 1 / 64
            elif scales.get(name) and attempt % 4:
                value = rng.choice(scales[name]) * rng.choice(FACTORS) / 8
            else:
                value = rng.choice(SMALL) / 4
            if "integer" in assumptions:
                value = float(max(1, round(value)))
            values[name] = value
        shown = ", ".join(f"{k}={v:g}" for k, v in sorted(values.items()))
        point = _Point(f"a point of its {'domain' if unattained else 'region'} ({shown})", None, values)
        if _claims(model, derivation, asked, point, unattained):
            kept += 1
            yield point
            if kept >= REGION_POINTS:
                return


def _preset_scales(model: Model, names: list[str]) -> dict[str, list[float]]:
    """Per input, its positive magnitudes (declared unit) over the model's presets."""
    scales: dict[str, list[float]] = {n: [] for n in names}
    for preset in model.presets:
        try:
            given = model.preset(preset)
        except errors.SymgpuError:
            continue
        for name in names:
            if name in given:
                try:
                    number = float(units.magnitude_in(given[name], model.units[name]))
                except (pint.PintError, TypeError, ValueError, AttributeError):
                    continue
                if np.isfinite(number) and number > 0:
                    scales[name].append(number)
    return scales


def _claims(model: Model, derivation: Derivation, asked: Asked, point: _Point, unattained: bool = False) -> bool:
    try:
        if not all(active.condition_true(model, c, None, dict(point.values)) for c in derivation.extra.valid_when or ()):
            return False
        value = _result_at(model, derivation, derivation.result, model.units[asked.quantity], point, {})
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return False
    return bool(np.isnan(value)) and bool(derivation.extra.elsewhere) if unattained else bool(np.isfinite(value))


# ------------------------------------------------------------------------------ the scan's extra points
def extra_scan(model: Model, asked: Asked, point: _Point, grid: np.ndarray) -> np.ndarray:
    """The meeting points of the quantity's Min/Max arguments at the point (:func:`symgpu.derive.certify_path.meeting_points`)
    and the ends of the variable's admissible set, each with the points beside it (declared range kept); empty for an integer
    variable."""
    return np.concatenate([meeting_points(model, asked, point), beside(model, asked, _ends(model, asked, point, grid))])


def _ends(model: Model, asked: Asked, point: _Point, grid: np.ndarray) -> Iterator[float]:
    """Each place along ``grid`` where the admissible set (``valid_when``, ``--assume``) starts or ends,
    bisected to the float resolution, the inside point yielded."""
    try:
        with np.errstate(all="ignore"):
            inside = _inside(model, asked, point, grid)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return
    for i in np.flatnonzero(inside[1:] != inside[:-1])[:16]:
        lo, hi = float(grid[i]), float(grid[i + 1])
        lo_in = bool(inside[i])
        for _ in range(4):  # 64 points a round: the end to 64**-4 of a scan step
            xs = np.linspace(lo, hi, 66)
            with np.errstate(all="ignore"):
                same = _inside(model, asked, point, xs) == lo_in
            k = int(np.argmin(same)) if not same.all() else len(xs) - 1
            lo, hi = float(xs[max(k - 1, 0)]), float(xs[k])
        yield lo if lo_in else hi


def checked_in_region(model: Model, derivation: Derivation, asked: Asked, answer_inputs: frozenset[str],
                      check: Check, unattained: bool = False) -> list[str]:
    """The labels of the region points (:func:`region_points`, ``unattained`` passed on) where ``check`` said something; a
    check that fails raises (:class:`symgpu.errors.CertificateError`), one that cannot be made there is skipped."""
    labels: list[str] = []
    for point in region_points(model, derivation, asked, answer_inputs, unattained=unattained):
        try:
            said = check(model, derivation, asked, point)
        except errors.CertificateError:
            raise
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
            continue
        if said is not None:
            labels.append(point.label)
    return labels


def held_nowhere(model: Model, asked: Asked, tried: int) -> str:
    """The refusal of an extremum whose stated conditions held at none of the points tried."""
    return (f"{model.id}: extremum of {asked.quantity} over {asked.variable}: the conditions the closed form holds under "
            f"(valid when ...) held at none of the {tried} presets and sampled points nor at {REGION_DRAWS} drawn points, so "
            "it is not checked and not shown; ask at your point (--preset, --set) for an answer derived and checked there")


def in_region(model: Model, derivation: Derivation, asked: Asked, how: tuple[frozenset[str], Check], done: list[str],
              labels: list[str], tried: int) -> tuple[list[str], list[str]]:
    """``done`` and ``labels`` (the certificate's checks and points so far) with the region's points
    checked by ``how``'s check (the answer's inputs first); a closed form with stated conditions that
    held at none of the points, the region's included, is refused (never shown unchecked), unless it says where no branch holds
    there is no extremum (``extra.elsewhere``) and that is checked at drawn points of its domain where none does (Volkov's
    two-term loaded latency over b has its maximum only where x = 0, which no point draws, and none beside it)."""
    region = checked_in_region(model, derivation, asked, *how)
    if region:
        return (done + ["the same at each drawn point of its region"],
                labels + [f"{len(region)} drawn points where it claims a value ({region[0]}, ...)"])
    if not done and derivation.extra.valid_when:
        unattained = checked_in_region(model, derivation, asked, *how, unattained=True) if derivation.extra.elsewhere else []
        if not unattained:
            raise errors.CertificateError(held_nowhere(model, asked, tried))
        return (["no extremum where no branch holds, as the answer says: at each drawn point of its domain there the best point of "
                 "the variable's scan is at its end"],
                [f"{len(unattained)} drawn points where it says there is none ({unattained[0]}, ...)"])
    return done, labels
