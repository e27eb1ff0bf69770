"""Stored sweep plans: what a ``symgpu sweep`` request's numeric run needs, kept as data.

The first (full) run of a request records, in :mod:`symgpu.store` under the kind
:data:`~symgpu.entry_kinds.SWEEP_PLAN`, its grid program as data (:mod:`symgpu.sweep.program`),
the fixed values and axis scales in base units, the domain output, the regime rule's inputs
(labels, condition trees over output indices, which Min/Max arguments :mod:`symgpu.sweep.finite`
proved never NaN), the file's layout (columns with units, the sweep's metadata) and the points the
run decided again near a case condition's tie (:mod:`symgpu.sweep.settle_ties`: values and regime code
per point, written over the program's by the replay, which has no SymPy to decide them). The key is
the request (model as given, quantities, preset, axes, every option that changes the plan or
the file), the model file's SHA-256, the model folders, the working folder (the metadata names
the model's path as found from it), symgpu's source digest and NumPy's version; the body also
names the model's base files with their SHA-256, checked again when it is read.

Reading back (:func:`find`) runs no code from the entry and unpickles nothing: JSON parsed by
:mod:`json`, then every field checked (types, counts, indices in range, ufunc names in
:data:`symgpu.sweep.program.UFUNCS`, labels and relations from fixed tables); anything off and
the entry is not used (the caller runs the full path). A :class:`StoredSweep` is what
:mod:`symgpu.sweep.chunks` evaluates and :mod:`symgpu.sweep.output` writes, as a
:class:`~symgpu.sweep.plan.SweepPlan` is.

NOTE: imports neither SymPy nor pint.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from symgpu import errors, resources, store
from symgpu.entry_kinds import SWEEP_PLAN
from symgpu.evaluate import gridcode, rule
from symgpu.sweep import program as programs
from symgpu.sweep.chunks import Numbers, Settled
from symgpu.sweep.decide import RegimeSpec, Tree
from symgpu.sweep.grid import Grid, parse_axis
from symgpu.sweep.output import REGIME, Column, Layout, OwnDomain

#: the body's format (a new one makes older entries unreadable, as the kind's version does)
FORMAT = 1
#: the most points decided again near a case condition's tie (:mod:`symgpu.sweep.settle_ties`) a stored plan holds
MAX_SETTLED = 10_000
#: the most model files (a variant and its bases), labels and condition-tree nodes read back
MAX_FILES, MAX_LABELS, MAX_NODES = 32, 10_000, 100_000
#: condition trees nest at most this deep
MAX_DEPTH = 64
#: the largest model file hashed
MAX_MODEL_BYTES = 1 << 24


@dataclass(frozen=True)
class Request:
    """A ``symgpu sweep`` request, as the plan is keyed by it (numpy backend, local engine)."""

    model: str  # as given on the command line
    quantities: tuple[str, ...]
    preset: str | None
    grid: tuple[str, ...]  # the --grid texts
    regime_of: str | None
    checks: bool
    chunk_size: int
    format: str  # parquet or csv


class Plan(Numbers, Layout, Protocol):
    """What :func:`keep` records (a :class:`~symgpu.sweep.plan.SweepPlan`)."""


@dataclass(frozen=True)
class StoredSweep:
    """A stored plan read back: a :class:`~symgpu.sweep.chunks.Numbers` and an
    :class:`~symgpu.sweep.output.Layout`, with its program."""

    quantities: tuple[str, ...]
    grid: Grid
    fixed: tuple[tuple[str, float], ...]
    scales: tuple[float, ...]
    domain: int | None
    regime: RegimeSpec | None
    program: programs.Program
    layout: tuple[Column, ...]
    described: str  # the sweep's metadata as JSON text (sorted keys)
    settled: tuple[Settled, ...] = ()  # the points the full run decided again near a tie, as it decided them
    own_domains: tuple[OwnDomain, ...] = ()  # none: a plan with a quantity's own domain is not stored (:func:`entry`)

    @property
    def near(self) -> None:
        """No near-tie flag is read: the replay gives the points its full run decided again their recorded values."""
        return None

    def columns(self) -> list[Column]:
        return list(self.layout)

    def metadata(self) -> dict[str, Any]:
        return json.loads(self.described)  # type: ignore[no-any-return]

    def compiled(self) -> gridcode.GridProgram:
        """The program, ready for :func:`symgpu.sweep.chunks.buffered_chunks`."""
        return programs.compiled(self.program)


def model_file(model: str) -> Path | None:
    """The file ``model`` (an id or a path, as ``symgpu sweep`` takes it) names, as the loader finds
    it; None where it names none or where another file of that id is hidden by it (the full
    path warns about that)."""
    if model.endswith(".toml") or os.sep in model or "/" in model:
        return Path(model)
    if resources.shadowed_models(model):
        return None
    return resources.find_model(model)


def _sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_MODEL_BYTES + 1)
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest() if len(data) <= MAX_MODEL_BYTES else None


def _key(request: Request, digest: str) -> str:
    environment = [os.environ.get(resources.ENV_EQUATIONS, ""), os.environ.get(resources.ENV_MODEL_PATH, "")]
    return store.digest(SWEEP_PLAN.version, store.engine_digest(), np.__version__, os.getcwd(), *environment, digest,
                        json.dumps(dataclasses.asdict(request), sort_keys=True))


def model_files(path: Path) -> list[tuple[str, str, str]] | None:
    """The model file ``path`` and its bases: (path, SHA-256, the id it extends, "" for none); None where a file
    does not read or the chain is longer than :data:`MAX_FILES`. The chain is the one the model's loading has just
    followed (:func:`symgpu.model.loader.bases_used`, from the ``extends`` its parse kept: parsing the file again
    with ``tomllib`` cost a first sweep of volkov 1 % of its CPU)."""
    from symgpu.model import loader  # noqa: PLC0415 - the full path's alone: a rerun imports no model code
    chain = loader.bases_used(path)
    if len(chain) + 1 > MAX_FILES:
        return None
    found: list[tuple[str, str, str]] = []
    for file, extends in zip([path, *(f for _, f in chain)], [*(e for e, _ in chain), ""]):
        digest = _sha256(file)
        if digest is None:
            return None
        found.append((str(file), digest, extends))
    return found


def keep(request: Request, plan: Plan, function: gridcode.GridProgram, settled: Sequence[Settled] = ()) -> bool:
    """Record ``plan`` (run by ``function``) for ``request`` after a full run, with the points that run
    ``settled`` (decided again near a case condition's tie, which the replay, without SymPy, cannot do:
    the same request gives the same points); False where it cannot be stored as data (the next run takes
    the full path again)."""
    if not store.enabled() or len(settled) > MAX_SETTLED:
        return False
    try:  # NOTE: the sweep is written by now: nothing here may turn it into an error
        text = entry(request, plan, function, settled)
        if text is None:
            return False
        store.put(SWEEP_PLAN, _key(request, json.loads(text)["files"][0][1]), text)
    except OSError:  # a working folder removed meanwhile, an unreadable model file
        return False
    return True


def entry(request: Request, plan: Plan, function: gridcode.GridProgram, settled: Sequence[Settled] = ()) -> str | None:
    """The entry :func:`keep` stores: ``plan`` as JSON text, checked to read back (None where it
    cannot be stored as data)."""
    path = model_file(request.model)
    files = model_files(path) if path is not None else None
    recorded = programs.record(function, len(plan.grid.axes) + len(plan.fixed))
    if files is None or recorded is None or plan.own_domains:  # a quantity's own domain: counted by the full path only
        return None
    regime = plan.regime
    body = {
        "format": FORMAT, "files": [list(f) for f in files], "quantities": list(plan.quantities),
        "axes": [a.text for a in plan.grid.axes], "scales": [float(s) for s in plan.scales],
        "fixed": [[k, float(v)] for k, v in plan.fixed], "domain": plan.domain,
        "regime": None if regime is None else {"quantity": regime.quantity, "kind": regime.kind, "labels": list(regime.labels),
                                               "trees": [_tree_data(t) for t in regime.trees], "finite": [bool(f) for f in regime.finite]},
        "program": recorded.as_data(),
        "columns": [[c.name, c.unit, c.kind] for c in plan.columns()],
        "metadata": json.dumps(plan.metadata(), sort_keys=True),
        "settled": [[s.index, [float(v) for v in s.values], s.code] for s in settled],
    }
    try:
        text = json.dumps(body, sort_keys=True)
    except (TypeError, ValueError):
        return None
    return text if find_in(request, text) is not None else None  # what is stored must read back


def _tree_data(tree: Tree) -> list[Any]:
    if tree[0] in ("and", "or"):
        return [tree[0], [_tree_data(t) for t in tree[1]]]
    if tree[0] == "not":
        return ["not", _tree_data(tree[1])]
    return list(tree)


def find(request: Request) -> StoredSweep | None:
    """The plan stored for ``request``, read back and checked; None where there is none or it
    does not hold up (see the module's docstring)."""
    if not store.enabled():
        return None
    try:
        path = model_file(request.model)
        digest = _sha256(path) if path is not None else None
        body = store.get(SWEEP_PLAN, _key(request, digest)) if digest is not None else None
        return find_in(request, body) if body is not None else None
    except OSError:  # a working folder removed meanwhile: the full path says what is wrong
        return None


def find_in(request: Request, body: str) -> StoredSweep | None:
    """``body`` (an entry's text) read back for ``request``; None where anything is off."""
    try:
        data = json.loads(body)
        return _read(request, data)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError, OSError, errors.SymgpuError):
        return None


