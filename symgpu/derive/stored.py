"""Whole derivations kept in the on-disk cache (:mod:`symgpu.store`) between runs.

A derivation is written as JSON text whose expressions are expression text (``sstr``) read
back by the model's whitelist parser (:func:`symgpu.model.expressions.parse_expression`),
with sums, products and powers too long for one text written as their parts. Before an
entry is stored it is read back and compared with the derivation; one that does not come
back identical (a SymPy object the parser cannot write, a dummy symbol) is not stored.
Reading never executes or unpickles anything: a malformed, altered or unparsable entry is
ignored and the derivation recomputed.

Keys (:mod:`.request_keys`): the request or the operation's arguments, the parts of the model
it can read (the symbols, equations and presets reachable from the names it mentions), and the
engine (symgpu's source files; the store's folder is per symgpu and SymPy version). A variant
whose reachable part is its base's reads the base's derivations. Each entry also records the
regime-name lookups the derivation made (:mod:`.name_reads`); an entry whose lookups give other
names in the reading model is derived again. The entry's ``model`` field is the reading model's id.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy
from sympy.core.function import AppliedUndef

from symgpu import errors, store
from symgpu.memo import Memo
from symgpu.entry_kinds import DERIVATIONS
from symgpu.derive.derivation import Derivation, Step
from symgpu.derive.extras import Extras
from symgpu.derive import jobs, name_reads, regime_split, request_keys
from symgpu.derive.regime_split import Regime, _Cond
from symgpu.model import expressions, printing

if TYPE_CHECKING:
    from symgpu.model import Model

#: keys of the memo of :func:`dump` and :func:`load`: the shared entries (JSON) and their
#: expressions, in order (an entry refers only to earlier ones, so there are no cycles)
_SHARED, _REFS = object(), object()
#: characters of one expression text; longer expressions are written as (head, parts)
_TEXT_LENGTH = 4000
#: heads an expression is written as (head, parts) with, when its text does not read back
#: identically (the parser evaluates as it builds: ``4*(a + b)`` unexpanded, ``Eq`` kept...)
_SPLIT: dict[str, Any] = {c.__name__: c for c in (
    sympy.Add, sympy.Mul, sympy.Pow, sympy.Min, sympy.Max, sympy.Piecewise, sympy.Eq, sympy.Ne, sympy.StrictGreaterThan,
    sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan, sympy.And, sympy.Or, sympy.Not, sympy.floor, sympy.ceiling,
    sympy.Abs, sympy.log, sympy.exp, sympy.Derivative)}
#: parsed expression texts, shared by every entry written or read in this process (a model's
#: entries, and its variants', repeat the same conditions and sides): see :func:`_parsed`
_PARSED: Memo[tuple[Any, ...], sympy.Basic] = Memo("derive.stored.parsed", 20000)
#: whether an expression comes back from its parts (split or evaluated): see :func:`_rebuilds`
_REBUILT: Memo[tuple[Any, ...], bool] = Memo("derive.stored.rebuilt", 20000)
#: the names an expression text can look up (more than it does: exponents' ``e`` too)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Unstorable(Exception):
    """Internal: the value has a part the entry format cannot hold."""


def plain(value: Any) -> bool:
    """Is ``value`` plain data (text, numbers, None, and lists/tuples/dicts of them), so
    that its ``repr`` can be part of a key?"""
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    return False


def cached(model: Model, parts: tuple[Any, ...], compute: Callable[[], Derivation]) -> Derivation:
    """The derivation stored under ``parts`` (plain data) for ``model``, or ``compute()``'s,
    stored for next time."""
    if not store.enabled() or not plain(parts):
        return compute()
    key = request_keys.request_key(model, parts)
    body = store.get(DERIVATIONS, key)
    if body is not None:
        found = load_entry(model, body)
        if found is not None and _same_names(model, found[1]):
            name_reads.carry(found[1])  # the derivations that asked for this one read those names too
            return found[0]
    with name_reads.recording() as reads:
        derivation = compute()
    witness = reads.witness()
    name_reads.carry(witness)
    text = dump(model, derivation, witness)
    if text is not None:
        store.put(DERIVATIONS, key, text)
    return derivation


def _same_names(model: Model, witness: name_reads.Witness) -> bool:
    """Do the regime-name lookups recorded in ``witness`` give the same names in ``model``?"""
    tables = []
    for context, _ in witness:
        job = jobs._Job(model, "names", context.quantity)
        job.substitution = dict(context.substitution)
        try:
            tables.append((context, regime_split._names(job, frozenset(context.stop))))
        except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
            return False
    return name_reads.holds(witness, tables)


def regimes(model: Model, quantity: Any, *, over: str | None = None, substitute: Mapping[str, Any] | None = None,
            assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (), omit: Iterable[Any] = (),
            preset: str | None = None, values: Mapping[str, Any] | None = None) -> Derivation:
    """:func:`symgpu.derive.regime_split.regimes`, kept in the cache (the API's and the
    ``regimes`` command's entry point; ``regime_split`` itself cannot import this module)."""
    options: dict[str, Any] = {"over": over, "substitute": dict(substitute or {}), "assume": list(assume or ()),
                               "stop_at": list(stop_at), "omit": list(jobs._omit_pairs(omit)),
                               "preset": preset, "values": dict(values or {})}
    return cached(model, ("regimes", quantity, sorted(options.items())), lambda: regime_split.regimes(model, quantity, **options))


# ------------------------------------------------------------------ writing
def dump(model: Model, derivation: Derivation, witness: name_reads.Witness = ()) -> str | None:
    """The entry text of ``derivation`` and the regime-name lookups it made (``witness``), or
    None if it cannot be stored identically."""
    # expression -> its {"ref": index} entry: each expression is written once, in "shared"
    # (steps, regimes and conditions repeat expressions and subexpressions)
    memo: dict[Any, Any] = {_SHARED: [], _REFS: []}
    try:
        body = {
            "model": derivation.model, "operation": derivation.operation, "quantity": derivation.quantity,
            "variable": derivation.variable, "steps": _out(model, memo, derivation.steps), "result": _out(model, memo, derivation.result),
            "assumptions": list(derivation.assumptions), "location": _out(model, memo, derivation.location), "unit": derivation.unit,
            "method": derivation.method, "extra": _out(model, memo, derivation.extra.pairs()),
            "regimes": _out(model, memo, derivation.regimes),
            "names_read": [[c.quantity, list(c.stop), _out(model, memo, c.substitution), [[k, list(n), d] for k, n, d in classes]]
                           for c, classes in witness],
        }
        body["shared"] = memo[_SHARED]
        text = json.dumps(body, sort_keys=True, allow_nan=False)
    except (_Unstorable, ValueError, TypeError, RecursionError):
        return None
    # every shared expression was read back on its own as it was written (each entry built
    # from earlier ones already checked), so the whole entry is read back with those
    # expressions instead of parsing them all again
    found = load_entry(model, text, verified=memo[_REFS])
    # structural equality (types, argument order, symbols with their assumptions, floats'
    # precision): what ``to_dict`` and the reports print follows from it
    if found is None or found[0] != derivation or found[0].regimes != derivation.regimes or found[1] != witness:
        return None
    return text


def _out(model: Model, memo: dict[Any, Any], value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Step):
        return {"step": [value.operation, _out(model, memo, value.expression), value.justification]}
    if isinstance(value, Regime):
        return {"regime": [value.name, _out(model, memo, value.conditions), _out(model, memo, value.expression), list(value.terms),
                           _out(model, memo, value.raw), value.feasible]}
    if isinstance(value, _Cond):
        return {"cond": [_out(model, memo, value.h), value.strict, _out(model, memo, value.boolean)]}
    if isinstance(value, sympy.Basic):
        return _expr_out(model, memo, value)
    if isinstance(value, list):
        return {"list": [_out(model, memo, v) for v in value]}
    if isinstance(value, tuple):
        return {"tuple": [_out(model, memo, v) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": [[k, _out(model, memo, v)] for k, v in value.items()]}
    raise _Unstorable(type(value).__name__)


def _expr_out(model: Model, memo: dict[Any, Any], expr: sympy.Basic) -> Any:
    found = memo.get(expr)
    if found is not None:
        return found
    entry = _expr_entry(model, memo, expr)
    if "expr" not in entry and not _rebuilds(model, memo, entry, expr):  # text entries are read back already
        raise _Unstorable(f"expression {printing.brief(expr, 80)}")
    memo[_SHARED].append(entry)
    memo[_REFS].append(expr)
    memo[expr] = {"ref": len(memo[_REFS]) - 1}
    return memo[expr]


def _expr_entry(model: Model, memo: dict[Any, Any], expr: sympy.Basic) -> Any:
    if expr is sympy.true or expr is sympy.false:
        return {"truth": bool(expr)}
    if expr is sympy.nan:  # no text the parser reads (a 0/0 in a step: a pair's condition at the other's root)
        return {"nan": True}
    if isinstance(expr, sympy.Tuple):
        return {"stuple": [_out(model, memo, a) for a in expr.args]}
    if type(expr) is sympy.Symbol and expr.name not in model.symbols and expr.assumptions0 == {"commutative": True}:
        return {"label": expr.name}  # a plain name (a regime label such as ``no_registers+smem_limit``)
    if isinstance(expr, AppliedUndef):
        return {"call": [expr.func.__name__, [_out(model, memo, a) for a in expr.args]]}  # f(N) in d f(N)/dN = 0
    if isinstance(expr, sympy.Float):
        sign, mantissa, exponent, bits = expr._mpf_
        return {"float": [sign, str(mantissa), exponent, bits, expr._prec]}
    head = type(expr).__name__
    if isinstance(expr, sympy.Piecewise):  # (value, condition) pairs
        return {"split": [head, [{"stuple": [_out(model, memo, a) for a in pair.args]} for pair in expr.args]]}
    boolean = isinstance(expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction))
    if boolean and head in _SPLIT and expr.args:
        # conditions as their parts: regimes repeat the same sides and relations many times
        # over, and each part is then written (and read back) once
        split = _split_entry(model, memo, expr, head)
        if split is not None:
            return split
    # the symbols are checked where an expression is written as text: a split entry's parts
    # are each written (and checked) on their own, down to text, labels and numbers
    text = printing.sstr(expr)
    if len(text) <= _TEXT_LENGTH:
        entry = {"expr": text, "names": _other_names(model, expr), "boolean": boolean}
        try:
            same = _in(model, {_REFS: memo[_REFS]}, entry) == expr
        except (errors.SymgpuError, TypeError, ValueError):
            same = False
        if same:
            return entry
    split = _split_entry(model, memo, expr, head) if head in _SPLIT and expr.args else None
    if split is not None:
        return split
    raise _Unstorable(f"expression {printing.brief(expr, 80)}")


def _other_names(model: Model, expr: sympy.Basic) -> list[str]:
    """The names of ``expr``'s symbols that are not the model's (plain names such as regime
    labels), sorted; a symbol the entry format cannot hold is refused."""
    extra = []
    for symbol in expr.free_symbols:
        if model.symbols.get(symbol.name) == symbol:
            continue
        if type(symbol) is not sympy.Symbol or symbol.assumptions0 != {"commutative": True} or symbol.name in model.symbols:
            raise _Unstorable(f"symbol {symbol}")
        extra.append(symbol.name)
    return sorted(extra)


def _split_entry(model: Model, memo: dict[Any, Any], expr: sympy.Basic, head: str) -> Any:
    """``expr`` as (head, parts) if built from its parts it comes back identical, else None."""
    parts = [_out(model, memo, a) for a in expr.args]
    for tag in ("split", "evaluated"):  # built as written, or evaluated (logic: canonical order)
        entry = {tag: [head, parts]}
        if _rebuilds(model, memo, entry, expr):
            return entry
    return None


def _rebuilds(model: Model, memo: dict[Any, Any], entry: Any, expr: sympy.Basic) -> bool:
    """Does ``entry`` (not text) read back as ``expr``? Known once per process for an entry built
    from ``expr``'s own parts (``split``/``evaluated``: ``expr``'s head built from its arguments,
    written as references to them): the rebuilt expression then depends on ``expr`` and the tag alone."""
    (tag, _), = entry.items()
    if tag not in ("split", "evaluated"):
        return bool(_in(model, {_REFS: memo[_REFS]}, entry) == expr)
    parameters = sympy.core.parameters.global_parameters
    key = (expr, tag, parameters.evaluate, parameters.distribute)
    known = _REBUILT.get(key)
    if known is None:
        known = _REBUILT[key] = bool(_in(model, {_REFS: memo[_REFS]}, entry) == expr)
    return known


# ------------------------------------------------------------------ reading
def load(model: Model, text: str) -> Derivation | None:
    """The derivation of an entry's text, or None if the text is not a well-formed entry."""
    found = load_entry(model, text)
    return None if found is None else found[0]


def load_entry(model: Model, text: str, verified: list[Any] | None = None) -> tuple[Derivation, name_reads.Witness] | None:
    """The derivation of an entry's text (its ``model`` field ``model``'s id) and the regime-name
    lookups it recorded, or None if the text is not a well-formed entry.

    ``verified``: the shared expressions themselves, each already checked to read back from
    its entry (:func:`dump` only; text read from the cache is always parsed)."""
    memo: dict[Any, Any] = {_REFS: []}  # expression text -> its expression; the shared expressions
    try:
        body = json.loads(text)
        if not isinstance(body, dict) or not isinstance(body["shared"], list):
            return None
        if verified is not None and len(verified) == len(body["shared"]):
            memo[_REFS] = list(verified)
        else:
            for entry in body["shared"]:
                memo[_REFS].append(_in(model, memo, entry))
        _str(body["model"])
        derivation = Derivation(
            model=model.id, operation=_str(body["operation"]), quantity=_str(body["quantity"]),
            variable=_str(body["variable"]), steps=_steps(_in(model, memo, body["steps"])), result=_in(model, memo, body["result"]),
            assumptions=tuple(_str(a) for a in body["assumptions"]), location=_in(model, memo, body["location"]),
            unit=_str(body["unit"]), method=_str(body["method"]), extra=Extras.from_pairs(_in(model, memo, body["extra"])))
        regimes = _in(model, memo, body["regimes"])
        witness = _witness(model, memo, body["names_read"])
    except (errors.SymgpuError, KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError, json.JSONDecodeError,
            ArithmeticError, NotImplementedError, MemoryError):
        return None
    if not isinstance(regimes, tuple) or not all(isinstance(r, Regime) for r in regimes):
        return None
    return (dataclasses.replace(derivation, regimes=regimes) if regimes else derivation), witness


def _witness(model: Model, memo: dict[Any, Any], value: Any) -> name_reads.Witness:
    """The ``names_read`` part of an entry (see :mod:`.name_reads`)."""
    out = []
    for quantity, stop, substitution, classes in value:
        pairs = _in(model, memo, substitution)
        if not isinstance(pairs, tuple) or not all(isinstance(p, tuple) and len(p) == 2 and all(isinstance(x, sympy.Basic) for x in p)
                                                  for p in pairs):
            raise TypeError("malformed substitution")
        context = name_reads.Context(_str(quantity), tuple(_str(s) for s in stop), pairs)
        out.append((context, tuple((_str(k), tuple(_str(n) for n in names), _str(d)) for k, names, d in classes)))
    return tuple(out)


def _check_numeric_power(parts: list[Any]) -> None:
    """Refuse a stored number raised to a number that evaluating would make huge (a forged entry
    must not hang the reader): a rational exponent with both parts at most 1000, a base of at most
    4096 bits."""
    base, exponent = parts
    if not (isinstance(base, sympy.Basic) and isinstance(exponent, sympy.Basic) and base.is_number and exponent.is_number):
        return
    if not (exponent.is_Rational and abs(exponent.p) <= 1000 and exponent.q <= 1000):
        raise TypeError("numeric power with an unbounded exponent")
    if base.is_Rational and max(abs(base.p).bit_length(), base.q.bit_length()) > 4096:
        raise TypeError("numeric power of a huge base")


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("text expected")
    return value


def _steps(value: Any) -> tuple[Step, ...]:
    if not isinstance(value, tuple) or not all(isinstance(s, Step) for s in value):
        raise TypeError("steps expected")
    return value


def _in(model: Model, memo: dict[Any, Any], value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if not isinstance(value, dict) or len(value) not in (1, 3):
        raise TypeError("malformed entry")
    if "expr" in value:
        names = value["names"]
        if not isinstance(names, list) or any(not isinstance(n, str) or n in model.symbols for n in names):
            raise TypeError("malformed symbol names")
        key = (_str(value["expr"]), tuple(names), value["boolean"] is True)
        if key not in memo:
            memo[key] = _parsed(model, *key)
        return memo[key]
    (tag, inner), = value.items()
    if tag == "ref":  # an earlier shared expression
        refs = memo[_REFS]
        if not isinstance(inner, int) or isinstance(inner, bool) or not 0 <= inner < len(refs):
            raise TypeError("malformed reference")
        return refs[inner]
    if tag == "truth":
        return sympy.true if inner is True else sympy.false
    if tag == "nan" and inner is True:
        return sympy.nan
    if tag == "list":
        return [_in(model, memo, v) for v in inner]
    if tag == "tuple":
        return tuple(_in(model, memo, v) for v in inner)
    if tag == "call":
        name, args = inner
        return sympy.Function(_str(name))(*[_in(model, memo, a) for a in args])
    if tag == "label":
        return sympy.Symbol(_str(inner))
    if tag == "float":
        sign, mantissa, exponent, bits, precision = inner
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (sign, exponent, bits, precision)) \
                or sign not in (0, 1) or not 0 < precision <= 4096 or len(_str(mantissa)) > 1300 or abs(exponent) > 100_000:
            raise TypeError("malformed float")
        return sympy.Float._new((sign, int(mantissa), exponent, bits), precision)
    if tag == "stuple":
        return sympy.Tuple(*[_in(model, memo, v) for v in inner])
    if tag == "dict":
        return {_str(k): _in(model, memo, v) for k, v in inner}
    if tag in ("split", "evaluated"):
        head, args = inner
        built = _SPLIT[_str(head)]
        parts = [_in(model, memo, a) for a in args]
        if built is sympy.Piecewise:
            parts = [tuple(p) for p in parts]
        if tag == "split" and built in (sympy.And, sympy.Or):
            return _logic_as_written(built, parts)
        if built is sympy.Pow and tag == "evaluated":
            _check_numeric_power(parts)
        return built(*parts, evaluate=tag == "evaluated")
    if tag == "step":
        operation, expression, justification = inner
        return Step(_str(operation), _in(model, memo, expression), _str(justification))
    if tag == "cond":
        h, strict, boolean = inner
        return _Cond(_in(model, memo, h), strict is True, _in(model, memo, boolean))
    if tag == "regime":
        name, conditions, expression, terms, raw, feasible = inner
        if feasible not in (True, False, None):
            raise TypeError("malformed regime")
        return Regime(_str(name), _in(model, memo, conditions), _in(model, memo, expression), tuple(_str(t) for t in terms),
                      _in(model, memo, raw), feasible)
    raise TypeError(f"unknown entry tag {tag!r}")


def _parsed(model: Model, text: str, names: tuple[str, ...], boolean: bool) -> sympy.Basic:
    """``text`` parsed with ``model``'s symbols and the plain ``names``, once per process for
    the same text and the same symbols behind the names it can look up.

    NOTE: the whitelist parser reads the symbol table only to look up the names written in
    the text (function names are never looked up there), so two tables that agree on those
    names give the same expression; SymPy's evaluation switches are part of the key too. Only
    a text that parses is kept (a refusal is raised afresh each time)."""
    parameters = sympy.core.parameters.global_parameters
    looked_up = tuple((n, n in names, None if n in names else model.symbols.get(n)) for n in sorted(set(_NAME.findall(text))))
    key = (text, boolean, parameters.evaluate, parameters.distribute, looked_up)
    found = _PARSED.get(key)
    if found is None:
        symbols: Mapping[str, sympy.Symbol] = {**model.symbols, **{n: sympy.Symbol(n) for n in names}}
        found = _PARSED[key] = expressions.parse_expression(text, symbols, path="<cache entry>", boolean=boolean)
    return found


def _logic_as_written(built: Any, parts: list[Any]) -> sympy.Basic:
    """``And``/``Or`` of ``parts`` in their order, not re-canonicalised: ``evaluate=False``
    does not stop these from dropping a tautology's complementary relations (``x < y | x >= y``)
    which SymPy's own rewriting (DNF, piecewise folding) can leave in a condition."""
    if len(parts) < 2 or not all(isinstance(p, sympy.logic.boolalg.Boolean) for p in parts):
        raise TypeError("malformed logic entry")
    out = built._from_args(tuple(parts))
    out._argset = frozenset(parts)  # as LatticeOp.__new__ sets it (make_args reads it)
    return out
