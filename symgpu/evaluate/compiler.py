"""Compilation: SymPy expressions to NumPy functions with ``lambdify``, cached on the model.

NOTE: the only module that calls ``lambdify``. Every compiled function takes magnitudes in
coherent base units (see :mod:`symgpu.evaluate.scaling`) unless it says otherwise.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy
from sympy.printing.pycode import PythonCodePrinter

from symgpu import errors
from symgpu.evaluate import axis_tables, gridcode, printers, scaling
from symgpu.model import printing
from symgpu.evaluate.state import state_of
from symgpu.memo import Memo

if TYPE_CHECKING:
    from symgpu.model import Model


#: ``lambdify`` writes a docstring with ``str(expr)`` (a third of its time on a model's
#: quantities) unless told not to (SymPy >= 1.13); the generated code is the same either way
_NO_DOCSTRING: dict[str, Any] = {"docstring_limit": 0} if "docstring_limit" in inspect.signature(sympy.lambdify).parameters else {}


#: compiled functions by (arguments, expression, how printed), shared by every model of the
#: process: a variant, and a model's plots and checks, compile the same expressions again
MAX_COMPILED = 8192
_COMPILED: Memo[tuple[Any, ...], Any] = Memo("evaluate.compiler.compiled", MAX_COMPILED)


def _lambdify(symbols: Sequence[sympy.Symbol], expr: sympy.Basic, cse: bool = False, evaluating: bool = False) -> Any:
    """:func:`_compile`, once per process for equal arguments and expression.

    NOTE: equal keys print the same code: SymPy's equality is structural (types, argument order,
    symbols with their assumptions, a Float's precision: ``2 != 2.0``), and the generated
    function is pure (NumPy calls on its arguments; nothing of it is changed after it is made).
    SymPy's evaluation switch is part of the key (``evaluating`` prints under it)."""
    key = (tuple(symbols), expr, cse, evaluating, sympy.core.parameters.global_parameters.evaluate)
    found = _COMPILED.get(key)
    if found is None:
        try:
            found = _compile(symbols, expr, cse, evaluating)
        except errors.EvaluationError as exc:
            found = exc  # kept too: a failed compile (seconds of SymPy printing) is not tried again per point
        _COMPILED[key] = found
    if isinstance(found, errors.EvaluationError):
        raise errors.EvaluationError(str(found))
    return found


def _compile(symbols: Sequence[sympy.Symbol], expr: sympy.Basic, cse: bool, evaluating: bool) -> Any:
    """``lambdify`` to NumPy without SymPy re-evaluating the expression while it prints it.

    NOTE: common-subexpression elimination and the printer rebuild nodes; with evaluation on,
    every rebuilt ``Min``/``Max`` searches its arguments for dominated ones again (seconds per
    model, and no value changes). Under ``sympy.evaluate(False)`` nodes are rebuilt as they are.

    NOTE: ``modules="numpy"`` would first run ``from numpy import *`` once per process, which
    imports NumPy's lazily loaded submodules (f2py, testing, ...: ~0.1 s, most of a first
    ``evaluate``). The printer ``lambdify`` would choose is passed instead, with an empty
    namespace: ``lambdify`` imports exactly the NumPy names the printed code uses
    (``from numpy import amin``, ...), so the source and the functions it calls are the same.

    ``evaluating=True`` prints with evaluation on, as plain ``lambdify`` does: for small
    expressions without common-subexpression elimination, where no Min/Max is rebuilt
    (entering ``sympy.evaluate(False)`` clears SymPy's cache, and printing without
    evaluation leaves forms such as ``x**1`` in the code).
    """
    if isinstance(expr, sympy.Basic) and expr.has(sympy.zoo):  # complex infinity has no real number and no NumPy spelling: NaN wherever it is read
        expr = expr.xreplace({sympy.zoo: sympy.nan})
    if not evaluating:
        with sympy.evaluate(False):
            try:
                return sympy.lambdify(list(symbols), expr, modules=[{}], printer=printers.numpy_printer(), cse=cse, **_NO_DOCSTRING)
            except _PRINTING_FAILURES:
                # NOTE: an unevaluated coefficient (-1*oo in a limit) cannot be compared with 0 while printing; a relation
                # between two Piecewise (an extremum's candidates compared) sends SymPy's unevaluated printing into a loop;
                # a condition the printer simplifies may fail unevaluated (an ITE over a Min(0, ...): PolynomialError)
                pass
    try:
        return sympy.lambdify(list(symbols), expr, modules=[{}], printer=printers.numpy_printer(), cse=cse and not evaluating,
                              **_NO_DOCSTRING)
    except _PRINTING_FAILURES as exc:
        # a condition SymPy cannot print to NumPy (its printer simplifies conditions, and an ITE over a Min(0, ...)
        # fails there): no number can be had from it, said as an evaluation error, never an internal one
        raise errors.EvaluationError(f"the expression cannot be compiled to NumPy ({type(exc).__name__}: "
                                     f"{' '.join(str(exc).split())[:120]}); {printing.brief(expr, 120)}") from None