_FIELDS = {"format", "files", "quantities", "axes", "scales", "fixed", "domain", "regime", "program", "columns", "metadata", "settled"}


def _read(request: Request, data: Any) -> StoredSweep | None:
    if not isinstance(data, dict) or set(data) != _FIELDS or data["format"] != FORMAT:
        return None
    if not _files_hold(request, data["files"]):
        return None
    quantities = _strings(data["quantities"])
    axes = tuple(parse_axis(_text(a)) for a in _list(data["axes"], programs.MAX_OUTPUTS))
    if not all(a.converted for a in axes):  # an axis written with a unit: converted where the plan meets the model
        return None
    if not quantities or tuple(a.text for a in axes) != request.grid or list(quantities) != [q for q in quantities if q]:
        return None
    grid = Grid(axes)
    scales = tuple(_float(s) for s in _list(data["scales"], len(axes)))
    fixed = tuple((_text(k), _float(v)) for k, v in (_pair(p) for p in _list(data["fixed"], programs.MAX_OUTPUTS)))
    if len(scales) != len(axes):
        return None
    program = programs.program_of(data["program"], len(axes) + len(fixed), len(quantities))
    if program is None:
        return None
    outputs = len(program.returns)
    domain = data["domain"]
    if domain is not None and (type(domain) is not int or not 0 <= domain < outputs):
        return None
    regime = _regime(data["regime"], outputs)
    layout = tuple(Column(_text(n), _text(u), _text(k)) for n, u, k in (_triple(c) for c in _list(data["columns"], programs.MAX_OUTPUTS)))
    expected = [(a.name, "axis") for a in axes] + [(q, "quantity") for q in quantities] + ([(REGIME, "regime")] if regime else [])
    if [(c.name, c.kind) for c in layout] != expected:
        return None
    described = _text(data["metadata"])
    if not isinstance(json.loads(described), dict) or json.dumps(json.loads(described), sort_keys=True) != described:
        return None
    settled = tuple(_settled(s, grid.size, len(quantities), regime) for s in _list(data["settled"], MAX_SETTLED))
    return StoredSweep(quantities, grid, fixed, scales, domain, regime, program, layout, described, settled)


