"""The SymPy code printers symgpu compiles with: NumPy as ``lambdify`` prints it, and the grid
printer for arguments that broadcast against each other (a grid's axes), whose code NumPy, CuPy
and JAX run alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy
from sympy.printing.numpy import NumPyPrinter

#: the settings SymPy's lambdify gives its printer for ``modules="numpy"``
SETTINGS = {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True, "user_functions": {}}


def numpy_printer() -> Any:
    """The printer SymPy's lambdify makes for ``modules="numpy"``, with the same settings, and
    an ``ITE`` printed as the boolean it is (:class:`NumPyCode`)."""
    return NumPyCode(dict(SETTINGS))


class NumPyCode(NumPyPrinter):
    """SymPy's NumPy printer, but an ``ITE(test, then, otherwise)`` (a condition of an extremum's
    or a regime's answer) printed as ``(test & then) | (~test & otherwise)`` in binary
    ``logical_and``/``logical_or``/``logical_not`` calls, and a ``Piecewise`` whose condition holds
    one printed as it is.

    NOTE: SymPy prints a ``Piecewise`` condition holding an ``ITE`` through ``simplify_logic``,
    which (besides simplifying every relation in it) leaves a condition of more than 8 relations
    as it is; an ``ITE`` left is then printed as ``select([test, True], [then, otherwise],
    default=nan)``, a float array (NaN default), which the outer ``select`` refuses as a condition
    ("invalid entry 0 in condlist": Volkov's ``cycles_per_warp`` maximum over ``cuda_cpi``).

    Each sum and product is printed once per printer (:meth:`_print_Add`, :meth:`_print_Mul`): a regime table's
    conditions repeat the same few dozen sums hundreds of times (348 sums printed, 33 of them distinct, for Hong &
    Kim's ``Exec_cycles_app``), and SymPy orders a sum's terms afresh each time it prints it. (``model.printing.Keeping``
    keeps every compound subexpression's text for the messages' printer; here only sums and products are kept, the
    nodes whose printing sorts their arguments, so the code printer's own methods for the other nodes run as before.)
    """

    def __init__(self, settings: dict[str, Any]) -> None:
        super().__init__(settings)
        #: printed text by (method, expression), for this printer's settings (one lambdify call's printer)
        self._printed: dict[tuple[str, sympy.Basic], str] = {}

    def _print_Add(self, expr: sympy.Basic, order: Any = None) -> str:
        """SymPy's text for the sum, printed once per printer.

        NOTE: the same text as SymPy's each time: a sum's text is a function of the sum and the printer's settings
        alone (its terms, ordered by the ``order`` setting, each printed and signed by its own precedence), and SymPy's
        equality is structural (types, argument order, symbols with their assumptions, a Float's precision), so
        equal keys print alike. What printing it records on the printer (the NumPy names the code imports, the
        functions it cannot print) was recorded the first time; recording it again adds nothing."""
        if order is not None:
            return str(super()._print_Add(expr, order=order))
        return self._once("Add", expr, lambda: str(super(NumPyCode, self)._print_Add(expr)))

    def _print_Mul(self, expr: sympy.Basic) -> str:
        """SymPy's text for the product, printed once per printer (as :meth:`_print_Add`)."""
        return self._once("Mul", expr, lambda: str(super(NumPyCode, self)._print_Mul(expr)))

    def _once(self, kind: str, expr: sympy.Basic, text: Any) -> str:
        key = (kind, expr)
        found = self._printed.get(key)
        if found is None:
            found = self._printed[key] = text()
        return found

    def _print_ITE(self, expr: sympy.Basic) -> str:
        test, then, otherwise = (self._print(a) for a in expr.args)
        both, either, negated = (self._module_format(f"numpy.{n}") for n in ("logical_and", "logical_or", "logical_not"))
        return f"{either}({both}({test}, {then}), {both}({negated}({test}), {otherwise}))"

    def _print_Piecewise(self, expr: sympy.Basic) -> str:
        if not any(isinstance(c, sympy.Basic) and c.has(sympy.ITE) for _, c in expr.args):
            return str(super()._print_Piecewise(expr))
        values = ",".join(self._print(value) for value, _ in expr.args)
        conditions = ",".join(self._print(condition) for _, condition in expr.args)
        return f"{self._module_format('numpy.select')}([{conditions}], [{values}], default={self._print(sympy.nan)})"


class GridPrinter(NumPyPrinter):
    """The NumPy printer for arguments that broadcast against each other (a grid's axes as
    ``(1, .., n_k, .., 1)`` views, constants as scalars), so that NumPy computes every
    subexpression at the size of the axes it uses, as one writes it by hand.

    ``Min``/``Max`` are nested binary ``minimum``/``maximum`` calls, the arguments over fewer axes
    first (then the grid-sized work is one call, not one per argument). ``And``/``Or`` are nested
    binary ``logical_and``/``logical_or`` calls, ordered the same way (a near-tie flag's dozens of
    terms in the fixed inputs are one scalar before they meet the grid), and ``Piecewise`` nested ``where`` (the first true
    condition wins, NaN where none does, as ``select``): SymPy's ``logical_and.reduce((...))``
    and ``select`` fail on arguments of different shapes in NumPy, and CuPy has neither
    ``logical_and.reduce`` nor a ``select`` that takes ``True`` or scalar choices.
    Names are printed unqualified (``where``): the caller's namespace gives the array module.
    """

    def __init__(self) -> None:
        super().__init__(dict(SETTINGS))
        #: per symbol (swept ones and common subexpressions), the swept symbols it depends on
        self.axes: dict[sympy.Basic, frozenset[sympy.Basic]] = {}

    def rank(self, expr: sympy.Basic) -> int:
        """How many swept symbols ``expr`` depends on."""
        return len(frozenset().union(*[self.axes.get(s, frozenset()) for s in expr.free_symbols]))

    def _print_Min(self, expr: sympy.Basic) -> str:
        return self._nested("minimum", sorted(expr.args, key=self.rank))

    def _print_Max(self, expr: sympy.Basic) -> str:
        return self._nested("maximum", sorted(expr.args, key=self.rank))

    def _nested(self, name: str, args: Sequence[sympy.Basic]) -> str:
        function = self._module_format(f"numpy.{name}")
        text = self._print(args[0])
        for arg in args[1:]:
            text = f"{function}({text}, {self._print(arg)})"
        return text

    def _print_And(self, expr: sympy.Basic) -> str:
        return self._nested("logical_and", sorted(expr.args, key=self.rank))

    def _print_Or(self, expr: sympy.Basic) -> str:
        return self._nested("logical_or", sorted(expr.args, key=self.rank))

    def _print_Piecewise(self, expr: sympy.Basic) -> str:
        where = self._module_format("numpy.where")
        *pieces, (value, condition) = expr.args
        text = self._print(value)
        if condition != sympy.true:
            text = f"{where}({self._print(condition)}, {text}, {self._module_format('numpy.nan')})"
        for value, condition in reversed(pieces):
            text = f"{where}({self._print(condition)}, {self._print(value)}, {text})"
        return text