#: what SymPy raises while printing an expression it cannot print to NumPy
_PRINTING_FAILURES = (TypeError, ValueError, RecursionError, AttributeError, sympy.PolynomialError)


def compiled(model: Model, name: str, given: frozenset[str]) -> tuple[tuple[str, ...], Any, sympy.Expr]:
    """Return (argument names, compiled NumPy function, expression), cached per model."""
    given = _overrides(model, given)
    key = ("value", name, given)
    kept = state_of(model).compiled
    if key not in kept:
        expr = model.expression(name, stop_at=given)
        scale = scaling.unit_scale(model.units[model.equation_for(name).definition.defines])
        base = scaling.base_expression(model, expr) / scale
        args = tuple(sorted(s.name for s in expr.free_symbols))
        function = _lambdify([model.symbols[a] for a in args], base, cse=True)
        kept[key] = (args, function, base)
    return kept[key]


#: step functions by base-unit expression, shared by models (variants share most equations;
#: the expression's symbols carry their assumptions, so equal keys compile to the same code)
MAX_STEPS = 4096
_STEPS: Memo[sympy.Basic, tuple[tuple[str, ...], Any]] = Memo("evaluate.compiler.steps", MAX_STEPS)


def equation_functions(model: Model, names: Sequence[str]) -> list[tuple[tuple[str, ...], Any]]:
    """Per defined quantity of ``names``: (argument names, compiled function) of the right-hand
    side of its equation alone (its defined symbols are arguments too): base-unit magnitudes
    in, the quantity's base-unit magnitude out. Compiled once per model, shared by every
    quantity that depends on it (see :mod:`symgpu.evaluate.stepwise`).

    NOTE: one small expression each, printed with evaluation on (see :func:`_lambdify`).
    """
    kept = state_of(model).compiled
    out = []
    for name in names:
        found = kept.get(("equation", name))
        if found is None:
            rhs = model.defining[name].rhs
            base = rhs if scaling.in_base_units(model, rhs) else scaling.base_expression(model, rhs)
            found = _STEPS.get(base)
            if found is None:
                args = tuple(sorted(s.name for s in base.free_symbols))
                found = _STEPS[base] = (args, _lambdify([model.symbols[a] for a in args], base, evaluating=True))
            kept[("equation", name)] = found
        out.append(found)
    return out


def condition_function(model: Model, condition: sympy.Basic) -> tuple[tuple[str, ...], Any]:
    """(argument names, compiled function) of a ``valid_when`` condition as written (defined
    symbols are arguments): base-unit magnitudes in, a boolean out; cached per model."""
    key = ("condition", condition)
    kept = state_of(model).compiled
    if key not in kept:
        kept[key] = _named_function(model, _condition_base(model, condition))
    return kept[key]  # type: ignore[no-any-return]


def condition_slack(model: Model, condition: sympy.Basic) -> tuple[tuple[str, ...], Any] | None:
    """(argument names, compiled function) giving ``|lhs - rhs| / (|lhs| + |rhs|)`` of an
    inequality ``valid_when`` condition (base-unit magnitudes in): how far a point is from the
    condition's edge, relative to the sides. None for a condition that is not an inequality."""
    if not isinstance(condition, (sympy.StrictLessThan, sympy.StrictGreaterThan, sympy.LessThan, sympy.GreaterThan)):
        return None
    key = ("slack", condition)
    kept = state_of(model).compiled
    if key not in kept:
        base = _condition_base(model, condition)
        kept[key] = _named_function(model, sympy.Abs(base.lhs - base.rhs) / (sympy.Abs(base.lhs) + sympy.Abs(base.rhs)))
    return kept[key]  # type: ignore[no-any-return]


def _condition_base(model: Model, condition: sympy.Basic) -> Any:
    """``condition`` in base units, once per model (its check and its slack share it)."""
    key = ("condition base", condition)
    kept = state_of(model).compiled
    if key not in kept:
        kept[key] = scaling.base_expression(model, condition)
    return kept[key]


