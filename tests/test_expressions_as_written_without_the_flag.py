"""The as-written tree (``parse_expression(as_written=True)``) built with ``evaluate=False`` passed to each constructor is
the tree built under SymPy's global ``sympy.evaluate(False)`` (whose every switch clears SymPy's whole cache), node for
node (each node's class and arguments in order, the atoms' ``sympy.srepr``): for every text the bundled and fixture models parse as written (equations' values, cases'
values and conditions, valid_when, limiters, requests, the dimension checks), for the string literals of the parser's
own tests, and for seeded random texts of every operator, function and number form the parser accepts."""

from __future__ import annotations

import ast
import random
import tomllib
import warnings
from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.model import expressions, loader
from tests.conftest import FIXTURES

PARSER_TESTS = [Path(__file__).resolve().parent / name for name in (
    "test_expressions.py", "test_documented_expression_limits_are_the_parsers.py", "test_messages_print_large_expressions_briefly.py",
    "test_literal_scaling.py", "test_one_rule_says_what_is_written_in_the_model_constants_alone.py")]
RANDOM_TEXTS = 1500
SEED = 3301


def _under_the_flag(text: str, symbols: dict[str, sympy.Symbol]) -> sympy.Basic:
    """The as-written tree built as before: every node under ``sympy.evaluate(False)`` (the flag's route)."""
    stripped = text.strip()
    builder = expressions._Builder(stripped, symbols, as_written=True, flagged=True)
    return expressions.built_under_the_flag(builder, ast.parse(stripped, mode="eval").body)


def _structure(expr: sympy.Basic) -> tuple[object, ...]:
    """Each node's class and arguments, in order, down to the atoms' ``srepr`` (a symbol with its assumptions).

    NOTE: ``sympy.srepr`` of the whole tree would do, but SymPy's printer orders an unevaluated product's factors by
    evaluating some of them, and a few random trees (a power of a Piecewise) are refused there."""
    if not expr.args:
        return (type(expr), sympy.srepr(expr))
    return (type(expr), tuple(_structure(arg) for arg in expr.args))


def _same_tree(text: str, symbols: dict[str, sympy.Symbol], boolean: bool) -> bool:
    """Whether the text's as-written tree equals the flag's; False where the text is refused (not an as-written text)."""
    try:
        expressions.parse_expression(text, symbols, boolean=boolean)
    except errors.ExpressionError:
        return False
    try:
        flagged = _under_the_flag(text, symbols)
    except Exception as exc:  # SymPy's own refusal under the flag (a Piecewise's KeyError): refused the same way
        with pytest.raises((type(exc), errors.ExpressionError)):
            expressions.parse_expression(text, symbols, boolean=boolean, as_written=True)
        return False
    built = expressions.parse_expression(text, symbols, boolean=boolean, as_written=True)
    assert _structure(built) == _structure(flagged), text
    assert built == flagged and type(built) is type(flagged), text
    return True


def _without_the_flag(text: str, symbols: dict[str, sympy.Symbol]) -> bool:
    """Whether the text's tree is built without switching the flag (its build raises no ``_Flagged``)."""
    stripped = text.strip()
    try:
        expressions._Builder(stripped, symbols, as_written=True).build(ast.parse(stripped, mode="eval").body)
    except expressions._Flagged:
        return False
    return True


def _file_texts(table: object, boolean: bool = False) -> list[tuple[str, bool]]:
    """The expression texts of a model file's table, read as the loader reads them: a case's and a ``valid_when``'s
    conditions as conditions, every other expression as a value."""
    found: list[tuple[str, bool]] = []
    if isinstance(table, str):
        return [(table, boolean)]
    if isinstance(table, list):
        return [t for item in table for t in _file_texts(item, boolean)]
    if isinstance(table, dict):
        for key, value in table.items():
            if key in ("when", "valid_when", "assume"):
                found += _file_texts(value, True)
            elif key in ("rhs", "value", "limiters", "cases", "target", "quantity"):
                found += _file_texts(value, False)
    return found


def _model_texts() -> list[tuple[str, dict[str, sympy.Symbol], bool]]:
    """Every expression text of every bundled and fixture model file that loads (equations' values, limiters, case
    values and conditions, ``valid_when``), with the symbols that model parses them with."""
    seen: list[tuple[str, dict[str, sympy.Symbol], bool]] = []
    for path in sorted(FIXTURES.glob("*.toml")) + [loader.resolve(m) for m in loader.list_models()]:
        try:
            model = symgpu.load(path, cache=False, whole=True)
        except errors.ModelFileError:
            continue  # a fixture refused on purpose
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        for text, _ in _file_texts(data.get("equations", [])):
            if set(_names(text)) <= set(model.symbols) and (kind := _kind(text, model.symbols)) is not None:
                seen.append((text, dict(model.symbols), kind))
    return seen


