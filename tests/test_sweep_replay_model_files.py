"""A stored sweep plan names the model file and its bases by the chain the model's loading followed
(:func:`symgpu.model.loader.bases_used`): the same files, digests and ids as reading each file's ``[model].extends``
again with ``tomllib`` (what :func:`symgpu.sweep.replay.model_files` did before)."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pytest

import symgpu
from symgpu import resources
from symgpu.sweep import replay


def _read_again(path: Path) -> list[tuple[str, str, str]]:
    """The chain as the plan recorded it before: each file parsed by ``tomllib`` for its ``extends``."""
    found = []
    while True:
        meta = tomllib.loads(path.read_text(encoding="utf-8")).get("model")
        extends = meta.get("extends", "") if isinstance(meta, dict) else ""
        found.append((str(path), hashlib.sha256(path.read_bytes()).hexdigest(), extends))
        if not extends:
            return found
        path = resources.base_model_file(path, extends)


@pytest.mark.parametrize("model_id", symgpu.list_models())
def test_a_bundled_models_files_are_those_read_again_by_tomllib(model_id: str) -> None:
    path = resources.find_model(model_id)
    assert path is not None
    symgpu.load(model_id)  # as a sweep's full path: the model loaded first
    assert replay.model_files(path) == _read_again(path)


def test_a_variant_beside_its_base_names_both_files_before_and_after_loading(tmp_path: Path) -> None:
    for name in ("prior_hong_kim", "prior_hong_kim_fixed"):
        (tmp_path / f"{name}.toml").write_bytes((resources.equations() / f"{name}.toml").read_bytes())
    variant = tmp_path / "prior_hong_kim_fixed.toml"
    expected = _read_again(variant)
    assert [Path(f).parent for f, _, _ in expected] == [tmp_path, tmp_path] and expected[0][2] == "prior_hong_kim"
    assert replay.model_files(variant) == expected  # not loaded in this process yet: the files are parsed
    symgpu.load(str(variant))
    assert replay.model_files(variant) == expected
