"""The sweep writer's worker thread (:mod:`symgpu.sweep.background`): calls in order, at most
``depth`` waiting, a failure raised in the caller, nothing run after a block that raised."""

from __future__ import annotations

import threading

import pytest

from symgpu.sweep.background import Background


def test_every_item_is_handled_once_in_order_on_another_thread() -> None:
    seen: list[tuple[int, str]] = []
    with Background(lambda item: seen.append((item, threading.current_thread().name))) as later:
        for item in range(20):
            later.submit(item)
    assert [item for item, _ in seen] == list(range(20))
    assert {name for _, name in seen} == {"symgpu-background"}


def test_the_caller_waits_while_depth_items_wait() -> None:
    release = threading.Event()
    started = threading.Event()
    handled: list[int] = []

    def slow(item: int) -> None:
        started.set()
        release.wait(10)
        handled.append(item)

    submitted: list[int] = []
    with Background(slow, depth=1) as later:
        later.submit(0)
        started.wait(10)  # item 0 is being handled
        later.submit(1)  # waits in the queue
        blocked = threading.Thread(target=lambda: (later.submit(2), submitted.append(2)))
        blocked.start()
        blocked.join(0.2)
        assert submitted == []  # one handled, one waiting: the third submit waits
        release.set()
        blocked.join(10)
    assert submitted == [2] and handled == [0, 1, 2]


def test_a_failing_call_is_raised_in_the_caller_and_later_items_are_dropped() -> None:
    handled: list[int] = []

    def fail_on_one(item: int) -> None:
        if item == 1:
            raise OSError(28, "No space left on device")
        handled.append(item)

    with pytest.raises(OSError, match="No space left"):
        with Background(fail_on_one) as later:
            for item in range(50):
                later.submit(item)
    assert handled == [0]


def test_a_block_that_raised_drops_the_waiting_items_and_finishes_the_one_being_handled() -> None:
    release, started = threading.Event(), threading.Event()
    handled: list[int] = []

    def slow(item: int) -> None:
        started.set()
        release.wait(10)
        handled.append(item)

    with pytest.raises(KeyboardInterrupt):
        with Background(slow, depth=3) as later:
            for item in range(4):  # item 0 being handled, 1..3 waiting
                later.submit(item)
            started.wait(10)
            threading.Timer(0.2, release.set).start()  # item 0 ends while the block is being left
            raise KeyboardInterrupt
    assert handled == [0]
    assert not any(t.name == "symgpu-background" and t.is_alive() for t in threading.enumerate())


def test_a_depth_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^depth must be at least 1, got 0$"):
        Background(print, depth=0)
