"""The names a message suggests for one it does not know: those with the same letters in another
case first (``Prior_Hong_Kim`` for ``prior_hong_kim``, ``mem_ld`` for ``Mem_LD``), then
:func:`difflib.get_close_matches` of the names in lower case (model ids, symbols)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: how alike a close match must be (difflib's ratio)
CUTOFF = 0.6


def closest(name: str, known: Iterable[str], limit: int) -> list[str]:
    """At most ``limit`` of ``known`` that ``name`` may have meant, the same letters in another case first."""
    names = sorted(known)
    same_letters = [n for n in names if n.lower() == name.lower() and n != name]
    lowered: dict[str, list[str]] = {}
    for n in names:
        lowered.setdefault(n.lower(), []).append(n)
    close = [n for match in difflib.get_close_matches(name.lower(), list(lowered), n=limit, cutoff=CUTOFF)
             for n in lowered[match] if n not in same_letters and n != name]
    return (same_letters + close)[:limit]
