"""Command-line pages of the documentation: each command's ``--help`` and example runs, generated.

Two directives, so no command's options or output is copied into the pages by hand:

- ``symgpu-help COMMAND``: the argparse help of ``symgpu COMMAND``, as the parser prints it
  (``symgpu-help-top``: ``symgpu --help``);
- ``symgpu-run``: runs the command line in its content (``symgpu ...``) in this process through
  :func:`symgpu.cli.app.main`, from the checkout's root, and shows the command with its output.
  ``:in-temp:`` runs it in an empty temporary folder instead (a command that writes files).
  An exit code other than ``:exit:`` (default 0) is a build warning, so under ``-W`` a page whose
  example stopped working fails the build.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import tempfile
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from symgpu.cli import app as cli_app

LOGGER = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
#: help text width (argparse reads $COLUMNS)
WIDTH = "100"
#: output lines shown before the rest is elided
MAX_LINES = 60


def command_help(command: str) -> str:
    """The ``--help`` text of ``symgpu COMMAND``."""
    parser = cli_app._parser((cli_app.COMMANDS[command][0],))
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return action.choices[command].format_help()
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before


def run_command(line: str, *, in_temp: bool = False) -> tuple[int, str]:
    """Run ``symgpu ARGS`` in this process from the checkout's root (or, with ``in_temp``, from an
    empty temporary folder, for a command that writes files); (exit code, stdout + stderr)."""
    words = shlex.split(line)
    if words and words[0] == "symgpu":
        words = words[1:]
    out = io.StringIO()
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="symgpu-docs-") as scratch:
        os.chdir(scratch if in_temp else ROOT)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = cli_app.main(words)
        finally:
            os.chdir(here)
    return code, out.getvalue()


def elided(text: str) -> str:
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= MAX_LINES:
        return "\n".join(lines)
    return "\n".join(lines[:MAX_LINES] + [f"... ({len(lines) - MAX_LINES} more lines)"])


class HelpDirective(SphinxDirective):
    """``symgpu-help COMMAND``: the command's argparse help as a literal block."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        command = self.arguments[0]
        if command not in cli_app.COMMANDS:
            raise self.error(f"symgpu-help: unknown command {command!r}")
        block = nodes.literal_block(text=command_help(command).rstrip())
        block["language"] = "text"
        return [block]


class TopHelpDirective(SphinxDirective):
    """``symgpu-help-top``: ``symgpu --help``, the list of every command."""

    def run(self) -> list[nodes.Node]:
        before = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = WIDTH
        try:
            text = cli_app._parser(()).format_help()
        finally:
            if before is None:
                os.environ.pop("COLUMNS", None)
            else:
                os.environ["COLUMNS"] = before
        block = nodes.literal_block(text=text.rstrip())
        block["language"] = "text"
        return [block]


class RunDirective(SphinxDirective):
    """``symgpu-run``: run the command line in the content and show it with its output."""

    has_content = True
    option_spec = {"exit": directives.nonnegative_int, "in-temp": directives.flag}

    def run(self) -> list[nodes.Node]:
        line = " ".join(part.strip().rstrip("\\") for part in self.content if part.strip())
        expected = self.options.get("exit", 0)
        code, output = run_command(line, in_temp="in-temp" in self.options)
        if code != expected:
            LOGGER.warning("symgpu-run: %r exited %d, expected %d:\n%s", line, code, expected, output[-2000:],
                           location=(self.env.docname, self.lineno))
        shown = f"$ {line}\n{elided(output)}" + (f"\n(exit {code})" if code else "")
        block = nodes.literal_block(text=shown)
        block["language"] = "text"
        return [block]


def setup(app: Any) -> dict[str, Any]:
    """Sphinx extension: the ``symgpu-help`` and ``symgpu-run`` directives."""
    app.add_directive("symgpu-help", HelpDirective)
    app.add_directive("symgpu-help-top", TopHelpDirective)
    app.add_directive("symgpu-run", RunDirective)
    return {"parallel_read_safe": True, "version": "1"}
