"""A limit checked at two points (no preset given: two of the model's presets) says its check once: the two points'
sentences differ only in the gap the limit was met within, and two lines alike but for that number read as the
check printed twice. The one line keeps the larger gap, which holds at both points."""

from __future__ import annotations

import json
import re

from symgpu.derive import summary


def test_checks_alike_but_for_their_gap_are_said_once_with_the_largest_gap():
    said = ["the quantity at x -> 0 tends to the limit (within 2.5e-13)", "a scan finds no other root",
            "the quantity at x -> 0 tends to the limit (within 6.3e-14)", "the quantity at x -> 0 tends to the limit (within 3.1e-12)",
            "the quantity at x -> 0 tends to the limit (within 1.0e-13 of 0)", "a scan finds no other root"]
    assert summary.said_once(said) == ("the quantity at x -> 0 tends to the limit (within 3.1e-12)", "a scan finds no other root",
                                       "the quantity at x -> 0 tends to the limit (within 1.0e-13 of 0)")


def test_checks_that_differ_otherwise_are_all_kept():
    said = ["the quantity at x -> 0 from above tends to the limit (within 2.5e-13)", "the quantity at x -> 0 tends to the limit (within 2.5e-13)",
            "the relation holds at the 42 of 120 scanned values", "the relation holds at the 43 of 120 scanned values"]
    assert summary.said_once(said) == tuple(said)


def test_volkovs_needed_occupancy_as_the_memory_latency_vanishes_prints_its_check_once(cli):
    code, out, err = cli("limit", "volkov_2016", "n_needed", "--var", "mem_lat", "--to", "0")
    assert code == 0, err
    checked = [line for line in out.splitlines() if "tends to the limit" in line]
    assert len(checked) == 1, out
    head = next(line for line in out.splitlines() if "checked numerically at " in line)
    assert head.count("preset ") == 2  # two points, one sentence
    code, out, err = cli("limit", "volkov_2016", "n_needed", "--var", "mem_lat", "--to", "0", "--json")
    checks = json.loads(out)["certificate"]["checks"]
    assert len(checks) == 1 and re.fullmatch(r"the quantity at mem_lat -> 0 tends to the limit \(within \d\.\de-\d\d\)", checks[0])
