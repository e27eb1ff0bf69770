"""One headless Chromium opening several pages, driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: commands on its fd 3, answers and events on its fd 4, each a JSON
message ended by a NUL byte). For tests/docs_site.py: each page is opened as ``--dump-dom
--virtual-time-budget`` opens it (in a browser context of its own, the page's timers run on virtual
time until the budget is spent), and an expression is evaluated there, without starting a browser
per page."""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import time
from typing import Any


class BrowserError(Exception):
    """The browser did not answer in time, closed its pipe, or answered a command with an error."""


def _above_nine(fd: int) -> int:
    """``fd`` moved to a number above 9 (close-on-exec, as before)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    """A running headless Chromium (``command``: its executable and flags) and its DevTools pipe;
    a context manager that closes it."""

    def __init__(self, command: list[str]) -> None:
        to_browser, self._commands = os.pipe()
        self._answers, from_browser = os.pipe()
        # the browser reads fd 3 and writes fd 4: bash gives the two pipe ends those numbers (moved above
        # 9 first, so neither is 3 or 4 already)
        to_browser, from_browser = (_above_nine(fd) for fd in (to_browser, from_browser))
        redirect = f'exec "$@" 3<&{to_browser} 4>&{from_browser} {to_browser}<&- {from_browser}>&-'
        self._process = subprocess.Popen(["bash", "-c", redirect, "bash", *command, "--remote-debugging-pipe"],
                                         pass_fds=(to_browser, from_browser), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._sent = 0
        self._events: list[dict[str, Any]] = []

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._send("Browser.close", {}, None)
            self._process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            os.close(self._commands)
            os.close(self._answers)

    def evaluate_after_budget(self, url: str, expression: str, *, budget_ms: int, timeout: float) -> Any:
        """The value of JavaScript ``expression`` in page ``url`` once its virtual time budget is spent.

        Raises:
            BrowserError: no answer within ``timeout`` seconds, or the browser refused a command.
        """
        deadline = time.monotonic() + timeout
        context = self.call("Target.createBrowserContext", {}, deadline=deadline)["browserContextId"]
        target = self.call("Target.createTarget", {"url": "about:blank", "browserContextId": context}, deadline=deadline)["targetId"]
        try:
            session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, deadline=deadline)["sessionId"]
            # what --virtual-time-budget sets: virtual time, paused while resources load, from the navigation on
            # (virtual time stands still until the page is navigated to)
            self.call("Emulation.setVirtualTimePolicy", {"policy": "pause"}, session, deadline=deadline)
            self.call("Page.navigate", {"url": url}, session, deadline=deadline)
            self.call("Emulation.setVirtualTimePolicy", {"policy": "pauseIfNetworkFetchesPending", "budget": budget_ms},
                      session, deadline=deadline)
            self.event("Emulation.virtualTimeBudgetExpired", session, deadline=deadline)
            found = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session, deadline=deadline)
            return found["result"].get("value")
        finally:
            self.call("Target.closeTarget", {"targetId": target}, deadline=deadline + 30)
            self.call("Target.disposeBrowserContext", {"browserContextId": context}, deadline=deadline + 30)

    def call(self, method: str, params: dict[str, Any], session: str | None = None, *, deadline: float) -> dict[str, Any]:
        """Send a command and return its result (events that arrive meanwhile are kept for :meth:`event`)."""
        sent = self._send(method, params, session)
        while True:
            message = self._receive(deadline)
            if message.get("id") == sent:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self._events.append(message)

    def event(self, method: str, session: str, *, deadline: float) -> dict[str, Any]:
        """The first event ``method`` of ``session`` (one received already, or the next)."""
        while True:
            for index, message in enumerate(self._events):
                if message.get("method") == method and message.get("sessionId") == session:
                    return self._events.pop(index)
            self._events.append(self._receive(deadline))

    def _send(self, method: str, params: dict[str, Any], session: str | None) -> int:
        self._sent += 1
        message: dict[str, Any] = {"id": self._sent, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode("utf-8") + b"\0")
        return self._sent

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._answers], [], [], left)[0]:
                raise BrowserError("no answer from the browser in time")
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise BrowserError(f"the browser closed its pipe (exit {self._process.poll()})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)
