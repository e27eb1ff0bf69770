"""The kernel worked example (``reports/kernel_example``): one kernel from source to resource usage
to occupancy to a model's prediction, rendered from the committed sample files in ``data/``.

Every number is computed when the report is rendered: the compiler output is parsed
(:mod:`symgpu.kernel.resources`), the occupancy model answers for the launch
(:mod:`symgpu.kernel.answer`), the Nsight Compute sample feeds the model through its metric
mapping (:mod:`symgpu.kernel.mapping`), and the model predicts. The templates
(``kernel_example.md.j2``, ``kernel_example.tex.j2``) only lay the values out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from symgpu import api, errors, resources, textfiles
from symgpu.kernel import occupancy
from symgpu.kernel import answer, mapping, ncu
from symgpu.kernel import resources as kernel_resources
from symgpu.report import templates

#: Output folder name under reports/.
FOLDER = "kernel_example"
#: Output formats -> template file.
TEMPLATES = {"md": "kernel_example.md.j2", "tex": "kernel_example.tex.j2"}


@dataclass(frozen=True)
class Example:
    """What the worked example shows: files (relative to the data root), kernel, launch, model."""

    source: str = "data/kernels/kernels.cu"
    usage: str = "data/kernels/resource_usage_kernels_sm90.txt"
    profile: str = "data/ncu/scale_h100_raw_synthetic.csv"
    kernel: str = "scale"
    threads: int = 256
    cc_preset: str = "cc_9_0"
    model: str = "volkov_2016"
    model_preset: str = "h100"


EXAMPLE = Example()


def sources(example: Example = EXAMPLE) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What the worked example reads besides the metric mappings (``equations/metrics/``): the
    ids of its models (each with its bases) and its data files (relative to the data root)."""
    return (example.model, occupancy.OCCUPANCY_MODEL), (example.source, example.usage, example.profile)


def kernel_source(text: str, name: str) -> str:
    """The definition of kernel ``name`` in CUDA source ``text``: from its ``__global__`` line to the
    first line that is a lone closing brace.

    Raises:
        errors.UsageError: no ``__global__`` function of that name.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "__global__" in line and f" {name}(" in line), None)
    if start is None:
        raise errors.UsageError(f"no __global__ function '{name}' in the example source")
    end = next((i for i in range(start, len(lines)) if lines[i].rstrip() == "}"), len(lines) - 1)
    return "\n".join(lines[start:end + 1])


def _q(value: Any, digits: int = 6) -> dict[str, Any]:
    """A quantity as JSON-ready text: value (``digits`` significant) and unit."""
    return {"value": f"{float(value.magnitude):.{digits}g}", "unit": f"{value.units:~}".strip()}


def build_context(example: Example = EXAMPLE) -> dict[str, Any]:
    """The template context of the worked example (JSON-ready values only).

    Raises:
        errors.UsageError: a sample file is missing or malformed, or names no such kernel.
    """
    root = resources.data_root()
    raw = textfiles.read_bounded(root / example.source, limit=1 << 20, what="CUDA source", hint="the example source is a small file")
    source = kernel_source(raw.decode("utf-8", errors="replace"), example.kernel)
    kernel = kernel_resources.select(kernel_resources.read(root / example.usage), example.kernel, example.cc_preset)
    occ = answer.answer(kernel, example.cc_preset, example.threads)
    model = api.load(example.model, whole=True)
    table = mapping.load(model)
    launch = ncu.select(ncu.read(root / example.profile), example.kernel, None)
    derived = mapping.derive(table, model, launch, example.cc_preset)
    predicted = model.evaluate(table.prediction, preset=example.model_preset, values={d.symbol: d.value for d in derived})
    compared = mapping.compare(table, launch, predicted, example.cc_preset)
    return {
        "example": {"source_file": example.source, "usage_file": example.usage, "profile_file": example.profile,
                    "kernel": example.kernel, "threads": example.threads, "cc_preset": example.cc_preset,
                    "model": example.model, "model_preset": example.model_preset,
                    "mapping_file": f"equations/metrics/{Path(table.path).name}"},
        "source": source,
        "resources": {"registers": kernel.registers, "shared_bytes": kernel.shared_bytes, "local_bytes": kernel.local_bytes,
                      "barriers": kernel.barriers, "arch": kernel.arch, "origin": kernel.origin.replace(str(root) + "/", "")},
        "occupancy": {"active_blocks": occ.active_blocks, "active_warps": occ.active_warps, "max_warps": occ.max_warps,
                      "percent": f"{100 * occ.occupancy:.1f}",
                      "limits": [{"name": l.name, "blocks": l.blocks, "case": l.case, "binding": l.binding} for l in occ.limits],
                      "best_block_sizes": list(occ.best_block_sizes), "best_warps": occ.best_warps},
        "inputs": [{"symbol": d.symbol, **_q(d.value), "expression": d.expression,
                    "metrics": [{"name": name, **_q(value)} for name, value in d.metrics]} for d in derived],
        "prediction": {"quantity": table.prediction, **_q(predicted)},
        "comparisons": [{"predicted_text": c.comparison.predicted_text, "measured_text": c.comparison.measured_text,
                         "unit": c.comparison.unit, "predicted": f"{float(c.predicted.magnitude):.6g}",
                         "measured": f"{float(c.measured.magnitude):.6g}", "ratio": f"{c.ratio:.3g}"} for c in compared],
    }


def render(formats: tuple[str, ...] = ("md", "tex"), example: Example = EXAMPLE) -> dict[str, bytes]:
    """The worked example as files in memory (file name -> bytes), deterministic.

    Raises:
        errors.UsageError: unknown format, or see :func:`build_context`.
    """
    unknown = [f for f in formats if f not in TEMPLATES and f != "json"]
    if unknown:
        raise errors.UsageError(f"kernel example: no template for format(s) {', '.join(unknown)} (formats: md, tex)")
    context = build_context(example)
    return {f"{FOLDER}.{fmt}": templates.render_template(templates.make_environment(fmt), TEMPLATES[fmt], context).encode("utf-8")
            for fmt in formats if fmt in TEMPLATES}
