"""Issue 30: the library versions are declared as tested ranges (pyproject.toml, upper bounds
included) and CI installs one reproducible set of them (constraints.txt), which lies inside those
ranges; users installing with pip are free to get any version in range."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: Extras that CI installs ("test", "docs") and the core dependencies; the GPU extras are not tested here.
TESTED = [Requirement(r) for r in [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["test"],
                                   *PROJECT["optional-dependencies"]["docs"]]]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = re.fullmatch(r"([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+!-]+)", line).groups()  # type: ignore[union-attr]
            pins[canonicalize_name(name)] = version
    return pins


def test_every_tested_requirement_has_a_lower_and_an_upper_bound():
    for requirement in TESTED:
        operators = {spec.operator for spec in requirement.specifier}
        assert ">=" in operators and "<" in operators, f"pyproject.toml: {requirement}: declare the tested range (>=LOW,<NEXT)"


def test_the_ci_constraints_pin_every_tested_requirement_inside_its_declared_range():
    pins = _pins()
    for requirement in TESTED:
        name = canonicalize_name(requirement.name)
        assert name in pins, f"constraints.txt: {requirement.name} is not pinned; add {requirement.name}==VERSION"
        assert requirement.specifier.contains(pins[name], prereleases=True), \
            f"constraints.txt: {requirement.name}=={pins[name]} is outside pyproject.toml's {requirement.specifier}"


def test_ci_installs_with_the_constraints_then_runs_the_readme_test_command_verbatim():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    readme_command = 'pip install -e ".[test]" && python -m pytest -q'
    assert readme_command in (REPO / "README.md").read_text(encoding="utf-8")
    constrained = ci.index('pip install -c constraints.txt -e ".[test]"')
    assert ci.index(readme_command) > constrained
