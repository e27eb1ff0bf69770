"""The Jinja2 environments (Markdown, and LaTeX with LaTeX-safe delimiters) and template rendering with located errors."""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
import jinja2
import jinja2.sandbox
from symgpu import errors, resources, textfiles
from symgpu.memo import memoised
if TYPE_CHECKING:
    pass
from symgpu.report.latex import md_escape, md_math, md_text, md_url, tex_escape, tex_math


#: The bundled templates (``templates/`` next to the ``symgpu`` package).
TEMPLATES = resources.bundled("templates")

#: The longest string or list a user template may build with ``*`` and the largest exponent of ``**``.
MAX_PRODUCT_LENGTH = 1_000_000
MAX_EXPONENT = 64
#: The largest template file read (the largest bundled template is a few KiB).
MAX_TEMPLATE_BYTES = 1 << 20


class BoundedLoader(jinja2.FileSystemLoader):
    """Jinja2's file loader, reading each template as an untrusted file.

    NOTE: ``FileSystemLoader`` reads a template whole, whatever it is (``/dev/zero`` never
    ends), and skips a name that is not a regular file for the next folder's template of that
    name. Here the first folder that has the name wins, and what is there must be a regular
    file of at most :data:`MAX_TEMPLATE_BYTES` (opened without blocking: a named pipe is refused
    at once), else a one-line :class:`errors.UsageError` names it.
    """

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Any]:
        pieces = jinja2.loaders.split_template_path(template)
        for folder in self.searchpath:
            filename = os.path.join(folder, *pieces)
            if os.path.lexists(filename):
                break
        else:
            raise jinja2.TemplateNotFound(template)
        raw = textfiles.read_bounded(filename, limit=MAX_TEMPLATE_BYTES, what="template text",
                                     hint=f"a template is text of at most {MAX_TEMPLATE_BYTES} bytes")
        try:
            contents = raw.decode(self.encoding)
        except UnicodeDecodeError as exc:
            raise errors.UsageError(f"{filename}: template is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
        mtime = os.path.getmtime(filename)

        def uptodate() -> bool:
            try:
                return os.path.getmtime(filename) == mtime
            except OSError:
                return False

        return contents, os.path.normpath(filename), uptodate


class UserTemplateEnvironment(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """Jinja2's immutable sandbox for templates from outside the package (``--templates``).

    NOTE: a user template is untrusted: the sandbox refuses attribute access to internals
    (``__globals__``, ``__subclasses__``, ...) and mutation of the context; ``*`` and ``**``
    are bounded here too, since ``'a' * 10**12`` would exhaust memory inside the sandbox.
    """

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        """``*`` and ``**`` with their results bounded; the rest as the sandbox does them."""
        if operator == "**" and isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
            raise jinja2.sandbox.SecurityError(f"exponent {right!r} is over the limit of {MAX_EXPONENT}")
        if operator == "*":
            for seq, count in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(count, int) and len(seq) * count > MAX_PRODUCT_LENGTH:
                    raise jinja2.sandbox.SecurityError(f"a repeated sequence over {MAX_PRODUCT_LENGTH} items")
        return super().call_binop(context, operator, left, right)


def make_environment(fmt: str, templates: str | os.PathLike[str] | None = None) -> jinja2.Environment:
    """Build the Jinja2 environment for one report format.

    LaTeX templates use LaTeX-safe delimiters (``((( var )))``, ``((* block *))``,
    ``((# comment #))``), since ``{{``/``}}`` collide with TeX groups; Markdown templates use
    Jinja2's defaults. Both use ``StrictUndefined`` (a missing field is an error, never an
    empty string), no autoescaping (prose is escaped explicitly with the ``tex_escape`` /
    ``md`` (table cells) / ``md_text`` (paragraphs) filters) and ``trim_blocks``/``lstrip_blocks``/``keep_trailing_newline``.

    With a ``templates`` folder, every template renders in :class:`UserTemplateEnvironment`
    (Jinja2's immutable sandbox): a template from outside the package cannot reach Python.

    Args:
        fmt: ``md`` or ``tex``.
        templates: a folder whose templates override the bundled ones (same file names).

    Returns:
        The configured environment.
    """
    folders = [str(templates)] if templates else []
    folders.append(str(TEMPLATES))
    options: dict[str, Any] = {
        "loader": BoundedLoader(folders),
        "undefined": jinja2.StrictUndefined,
        "autoescape": False,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "keep_trailing_newline": True,
    }
    if fmt == "tex":
        options.update(
            block_start_string="((*", block_end_string="*))",
            variable_start_string="(((", variable_end_string=")))",
            comment_start_string="((#", comment_end_string="#))",
            line_statement_prefix=None, line_comment_prefix=None,
        )
    env = UserTemplateEnvironment(**options) if templates else jinja2.Environment(**options)
    env.filters["tex_escape"] = tex_escape
    env.filters["tex_math"] = tex_math
    env.filters["md"] = md_escape
    env.filters["md_text"] = md_text
    env.filters["md_url"] = md_url
    env.filters["md_math"] = md_math
    env.filters["tojson"] = lambda value: json.dumps(value, sort_keys=True, ensure_ascii=False)
    return env


@memoised("report.templates.shared_environment", 8)
def shared_environment(fmt: str, templates: str | None = None) -> jinja2.Environment:
    """:func:`make_environment`, one per format and template folder in a process, so that each
    template is compiled once, not once per report (Jinja2 keeps the compiled templates and
    compiles a template file again when its modification time changes)."""
    return make_environment(fmt, templates)


def render_template(env: jinja2.Environment, name: str, context: Mapping[str, Any]) -> str:
    """Render template ``name`` with ``context``.

    Raises:
        errors.UsageError: the template is missing, malformed, or uses a field the context
            does not have (the message names the template file and the field).
    """
    try:
        template = env.get_template(name)
    except jinja2.TemplateNotFound as exc:
        raise errors.UsageError(f"template {exc.name!r} not found (searched {', '.join(env.loader.searchpath)})") from None  # type: ignore[union-attr]
    except jinja2.TemplateSyntaxError as exc:
        raise errors.UsageError(f"template {exc.filename or name}, line {exc.lineno}: {exc.message}") from None
    try:
        return template.render(**context)
    except jinja2.UndefinedError as exc:
        where = _template_frame(exc) or (template.filename or name)
        raise errors.UsageError(f"template {where}: undefined field: {exc.message}; "
                                f"the report context has no such field (see the JSON report for the available fields)") from None
    except jinja2.sandbox.SecurityError as exc:
        where = _template_frame(exc) or (template.filename or name)
        raise errors.UsageError(f"template {where}: refused by the template sandbox: {_one_line(str(exc))}; "
                                f"templates from --templates may only read the report context") from None
    except Exception as exc:  # noqa: BLE001 - a user template's own error (1/0, a bad filter argument) is bad input
        if not isinstance(env, UserTemplateEnvironment):
            raise
        where = _template_frame(exc) or (template.filename or name)
        raise errors.UsageError(f"template {where}: {type(exc).__name__}: {_one_line(str(exc))}; correct the template") from None


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line of printable characters, cut to ``limit``."""
    flat = "".join(c if c.isprintable() else " " for c in text)
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _template_frame(exc: BaseException) -> str:
    """``file:line`` of the innermost template frame of a rendering error ("" if none)."""
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.endswith(".j2") or frame.filename.endswith((".md", ".tex")):
            found = f"{frame.filename}, line {frame.lineno}"
    return found
