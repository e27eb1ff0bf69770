"""``report --all`` hands out its reports longest first: the previous run's CPU seconds (kept
in the cache as checked JSON), else a rough estimate from the model files; the worker pool
starts tasks in that order and reports each task's CPU seconds."""

from __future__ import annotations

import json
import os

import pytest

from symgpu import store
from symgpu import workers
from symgpu.entry_kinds import REPORT_SECONDS
from symgpu.report import freshness, schedule


@pytest.fixture
def cache(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    return tmp_path / "cache"


def test_recorded_seconds_come_back_merged_over_the_earlier_run(cache):
    assert schedule.previous() == {}
    schedule.record({"a": 1.5, "b": 0.25})
    schedule.record({"b": 3.0, "c": 0.0})
    assert schedule.previous() == {"a": 1.5, "b": 3.0, "c": 0.0}


@pytest.mark.parametrize("body", ['{"a": "1"}', '{"a": -1}', '{"a": NaN}', '[1, 2]', '{"a": true}', "{not json", '{"a": 1' + "0" * 400 + "}"])
def test_an_entry_that_is_not_an_object_of_finite_non_negative_numbers_is_ignored(cache, body):
    store.put(REPORT_SECONDS, schedule.KEY, body)
    assert schedule.previous() == {}


def test_longest_first_uses_recorded_seconds_only_when_every_task_has_them():
    estimates = {"a": 1.0, "b": 5.0, "c": 3.0}
    assert schedule.longest_first(["a", "b", "c"], estimates, {"a": 9.0, "b": 1.0, "c": 2.0}) == ["a", "c", "b"]
    # "c" was never timed: seconds and estimates are not compared, the estimates decide
    assert schedule.longest_first(["a", "b", "c"], estimates, {"a": 9.0, "b": 1.0}) == ["b", "c", "a"]
    # ties keep the given order
    assert schedule.longest_first(["x", "y", "z"], {"y": 2.0}, {}) == ["y", "x", "z"]


def test_a_base_is_ranked_by_its_cost_plus_the_longest_chain_that_waits_for_it():
    recorded = {"base": 2.0, "other": 5.0, "variant": 4.0, "small": 1.0}
    # base: 2 + 4 (the variant waits for it) = 6 > other's 5 > variant's 4 > small's 1
    assert schedule.longest_first(list(recorded), {}, recorded, {"variant": ["base"]}) == ["base", "other", "variant", "small"]
    # a chain: base 2 + mid 1 + variant 4 = 7; names of no task and a name waiting for itself are ignored
    chain = {"base": 2.0, "mid": 1.0, "variant": 4.0, "other": 6.5}
    after = {"variant": ["mid", "base", "gone"], "mid": ["base", "mid"]}
    assert schedule.longest_first(list(chain), {}, chain, after) == ["base", "other", "mid", "variant"]


def test_a_variants_bases_come_from_its_files_nearest_first():
    seen = freshness.InputFiles()
    assert schedule.bases("volkov_2016_h100", seen) == ("volkov_2016_ilp", "volkov_2016")
    assert schedule.bases("volkov_2016", seen) == ()
    assert schedule.bases("no_such_model", seen) == ()


def test_the_estimate_counts_requests_and_plots_times_presets_over_the_model_and_its_bases():
    seen = freshness.InputFiles()
    chain = freshness.chain_data("volkov_2016_ilp", seen)
    assert chain is not None and len(chain) == 2  # the variant and its base
    requests = sum(len(d.get("derivations", [])) + len(d.get("plots", [])) for d in chain)  # type: ignore[arg-type]
    presets = len({p for d in chain for p in d.get("presets", {})})  # type: ignore[attr-defined]
    assert requests > 0 and presets > 0
    assert schedule.model_units("volkov_2016_ilp", seen) == requests * presets
    assert schedule.model_units("no_such_model", seen) == 0.0
    assert schedule.figure_units(["volkov_2016", "volkov_2016_ilp"], 2, seen) == 2 * 2 * presets


def _pid_after(seconds: float) -> int:
    """A task that busies its process for about ``seconds`` of CPU and returns the pid."""
    import time
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return os.getpid()


def test_workers_start_the_tasks_in_the_given_order_and_report_their_cpu_seconds():
    tasks = [(name, _pid_after, (0.05 if name == "long" else 0.0,)) for name in ("s1", "s2", "s3", "long")]
    starts: list[tuple[int, str]] = []
    seconds: dict[str, float] = {}
    results = dict(workers.run(tasks, 2, lambda index, name: starts.append((index, name)), order=["long", "s3"], seconds=seconds))
    assert set(results) == {"s1", "s2", "s3", "long"}
    # "long" and "s3" first, the others after them in task order; the index is the task's place in the list
    assert starts == [(4, "long"), (3, "s3"), (1, "s1"), (2, "s2")]
    assert set(seconds) == set(results)
    assert seconds["long"] >= 0.05 and all(v >= 0 for v in seconds.values())


def test_a_task_starts_only_after_the_tasks_it_waits_for_have_finished():
    tasks = [(name, _pid_after, (0.2 if name == "base" else 0.0,)) for name in ("variant", "base", "other", "last")]
    events: list[str] = []
    for name, _ in workers.run(tasks, 2, lambda index, name: events.append(f"start {name}"), order=["variant", "base", "other", "last"],
                               after={"variant": ["base", "no_such_task"], "last": ["variant"]}):
        events.append(f"end {name}")
    # the variant is first in order but waits: base and other start; the variant only once base has ended
    assert events[:2] == ["start base", "start other"]
    assert events.index("start variant") > events.index("end base")
    assert events.index("start last") > events.index("end variant")


def test_one_worker_runs_the_tasks_in_task_order_and_times_them_too():
    tasks = [(name, _pid_after, (0.0,)) for name in ("a", "b")]
    starts: list[str] = []
    seconds: dict[str, float] = {}
    results = dict(workers.run(tasks, 1, lambda index, name: starts.append(name), order=["b", "a"], seconds=seconds))
    assert starts == ["a", "b"] and set(results.values()) == {os.getpid()} and set(seconds) == {"a", "b"}


def test_report_all_records_each_folders_seconds_for_the_next_run(tmp_path, cache):
    from symgpu.cli import main
    assert main(["report", "--all", "--models", "interval_analysis,perez_piccoli", "--jobs", "2", "-o", str(tmp_path / "out"),
                 "-f", "md"]) == 0
    recorded = schedule.previous()
    assert set(recorded) >= {"interval_analysis", "perez_piccoli"}
    assert all(v > 0 for k, v in recorded.items() if k in ("interval_analysis", "perez_piccoli"))
    body = store.get(REPORT_SECONDS, schedule.KEY)
    assert body is not None and json.loads(body) == recorded
