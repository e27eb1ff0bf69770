"""An extremum asked in symbols, with no candidate, of a quantity monotone in its variable: "no minimum (maximum): the
infimum (supremum) L is approached as x -> end, and no x attains it".

Volkov's ``needed_concurrency = inst_latency*inst_peak_thru`` rises in ``inst_peak_thru``: no critical point, regime
boundary or attained end qualifies, and its minimum was refused ("it may be monotone — try limit") though asked at a point
it was answered (:mod:`.extremum_supremum`). Here the sign reasoner decides the sign of the quantity's slope in the variable
over its whole declared range (each regime of a Min/Max alike; no case switching along the variable, no divisor or root
argument that may vanish or change sign there): the extremum is then approached at one open end of the range, and its
limit there is taken by the ``limit`` operation's own machinery (:func:`symgpu.derive.checked.limit`, checked there).

Where the sign is not decided, the domain is cut by a ``valid_when`` relation or an assumption on the variable, or the
limit is infinite, the refusal stands. The answer's certificate adds, at the extremum's own checked points, that a scan
of the variable's declared range rises (falls) throughout as the slope's sign says, and that an open end at ``0`` of a
nonnegative variable has no value there (it is not attained).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import certify, declared_range, extremum_supremum, jobs, summary
from symgpu.derive.certify_path import Asked, _fail, _inside, _quantity, _scan_grid
from symgpu.derive.derivation import Derivation
from symgpu.model import Model
from symgpu.proofs import forms

#: the functions a monotone quantity may apply to the variable (a log's argument and a root's base must be positive)
_SMOOTH = (sympy.Add, sympy.Mul, sympy.Pow, sympy.Min, sympy.Max, sympy.exp, sympy.log)

#: relative slack with which a scan may step against the slope's sign (rounding) before it is a counterexample
AGAINST = 1e-9


class Monotone(errors.NoExtremumCandidate):
    """The refusal of an extremum with no candidate whose quantity is monotone in its variable over the declared range:
    the checked operation answers it by the limit at the open end the extremum is approached at (:func:`at_end`).

    Attributes:
        to: the end as the ``limit`` operation reads it (``oo``, ``-oo``, ``0``).
        side: the side it is approached from (``+`` at ``0``; None at an infinity).
        rises: whether the quantity rises with the variable (else it falls).
        slopes: the slope of each regime in the variable, as text (the reason said in the answer's method).
        outer: the ``valid_when`` conditions free of the variable the signs were decided under (the answer holds there).
    """

    def __init__(self, message: str, end: tuple[str, str] | None, to: str, side: str | None, rises: bool, slopes: tuple[str, ...],
                 outer: tuple[sympy.Basic, ...]) -> None:
        super().__init__(message, end)
        self.to, self.side, self.rises, self.slopes, self.outer = to, side, rises, slopes, outer

    def __reduce__(self) -> tuple[Any, ...]:  # pickled whole (an exception pickles its message alone)
        return (Monotone, (str(self), self.end, self.to, self.side, self.rises, self.slopes, self.outer))


def refusal(job: jobs._Job, expr: sympy.Expr, regimes: Sequence[Any], var: sympy.Symbol, domain: Sequence[sympy.Basic], kind: str,
            refused: errors.NoExtremumCandidate, plain: bool, outer: Sequence[sympy.Basic]) -> errors.NoExtremumCandidate:
    """``refused`` as a :class:`Monotone` where, asked in symbols (``plain``: without a point or a rewrite), the slope of
    every regime of ``expr`` in ``var`` has one sign the assumptions decide over the domain (the declared range, cut by
    ``valid_when`` relations and assumptions bounding ``var`` by an expression free of it; ``outer``, the ``valid_when``
    conditions free of ``var``, assumed in ``job.ctx``) and the end it is approached at is one of the declared range
    (``0``, ``oo``, ``-oo``); else ``refused``."""
    assert job.ctx is not None
    declared = declared_range.of(job.model, var)
    cut = [c for c in domain if c not in declared.relations]  # valid_when relations and assumptions on the variable
    sides = [_bound_side(c, var) for c in cut]
    if not plain or refused.end is not None or None in sides or declared.integer:
        return refused
    local = job.ctx.copy()  # signs decided inside the domain (N_pw's ind_mem_req - mem_req is nonzero where ind_mem_req < mem_req)
    for condition in cut:
        local.add(condition)
    if not _smooth(local, expr, var):
        return refused
    signs, slopes = set(), []
    for regime in regimes:
        slope = forms.small_simplify(sympy.diff(regime.expression, var))
        signs.add(local.sign(slope))
        slopes.append(sympy.sstr(slope))
    if len(signs) != 1 or signs & {None, 0}:
        return refused
    rises = signs == {1}
    low = declared.word != ""
    if low and declared.word == "nonnegative" and not sympy.sympify(expr.subs(var, 0)).has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return refused  # 0 is attained (an end candidate would have been its answer): not an open end
    if ("lower" if rises == (kind == "min") else "upper") in sides:
        return refused  # the end approached is a valid_when or assumed bound: not read here
    towards_low = rises == (kind == "min")
    to, side = ("0", "+") if towards_low and low else ("-oo", None) if towards_low else ("oo", None)
    job.step("monotone", sympy.Eq(sympy.Symbol(f"sign(d{job.quantity}/d{var})"), 1 if rises else -1),
             f"the slope of every regime in {var} ({', '.join(dict.fromkeys(slopes))}) is {'positive' if rises else 'negative'} "
             f"over its domain: the {kind}imum is approached as {var} -> {to}")
    return Monotone(str(refused), refused.end, to, side, rises, tuple(dict.fromkeys(slopes)), tuple(outer))


def _bound_side(relation: sympy.Basic, var: sympy.Symbol) -> str | None:
    """``"lower"`` for ``var > b`` (``>=``, or ``b < var``), ``"upper"`` for ``var < b``, ``b`` free of ``var``; None otherwise."""
    lower, upper = (sympy.StrictGreaterThan, sympy.GreaterThan), (sympy.StrictLessThan, sympy.LessThan)
    if not isinstance(relation, lower + upper):
        return None
    if relation.lhs == var and var not in relation.rhs.free_symbols:
        return "lower" if isinstance(relation, lower) else "upper"
    if relation.rhs == var and var not in relation.lhs.free_symbols:
        return "upper" if isinstance(relation, lower) else "lower"
    return None


def _smooth(ctx: Any, expr: sympy.Expr, var: sympy.Symbol) -> bool:
    """Is ``expr`` continuous in ``var`` over its declared range: built of sums, products, powers, Min, Max, exp and log
    only, with no case switching along ``var``, every divisor and root base holding ``var`` of a sign the assumptions decide
    (positive for a root), every log's argument positive (signs as ``ctx`` decides them)?"""
    for node in sympy.preorder_traversal(expr):
        if not isinstance(node, sympy.Basic) or var not in node.free_symbols or isinstance(node, sympy.Symbol):
            continue
        if not isinstance(node, _SMOOTH):
            return False
        if isinstance(node, sympy.Pow) and (not node.exp.is_number or var in node.exp.free_symbols):
            return False
        if isinstance(node, sympy.Pow) and node.exp.is_negative and ctx.sign(node.base) not in (1, -1):
            return False
        if isinstance(node, sympy.Pow) and not node.exp.is_integer and ctx.sign(node.base) != 1:
            return False
        if isinstance(node, sympy.log) and ctx.sign(node.args[0]) != 1:
            return False
    return True


def at_end(model: Model, asked: Asked, refused: Monotone, limit: Callable[[str, str | None], Derivation],
           certified: Callable[[Callable[[], Derivation]], Derivation]) -> Derivation:
    """The answer "no {kind}imum: the {infimum|supremum} L is approached as x -> end, and no x attains it", L the ``limit``
    operation's own limit there (``limit(to, side)``, checked by it), certified as an extremum (``certified``: no point of the
    scans beats L) and by :func:`_monotone_scans`.

    Raises:
        errors.DerivationError: the limit is infinite, or has no value (the refusal, saying so).
        errors.CertificateError: a scan steps against the slope's sign, or the quantity has a value at an open end 0.
    """
    kind, var = str(asked.to), asked.variable
    try:
        found = limit(refused.to, refused.side)
    except errors.CertificateError:
        raise
    except errors.SymgpuError:
        raise refused from None
    word = "grows" if kind == "max" else "falls"
    end = f"{refused.to}{' from above' if refused.side == '+' else ''}"
    if not isinstance(found.result, sympy.Basic) or found.result.has(sympy.zoo, sympy.nan):
        raise refused
    if found.result in (sympy.oo, -sympy.oo):
        raise errors.DerivationError(
            f"{model.id}: {asked.quantity} has no {kind}imum over {var}: it {word} without bound as {var} -> {end} "
            f"(its slope in {var} is {'positive' if refused.rises else 'negative'} over its domain); "
            "ask for the limit instead")
    result, unbounded = _finite_part(found.result)
    if result is None:  # infinite where a condition holds, beside other forms: not answered here
        raise refused
    unit = model.unit_text(asked.quantity)
    bound = sympy.sstr(result)
    slope = f"its slope in {var}, {' or '.join(refused.slopes)}, is {'positive' if refused.rises else 'negative'} over its domain"
    answer = extremum_supremum.unattained(found, kind, var, extremum_supremum.End(
        refused.to, refused.side, "0 from above" if refused.side == "+" else refused.to, "", slope), bound, unit)
    if unbounded:  # the answer holds where the limit is finite; elsewhere the quantity grows (falls) without bound
        said = f"{answer.extra.elsewhere}; where {' or '.join(map(sympy.sstr, unbounded))}, it {word} without bound as {var} -> {end}"
        answer = dataclasses.replace(answer, result=result, extra=answer.extra.with_(elsewhere=said))
    when = (*refused.outer, *(_not(model, c) for c in unbounded))  # the signs were decided where the model gives the quantity a value
    if when:
        answer = dataclasses.replace(answer, extra=answer.extra.with_(valid_when=tuple(dict.fromkeys((*(answer.extra.valid_when or ()), *when)))))
    checked = certified(lambda: dataclasses.replace(answer, certificate=None))
    # where the extremum's own checks were skipped (an assumption on another input, unread without a point), so are these
    scans = _monotone_scans(model, asked, refused) if checked.certificate is not None and not checked.certificate.unchecked else ()
    checks = (*(found.certificate.checks if found.certificate else ()), *(checked.certificate.checks if checked.certificate else ()), *scans)
    where = checked.certificate.where if checked.certificate else ""
    certificate = dataclasses.replace(checked.certificate, checks=summary.said_once(checks), where=where) if checked.certificate else None
    return dataclasses.replace(checked, certificate=certificate)


def _not(model: Model, condition: sympy.Basic) -> sympy.Basic:
    """``condition`` negated; ``x = 0`` of a declared nonnegative ``x`` as ``x > 0``."""
    if isinstance(condition, sympy.Eq) and condition.rhs == 0 and isinstance(condition.lhs, sympy.Symbol) \
            and declared_range.of(model, condition.lhs).word == "nonnegative":
        return sympy.StrictGreaterThan(condition.lhs, 0)
    return sympy.Not(condition)


def _finite_part(limit: sympy.Expr) -> tuple[sympy.Expr | None, tuple[sympy.Basic, ...]]:
    """``(limit, ())`` where it is finite; for a first-match Piecewise with infinite branches, its finite branches and the
    conditions of the infinite ones (where none of those holds, the finite branches give the limit: Huang's IPC_rr as
    mem_lat -> 0 is oo where alpha = 0); ``(None, ())`` where no finite branch remains or an infinity is elsewhere."""
    if not limit.has(sympy.oo, -sympy.oo):
        return limit, ()
    if not isinstance(limit, sympy.Piecewise):
        return None, ()
    finite = [(e, c) for e, c in limit.args if not e.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan)]
    infinite = [c for e, c in limit.args if e in (sympy.oo, -sympy.oo)]
    if not finite or finite[-1][1] is not sympy.true or len(finite) + len(infinite) != len(limit.args) \
            or any(c.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan) for _, c in finite):
        return None, ()
    return sympy.Piecewise(*finite) if len(finite) > 1 else finite[0][0], tuple(infinite)


