"""The values a domain refusal quotes, with digits enough that the quoted values visibly fail the condition.

``valid_when = ["B >= 100"]`` (B in GiB/s) at ``B = 99.9999998 GiB/s`` is refused; six significant digits
would quote it as ``got B = 100 GiB/s``, a value that meets the condition the message says it fails.
:func:`failing` quotes each value with the fewest significant digits, six or more, at which the values
as quoted, put back into the condition, still fail it (``99.9999998``); where no number of digits up to
seventeen does (a unit scale's rounding), each value is quoted with the shortest digits that give its
double back (``repr``). :func:`inputs` quotes the inputs the condition reads, :func:`derived` the quantities
it names that equations define (``B2 >= 200`` with B2 = 2*B: ``but B2 = 199.9999998 GiB/s``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from symgpu import errors
from symgpu.evaluate import input_values, scaling

if TYPE_CHECKING:  # pragma: no cover
    from symgpu.model import Model

#: the digits a refusal quotes where they suffice (as ``format(value, 'g')``)
FEWEST = 6
#: enough digits to give any double back
MOST = 17


def failing(shown: Mapping[str, float], fails: Callable[[Mapping[str, float]], bool]) -> dict[str, str]:
    """``shown`` (name -> value as quoted) as text: the fewest digits (:data:`FEWEST` .. :data:`MOST`)
    at which ``fails`` of the values so rounded holds; else each value's ``repr``."""
    for digits in range(FEWEST, MOST + 1):
        texts = {name: f"{value:.{digits}g}" for name, value in shown.items()}
        if fails({name: float(text) for name, text in texts.items()}):
            return texts
    return {name: repr(float(value)) for name, value in shown.items()}


def inputs(model: Model, shown: Sequence[str], args: Sequence[str], value: Callable[[str], float],
           check: Callable[..., Any]) -> str:
    """``'B = 99.9999998 GiB/s'``: the inputs ``shown`` (of the condition's ``args``, each ``value(name)``
    in scaled base units, as ``check`` reads them) in their declared units, quoted by :func:`failing`."""
    scale = {name: float(scaling.unit_scale(model.units[name])) for name in shown}

    def fails(quoted: Mapping[str, float]) -> bool:
        with np.errstate(all="ignore"):
            return not bool(np.all(check(*[quoted[a] * scale[a] if a in quoted else value(a) for a in args])))

    texts = failing({name: value(name) / scale[name] for name in shown}, fails)
    return ", ".join(f"{name} = {text}{input_values.unit_suffix(model, name)}" for name, text in texts.items())


def derived(model: Model, names: Sequence[str], value: Callable[[str], float], holds: Callable[[Mapping[str, float]], bool]) -> list[str]:
    """``['B2 = 199.9999998 GiB/s']``: the quantities ``names`` a condition reads (each ``value(name)`` in its declared
    unit; one without a value left out), quoted by :func:`failing` where ``holds`` (the condition at the other
    values, these as quoted) can be told; else with six digits."""
    found = {}
    for name in names:
        try:
            found[name] = value(name)
        except (errors.SymgpuError, ValueError):
            pass

    def fails(quoted: Mapping[str, float]) -> bool:
        try:
            return not holds(quoted)
        except (errors.SymgpuError, ValueError):  # the condition cannot be evaluated so: the fewest digits, as ever
            return True

    texts = failing(found, fails) if found else {}
    return [f"{name} = {text}{input_values.unit_suffix(model, name)}" for name, text in texts.items()]
