"""The on-disk cache: entries come back only intact and under their own key; anything else is
recomputed; sign verdicts read from it equal those computed; the CLI starts without SymPy."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import store
from symgpu.entry_kinds import SIGNS, EntryKind
from symgpu.cli import app
from symgpu.derive import signs
from symgpu import memo

#: a kind of entry of the tests alone
THINGS = EntryKind("things", "things-v1", "tests", ("tests",), False, "test entries")

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    return tmp_path


def _entry(kind: str, key: str) -> Path:
    return store.folder() / kind / key[:2] / f"{key}.txt"


def test_an_entry_comes_back_as_stored(cache):
    key = store.digest("a", "b")
    store.put(THINGS, key, "Min(x, 2*y)\nline two")
    assert store.get(THINGS, key) == "Min(x, 2*y)\nline two"


def test_the_key_parts_are_length_prefixed_so_splits_do_not_collide():
    assert store.digest("ab", "c") != store.digest("a", "bc")


def test_an_altered_body_is_not_trusted(cache):
    key = store.digest("altered")
    store.put(THINGS, key, "1")
    path = _entry(THINGS.name, key)
    path.write_text(path.read_text(encoding="utf-8").replace("\n1", "\n-1"), encoding="utf-8")
    assert store.get(THINGS, key) is None


def test_an_entry_filed_under_another_key_is_not_trusted(cache):
    key, other = store.digest("one"), store.digest("two")
    store.put(THINGS, key, "1")
    _entry(THINGS.name, other).parent.mkdir(parents=True, exist_ok=True)
    _entry(THINGS.name, other).write_bytes(_entry(THINGS.name, key).read_bytes())
    assert store.get(THINGS, other) is None


def test_a_truncated_or_binary_entry_is_not_trusted(cache):
    key = store.digest("broken")
    store.put(THINGS, key, "some text")
    path = _entry(THINGS.name, key)
    path.write_bytes(path.read_bytes()[:20])
    assert store.get(THINGS, key) is None
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert store.get(THINGS, key) is None


def test_no_cache_turns_reading_and_writing_off(cache, monkeypatch):
    key = store.digest("off")
    store.put(THINGS, key, "1")
    monkeypatch.setenv(store.NO_CACHE_ENV, "1")
    assert store.get(THINGS, key) is None
    store.put(THINGS, store.digest("off", "2"), "1")
    assert not _entry(THINGS.name, store.digest("off", "2")).exists()


def test_a_key_that_is_not_a_digest_is_refused(cache):
    with pytest.raises(ValueError, match=r"^cache entry 'things'/'\.\./x': kind must be an EntryKind and key a SHA-256 hex digest$"):
        store.get(THINGS, "../x")


def test_clear_removes_every_entry(cache):
    for n in range(3):
        store.put(THINGS, store.digest(str(n)), "1")
    base, removed = store.clear()
    assert (base, removed) == (cache, 3)
    assert store.size()[1] == 0


def test_a_tampered_sign_verdict_is_recomputed(cache, ia):
    memo.clear_all()
    x = sympy.Symbol("x", positive=True)
    expr = (x + 1) ** 2 - x**2 - 2 * x  # 1: only factoring proves it (intervals and points cannot), so it is stored
    context = signs.reasoner(ia)
    assert context.sign(expr) == 1
    key = signs.sign_key(expr)
    path = _entry(SIGNS.name, key)
    assert store.get(SIGNS, key) == "1"
    # a forged verdict with a matching checksum is still only one of four words; junk is recomputed
    body = "__import__('os')"
    import hashlib
    path.write_text(f"symgpu-cache-v1 {key} {hashlib.sha256(body.encode()).hexdigest()}\n{body}", encoding="utf-8")
    memo.clear_all()
    assert context.sign(expr) == 1
    assert store.get(SIGNS, key) == "1"


def test_sign_verdicts_decided_cheaply_are_not_stored(cache, ia):
    # an interval enclosure (x + 1 > 0) or two signs at exact points (x - 1) decide faster than
    # the disk answers: only verdicts that needed factoring or simplify are kept
    memo.clear_all()
    x = sympy.Symbol("x", positive=True)
    context = signs.reasoner(ia)
    assert context.sign(x + 1) == 1 and context.sign(x - 1) is None
    assert store.get(SIGNS, signs.sign_key(x + 1)) is None and store.get(SIGNS, signs.sign_key(x - 1)) is None


def test_a_sign_verdict_of_another_engine_is_not_reused(cache, ia, tmp_path):
    memo.clear_all()
    x = sympy.Symbol("x", positive=True)
    expr = (x + 2) ** 2 - x**2 - 4 * x  # 4: proved by factoring, so stored
    context = signs.reasoner(ia)
    assert context.sign(expr) == 1
    assert store.get(SIGNS, signs.sign_key(expr)) == "1"
    # an edited engine: a copy of symgpu's sources with one line added has another digest
    package = Path(store.__file__).resolve().parent
    copy = tmp_path / "edited_symgpu"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "_data"))
    assert store.engine_digest(copy) == store.engine_digest(package)  # the digest is of the sources alone
    with (copy / "store.py").open("a", encoding="utf-8") as source:
        source.write("# an edit\n")
    engine = store.engine_digest(copy)
    assert engine != store.engine_digest(package)
    # it looks under another key: the verdict stored by this engine is not found, and a forged "-1" there is not read
    edited = signs.sign_key(expr, engine=engine)
    assert edited != signs.sign_key(expr)
    assert store.get(SIGNS, edited) is None
    store.put(SIGNS, edited, "-1")
    memo.clear_all()
    assert context.sign(expr) == 1


def test_the_top_level_help_lists_what_each_command_module_declares(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per command (a long name still puts its help on the next)
    lines = app.create_parser().format_help().splitlines()
    listed: list[tuple[str, str]] = []
    pending = ""
    for line in lines[lines.index("  COMMAND") + 1:]:
        if not line.strip():
            break
        words = line.strip().split(None, 1)
        if pending:
            listed.append((pending, line.strip()))
            pending = ""
        elif len(words) == 1:
            pending = words[0]
        else:
            listed.append((words[0], words[1].strip()))
    assert listed == [(name, text) for name, (_, text) in app.COMMANDS.items()]


@pytest.mark.parametrize("argv", [["--help"], ["list"], ["cache"]])
def test_help_list_and_cache_import_neither_sympy_nor_matplotlib(argv, cache):
    code = ("import sys; from symgpu.cli import main; rc = main(%r); "
            "print(sorted(m for m in ('sympy', 'matplotlib', 'pint') if m in sys.modules))" % (argv,))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_cache_clear_reports_what_it_removed(cache, capsys):
    store.put(THINGS, store.digest("x"), "1")
    assert app.main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == f"removed 1 cache entries from {cache}\n"


def test_import_symgpu_alone_does_not_import_sympy():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", "import sys, symgpu; print('sympy' in sys.modules)"],
                          capture_output=True, text=True, env=env, cwd=REPO)
    assert done.stdout.strip() == "False"
    assert symgpu.load is symgpu.api.load


def test_no_cache_is_handed_down_as_a_setting_and_leaves_the_environment_alone(cache, capsys):
    assert app.main(["--no-cache", "cache"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("cache off (--no-cache)")
    assert store.NO_CACHE_ENV not in os.environ and store.enabled()


def test_settings_handed_down_hold_within_their_block_only(cache):
    key = store.digest("handed down")
    store.put(THINGS, key, "1")
    with store.using(store.Settings(enabled=False)):
        assert store.get(THINGS, key) is None and not store.enabled()
        with store.using(store.Settings(enabled=True)):
            assert store.get(THINGS, key) == "1"
    assert store.get(THINGS, key) == "1" and store.settings() == store.Settings.from_environment()


def test_cache_info_lists_the_entries_of_every_kind_of_the_table(cache, capsys):
    from symgpu import entry_kinds

    store.put(entry_kinds.SIGNS, store.digest("one"), "1")
    assert app.main(["cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(": 1 entries; cache on")
    assert [line.split()[:2] for line in lines[1:]] == [[k.name, "1" if k is entry_kinds.SIGNS else "0"] for k in entry_kinds.KINDS]
