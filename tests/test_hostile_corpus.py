"""Issue 12: check, eval and report on every hostile file: no hang, no traceback, no payload run.

The corpus and what each file attacks are in ``tests/hostile/README.md``; the files are run
by ``tests/hostile/driver.py`` (one forked child per file, CPU, memory and wall-clock capped).

Each file has its own budget (``driver.CPU_SECONDS`` of CPU, a wall-clock hang guard of
``driver.WALL_SECONDS``); the driver as a whole has no limit of its own beyond the sum of
those, so a busy machine slows the corpus down but does not fail it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
HOSTILE = REPO / "tests" / "hostile"
sys.path.insert(0, str(HOSTILE))
import driver  # noqa: E402
import make_corpus  # noqa: E402

ROW = re.compile(r"^\| `(?P<file>[^`]+)` \| (?P<attack>.+) \| `(?P<key>[^`]+)` \| (?P<eval>fails|answers) \|$")
ROWS = [m.groupdict() for m in map(ROW.match, (HOSTILE / "README.md").read_text(encoding="utf-8").splitlines()) if m]
BASE = "hostile_base"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the driver once on the whole corpus plus the valid base model."""
    work = tmp_path_factory.mktemp("hostile")
    base = work / f"{BASE}.toml"
    base.write_text(make_corpus.base(BASE), encoding="utf-8")
    files = [str(HOSTILE / row["file"]) for row in ROWS] + [str(base)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}
    # NOTE: a hang guard only: every file is killed at its own budget, so this is never reached
    # unless the driver itself hangs (its start and the warm-up get one file's budget).
    guard = (len(files) + 1) * driver.WALL_SECONDS
    done = subprocess.run([sys.executable, str(HOSTILE / "driver.py"), str(work / "runs"), *files],
                          capture_output=True, text=True, timeout=guard, env=env, cwd=work)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout))


def test_corpus_has_at_least_40_files_each_in_the_readme_table():
    on_disk = sorted(p.name for p in HOSTILE.iterdir() if p.suffix in (".toml", ".txt"))
    assert len(on_disk) >= 40
    assert sorted(row["file"] for row in ROWS) == on_disk


def test_the_base_model_passes_check_eval_and_report_so_each_failure_is_the_attack(results):
    run = results[f"{BASE}.toml"]
    assert run["status"] == "done"
    assert {name: c["code"] for name, c in run["commands"].items()} == {"check": 0, "eval": 0, "report": 0}
    # Min(100 TFLOP/s, 10 FLOP/B * 2 TB/s) = 20 TFLOP/s
    assert run["commands"]["eval"]["out"].strip() == "P = 2e+13 FLOP/s"


@pytest.mark.parametrize("row", ROWS, ids=[row["file"] for row in ROWS])
def test_hostile_file_is_refused_by_every_command_naming_file_and_key(results, row):
    run = results[row["file"]]
    assert run["status"] == "done", f"{row['file']}: {run['status']} (hang or killed past the CPU/memory cap)"
    assert not run["canary"], f"{row['file']}: a payload ran"
    # eval "answers": the attack is in a part eval's quantity does not read, which a question's model never parses
    expected = {"check": 1, "eval": 0 if row["eval"] == "answers" else 2, "report": 2}
    for name, command in run["commands"].items():
        text = command["out"] + command["err"]
        assert command["code"] == expected[name], f"{name}: exit {command['code']}: {text[-600:]}"
        assert "Traceback" not in text and "internal error" not in text
        if command["code"]:
            assert row["file"] in text and row["key"] in text, f"{name}: {text[-600:]}"
        else:  # Min(100 TFLOP/s, 10 FLOP/B * 2 TB/s) = 20 TFLOP/s, as the base model gives
            assert command["out"].strip() == "P = 2e+13 FLOP/s", f"{name}: {text[-600:]}"