def _monotone_scans(model: Model, asked: Asked, refused: Monotone) -> tuple[str, ...]:
    """At the points an extremum's certificate reads, the quantity along a scan of the variable's declared range steps
    only the way its slope's sign says (within :data:`AGAINST` of its scale), and at an open end ``0`` of a nonnegative
    variable has no value. Nothing where no point evaluates.

    Raises:
        errors.CertificateError: a scan steps against the sign, or the quantity has a value at 0."""
    asked = dataclasses.replace(asked, quantity=model.equation_for(asked.quantity).definition.defines)
    points, _ = certify._points(model, asked)
    grid = _scan_grid(model, asked.variable, [])
    said: list[str] = []
    for point in points:
        try:
            with np.errstate(all="ignore"):
                ys = np.asarray(_quantity(model, asked, point, grid), dtype=float)
            fine = np.isfinite(ys) & _inside(model, asked, point, grid)
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
            continue
        xs, ys = grid[fine], ys[fine]
        if len(ys) < 2:
            continue
        steps = np.diff(ys) * (1.0 if refused.rises else -1.0)
        slack = AGAINST * float(np.max(np.abs(ys)))
        if (steps < -slack).any():
            i = int(np.argmin(steps))
            raise _fail(model, asked, point, f"the answer says {asked.quantity} {'rises' if refused.rises else 'falls'} with {asked.variable} "
                        f"throughout, but it is {ys[i]:.10g} at {asked.variable} = {xs[i]:.10g} and {ys[i + 1]:.10g} at {xs[i + 1]:.10g}")
        if refused.side == "+" and 0.0 in grid and bool(fine[grid == 0.0].any()):
            raise _fail(model, asked, point, f"the answer says no {asked.variable} attains the bound, but {asked.quantity} has a value at "
                        f"{asked.variable} = 0")
        said.append(f"{asked.quantity} {'rises' if refused.rises else 'falls'} along a {len(grid)}-point scan of {asked.variable} "
                    f"at {point.label}, as its slope's sign says")
    return tuple(said)
