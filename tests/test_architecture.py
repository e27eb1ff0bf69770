"""The package layout keeps its promises: an import graph without cycles, dependencies that point
down the pipeline, one module that compiles with lambdify, no function-level imports of symgpu,
and no module over 500 lines."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "symgpu"

#: Pipeline stages, lowest first: a module may import only from its own stage or lower ones.
LAYERS = (
    ("symgpu.errors", "symgpu.arguments", "symgpu.entry_kinds", "symgpu.memo", "symgpu.numbers", "symgpu.resources", "symgpu.textfiles", "symgpu.suggest", "symgpu.store", "symgpu.workers",
     "symgpu.leftovers"),
    ("symgpu.units",),
    ("symgpu.proofs",),  # proofs about expressions under declared assumptions: intervals, signs, sample points, Min/Max arguments
    ("symgpu.model",),
    ("symgpu.evaluate",),
    ("symgpu.derive",),
    ("symgpu.validation",),
    ("symgpu.kernel", "symgpu.measure"),  # tool output and measurements in
    ("symgpu.api",),  # the package root re-exports the public API from here
    ("symgpu.sweep",),  # chunked sweeps over grids: backends, writers, the dask engine
    ("symgpu.predict",),  # measured kernel rows (NeuSight format) -> predicted latencies, fits of the kernel models
    ("symgpu.compare",),
    ("symgpu.report",),
    ("symgpu.cli", "symgpu.__main__"),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def imports(path: Path) -> list[tuple[str, int, bool]]:
    """(imported symgpu module, line, at function level) for every import of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int, bool]] = []
    nested = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(f)}
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                targets.append(candidate if candidate in MODULES else node.module)
        for target in targets:
            if target == "symgpu" or target.startswith("symgpu."):
                found.append((target, node.lineno, id(node) in nested))
    return found


@functools.cache  # read when a test first asks, not as the file is collected (by every worker)
def graph() -> dict[str, list[str]]:
    """Each symgpu module's symgpu imports."""
    return {name: sorted({t for t, _, _ in imports(path) if t != name}) for name, path in MODULES.items()}


def layer(name: str) -> int:
    if name == "symgpu":
        return layer("symgpu.api")
    for index, prefixes in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return index
    raise AssertionError(f"{name} belongs to no stage: add its package to LAYERS")


def test_the_import_graph_of_symgpu_has_no_cycle():
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in graph().get(node, []):
            if state.get(nxt) == 1:
                cycles.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
            elif state.get(nxt) is None:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for name in graph():
        if state.get(name) is None:
            visit(name, [name])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_only_its_own_stage_or_lower_ones(name: str):
    upward = [t for t in graph()[name] if layer(t) > layer(name)]
    assert not upward, f"{name} (stage {layer(name)}) imports higher stages: {', '.join(upward)}"


#: What the proofs may use: they reason about expressions alone, never about a model, a file or the cache.
PROOFS_MAY_IMPORT = ("symgpu.errors", "symgpu.memo", "symgpu.units", "symgpu.proofs")


def test_the_proofs_import_nothing_from_symgpu_but_errors_memo_and_units():
    wrong = [f"{name} imports {t}" for name in graph() if name == "symgpu.proofs" or name.startswith("symgpu.proofs.")
             for t in graph()[name] if not any(t == p or t.startswith(p + ".") for p in PROOFS_MAY_IMPORT)]
    assert not wrong, "\n".join(wrong)


#: Modules that seed a random generator of their own, and why: not sample points of an expression.
OWN_GENERATORS = {
    "symgpu.proofs.sample_points": "the one point sampler",
    "symgpu.measure.microbench": "a fixed permutation of memory slots for the GPU's pointer chase",
    "symgpu.cli.seeding": "SymPy's own generators, seeded once per command-line process and before each of `symgpu derive`'s "
                          "requests (the same answer and time in every run)",
}


def test_only_the_point_sampler_seeds_random_draws():
    seeding = ("random.Random(", "default_rng(", "random.seed(", "np.random.")
    found = sorted(name for name, path in MODULES.items() if any(s in path.read_text(encoding="utf-8") for s in seeding))
    assert found == sorted(OWN_GENERATORS)


#: Modules allowed function-level symgpu imports, and why: each is start-up speed (the
#: layering test above still checks where these imports point).
LAZY_IMPORTERS = {
    "symgpu": "PEP 562 __getattr__: `import symgpu` does not import SymPy until the API is used",
    "symgpu.model": "PEP 562 __getattr__: the loader is usable without importing SymPy",
    "symgpu.api": "a question's methods import the derivation engine and the evaluator: `symgpu.load` does not (issue 31)",
    "symgpu.cli.app": "a command's module (and SymPy, matplotlib) is imported only when it runs",
    "symgpu.sweep.replay": "a rerun from a stored plan imports no model code: the loader only where the full path stores a plan",
}


def test_no_symgpu_import_is_hidden_inside_a_function():
    hidden = [f"{module_name(p)}:{line} imports {t}" for p in MODULES.values() for t, line, nested in imports(p)
              if nested and module_name(p) not in LAZY_IMPORTERS]
    assert not hidden, "\n".join(hidden)


