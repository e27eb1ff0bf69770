"""Tests and benchmarks use public seams, never monkey-patching: no ``monkeypatch.setattr`` or
``monkeypatch.setitem`` (environment and working folder, ``setenv``/``delenv``/``chdir``, are
inputs and allowed), no ``unittest.mock.patch`` in any form, and no attribute of an imported
module, class or function assigned in place (``plot_values._compiled = ...``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")])
#: a pytest ``MonkeyPatch`` method that replaces an attribute or an item of a live object
PATCHING_METHODS = {"setattr", "setitem", "delattr", "delitem"}


def imported_names(tree: ast.AST) -> set[str]:
    """The names ``import`` statements bind anywhere in ``tree`` (modules, and what is imported from them)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def patching(source: str) -> list[tuple[int, str]]:
    """(line, what) for every monkey-patching call, import or assignment in ``source``: an
    attribute of something imported (a module, a class, a function) set, or deleted, in place."""
    found: list[tuple[int, str]] = []
    tree = ast.parse(source)
    imported = imported_names(tree)
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                   else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for target in targets:
            while isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute):
                target = target.value
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in imported:
                found.append((node.lineno, f"{target.value.id}.{target.attr} set"))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"setattr", "delattr"}
                and node.args and isinstance(node.args[0], (ast.Name, ast.Attribute))):
            first = node.args[0]
            while isinstance(first, ast.Attribute):
                first = first.value
            if isinstance(first, ast.Name) and first.id in imported:
                found.append((node.lineno, f"{node.func.id}({first.id}, ...)"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            if node.func.attr in PATCHING_METHODS and "monkeypatch" in name.lower():
                found.append((node.lineno, f"monkeypatch.{node.func.attr}"))
            elif node.func.attr in {"patch", "object", "dict", "multiple"} and name in {"mock", "patch"}:
                found.append((node.lineno, f"{name}.{node.func.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "patch":
            found.append((node.lineno, "patch"))
        elif isinstance(node, ast.ImportFrom) and node.module in {"unittest.mock", "mock"} and any(a.name.startswith("patch") for a in node.names):
            found.append((node.lineno, f"from {node.module} import patch"))
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_test_or_benchmark_monkey_patches(path: Path):
    found = patching(path.read_text(encoding="utf-8"))
    assert not found, "; ".join(f"{path.relative_to(ROOT)}:{line}: {what}: replace it by a parameter or a real condition"
                                for line, what in found)


@pytest.mark.parametrize("source", [
    "def test(monkeypatch):\n    monkeypatch.setattr(os, 'replace', None)\n",
    "def test(monkeypatch):\n    monkeypatch.setitem(table, 'k', None)\n",
    "def test(monkeypatch):\n    monkeypatch.setattr('code.interact', None)\n",
    "from unittest import mock\nwith mock.patch('os.replace'):\n    pass\n",
    "from unittest.mock import patch\n",
    "import unittest.mock\nunittest.mock.patch.object(os, 'replace', None)\n",
    "import os\nos.replace = print\n",
    "from symgpu.report import plot_values\nplot_values._compiled = None\n",
    "from symgpu.model import build\nbuild.Model.__init__ = None\n",
    "import os\nsetattr(os, 'replace', print)\n",
])
def test_the_check_finds_each_form_of_patching(source: str):
    assert patching(source)


def test_the_check_allows_the_environment_and_the_working_folder():
    assert patching("def test(monkeypatch):\n    monkeypatch.setenv('A', '1')\n    monkeypatch.delenv('B')\n"
                    "    monkeypatch.chdir('/')\n") == []
    assert patching("import os\nos.environ['A'] = '1'\n") == []


def test_the_check_allows_attributes_of_the_tests_own_objects():
    assert patching("import symgpu\nclass Run:\n    pass\nrun = Run()\nrun.models = 1\n"
                    "def f(self):\n    self._inside = False\n") == []
