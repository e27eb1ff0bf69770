"""A buffered grid program (:class:`~symgpu.evaluate.gridcode.GridProgram`) as data, and back.

:func:`record` reads the source that :mod:`symgpu.evaluate.gridcode` generated (symgpu's own
code, parsed with :mod:`ast`, never text from a file or the command line) into a
:class:`Program`: a list of ufunc calls over registers (the function's arguments first, then one
register per step; a Python operator in the code is a step calling that operator), each operand a register or a float, each result in a new array or ``out=``
one of the caller's buffers (a target, a float or a boolean scratch buffer), ``copyto`` steps,
the outputs returned and the deferred last steps. Anything else in the source (a power, a call
that is not one of :data:`UFUNCS`) means: no program (None).

:func:`compiled` turns a :class:`Program` back into a :class:`GridProgram` whose function is a
short loop calling ``getattr(np, name)`` for the names of :data:`UFUNCS` only (and Python's
operators, :data:`OPERATORS`, where the printed code applies them): the same ufuncs
on the same operands in the same order as the generated code, so the same bits. What it is given
has been checked by :func:`program_of` (names in the table, registers and buffers in range,
constants as floats, bounded whole numbers or booleans, sizes bounded): nothing read back is executed or unpickled.

NOTE: imports neither SymPy nor pint.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu.evaluate import gridcode

#: the NumPy functions a stored program may call: ufuncs (one output) and ``where``
UFUNCS = frozenset({
    "add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "remainder", "negative", "positive",
    "minimum", "maximum", "fmin", "fmax", "absolute", "fabs", "sign", "sqrt", "cbrt", "square", "reciprocal",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
    "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "hypot", "floor", "ceil", "trunc", "rint",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "signbit", "copysign", "where",
})
#: Python's operators as the printed code applies them (on arrays NumPy's ufuncs, on NumPy scalars
#: NumPy's scalar arithmetic, on floats Python's: the operator itself is called, so the same
#: dispatch and the same bits, ``**``'s fast paths included)
OPERATORS: dict[str, Callable[..., Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "neg": operator.neg, "pos": operator.pos,
}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}
_UNARY = {ast.USub: "neg", ast.UAdd: "pos"}
#: the most steps, registers' operands and outputs a stored program may have
MAX_STEPS, MAX_OPERANDS, MAX_OUTPUTS = 10_000, 3, 1_000
#: the largest whole number a program may hold (larger ones: not recorded)
MAX_WHOLE = 2**53
#: the buffers a step may write into: the caller's targets, float and boolean scratch buffers
BUFFERS = ("t", "f", "b")
#: the value names the printed code may use, as floats
_VALUES = {"nan": float("nan"), "inf": float("inf"), "pi": float(np.pi), "e": float(np.e)}


@dataclass(frozen=True)
class Operand:
    """A register (``register`` >= 0) or a constant (``register`` -1, ``value``: a float, a whole
    number as the printed code wrote it, at most 2**53 in size, or a boolean)."""

    register: int
    value: float | int | bool = 0.0


@dataclass(frozen=True)
class Step:
    """``ufunc(*operands[, out=buffer])`` (``ufunc`` "copyto": ``np.copyto(buffer, operands[0],
    where=operands[1] if given)``, the buffer the result); its result is the next register."""

    ufunc: str
    operands: tuple[Operand, ...]
    buffer: tuple[str, int] | None  # ("t"|"f"|"b", index), or None: a new array


@dataclass(frozen=True)
class Program:
    """A grid program as data (see the module's docstring)."""

    arguments: int
    floats: int
    bools: int
    steps: tuple[Step, ...]
    returns: tuple[Operand, ...]
    deferred: tuple[gridcode.Deferred, ...]

    def as_data(self) -> dict[str, Any]:
        """JSON-ready (read back by :func:`program_of`)."""
        return {"arguments": self.arguments, "floats": self.floats, "bools": self.bools,
                "steps": [[s.ufunc, [_operand_data(o) for o in s.operands], list(s.buffer) if s.buffer else None] for s in self.steps],
                "returns": [_operand_data(o) for o in self.returns],
                "deferred": [[d.position, d.ufunc, list(d.operands)] for d in self.deferred]}


def _operand_data(operand: Operand) -> list[Any]:
    return ["r", operand.register] if operand.register >= 0 else ["k", operand.value]


class _Unsupported(Exception):
    """The generated source holds something a stored program does not (no program is recorded)."""


def record(program: gridcode.GridProgram, arguments: int) -> Program | None:
    """``program`` (whose function takes ``arguments`` values, then targets, floats, bools) as
    data; None where its source holds anything but the forms :mod:`symgpu.evaluate.gridcode` writes
    with the calls of :data:`UFUNCS`."""
    try:
        return _Recorder(program, arguments).program()
    except (_Unsupported, SyntaxError, RecursionError):
        return None


class _Recorder:
    def __init__(self, program: gridcode.GridProgram, arguments: int) -> None:
        self.source = program.source
        self.namespace = getattr(program.function, "__globals__", {})
        self.count = arguments
        self.gridcode = program
        self.registers: dict[str, int] = {}
        self.steps: list[Step] = []

    def program(self) -> Program:
        tree = ast.parse(self.source)
        definition = tree.body[0] if len(tree.body) == 1 else None
        if not isinstance(definition, ast.FunctionDef):
            raise _Unsupported
        names = [a.arg for a in definition.args.args]
        if names[self.count:] != ["_targets", "_floats", "_bools"]:
            raise _Unsupported
        self.registers = {n: i for i, n in enumerate(names[:self.count])}
        returns: tuple[Operand, ...] | None = None
        for statement in definition.body:
            if returns is not None:
                raise _Unsupported
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                value = self.operand(statement.value)
                if value.register < 0:
                    raise _Unsupported
                self.registers[statement.targets[0].id] = value.register
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and _is_np(statement.value.func, "copyto"):
                self.copyto(statement.value)
            elif isinstance(statement, ast.Return) and isinstance(statement.value, ast.Tuple):
                returns = tuple(self.operand(e) for e in statement.value.elts)
            else:
                raise _Unsupported
        if returns is None or len(self.steps) > MAX_STEPS or len(returns) > MAX_OUTPUTS:
            raise _Unsupported
        if any(d.ufunc not in UFUNCS for d in self.gridcode.deferred):
            raise _Unsupported
        return Program(self.count, self.gridcode.floats_needed, self.gridcode.bools_needed, tuple(self.steps), returns,
                       self.gridcode.deferred)

    def add(self, step: Step) -> Operand:
        if len(step.operands) > MAX_OPERANDS:
            raise _Unsupported
        self.steps.append(step)
        return Operand(self.count + len(self.steps) - 1)

    def copyto(self, call: ast.Call) -> None:
        where = [k.value for k in call.keywords if k.arg == "where"]
        if len(call.args) != 2 or len(call.keywords) != len(where):
            raise _Unsupported
        buffer = _buffer(call.args[0])
        self.add(Step("copyto", tuple(self.operand(a) for a in [call.args[1], *where]), buffer))
        # the buffer's value is read back through the name the next statement binds to it

    def operand(self, node: ast.expr) -> Operand:
        if isinstance(node, ast.Name):
            if node.id in self.registers:
                return Operand(self.registers[node.id])
            if node.id in _VALUES and isinstance(self.namespace.get(node.id), float):
                return Operand(-1, _VALUES[node.id]) if _same(self.namespace[node.id], _VALUES[node.id]) else _refuse()
            raise _Unsupported
        if isinstance(node, ast.Subscript):  # a buffer named as a value: the last step that wrote it
            buffer = _buffer(node)
            for index in range(len(self.steps) - 1, -1, -1):
                if self.steps[index].buffer == buffer:
                    return Operand(self.count + index)
            raise _Unsupported
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):  # bool is an int
            if isinstance(node.value, int) and abs(node.value) > MAX_WHOLE:
                raise _Unsupported
            return Operand(-1, node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return self.add(Step(_BINARY[type(node.op)], (self.operand(node.left), self.operand(node.right)), None))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return self.add(Step(_UNARY[type(node.op)], (self.operand(node.operand),), None))
        if isinstance(node, ast.Call):
            out = [k.value for k in node.keywords if k.arg == "out"]
            if len(node.keywords) != len(out) or len(out) > 1:
                raise _Unsupported
            if isinstance(node.func, ast.Name) and not out:
                name = node.func.id
                if name not in UFUNCS or self.namespace.get(name) is not getattr(np, name, None):
                    raise _Unsupported
            elif _is_np(node.func, None) and out:
                assert isinstance(node.func, ast.Attribute)
                name = node.func.attr
                if name not in UFUNCS or name == "where":
                    raise _Unsupported
            else:
                raise _Unsupported
            operands = tuple(self.operand(a) for a in node.args)
            return self.add(Step(name, operands, _buffer(out[0]) if out else None))
        raise _Unsupported


def _refuse() -> Operand:
    raise _Unsupported


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)


