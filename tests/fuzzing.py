"""Hypothesis strategies for fuzzing model files (used by test_fuzz_models.py and benchmarks/fuzz_models.py).

Two families of inputs:

* mutated bundled models: a bundled file read with ``tomllib``, then 1-3 random edits
  (a key deleted, a unit swapped, an expression replaced by a random tree, a value replaced
  by a random number or text, a leaf's type changed), written back as TOML;
* generated small models: a few symbols with random units and assumptions, equations with
  random expression trees, a preset with random values.

:func:`exercise` loads the text as a model file and uses it (build, plot checks, evaluation);
the property is that it either works or raises a :class:`symgpu.errors.SymgpuError`, the
errors the command line turns into one line and exit code 1 or 2.
"""

from __future__ import annotations

import copy
import json
import math
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

import symgpu
from symgpu import errors
from symgpu.model import loader

EQUATIONS = Path(__file__).resolve().parent.parent / "equations"
BUNDLED = {p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted(EQUATIONS.glob("*.toml"))}
UNITS = ("1", "cycle", "warp/SM", "GB/s", "winst/cycle/SM", "op/cycle/SM", "cycle*SM/winst", "thread/warp", "B", "B/thread",
         "GHz", "ns", "thread", "warp", "inst", "req/warp", "reg/thread", "FLOP/s", "FLOP/B", "B/s", "1/cycle", "KiB/block")
FUNCTIONS = ("Min", "Max", "sqrt", "ceiling", "floor", "log", "exp", "Abs")
ODD_TEXT = ("", " ", "nan", "inf", "-inf", "1e400", "10**10**10", "__import__('os')", "1/0", "()", "\x00", "Min()", "a.b",
            "\u043e", "9" * 60, "(" * 40, "P ==", "1 GB/s)", "s**s", "2**2**2**2**30")


def toml_text(data: dict[str, Any]) -> str:
    """Serialise a TOML document, every top-level key as one inline value."""
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in data.items())


def _key(key: str) -> str:
    return json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value).__name__)


def expressions(names: list[str]) -> st.SearchStrategy[str]:
    """Random expression texts over ``names`` (may be dimensionally or syntactically wrong)."""
    leaves = st.one_of(
        st.sampled_from(names or ["x"]),
        st.integers(-10**6, 10**6).map(str),
        st.floats(-1e6, 1e6, allow_nan=False).map(repr),
        st.sampled_from(ODD_TEXT[:12]),
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**", " < ", " >= "]), inner).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
            st.tuples(st.sampled_from(FUNCTIONS), inner).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(st.sampled_from(["Min", "Max"]), inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            inner.map(lambda t: f"-{t}"),
        )

    return st.recursive(leaves, extend, max_leaves=12)


def values(units: tuple[str, ...] = UNITS) -> st.SearchStrategy[Any]:
    """Random preset values: numbers, quantity strings, odd text, non-finite floats."""
    number = st.floats(allow_nan=True, allow_infinity=True)
    return st.one_of(
        number,
        st.integers(-10**30, 10**30),
        st.tuples(st.floats(-1e12, 1e12, allow_nan=False).map(repr), st.sampled_from(units)).map(" ".join),
        st.sampled_from(ODD_TEXT),
        st.text(max_size=20),
    )


@st.composite
def mutated_models(draw: st.DrawFn) -> tuple[str, str]:
    """``(model id, TOML text)``: a bundled model with 1-3 random edits."""
    model_id = draw(st.sampled_from(sorted(BUNDLED)))
    data = copy.deepcopy(BUNDLED[model_id])
    names = sorted(data.get("symbols", {}))
    for _ in range(draw(st.integers(1, 3))):
        leaves = list(_leaves(data))
        if not leaves:
            break
        container, key = leaves[draw(st.integers(0, len(leaves) - 1))]
        edit = draw(st.sampled_from(["delete", "unit", "expression", "value", "type", "text"]))
        if edit == "delete":
            del container[key]
        elif edit == "unit":
            symbol = data.get("symbols", {}).get(draw(st.sampled_from(names))) if names else None
            if isinstance(symbol, dict):
                symbol["unit"] = draw(st.one_of(st.sampled_from(UNITS), st.sampled_from(ODD_TEXT)))
        elif edit == "expression":
            container[key] = draw(expressions(names))
        elif edit == "value":
            container[key] = draw(values())
        elif edit == "type":
            container[key] = draw(st.sampled_from([[], {}, 1, 2.5, True, "x", ["a", 1]]))
        else:
            container[key] = draw(st.text(max_size=30))
    return model_id, toml_text(data)


def _leaves(data: Any) -> Any:
    """Yield ``(container, key)`` for every value inside ``data`` (tables and arrays, any depth)."""
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in list(items):
        yield data, key
        if isinstance(value, (dict, list)):
            yield from _leaves(value)


@st.composite
def generated_models(draw: st.DrawFn) -> tuple[str, str]:
    """``(model id, TOML text)``: a small random model."""
    inputs = [f"x{i}" for i in range(draw(st.integers(1, 4)))]
    outputs = [f"y{i}" for i in range(draw(st.integers(1, 3)))]
    shared = draw(st.sampled_from(UNITS))
    symbols: dict[str, Any] = {}
    for name in inputs + outputs:
        unit = shared if draw(st.booleans()) else draw(st.sampled_from(UNITS))
        symbols[name] = {"description": name, "unit": unit, "role": "output" if name in outputs else "input",
                         "assumptions": draw(st.lists(st.sampled_from(["positive", "nonnegative", "integer"]), max_size=2, unique=True))}
    equations = [{"id": f"e{i}", "defines": name, "rhs": draw(expressions(inputs + outputs[:i])),
                  "source": {"ref": "r", "locator": "Eq. 1"}} for i, name in enumerate(outputs)]
    preset_values = {name: draw(values((symbols[name]["unit"],) + UNITS[:3])) for name in inputs}
    data = {
        "schema_version": 1,
        "model": {"id": "fuzz", "title": "fuzz", "summary": "fuzz", "references": ["r"]},
        "references": {"r": {"authors": ["A"], "title": "t", "year": 2026}},
        "symbols": symbols,
        "equations": equations,
        "presets": {"p": {"description": "p", "source": "fuzz", "values": preset_values}},
    }
    return "fuzz", toml_text(data)


def exercise(folder: Path, model_id: str, text: str, *, evaluate: bool = False) -> str:
    """Load ``text`` as ``folder/<model_id>.toml`` and use it; return ``"ok"`` or the refusal's class name.

    Raises:
        Exception: anything that is not a :class:`symgpu.errors.SymgpuError` (a finding).
    """
    path = folder / f"{model_id}.toml"
    path.write_text(text, encoding="utf-8")
    try:
        model = symgpu.Model(loader.read_definition(path))
        if evaluate:
            for name in model.quantities:
                for preset in model.presets or [None]:
                    model.evaluate(name, preset=preset)
    except errors.SymgpuError as exc:
        str(exc)
        return type(exc).__name__
    return "ok"


__all__ = ["exercise", "expressions", "generated_models", "mutated_models", "symgpu", "toml_text", "values"]
