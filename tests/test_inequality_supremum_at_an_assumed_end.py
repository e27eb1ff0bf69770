"""The largest admissible value of an inequality whose set runs up to an open end of the domain is that
end, approached, not "no admissible value" (an outside tester's finding: ``memory_latency >= 400`` over
theta at Kepler with ``--assume 'c - theta > 0'`` was refused, the assumption put in at theta = c).

By hand, Volkov's §6.4 latency at Kepler: ``a + b*theta/(c - theta)`` with ``a = 300`` cycles, ``b = 32``
cycles, ``c = 170 GB/s``: >= 400 exactly for ``17000/132 <= theta < 170`` (valid_when ``theta < c``), so
the supremum is 170 GB/s, approached."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu


@pytest.mark.parametrize("relation", [">=", ">"])
def test_the_largest_theta_is_the_domains_open_end_approached(cli, relation: str) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("volkov_2016")
    kepler = model.preset("kepler")
    assert (kepler["a"].to("cycle").magnitude, kepler["b"].to("cycle").magnitude, kepler["c"].to("GB/s").magnitude) == (300, 32, 170)
    thetas = np.linspace(17000 / 132 + 1e-6, 170 - 1e-6, 20_001)
    latency = np.array([float(model.evaluate("memory_latency", "kepler", values={"theta": f"{t} GB/s"}).to("cycle").magnitude)
                        for t in thetas[::500]])
    assert (latency > 400).all()  # brute force: the relation holds up to the open end theta < c = 170 GB/s
    code, out, err = cli("--no-cache", "solve", "volkov_2016", "memory_latency", "--for", "theta", "--target", "400", "--relation", relation,
                         "--kind", "max", "-p", "kepler", "--assume", "c - theta > 0")
    assert code == 0, err
    assert "value: 170 GB/s" in out and "approached, not attained" in out
    assert "valid when True" not in out


def test_the_denominators_sign_comes_from_the_quantitys_valid_when(cli) -> None:  # type: ignore[no-untyped-def]
    # c - theta > 0 wherever the model gives memory_latency a value (valid_when theta < c): 300 + 32*theta/(170 - theta) <= 400
    # <=> 32*theta <= 100*(170 - theta) <=> theta <= 17000/132 = 128.7878788 GB/s
    model = symgpu.load("volkov_2016")
    below, above = (float(model.evaluate("memory_latency", "kepler", values={"theta": f"{t} GB/s"}).to("cycle").magnitude)
                    for t in (17000 / 132 - 1e-3, 17000 / 132 + 1e-3))
    assert below < 400 < above
    code, out, err = cli("--no-cache", "solve", "volkov_2016", "memory_latency", "--for", "theta", "--target", "400", "--relation", "<=",
                         "-p", "kepler")
    assert code == 0, err
    assert f"value: theta <= {17000 / 132:.10g} GB/s" in out
    code, out, err = cli("--no-cache", "solve", "volkov_2016", "memory_latency", "--for", "theta", "--target", "400", "--relation", ">=",
                         "--kind", "max", "-p", "kepler")
    assert code == 0, err
    assert "value: 170 GB/s" in out and "approached, not attained" in out
