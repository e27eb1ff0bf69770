"""Generated models for the differential tester (``benchmarks/differential.py --generated N``): small,
valid model files no one has written yet, drawn deterministically from a seed, each with a reference
evaluator of its own.

A model has 2-6 equations chaining quantities (a later equation reads an earlier quantity), inputs in
scaled units of symgpu's registry (us, ns, kcycle, KiB, MiB, GiB, GB/s, GiB/s, MHz, warp/SM,
thread/warp, per-SM units composed from them), bare literals beside scaled units (in sums, Min/Max,
comparisons and case tables), named Min/Max limiters, case tables and ``Piecewise`` with conditions,
``ceiling``/``floor`` of ratios, ``valid_when`` domains, powers and square roots, and two presets
whose values are written in other scales of their dimension. Each is dimensionally sound by
construction: every expression is built for a dimension (a vector over the base dimensions), a sum,
Min/Max or Piecewise only of terms of one dimension, and a bare literal only beside siblings that
share one unit scale (the literal rule of ``equations/README.md``).

The reference (:meth:`GeneratedModel.reference`) is the generator's own arithmetic: plain Python
floats in base units (s, cycle, B, warp, thread, SM), each unit's scale typed in here from its
definition (``KiB`` is 1024 B, ``MHz`` 1e6 cycle/s), no pint, no SymPy, no symgpu. It gives every
quantity's value and regime (the limiter or case that holds) at any input values, NaN outside a
``valid_when`` domain, and is what ``differential_generated`` holds ``Model.evaluate`` (the brute-force
oracle's only source of numbers) to before any question is judged.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: the base dimensions a generated model uses (each a unit of scale 1 below)
BASE = ("time", "clock", "information", "warp", "thread", "SM")
Dim = tuple[int, ...]
#: per base dimension: (unit text, its size in the base unit)
SCALES: dict[str, tuple[tuple[str, float], ...]] = {
    "time": (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)),
    "clock": (("cycle", 1.0), ("kcycle", 1e3)),
    "information": (("B", 1.0), ("KiB", 1024.0), ("MiB", 1024.0 ** 2), ("GiB", 1024.0 ** 3), ("kB", 1e3), ("MB", 1e6), ("GB", 1e9)),
    "warp": (("warp", 1.0),),
    "thread": (("thread", 1.0),),
    "SM": (("SM", 1.0),),
}


def dim(**exponents: int) -> Dim:
    return tuple(exponents.get(b, 0) for b in BASE)


def add(a: Dim, b: Dim, sign: int = 1) -> Dim:
    return tuple(x + sign * y for x, y in zip(a, b))


NONE = dim()
TIME, CLOCK, INFO = dim(time=1), dim(clock=1), dim(information=1)
BANDWIDTH, FREQUENCY = dim(information=1, time=-1), dim(clock=1, time=-1)
#: units written as one name (``GB/s``), besides those composed base by base
NAMED: dict[Dim, tuple[tuple[str, float], ...]] = {
    BANDWIDTH: (("GB/s", 1e9), ("GiB/s", 1024.0 ** 3), ("MB/s", 1e6), ("TB/s", 1e12)),
    FREQUENCY: (("MHz", 1e6), ("GHz", 1e9)),
}
#: the dimensions inputs and quantities are drawn from
POOL: tuple[Dim, ...] = (TIME, CLOCK, INFO, BANDWIDTH, FREQUENCY, dim(warp=1, SM=-1), dim(thread=1, warp=-1),
                         dim(information=1, SM=-1), dim(information=1, clock=-1), dim(thread=1), NONE)
#: the dimensions a quantity defined by an equation takes
TARGETS: tuple[Dim, ...] = (TIME, TIME, CLOCK, INFO, BANDWIDTH, dim(warp=1, SM=-1), NONE)
PREFIX = {TIME: "t", CLOCK: "c", INFO: "b", BANDWIDTH: "bw", FREQUENCY: "f", dim(warp=1, SM=-1): "w",
          dim(thread=1, warp=-1): "tpw", dim(information=1, SM=-1): "bsm", dim(information=1, clock=-1): "bpc",
          dim(thread=1): "th", NONE: "r"}


def unit_for(d: Dim, rng: random.Random) -> tuple[str, float]:
    """A unit of dimension ``d`` (a named one where there is one, mostly) and its scale."""
    if d == NONE:
        return "1", 1.0
    if d in NAMED and rng.random() < 0.8:
        return rng.choice(NAMED[d])
    num, den, scale = [], [], 1.0
    for base, e in zip(BASE, d):
        if e:
            text, s = rng.choice(SCALES[base])
            (num if e > 0 else den).append(text if abs(e) == 1 else f"{text}**{abs(e)}")
            scale *= s ** e
    return ("*".join(num) or "1") + "".join(f"/{t}" for t in den), scale


def nice(x: float) -> float:
    """``x`` to two significant digits (a number a user would type)."""
    if x == 0 or not math.isfinite(x):
        return x
    digits = 1 - int(math.floor(math.log10(abs(x))))
    return float(round(x, digits))


def number(x: float) -> str:
    """``x`` as the file writes it (no exponent where short)."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


