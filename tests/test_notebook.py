"""The example notebook runs from top to bottom, and its answers render as LaTeX/HTML (a
derivation per seed model, an evaluated array, one plot). Skips cleanly without nbclient,
nbformat and ipykernel, or where a kernel cannot start."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
kernelspec = pytest.importorskip("jupyter_client.kernelspec")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "questions.ipynb"
SEED_MODELS = ("interval_analysis", "volkov_2016", "hong_kim_2009", "mdm_2019", "perez_piccoli")


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # the kernel is a child process: it imports this checkout's symgpu
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), before]))
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError:
        raise
    except (kernelspec.NoSuchKernel, RuntimeError, TimeoutError, OSError) as exc:  # no kernelspec, no sockets
        pytest.skip(f"a Jupyter kernel could not start: {exc}")
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before
    return notebook


def outputs(notebook):
    return [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]


def test_notebook_runs_without_errors(executed):
    assert not [out for out in outputs(executed) if out.output_type == "error"]
    assert all(cell.execution_count for cell in executed.cells if cell.cell_type == "code")


def test_one_derivation_per_seed_model_renders_in_latex(executed):
    latex = [out.data["text/latex"] for out in outputs(executed) if "text/latex" in out.get("data", {})]
    for model in SEED_MODELS:
        escaped = model.replace("_", r"\_")
        assert any(rf"({escaped})}}" in text and r"\begin{aligned}" in text for text in latex), model


def test_model_renders_as_an_html_table(executed):
    html = [out.data["text/html"] for out in outputs(executed) if "text/html" in out.get("data", {})]
    assert any("<table>" in text and "<code>interval_analysis</code>" in text for text in html)


def test_evaluated_array_renders_its_elements(executed):
    latex = [out.data["text/latex"] for out in outputs(executed) if "text/latex" in out.get("data", {})]
    assert any(text.startswith(r"$\begin{bmatrix} ") and text.endswith(r"\ \mathrm{thread}$") for text in latex)


def test_notebook_draws_one_plot(executed):
    assert sum("image/png" in out.get("data", {}) for out in outputs(executed)) == 1
