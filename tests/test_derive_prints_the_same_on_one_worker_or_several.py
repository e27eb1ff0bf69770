"""``symgpu derive`` runs a model file's requests side by side (``--jobs``, one per core by default): what it prints
and its exit code are the same with one worker or several, in the order asked for, and each request's line is the
line that request gives when asked for alone (SymPy's generators seeded per request: nothing rests on which requests
ran before it in its process). Each run is a fresh process with an empty cache, as a user's is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import read_fixture

_MODEL = read_fixture("tile_cost") + '''
[[derivations]]
id = "fails"
op = "extremum"
quantity = "T"
variable = "K"
kind = "min"
preset = "base"
expect_value = "6.5"
source = { ref = "toy2026", locator = "d1" }
[[derivations]]
id = "holds"
op = "extremum"
quantity = "T"
variable = "K"
kind = "min"
expect = "sqrt(b/a)"
source = { ref = "toy2026", locator = "d2" }
[[derivations]]
id = "refused"
op = "boundary"
quantity = "T"
variable = "K"
source = { ref = "toy2026", locator = "d3" }
[[derivations]]
id = "solved"
op = "solve"
quantity = "T"
variable = "a"
source = { ref = "toy2026", locator = "d4" }
[[derivations]]
id = "at_infinity"
op = "limit"
quantity = "T"
variable = "K"
to = "oo"
source = { ref = "toy2026", locator = "d5" }
'''


def _derive(path: Path, tmp_path: Path, *words: str) -> tuple[int, str, str]:
    cache = tmp_path / f"cache{len(list(tmp_path.glob('cache*')))}"
    done = subprocess.run([sys.executable, "-m", "symgpu", "derive", str(path), *words], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "SYMGPU_CACHE_DIR": str(cache)}, check=False)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "tile_cost.toml"
    path.write_text(_MODEL)
    return path


def test_three_workers_print_what_one_prints_and_each_line_is_the_requests_own(model_file: Path, tmp_path: Path) -> None:
    one = _derive(model_file, tmp_path, "-j", "1")
    several = _derive(model_file, tmp_path, "-j", "3")
    assert several == one
    code, out, _ = one
    lines = out.splitlines()
    assert code == 1 and lines[-1] == "3 of 5 derivations ok, 2 failed"
    assert [line.split(":")[0] for line in lines[:-1]] == ["FAIL fails", "ok   holds", "FAIL refused", "ok   solved", "ok   at_infinity"]
    for line in lines[:-1]:
        request = line.split(":")[0].split()[-1]
        alone = _derive(model_file, tmp_path, request)
        assert alone[1].splitlines()[0] == line


def test_json_from_several_workers_is_one_array_in_the_order_asked_for(model_file: Path, tmp_path: Path) -> None:
    asked = ["at_infinity", "refused", "holds"]
    one = _derive(model_file, tmp_path, *asked, "--json", "-j", "1")
    several = _derive(model_file, tmp_path, *asked, "--json", "-j", "2")
    assert several == one
    entries = json.loads(one[1])
    assert [e["id"] for e in entries] == asked
    assert [e["ok"] for e in entries] == [True, False, True] and "error" in entries[1] and one[0] == 1


def test_jobs_below_one_is_refused_with_what_to_give(model_file: Path, tmp_path: Path) -> None:
    code, out, err = _derive(model_file, tmp_path, "-j", "0")
    assert code == 2 and out == "" and "--jobs 0: give the number of requests to run at once, 1 or more" in err


def test_a_request_of_the_same_operation_and_quantity_as_one_before_it_starts_after_that_one(model_file: Path) -> None:
    from symgpu import api
    from symgpu.cli.derive_batch import after_the_same_question
    requests = api.load(str(model_file)).definition.derivations
    # "fails" and "holds" are extrema of T; the boundary, solve and limit of T are one each
    assert after_the_same_question(requests) == {"1": ["0"]}
    assert after_the_same_question(requests[1:]) == {}  # places among the requests asked for
    volkov = api.load("volkov_2016").definition.derivations
    chained = {volkov[int(late)].id: [volkov[int(e)].id for e in early] for late, early in after_the_same_question(volkov).items()}
    assert chained == {"n_needed_alpha_to_infinity": ["n_needed_alpha_to_zero"], "alpha_memory_issue": ["alpha_memory_alu"],
                       "alpha_alu_issue": ["alpha_memory_issue"], "knee_memory": ["alpha_alu_issue"],
                       "cusp_alu_form": ["cusp_full"], "cusp_issue_form": ["cusp_alu_form"],
                       "refined_model_is_fixed_point": ["s6_5_fixed_point"],
                       "exposed_latency_hidden_latency": ["exposed_latency_hidden_throughput"],
                       "exposed_latency_hidden_latency_bound": ["exposed_latency_hidden_latency"]}
    assert all(r.get("quantity") is None for r in api.load("perez_piccoli").definition.derivations if r.op == "simplify")
    assert after_the_same_question([r for r in api.load("perez_piccoli").definition.derivations if r.op == "simplify"]) == {}