def _named_function(model: Model, expr: sympy.Basic) -> tuple[tuple[str, ...], Any]:
    """(sorted argument names, compiled function) of ``expr`` over the model's symbols."""
    args = tuple(sorted(s.name for s in expr.free_symbols))
    return args, _lambdify([model.symbols[a] for a in args], expr)


def _overrides(model: Model, given: frozenset[str]) -> frozenset[str]:
    """The given names that change an expansion: defined quantities given a value (an input's
    value does not change the expression, so cases that differ only in inputs share one compile)."""
    return frozenset(n for n in given if n in model.defining)


def domain_conditions(model: Model, name: str, given: frozenset[str], field: str = "valid_when"
                      ) -> list[tuple[Any, sympy.Basic, tuple[str, ...], Any]]:
    """Per condition of ``field`` (``valid_when``, or ``assumes``) of the equations on the way to ``name``:
    (equation, condition as written, the inputs it reads once expanded, its compiled test of them)."""
    given = _overrides(model, given)
    key = ("domain", name, given, field)
    kept = state_of(model).compiled
    if key not in kept:
        out = []
        for equation in model.dependencies(name, stop_at=given):
            for condition in getattr(equation, field):
                expanded = condition.xreplace({s: model.expression(s.name, stop_at=given) for s in condition.free_symbols if s.name in model.defining and s.name not in given})
                expanded = scaling.base_expression(model, expanded)
                args = tuple(sorted(s.name for s in expanded.free_symbols))
                function = _scalars_as_float64(_lambdify([model.symbols[a] for a in args], expanded))
                out.append((equation, condition, args, function))
        kept[key] = out
    return kept[key]


def numpy_scalars(values: Sequence[Any]) -> list[Any]:
    """``values`` with each scalar as ``np.float64`` (arrays as they are): a compiled function divides a
    NumPy scalar by 0 to inf or NaN, as it does an array, where a Python ``0.0`` raises
    ``ZeroDivisionError`` (a nonnegative input at 0 that a Min argument divides by: ``alu_thru/alpha``)."""
    return [np.float64(v) if np.ndim(v) == 0 else v for v in values]


