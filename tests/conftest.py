"""Shared fixtures: bundled models and a tiny model written to a temporary folder."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import symgpu

REPO = Path(__file__).resolve().parent.parent
EQUATIONS = REPO / "equations"

TINY = '''\
schema_version = 1

[model]
id = "tiny"
title = "Tiny roofline"
summary = "Attainable throughput is the smaller of peak and bandwidth times intensity."
references = ["toy2026"]

[references.toy2026]
authors = ["A. Author"]
title = "A toy"
venue = "tests"
year = 2026

[symbols.P]
description = "attainable throughput"
unit = "FLOP/s"
role = "output"

[symbols.P_peak]
description = "peak throughput"
unit = "FLOP/s"
assumptions = ["positive"]

[symbols.B]
description = "bandwidth"
unit = "B/s"
assumptions = ["positive"]

[symbols.I]
description = "intensity"
unit = "FLOP/B"
assumptions = ["positive"]

[[equations]]
id = "attainable"
defines = "P"
rhs = "{rhs}"
source = {{ ref = "toy2026", locator = "Eq. (1)" }}
{extra_equation}
[presets.toy]
description = "round numbers"
source = {{ ref = "toy2026", locator = "Table 1" }}
[presets.toy.values]
P_peak = "{peak}"
B = "2 TB/s"
'''


@pytest.fixture(scope="session")
def ia() -> symgpu.Model:
    """The bundled interval-analysis model."""
    return symgpu.load("interval_analysis")


@pytest.fixture
def write_model(tmp_path: Path) -> Callable[..., Path]:
    """Write a variant of the tiny model (or raw text) to ``tmp_path/tiny.toml``."""

    def write(raw: str | None = None, *, rhs: str = "Min(P_peak, I*B)", peak: str = "100 TFLOP/s",
              extra_equation: str = "", name: str = "tiny") -> Path:
        text = raw if raw is not None else TINY.format(rhs=rhs, peak=peak, extra_equation=textwrap.dedent(extra_equation))
        path = tmp_path / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        return path

    return write