Env = Mapping[str, float]


@dataclass(frozen=True)
class Node:
    """An expression: its text, its value in base units, its dimension and its unit's scale (None:
    its terms differ in scale, so no bare literal may sit beside it)."""

    text: str
    value: Callable[[Env], float]
    dim: Dim
    scale: float | None
    names: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Symbol:
    name: str
    unit: str
    scale: float
    dim: Dim
    role: str
    assumptions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Equation:
    """One equation: its TOML lines, the value and regime of what it defines, and its domain."""

    defines: str
    lines: tuple[str, ...]
    value: Callable[[Env], float]
    regime: Callable[[Env], str | None]
    domain: Callable[[Env], bool]
    regimes: tuple[str, ...]
    #: the relative gap between the binding Min/Max argument and the next (inf where there is none)
    gap: Callable[[Env], float] = lambda env: math.inf
    #: the symbols the equation reads (a quantity among them with no value, outside its domain, leaves this one none)
    reads: frozenset[str] = frozenset()


@dataclass(frozen=True)
class GeneratedModel:
    """A generated model file and its reference evaluator."""

    id: str
    text: str
    symbols: tuple[Symbol, ...]
    equations: tuple[Equation, ...]
    presets: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]  # preset id -> input base values (merged)

    def symbol(self, name: str) -> Symbol:
        return next(s for s in self.symbols if s.name == name)

    def reference(self, inputs: Env) -> dict[str, tuple[float, str | None]]:
        """Every quantity's value (base units; NaN outside a domain on the way) and regime at ``inputs``
        (base units)."""
        env = dict(inputs)
        out: dict[str, tuple[float, str | None]] = {}
        for eq in self.equations:
            try:
                if any(isinstance(env.get(r), float) and math.isnan(env[r]) for r in eq.reads):
                    raise ValueError("a quantity it reads has no value")
                inside = eq.domain(env)
                value = eq.value(env) if inside else math.nan
                regime = eq.regime(env) if inside else None
            except (ZeroDivisionError, ValueError, OverflowError):
                value, regime = math.nan, None
            env[eq.defines] = value
            out[eq.defines] = (value, regime)
        return out

    def decided(self, inputs: Env) -> tuple[dict[str, tuple[float, str | None]], bool]:
        """:meth:`reference` and whether it met no near tie (a case condition or a whole part within ``TIE`` of
        switching, which floats cannot decide: such a point is not compared)."""
        _TIES[0] = 0
        out = self.reference(inputs)
        return out, _TIES[0] == 0

    def write(self, folder: Path) -> Path:
        (path := folder / f"{self.id}.toml").write_text(self.text, encoding="utf-8")
        return path