def _kind(text: str, symbols: dict[str, sympy.Symbol]) -> bool | None:
    """Whether the loader reads ``text`` as a condition (True) or a value (False); None where it reads as neither."""
    for boolean in (False, True):
        try:
            expressions.parse_expression(text, symbols, boolean=boolean)
            return boolean
        except errors.ExpressionError:
            continue
    return None


def test_every_models_as_written_tree_is_the_flags() -> None:
    texts = _model_texts()
    assert len(texts) > 500  # each text of each file once (a load parses many of them several times)
    compared = sum(_same_tree(text, symbols, boolean) for text, symbols, boolean in texts)
    assert compared == len(texts)
    flag_free = sum(_without_the_flag(text, symbols) for text, symbols, _ in texts)
    assert flag_free > 0.9 * len(texts)  # the switch is left to logic and Piecewise


def _literals(path: Path) -> set[str]:
    with warnings.catch_warnings():  # a test file's own escapes ('\\ ' in a regular expression) are no concern here
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 0 < len(node.value) < 2000}


def _names(text: str) -> set[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id not in expressions.FUNCTIONS}


def test_the_parser_tests_texts_build_the_flags_tree() -> None:
    compared = 0
    for text in sorted(set().union(*(_literals(path) for path in PARSER_TESTS))):
        names = _names(text)
        for assumptions in ({}, {"positive": True}, {"integer": True, "nonnegative": True}):
            symbols = {name: sympy.Symbol(name, **assumptions) for name in names}  # type: ignore[arg-type]
            compared += _same_tree(text, symbols, boolean=False) or _same_tree(text, symbols, boolean=True)
    assert compared > 120


def _random_text(rng: random.Random, depth: int) -> str:
    """A random value text: numbers (whole, decimal, negative), symbols, every operator and function (few Piecewise)."""
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["x", "y", "z", "n", "2", "3", "1", "0", "0.5", "1.25", "-2", "-1", "10"])
    kind = rng.randrange(9)
    a, b = _random_text(rng, depth - 1), _random_text(rng, depth - 1)
    if kind < 4:
        return f"({a} {rng.choice('+-*/')} {b} {rng.choice('+-*/')} {_random_text(rng, depth - 1)})"
    if kind == 4:
        return f"-({a})" if rng.random() < 0.5 else f"+({a})"
    if kind == 5:
        return f"({a})**{rng.choice(['2', '-1', '0.5', 'n', '(1/3)'])}"
    if kind == 6:
        return f"{rng.choice(['Min', 'Max'])}({a}, {b}{', ' + _random_text(rng, depth - 1) if rng.random() < 0.5 else ''})"
    if kind == 7:
        return f"{rng.choice(['sqrt', 'ceiling', 'floor', 'log', 'exp', 'Abs'])}({a})"
    if rng.random() < 0.9:  # a Piecewise is built under the flag by either route: a few suffice
        return f"{rng.choice(['Min', 'Max'])}({a}, {b})"
    condition = f"{a} {rng.choice(['<', '<=', '>', '>=', '==', '!='])} {b}"
    return f"Piecewise(({a}, {condition}), ({b}, True))"


def _random_condition(rng: random.Random) -> str:
    a, b, c = (_random_text(rng, 2) for _ in range(3))
    op = rng.choice(['<', '<=', '>', '>=', '==', '!='])
    return rng.choice([f"{a} {op} {b}", f"{a} < {b} <= {c}", f"({a} {op} {b}) and {b} > {c}", f"Or({a} {op} {b}, Not({b} > {c}))",
                       f"Eq({a}, {b})", f"Ne({a}, {c})", f"not {a} >= {c}"])


def test_random_texts_build_the_flags_tree() -> None:
    rng = random.Random(SEED)
    symbols = {name: sympy.Symbol(name, positive=True) for name in ("x", "y", "z")} | {"n": sympy.Symbol("n", integer=True, positive=True)}
    compared = flag_free = 0
    for index in range(RANDOM_TEXTS):
        boolean = index % 4 == 3
        text = _random_condition(rng) if boolean else _random_text(rng, 3)
        if _same_tree(text, symbols, boolean):
            compared += 1
            flag_free += _without_the_flag(text, symbols)
    assert compared > 0.8 * RANDOM_TEXTS and flag_free > 0.5 * RANDOM_TEXTS


def test_a_negated_product_of_two_leading_numbers_is_the_flags_tree() -> None:
    x = sympy.Symbol("x")
    for text in ("-(2*3*x)", "x - 2*3*x", "x - 1*3*x", "x - (-1)*3*x", "-(0*2*x)", "x - 2*0.5*x", "-(2*x*3)", "-(x - 2*3)"):
        assert _same_tree(text, {"x": x}, boolean=False)