def _scalars_as_float64(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` called with :func:`numpy_scalars` of its arguments: what every caller of a
    ``valid_when`` condition gets (a condition over an expression that divides by an input at 0)."""
    def call(*args: Any) -> Any:
        return function(*numpy_scalars(args))
    return call


def compiled_expression(model: Model, expr: sympy.Basic, names: Sequence[str], target: pint.Unit) -> Callable[..., Any]:
    """A function of the base-unit magnitudes of ``names`` giving ``expr`` in ``target``, cached."""
    key = ("expression", expr, tuple(names), str(target))
    kept = state_of(model).compiled
    if key not in kept:
        kept[key] = _lambdify([model.symbols[n] for n in names], expression_base(model, expr, target))
    return kept[key]  # type: ignore[no-any-return]


def expression_base(model: Model, expr: sympy.Basic, target: pint.Unit) -> sympy.Basic:
    """What :func:`compiled_expression` compiles: ``expr`` rewritten for base units, in ``target``
    (an expression whose symbols are all in base units is its own rewrite: no walk over it); cached per model."""
    key = ("expression base", expr, str(target))
    kept = state_of(model).compiled
    if key not in kept:
        based = expr if scaling.in_base_units(model, expr) else scaling.base_expression(model, expr)
        kept[key] = based / scaling.unit_scale(target)
    return kept[key]


def base_function(model: Model, symbols: Sequence[sympy.Symbol], base: sympy.Basic) -> Callable[..., Any]:
    """A base-unit expression compiled as :func:`compiled_expression` compiles one (cached per model)."""
    key = ("base function", base, tuple(symbols))
    kept = state_of(model).compiled
    if key not in kept:
        kept[key] = _lambdify(list(symbols), base)
    return kept[key]  # type: ignore[no-any-return]


def relations_function(symbols: Sequence[sympy.Symbol], relations: tuple[sympy.Basic, ...]) -> Callable[..., Any]:
    """One function giving the truth value of each of ``relations`` (a tuple), each printed and
    compiled as it is inside a larger expression by :func:`compiled_expression`."""
    return _lambdify(symbols, relations)  # type: ignore[no-any-return]


def declared_unit_function(model: Model, expr: sympy.Basic, variables: Sequence[str],
                           fixed: Mapping[sympy.Symbol, float], unit_of: str | None = None) -> Callable[..., Any]:
    """A NumPy function of ``variables`` (arrays in their declared units) giving ``expr`` in the
    declared unit of ``unit_of`` (base units if ``None``; conditions give booleans), with every
    other symbol fixed at ``fixed`` (base-unit magnitudes). Results broadcast to the inputs' shape.

    The fixed values are passed to the compiled function, not substituted into ``expr``: the
    function is compiled once per expression whatever the values (cached per model), and no
    ``Min``/``Max`` is rebuilt with numbers in it (SymPy would search its arguments for
    dominated ones again, tens of milliseconds each, for no change in any value)."""
    based = scaling.base_expression(model, expr)
    constants = tuple(sorted((s for s in fixed if s in based.free_symbols), key=lambda s: s.name))
    key = ("declared", based, tuple(variables), tuple(s.name for s in constants))
    kept = state_of(model).compiled
    if key not in kept:
        kept[key] = _lambdify([model.symbols[v] for v in variables] + list(constants), based)
    function = kept[key]
    values = [np.float64(fixed[s]) for s in constants]  # NumPy scalars: 1/0 is inf, as for arrays
    factors = [scaling.symbol_scale(model, v) for v in variables]
    boolean = isinstance(based, sympy.logic.boolalg.Boolean) and not isinstance(based, sympy.Expr)
    # logical reductions (Piecewise conditions, And/Or) need every input at one shape: :func:`broadcast`
    spread = based.has(sympy.Piecewise, sympy.logic.boolalg.BooleanFunction)
    out_scale = scaling.symbol_scale(model, unit_of) if unit_of else 1.0

    def run(*arrays: Any) -> Any:
        shape = np.broadcast(*arrays).shape
        with np.errstate(all="ignore"):  # NOTE: a base-unit overflow is inf, as the function's own would be
            inputs = [np.asarray(a, dtype=float) * f for a, f in zip(arrays, factors)] + values
            result = function(*(broadcast(inputs) if spread else inputs))
        if boolean:
            return np.broadcast_to(np.asarray(result, dtype=bool), shape)
        return np.broadcast_to(np.asarray(result, dtype=float) / out_scale, shape)

    return run


def broadcast(values: list[Any]) -> list[Any]:
    """Give every input the common array shape when any input is an array.

    NOTE: lambdified Piecewise code combines conditions with ``logical_and.reduce((...))``,
    which fails on a mix of scalars and arrays; broadcasting (views, no copies) avoids it.
    Only done for Piecewise expressions: stride-0 views are slower than scalars in arithmetic.
    """
    if not any(np.ndim(v) for v in values):
        return numpy_scalars(values)  # a branch that is not selected may divide by zero
    return list(np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in values]))




def numpy_function(symbols: Sequence[sympy.Symbol], expr: sympy.Basic) -> Callable[..., Any]:
    """``expr`` as a NumPy function of ``symbols`` (no unit handling, no cache): for sampling."""
    return sympy.lambdify(list(symbols), expr, modules=[{}], printer=printers.numpy_printer(), **_NO_DOCSTRING)  # type: ignore[no-any-return]


def mpmath_function(symbol: sympy.Symbol, expr: sympy.Basic) -> Callable[..., Any]:
    """``expr`` as an mpmath function of ``symbol`` (arbitrary precision root finding)."""
    return sympy.lambdify(symbol, expr, modules="mpmath")  # type: ignore[no-any-return]


#: backends of :func:`fused_function`: the lambdify module each prints for
FUSED_BACKENDS = {"numpy": "numpy", "numba": "math", "cupy": "cupy", "jax": "jax"}


def fused_function(model: Model, exprs: Sequence[sympy.Basic], variables: Sequence[str],
                   constants: Sequence[str], out_units: Sequence[pint.Unit | None],
                   backend: str = "numpy", tables: bool = False, unfolded: int = 0) -> Callable[..., Any] | axis_tables.Tabled:
    """Every expression of ``exprs`` in one compiled pass over the swept ``variables``.

    The arithmetic is that of :func:`compiled` (the same base-unit expressions, fixed values
    passed as arguments, not folded in), so results agree with ``evaluate`` to the last bit
    where the two share an expression, including at the exact ties of discontinuous models.

    Args:
        model: the model whose symbols and units the expressions use.
        exprs: expressions or conditions in the model's symbols (declared-unit literals).
        variables: the swept symbols, then ``constants``: the function's arguments, as
            base-unit magnitudes.
        constants: the fixed symbols (scalars).
        out_units: per expression, the unit of its result (``None``: base units); conditions
            give booleans (numba: 1.0 where they hold and 0.0 where not).
        backend: ``numpy``, ``cupy`` or ``jax`` (arrays of the module that broadcast against
            each other: :func:`_grid_function`), ``numba`` (a plain-``math`` function of one row
            of coordinates and the array of constants, returning a tuple of floats, for
            :mod:`symgpu.sweep.backends` to jit).
        tables: numba only: where common subexpressions read no swept symbol but the last, an
            :class:`~symgpu.evaluate.axis_tables.Tabled` pair of functions, those subexpressions in a table of that
            axis (computed once per value of it) and the rest per point (:mod:`symgpu.sweep.fused`'s loop).
        unfolded: numba only: the last ``unfolded`` outputs, conditions, are written as they are (:class:`Truth`), not
            as a ``Piecewise`` of 1.0 and 0.0, which SymPy builds by folding every ``Piecewise`` inside the condition
            into one branch per combination of their cases (numba's clear-of-ties test, a select per relation:
            :func:`symgpu.sweep.tie_conditions.clear_of_ties`).

    Returns:
        The compiled function (cached per model): arrays in, a tuple of arrays (or scalars
        for constant outputs) out; for numba, ``f(row, constants) -> tuple of floats``.
    """
    key = ("fused", tuple(exprs), tuple(variables), tuple(constants), tuple(map(str, out_units)), backend, tables, unfolded)
    kept = state_of(model).compiled
    if key not in kept and backend in ("numpy", "cupy", "jax"):
        kept[key] = _grid_function(model, exprs, variables, constants, out_units, FUSED_BACKENDS[backend])
    if key not in kept:
        prepared = []
        for index, (expr, unit) in enumerate(zip(exprs, out_units)):
            based = scaling.base_expression(model, expr)
            if isinstance(based, sympy.logic.boolalg.Boolean) and not isinstance(based, sympy.Expr):
                as_is = index >= len(exprs) - unfolded
                based = Truth(based) if as_is else sympy.Piecewise((sympy.Float(1.0), based), (sympy.Float(0.0), True))
            elif unit is not None:
                based = based / scaling.unit_scale(unit)
            # NOTE: 1.0*... keeps every output a float, so the numba tuple is homogeneous
            prepared.append(sympy.Mul(sympy.Float(1.0), based, evaluate=False))
        swept = [model.symbols[v] for v in variables]
        fixed = [model.symbols[c] for c in constants]
        # numba: a row of the coordinate array and the array of constants, unpacked into symbols
        arguments = [swept, fixed] if backend == "numba" else swept + fixed
        made = axis_tables.split(sympy.Tuple(*prepared), swept) if tables and backend == "numba" and swept else None
        if made is not None and made.frontier:  # the innermost axis's subexpressions in a table (the same arithmetic)
            table = _branch_free(FUSED_BACKENDS[backend], [[swept[-1]], fixed], made.table_body, sympy.Tuple(*made.frontier))
            # the point's entries read from the box's table, an array of a row per entry (unit-stride reads: they vectorize)
            entries, at = sympy.IndexedBase(sympy.Dummy("entries")), sympy.Dummy("at")
            reads = tuple((s, entries[j, at]) for j, s in enumerate(made.frontier))
            point = _branch_free(FUSED_BACKENDS[backend], [swept, fixed, entries.label, at], reads + made.point_body, made.reduced)
            kept[key] = axis_tables.Tabled(point, table, len(made.frontier))
        else:
            kept[key] = sympy.lambdify(arguments, sympy.Tuple(*prepared), modules=FUSED_BACKENDS[backend], cse=True,
                                       printer=_BranchFreePrinter({"fully_qualified_modules": False, "inline": True,
                                                                   "allow_unknown_functions": True}))
    return kept[key]  # type: ignore[no-any-return]


def _branch_free(modules: Any, arguments: list[Any], body: Sequence[tuple[sympy.Symbol, sympy.Basic]],
                 outputs: sympy.Basic) -> Any:
    """``outputs`` after the assignments ``body`` (common subexpressions already taken), printed as
    :func:`fused_function`'s numba function is."""
    return sympy.lambdify(arguments, outputs, modules=modules, cse=lambda e: (list(body), e),
                          printer=_BranchFreePrinter({"fully_qualified_modules": False, "inline": True,
                                                      "allow_unknown_functions": True}))


class Truth(sympy.Function):
    """1.0 where the condition, its argument, holds, 0.0 where not: a condition output of :func:`fused_function`'s numba
    function written as it is (``unfolded``), printed by :class:`_BranchFreePrinter` as the ``Piecewise`` of 1.0 and 0.0
    is printed."""

    nargs = 1


class _BranchFreePrinter(PythonCodePrinter):
    """The plain-Python printer of the numba loop with ``And``/``Or`` as ``&``/``|`` on booleans
    (the same truth values, no short-circuit branch: Python's ``and``/``or`` kept LLVM from
    vectorising the loop, 10x slower with a sweep's tie-rule case conditions) and ``Not`` in
    parentheses (``not`` binds more loosely than ``&``)."""

    _operators = {**PythonCodePrinter._operators, "and": "&", "or": "|"}

    def _print_Not(self, expr: sympy.Not) -> str:
        return f"(not ({self._print(expr.args[0])}))"

    def _print_Truth(self, expr: Truth) -> str:
        return f"((1.0) if ({self._print(expr.args[0])}) else (0.0))"


def grid_program(model: Model, exprs: Sequence[sympy.Basic], variables: Sequence[str], constants: Sequence[str],
                 out_units: Sequence[pint.Unit | None], targets: int, defer: bool = False) -> gridcode.GridProgram | None:
    """:func:`fused_function` for NumPy rewritten to write its grid-sized results into buffers and
    its first ``targets`` outputs into the caller's arrays (:func:`symgpu.evaluate.gridcode.buffered`;
    the same values to the last bit; ``defer``: a target's last Min/Max step may be left to the
    caller); None where it cannot be rewritten. Cached per model."""
    key = ("buffered", tuple(exprs), tuple(variables), tuple(constants), tuple(map(str, out_units)), targets, defer)
    kept = state_of(model).compiled
    if key not in kept:
        function = fused_function(model, exprs, variables, constants, out_units)
        assert not isinstance(function, axis_tables.Tabled)  # tables are numba's alone
        kept[key] = gridcode.buffered(function, len(variables), range(targets), defer)
    return kept[key]  # type: ignore[no-any-return]


def _grid_function(model: Model, exprs: Sequence[sympy.Basic], variables: Sequence[str], constants: Sequence[str],
                   out_units: Sequence[pint.Unit | None], module: str = "numpy") -> Callable[..., Any]:
    """:func:`fused_function` for array modules (``numpy``, ``cupy``, ``jax``): the swept symbols
    as arrays that broadcast against each other, the constants as NumPy scalars; conditions give
    booleans; no output is copied. The code names its functions unqualified (``minimum``,
    ``where``), taken from the module's namespace: on a GPU every step runs there."""
    prepared = []
    for expr, unit in zip(exprs, out_units):
        based = scaling.base_expression(model, expr)
        if unit is not None and not (isinstance(based, sympy.logic.boolalg.Boolean) and not isinstance(based, sympy.Expr)):
            based = based / scaling.unit_scale(unit)
        prepared.append(based)
    swept = [model.symbols[v] for v in variables]
    printer = printers.GridPrinter()

    def cse(expr: sympy.Basic) -> tuple[Any, Any]:
        found, reduced = sympy.cse(expr, list=False)
        printer.axes = {s: frozenset([s]) for s in swept}
        for symbol, sub in found:
            printer.axes[symbol] = frozenset().union(*[printer.axes.get(s, frozenset()) for s in sub.free_symbols])
        return found, reduced

    arguments = swept + [model.symbols[c] for c in constants]
    # NOTE: SymPy's "cupy"/"jax" modules import only the package name; the code's unqualified
    # names are taken from the array module's own namespace, and a name missing there is refused
    # (lambdify would take NumPy's, which brings device arrays back to the host or fails on them)
    namespace = {} if module == "numpy" else dict(vars(importlib.import_module("jax.numpy" if module == "jax" else module)))
    function = sympy.lambdify(arguments, sympy.Tuple(*prepared), modules=[namespace], printer=printer, cse=cse, **_NO_DOCSTRING)
    missing = sorted(set(printer.module_imports.get("numpy", ())) - set(namespace)) if namespace else []
    if missing:  # NumPy's function would take the device arrays back to the host, or fail on them
        raise errors.EvaluationError(f"{model.id}: the {module} backend has no {', '.join(missing)}; sweep with --backend numpy")
    return function  # type: ignore[no-any-return]
