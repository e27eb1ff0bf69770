"""Building the documentation site and opening its pages in headless Chromium (for
tests/test_docs_build.py and tests/test_docs_browser.py; the session fixture is in conftest.py).

One build per test run, shared by every process of the run (the xdist workers): the site is built
into a folder of the run (:func:`built`), under a lock file (``fcntl.flock``) that the process
building it holds, so another process waits for that build instead of building its own. The build
may start in the background as soon as the tests are collected (:func:`start`: run as a script,
this module builds the site into the folder it is given); whoever needs the site first waits for it,
or builds it where no build started or one died without its result.
"""

from __future__ import annotations

import fcntl
import html.parser
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import chromium_pipe

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
#: Debian's MathJax 2 (libjs-mathjax): the build points at it, so math renders offline
DEBIAN_MATHJAX = Path("/usr/share/javascript/mathjax/MathJax.js")
MATHJAX_URL = DEBIAN_MATHJAX.as_uri() + "?config=TeX-AMS-MML_SVG"
#: the Python modules the docs extra brings
DOCS_MODULES = ("sphinx", "myst_nb", "myst_parser", "pydata_sphinx_theme")
#: in a build folder (:func:`built`): the lock file, and the build's result (written last, under the lock)
LOCK = "lock"
RESULT = "result.json"
#: the virtual time a page is given to load and typeset (its timers run on virtual time)
VIRTUAL_TIME_MS = 30000
#: a page's check result, written into its DOM by CHECK_SCRIPT once the page (and MathJax) is done
RESULT_ID = "symgpu-check"
CHECK_SCRIPT = """
<script>
window.addEventListener("load", function () {
  function report() {
    var images = Array.prototype.map.call(document.images, function (i) {
      return [i.getAttribute("src"), i.complete && i.naturalWidth > 0]; });
    var result = {
      images: images,
      math: document.querySelectorAll("span.math, div.math").length,
      rendered: document.querySelectorAll(".MathJax_SVG, .MathJax_SVG_Display, mjx-container").length,
      errors: document.querySelectorAll("merror, .noError, .MathJax_Error, mjx-merror").length
    };
    var out = document.createElement("pre");
    out.id = "%s";
    out.textContent = JSON.stringify(result);
    document.body.appendChild(out);
  }
  if (window.MathJax && window.MathJax.Hub && window.MathJax.Hub.Queue) { window.MathJax.Hub.Queue(report); }
  else { setTimeout(report, 5000); }
});
</script>
""" % RESULT_ID
#: the check result's text, read once the page's time budget is spent (null where the script did not report)
RESULT_EXPRESSION = "(e => e && e.textContent)(document.getElementById(%s))" % json.dumps(RESULT_ID)


def chromium() -> str | None:
    """The Chromium executable (Debian's package ``chromium``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def build(out: Path, doctrees: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """``sphinx -W --keep-going -b html docs OUT`` in a child process, symgpu's disk cache in ``cache``,
    MathJax from Debian's copy when present."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
               SYMGPU_CACHE_DIR=str(cache))
    env.pop("SYMGPU_NO_CACHE", None)
    if DEBIAN_MATHJAX.exists():
        env["SYMGPU_DOCS_MATHJAX"] = MATHJAX_URL
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(doctrees), str(DOCS), str(out)]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def start(folder: Path) -> subprocess.Popen[bytes] | None:
    """The site's build into ``folder``, started in the background (this module as a script) holding
    the folder's lock until its result is written, in a process group of its own (:func:`stop` ends it
    with the sphinx process it runs); None where the site is built already or being built."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None  # another process builds it
        if (folder / RESULT).exists():
            return None
        # the child inherits the locked file (the lock lasts while any copy of it is open)
        return subprocess.Popen([sys.executable, __file__, str(folder)], pass_fds=(lock,), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    finally:
        os.close(lock)


def stop(started: subprocess.Popen[bytes]) -> None:
    """End a background build of :func:`start` and the sphinx process it runs (it writes no result)."""
    if started.poll() is None:
        os.killpg(started.pid, signal.SIGTERM)
    started.wait()


def built(folder: Path) -> subprocess.CompletedProcess[str]:
    """The result of the site's build into ``folder`` (the site: ``folder/html``): waits while
    another process builds it, and builds it here where nobody did."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / RESULT).exists():
            _build_into(folder)
        recorded = json.loads((folder / RESULT).read_text(encoding="utf-8"))
        return subprocess.CompletedProcess(recorded["args"], recorded["returncode"], recorded["stdout"], recorded["stderr"])
    finally:
        os.close(lock)


