"""The documentation site builds with warnings as errors (a failing notebook cell, a command example
that stopped working, a broken reference fail it), and holds what it promises: a catalog page per
bundled model generated from equations/, each command's help, the executed notebook, the API.
Skips cleanly where the docs extra is not installed (the build: the ``docs_site`` fixture)."""

from __future__ import annotations

import re
from pathlib import Path

from symgpu.model import loader


def text(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


def test_site_builds_with_warnings_as_errors(docs_site):
    assert (docs_site / "index.html").is_file()


def test_catalog_has_a_page_per_bundled_model_with_equations_presets_and_validation(docs_site):
    for model_id in loader.list_models(loader.equations_dir()):
        page = text(docs_site, f"catalog/{model_id}.html")
        model = loader.read_definition(loader.find(model_id, loader.equations_dir()))
        for equation in model.equations:
            assert f'id="{equation.id.lower().replace("_", "-")}"' in page or equation.id in page, (model_id, equation.id)
        assert page.count('class="math notranslate nohighlight"') >= len(model.equations), model_id
        for preset in model.presets:
            assert preset.id in page, (model_id, preset.id)
        if model.validation:
            assert "Validation cases" in page and "reproduced" in page, model_id
            assert "❌" not in page, f"{model_id}: a validation case fails on its catalog page"


def test_every_command_page_shows_its_generated_help(docs_site):
    from symgpu.cli import app

    pages = "".join(text(docs_site, p) for p in (f"commands/{f.name}" for f in (docs_site / "commands").glob("*.html")))
    for command in app.COMMANDS:
        assert f"usage: symgpu {command}" in pages, command


def test_notebook_is_executed_at_build_time_with_rendered_outputs(docs_site):
    page = text(docs_site, "notebooks/questions.html")
    assert page.count('class="cell_output') >= 8
    assert re.search(r'<img [^>]*src="\.\./_images/[^"]+\.png"', page), "the notebook's plot is missing"
    assert "symgpu-quantity" in page, "an evaluated value does not show as symgpu's rounded LaTeX"


def test_api_reference_is_generated_from_docstrings(docs_site):
    page = text(docs_site, "api.html")
    for name in ("symgpu.api.load", "symgpu.api.Model.evaluate", "symgpu.api.Model.solve", "symgpu.validation.validate"):
        assert f'id="{name}"' in page, name
