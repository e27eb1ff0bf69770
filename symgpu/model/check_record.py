"""Models that passed the load-time checks, remembered in :mod:`symgpu.store` (issue 31: a warm load).

A model's construction checks (every equation's dimensions, every validation case's values: the
slow ones of :class:`~symgpu.model.checks.ModelChecks`) depend only on its definition (the record the
loader read from the file's bytes, a variant's base included), on the code below the derivation
engine (the stages a model may import, checked by ``tests/test_architecture.py``: symgpu's top-level
modules, ``units/`` with ``units.txt``, ``proofs/``, ``model/``) and on the versions of Python, SymPy
and pint. A record keyed by a digest of all of them says "this definition passed": a later process
building the same definition skips those checks, reads its validation cases when first asked and
builds each equation when first read (a question builds only the ones it uses; where bare literals were made
constants, ``model.literal_constants``, those that may make one are built when it loads, making them).

The record is data: its body is :data:`PASSED` or :data:`PASSED_WITH_LITERALS`, compared exactly; anything else, or no
record (the cache off, another engine, an edited file), is the cold path, which runs every check and
gives the same errors. Only a model that passed every check is remembered (written with the next
:func:`symgpu.store.flush`, like the parsed file: loading never writes): one built whole, or one built for a question
(:mod:`symgpu.model.lazy_build`) once every equation has been read and checked and the checks left (validation
cases, plots) have passed too.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pint
import sympy

from symgpu import store
from symgpu.entry_kinds import CHECKED
from symgpu.memo import memoised
from symgpu.model import schema

#: the whole body of a record of a model that passed (its equations made no literal constant: they can
#: be built one by one, when first read)
PASSED = "passed"
#: the whole body of a record of a model that passed, whose equations made literal constants (those that may make one built when it loads)
PASSED_WITH_LITERALS = "passed, literal constants"
#: the package whose code builds and checks a model: its top-level modules and these folders
PACKAGE = Path(__file__).resolve().parent.parent
FOLDERS = ("units", "proofs", "model")


@memoised("model.check_record.engine", 1)
def engine() -> str:
    """A digest of the files whose code and data build and check a model (read once per process)."""
    h = hashlib.sha256()
    files = [*PACKAGE.glob("*.py"), *(p for name in FOLDERS for p in (PACKAGE / name).iterdir() if p.is_file())]
    for path in sorted(files):
        h.update(path.relative_to(PACKAGE).as_posix().encode("utf-8") + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"\0unreadable")
    return store.digest(h.hexdigest(), sys.version, sympy.__version__, pint.__version__)


def key(definition: schema.ModelDefinition) -> str:
    """The record's key: the engine's digest and the definition's (its full text, every field)."""
    return store.digest(CHECKED.version, engine(), hashlib.sha256(repr(definition).encode("utf-8")).hexdigest())


def recall(definition: schema.ModelDefinition) -> str | None:
    """What a record says of ``definition``: :data:`PASSED` (every check passed, no literal constant made),
    :data:`PASSED_WITH_LITERALS` (passed, with literal constants), or None (no record, the cache off, or a
    body that is neither: the checks run)."""
    if not store.enabled():
        return None
    body = store.get(CHECKED, key(definition))
    return body if body in (PASSED, PASSED_WITH_LITERALS) else None


def remember(definition: schema.ModelDefinition, literals: bool) -> None:
    """Keep that ``definition`` passed every check, and whether its equations made literal constants
    (written with the next :func:`symgpu.store.flush`)."""
    if store.enabled():
        store.put(CHECKED, key(definition), PASSED_WITH_LITERALS if literals else PASSED)