def _build_into(folder: Path) -> None:
    """Build the site into ``folder`` afresh (what a build that died left is removed first) and
    write its result; the caller holds the folder's lock."""
    for part in ("html", "doctrees", "cache"):
        shutil.rmtree(folder / part, ignore_errors=True)
    try:
        done = build(folder / "html", folder / "doctrees", folder / "cache")
    except subprocess.TimeoutExpired as exc:
        done = subprocess.CompletedProcess(exc.cmd, -1, "", f"the build ran past {exc.timeout} s")
    shutil.rmtree(folder / "cache", ignore_errors=True)  # the build's own symgpu cache: no test reads it
    written = folder / (RESULT + ".part")
    written.write_text(json.dumps({"args": done.args, "returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}),
                       encoding="utf-8")
    written.replace(folder / RESULT)


def browser_command(*arguments: str) -> list[str]:
    """Headless Chromium with the flags a root user in a container needs."""
    executable = chromium()
    assert executable is not None
    return [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", *arguments]


def check_pages(pages: list[Path]) -> dict[Path, dict | str]:
    """Open a copy of each page (beside it, so its links resolve) with CHECK_SCRIPT added, in one
    headless Chromium, each as ``--dump-dom`` opens a page (a browser context of its own, a virtual
    time budget of 30 s); the script's result for each: images with whether each loaded, math
    elements, rendered ones and math errors; or, for a page whose script did not report, why."""
    probes = {page: page.with_name(page.stem + ".symgpu-check.html") for page in pages}
    for page, probe in probes.items():
        probe.write_text(page.read_text(encoding="utf-8").replace("</body>", CHECK_SCRIPT + "</body>"), encoding="utf-8")
    results: dict[Path, dict | str] = {}
    try:
        with chromium_pipe.Browser(browser_command()) as browser:
            for page, probe in probes.items():
                try:
                    found = browser.evaluate_after_budget(probe.as_uri(), RESULT_EXPRESSION, budget_ms=VIRTUAL_TIME_MS, timeout=180)
                except chromium_pipe.BrowserError as exc:
                    results[page] = f"{page}: the browser failed: {exc}"
                    continue
                results[page] = json.loads(found) if found is not None else f"{page}: the check script did not report"
    finally:
        for probe in probes.values():
            probe.unlink()
    return results


def screenshot(page: Path, png: Path, *, width: int = 1400, height: int = 2000) -> subprocess.CompletedProcess[str]:
    """A PNG of ``page`` as headless Chromium draws it."""
    return subprocess.run(browser_command(f"--virtual-time-budget={VIRTUAL_TIME_MS}", f"--window-size={width},{height}",
                                          f"--screenshot={png}", page.as_uri()),
                          capture_output=True, text=True, timeout=180)


class _Links(html.parser.HTMLParser):
    """Every ``href``/``src`` of a page, and every ``id`` it defines."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)
            if name == "id" and value:
                self.ids.add(value)


def broken_links(site: Path) -> list[str]:
    """Internal links of every built page that name no built file, or no ``id`` in the page they name."""
    # _static/ holds the theme's own files (a Jinja template among them), not pages of the site
    pages = {p: _parsed(p) for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts}
    broken = []
    for page, links in pages.items():
        for target in links.targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or target.startswith(("mailto:", "javascript:", "data:")):
                continue
            path = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not path.exists():
                broken.append(f"{page.relative_to(site)}: {target} (no such file)")
            elif parts.fragment and path.suffix == ".html" and path in pages and unquote(parts.fragment) not in pages[path].ids:
                broken.append(f"{page.relative_to(site)}: {target} (no such anchor)")
    return broken


def _parsed(page: Path) -> _Links:
    links = _Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


if __name__ == "__main__":  # the background build of start(): the folder's lock is held by the parent's copy, inherited
    _build_into(Path(sys.argv[1]))
