"""The differential tester over generated models (``benchmarks/differential.py --generated N``): the
models of :mod:`differential_models` written to a folder on ``$SYMGPU_MODEL_PATH``, each loaded as
``symgpu check`` loads it, and the brute-force oracle's source of numbers held to the generator's own
arithmetic before any question is asked of it.

The oracle (:mod:`differential_oracle`) reads every number from ``Model.evaluate`` and every regime from
:func:`symgpu.evaluate.active.active_regime`; it never calls the derivation engine it judges, but the
engine's certificates read the same evaluate path, so a fault there (a literal put in the wrong scale, a
preset value converted wrongly) would make both sides agree on a wrong number. :func:`oracle_faults`
closes that gap: along the very grids the oracle scans (:func:`differential_oracle.grid`, evaluated by
:func:`differential_oracle.evaluate_on`, arrays and scalars as the oracle asks for them) and at each
preset, every quantity's value must equal :meth:`GeneratedModel.reference` (plain floats in base units,
no pint, SymPy or symgpu) within ``REL``, NaN where it is NaN (a ``valid_when`` domain), and the regime
:func:`differential_oracle.regime_labels` names must be the reference's. A model where it is not is
reported with its file and kept out of the questions.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import symgpu
from symgpu import errors

import differential_models as models
import differential_oracle as oracle
from differential_questions import Point

#: relative tolerance between the evaluate path and the reference (both are float arithmetic in another order)
REL = 1e-9


@dataclass(frozen=True)
class Fault:
    """A generated model that could not be used: refused at load (``symgpu check``'s path) or whose
    evaluate path differs from the reference."""

    model: str
    kind: str
    detail: str

    def line(self) -> str:
        return f"[{self.kind}] {self.model}: {self.detail}"


@dataclass(frozen=True)
class Generated:
    """The models of one ``--generated`` run: their folder, those asked about and those faulted."""

    folder: Path
    models: tuple[models.GeneratedModel, ...]
    usable: tuple[str, ...]
    faults: tuple[Fault, ...]

    def text_of(self, model_id: str) -> str:
        return next(m.text for m in self.models if m.id == model_id)


def on_model_path(folder: Path) -> None:
    """Put ``folder`` on ``$SYMGPU_MODEL_PATH`` (first among the extra folders), so its models load by id."""
    rest = [p for p in os.environ.get("SYMGPU_MODEL_PATH", "").split(os.pathsep) if p.strip() and p != str(folder)]
    os.environ["SYMGPU_MODEL_PATH"] = os.pathsep.join([str(folder), *rest])


def prepare(count: int, seed: int, folder: Path) -> Generated:
    """Write ``count`` models drawn from ``seed`` into ``folder``, load each, check its evaluate path."""
    folder.mkdir(parents=True, exist_ok=True)
    on_model_path(folder)
    drawn = tuple(models.generate(seed, i) for i in range(count))
    usable: list[str] = []
    faults: list[Fault] = []
    for gm in drawn:
        gm.write(folder)
        try:
            symgpu.load(gm.id, whole=True)  # what `symgpu check` does
        except errors.SymgpuError as exc:
            faults.append(Fault(gm.id, "refused by symgpu check", " ".join(str(exc).split())[:400]))
            continue
        try:
            found = oracle_faults(gm)
        except Exception as exc:  # noqa: BLE001 - a traceback on the evaluate path is a finding (gen_13_71: q5's expansion)
            found = [Fault(gm.id, "the engine raised on the model", f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")]
        faults.extend(found)
        if not found:
            usable.append(gm.id)
    return Generated(folder, drawn, tuple(usable), tuple(faults))


def oracle_faults(gm: models.GeneratedModel, *, grid_size: int = 41) -> list[Fault]:
    """Where the oracle's numbers (``evaluate_on``, ``scalar``, ``regime_labels``) differ from the reference,
    along a grid of each input of each quantity at each preset (the first difference per quantity)."""
    model = symgpu.load(gm.id)
    out: list[Fault] = []
    for eq in gm.equations:
        quantity = eq.defines
        unit = gm.symbol(quantity)
        for preset, values in gm.presets:
            base, point = dict(values), Point(preset, ())  # the preset's input values in base units
            fault = _at_preset(gm, model, quantity, unit.scale, preset, base)
            for variable in ([] if fault else [n for n in model.inputs(quantity) if model.symbol_definitions[n].role != "constant"]):
                s = gm.symbol(variable)
                xs = oracle.grid(model, variable, base[variable] / s.scale, size=grid_size)
                fault = _along(gm, model, quantity, unit.scale, point, base, variable, xs, bool(eq.regimes))
                if fault:
                    break
            if fault:
                out.append(Fault(gm.id, "oracle differs from the reference", fault))
                break
    return out


def _at_preset(gm: models.GeneratedModel, model: symgpu.Model, quantity: str, scale: float, preset: str,
               base: dict[str, float]) -> str:
    found, clear = gm.decided(base)
    want = found[quantity][0]
    got = _scalar(model, quantity, preset)
    if clear and not _same(got, want / scale):
        return f"{quantity} at preset {preset}: evaluate {got!r}, reference {want / scale!r} ({gm.symbol(quantity).unit})"
    return ""


def _scalar(model: symgpu.Model, quantity: str, preset: str) -> float:
    try:
        return float(model.evaluate(quantity, preset).magnitude)
    except (errors.DomainError, errors.EvaluationError):
        return math.nan


def _along(gm: models.GeneratedModel, model: symgpu.Model, quantity: str, scale: float, point: Point, base: dict[str, float],
           variable: str, xs: np.ndarray, regimes: bool) -> str:
    ys = oracle.evaluate_on(model, quantity, point, variable, xs)
    s = gm.symbol(variable)
    decided = [gm.decided(base | {variable: float(x) * s.scale}) for x in xs]
    wants = [d[0][quantity] for d in decided]
    labels = oracle.regime_labels(model, quantity, point, variable, xs) if regimes else [None] * len(xs)
    values = np.array([w[0] / scale for w in wants])
    span = float(np.max(np.abs(values[np.isfinite(values)]))) if np.isfinite(values).any() else 0.0
    for x, y, (want, regime), label, (_, clear) in zip(xs, ys, wants, labels, decided):
        if not clear:
            continue
        where = f"{quantity} at preset {point.preset} with {variable} = {float(x)!r} {s.unit}"
        if not _same(float(y), want / scale, 1e-12 * span):
            return f"{where}: evaluate {float(y)!r}, reference {want / scale!r} ({gm.symbol(quantity).unit})"
        if regimes and label is not None and regime is not None and label != regime and not _tied(gm, quantity, base | {variable: float(x) * s.scale}):
            return f"{where}: the oracle names regime {label}, the reference {regime}"
    return ""


def _tied(gm: models.GeneratedModel, quantity: str, env: dict[str, float]) -> bool:
    """Do the two best Min/Max arguments of ``quantity`` tie (within 1e-9) at ``env``? (Either may then be named.)"""
    values = {k: v for k, (v, _) in gm.reference(env).items()}
    eq = next(e for e in gm.equations if e.defines == quantity)
    return eq.gap({**env, **values}) <= 1e-9


def _same(got: float, want: float, floor: float = 0.0) -> bool:
    if not math.isfinite(want) or not math.isfinite(got):  # no value (NaN, or an infinity a division by 0 gives)
        return not math.isfinite(want) and not math.isfinite(got)
    return abs(got - want) <= max(REL * max(abs(got), abs(want)), floor)


def model_files(generated: Generated, ids: Sequence[str]) -> str:
    """The file text of each model in ``ids`` (in order, once), with where it was written."""
    seen = list(dict.fromkeys(ids))
    return "\n".join(f"----- {generated.folder / (i + '.toml')} (SYMGPU_MODEL_PATH={generated.folder})\n{generated.text_of(i)}"
                     for i in seen)
