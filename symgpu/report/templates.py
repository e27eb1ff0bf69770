"""The Jinja2 environments (Markdown, and LaTeX with LaTeX-safe delimiters) and template rendering with located errors."""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
import jinja2
from symgpu import errors
from symgpu import resources
if TYPE_CHECKING:
    pass
from symgpu.report.latex import md_escape, md_math, md_text, md_url, tex_escape, tex_math


#: The bundled templates (``templates/`` next to the ``symgpu`` package).
TEMPLATES = resources.bundled("templates")


def make_environment(fmt: str, templates: str | os.PathLike[str] | None = None) -> jinja2.Environment:
    """Build the Jinja2 environment for one report format.

    LaTeX templates use LaTeX-safe delimiters (``((( var )))``, ``((* block *))``,
    ``((# comment #))``), since ``{{``/``}}`` collide with TeX groups; Markdown templates use
    Jinja2's defaults. Both use ``StrictUndefined`` (a missing field is an error, never an
    empty string), no autoescaping (prose is escaped explicitly with the ``tex_escape`` /
    ``md`` (table cells) / ``md_text`` (paragraphs) filters) and ``trim_blocks``/``lstrip_blocks``/``keep_trailing_newline``.

    Args:
        fmt: ``md`` or ``tex``.
        templates: a folder whose templates override the bundled ones (same file names).

    Returns:
        The configured environment.
    """
    folders = [str(templates)] if templates else []
    folders.append(str(TEMPLATES))
    options: dict[str, Any] = {
        "loader": jinja2.FileSystemLoader(folders),
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
    env = jinja2.Environment(**options)
    env.filters["tex_escape"] = tex_escape
    env.filters["tex_math"] = tex_math
    env.filters["md"] = md_escape
    env.filters["md_text"] = md_text
    env.filters["md_url"] = md_url
    env.filters["md_math"] = md_math
    env.filters["tojson"] = lambda value: json.dumps(value, sort_keys=True, ensure_ascii=False)
    return env


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


def _template_frame(exc: BaseException) -> str:
    """``file:line`` of the innermost template frame of a rendering error ("" if none)."""
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.endswith(".j2") or frame.filename.endswith((".md", ".tex")):
            found = f"{frame.filename}, line {frame.lineno}"
    return found
