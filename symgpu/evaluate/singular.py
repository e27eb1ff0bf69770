"""IEEE flags raised on the way to a scalar value: a finite value whose arithmetic divided by zero
or overflowed on the way is not taken on trust.

``Min(x/(1 - rho), c)`` at ``rho = 1`` is ``min(inf, c) = c`` in IEEE arithmetic, a value at a
pole of the formula (Huang's printed bandwidth delay); ``n/(301 + 9*alpha)`` at ``alpha = 1e308``
is ``n/inf = 0`` where the true value is 1e-309 (Volkov's memory throughput, whose issue bound,
4e-308, then loses to the 0). The one division by zero IEEE gets right on purpose is by a
nonnegative input at 0 (Volkov's ``alu_thru/alpha`` at ``alpha = 0``: +inf, the limit from above,
the only side its declared domain has): :func:`explained` tells it apart by evaluating again with
those inputs a tiny positive number. Any other flagged value is decided in exact arithmetic by the
caller (:func:`symgpu.evaluate.evaluator.evaluate`), or refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from symgpu.model import Model

#: NumPy's floating-point error bits, as its error callback receives them
_DIVIDE, _OVERFLOW = 1, 2

#: what a nonnegative input at 0 becomes in :func:`explained`'s second evaluation (its reciprocal
#: and square stay far inside IEEE doubles)
TINY = 1e-150


class Watch:
    """Records whether a division by zero or an overflow happened inside :meth:`errstate`
    (NaN from 0/0 or inf - inf is not recorded: a NaN value is refused where it is shown)."""

    def __init__(self) -> None:
        self.divide = False
        self.overflow = False
        self.value: float | None = None  # the value computed under it, where the caller records one

    def __call__(self, kind: str, flag: int) -> None:
        self.divide = self.divide or bool(flag & _DIVIDE)
        self.overflow = self.overflow or bool(flag & _OVERFLOW)

    @property
    def flagged(self) -> bool:
        return self.divide or self.overflow

    def errstate(self) -> np.errstate:
        return np.errstate(divide="call", over="call", under="ignore", invalid="ignore", call=self)


def zero_nonnegative(model: Model, names: Sequence[str], magnitudes: Mapping[str, Any]) -> list[str]:
    """The ``names`` declared ``nonnegative`` whose scalar magnitude is 0."""
    out = []
    for name in names:
        definition = model.symbol_definitions.get(name)
        found = magnitudes.get(name)
        if definition is not None and "nonnegative" in definition.assumptions and found is not None and np.ndim(found) == 0 and found == 0:
            out.append(name)
    return out


def explained(watch: Watch, zeros: Sequence[str], again: Callable[[Mapping[str, float]], Watch], result: float) -> bool:
    """Is ``watch``'s flag only a division by nonnegative inputs at 0 (``zeros``), whose IEEE value is the
    model's value there? ``again`` evaluates once more with the inputs it is given replaced and returns its
    :class:`Watch` with the value: no division by zero with ``zeros`` at :data:`TINY`, and a value of the
    same sign as ``result``, says so. (Occupancy's zero registers divide by 0 and impose no register
    limit, while a tiny count rounds up to one allocation unit: the values differ, the sign does not.
    A division by ``g - a`` with ``a`` and ``g`` both 0 flags nothing at ``a`` tiny, but its value
    there has the other sign, -1e23 against IEEE's +inf taken by a Min: a pole, refused.)"""
    if watch.overflow or not zeros:
        return False
    second = again({name: TINY for name in zeros})
    if second.divide or second.value is None or not np.isfinite(second.value):
        return False
    return bool(second.value == result or (second.value > 0 and result > 0) or (second.value < 0 and result < 0))