def test_only_the_compiler_module_calls_lambdify():
    callers = sorted(name for name, path in MODULES.items() if "lambdify(" in path.read_text(encoding="utf-8"))
    assert callers == ["symgpu.evaluate.compiler"]


#: pint's conversion methods: calling one converts units
CONVERSIONS = frozenset({"to", "m_as", "ito", "to_base_units", "ito_base_units", "to_reduced_units", "ito_reduced_units",
                         "to_root_units", "ito_root_units", "to_compact", "to_preferred", "ito_preferred"})

#: Modules outside units/ and evaluate/ still allowed to convert, and why.
CONVERTERS_PENDING: dict[str, str] = {}  # module -> why it still converts units itself (none left)


def test_only_units_and_evaluate_convert_units():
    """Unit conversion lives in ``symgpu.units`` (``convert``, ``magnitude_in``, ``factor``,
    ``in_base_units``, ``compact``) and ``symgpu.evaluate``; every other module calls those, never a
    pint conversion method (``.to(...)``, ``.m_as(...)``, ``.to_base_units()``...) itself."""
    found = []
    for name, path in MODULES.items():
        if layer(name) in (layer("symgpu.units"), layer("symgpu.evaluate")) or name in CONVERTERS_PENDING:
            continue
        found += [f"{name}:{call.lineno} .{call.func.attr}(...)" for call in _calls(path)
                  if isinstance(call.func, ast.Attribute) and call.func.attr in CONVERSIONS]
    assert not found, "units converted outside units/ and evaluate/ at " + ", ".join(found)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_500_lines(name: str):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= 500, f"{MODULES[name]} has {lines} lines"


def _calls(path: Path) -> list[ast.Call]:
    return [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` of an attribute chain (empty for anything else)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def test_no_module_changes_the_environment_of_its_own_process():
    """Settings (``--no-cache``) are handed down as records, never set as environment variables:
    the environment is read, only ever changed from outside (a child's own ``env=`` is fine)."""
    changes = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
            targets += node.targets if isinstance(node, ast.Delete) else []
            for target in targets:
                if isinstance(target, ast.Subscript) and _dotted(target.value).endswith("environ"):
                    changes.append(f"{name}:{node.lineno}")
            if isinstance(node, ast.Call) and (_dotted(node.func) in ("os.putenv", "os.unsetenv") or any(
                    _dotted(node.func).endswith(f"environ.{method}") for method in ("setdefault", "update", "pop", "clear", "popitem"))):
                changes.append(f"{name}:{node.lineno}")
    assert not changes, "the environment changed at " + ", ".join(changes)


def test_every_cache_entry_is_read_and_written_by_the_modules_its_kind_names():
    """The store's entry kinds are declared in one table (``symgpu.entry_kinds``): every
    ``store.get``/``store.put`` in symgpu passes a kind of the table, from its reader or writer."""
    from symgpu import entry_kinds

    seen: dict[tuple[str, str], set[str]] = {}
    wrong = []
    for name, path in MODULES.items():
        if name == "symgpu.store":
            continue
        for call in _calls(path):
            function = _dotted(call.func)
            if function not in ("store.get", "store.put") or not call.args:
                continue
            named = _dotted(call.args[0])
            kind = next((k for k in entry_kinds.KINDS if getattr(entry_kinds, named.split(".")[-1], None) is k), None)
            if kind is None:
                wrong.append(f"{name}:{call.lineno} passes {named or 'an expression'}, not a kind of entry_kinds")
                continue
            allowed = kind.readers if function == "store.get" else (kind.writer,)
            if name not in allowed:
                wrong.append(f"{name}:{call.lineno} {function.split('.')[1]}s {kind.name}, but the table names {allowed}")
            seen.setdefault((kind.name, function), set()).add(name)
    assert not wrong, "\n".join(wrong)
    for kind in entry_kinds.KINDS:
        assert seen.get((kind.name, "store.put")) == {kind.writer}, f"{kind.name}: written by {seen.get((kind.name, 'store.put'))}"
        assert seen.get((kind.name, "store.get")) == set(kind.readers), f"{kind.name}: read by {seen.get((kind.name, 'store.get'))}"
    assert len({k.name for k in entry_kinds.KINDS}) == len(entry_kinds.KINDS), "two kinds share a folder"


def test_no_attribute_is_set_on_a_frozen_record_after_it_is_built():
    """Derived state lives in its owner's companion or memo (``evaluate.state.state_of``, a weak
    ``Memo``), never as hidden attributes: ``object.__setattr__`` only in ``__post_init__``, where a
    frozen record normalises its own fields while it is built."""
    found = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "__post_init__" for n in ast.walk(f)}
        found += [f"{name}:{call.lineno}" for call in ast.walk(tree) if isinstance(call, ast.Call)
                  and _dotted(call.func) == "object.__setattr__" and id(call) not in allowed]
    assert not found, "object.__setattr__ outside __post_init__ at " + ", ".join(found)
