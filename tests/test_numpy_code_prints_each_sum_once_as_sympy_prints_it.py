"""The NumPy printer symgpu compiles with (:class:`symgpu.evaluate.printers.NumPyCode`) prints each sum and product
once per printer, and its code is the code SymPy's own printing gives: the same source and the same imported names,
for a regime table whose conditions repeat the same sums hundreds of times and for the edge cases of printing."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import sympy
from sympy.printing.numpy import NumPyPrinter

import symgpu
from symgpu.derive import regime_split
from symgpu.evaluate import printers


class _EveryTime(printers.NumPyCode):
    """:class:`NumPyCode` with SymPy's own sum and product printing, each printed afresh: the old path."""

    def _print_Add(self, expr: sympy.Basic, order: Any = None) -> str:
        return str(NumPyPrinter._print_Add(self, expr, order=order))

    def _print_Mul(self, expr: sympy.Basic) -> str:
        return str(NumPyPrinter._print_Mul(self, expr))


class _EveryTimeCounted(_EveryTime):
    """:class:`_EveryTime` recording each sum it prints (the old path's count)."""

    def __init__(self, settings: dict[str, Any]) -> None:
        super().__init__(settings)
        self.calls: list[sympy.Basic] = []

    def _print_Add(self, expr: sympy.Basic, order: Any = None) -> str:
        self.calls.append(expr)
        return super()._print_Add(expr, order)


class _Counting(printers.NumPyCode):
    """:class:`NumPyCode` counting how often SymPy's own sum printing runs, by sum."""

    def __init__(self, settings: dict[str, Any]) -> None:
        super().__init__(settings)
        self.sums: dict[sympy.Basic, int] = {}

    def _print_Add(self, expr: sympy.Basic, order: Any = None) -> str:
        self.sums[expr] = self.sums.get(expr, 0)  # asked of the memo
        return super()._print_Add(expr, order)

    def _once(self, kind: str, expr: sympy.Basic, text: Any) -> str:
        def counted() -> str:
            if kind == "Add":
                self.sums[expr] += 1
            return str(text())
        return super()._once(kind, expr, counted)


def _code(printer: Any, symbols: list[sympy.Symbol], expr: sympy.Basic, *, cse: bool = False, evaluating: bool = False) -> tuple[str, list[str]]:
    """The source ``lambdify`` writes with ``printer`` (as :func:`symgpu.evaluate.compiler._compile` calls it) and the
    names the function's namespace holds."""
    def made() -> Any:
        return sympy.lambdify(symbols, expr, modules=[{}], printer=printer, cse=cse, docstring_limit=0)
    if evaluating:
        function = made()
    else:
        with sympy.evaluate(False):
            function = made()
    return inspect.getsource(function), sorted(function.__globals__)


def _same_code(symbols: list[sympy.Symbol], expr: sympy.Basic, **how: bool) -> str:
    once = _code(printers.numpy_printer(), symbols, expr, **how)
    every_time = _code(_EveryTime(dict(printers.SETTINGS)), symbols, expr, **how)
    assert once == every_time
    return once[0]


@pytest.fixture(scope="module")
def hong_kim_table() -> tuple[list[sympy.Symbol], sympy.Piecewise]:
    """Hong & Kim's ``Exec_cycles_app`` regime table: 7 regimes whose conditions share a few dozen sums."""
    found = regime_split.regimes(symgpu.load("hong_kim_2009"), "Exec_cycles_app")
    table = found.result
    assert isinstance(table, sympy.Piecewise) and len(table.args) == 7
    return sorted(table.free_symbols, key=lambda s: s.name), table


def test_a_regime_table_prints_as_sympy_prints_it_and_each_of_its_sums_once(hong_kim_table):
    symbols, table = hong_kim_table
    index = sympy.Piecewise(*((sympy.Integer(i), c) for i, (_, c) in enumerate(table.args)), (sympy.Integer(-1), True))
    for expr in (table, index, sympy.And(*[c for _, c in table.args[:-1]])):
        for evaluating in (False, True):
            _same_code(symbols, expr, evaluating=evaluating)
    counting = _Counting(dict(printers.SETTINGS))
    _code(counting, symbols, table)
    assert counting.sums and set(counting.sums.values()) == {1}  # every distinct sum printed by SymPy exactly once
    every = _EveryTimeCounted(dict(printers.SETTINGS))
    _code(every, symbols, table)
    assert len(every.calls) > 3 * len(counting.sums)  # the old path printed the same sums again and again


def test_edge_cases_print_as_sympy_prints_them():
    x, y, z = sympy.symbols("x y z", positive=True)
    n = sympy.Symbol("n", integer=True)
    s = x + y
    cases = [
        sympy.Tuple(s, 2 * s, s**2, 1 / s, -s, s * (x - y), (x - y) * s),  # one sum inside products, powers, negations
        sympy.Tuple(x * sympy.Float("0.1", 15) + y, x * sympy.Float("0.1", 30) + y, x * sympy.Float(2.0) + y, 2 * x + y),
        sympy.Min(x + 1, y / x + 1) + x * y + sympy.Max(x + 1, z),  # module names (minimum, reduce) imported once printed
        sympy.Piecewise((x + y, x + y > z), (x - y, sympy.And(x - y > 0, x + y <= z)), (sympy.nan, True)),
        sympy.Piecewise((s, sympy.ITE(s > z, x > 1, y > 1)), (z, True)),  # an ITE condition: NumPyCode's own select
        sympy.Tuple(sympy.floor(s / z) * s, sympy.ceiling(n / 2 + x), sympy.sqrt(s) + s**sympy.Rational(3, 2)),
        sympy.Tuple(sympy.Eq(s, z), sympy.Ne(s, z), sympy.Not(s < z), sympy.Or(s < z, x * y > 1)),
        sympy.Add(x, sympy.Mul(-1, s, evaluate=False), evaluate=False),  # unevaluated forms, as a rewrite leaves them
        sympy.Mul(2, sympy.Add(x, y, evaluate=False), evaluate=False) + sympy.Mul(2, s, evaluate=False),
    ]
    for expr in cases:
        for evaluating in (False, True):
            _same_code([x, y, z, n], expr, evaluating=evaluating)
        _same_code([x, y, z, n], expr, cse=True, evaluating=True)
    text = _same_code([x, y], sympy.Min(x + 1, y / x + 1) + x * y)
    assert "reduce(minimum" in text  # the names a memoised sum's text uses are imported all the same


def test_a_sum_printed_with_an_explicit_order_is_printed_as_sympy_prints_it():
    x, y = sympy.symbols("x y")
    once, every_time = printers.numpy_printer(), _EveryTime(dict(printers.SETTINGS))
    for order in ("lex", "rev-lex", "none"):
        assert once._print_Add(x**2 + y + 1, order=order) == every_time._print_Add(x**2 + y + 1, order=order)
