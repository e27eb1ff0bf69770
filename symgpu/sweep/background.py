"""One call at a time on a worker thread while the caller goes on: a sweep's Parquet writer
encodes and compresses chunk k (pyarrow releases the GIL there) while the next chunk is computed."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")

#: what tells the worker to stop (never a submitted item)
_STOP = object()


class Background(Generic[T]):
    """``call(item)`` for each submitted item, in order, on one worker thread.

    At most ``depth`` items wait while one is being handled, so memory stays bounded: the
    caller blocks in :meth:`submit` when the worker is behind. A failure of ``call`` is raised
    in the caller, by the next :meth:`submit` or when the block ends; the items after it are
    dropped. When the block ends normally it waits for every item to be handled; when it ends
    by an exception (Ctrl-C included) the waiting items are dropped, the one being handled is
    finished, and the exception goes on: after the block, ``call`` runs no more.

    Example::

        with Background(writer.write_table) as later:
            for table in tables:
                later.submit(table)
    """

    def __init__(self, call: Callable[[T], object], depth: int = 1) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self._call = call
        self._items: queue.Queue[object] = queue.Queue(maxsize=depth)
        self._failure: BaseException | None = None
        self._cancelled = False
        self._thread = threading.Thread(target=self._work, name="symgpu-background", daemon=True)

    def __enter__(self) -> Background[T]:
        self._thread.start()
        return self

    def submit(self, item: T) -> None:
        """Hand ``item`` to the worker (blocks while ``depth`` items wait).

        Raises:
            BaseException: what an earlier ``call`` raised.
        """
        self._raise_failure()
        self._items.put(item)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is not None:
            self._cancelled = True
            while True:  # drop what waits, so the stop mark fits
                try:
                    self._items.get_nowait()
                except queue.Empty:
                    break
        self._items.put(_STOP)
        self._thread.join()
        if kind is None:
            self._raise_failure()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    def _work(self) -> None:
        while True:
            item = self._items.get()
            if item is _STOP:
                return
            if self._failure is not None or self._cancelled:
                continue
            try:
                self._call(item)  # type: ignore[arg-type]
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                self._failure = exc
