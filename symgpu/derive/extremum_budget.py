"""What a closed-form extremum does not examine, refused at once rather than after minutes.

volkov_2016_h100's ``n_knee_h100`` over ``plateau_fraction`` has a critical point in radicals of a dozen symbols (real only
where ``b`` exceeds the unloaded latency); the second derivative there has some 3900 operations, and tidying the condition
on its sign (``forms.factored``) ran past five minutes, with or without a point (where the root is not real, no number
decides the sign). :func:`second_derivative` refuses such a critical point at once, pointing to the grid search.
"""

from __future__ import annotations

import sympy

from symgpu import errors
from symgpu.derive import jobs

#: a second derivative at a critical point whose sign no point decides, of more operations than this, is not tidied: refused
MAX_SECOND_OPS = 1000


def second_derivative(job: jobs._Job, regime: str, var: sympy.Symbol, second: sympy.Expr) -> None:
    """Refuse a critical point of ``regime`` whose second derivative ``second`` (its sign not decided) is over
    :data:`MAX_SECOND_OPS` operations.

    Raises:
        errors.DerivationError: it is."""
    size = sympy.count_ops(second)
    if size > MAX_SECOND_OPS:
        raise errors.DerivationError(
            f"{job.model.id}: {job.quantity}'s critical point in {var} of regime {regime} is a root in radicals whose second derivative "
            f"there has {size} operations, more than the {MAX_SECOND_OPS} a closed-form extremum decides (reading its sign takes "
            f"minutes of factoring); read it from a sweep at a point instead (symgpu sweep {job.model.id} {job.quantity} --preset P "
            f"--grid {var}=START:STOP:STEP -o FILE)")
