"""``symgpu.cli.app.main`` pauses the cyclic garbage collector while a command's modules are imported and then
freezes what they made (start-up speed), only in a process that froze nothing yet: a second ``main()`` in one
process (the tests run hundreds) leaves the collector as it finds it. Whether anything is frozen is asked of
``gc.get_freeze_count()`` once per process: CPython counts the frozen objects one by one (O(n): 10-20 ms of CPU per
call in a test process), so asking it again at every command was a cost of every in-process command line, never a
different answer (nothing unfreezes). Each case runs in a fresh interpreter: freezing is the process's state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: runs ``symgpu list`` in-process under each setting and prints, per command, the collector's state before
#: and after and how many times get_freeze_count was called during it (counted by a profile hook, nothing replaced)
PROBE = """
import contextlib, gc, io, json, sys
from symgpu.cli import app

asked = [0]
def hook(frame, event, arg):
    if event == "c_call" and arg is gc.get_freeze_count:
        asked[0] += 1

def run(label):
    before = (gc.isenabled(), gc.get_freeze_count())
    asked[0] = 0
    sys.setprofile(hook)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = app.main(["list"])
    finally:
        sys.setprofile(None)
    print(json.dumps([label, code, before, [gc.isenabled(), gc.get_freeze_count()], asked[0]]))

for step in sys.argv[1:]:
    if step == "disable":
        gc.disable()
    elif step == "enable":
        gc.enable()
    elif step == "freeze":
        gc.freeze()
    else:
        run(step)
"""


def _steps(*steps: str) -> list[tuple[str, int, list[int], list[int], int]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", PROBE, *steps], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return [tuple(json.loads(line)) for line in done.stdout.splitlines()]  # type: ignore[misc]


def test_the_first_command_freezes_and_the_next_ones_leave_the_collector_as_they_find_it() -> None:
    first, second, third, fourth = _steps("first", "second", "disable", "third", "enable", "fourth")
    assert first[1] == 0 and first[2] == [True, 0]
    enabled, frozen = first[3]
    assert enabled is True and isinstance(frozen, int) and frozen > 0  # frozen by the first command
    assert first[4] == 1  # asked once: nothing was frozen yet
    for later, enabled in ((second, True), (third, False), (fourth, True)):
        assert later[1] == 0
        assert later[2][0] == later[3][0] == enabled  # the switch left as found
        assert later[3][1] <= later[2][1] <= frozen  # nothing more frozen (a frozen object may be freed)
        assert later[4] == 0  # not asked again: it was known frozen


def test_a_process_that_froze_objects_itself_is_left_as_it_is() -> None:
    (first, second) = _steps("freeze", "first", "second")
    frozen = first[2][1]
    assert isinstance(frozen, int) and frozen > 0
    assert first[2][0] is first[3][0] is True and first[3][1] <= frozen and first[4] == 1  # asked once, found frozen: nothing more frozen
    assert second[2][0] is second[3][0] is True and second[3][1] <= second[2][1] and second[4] == 0


def test_a_first_command_with_the_collector_off_freezes_nothing_and_a_later_one_with_it_on_does() -> None:
    first, second, third = _steps("disable", "first", "enable", "second", "third")
    assert first[2] == first[3] == [False, 0] and first[4] == 0  # off: not asked, nothing frozen, left off
    assert second[2] == [True, 0] and second[3][0] is True and second[3][1] > 0 and second[4] == 1
    assert third[2][0] is third[3][0] is True and third[3][1] <= third[2][1] <= second[3][1] and third[4] == 0