def _settled(raw: Any, size: int, quantities: int, regime: RegimeSpec | None) -> Settled:
    index, values, code = _triple(raw)
    numbers = tuple(_float(v) for v in _list(values, quantities))
    if type(index) is not int or not 0 <= index < size or len(numbers) != quantities:
        raise ValueError("settled")
    if regime is None and code is not None or regime is not None and (type(code) is not int or not -1 <= code < len(regime.labels)):
        raise ValueError("settled")
    return Settled(index, numbers, code)


def _files_hold(request: Request, files: Any) -> bool:
    """Whether the model file the request names and its bases are the files recorded, unchanged."""
    read = [_triple(f) for f in _list(files, MAX_FILES)]
    first = model_file(request.model)
    if not read or first is None or str(first) != read[0][0]:
        return False
    for index, (path, digest, extends) in enumerate(read):
        if _sha256(Path(_text(path))) != _text(digest) or not isinstance(extends, str):
            return False
        last = index == len(read) - 1
        if last != (extends == "") or (not last and str(resources.base_model_file(Path(path), extends)) != read[index + 1][0]):
            return False
    return True


def _regime(raw: Any, outputs: int) -> RegimeSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) != {"quantity", "kind", "labels", "trees", "finite"}:
        raise ValueError("regime")
    kind, labels = raw["kind"], _strings(raw["labels"], MAX_LABELS)
    counter = [0]
    trees = tuple(_tree(t, outputs, kind, 0, counter) for t in _list(raw["trees"], MAX_LABELS))
    finite = tuple(_bool(f) for f in _list(raw["finite"], MAX_LABELS))
    if kind not in ("min", "max", "cases") or len(labels) != len(trees) or not labels or finite and len(finite) != len(trees):
        raise ValueError("regime")
    return RegimeSpec(_text(raw["quantity"]), kind, labels, trees, finite)


