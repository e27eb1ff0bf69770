"""Issue 30 (answers changed by the cache): the cache makes symgpu faster, never different.

An attacker who can write to the cache folder (but not read the user's data folder, where the
authentication key lives) rewrites entries well-formed, with a valid SHA-256 of the body: a
parsed model file with another preset value, a stored derivation with another expression. Every
such entry is ignored, the answer is the one computed, and the entry is rewritten. Links inside
the cache folder are not followed, and ``cache clear`` removes only symgpu's own entries.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import symgpu
from symgpu import store
from symgpu.entry_kinds import DERIVATIONS, TOML, EntryKind
from symgpu.derive import requests, stored
from symgpu.model import loader

from conftest import FIXTURES

#: a kind of entry of the tests alone
THINGS = EntryKind("things", "things-v1", "tests", ("tests",), False, "test entries")
OTHER = EntryKind("other", "other-v1", "tests", ("tests",), False, "test entries")

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(folder))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    return folder


def _entries(kind: EntryKind) -> list[Path]:
    folder = store.folder() / kind.name
    return sorted(folder.rglob("*.txt")) if folder.is_dir() else []


def _forge(path: Path, change) -> str:
    """Rewrite entry ``path`` as an attacker would: body changed, header rebuilt with a valid
    SHA-256 (the old checksum format) and with the current header word; returns the new body."""
    key = path.stem
    body = change(path.read_text(encoding="utf-8").partition("\n")[2])
    path.write_text(f"symgpu-cache-v2 {key} {hashlib.sha256(body.encode()).hexdigest()}\n{body}", encoding="utf-8")
    return body


def test_a_forged_parsed_model_file_with_a_valid_checksum_changes_no_preset_and_is_rewritten(cache, tmp_path):
    model = tmp_path / "tiny.toml"
    model.write_bytes((FIXTURES / "tiny.toml").read_bytes())
    first = loader.read_definition(model)
    store.flush()
    (entry,) = _entries(TOML)
    original = entry.read_text(encoding="utf-8")
    body = _forge(entry, lambda b: b.replace("100 TFLOP/s", "1 TFLOP/s"))
    assert "1 TFLOP/s" in body and json.loads(body)  # well formed: only authentication stands in the way
    assert store.get(TOML, entry.stem) is None
    assert loader.read_definition(model) == first
    store.flush()
    assert entry.read_text(encoding="utf-8") == original  # recomputed and rewritten


def test_a_forged_stored_derivation_with_a_valid_checksum_changes_no_expression_and_is_rewritten(cache):
    model = symgpu.load("perez_piccoli")
    fresh = requests.request(model, "pipes_times_depth")
    (entry,) = _entries(DERIVATIONS)
    original = entry.read_text(encoding="utf-8")
    body = _forge(entry, lambda b: b.replace("N_PPipe", "L_Pipe"))
    assert stored.load(model, body) is not None  # the forged body parses: it would change the answer
    assert store.get(DERIVATIONS, entry.stem) is None
    assert requests.request(model, "pipes_times_depth") == fresh
    assert entry.read_text(encoding="utf-8") == original


def test_an_entry_copied_under_another_kind_is_not_authentic(cache):
    key = store.digest("moved")
    store.put(THINGS, key, "1")
    (store.folder() / "other" / key[:2]).mkdir(parents=True)
    (store.folder() / "other" / key[:2] / f"{key}.txt").write_bytes((store.folder() / "things" / key[:2] / f"{key}.txt").read_bytes())
    assert store.get(THINGS, key) == "1" and store.get(OTHER, key) is None


def test_the_authentication_key_lives_outside_the_cache_folder_readable_by_its_owner_only(cache):
    store.put(THINGS, store.digest("k"), "1")
    key_file = store.key_path()
    assert not key_file.resolve().is_relative_to(cache.resolve())
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert not any(p.name == store.KEY_FILE for p in cache.rglob("*"))


def test_a_forged_preset_in_the_cache_changes_no_answer_across_processes(cache, tmp_path):
    model = tmp_path / "tiny.toml"
    model.write_bytes((FIXTURES / "tiny.toml").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(REPO), store.CACHE_DIR_ENV: str(cache)}
    argv = [sys.executable, "-m", "symgpu", "eval", str(model), "P", "--preset", "toy", "--set", "I=10"]
    cold = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert cold.returncode == 0, cold.stderr
    for entry in _entries(TOML):
        _forge(entry, lambda b: b.replace("100 TFLOP/s", "1 TFLOP/s"))
    warm = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert (warm.returncode, warm.stdout, warm.stderr) == (0, cold.stdout, cold.stderr)


# ---------------------------------------------------------------- links and other files in the cache folder
def test_a_symlinked_folder_inside_the_cache_is_not_followed_for_writing_or_reading(cache, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    key = store.digest("linked")
    store.folder().mkdir(parents=True)
    (store.folder() / "things").symlink_to(outside, target_is_directory=True)
    store.put(THINGS, key, "1")
    assert list(outside.rglob("*")) == []
    (outside / key[:2]).mkdir()
    (outside / key[:2] / f"{key}.txt").write_text("planted", encoding="utf-8")
    assert store.get(THINGS, key) is None


def test_a_symlinked_entry_is_replaced_never_written_through(cache, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    key = store.digest("entry-link")
    (store.folder() / "things" / key[:2]).mkdir(parents=True)
    (store.folder() / "things" / key[:2] / f"{key}.txt").symlink_to(victim)
    assert store.get(THINGS, key) is None
    store.put(THINGS, key, "1")
    assert victim.read_text(encoding="utf-8") == "precious"
    assert store.get(THINGS, key) == "1"


def test_cache_clear_removes_only_symgpus_own_entries(cache, tmp_path):
    for n in range(3):
        store.put(THINGS, store.digest(str(n)), "1")
    cache.mkdir(exist_ok=True)
    mine = {cache / "notes.txt": "user", store.folder() / "README": "user", store.folder() / "things" / "keep.txt": "user",
            cache / "symgpu-mine" / "data.csv": "user", store.folder() / "things" / "ab" / "draft.txt": "user"}
    for path, text in mine.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ("0" * 64 + ".txt")).write_text("user", encoding="utf-8")
    (store.folder() / "linked").symlink_to(outside, target_is_directory=True)
    base, removed = store.clear()
    assert (base, removed) == (cache, 3)
    assert all(path.read_text(encoding="utf-8") == "user" for path in mine), "a user's file was removed"
    assert (outside / ("0" * 64 + ".txt")).exists()
    assert store.size()[1] == 0
