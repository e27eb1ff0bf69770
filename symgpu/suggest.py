"""The names a message suggests for one it does not know: those with the same letters in another
case first (``Prior_Hong_Kim`` for ``prior_hong_kim``, ``mem_ld`` for ``Mem_LD``), then
:func:`difflib.get_close_matches` of the names in lower case (model ids, symbols)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: how alike a close match must be (difflib's ratio)
CUTOFF = 0.6
#: at most this many names are listed in a message about one it does not know (README, "Reliability")
LISTED = 10
#: the names listed when there are more: the closest ones, or the first in the order given when none is close
SHOWN = 5


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


def alternatives(name: str, known: Iterable[str], every: str = "symgpu show MODEL lists them") -> str:
    """The names a message about the unknown ``name`` lists: all of at most :data:`LISTED`, else the closest
    (:func:`closest`; else the first :data:`SHOWN` in the order given), how many more there are and where ``every`` one
    is listed. A model's 87 quantities on one 1,600-character line was an outside tester's finding."""
    names = list(dict.fromkeys(known))
    if len(names) <= LISTED:
        return ", ".join(names) or "none"
    close = closest(name, names, SHOWN)
    shown = close or names[:SHOWN]
    return f"{'closest ' if close else ''}{', '.join(shown)}, and {len(names) - len(shown)} more; {every}"
