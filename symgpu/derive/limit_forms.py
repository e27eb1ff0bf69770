"""Forms of an expression whose limit SymPy takes where it would not take the expression's own: a base
below or above 1 written so that the sign of its logarithm is known (:func:`geometric_bases`), and each
Min/Max/Piecewise free of the variable frozen as a symbol of its sign (:func:`pieces_frozen`); a limit read as
a sign times an infinity (:func:`signed_infinity`)."""

from __future__ import annotations

import sympy

from symgpu.proofs import forms, signs


def geometric_bases(ctx: signs.SignReasoner, expr: sympy.Expr, var: sympy.Symbol) -> tuple[sympy.Expr, dict[sympy.Symbol, sympy.Expr]]:
    """Write each base b of ``b**g(var)`` whose place against 1 is proved as ``1/(1 + t)`` (0 < b < 1)
    or ``1 + t`` (b > 1) with a positive t, so that SymPy knows the sign of log(b) as var -> oo
    (``1 - (1 - rho)**n`` with 0 < rho < 1). Returns the rewritten expression and t -> its meaning."""
    def positive(e: sympy.Expr) -> bool:   # under the extra assumptions, or by the declared ones alone
        return ctx.sign(e) == 1 or e.is_positive is True
    mapping: dict[sympy.Expr, sympy.Expr] = {}
    back: dict[sympy.Symbol, sympy.Expr] = {}
    for power in expr.atoms(sympy.Pow):
        base = power.base
        if base.is_number or base in mapping or var in base.free_symbols or var not in power.exp.free_symbols:
            continue
        t = sympy.Dummy("t", positive=True)
        if positive(base) and positive(1 - base):
            mapping[base], back[t] = 1 / (1 + t), 1 / base - 1
        elif positive(base - 1):
            mapping[base], back[t] = 1 + t, base - 1
    return (expr.xreplace(mapping) if mapping else expr), back


def pieces_frozen(ctx: signs.SignReasoner, expr: sympy.Expr, var: sympy.Symbol) -> tuple[sympy.Expr, dict[sympy.Symbol, sympy.Expr]] | None:
    """``expr`` with each outermost Min, Max or Piecewise as a Dummy: a constant as ``var`` moves, of the sign
    the assumptions prove for it (positive, negative, else only real), and Dummy -> its piece; None where a
    piece depends on ``var``. The limit of the frozen form is the limit of ``expr`` with that piece put back:
    ``n*C/(n + sqrt((A*C - n)**2 + n*C))`` with ``C = Min(...)`` tends to ``C/2``, which the limit taken part
    by part (``oo*0``) does not see."""
    if any(var in piece.free_symbols for piece in expr.atoms(sympy.Min, sympy.Max, sympy.Piecewise)):
        return None
    back: dict[sympy.Symbol, sympy.Expr] = {}
    frozen: dict[sympy.Basic, sympy.Symbol] = {}

    def walk(node: sympy.Basic) -> sympy.Basic:
        if isinstance(node, (sympy.Min, sympy.Max, sympy.Piecewise)):
            if node not in frozen:
                sign = ctx.sign(node)
                frozen[node] = sympy.Dummy("piece", positive=True) if sign == 1 else \
                    sympy.Dummy("piece", negative=True) if sign == -1 else sympy.Dummy("piece", real=True)
                back[frozen[node]] = node
            return frozen[node]
        if not node.args or not forms.has_pieces(node):
            return node
        return node.func(*[walk(a) for a in node.args])

    return walk(expr), back


def signed_infinity(value: sympy.Expr | None, var: sympy.Symbol) -> tuple[sympy.Expr, int] | None:
    """``value`` (a limit) as ``(q, s)`` with ``s*oo`` times a factor of the sign of ``q`` (free of ``var``):
    ``oo*sign(g)`` is ``(g, 1)``, ``-3*oo`` is ``(3, -1)``; None where it is not an infinity of that form."""
    if value is None or value.has(sympy.nan, sympy.zoo) or not value.has(sympy.oo, -sympy.oo):
        return None
    coefficient, infinite = value.as_independent(sympy.oo, -sympy.oo, as_Add=False)
    if infinite not in (sympy.oo, -sympy.oo) or var in coefficient.free_symbols or coefficient.has(sympy.oo, -sympy.oo):
        return None
    if coefficient.is_Add and coefficient.has(sympy.sign):  # a sum of signs: its sign is not that of one expression
        return None
    q = coefficient.xreplace({s: s.args[0] for s in coefficient.atoms(sympy.sign)})  # sign(g)*k has the sign of g*k
    return q, 1 if infinite == sympy.oo else -1
