"""The prior-models comparison report (``reports/comparison``) and sweep plots, rendered into memory."""

from __future__ import annotations

import jinja2

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from symgpu import errors
from symgpu.model import Model
from symgpu import api
from symgpu.compare.prior_study import ALPHAS, CUSP_FACTOR, NEEDED_FRACTION, OCCUPANCY_STEP, QUANTITY, REFERENCE, ModelStudy, prior_models, study_model
from symgpu.compare.sweeps import Sweep
from symgpu.report import figure_digests, figure_sketch, style
from symgpu.report.templates import TEMPLATES


def plot_sweep(result: Sweep, kind: str = "svg") -> bytes:
    """One sweep variable: both predictions and their ratio; two: a heat map of the ratio.

    Raises:
        errors.UsageError: no sweep variable, or more than two.
    """
    if len(result.variables) not in (1, 2):
        raise errors.UsageError("--plot needs one or two --over variables")
    with style.figures():
        if len(result.variables) == 1:
            x = result.axes[0]
            fig, (top, bottom) = style.pyplot.subplots(2, 1, figsize=(6.4, 6.0), sharex=True)
            top.plot(x, result.a, label=result.model_a, color="0.55", linewidth=2.5)
            top.plot(x, result.b, label=result.model_b, color="black", linewidth=1.0)
            top.set_ylabel(f"{result.quantity} [{result.unit}]")
            top.legend(loc="best")
            bottom.plot(x, result.ratio, color="black")
            bottom.axhline(1.0, color="0.6", linewidth=0.8)
            bottom.set_ylabel(f"ratio {result.model_b}/{result.model_a}")
            bottom.set_xlabel(result.variables[0])
        else:
            fig, ax = style.pyplot.subplots(figsize=(6.4, 4.8))
            x, y = result.axes
            mesh = ax.pcolormesh(y, x, result.ratio, shading="nearest", cmap="viridis")
            fig.colorbar(mesh, ax=ax, label=f"{result.model_b}/{result.model_a}")
            ax.set_xlabel(result.variables[1])
            ax.set_ylabel(result.variables[0])
        title = f"{result.quantity}" + (f", preset {result.preset}" if result.preset else "")
        fig.suptitle(title)
        data = style.save(fig, kind, tight=True)
        style.pyplot.close(fig)
    return data


def _error_figure(study: ModelStudy, alphas: Sequence[float], book: figure_digests.Book | None = None) -> bytes:
    with figure_sketch.figures():
        sketch = figure_sketch.Sketch("subplots figsize=(6.4, 3.6)", lambda: style.pyplot.subplots(figsize=(6.4, 3.6)))
        ax = sketch.axes()
        for index, s in enumerate(study.studies):
            color = f"C{index}"
            ax.fill_between(alphas, s.band_min, s.band_max, color=color, alpha=0.25, linewidth=0)
            ax.plot(alphas, s.band_max, color=color, linewidth=1.2, label=f"{s.preset}")
            ax.plot(alphas, s.band_min, color=color, linewidth=0.8, linestyle="--")
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("arithmetic intensity alpha")
        ax.set_ylabel(f"{study.id} / {REFERENCE}")
        ax.set_title(f"{study.id}: error factor range over n = 1..n_max")
        ax.legend(loc="best", fontsize=8)
        return sketch.finish(["svg"], {"svg": study.error_plot}, book, layout=False, tight=True)["svg"]


def _needed_figure(study: ModelStudy, alphas: Sequence[float], book: figure_digests.Book | None = None) -> bytes:
    with figure_sketch.figures():
        count = len(study.studies)
        sketch = figure_sketch.Sketch(f"subplots 1 {count} figsize=({3.2 * count!r}, 3.2) squeeze=False",
                                      lambda: style.pyplot.subplots(1, count, figsize=(3.2 * count, 3.2), squeeze=False))
        axes = [sketch.axes(f"ax{index}", index) for index in range(count)]
        for ax, s in zip(axes, study.studies):
            ax.plot(alphas, s.needed_formula, color="0.6", linewidth=2.5, label=f"{REFERENCE} n_needed")
            ax.plot(alphas, s.needed_reference, color="0.3", linewidth=1.0, linestyle=":", label=f"{REFERENCE}, 90% of peak")
            ax.plot(alphas, s.needed_prior, color="black", linewidth=1.2, label=f"{study.id}, 90% of peak")
            ax.axhline(s.n_max, color="0.7", linewidth=0.8, linestyle="--")
            ax.set_xscale("log", base=2)
            ax.set_title(s.preset)
            ax.set_xlabel("alpha")
        axes[0].set_ylabel("needed occupancy [warp/SM]")
        axes[0].legend(loc="best", fontsize=7)
        sketch.figure().suptitle(f"{study.id}: needed occupancy vs Volkov's cusp")
        return sketch.finish(["svg"], {"svg": study.needed_plot}, book, layout=False, tight=True)["svg"]


def model_ids() -> list[str]:
    """The models the comparison reads: the reference and every bundled ``prior_*`` model."""
    return [REFERENCE, *prior_models()]


def comparison_report(models: Sequence[str] | None = None, *, alphas: Sequence[float] = ALPHAS,
                      template: str | os.PathLike[str] | None = None, figures: figure_digests.Book | None = None) -> dict[str, bytes]:
    """Render ``prior_models.md`` and its SVG plots (file name -> bytes), deterministically;
    with ``figures`` (the target folder's figure book), a plot drawn from unchanged inputs is
    kept as it is there, and the book is among the files (:mod:`symgpu.report.figure_digests`)."""
    reference = api.load(REFERENCE, whole=True)
    studies = []
    files: dict[str, bytes] = {}
    for model_id in models or prior_models():
        prior = api.load(model_id, whole=True)
        if QUANTITY not in prior.defining:
            continue
        study = study_model(reference, prior, alphas=alphas)
        if not study.studies:
            continue
        study.error_plot = f"{model_id}_error.svg"
        study.needed_plot = f"{model_id}_needed.svg"
        files[study.error_plot] = _error_figure(study, alphas, figures)
        files[study.needed_plot] = _needed_figure(study, alphas, figures)
        studies.append(study)
    files["prior_models.md"] = _render(studies, reference, alphas, template).encode("utf-8")
    if figures is not None and figures.current:
        files[figure_digests.SIDECAR] = figures.text()
    return files


def _render(studies: Sequence[ModelStudy], reference: Model, alphas: Sequence[float], template: Any) -> str:
    path = Path(template) if template else TEMPLATES / "comparison.md.j2"
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(path.parent)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)

    def fmt(value: Any, digits: int = 3) -> str:
        return "n/a" if value is None or (isinstance(value, float) and not math.isfinite(value)) else f"{value:.{digits}g}"

    def at(where: Mapping[str, float]) -> str:
        return ", ".join(f"{k} = {v:.3g}" for k, v in where.items())

    env.filters["num"] = fmt
    env.filters["at"] = at
    return env.get_template(path.name).render(
        studies=studies, reference=reference, quantity=QUANTITY, alphas=list(alphas), fraction=NEEDED_FRACTION,
        step=OCCUPANCY_STEP, cusp_factor=CUSP_FACTOR)