def _tree(raw: Any, outputs: int, kind: str, depth: int, counter: list[int]) -> Tree:
    counter[0] += 1
    if depth > MAX_DEPTH or counter[0] > MAX_NODES or not isinstance(raw, list) or not raw:
        raise ValueError("tree")
    head = raw[0]
    if kind in ("min", "max"):
        if len(raw) != 2 or head != "arg" or depth:
            raise ValueError("tree")
        return ("arg", _index(raw[1], outputs))
    if head == "const" and len(raw) == 2:
        return ("const", _bool(raw[1]))
    if head in ("and", "or") and len(raw) == 2:
        return (head, tuple(_tree(t, outputs, kind, depth + 1, counter) for t in _list(raw[1], MAX_NODES)))
    if head == "not" and len(raw) == 2:
        return ("not", _tree(raw[1], outputs, kind, depth + 1, counter))
    if head == "rel" and len(raw) == 5 and raw[1] in rule.RELATIONS:
        right, scale = raw[3], raw[4]
        if (right is None) == (scale is None):
            raise ValueError("tree")
        return ("rel", raw[1], _index(raw[2], outputs), None if right is None else _index(right, outputs),
                None if scale is None else _index(scale, outputs))
    raise ValueError("tree")


def _list(raw: Any, most: int) -> list[Any]:
    if not isinstance(raw, list) or len(raw) > most:
        raise ValueError("list")
    return raw


def _strings(raw: Any, most: int = programs.MAX_OUTPUTS) -> tuple[str, ...]:
    return tuple(_text(s) for s in _list(raw, most))


def _text(raw: Any) -> str:
    if not isinstance(raw, str) or len(raw) > 1 << 20:
        raise ValueError("text")
    return raw


def _float(raw: Any) -> float:
    if type(raw) is not float:
        raise ValueError("number")
    return raw


def _bool(raw: Any) -> bool:
    if type(raw) is not bool:
        raise ValueError("boolean")
    return raw


def _index(raw: Any, outputs: int) -> int:
    if type(raw) is not int or not 0 <= raw < outputs:
        raise ValueError("index")
    return raw


def _pair(raw: Any) -> tuple[Any, Any]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise ValueError("pair")
    return raw[0], raw[1]


def _triple(raw: Any) -> tuple[Any, Any, Any]:
    if not isinstance(raw, list) or len(raw) != 3:
        raise ValueError("triple")
    return raw[0], raw[1], raw[2]