@dataclass
class _Builder:
    """The state of one model while it is drawn."""

    rng: random.Random
    symbols: dict[str, Symbol] = field(default_factory=dict)
    base_values: dict[str, float] = field(default_factory=dict)
    quantities: list[str] = field(default_factory=list)
    #: each quantity's value (base units) at the first preset's values
    values: dict[str, float] = field(default_factory=dict)

    def new_input(self, d: Dim, *, nonnegative: bool = False) -> Node:
        rng = self.rng
        prefix = PREFIX.get(d, "u")
        name = f"{prefix}{sum(s.name.rstrip('0123456789') == prefix for s in self.symbols.values())}"
        unit, scale = unit_for(d, rng)
        integer = d == dim(warp=1, SM=-1) and unit == "warp/SM" and rng.random() < 0.3
        declared = float(rng.randint(1, 64)) if integer else nice(10 ** rng.uniform(-0.5, 2.5))
        assumptions = ("nonnegative",) if nonnegative and not integer else ("positive",)
        self.symbols[name] = Symbol(name, unit, scale, d, "input", assumptions + (("integer",) if integer else ()))
        self.base_values[name] = declared * scale
        return self.atom_of(name)

    def atom_of(self, name: str) -> Node:
        s = self.symbols[name]
        return Node(name, lambda env, n=name: env[n], s.dim, s.scale, frozenset({name}))

    def atom(self, d: Dim, *, quantity_first: bool = False, nonnegative: bool = False, besides: Node | None = None) -> Node:
        """A symbol of dimension ``d`` (an earlier quantity, an input, or a new input), none of ``besides``'s."""
        taken = besides.names if besides is not None else frozenset()
        quantities = [q for q in self.quantities if self.symbols[q].dim == d and q not in taken]
        if quantities and (quantity_first or self.rng.random() < 0.4):
            return self.atom_of(self.rng.choice(quantities))
        inputs = [s.name for s in self.symbols.values() if s.role == "input" and s.dim == d and s.name not in taken]
        if inputs and self.rng.random() < 0.5:
            return self.atom_of(self.rng.choice(inputs))
        return self.new_input(d, nonnegative=nonnegative)

    def term(self, d: Dim, depth: int) -> Node:
        """An expression of dimension ``d``."""
        rng = self.rng
        r = rng.random()
        if depth <= 0 or r < 0.3:
            return self.atom(d)
        if r < 0.7:
            e = rng.choice(POOL)
            if rng.random() < 0.5 and max(map(abs, add(d, e, -1))) <= 2:  # d = e * (d/e)
                a, b = self.term(e, depth - 1), self.term(add(d, e, -1), depth - 1)
                return _product(a, b, 1)
            if max(map(abs, add(e, d, -1))) <= 2:  # d = e / (e/d)
                a, b = self.term(e, depth - 1), self.term(add(e, d, -1), depth - 1)
                return _product(a, b, -1)
            return self.atom(d)
        if r < 0.8:
            a = self.atom(d)
            k = rng.choice((2, 4, 3, 0.5, 1.5, 8))
            if rng.random() < 0.5:
                return Node(f"{number(k)}*{a.text}", lambda env, a=a, k=k: k * a.value(env), d, a.scale, a.names)
            return Node(f"{a.text}/{number(k)}", lambda env, a=a, k=k: a.value(env) / k, d, a.scale, a.names)
        if r < 0.88:  # sqrt(a*b), a and b of one dimension
            a = self.atom(d)
            b = self.atom(d, besides=a)
            scale = math.sqrt(a.scale * b.scale) if a.scale and b.scale else None
            return Node(f"sqrt({a.text}*{b.text})", lambda env, a=a, b=b: math.sqrt(a.value(env) * b.value(env)), d, scale,
                        a.names | b.names)
        if r < 0.94:  # (a/b)**2*c: a ratio squared
            e = rng.choice(POOL[:5])
            a = self.atom(e)
            b, c = self.atom(e, besides=a), self.atom(d)
            p = rng.choice((2, 3))
            scale = (a.scale / b.scale) ** p * c.scale if a.scale and b.scale and c.scale else None
            return Node(f"({a.text}/{b.text})**{p}*{c.text}", lambda env, a=a, b=b, c=c, p=p: _divide(a.value(env), b.value(env)) ** p * c.value(env),
                        d, scale, a.names | b.names | c.names)
        # ceiling/floor of a ratio times a term: whole steps
        e = rng.choice(POOL[:5])
        a = self.atom(e)
        b, c = self.atom(e, besides=a), self.atom(d)
        fn = rng.choice(("ceiling", "floor"))
        whole = _ceiling if fn == "ceiling" else _floor
        return Node(f"{fn}({a.text}/{b.text})*{c.text}",
                    lambda env, a=a, b=b, c=c, w=whole: w(_divide(a.value(env), b.value(env))) * c.value(env), d, None, a.names | b.names | c.names)

    def literal(self, beside: Node, around: float) -> Node:
        """A bare literal beside ``beside`` (whose unit scale it takes), near ``around`` (base units)."""
        assert beside.scale is not None
        k = nice(around / beside.scale) if math.isfinite(around) and around else 1.0
        return Node(number(k), lambda env, v=k * beside.scale: v, beside.dim, beside.scale)

    def at_preset(self, node: Node) -> float:
        """``node``'s value (base units) at the first preset's values."""
        try:
            return node.value({**self.base_values, **self.values})
        except (ZeroDivisionError, ValueError, OverflowError):
            return math.nan

    def condition(self, d: Dim) -> tuple[str, Callable[[Env], bool]]:
        """A condition comparing an atom of dimension ``d`` with a literal (its unit) or another term."""
        a = self.atom(d, quantity_first=True)
        op = self.rng.choice(("<", "<=", ">", ">="))
        b = self.term(d, 1)
        if self.rng.random() < 0.7 and a.scale is not None or b.names & a.names:
            # a threshold at least 5 % away from the value at the preset: no case decided by a tie there
            factor = self.rng.choice((self.rng.uniform(0.4, 0.9), self.rng.uniform(1.1, 2.5)))
            b = self.literal(a, self.at_preset(a) * factor) if a.scale is not None else self.atom(d, besides=a)
        return f"{a.text} {op} {b.text}", lambda env, a=a, b=b, op=op: _compare(op, float(a.value(env)), float(b.value(env)))

    def equation(self, index: int, d: Dim, name: str) -> Equation:
        rng = self.rng
        form = rng.choice(("plain", "sum", "limiter", "limiter", "cases", "piecewise"))
        first = self.atom(d, quantity_first=True) if self.quantities and rng.random() < 0.8 else self.term(d, 2)
        lines: list[str] = []
        regimes: tuple[str, ...] = ()
        regime: Callable[[Env], str | None] = lambda env: None
        gap: Callable[[Env], float] = lambda env: math.inf
        if form == "plain":
            other = self.term(add(NONE, NONE), 1) if d != NONE and rng.random() < 0.3 else None
            node = first if other is None else _product(first, other, rng.choice((1, -1)))
            value, rhs = node.value, node.text
        elif form == "sum":
            second = self.term(d, 2)
            parts = [first, second if second.names != first.names else self.atom(d, besides=first)]
            if rng.random() < 0.3:
                parts.append(self.atom(d, nonnegative=True, besides=Node("", lambda env: 0.0, d, None, parts[0].names | parts[1].names)))
            scales = {p.scale for p in parts}
            if len(scales) == 1 and None not in scales and rng.random() < 0.7:
                parts.append(self.literal(parts[0], abs(self.at_preset(parts[0])) * rng.uniform(0.1, 2)))
            signs = [1] + [rng.choice((1, 1, -1)) for _ in parts[1:]]
            rhs = parts[0].text + "".join(f" {'+' if s > 0 else '-'} {p.text}" for s, p in zip(signs[1:], parts[1:]))
            value = lambda env, ps=tuple(parts), ss=tuple(signs): sum(s * p.value(env) for s, p in zip(ss, ps))
        elif form == "limiter":
            args = [first]
            for _ in range(2 if rng.random() < 0.3 else 1):  # arguments sharing no symbol: none provably dominates another
                arg = self.term(d, 2)
                if any(arg.names & a.names for a in args):
                    arg = self.atom(d, besides=Node("", lambda env: 0.0, d, None, frozenset().union(*(a.names for a in args))))
                if not any(arg.names & a.names for a in args):
                    args.append(arg)
            if first.scale is not None and all(a.scale == first.scale for a in args) and (len(args) < 2 or rng.random() < 0.4):
                args.append(self.literal(first, abs(self.at_preset(first)) * rng.uniform(0.3, 3)))
            elif len(args) < 2:
                args.append(self.new_input(d))
            pick = rng.choice((min, max))
            names = tuple(f"{name}_{k}" for k in "abcd"[:len(args)])
            rhs = f"{'Min' if pick is min else 'Max'}({', '.join(a.text for a in args)})"
            lines.append("limiters = { " + ", ".join(f'{n} = "{a.text}"' for n, a in zip(names, args)) + " }")
            value = lambda env, az=tuple(args), p=pick: _extreme(p, [a.value(env) for a in az])

            def binding(env: Env, az: tuple[Node, ...] = tuple(args), p: Callable = pick, ns: tuple[str, ...] = names) -> str | None:
                vals = [a.value(env) for a in az]
                best = p(vals)
                return ns[vals.index(best)]

            def second(env: Env, az: tuple[Node, ...] = tuple(args)) -> float:
                vals = sorted(a.value(env) for a in az)
                ends = vals[:2] if pick is min else vals[-2:]
                return abs(ends[1] - ends[0]) / max(abs(ends[0]), abs(ends[1]), 1e-300)
            regime, gap, regimes = binding, second, names
        else:
            n = rng.choice((2, 2, 3))
            conds = [self.condition(rng.choice((d, d, rng.choice(POOL[:5])))) for _ in range(n - 1)]
            values = [first] + [self.term(d, 1) for _ in range(n - 1)]
            if values[0].scale is not None and all(v.scale == values[0].scale for v in values) and rng.random() < 0.5:
                values[-1] = self.literal(values[0], abs(self.at_preset(values[0])) * rng.uniform(0.3, 3))
            names = tuple(f"{name}_{k}" for k in "abc"[:n])

            def pick_case(env: Env, cs: tuple = tuple(conds)) -> int:
                return next((i for i, (_, c) in enumerate(cs) if c(env)), len(cs))
            value = lambda env, vs=tuple(values), f=pick_case: vs[f(env)].value(env)
            if form == "cases":
                lines.append("cases = [\n" + "".join(f'  {{ id = "{nm}", when = "{c[0]}", value = "{v.text}" }},\n'
                                                     for nm, c, v in zip(names, conds, values))
                             + f'  {{ id = "{names[-1]}", when = "otherwise", value = "{values[-1].text}" }},\n]')
                regime = lambda env, f=pick_case, ns=names: ns[f(env)]
                regimes = names
                rhs = ""
            else:
                rhs = "Piecewise(" + ", ".join(f"({v.text}, {c[0]})" for c, v in zip(conds, values)) + f", ({values[-1].text}, True))"
        domain: Callable[[Env], bool] = lambda env: True
        if rng.random() < 0.3:
            text, holds = self.condition(rng.choice(POOL[:5]))
            if holds({**self.base_values, **self.values}):
                lines.append(f'valid_when = ["{text}"]')
                domain = holds
        head = [f'id = "eq_{name}"', f'defines = "{name}"'] + ([f'rhs = "{rhs}"'] if rhs else [])
        written = " ".join(head[2:] + lines)
        reads = frozenset(n for n in re.findall(r"[A-Za-z_]\w*", written) if n in self.symbols)
        return Equation(name, tuple(head + lines + [f'source = {{ ref = "gen", locator = "{index + 1}" }}']), value, regime, domain, regimes, gap,
                        reads)


