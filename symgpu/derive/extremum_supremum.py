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

from symgpu import errors
from symgpu.derive import results
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import evaluator
from symgpu.model import Model

#: the scan's points: 2**k for these k (a positive variable's open range, 0 to oo, in its declared unit)
POWERS = range(-30, 61)
#: how close the scan's last point (towards the end) comes to the limit, relative to it
CLOSE = 1e-6


def at_open_end(model: Model, quantity: str, over: str, kind: str, preset: str | None, values: dict[str, float],
                limit: Callable[[str, str | None], Derivation], refusal: errors.DerivationError) -> Derivation:
    """The supremum (``kind`` max) or infimum (min) of ``quantity`` over ``over`` at the point, approached at an open
    end (``oo``, else ``0`` from above), as an extremum's answer saying that no point attains it.

    Raises:
        errors.DerivationError: ``refusal``, where no end's limit is finite and confirmed by the scan.
    """
    xs = [2.0 ** k for k in POWERS]
    scan = [(x, v) for x, v in ((x, _value(model, quantity, over, x, preset, values)) for x in xs) if v is not None]
    if len(scan) < len(xs) // 2:
        raise refusal
    integer = model.symbols[over].is_integer is True if over in model.symbols else False
    for to, direction, towards in (("oo", None, scan[::-1]), ("0", "+", scan))[:1 if integer else 2]:  # whole values: not near 0
        try:
            found = limit(to, direction)
            bound = float(results._evaluate(model, found.result, preset, values, model.unit_text(quantity)))
        except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
            continue
        if math.isfinite(bound) and _approached(bound, [v for _, v in towards], kind):
            return _answer(found, kind, over, to, bound, [x for x, _ in scan], model.unit_text(quantity))
    raise refusal


def _value(model: Model, quantity: str, over: str, x: float, preset: str | None, values: dict[str, float]) -> float | None:
    try:
        value = float(evaluator.evaluate(model, quantity, preset=preset, values={**values, over: x}).to(model.units[quantity]).magnitude)
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


def _answer(found: Derivation, kind: str, over: str, to: str, bound: float, xs: Sequence[float], unit: str) -> Derivation:
    word = "supremum" if kind == "max" else "infimum"
    end = "oo" if to == "oo" else "0 from above"
    said = (f"no {kind}imum: the {word} {bound:.10g}{'' if unit in ('', '1', 'dimensionless') else ' ' + unit} is approached as {over} -> {end} ({found.quantity} "
            f"{'rises' if kind == 'max' else 'falls'} towards it), and no {over} attains it")
    checks = (*(found.certificate.checks if found.certificate else ()),
              f"a scan of {over} = {xs[0]:.3g} .. {xs[-1]:.3g} (doubling) stays {'below' if kind == 'max' else 'above'} "
              f"{bound:.10g} and approaches it towards {over} -> {end}")
    certificate = dataclasses.replace(found.certificate, checks=checks) if found.certificate else None
    return dataclasses.replace(found, operation="extremum", extra=found.extra.with_(elsewhere=said), certificate=certificate,
                               method=f"closed form: the limit as {over} -> {end} (no critical point or regime boundary qualifies)")
