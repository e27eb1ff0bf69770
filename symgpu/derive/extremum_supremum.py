"""An extremum with no candidate, asked at a point, whose quantity approaches a bound towards an open end of its
variable: "no maximum (minimum); the supremum (infimum) is L, approached as n -> oo (or 0), and no n attains it".

Volkov's H100 ``dram_throughput`` rises in ``n`` towards its capacity (3139.56 GB/s at ``alpha = 0``): no critical
point or regime boundary qualifies, and the extremum was refused ("it may be monotone — try limit"), though the
question has an answer (an outside tester's finding, round 13a, F5). Here the limit at each open end is taken with the
``limit`` operation's own machinery (:func:`symgpu.derive.checked.limit`, checked there), and the answer is given only
where a geometric scan of the variable over its whole open range at the point never passes that limit and approaches it
towards that end; otherwise the refusal stands.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from symgpu import errors, units
from symgpu.derive import results
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import evaluator
from symgpu.model import Model

#: the scan's points: 2**k for these k (a positive variable's open range, 0 to oo, in its declared unit)
POWERS = range(-30, 61)
#: how close the scan's last point (towards the end) comes to the limit, relative to it
CLOSE = 1e-6


@dataclass(frozen=True)
class End:
    """An end of the variable's open range approached by a scan.

    Attributes:
        to: the end as the ``limit`` operation reads it (``oo``, ``0``, a number in the declared unit as text).
        side: the side it is approached from (``+``, ``-``; None for ``oo``).
        words: the end as the answer says it (``oo``, ``0 from above``, ``5.00005 from below``).
        scan: the scan as the answer's certificate names it (``a scan of n = 9.31e-10 .. 1.15e+18 (doubling)``).
        why: why the limit there is the answer, as its method says it.
    """

    to: str
    side: str | None
    words: str
    scan: str
    why: str


def at_open_end(model: Model, quantity: str, over: str, kind: str, preset: str | None, values: dict[str, float],
                limit: Callable[[str, str | None], Derivation], refusal: errors.DerivationError) -> Derivation:
    """The supremum (``kind`` max) or infimum (min) of ``quantity`` over ``over`` at the point, approached at an open
    end (``oo``, else ``0`` from above), as an extremum's answer saying that no point attains it.

    Raises:
        errors.DerivationError: ``refusal``, where no end's limit is finite and confirmed by the scan.
    """
    xs = [2.0 ** k for k in POWERS]
    scan = [(x, _value(model, quantity, over, x, preset, values)) for x in xs]
    valued = [x for x, v in scan if v is not None] or [math.nan]
    doubling = f"a scan of {over} = {valued[0]:.3g} .. {valued[-1]:.3g} (doubling)"
    why = "no critical point or regime boundary qualifies"
    integer = model.symbols[over].is_integer is True if over in model.symbols else False
    ends = ((End("oo", None, "oo", doubling, why), scan[::-1]), (End("0", "+", "0 from above", doubling, why), scan))
    for end, inwards in ends[:1 if integer else 2]:  # whole values: not near 0
        found = _approach(model, quantity, over, kind, preset, values, end, inwards, limit)
        if found is not None:
            return found
    raise refusal


def at_finite_end(model: Model, quantity: str, over: str, kind: str, preset: str | None, values: dict[str, float],
                  end: tuple[str, str], limit: Callable[[str, str | None], Derivation], refusal: errors.DerivationError) -> Derivation:
    """The supremum (infimum) approached at a finite open end of the domain (a strict ``--assume`` bound, an open end of a
    ``valid_when`` domain) whose limit beats every candidate at the point (``end``: its point in the declared unit as text,
    the side approached from): "no maximum; the supremum L is approached as x -> b from below". An outside tester's
    finding (round 14b F12): ``x < 5.00005`` cutting a spike on its rising side was answered by the plateau below it.
    The answer is given only where the quantity at points approaching the end from its side (``b -/+ 2**-k`` of ``b``'s
    scale) never passes the limit and comes within :data:`CLOSE` of it (:func:`_approach`); otherwise the refusal stands.

    Raises:
        errors.DerivationError: ``refusal``, where the limit is not finite or the approach does not confirm it."""
    point, side = float(end[0]), end[1]
    step = -1.0 if side == "-" else 1.0
    xs = [point + step * 2.0 ** -k * max(abs(point), 1.0) for k in range(8, 50)]
    scan = [(x, _value(model, quantity, over, x, preset, values)) for x in xs[::-1]]
    found = _approach(model, quantity, over, kind, preset, values,
                      End(end[0], side, f"{end[0]} {'from below' if side == '-' else 'from above'}",
                           f"a scan of {over} = {xs[0]:.10g} .. {xs[-1]:.10g} (towards the end)", "it beats every candidate"), scan, limit)
    if found is None:
        raise refusal
    return found


def _approach(model: Model, quantity: str, over: str, kind: str, preset: str | None, values: dict[str, float], end: End,
              inwards: Sequence[tuple[float, float | None]], limit: Callable[[str, str | None], Derivation]) -> Derivation | None:
    """The answer "no maximum (minimum): the supremum (infimum) L is approached as ``over`` -> ``end``", L the ``limit``
    operation's own limit there (checked by it), where ``inwards`` (the scan's points and the quantity there, None where it has
    no value, ordered from the end inwards) has a value at half its points or more, none passes L and the nearest comes within
    :data:`CLOSE` of it (:func:`_approached`); None otherwise."""
    towards = [v for _, v in inwards if v is not None]
    if len(towards) < len(inwards) // 2:
        return None
    try:
        found = limit(end.to, end.side)
        bound = float(results._evaluate(model, found.result, preset, values, model.unit_text(quantity)))
    except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
        return None
    if not math.isfinite(bound) or not _approached(bound, towards, kind):
        return None
    return _answer(found, kind, over, end, bound, model.unit_text(quantity))


def _value(model: Model, quantity: str, over: str, x: float, preset: str | None, values: dict[str, float]) -> float | None:
    try:
        value = float(units.magnitude_in(evaluator.evaluate(model, quantity, preset=preset, values={**values, over: x}), model.units[quantity]))
    except (errors.SymgpuError, ArithmeticError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _approached(bound: float, towards: Sequence[float], kind: str) -> bool:
    """Values ordered from the end inwards: none passes ``bound`` on the extremum's side, the nearest is within
    :data:`CLOSE` of it, and the gap narrows towards the end (it is approached there, not elsewhere)."""
    sign = 1.0 if kind == "max" else -1.0
    scale = max(abs(bound), *(abs(v) for v in towards), 1e-300)  # an infimum 0 is approached within a share of the values
    slack = 1e-12 * scale
    gaps = [sign * (bound - v) for v in towards]
    if any(g < -slack for g in gaps) or gaps[0] > CLOSE * scale:
        return False
    return gaps[0] <= min(gaps) + slack


def _answer(found: Derivation, kind: str, over: str, end: End, bound: float, unit: str) -> Derivation:
    checks = (*(found.certificate.checks if found.certificate else ()),
              f"{end.scan} stays {'below' if kind == 'max' else 'above'} {bound:.10g} and approaches it towards {over} -> {end.words}")
    certificate = dataclasses.replace(found.certificate, checks=checks) if found.certificate else None
    return dataclasses.replace(unattained(found, kind, over, end, f"{bound:.10g}", unit), certificate=certificate)


def unattained(found: Derivation, kind: str, over: str, end: End, bound: str, unit: str) -> Derivation:
    """``found`` (the limit at ``end``) as an extremum's answer: "no {kind}imum: the supremum (infimum) ``bound`` is approached
    as ``over`` -> ``end``, and no ``over`` attains it", in ``extra.elsewhere``; its method names the limit and ``end.why``."""
    word = "supremum" if kind == "max" else "infimum"
    said = (f"no {kind}imum: the {word} {bound}{'' if unit in ('', '1', 'dimensionless') else ' ' + unit} is approached as {over} -> {end.words} ({found.quantity} "
            f"{'rises' if kind == 'max' else 'falls'} towards it), and no {over} attains it")
    return dataclasses.replace(found, operation="extremum", extra=found.extra.with_(elsewhere=said),
                               method=f"closed form: the limit as {over} -> {end.words} ({end.why})")