#: how close (relative) two values must be to count as equal: symgpu decides a case condition or a whole part at a tie
#: in exact arithmetic (``evaluate.ties``), where the reference's floats may fall either side
TIE = 1e-12


#: how many near ties the reference met since it was last reset (:meth:`GeneratedModel.decided`)
_TIES = [0]


def _near(a: float, b: float) -> bool:
    near = abs(a - b) <= TIE * max(abs(a), abs(b))
    _TIES[0] += near
    return near


def _compare(op: str, a: float, b: float) -> bool:
    if _near(a, b):
        return "=" in op
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _floor(x: float) -> int:
    return round(x) if _near(x, round(x)) else math.floor(x)


def _ceiling(x: float) -> int:
    return round(x) if _near(x, round(x)) else math.ceil(x)


def _extreme(pick: Callable, values: list[float]) -> float:
    """Min or Max of ``values``, NaN where one is NaN (Python's ``min`` would skip it by comparison order)."""
    return math.nan if any(math.isnan(v) for v in values) else float(pick(values))


def _product(a: Node, b: Node, sign: int) -> Node:
    """``a*b`` (sign 1) or ``a/b`` (sign -1)."""
    scale = a.scale * b.scale ** sign if a.scale is not None and b.scale is not None else None
    d = add(a.dim, b.dim, sign)
    if sign > 0:
        return Node(f"({a.text})*({b.text})", lambda env, a=a, b=b: a.value(env) * b.value(env), d, scale, a.names | b.names)
    pole = "floor(" in b.text or "ceiling(" in b.text
    return Node(f"({a.text})/({b.text})", lambda env, a=a, b=b, p=pole: _divide(a.value(env), b.value(env), p), d, scale, a.names | b.names)


