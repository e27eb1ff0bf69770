"""The order in which ``report --all`` hands its report folders to the worker processes: longest first.

A run ends when its last report ends. Handed out in name order, the longest reports (the
occupancy model's derivations, Volkov's sixty plots, the comparison) came last and left one
worker idle for their length; handed out longest first (LPT scheduling), the short reports
fill the gaps at the end and the workers finish within about one short report of each other.

A report's cost is the CPU seconds it took in the previous run, kept in the cache
(:mod:`symgpu.store`, kind ``report_seconds``) as plain JSON checked number by number: a
corrupt or altered entry is ignored. When some folder of the run has no recorded time (a
cold cache, a new model), every folder is ranked by a rough estimate from its model files
instead (:func:`model_units`, :func:`figure_units`), so that the two kinds of numbers are
never compared. The order changes only which worker renders a report and when: every file
is the same in any order.

A variant (``extends``) starts only after its bases (:func:`bases`): their derivations are then
in the store, and the variant reads those its requests share (:mod:`symgpu.derive.request_keys`)
instead of deriving them again at the same time in the other worker. So a base is ranked by its
cost plus the longest chain of reports that wait for it (critical path first).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence

from symgpu import store
from symgpu.entry_kinds import REPORT_SECONDS
from symgpu.report import freshness

#: the one entry of that kind (the times of all folders, merged run after run)
KEY = store.digest(REPORT_SECONDS.version)
#: folders kept in the entry (a bound on what is read back)
_MAX_FOLDERS = 1000


def previous() -> dict[str, float]:
    """Report folder -> CPU seconds its last rendering took (empty when none are recorded,
    the cache is off, or the entry is not a JSON object of finite non-negative numbers)."""
    text = store.get(REPORT_SECONDS, KEY)
    if text is None:
        return {}
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(body, dict) or len(body) > _MAX_FOLDERS:
        return {}
    try:
        if not all(isinstance(k, str) and type(v) in (int, float) and math.isfinite(v) and v >= 0 for k, v in body.items()):
            return {}
        return {k: float(v) for k, v in body.items()}
    except OverflowError:  # an integer too large for a float
        return {}


def record(seconds: Mapping[str, float]) -> None:
    """Keep ``seconds`` (folder -> CPU seconds of this run) for the next run, over the earlier
    times of the same folders (a no-op when the cache is off)."""
    if not seconds:
        return
    merged = {**previous(), **{k: round(float(v), 3) for k, v in seconds.items() if math.isfinite(v) and v >= 0}}
    if len(merged) <= _MAX_FOLDERS:
        store.put(REPORT_SECONDS, KEY, json.dumps(merged, indent=1, sort_keys=True) + "\n")


def model_units(model_id: str, files: freshness.InputFiles) -> float:
    """A rough cost of model ``model_id``'s report, from its file and bases alone: (derivation
    requests + plot entries) x presets. Cold, the derivations (their limiter splits) and a plot
    per preset of each boundary request dominate a report. 0 when a file cannot be read."""
    chain = freshness.chain_data(model_id, files)
    if chain is None:
        return 0.0
    requests = sum(_count(data, "derivations") + _count(data, "plots") for data in chain)
    return float(requests * max(1, _presets(chain)))


def figure_units(model_ids: Iterable[str], figures: int, files: freshness.InputFiles) -> float:
    """A rough cost of a report that draws ``figures`` figures per preset of each of ``model_ids``
    (the comparison: two per prior model), in the units of :func:`model_units`."""
    total = 0
    for model_id in model_ids:
        chain = freshness.chain_data(model_id, files)
        total += figures * max(1, _presets(chain)) if chain is not None else 0
    return float(total)


def longest_first(names: Sequence[str], estimates: Mapping[str, float], recorded: Mapping[str, float],
                  after: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """``names`` ordered by cost, largest first (ties keep their order): the recorded seconds
    when every name has one, else ``estimates`` (a name without one counts 0). With ``after``
    (name -> the names it waits for), a name's cost is its own plus the largest cost among the
    names that wait for it (a chain's length, counted from its first report)."""
    costs = recorded if all(n in recorded for n in names) else estimates
    waiting: dict[str, list[str]] = {n: [] for n in names}
    for name, first in (after or {}).items():
        for other in first:
            if name in waiting and other in waiting and other != name:
                waiting[other].append(name)
    chain: dict[str, float] = {}

    def length(name: str, seen: frozenset[str]) -> float:
        if name not in chain:
            later = [length(n, seen | {name}) for n in waiting[name] if n not in seen]
            chain[name] = costs.get(name, 0.0) + max(later, default=0.0)
        return chain[name]

    return sorted(names, key=lambda n: -length(n, frozenset()))


def bases(model_id: str, files: freshness.InputFiles) -> tuple[str, ...]:
    """The models ``model_id`` extends (its base, that base's base, ...), from the files alone;
    () when a file cannot be read."""
    chain = freshness.chain_data(model_id, files)
    found = []
    for data in (chain or [])[1:]:
        table = data.get("model")
        if isinstance(table, dict) and isinstance(table.get("id"), str):
            found.append(table["id"])
    return tuple(found)


def _count(data: Mapping[str, object], table: str) -> int:
    entries = data.get(table)
    return len(entries) if isinstance(entries, list) else 0


def _presets(chain: Sequence[Mapping[str, object]]) -> int:
    names: set[str] = set()
    for data in chain:
        presets = data.get("presets")
        if isinstance(presets, dict):
            names.update(presets)
    return len(names)


__all__ = ["KEY", "bases", "figure_units", "longest_first", "model_units", "previous", "record"]
