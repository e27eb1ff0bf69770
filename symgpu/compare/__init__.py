"""Compare two models: which equations differ, symbolic differences of a shared quantity,
numeric ratios over a sweep, and the prior-models study (Volkov 2016, Ch. 7).

The ratio is always ``B/A`` (second model over first); the study calls
``sweep(volkov_2016, prior, ...)`` so its factors are prior/Volkov, as in Volkov's §7.9.
The comparison report itself is rendered by :mod:`symgpu.report.comparison`.
"""

from __future__ import annotations

from symgpu.compare.differences import BranchAgreement, EquationChange, ModelDiff, QuantityDiff, diff, diff_json, diff_quantity, format_diff
from symgpu.compare.normal_forms import limit, normalize, reachable
from symgpu.compare.prior_study import ModelStudy, PresetStudy, needed_occupancy, prior_models, study_model
from symgpu.compare.sweeps import Sweep, check_preset, model_sweep, format_sweep, parse_range, sweep, sweep_json

__all__ = [
    "BranchAgreement", "EquationChange", "ModelDiff", "ModelStudy", "PresetStudy", "QuantityDiff", "Sweep",
    "check_preset", "diff", "diff_json", "diff_quantity", "format_diff", "format_sweep", "limit", "model_sweep",
    "needed_occupancy", "normalize", "parse_range", "prior_models", "reachable", "study_model", "sweep", "sweep_json",
]