def _divide(a: float, b: float, pole: bool = False) -> float:
    """``a/b`` as the evaluate path gives it: a nonzero number over an input at 0 is an infinity of its sign (a
    nonnegative input at 0 makes a Min/Max argument infinite, and the other argument binds: the one-sided value);
    over a whole part that is 0 (``pole``: ``x/floor(b0/b1)`` with b0 < b1) no value, as 0/0 has none."""
    if b == 0:
        return math.copysign(math.inf, a) * math.copysign(1.0, b) if a != 0 and not math.isnan(a) and not pole else math.nan
    return a / b


def generate(seed: int, index: int) -> GeneratedModel:
    """Model ``index`` of ``seed``: redrawn (deterministically) until every quantity is finite at both presets."""
    rng = random.Random(f"differential-model-{seed}-{index}")
    for _ in range(200):
        model = _draw(rng, f"gen_{seed}_{index}")
        if model is not None:
            return model
    raise RuntimeError(f"no finite model drawn for seed {seed}, index {index}")


def _draw(rng: random.Random, model_id: str) -> GeneratedModel | None:
    b = _Builder(rng)
    equations: list[Equation] = []
    for k in range(rng.randint(2, 6)):
        name = f"q{k}"
        d = rng.choice(TARGETS) if k == 0 or rng.random() < 0.5 else b.symbols[rng.choice(b.quantities)].dim
        eq = b.equation(k, d, name)
        unit, scale = unit_for(d, rng)
        b.symbols[name] = Symbol(name, unit, scale, d, "intermediate")
        env = {**b.base_values, **b.values}
        try:
            value = eq.value(env) if eq.domain(env) else math.nan
        except (ZeroDivisionError, ValueError, OverflowError):
            return None
        if not math.isfinite(value) or value == 0 or abs(value) > 1e30:
            return None
        b.values[name] = value
        b.quantities.append(name)
        equations.append(eq)
    last = b.symbols[b.quantities[-1]]
    b.symbols[last.name] = Symbol(last.name, last.unit, last.scale, last.dim, "output")
    inputs = [s for s in b.symbols.values() if s.role == "input"]
    p0 = {s.name: b.base_values[s.name] for s in inputs}
    p1 = dict(p0)
    for s in inputs:
        if rng.random() < 0.5:
            p1[s.name] = (float(rng.randint(1, 64)) if "integer" in s.assumptions else nice(p0[s.name] / s.scale * rng.uniform(0.3, 3))) * s.scale
    model = GeneratedModel(model_id, "", tuple(b.symbols.values()), tuple(equations),
                           (("p0", tuple(sorted(p0.items()))), ("p1", tuple(sorted(p1.items())))))
    for _, values in model.presets:
        if not all(math.isfinite(v) and v != 0 for v, _ in model.reference(dict(values)).values()):
            return None
    text, presets = _text(model_id, model, rng)
    return GeneratedModel(model_id, text, model.symbols, model.equations, presets)


