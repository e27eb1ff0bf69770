"""``symgpu validate --jobs``: model families validated in forked workers print exactly what
one process prints, in the order the models were given; errors are reported as one by one."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from symgpu.cli import model_commands
from symgpu.model import loader

REPO = Path(__file__).resolve().parent.parent
needs_fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform")

#: a base and its variants given out of order, with unrelated models between them: the
#: families are validated in another order than the output's
MODELS = ("prior_zhang_owens_additive", "prior_huang_bw", "prior_agarwal", "prior_huang", "prior_zhang_owens", "prior_huang_gto")


def _headers(out: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^(\S+): \d+ values, ", out, re.MULTILINE)]


@needs_fork
def test_validate_in_workers_prints_the_same_text_and_json_in_the_given_order(cli):
    one = cli("validate", "--jobs", "1", *MODELS)
    two = cli("validate", "--jobs", "2", *MODELS)
    assert one[0] == 0 and one == two
    assert _headers(one[1]) == list(MODELS)
    one_json = cli("validate", "--json", "-j", "1", *MODELS)
    two_json = cli("validate", "--json", "-j", "2", *MODELS)
    assert one_json == two_json
    shown = [r["model"] for r in json.loads(two_json[1])]
    assert list(dict.fromkeys(shown)) == list(MODELS) and shown == sorted(shown, key=MODELS.index)


def test_families_put_each_variant_with_its_base_and_keep_every_model_once():
    definitions = [loader.read_definition(loader.find(m)) for m in MODELS]
    families = model_commands.validation_families(definitions)
    members = [[definitions[i].id for i, _ in family] for family in families]
    assert sorted(i for family in families for i, _ in family) == list(range(len(MODELS)))
    assert sorted(map(sorted, members)) == sorted([["prior_huang", "prior_huang_bw", "prior_huang_gto"], ["prior_agarwal"],
                                                   ["prior_zhang_owens", "prior_zhang_owens_additive"]])
    # a variant whose base is not validated is a family of its own
    alone = model_commands.validation_families([loader.read_definition(loader.find("prior_huang_bw"))])
    assert [[d.id for _, d in family] for family in alone] == [["prior_huang_bw"]]


@needs_fork
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_model_that_does_not_build_stops_validate_with_its_one_line_error(cli, write_model, jobs):
    broken = write_model(rhs="P_peak + B")
    code, out, err = cli("validate", "-j", jobs, "prior_agarwal", broken, "prior_huang")
    assert code == 2 and out == ""
    assert err.startswith("symgpu: error: ") and str(broken) in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("jobs", ["0", "-3", "two"])
def test_validate_refuses_a_bad_number_of_jobs_with_exit_2(cli, jobs):
    code, out, err = cli("validate", "--jobs", jobs, "prior_agarwal")
    assert code == 2 and out == "" and "--jobs" in err and "Traceback" not in err


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(c) for c in found.read_text().split()] if found.exists() else []


@needs_fork
@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(), reason="needs Linux /proc children")
def test_ctrl_c_while_workers_validate_exits_130_without_traceback_or_leftover_processes(tmp_path):
    env = dict(os.environ, SYMGPU_CACHE_DIR=str(tmp_path), PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.Popen([sys.executable, "-m", "symgpu", "validate", "volkov_2016", "volkov_2016_ilp", "hong_kim_2009"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(_children(run.pid)) < 2 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        workers = _children(run.pid)
        assert len(workers) >= 2, "the workers never started"
        os.killpg(run.pid, signal.SIGINT)  # as a terminal's Ctrl-C: every process of the group
        out, err = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130 and "Traceback" not in err and out == ""
    assert not [w for w in workers if Path(f"/proc/{w}").exists() and "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]]