def _is_np(node: ast.expr, attribute: str | None) -> bool:
    """Whether ``node`` is ``_np.<attribute>`` (any attribute: None)."""
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "_np"
            and (attribute is None or node.attr == attribute))


def _buffer(node: ast.expr) -> tuple[str, int]:
    """``_targets[i]``/``_floats[i]``/``_bools[i]`` as ("t"|"f"|"b", i)."""
    names = {"_targets": "t", "_floats": "f", "_bools": "b"}
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int) and not isinstance(node.slice.value, bool)):
        return names[node.value.id], node.slice.value
    raise _Unsupported


# ---------------------------------------------------------------- reading back and running


def program_of(data: Any, arguments: int, targets: int) -> Program | None:
    """The :class:`Program` of JSON ``data`` (as :meth:`Program.as_data` wrote it), every field
    checked: ``arguments`` registers before the steps, ``targets`` target buffers; None where
    anything is off."""
    try:
        return _read(data, arguments, targets)
    except (TypeError, ValueError, KeyError, IndexError):
        return None


def _count(value: Any, most: int) -> int:
    if type(value) is not int or not 0 <= value <= most:
        raise ValueError(value)
    return value


def _read(data: Any, arguments: int, targets: int) -> Program | None:
    if not isinstance(data, dict) or set(data) != {"arguments", "floats", "bools", "steps", "returns", "deferred"}:
        return None
    if _count(data["arguments"], MAX_OUTPUTS) != arguments:
        return None
    floats, bools = _count(data["floats"], MAX_STEPS), _count(data["bools"], MAX_STEPS)
    limits = {"t": targets, "f": floats, "b": bools}
    raw_steps = data["steps"]
    if not isinstance(raw_steps, list) or len(raw_steps) > MAX_STEPS:
        return None
    steps: list[Step] = []
    for raw in raw_steps:
        if not isinstance(raw, list) or len(raw) != 3 or not (raw[0] in UFUNCS or raw[0] in OPERATORS or raw[0] == "copyto"):
            return None
        name, operands, buffer = raw
        if not isinstance(operands, list) or not 1 <= len(operands) <= MAX_OPERANDS:
            return None
        read = tuple(_operand(o, arguments + len(steps)) for o in operands)
        if buffer is not None:
            if not isinstance(buffer, list) or len(buffer) != 2 or buffer[0] not in limits:
                return None
            where = (buffer[0], _count(buffer[1], MAX_STEPS))
            if where[1] >= limits[where[0]] or name == "where" or name in OPERATORS:
                return None
        else:
            where = None
        if name == "copyto" and (where is None or len(read) > 2):
            return None
        if not _arity_ok(name, len(read)):
            return None
        steps.append(Step(name, read, where))
    raw_returns = data["returns"]
    if not isinstance(raw_returns, list) or not targets <= len(raw_returns) <= MAX_OUTPUTS:
        return None
    returns = tuple(_operand(o, arguments + len(steps)) for o in raw_returns)
    deferred = []
    raw_deferred = data["deferred"]
    if not isinstance(raw_deferred, list) or len(raw_deferred) > targets:
        return None
    for raw in raw_deferred:
        if not isinstance(raw, list) or len(raw) != 3 or raw[1] not in ("minimum", "maximum") or not isinstance(raw[2], list) or len(raw[2]) != 2:
            return None
        position = _count(raw[0], targets - 1)
        pair = (_count(raw[2][0], len(returns) - 1), _count(raw[2][1], len(returns) - 1))
        deferred.append(gridcode.Deferred(position, raw[1], pair))
    return Program(arguments, floats, bools, tuple(steps), returns, tuple(deferred))


