"""The committed reports/ match what the current engine renders: the Markdown, LaTeX and JSON
text byte for byte, every plot the report names exists, and the figure book (figure_digests.txt)
records the inputs the engine draws each figure from now, so `symgpu report --all` on a fresh
checkout keeps every figure (draws none) and leaves the tree unchanged. Every model must load: one
that does not fails here too (its report could not be current)."""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
import pytest

import symgpu
from symgpu import errors
from symgpu.report import figure_digests, render

HINT = "reports/ is out of date: rerun the main job `symgpu check && symgpu report --all` and commit reports/"


def _render(model_id: str) -> dict[str, bytes] | str:
    """Render one model's report in memory as `report --all` does (figures whose inputs are those its
    committed book records are kept, not drawn), or the reason the model does not load."""
    try:
        model = symgpu.load(model_id)
    except errors.SymgpuError as exc:
        return str(exc)
    book = figure_digests.Book.read(render.REPORTS / model_id)
    return render.render_report(model, formats=tuple(render.FORMATS), figures=book).files


@pytest.fixture(scope="module")
def rendered() -> dict[str, dict[str, bytes] | str]:
    # NOTE: models render in parallel processes: the symbolic derivations dominate the time.
    ids = symgpu.list_models()
    workers = max(1, min(len(ids), os.cpu_count() or 1))
    if workers == 1:
        return {model_id: _render(model_id) for model_id in ids}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return dict(zip(ids, pool.map(_render, ids)))


@pytest.mark.parametrize("model_id", symgpu.list_models())
def test_committed_report_text_is_current_and_its_plots_exist(model_id: str, rendered: dict[str, dict[str, bytes] | str]) -> None:
    folder = render.REPORTS / model_id
    assert folder.is_dir(), f"{folder} is missing; {HINT}"
    files = rendered[model_id]
    assert not isinstance(files, str), f"{model_id} does not load, so its report cannot be current: {files}"
    for suffix in (".md", ".tex", ".json"):
        name = f"{model_id}{suffix}"
        committed = folder / name
        assert committed.is_file(), f"{committed} is missing; {HINT}"
        if committed.read_bytes() != files[name]:
            old = committed.read_text(encoding="utf-8").splitlines()
            new = files[name].decode("utf-8").splitlines()
            first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
            pytest.fail(f"{committed} differs from the rendered report from line {first + 1}:\n"
                        f"  committed: {old[first] if first < len(old) else '<end>'}\n"
                        f"  rendered:  {new[first] if first < len(new) else '<end>'}\n{HINT}")
    for plot in json.loads(files[f"{model_id}.json"])["plots"]:
        for name in plot["files"].values():
            assert (folder / name).is_file(), f"plot {name} is missing from {folder}; {HINT}"
    book = folder / figure_digests.SIDECAR
    if figure_digests.SIDECAR in files:
        committed_book = figure_digests.parse(book.read_bytes()) if book.is_file() else {}
        stale = sorted(name for name, entry in figure_digests.parse(files[figure_digests.SIDECAR]).items()
                       if committed_book.get(name) != entry)
        assert not stale, f"{book}: figures drawn from other inputs than its book records ({', '.join(stale)}); {HINT}"
    else:
        assert not book.exists(), f"{book}: the report has no figures now; {HINT}"
