"""Safe parsing of expression strings from model files into SymPy objects.

Model files are untrusted input. The text is parsed by :func:`ast.parse` (which only
builds a syntax tree and evaluates nothing) and the tree is walked against a whitelist:
declared symbols, numeric literals, arithmetic, comparisons, boolean connectives and the
functions in :data:`FUNCTIONS`. Every other node — attribute access, subscripts, lambdas,
strings, keyword arguments, calls to anything else — is refused. ``eval``, ``sympify``
and ``parse_expr`` are never applied to file text.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import sympy

from symgpu import errors, suggest
from symgpu.model import substitution
from symgpu.proofs import whole_parts

MAX_LENGTH = 20_000
MAX_INTEGER = 10**30
MAX_EXPONENT = 64
#: Most digits in one run of a numeric literal (CPython's own limit text must never leak).
MAX_DIGITS = 40
#: Deepest nesting of the syntax tree (a flat chain ``a + b + c ...`` counts as one level).
MAX_DEPTH = 100
#: Largest magnitude of a constant part of an expression.
MAX_CONSTANT = 1e300
#: 1 / (smallest nonzero magnitude of a constant part): a nonzero constant below 1e-300 is refused
_SMALLEST_INVERSE = 10**300
#: Most arithmetic operators in one expression (CPython builds a chain of N operators N deep).
MAX_OPERATORS = 500
#: Characters of the expression quoted in a message, around the offending spot.
EXCERPT = 200
_DIGIT_RUN = re.compile(r"[0-9][0-9_]*")
_CHAINS: tuple[tuple[type, ...], ...] = ((ast.Add, ast.Sub), (ast.Mult, ast.Div))

#: name -> (constructor, allowed argument counts (min, max); max None = unbounded)
FUNCTIONS: dict[str, tuple[Callable[..., Any], tuple[int, int | None]]] = {
    "Min": (lambda *args: substitution.min_max(sympy.Min, args), (1, None)),
    "Max": (lambda *args: substitution.min_max(sympy.Max, args), (1, None)),
    "sqrt": (sympy.sqrt, (1, 1)),
    "ceiling": (sympy.ceiling, (1, 1)),
    "floor": (sympy.floor, (1, 1)),
    "log": (sympy.log, (1, 1)),
    "exp": (sympy.exp, (1, 1)),
    "Abs": (sympy.Abs, (1, 1)),
    "And": (sympy.And, (2, None)),
    "Or": (sympy.Or, (2, None)),
    "Not": (sympy.Not, (1, 1)),
    "Eq": (lambda a, b: sympy.Eq(a, b, evaluate=False), (2, 2)),
    "Ne": (lambda a, b: sympy.Ne(a, b, evaluate=False), (2, 2)),
    "Piecewise": (sympy.Piecewise, (1, None)),
}

#: Functions whose arguments are conditions (or, for Piecewise, (value, condition) pairs).
_LOGIC = {"And", "Or", "Not", "Piecewise"}
_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}
_COMPARE = {
    ast.Lt: sympy.StrictLessThan,
    ast.LtE: sympy.LessThan,
    ast.Gt: sympy.StrictGreaterThan,
    ast.GtE: sympy.GreaterThan,
    ast.Eq: lambda a, b: sympy.Eq(a, b, evaluate=False),
    ast.NotEq: lambda a, b: sympy.Ne(a, b, evaluate=False),
}
#: the functions the as-written tree builds with SymPy's ``evaluate=False`` (see :class:`_Builder`); the others
#: (``And``, ``Or``, ``Not``, ``Piecewise``) are built under ``sympy.evaluate(False)``
_UNEVALUATED_CALLS: dict[str, Callable[..., Any]] = {
    "Min": sympy.Min, "Max": sympy.Max, "sqrt": sympy.sqrt, "ceiling": sympy.ceiling, "floor": sympy.floor,
    "log": sympy.log, "exp": sympy.exp, "Abs": sympy.Abs, "Eq": sympy.Eq, "Ne": sympy.Ne,
}
_UNEVALUATED_COMPARE: dict[type, Callable[..., Any]] = {
    ast.Lt: sympy.StrictLessThan, ast.LtE: sympy.LessThan, ast.Gt: sympy.StrictGreaterThan, ast.GtE: sympy.GreaterThan,
    ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne,
}
_NODE_NAMES = {
    ast.Attribute: "attribute access",
    ast.Subscript: "subscript",
    ast.Lambda: "lambda",
    ast.Starred: "starred argument",
    ast.Dict: "dictionary",
    ast.Set: "set",
    ast.List: "list",
    ast.ListComp: "comprehension",
    ast.GeneratorExp: "comprehension",
    ast.DictComp: "comprehension",
    ast.SetComp: "comprehension",
    ast.IfExp: "conditional expression (use Piecewise)",
    ast.JoinedStr: "string",
    ast.NamedExpr: "assignment expression",
    ast.Await: "await",
    ast.Slice: "slices",
}


class _Flagged(Exception):
    """Internal: the as-written tree has a node built only under ``sympy.evaluate(False)`` (see :class:`_Builder`)."""


class _Refused(Exception):
    """Internal: carries the problem text and hint up to :func:`parse_expression`."""

    def __init__(self, problem: str, hint: str = "", column: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.hint = hint
        self.column = column


def excerpt(text: str, column: int | None = None, width: int = EXCERPT) -> str:
    """``repr`` of ``text``, or of about ``width`` characters of it around 0-based ``column``.

    Long expressions are never echoed whole: the excerpt is cut with ``...`` on either side.
    """
    if len(text) <= width:
        return repr(text)
    center = len(text) if column is None else max(0, min(column, len(text)))
    start = max(0, min(center - width // 2, len(text) - width)) if column is not None else 0
    piece = text[start:start + width]
    return ("..." if start else "") + repr(piece) + ("..." if start + width < len(text) else "")


def _prescan(text: str) -> _Refused | None:
    """Refuse what CPython would report in its own words: over-long digit runs, non-ASCII text."""
    for match in _DIGIT_RUN.finditer(text):
        digits = len(match.group().replace("_", ""))
        if digits > MAX_DIGITS:
            return _Refused(f"number with {digits} digits at column {match.start() + 1} is too long (limit {MAX_DIGITS} digits)",
                            "write large or precise numbers in scientific notation, e.g. 1.5e40", match.start())
    operators = sum(text.count(op) for op in "+-*/") - text.count("**")
    if operators > MAX_OPERATORS:
        return _Refused(f"expression has {operators} arithmetic operators (limit {MAX_OPERATORS})",
                        "split it into intermediate equations (e.g. partial sums)", 0)
    for index, char in enumerate(text):
        if char < " " and char not in "\t\n\r":
            return _Refused(f"control character {ascii(char)} at column {index + 1}", "remove it", index)
        if not char.isascii():
            return _Refused(f"non-ASCII character {ascii(char)} at column {index + 1}",
                            "expressions use ASCII only (a look-alike letter from another script names a different symbol)", index)
    return None


def _depth(root: ast.AST) -> int:
    """Nesting depth of ``root``, counted iteratively; a same-precedence chain is one level."""
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in ast.iter_child_nodes(node):
            flat = (isinstance(node, ast.BinOp) and isinstance(child, ast.BinOp) and child is node.left
                    and any(isinstance(node.op, family) and isinstance(child.op, family) for family in _CHAINS))
            stack.append((child, depth if flat or isinstance(child, (ast.operator, ast.boolop, ast.cmpop, ast.unaryop, ast.expr_context)) else depth + 1))
    return deepest


def parse_expression(
    text: str,
    symbols: Mapping[str, sympy.Symbol],
    *,
    path: str = "<expression>",
    where: str = "",
    boolean: bool = False,
    as_written: bool = False,
) -> sympy.Basic:
    """Parse ``text`` into a SymPy expression using only ``symbols`` and whitelisted functions.

    Args:
        text: the expression as written in the model file.
        symbols: declared name -> SymPy symbol (names like ``N``, ``I``, ``E`` are ordinary here).
        path: file name, for error messages.
        where: key path inside the file, for error messages.
        boolean: the text is a condition (``when``, ``valid_when``) rather than a value.
        as_written: build every node unevaluated (SymPy's automatic simplification off: no
            dominated ``Min`` argument dropped, no ``(a+b)/(a+b)`` cancelled, no ``x + 0*y``
            or ``x + y - y`` folded), for checks that must see each term the file wrote
            (the dimension check); such a tree is never evaluated or kept, and the text must
            have been parsed without ``as_written`` first (its constants are bounded there).

    Returns:
        The SymPy expression (a relational or boolean when ``boolean`` is true).

    Raises:
        errors.ExpressionError: the text is not valid, uses anything outside the whitelist,
            or names an undeclared symbol. Nothing in the text is ever executed.
    """
    if not isinstance(text, str):
        raise errors.ExpressionError(path, where, f"expected an expression string, found {type(text).__name__} {text!r}")
    if len(text) > MAX_LENGTH:
        raise errors.ExpressionError(path, where, f"expression is {len(text)} characters long (limit {MAX_LENGTH})")
    stripped = text.strip()
    if not stripped:
        raise errors.ExpressionError(path, where, "empty expression")
    refused = _prescan(stripped)
    if refused is not None:
        raise errors.ExpressionError(path, where, f"{refused.problem} in {excerpt(stripped, refused.column)}", refused.hint) from None
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        # CPython gives no column (offset 0) where the text ends too early ('a +'): the error is at its end
        at = f"at column {exc.offset}" if exc.offset else f"at column {len(stripped)}, where the text ends"
        column = exc.offset - 1 if exc.offset else len(stripped) - 1
        # the hint names no model's symbols: the text may be any model's, or the command line's
        hint = ("split it into intermediate equations, or drop parentheses that group nothing" if "nested parentheses" in exc.msg
                else "write infix arithmetic of the model's names, such as 'a*b/(c + 2)'")
        raise errors.ExpressionError(path, where, f"cannot parse {excerpt(stripped, column)}: {exc.msg} {at}", hint) from None
    except (RecursionError, MemoryError, ValueError):
        raise errors.ExpressionError(path, where, f"expression {excerpt(stripped, 0)} is nested too deeply to parse") from None
    depth = _depth(tree.body)
    if depth > MAX_DEPTH:
        raise errors.ExpressionError(path, where, f"expression {excerpt(stripped, 0)} is nested {depth} levels deep (limit {MAX_DEPTH})",
                                     "split it into intermediate equations")
    builder = _Builder(stripped, symbols, as_written=as_written)
    try:
        try:
            result = builder.build(tree.body)
        except _Flagged:
            builder = _Builder(stripped, symbols, as_written=True, flagged=True)
            result = built_under_the_flag(builder, tree.body)
    except _Refused as exc:
        raise errors.ExpressionError(path, where, f"{exc.problem} in {excerpt(stripped, exc.column)}", exc.hint) from None
    except RecursionError:
        raise errors.ExpressionError(path, where, f"expression {excerpt(stripped, 0)} is nested too deeply") from None
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, MemoryError, AttributeError) as exc:
        raise errors.ExpressionError(path, where, f"cannot build {excerpt(stripped, builder.column)}: {str(exc)[:EXCERPT]}") from None
    # NOTE: a plain Symbol is also a sympy Boolean; only relations and logic count as conditions.
    is_bool = isinstance(result, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction, sympy.logic.boolalg.BooleanAtom))
    if boolean and not is_bool:
        raise errors.ExpressionError(path, where, f"{excerpt(stripped)} is not a condition", "write a comparison such as 'n > 0'")
    if not boolean and is_bool:
        raise errors.ExpressionError(path, where, f"{excerpt(stripped)} is a condition where a value is expected")
    return result


def built_under_the_flag(builder: _Builder, node: ast.expr) -> Any:
    """The as-written tree of ``node`` built with SymPy's ``evaluate`` parameter off: the route of a tree with a node
    :class:`_Builder` does not build with ``evaluate=False`` itself (and, in tests, the tree every other route must equal).

    NOTE: each switch of SymPy's global ``evaluate`` parameter clears SymPy's whole cache (``sympy.core.parameters``)."""
    with sympy.evaluate(False):
        return builder.build(node)


def _negated(value: Any) -> Any:
    """``-value`` as SymPy builds it under ``sympy.evaluate(False)``, for an as-written ``value``, without the flag.

    SymPy's ``-value`` reads the flag for a sum (``Mul(-1, value)``, unevaluated under it) and, in a product whose first
    two factors are numbers, for their product; every other node negates the same way with the flag on or off (a number
    its own negative, a product its coefficient's, anything else ``Mul(-1, value)`` as it is). That product is left to
    the flag's route (:class:`_Flagged`); tests/test_expressions_as_written_without_the_flag.py proves the trees equal."""
    if isinstance(value, sympy.Add):
        return sympy.Mul(sympy.S.NegativeOne, value, evaluate=False)
    if isinstance(value, sympy.Mul) and value.args[0].is_Number and value.args[1].is_Number:
        raise _Flagged
    if not isinstance(value, sympy.Expr):
        raise _Flagged
    return -value


class _Builder:
    """Walks a Python syntax tree and builds SymPy objects from whitelisted nodes only.

    An as-written tree (:func:`parse_expression`'s ``as_written``) is built unevaluated by passing ``evaluate=False`` to
    each SymPy constructor, never by switching SymPy's global ``evaluate`` parameter (a switch clears SymPy's whole
    cache: 84 of 104 clears of a regimes table's question). Logic (``And``, ``Or``, ``Not``, ``and``, ``or``, ``not``, a
    chained comparison), ``Piecewise``, a value that is no expression in arithmetic and a negated product of two leading
    numbers are built under the flag (:func:`built_under_the_flag`): their constructors read it beyond ``evaluate``.
    """

    def __init__(self, text: str, symbols: Mapping[str, sympy.Symbol], *, as_written: bool = False, flagged: bool = False) -> None:
        self.text = text
        self.symbols = symbols
        #: build unevaluated (see :func:`parse_expression`)
        self.as_written = as_written
        #: an as-written tree built with ``evaluate=False`` passed to each constructor (not under the flag)
        self.unevaluated = as_written and not flagged
        #: 0-based column of the node being built (where a refusal points).
        self.column: int | None = None

    def segment(self, node: ast.AST) -> str:
        text = ast.get_source_segment(self.text, node) or type(node).__name__
        return text if len(text) <= 80 else text[:77] + "..."

    def build(self, node: ast.AST) -> Any:
        self.column = getattr(node, "col_offset", self.column)
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            kind = _NODE_NAMES.get(type(node), f"syntax '{type(node).__name__}'")
            raise _Refused(f"{kind} '{self.segment(node)}' is not allowed", "only declared symbols, numbers, arithmetic and whitelisted functions are accepted", self.column)
        try:
            return self._bounded(node, method(node))
        except _Refused as exc:
            if exc.column is None:
                exc.column = getattr(node, "col_offset", None)
            raise

    def _bounded(self, node: ast.AST, value: Any) -> Any:
        """Refuse a constant part beyond :data:`MAX_CONSTANT` before anything builds on it.

        NOTE: SymPy evaluates constant parts exactly (``ceiling(exp(10**30))`` would compute
        10**29 digits); checking every constant node as it is built keeps each step small. A tree
        built ``as_written`` is not checked again: its text was parsed (and every constant part of it
        bounded) first, and its constant parts are left unevaluated, where ``evalf`` of a ``floor`` of
        one asks SymPy's ``equals`` and ``simplify`` (minutes on a generated model in the test suite).
        """
        if self.as_written:
            return value
        if isinstance(value, sympy.Expr) and not value.is_Symbol and value.is_number and not value.is_Rational:
            number = value.evalf(15)
            if number.is_extended_real is False:
                raise _Refused(f"constant '{self.segment(node)}' is not a real number", "", getattr(node, "col_offset", None))
            if not number.is_finite or (number.is_extended_real and abs(number) > MAX_CONSTANT):
                raise _Refused(f"constant '{self.segment(node)}' is out of range (beyond {MAX_CONSTANT:.0e})", "", getattr(node, "col_offset", None))
            if number.is_extended_real and number != 0 and abs(number) < 1 / MAX_CONSTANT:
                raise _Refused(f"constant '{self.segment(node)}' is out of range (below {1 / MAX_CONSTANT:.0e})", "", getattr(node, "col_offset", None))
        elif isinstance(value, sympy.Rational) and abs(value) > MAX_CONSTANT:
            raise _Refused(f"constant '{self.segment(node)}' is out of range (beyond {MAX_CONSTANT:.0e})", "", getattr(node, "col_offset", None))
        elif isinstance(value, sympy.Rational) and value.p != 0 and abs(value.p) * _SMALLEST_INVERSE < value.q:
            raise _Refused(f"constant '{self.segment(node)}' is out of range (below {1 / MAX_CONSTANT:.0e}, too small for the evaluation's doubles)",
                           "", getattr(node, "col_offset", None))
        elif isinstance(value, sympy.Expr) and (value.is_Mul or value.is_Add) and not self.as_written:
            # NOTE: a product of literals folds into one coefficient ('L_M*1e-200*1e-200'), never built as a node of its own
            coefficient = value.as_coeff_Mul()[0] if value.is_Mul else value.as_coeff_Add()[0]
            if isinstance(coefficient, sympy.Rational) and coefficient.p != 0 and (
                    abs(coefficient) > MAX_CONSTANT or abs(coefficient.p) * _SMALLEST_INVERSE < coefficient.q):
                raise _Refused(f"the constant factor or term {sympy.sstr(coefficient) if len(str(coefficient)) < 40 else sympy.sstr(coefficient.evalf(3))} of "
                               f"'{self.segment(node)}' is out of range (beyond {MAX_CONSTANT:.0e} or below {1 / MAX_CONSTANT:.0e})",
                               "", getattr(node, "col_offset", None))
        return value

    def _Constant(self, node: ast.Constant) -> Any:
        value = node.value
        if isinstance(value, bool):
            return sympy.true if value else sympy.false
        if isinstance(value, int):
            if abs(value) > MAX_INTEGER:
                raise _Refused(f"integer literal {self.segment(node)[:20]}... is too large")
            return sympy.Integer(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _Refused(f"number {self.segment(node)} is out of range (beyond 1.8e308)")
            if value == 0.0 and sympy.Rational(self.segment(node).replace("_", "")) != 0:
                raise _Refused(f"number {self.segment(node)} is out of range (below {1 / MAX_CONSTANT:.0e}: a double reads it as 0)")
            # NOTE: decimals are kept exact (0.1477 -> 1477/10000) from the printed text.
            return sympy.Rational(self.segment(node).replace("_", ""))
        raise _Refused(f"literal {self.segment(node)} is not allowed", "only numbers are accepted as literals")

    def _Name(self, node: ast.Name) -> Any:
        if node.id in self.symbols:
            return self.symbols[node.id]
        if node.id in FUNCTIONS:
            raise _Refused(f"function name '{node.id}' used without a call")
        declared = suggest.alternatives(node.id, sorted(self.symbols))
        raise _Refused(
            f"undeclared symbol '{node.id}'",
            f"declare it under [symbols.{node.id}] or correct the name (declared: {declared})",
        )

    def _BinOp(self, node: ast.BinOp) -> Any:
        if isinstance(node.op, ast.BitXor):
            raise _Refused(f"'^' in '{self.segment(node)}' is not a power", "write powers with '**'")
        operation = _BINARY.get(type(node.op))
        if operation is None:
            raise _Refused(f"operator in '{self.segment(node)}' is not allowed", "use + - * / ** only")
        family = next((f for f in _CHAINS if isinstance(node.op, f)), None)
        if family is not None:
            return self._chain(node, family)
        left, right = self.build(node.left), self.build(node.right)
        for side in (left, right):
            if not isinstance(side, sympy.Expr):
                raise _Refused(f"condition used as a value in '{self.segment(node)}'", "conditions belong in Piecewise, And, Or, Not, when or valid_when")
        if isinstance(node.op, ast.Pow) and right.is_Number and abs(right) > MAX_EXPONENT:
            raise _Refused(f"exponent {right} in '{self.segment(node)}' is too large (limit {MAX_EXPONENT})")
        if self.unevaluated:
            return sympy.Pow(left, right, evaluate=False)
        return operation(left, right)

    def _chain(self, node: ast.BinOp, family: tuple[type, ...]) -> Any:
        """Build ``a + b - c ...`` (or ``a * b / c ...``) without recursing once per term."""
        rights: list[tuple[ast.operator, ast.expr]] = []
        current: ast.expr = node
        while isinstance(current, ast.BinOp) and isinstance(current.op, family):
            rights.append((current.op, current.right))
            current = current.left
        first = self.build(current)
        rest = [(op, self.build(right)) for op, right in reversed(rights)]
        if self.unevaluated:
            if not all(isinstance(v, sympy.Expr) for v in [first] + [v for _, v in rest]):
                raise _Flagged
            if family is _CHAINS[0]:
                return sympy.Add(first, *[v if isinstance(op, ast.Add) else _negated(v) for op, v in rest], evaluate=False)
            return sympy.Mul(first, *[v if isinstance(op, ast.Mult) else sympy.Pow(v, sympy.S.NegativeOne, evaluate=False) for op, v in rest],
                             evaluate=False)
        if all(isinstance(v, sympy.Expr) for v in [first] + [v for _, v in rest]):
            if family is _CHAINS[0]:
                return sympy.Add(first, *[v if isinstance(op, ast.Add) else -v for op, v in rest])
            return sympy.Mul(first, *[v if isinstance(op, ast.Mult) else 1 / v for op, v in rest])
        value = first
        for op, right_value in rest:
            value = _BINARY[type(op)](value, right_value)
        return value

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        if self.unevaluated and isinstance(node.op, ast.Not):
            raise _Flagged
        operand = self.build(node.operand)
        if isinstance(node.op, ast.USub):
            return _negated(operand) if self.unevaluated else -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Not):
            return sympy.Not(operand)
        raise _Refused(f"operator in '{self.segment(node)}' is not allowed")

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        if self.unevaluated:
            raise _Flagged
        values = [self.build(value) for value in node.values]
        return sympy.And(*values) if isinstance(node.op, ast.And) else sympy.Or(*values)

    def _Compare(self, node: ast.Compare) -> Any:
        if self.unevaluated and len(node.ops) > 1:
            raise _Flagged
        terms = [self.build(node.left)] + [self.build(c) for c in node.comparators]
        parts = []
        for op, left, right in zip(node.ops, terms, terms[1:]):
            relation = (_UNEVALUATED_COMPARE if self.unevaluated else _COMPARE).get(type(op))
            if self.unevaluated and relation is not None:
                parts.append(relation(left, right, evaluate=False))
                continue
            if relation is None:
                raise _Refused(f"comparison in '{self.segment(node)}' is not allowed", "use < <= > >= == !=")
            parts.append(relation(left, right))
        return parts[0] if len(parts) == 1 else sympy.And(*parts)

    def _Call(self, node: ast.Call) -> Any:
        if not isinstance(node.func, ast.Name):
            raise _Refused(f"call of '{self.segment(node.func)}' is not allowed", f"allowed functions: {', '.join(FUNCTIONS)}")
        name = node.func.id
        if name not in FUNCTIONS:
            raise _Refused(f"function '{name}' is not allowed", f"allowed functions: {', '.join(FUNCTIONS)}")
        if node.keywords:
            raise _Refused(f"keyword arguments in '{self.segment(node)}' are not allowed")
        constructor, (low, high) = FUNCTIONS[name]
        count = len(node.args)
        if count < low or (high is not None and count > high):
            expected = f"{low}" if low == high else f"at least {low}" if high is None else f"{low} to {high}"
            raise _Refused(f"{name} takes {expected} argument(s), found {count} in '{self.segment(node)}'")
        if self.unevaluated and name not in _UNEVALUATED_CALLS:
            raise _Flagged
        if name == "Piecewise":
            return constructor(*[self._piece(arg) for arg in node.args])
        built = [self.build(arg) for arg in node.args]
        if name not in _LOGIC and not all(isinstance(arg, sympy.Expr) for arg in built):
            raise _Refused(f"a condition is used as a value in '{self.segment(node)}'", "conditions belong in Piecewise, And, Or, Not, when or valid_when")
        if self.unevaluated:
            return _UNEVALUATED_CALLS[name](*built, evaluate=False)
        if self.as_written and name in ("Min", "Max"):
            # NOTE: not substitution.min_max, whose kept Min/Max are the evaluated model's
            return (sympy.Min if name == "Min" else sympy.Max)(*built, evaluate=False)
        return whole_parts.rebuilt(constructor, built)  # a floor/ceiling without its assumption queries where proved

    def _piece(self, node: ast.AST) -> tuple[Any, Any]:
        if not isinstance(node, ast.Tuple) or len(node.elts) != 2:
            raise _Refused(f"Piecewise argument '{self.segment(node)}' is not a (value, condition) pair")
        return self.build(node.elts[0]), self.build(node.elts[1])
