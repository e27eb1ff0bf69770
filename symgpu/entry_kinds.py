"""The kinds of entries the on-disk cache (:mod:`symgpu.store`) holds, declared in one table.

Each kind is a frozen :class:`EntryKind`: its folder in the cache (``<version folder>/<name>/``),
the tag its keys start from (a new tag makes every older entry of the kind unreachable), the
one module that writes it, the modules that read it, and when it is written. :mod:`symgpu.store`
reads and writes entries of an :class:`EntryKind`, ``symgpu cache`` lists the kinds of
:data:`KINDS`, and ``tests/test_architecture.py`` checks that every module of symgpu that calls
``store.get``/``store.put`` passes a kind of this table whose reader or writer it is.

NOTE: layer 0; imports nothing from symgpu (modules are named here as text, not imported).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EntryKind:
    """One kind of cache entry.

    Attributes:
        name: the folder of its entries (an identifier).
        version: the tag every key of the kind is a digest of first; change it when the meaning
            of a key or of a body changes.
        writer: the module that writes its entries.
        readers: the modules that read them.
        deferred: True when the entry is found while a model is *loaded*: it is kept in memory and
            written by :func:`symgpu.store.flush` (the command line after a command's work, or
            the next entry written), so loading a model never writes to disk.
        holds: what an entry holds, in a few words (``symgpu cache`` shows it).
    """

    name: str
    version: str
    writer: str
    readers: tuple[str, ...]
    deferred: bool
    holds: str

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"entry kind {self.name!r}: the name must be an identifier (it is a folder)")


TOML = EntryKind("toml", "toml-json-v1", "symgpu.model.loader", ("symgpu.model.loader",), True,
                 "parsed model files (their tables as JSON, by the file's SHA-256)")
MINMAX = EntryKind("minmax", "minmax-v1", "symgpu.model.substitution", ("symgpu.model.substitution",), True,
                   "Min/Max SymPy leaves as built (digests of their arguments)")
CHECKED = EntryKind("checked", "checked-v1", "symgpu.model.check_record", ("symgpu.model.check_record",), True,
                    "models that passed the load-time checks (by their definition's and the engine's digests)")
SIGNS = EntryKind("signs", "signs-v1", "symgpu.derive.signs", ("symgpu.derive.signs",), False,
                  "sign verdicts of expressions")
DERIVATIONS = EntryKind("derivations", "derivations-v1", "symgpu.derive.stored", ("symgpu.derive.stored",), False,
                        "whole derivations (requests, regimes, boundaries) as JSON text")
REPORT = EntryKind("report", "report-freshness-v1", "symgpu.report.freshness", ("symgpu.report.freshness",), False,
                   "report --all: inputs digest -> SHA-256 of each file written")
REPORT_SECONDS = EntryKind("report_seconds", "report-seconds-v1", "symgpu.report.schedule", ("symgpu.report.schedule",),
                           False, "report --all: CPU seconds per report folder (the start order)")
SWEEP_PLAN = EntryKind("sweep_plan", "sweep-plan-v1", "symgpu.sweep.replay", ("symgpu.sweep.replay",), False,
                       "symgpu sweep: a request's numeric plan as JSON (grid program, regime rule's inputs, file layout)")

NEAR_TEST = EntryKind("near_test", "near-test-v1", "symgpu.evaluate.stored_tests", ("symgpu.evaluate.stored_tests",), False,
                      "an array evaluation's near-tie test as a checked tree of NumPy calls (JSON)")
#: every kind, in the order ``symgpu cache`` lists them
KINDS: tuple[EntryKind, ...] = (TOML, MINMAX, CHECKED, SIGNS, DERIVATIONS, REPORT, REPORT_SECONDS, SWEEP_PLAN, NEAR_TEST)
#: kind by name
BY_NAME: dict[str, EntryKind] = {kind.name: kind for kind in KINDS}

__all__ = ["BY_NAME", "CHECKED", "DERIVATIONS", "EntryKind", "KINDS", "MINMAX", "NEAR_TEST", "REPORT", "REPORT_SECONDS", "SIGNS",
           "SWEEP_PLAN", "TOML"]
