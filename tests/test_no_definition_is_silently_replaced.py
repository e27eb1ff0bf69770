"""No class or module of symgpu defines one name twice: the second ``def`` silently replaces the
first, and every caller of the first gets the second's meaning (two helpers each added a
``SignReasoner.refuted``, one about signs and one about conditions; merged, the limits asked the
wrong one). A property's setter and ``typing.overload`` stubs are the exceptions that Python
means to be defined again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "symgpu"
FILES = sorted(PACKAGE.rglob("*.py"))


def _redefined(body: list[ast.stmt]) -> list[str]:
    seen: set[str] = set()
    twice = []
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        decorators = [ast.unparse(d) for d in getattr(node, "decorator_list", [])]
        if any(d.endswith((".setter", ".deleter")) or d in ("overload", "typing.overload") for d in decorators):
            continue
        if node.name in seen:
            twice.append(f"{node.name} (line {node.lineno})")
        seen.add(node.name)
    return twice


def _scopes(tree: ast.Module) -> list[tuple[str, list[ast.stmt]]]:
    scopes = [("module", tree.body)]
    scopes += [(f"class {n.name}", n.body) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    return scopes


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_function_or_class_is_defined_twice_in_one_scope(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f"{scope}: {', '.join(names)}" for scope, body in _scopes(tree) if (names := _redefined(body))]
    assert not found, f"{path.relative_to(PACKAGE)}: defined twice: {'; '.join(found)}"


def test_the_check_finds_a_method_defined_twice():
    tree = ast.parse("class A:\n    def f(self): pass\n    def g(self): pass\n    def f(self, x): pass\n")
    assert [_redefined(body) for _, body in _scopes(tree)] == [[], ["f (line 4)"]]


def test_a_property_setter_is_no_redefinition():
    tree = ast.parse("class A:\n    @property\n    def x(self): return 1\n    @x.setter\n    def x(self, v): pass\n")
    assert [_redefined(body) for _, body in _scopes(tree)] == [[], []]
