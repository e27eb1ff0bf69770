"""The prior-models study (Volkov 2016, Ch. 7): each prior model's throughput against Volkov's over occupancy and arithmetic intensity, and the occupancy each needs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
import numpy as np
import sympy
from symgpu import errors, units
from symgpu.model import loader
from symgpu.model import Model
from symgpu.compare.sweeps import sweep
from symgpu.compare.sweeps import model_sweep
from symgpu.evaluate import evaluator, rule


#: The reference model of the prior-models report.
REFERENCE = "volkov_2016"


#: Quantity compared by the report.
QUANTITY = "arithmetic_throughput"


#: Arithmetic intensities of Volkov's §7.9: 1 .. 512 at powers of sqrt(2).
ALPHAS = tuple(2.0 ** (k / 2) for k in range(19))


#: Fraction of the peak that defines the needed occupancy (Volkov Fig. 7.14: 90%).
NEEDED_FRACTION = 0.9


#: Occupancy step of the needed-occupancy search (warps per SM).
OCCUPANCY_STEP = 0.25


#: A needed-occupancy curve has a cusp when its interior maximum exceeds both ends by this factor.
CUSP_FACTOR = 1.1


# ============================================================================ the prior-models report
@dataclass
class PresetStudy:
    """One prior model on one GPU preset against the reference model."""

    preset: str
    n_max: float
    factor_min: float
    factor_min_at: dict[str, float]
    factor_max: float
    factor_max_at: dict[str, float]
    outside_domain: int
    needed_prior: np.ndarray
    needed_reference: np.ndarray
    needed_formula: np.ndarray
    band_min: np.ndarray
    band_max: np.ndarray
    cusp_prior: str
    cusp_reference: str


@dataclass
class ModelStudy:
    """A prior model's comparison with the reference model on each GPU preset they share."""

    id: str
    title: str
    summary: str
    studies: list[PresetStudy]
    error_plot: str = ""
    needed_plot: str = ""


def prior_models(folder: Path | None = None) -> list[str]:
    """Ids of the bundled ``prior_*`` models, sorted."""
    return [m for m in loader.list_models(folder) if m.startswith("prior_")]


def needed_occupancy(model: Model, preset: str, alphas: Sequence[float], n_top: float, *, quantity: str = QUANTITY,
                     fraction: float = NEEDED_FRACTION, step: float = OCCUPANCY_STEP) -> np.ndarray:
    """Smallest occupancy (on a ``step`` grid up to ``n_top``) at which the model attains
    ``fraction`` of its largest throughput on that range, per alpha (Volkov Fig. 7.14). A point
    whose value is within :data:`rule.TIE` of ``fraction`` of the peak is decided in exact
    arithmetic (:func:`evaluator.exact`), so an exact tie is not lost to rounding."""
    n = np.arange(step, n_top + step / 2, step)
    thru, _ = model_sweep(model, quantity, preset, {}, [("alpha", np.asarray(alphas, dtype=float), model), ("n", n, model)])
    out = np.full(len(alphas), np.nan)
    for i, alpha in enumerate(alphas):
        row = np.nan_to_num(np.asarray(thru[i], dtype=float), nan=-np.inf)
        if not np.isfinite(row).any():
            continue
        first = _first_attaining(model, quantity, preset, float(alpha), n, row, fraction)
        if first is not None:
            out[i] = n[first]
    return out


def _first_attaining(model: Model, quantity: str, preset: str, alpha: float, n: np.ndarray, row: np.ndarray,
                     fraction: float) -> int | None:
    """Index of the first ``row`` value at least ``fraction`` of the row's largest (NaN as -inf):
    one clearly above in floats, or one tied with it by :func:`rule.tied` and at least it exactly."""
    peak = float(np.max(row))
    target = fraction * peak
    near = rule.tied(row, target)
    for j in np.nonzero(np.logical_or(row >= target, near))[0]:
        if not near[j]:
            return int(j)
        verdict = _attains_exactly(model, quantity, preset, alpha, n, row, int(j), peak, fraction)
        if verdict is None or verdict:  # undecidable exactly: the tie rule, as sweeps decide
            return int(j)
    return None


def _attains_exactly(model: Model, quantity: str, preset: str, alpha: float, n: np.ndarray, row: np.ndarray, j: int,
                     peak: float, fraction: float) -> bool | None:
    """Whether the value at ``n[j]`` is at least ``fraction`` of the row's exact largest value
    (the largest exact value among the points tied with the float peak); None when a value is not
    an exact real number."""
    def exact_at(k: int) -> sympy.Expr | None:
        try:
            value = evaluator.exact(model, quantity, preset=preset, values={"alpha": alpha, "n": float(n[k])})
        except errors.SymgpuError:
            return None
        return value if value.is_number and value.is_extended_real and value.is_finite else None
    peaks = [exact_at(int(k)) for k in np.nonzero(rule.tied(row, peak))[0]]
    value = exact_at(j)
    if value is None or not peaks or any(p is None for p in peaks):
        return None
    return bool(value >= sympy.Rational(repr(fraction)) * sympy.Max(*peaks))


def _cusp(curve: np.ndarray, alphas: Sequence[float]) -> str:
    finite = np.isfinite(curve)
    if finite.sum() < 3:
        return "undetermined"
    values = curve[finite]
    where = np.asarray(alphas)[finite]
    peak = int(np.argmax(values))
    ends = max(values[0], values[-1])
    if 0 < peak < values.size - 1 and values[peak] > CUSP_FACTOR * ends:
        return f"cusp: {values[peak]:.4g} warps at alpha = {where[peak]:.3g} (ends {values[0]:.3g}, {values[-1]:.3g})"
    return f"no cusp (largest {values.max():.4g} warps at alpha = {where[int(np.argmax(values))]:.3g}; ends {values[0]:.3g}, {values[-1]:.3g})"


def study_model(reference: Model, prior: Model, *, alphas: Sequence[float] = ALPHAS) -> ModelStudy:
    """Error factors prior/reference of ``arithmetic_throughput`` over alpha and n = 1..n_max,
    and needed-occupancy curves, on every preset both models define."""
    studies = []
    for preset in prior.presets:
        if preset not in reference.presets or "n_max" not in prior.presets[preset]:
            continue
        n_max = float(units.magnitude_in(prior.presets[preset]["n_max"], prior.units["n"]))
        n = np.arange(1.0, math.floor(n_max) + 1)
        result = sweep(reference, prior, QUANTITY, preset=preset, over=[("alpha", np.asarray(alphas, dtype=float)), ("n", n)])
        low, high = result.extreme("min"), result.extreme("max")
        if low is None or high is None:
            continue
        with np.errstate(all="ignore"):
            band_min = np.array([np.nanmin(r) if np.isfinite(r).any() else np.nan for r in result.ratio])
            band_max = np.array([np.nanmax(r) if np.isfinite(r).any() else np.nan for r in result.ratio])
        n_top = 2 * n_max
        needed_prior = needed_occupancy(prior, preset, alphas, n_top)
        needed_reference = needed_occupancy(reference, preset, alphas, n_top)
        needed_formula = np.asarray(evaluator.evaluate(reference, "n_needed", preset=preset, values={"alpha": np.asarray(alphas, dtype=float)}).magnitude, dtype=float)
        studies.append(PresetStudy(preset, n_max, low[0], low[1], high[0], high[1], result.invalid_b,
                                   needed_prior, needed_reference, needed_formula, band_min, band_max,
                                   _cusp(needed_prior, alphas), _cusp(needed_formula, alphas)))
    return ModelStudy(prior.id, prior.title, prior.definition.summary, studies)
