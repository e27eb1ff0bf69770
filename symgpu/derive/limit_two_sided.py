"""A limit at a finite point where the quantity switches regime (or steps) there, from both sides: each one-sided limit
taken, one answer where they agree and a refusal naming both where they differ (Hong & Kim's ``Exec_cycles_app`` at
MWP = N: 4140.95 cycles from below, 3889.52 from above). Used by :mod:`.limits`."""

from __future__ import annotations

from collections.abc import Callable

import sympy

from symgpu import errors
from symgpu.derive import at_point, jobs
from symgpu.evaluate import evaluator

#: a side's limit, taken as the question's own limit would be (``side``: "+" or "-")
Take = Callable[[str], sympy.Expr]


def both_sides(job: jobs._Job, take: Take, var: sympy.Symbol, point: sympy.Expr, given: at_point.Given | None) -> sympy.Expr:
    """The two-sided limit at ``point``: the limit from above where the one from below is the same (proved equal in
    symbols, or exactly equal at the given values); else a refusal naming both.

    Raises:
        errors.NoAnswerHere: the one-sided limits differ: no two-sided limit.
        errors.DerivationError: they are not shown equal (nor proved different).
    """
    above = take("+")
    below = take("-")
    same = _equal(job, above - below, var, given)
    if same:
        job.step("both sides", above, f"the limits from above and from below as {var} -> {sympy.sstr(point)} agree")
        return above
    where = f" at {at_point.where_text(given.preset, given.values)}" if given is not None else ""
    proved = same is False
    refusal = errors.NoAnswerHere if proved else errors.DerivationError  # no such limit, or one not decided
    raise refusal(
        f"{job.model.id}: the limit of {job.quantity} as {var} -> {_short(point)}{where}: the one-sided limits "
        + ("differ" if proved else "are not shown equal") + f" (from below: {_said(job, below, given)}; from above: "
        f"{_said(job, above, given)}), so " + ("there is no two-sided limit" if proved else "no two-sided limit is given")
        + "; ask one side (--dir - or --dir +)" + ("" if proved or given is not None else ", or at a point (--preset, --set)"))


def _equal(job: jobs._Job, gap: sympy.Expr, var: sympy.Symbol, given: at_point.Given | None) -> bool | None:
    """Whether two one-sided limits (their difference ``gap``) are equal: True where 0 in symbols or exactly 0 at the
    given values; False where proved nonzero (by the symbols' signs, or as an exact number at the given values); None
    where neither is shown."""
    assert job.ctx is not None
    if gap == 0 or job.ctx.sign(gap) == 0:
        return True
    if given is None:
        if sympy.simplify(gap) == 0:
            return True
        return False if job.ctx.sign(gap) in (1, -1) or job.ctx.sign(job.ctx.nice(gap)) in (1, -1) else None
    made = at_point.pinned(job, gap, var, given.preset, given.values)
    at = None if made is None else made()
    if at is None or at.free_symbols or not at.is_number:
        return None
    if at == 0 or sympy.simplify(at) == 0:
        return True
    return False if at.is_zero is False else None


def _said(job: jobs._Job, value: sympy.Expr, given: at_point.Given | None) -> str:
    """A one-sided limit as a message quotes it: its value at the given values in the quantity's unit, else (or where
    it has none there) the expression, shortened."""
    definition = job.model.symbol_definitions.get(str(job.quantity))
    unit = None if definition is None else definition.unit
    if given is not None:
        try:
            number = evaluator.evaluate_expression(job.model, value, unit, preset=given.preset, values=given.values)
            return f"{float(number.magnitude):.10g}" + (f" {unit}" if unit and unit != "1" else "")
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
            pass
    return _short(value)


def _short(expr: sympy.Basic) -> str:
    """An expression as a message quotes it: at most 120 characters."""
    text = sympy.sstr(expr)
    return text if len(text) <= 120 else text[:119] + "…"