def _text(model_id: str, model: GeneratedModel, rng: random.Random) -> tuple[str, tuple[tuple[str, tuple[tuple[str, float], ...]], ...]]:
    """The model file's text, and the presets' values as written (12 significant digits in the unit each is written in)."""
    out = [f'schema_version = 1\n\n[model]\nid = "{model_id}"\ntitle = "Generated model {model_id}"\n'
           'summary = "Drawn by tests/differential_models.py for the differential tester."\nreferences = ["gen"]\n\n'
           '[references.gen]\nauthors = ["generator"]\ntitle = "generated"\nvenue = "tests"\nyear = 2026\n']
    for s in model.symbols:
        out.append(f'\n[symbols.{s.name}]\ndescription = "{s.role} {s.name}"\nunit = "{s.unit}"\n'
                   + (f'role = "{s.role}"\n' if s.role != "input" else "")
                   + (f"assumptions = [{', '.join(repr(a).replace(chr(39), chr(34)) for a in s.assumptions)}]\n" if s.assumptions else ""))
    for eq in model.equations:
        out.append("\n[[equations]]\n" + "\n".join(eq.lines) + "\n")
    base = dict(model.presets[0][1])
    presets = []
    for preset, values in model.presets:
        written = dict(presets[0][1]) if presets else {}
        out.append(f'\n[presets.{preset}]\ndescription = "values {preset}"\nsource = {{ ref = "gen", locator = "{preset}" }}\n'
                   + ('based_on = "p0"\n' if preset != "p0" else "") + f"[presets.{preset}.values]\n")
        for name, v in values:
            if preset != "p0" and v == base[name]:
                continue
            s = model.symbol(name)
            unit, scale = (s.unit, s.scale) if "integer" in s.assumptions or rng.random() < 0.4 else unit_for(s.dim, rng)
            magnitude = float(f"{v / scale:.12g}")
            written[name] = magnitude * scale
            out.append(f'{name} = "{number(magnitude)} {unit}"\n' if unit != "1" else f'{name} = "{number(magnitude)}"\n')
        presets.append((preset, tuple(sorted(written.items()))))
    return "".join(out), tuple(presets)
