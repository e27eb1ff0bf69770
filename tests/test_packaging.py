"""A wheel built from the checkout carries its models and templates, and a non-editable install
finds them from any directory."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(folder)],
                           capture_output=True, text=True, timeout=300)
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here (pip wheel failed: {build.stderr.strip()[-300:]})")
    (path,) = folder.glob("symgpu-*.whl")
    return path


def test_the_wheel_carries_every_bundled_model_and_template(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    for model in sorted((REPO / "equations").glob("*.toml")):
        assert f"symgpu/_data/equations/{model.name}" in names
    for template in sorted((REPO / "templates").glob("*.j2")):
        assert f"symgpu/_data/templates/{template.name}" in names
    for measured in sorted((REPO / "data").rglob("*.csv")):
        assert f"symgpu/_data/{measured.relative_to(REPO).as_posix()}" in names
    assert {"symgpu/units/units.txt", "symgpu/py.typed"} <= names


def test_a_non_editable_install_checks_every_model_and_reports_from_another_directory(wheel: Path, tmp_path: Path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    script = ("import symgpu, symgpu.report.render as r; [symgpu.load(i) for i in symgpu.list_models()]; "
              "m = symgpu.load('interval_analysis'); "
              "print(symgpu.__file__); print(len(symgpu.list_models())); "
              "print(r.render_report(m, formats=['md'], draw_plots=False).files['interval_analysis.md'][:9].decode())")
    env = {**os.environ, "PYTHONPATH": str(target)}
    env.pop("SYMGPU_EQUATIONS", None)
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    location, count, head = out.stdout.splitlines()[:3]
    assert location.startswith(str(target))
    assert int(count) == len(list((REPO / "equations").glob("*.toml")))
    assert head.startswith("# ")
