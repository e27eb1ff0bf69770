"""A limit certificate's deeper approach: an infinite limit whose quantity still sits on a constant at the end of the fixed
approach (``Max(c, a/u)`` as ``u -> 0`` with ``a = 1e-15``: ``a/u`` passes ``c`` only at ``u = 1e-15``, beyond the
approach's last step ``1e-11``) is approached further, to the end of the double range, and passes where it grows there
without bound: in IEEE and in exact arithmetic, and by :data:`GROWTH` beyond the first approach (a quantity creeping
up to a finite bound does not). Only towards 0 or an infinity: beside any other point a double steps no closer than its
own rounding. Read by :func:`symgpu.derive.certify_limit.limit`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: the deeper steps (of the variable towards 0; their reciprocals towards an infinity), the first approach's continued
DEEPER = np.geomspace(1e-12, 1e-300, 30)
#: how much larger in magnitude the deeper approach's last value must be than every value of the first approach's tail
GROWTH = 1e6


def grows_beyond(expected: float, to: float, side: float, first: np.ndarray, quantity: Callable[[np.ndarray], np.ndarray],
                 admissible: Callable[[float], bool], exact: Callable[[np.ndarray], np.ndarray | None]) -> float | None:
    """The last point of a deeper approach (towards ``to``, 0 from ``side`` or an infinity) along which the quantity grows
    without bound with the sign of ``expected`` (an infinity): its last four values grow in magnitude with that sign, in
    IEEE (``quantity``) and in exact arithmetic (``exact``), the last :data:`GROWTH` times every magnitude of ``first``
    (the first approach's tail), every point ``admissible``; None where it does not, or ``to`` is another point."""
    if np.isinf(to):
        xs = np.sign(to) / DEEPER
    elif to == 0:
        xs = side * DEEPER
    else:
        return None
    if not all(admissible(float(x)) for x in xs):
        return None
    with np.errstate(all="ignore"):
        seen = np.asarray(quantity(xs), dtype=float)[-4:]
    exactly = exact(xs[-4:])
    floor = GROWTH * float(np.max(np.abs(first))) if np.all(np.isfinite(first)) else np.inf
    for tail in (seen, exactly):
        if tail is None or not np.all(np.sign(tail) == np.sign(expected)) or not abs(tail[-1]) >= floor:
            return None
        if not (np.all(np.isinf(tail)) and tail is seen) and not np.all(np.diff(np.abs(tail)) > 0):
            return None
    return float(xs[-1])