def _arity_ok(name: str, count: int) -> bool:
    if name == "copyto":
        return count in (1, 2)
    if name in OPERATORS:
        return count == (1 if name in ("neg", "pos") else 2)
    if name == "where":
        return count == 3
    ufunc = getattr(np, name, None)
    return isinstance(ufunc, np.ufunc) and ufunc.nin == count and ufunc.nout == 1


def _operand(raw: Any, registers: int) -> Operand:
    if not isinstance(raw, list) or len(raw) != 2:
        raise ValueError(raw)
    if raw[0] == "r":
        return Operand(_count(raw[1], registers - 1))
    if raw[0] == "k" and (type(raw[1]) in (float, bool) or type(raw[1]) is int and abs(raw[1]) <= MAX_WHOLE):
        return Operand(-1, raw[1])
    raise ValueError(raw)


def compiled(program: Program) -> gridcode.GridProgram:
    """``program`` as a :class:`GridProgram` run by :func:`run` (see the module's docstring)."""
    calls: list[Callable[..., Any]] = [np.copyto if s.ufunc == "copyto" else OPERATORS[s.ufunc] if s.ufunc in OPERATORS
                                       else getattr(np, s.ufunc) for s in program.steps]

    def function(*values: Any) -> tuple[Any, ...]:
        return run(program, calls, values[:-3], *values[-3:])

    return gridcode.GridProgram(function, program.floats, program.bools, "", program.deferred)


def run(program: Program, calls: Sequence[Callable[..., Any]], arguments: Sequence[Any], targets: Sequence[Any],
        floats: Sequence[Any], bools: Sequence[Any]) -> tuple[Any, ...]:
    """The steps of ``program`` over ``arguments`` into the buffers; its outputs."""
    buffers = {"t": targets, "f": floats, "b": bools}
    registers = list(arguments)

    def value(operand: Operand) -> Any:
        return registers[operand.register] if operand.register >= 0 else operand.value

    for step, call in zip(program.steps, calls):
        operands = [value(o) for o in step.operands]
        if step.buffer is None:
            registers.append(call(*operands))
            continue
        out = buffers[step.buffer[0]][step.buffer[1]]
        if step.ufunc == "copyto":
            call(out, operands[0], where=operands[1] if len(operands) > 1 else True)
            registers.append(out)
        else:
            registers.append(call(*operands, out=out))
    return tuple(value(o) for o in program.returns)
