"""Write the hostile corpus (``tests/hostile/*.toml|txt``) and its README table.

Run ``python tests/hostile/make_corpus.py`` after editing an entry; the files are committed
so that the corpus can be read (and attacked by hand) without running anything.

Every file is :func:`base` (a small valid model: check, eval and report all succeed on it,
see ``tests/test_hostile_corpus.py``) with one attack put in. A payload, if it ever ran,
would create the file ``HOSTILE_CANARY`` in the working folder.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
CANARY = "HOSTILE_CANARY"

PAYLOADS = {
    "import": f"__import__('os').system('touch {CANARY}')",
    "open": f"open('{CANARY}', 'w').write('x')",
    "lambda": f"(lambda: __import__('os').system('touch {CANARY}'))()",
    "dunder": "P_peak.__class__.__mro__[-1].__subclasses__()",
    "eval": f"eval(\"__import__('os').system('touch {CANARY}')\")",
    "exec": f"exec('import os; os.system(\"touch {CANARY}\")')",
    "comprehension": "[c for c in ().__class__.__base__.__subclasses__()]",
    "jinja": f"{{{{ cycler.__init__.__globals__.os.popen('touch {CANARY}') }}}}",
    "shell": f"$(touch {CANARY})",
    "format": "{0.__class__.__init__.__globals__}",
}

DEFAULTS = {
    "rhs": "Min(P_peak, I*B)", "limiter": "P_peak", "valid_when": "I > 0", "when": "I > 5", "case_value": "P_peak",
    "unit_B": "B/s", "const": "32 thread/warp", "peak": "100 TFLOP/s", "bw": "2 TB/s", "inp": "10",
    "expect": "20 TFLOP/s", "plot_range": "1:20", "counts": None, "extends": None, "extra": "", "symbols_extra": "",
    "preset_id": "toy", "model_id": None, "plot_id": "p", "marks": None,
}


def toml(value: object) -> str:
    """A TOML value: JSON's string escapes are TOML's; floats keep nan/inf spellings."""
    if isinstance(value, float):
        return {float("inf"): "inf", float("-inf"): "-inf"}.get(value, "nan" if value != value else repr(value))
    return json.dumps(value)


def base(stem: str, **changes: object) -> str:
    """The valid base model with ``changes`` applied to its fields (see :data:`DEFAULTS`)."""
    f = {**DEFAULTS, **changes}
    model_id = f["model_id"] if f["model_id"] is not None else stem
    extends = f"extends = {toml(f['extends'])}\n" if f["extends"] is not None else ""
    counts = f"counts = [{toml(f['counts'])}]\n" if f["counts"] is not None else ""
    marks = f"marks = [{{ axis = \"x\", expression = {toml(f['marks'])} }}]\n" if f["marks"] is not None else ""
    preset = toml(f["preset_id"])
    return f'''schema_version = 1

[model]
id = {toml(model_id)}
title = "Hostile corpus: {stem}"
summary = "A small roofline with one attack put in (tests/hostile/README.md)."
references = ["toy2026"]
{extends}
[references.toy2026]
authors = ["A. Author"]
title = "A toy"
venue = "tests"
year = 2026

[symbols.P]
description = "attainable throughput"
unit = "FLOP/s"
role = "output"

[symbols.Q]
description = "throughput by regime"
unit = "FLOP/s"
role = "intermediate"

[symbols.P_peak]
description = "peak throughput"
unit = "FLOP/s"
assumptions = ["positive"]

[symbols.B]
description = "bandwidth"
unit = {toml(f["unit_B"])}
assumptions = ["positive"]

[symbols.I]
description = "intensity"
unit = "FLOP/B"
assumptions = ["positive"]

[symbols.w]
description = "threads per warp"
unit = "thread/warp"
role = "constant"
value = {toml(f["const"])}
{f["symbols_extra"]}
[[equations]]
id = "attainable"
defines = "P"
rhs = {toml(f["rhs"])}
limiters = {{ compute = {toml(f["limiter"])}, memory = "I*B" }}
valid_when = [{toml(f["valid_when"])}]
source = {{ ref = "toy2026", locator = "Eq. (1)" }}
{counts}
[[equations]]
id = "mode"
defines = "Q"
source = {{ ref = "toy2026", locator = "Eq. (2)" }}
cases = [
    {{ id = "compute", when = {toml(f["when"])}, value = {toml(f["case_value"])} }},
    {{ id = "memory", when = "otherwise", value = "I*B" }},
]

[presets.{preset}]
description = "round numbers"
source = {{ ref = "toy2026", locator = "Table 1" }}

[presets.{preset}.values]
P_peak = {toml(f["peak"])}
B = {toml(f["bw"])}

[[validation]]
id = "c1"
preset = {preset}
inputs = {{ I = {toml(f["inp"])} }}
expect = {{ P = {toml(f["expect"])} }}
source = {{ ref = "toy2026", locator = "Table 2" }}

[[plots]]
id = {toml(f["plot_id"])}
kind = "curve"
quantity = "P"
variables = ["I"]
ranges = {{ I = {toml(f["plot_range"])} }}
{marks}{f["extra"]}'''


Entry = tuple[str, str, str, str, Callable[[str], "str | bytes"]]
#: (file, what it attacks, key the messages must name, eval: "fails" (every command refuses the file) or UNREAD, text)
#: eval of P answers: the attack is in a part P does not read (the mode equation's cases, a validation case), which a
#: question's model never parses (it builds only what it reads); check and report, which read every part, refuse it
UNREAD = "answers"
ENTRIES: list[Entry] = []


def entry(name: str, attack: str, key: str, make: Callable[[str], "str | bytes"], eval_: str = "fails") -> None:
    ENTRIES.append((name, attack, key, eval_, make))


def _corpus() -> None:
    p = PAYLOADS
    for kind in ("import", "open", "lambda", "dunder", "eval", "comprehension"):
        entry(f"rhs_{kind}.toml", f"code payload ({kind}) in an equation rhs", "equation attainable.rhs", lambda s, k=kind: base(s, rhs=p[k]))
    entry("case_when_payload.toml", "payload in a piecewise case condition", "equation mode case compute.when", lambda s: base(s, when=p["import"]), UNREAD)
    entry("case_value_payload.toml", "payload (exec) in a piecewise case value", "equation mode case compute.value", lambda s: base(s, case_value=p["exec"]), UNREAD)
    entry("valid_when_payload.toml", "payload in valid_when", "equation attainable.valid_when", lambda s: base(s, valid_when=p["open"]))
    entry("limiter_payload.toml", "payload in a limiter", "equation attainable.limiters.compute", lambda s: base(s, limiter=p["import"]))
    entry("unit_payload.toml", "payload in a unit string", "[symbols.B].unit", lambda s: base(s, unit_B=p["import"]))
    entry("unit_jinja.toml", "template-injection payload in a unit string", "[symbols.B].unit", lambda s: base(s, unit_B=p["jinja"]))
    entry("constant_payload.toml", "payload in a constant's value", "[symbols.w].value", lambda s: base(s, const=p["import"]))
    entry("preset_value_payload.toml", "payload in a preset value (pint would evaluate it)", "[presets.toy].values.P_peak", lambda s: base(s, peak=p["import"]))
    entry("preset_value_shell.toml", "shell substitution in a preset value", "[presets.toy].values.P_peak", lambda s: base(s, peak=p["shell"]))
    entry("preset_value_format.toml", "format-string payload in a preset value", "[presets.toy].values.P_peak", lambda s: base(s, peak=p["format"]))
    entry("validation_input_payload.toml", "payload in a validation input", "validation c1.inputs.I", lambda s: base(s, inp=p["open"]), UNREAD)
    entry("validation_expect_payload.toml", "payload in a validation expectation", "validation c1.expect.P", lambda s: base(s, expect=p["exec"]), UNREAD)
    entry("extends_payload.toml", "payload in extends", "[model].extends", lambda s: base(s, extends=p["import"]))
    entry("based_on_payload.toml", "payload in a preset's based_on", "[presets.b].based_on",
          lambda s: base(s, extra=f'\n[presets.b]\ndescription = "b"\nsource = "toy"\nbased_on = {toml(p["import"])}\n'))
    entry("counts_payload.toml", "payload in an equation's counts", "equation attainable.counts", lambda s: base(s, counts=p["import"]))
    entry("derivation_payload.toml", "payload in a derivation's quantity", "derivation d1.quantity",
          lambda s: base(s, extra=f'\n[[derivations]]\nid = "d1"\nop = "limit"\nvariable = "I"\nquantity = {toml(p["lambda"])}\n'))
    entry("plot_range_payload.toml", "payload in a plot range", "plot p.ranges.I", lambda s: base(s, plot_range=p["import"]))
    entry("plot_mark_payload.toml", "payload in a plot mark expression", "plot p.marks[0].expression", lambda s: base(s, marks=p["lambda"]))
    # malformed files
    entry("toml_unterminated.toml", "unterminated string", "invalid TOML", lambda s: base(s).replace('rhs = "Min(P_peak, I*B)"', 'rhs = "Min(P_peak, I*B)'))
    entry("toml_duplicate_table.toml", "a table defined twice", "invalid TOML", lambda s: base(s) + '\n[symbols.P]\ndescription = "again"\nunit = "1"\n')
    entry("binary_random.toml", "random binary bytes", "not UTF-8", lambda s: b"\xff\xfe\x00" + random.Random(12).randbytes(2000))
    entry("binary_nul.txt", "a raw NUL byte inside the text", "invalid TOML", lambda s: base(s).replace('title = "A toy"', 'title = "A\x00toy"').encode())
    entry("utf16.toml", "the model saved as UTF-16", "not UTF-8", lambda s: base(s).encode("utf-16"))
    entry("empty.toml", "an empty file", "top level", lambda s: "")
    entry("toml_deep_arrays.toml", "arrays nested 5000 deep (parser recursion)", "nested too deeply", lambda s: base(s) + "\n[junk]\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    entry("toml_huge_integer.toml", "a 5000-digit TOML integer", "invalid TOML", lambda s: base(s).replace("schema_version = 1", "schema_version = " + "1" * 5000))
    entry("wrong_types.toml", "schema_version as a string", "top level.schema_version", lambda s: base(s).replace("schema_version = 1", 'schema_version = "1"'))
    # cycles
    entry("extends_self.toml", "a variant that extends itself", "[model].extends", lambda s: base(s, extends=s))
    entry("extends_cycle_a.toml", "two variants extending each other (a)", "[model].extends", lambda s: base(s, extends="extends_cycle_b"))
    entry("extends_cycle_b.toml", "two variants extending each other (b)", "[model].extends", lambda s: base(s, extends="extends_cycle_a"))
    entry("preset_cycle.toml", "presets inheriting in a cycle", "based_on",
          lambda s: base(s, extra='\n[presets.a]\ndescription = "a"\nsource = "toy"\nbased_on = "b"\n\n[presets.b]\ndescription = "b"\nsource = "toy"\nbased_on = "a"\n'))
    entry("equation_cycle.toml", "two equations defining each other", "equation", lambda s: base(s, rhs="Min(P_peak, I*B, Q)", case_value="P"))
    # traversal
    entry("extends_traversal.toml", "extends = \"../outside/evil\"", "[model].extends", lambda s: base(s, extends="../outside/evil"))
    entry("extends_absolute.toml", "extends an absolute path", "[model].extends", lambda s: base(s, extends="/etc/passwd"))
    entry("preset_id_traversal.toml", "a preset id that would name ../../ report files", "[presets.../../evil]", lambda s: base(s, preset_id="../../evil"))
    entry("plot_id_traversal.toml", "a plot id that would name ../ report files", "plots[0].id", lambda s: base(s, plot_id="../x"))
    entry("model_id_dots.toml", "a model id with path characters", "[model].id", lambda s: base(s, model_id="../evil"))
    # huge numbers and units
    entry("quantity_power_tower.toml", "10**10**10 in a preset quantity (hung pint)", "[presets.toy].values.P_peak", lambda s: base(s, peak="10**10**10 TFLOP/s"))
    entry("quantity_tetration.toml", "2**2**2**2**30 in a preset quantity (MemoryError)", "[presets.toy].values.P_peak", lambda s: base(s, peak="2**2**2**2**30 TFLOP/s"))
    entry("quantity_1e999.toml", "1e999 in a preset quantity", "[presets.toy].values.P_peak", lambda s: base(s, peak="1e999 TFLOP/s"))
    entry("rhs_5000_digits.toml", "a 5000-digit literal", "equation attainable.rhs", lambda s: base(s, rhs="P_peak*" + "7" * 5000))
    entry("rhs_ceiling_exp.toml", "ceiling(exp(10**30)) (exact evaluation would not end)", "equation attainable.rhs", lambda s: base(s, rhs="Min(P_peak, I*B) + 0*P_peak*ceiling(exp(10**30))"))
    entry("rhs_power_chain.toml", "((10**30)**64)**64", "equation attainable.rhs", lambda s: base(s, rhs="P_peak*((10**30)**64)**64"))
    entry("unit_huge_power.toml", "a unit power of 99999", "[symbols.B].unit", lambda s: base(s, unit_B="B/s**99999"))
    entry("unit_long.toml", "a 400-character unit", "[symbols.B].unit", lambda s: base(s, unit_B="B/" + "s*" * 200 + "s"))
    entry("unit_nested_parens.toml", "a unit in 10 nested parentheses", "[symbols.B].unit", lambda s: base(s, unit_B="((((((((((B))))))))))/s"))
    entry("unit_pint_choke.toml", "a unit pint's tokenizer chokes on", "[symbols.B].unit", lambda s: base(s, unit_B="B/s)"))
    # NaN, infinities, signs
    entry("preset_nan.toml", "TOML nan for a positive symbol", "[presets.toy].values.P_peak", lambda s: base(s, peak=float("nan")))
    entry("preset_inf.toml", "\"inf TFLOP/s\" for a positive symbol", "[presets.toy].values.P_peak", lambda s: base(s, peak="inf TFLOP/s"))
    entry("preset_minus_inf.toml", "TOML -inf for a positive symbol", "[presets.toy].values.P_peak", lambda s: base(s, peak=float("-inf")))
    entry("preset_zero.toml", "zero for a positive symbol", "[presets.toy].values.P_peak", lambda s: base(s, peak="0 TFLOP/s"))
    entry("preset_negative.toml", "a negative value for a positive symbol", "[presets.toy].values.P_peak", lambda s: base(s, peak="-1 TFLOP/s"))
    entry("validation_nan_input.toml", "TOML nan as a validation input", "validation c1.inputs.I", lambda s: base(s, inp=float("nan")), UNREAD)
    entry("constant_nan.toml", "NaN as a constant's value", "[symbols.w].value", lambda s: base(s, const="nan thread/warp"))
    # identifiers
    entry("homoglyph_symbol.toml", "a second symbol 'fl\\u043eps' (Cyrillic o)", "[symbols.fl\\u043eps]",
          lambda s: base(s, symbols_extra='\n[symbols."fl\u043eps"]\ndescription = "look-alike"\nunit = "FLOP/s"\n'))
    entry("homoglyph_expression.toml", "a Cyrillic a inside P_peak in an rhs", "equation attainable.rhs", lambda s: base(s, rhs="Min(P_pe\u0430k, I*B)"))
    entry("bidi_override.toml", "a right-to-left override character in an rhs", "equation attainable.rhs", lambda s: base(s, rhs="Min(P_peak, I*B)\u202e"))
    # long expressions
    entry("rhs_nested_parens.toml", "5000 nested parentheses", "equation attainable.rhs", lambda s: base(s, rhs="(" * 5000 + "P_peak" + ")" * 5000))
    entry("rhs_flat_sum.toml", "a flat 1100-term sum", "equation attainable.rhs", lambda s: base(s, rhs="+".join(["P_peak"] * 1100)))
    entry("rhs_nested_calls.toml", "Min nested 150 deep", "equation attainable.rhs", lambda s: base(s, rhs="Min(" * 150 + "P_peak" + ")" * 150))
    entry("rhs_too_long.toml", "a 25,000-character expression", "equation attainable.rhs", lambda s: base(s, rhs="P_peak" + " " * 25000))


def main() -> None:
    """Write every corpus file and the README table."""
    _corpus()
    for old in list(HERE.glob("*.toml")) + list(HERE.glob("*.txt")):
        old.unlink()
    rows = []
    for name, attack, key, eval_, make in ENTRIES:
        text = make(name.rsplit(".", 1)[0])
        (HERE / name).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        rows.append(f"| `{name}` | {attack} | `{key}` | {eval_} |")
    readme = HERE / "README.md"
    head = readme.read_text(encoding="utf-8").split("<!-- table -->")[0] if readme.exists() else "# Hostile corpus\n\n"
    table = "| file | attack | key named in every message | eval |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"
    readme.write_text(f"{head}<!-- table -->\n{table}", encoding="utf-8")
    print(f"{len(rows)} files written to {HERE}")


if __name__ == "__main__":
    main()
