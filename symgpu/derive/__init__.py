"""The derivation engine: closed-form solve, regimes, boundaries, extrema, limits and fixed points.

Every operation takes a :class:`~symgpu.model.Model`, works on the quantity's expression in
terms of inputs (intermediate equations substituted), and returns a
:class:`~symgpu.derive.derivation.Derivation` with ordered steps, the assumptions used and a
unit-checked result.

Sign reasoning uses the symbols' declared assumptions (``positive``, ``nonnegative``) and
any extra assumptions the caller passes (``assume=["mem_lat > alu_lat"]``). An extra
assumption ``X > Y`` with a symbol on one side is used by writing ``X = Y + d`` with a
positive ``d`` while deciding signs, so SymPy can prove what follows from it.

Text (from model files or the command line) is parsed only by ``model.parse`` — the safe,
whitelisting parser — never by ``sympify``/``parse_expr``/``eval``.

This package is the stable public façade: the operations live in one module each
(``solving``: solve and boundary; ``regime_split``: regimes; ``limits``; ``extrema``;
``fixed_points``; ``checked``: the public operations with their numeric certificates
(``certify``), each building one frozen ``options.Options`` record at its front door and
running through one prologue; ``simplification``: simplify and substitute; ``grid_search``: staircase
extrema; ``requests``: ``[[derivations]]`` requests, dispatched through
``requests.OPERATIONS``; ``results``: numbers from results), recorded as ``derivation.Derivation``,
on the shared machinery of ``signs`` (a model's sign reasoner: :mod:`symgpu.proofs.signs` under
the model's declarations, its verdicts kept on disk) and ``jobs`` (steps, substitutions, unit checks). :class:`symgpu.api.Model` offers each operation as a method.
"""

from __future__ import annotations

# NOTE: names are re-exported (not just the modules) so that ``symgpu.derive.solve`` and the
# helpers other modules use (``derive._evaluate``) keep working after the split.
from symgpu.derive.results import RootValue, Switch, Tie, _base_magnitudes, _evaluate, applying_boundaries, applying_ranges, applying_roots, evaluate_result, holds_on_ranges, result_values, roots_of, switches_beside, tied_limiters  # noqa: F401
from symgpu.derive.at_point import where_text  # noqa: F401
from symgpu.derive.jobs import _Job, _omit_pairs, _solve_for  # noqa: F401
from symgpu.derive.limits import limit_ratio
from symgpu.derive.regime_split import MAX_BRANCHES, Regime, _Cond, _regimes, active_regime, regime_list  # noqa: F401
from symgpu.derive.derivation import Derivation, Step, as_evaluated
from symgpu.derive.requests import OPERATIONS, Question, _expand_all, expect_holds, proved_equal, request  # noqa: F401
from symgpu.derive.simplification import simplify_expression, substitute
# the public operations: each answer checked numerically before it is returned (certify)
from symgpu.derive.checked import boundary, extremum, fixed_point, limit, regimes, run_request, solve
from symgpu.derive.derivation import Certificate
from symgpu.derive.extra_records import Expectation
from symgpu.derive.extras import Extras

__all__ = [
    "Certificate",
    "Derivation",
    "Expectation",
    "Extras",
    "OPERATIONS",
    "Question",
    "Regime",
    "RootValue",
    "Step",
    "boundary",
    "as_evaluated",
    "evaluate_result",
    "result_values",
    "extremum",
    "fixed_point",
    "limit",
    "regimes",
    "active_regime",
    "applying_boundaries",
    "applying_ranges",
    "applying_roots",
    "roots_of",
    "Switch",
    "switches_beside",
    "Tie",
    "tied_limiters",
    "limit_ratio",
    "run_request",
    "simplify_expression",
    "solve",
    "substitute",
]
