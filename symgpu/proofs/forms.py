"""Forms of expressions: factored (``sympy.factor``) and simplified (``sympy.simplify``, or ``cancel``
for large expressions), each computed once per expression (both are deterministic: the same input
gives the same output); the exact number a caller's number stands for; and what an expression is
built from (``Min``/``Max``/``Piecewise`` pieces, ``floor``/``ceiling`` staircases); ``xreplace`` with each
node's outcome remembered (:func:`xreplaced`)."""

from __future__ import annotations

from typing import Any

import sympy

from symgpu import errors
from symgpu.memo import Memo, Tally, memoised
from symgpu.proofs import linear_factors, unordered, whole_parts

_PIECEWISE = (sympy.Min, sympy.Max, sympy.Piecewise)
_INTEGER_PARTS = (sympy.floor, sympy.ceiling)
#: what :func:`_sum_of_generators` takes as a generator of a polynomial
_GENERATORS = (sympy.Symbol, *_INTEGER_PARTS)
#: :func:`small_simplify`'s results by expression (simplify is deterministic: the same input gives the same output)
_SMALL_SIMPLIFIED: Memo[sympy.Basic, sympy.Basic] = Memo("proofs.forms.small_simplify", 20000)
#: factored forms by expression (``sympy.factor`` is deterministic too; tidying meets the same
#: polynomial again under each regime and variable)
_FACTORED: Memo[sympy.Basic, sympy.Basic] = Memo("proofs.forms.factored", 20000)
#: ``sympy.simplify``'s own result by expression (:func:`simplified`: what :func:`small_simplify` reads, and
#: :mod:`symgpu.derive.rational_solve`'s check that a root is its own simplified form, which meets the same roots)
_SIMPLIFY_RESULTS: Memo[sympy.Basic, sympy.Basic] = Memo("proofs.forms.simplify_results", 20000)
#: calls of ``sympy.factor`` and ``sympy.simplify`` (what the memos and the monomial shortcut save)
_FACTORINGS = Tally("proofs.forms.factor")
_SIMPLIFICATIONS = Tally("proofs.forms.simplify")
#: free symbols by expression (:func:`free_symbols`)
_FREE: Memo[sympy.Basic, frozenset[sympy.Basic]] = Memo("proofs.forms.free_symbols", 1024)
#: SymPy's free-symbol set of each subexpression walked (:func:`ordered_free_symbols`), never handed out to be changed
_NODE_FREE: Memo[sympy.Basic, set[sympy.Basic]] = Memo("proofs.forms.node_free_symbols", 50000)
#: per class, whether its ``free_symbols`` is ``Basic``'s own (the union of its arguments')
_UNIONS: Memo[type, bool] = Memo("proofs.forms.unions_arguments", 1024)


def factored(expr: sympy.Expr) -> sympy.Expr:
    """``sympy.factor(expr)``, memoised per expression. A monomial (a product of integer
    powers of symbols, numbers and ``floor``/``ceiling`` of such products) is its own
    factored form and is given back as it is."""
    if isinstance(expr, sympy.Basic) and (expr.is_Atom or _integer_monomial(expr, sums=False)):
        return expr
    if expr not in _FACTORED:
        summed = _sum_of_generators(expr)
        if summed is not None:  # its own factored form, its generators as factor's expand leaves them: no factoring
            _FACTORED[expr] = summed
            return summed
        _FACTORINGS.add()  # a factoring done (by the linear route or by SymPy)
        fast = linear_factors.factor(expr)  # the same form, through a variable expr is linear in
        _FACTORED[expr] = sympy.factor(_pieces_expanded(expr)) if fast is None else fast
    return _FACTORED[expr]


def expanded(expr: sympy.Expr) -> sympy.Expr:
    """``sympy.expand(expr)``; for a sum of distinct generators with coefficients 1 and -1 (:func:`_sum_of_generators`)
    the sum of its terms' expansions, each generator's expanded once per process: ``expand`` of a sum is the sum of its
    terms' (a sum has no expansion of its own; ``expand`` rebuilds it from its expanded terms, which here stay distinct
    generators, so none merge), and a unit coefficient stays outside its generator. Proved against ``sympy.expand``
    (tests/test_sums_of_generators_factor_as_sympy_factors_them.py). For a polynomial over the integers in symbols
    (:func:`~symgpu.proofs.linear_factors.ring_of`: the product of a tidied condition's kept factors) the
    polynomial the ring's arithmetic builds, written out (``as_expr``): ``expand`` of such a polynomial is the sum of
    its monomials, each an integer times powers of its symbols, which SymPy's ``Add`` and ``Mul`` put in one canonical
    order however they are built; a third of the time. Proved against ``sympy.expand``
    (tests/test_polynomials_built_as_sring_and_expand_build_them.py)."""
    summed = _sum_of_generators(expr) if isinstance(expr, sympy.Expr) else None
    if summed is not None:
        return summed
    built = linear_factors.ring_of(expr) if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Pow)) else None
    return built[1].as_expr() if built is not None else sympy.expand(expr)


def _sum_of_generators(expr: sympy.Expr) -> sympy.Expr | None:
    """``sympy.factor(expr)`` for a sum (or one term) of distinct generators, each with coefficient 1 or -1: a symbol, or
    a ``floor``/``ceiling`` whose ``expand`` is still one (the occupancy limits' differences, ``floor(A) - floor(B)``:
    1-4 ms each in ``factor``, 63 of them in one regime table); None for anything else. ``factor`` reads ``expr`` as a
    polynomial in the generators of its ``expand`` (each term's ``expand`` here, the same: ``expand`` of a sum is the sum
    of its terms' and a unit coefficient stays outside a generator), of degree 1 in each, whose content is 1 (a unit
    coefficient): irreducible, so it gives the polynomial back, rebuilt from its terms, which is the sum of the expanded
    terms. Proved against ``sympy.factor`` (tests/test_sums_of_generators_factor_as_sympy_factors_them.py)."""
    terms = []
    for term in sympy.Add.make_args(expr):
        coefficient, generator = term.as_coeff_Mul()
        if not (coefficient is sympy.S.One or coefficient is sympy.S.NegativeOne) or not isinstance(generator, _GENERATORS):
            return None
        expanded = generator if isinstance(generator, sympy.Symbol) else _expanded_generator(generator)
        if not isinstance(expanded, _GENERATORS) or not expanded.is_commutative:
            return None
        terms.append((coefficient, expanded))
    if len({generator for _, generator in terms}) != len(terms):
        return None  # two terms of one generator: their coefficients add up
    return sympy.Add(*[coefficient * generator for coefficient, generator in terms])


@memoised("proofs.forms.expanded_generator", 4096)
def _expanded_generator(generator: sympy.Expr) -> sympy.Expr:
    """``sympy.expand(generator)`` (memoised: the differences of a regime table pair the same few limits again and again)."""
    return sympy.expand(generator)


def _pieces_expanded(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with each ``Min``/``Max`` built from its arguments as ``expand`` leaves them, as SymPy builds it
    (:func:`~symgpu.proofs.unordered.proved_node`: every argument proved kept), so that ``sympy.factor`` of it is
    ``sympy.factor(expr)`` without SymPy's own rebuilding. ``factor`` reads ``expr`` through its deep ``expand``,
    which rebuilds a ``Min``/``Max`` whose arguments a pass changes, searching them for dominated ones each time
    (0.1 s for Hong & Kim's ``CWP - MWP`` condition); a node whose arguments are ``expand``'s fixed points is left as
    it is. The two give one ``expand``: an argument inside the node goes through the passes it would go through
    alone, so it ends as ``expand`` of it; no pass's rebuilding can drop an argument, since every pair is ordered
    both ways at admissible points (for any form of them: the forms are equal); and the node SymPy builds from the
    final arguments is ``proved_node``'s. ``factor`` then reads the same polynomial in the same generators. ``expr``
    itself where a node has a ``Min``/``Max`` among its arguments, an argument that one more ``expand`` would change,
    or an argument not proved kept."""
    if not isinstance(expr, sympy.Expr) or not expr.has(sympy.Min, sympy.Max):
        return expr
    mapping: dict[sympy.Basic, sympy.Basic] = {}
    for node in expr.atoms(sympy.Min, sympy.Max):
        args = tuple(sympy.expand(a) for a in node.args)
        if any(a.has(sympy.Min, sympy.Max) or sympy.expand(a) != a for a in args):
            return expr
        built = unordered.proved_node(node.func, args)
        if built is None:
            return expr
        mapping[node] = built
    return expr.xreplace(mapping)  # type: ignore[no-any-return]


def free_symbols(expr: sympy.Basic) -> frozenset[sympy.Basic]:
    """``expr.free_symbols``, memoised per expression. SymPy walks the whole tree at every call
    (13 ms for the 228-regime occupancy table), and an answer's form is asked for its symbols by
    several checks in turn (its inputs, their units, the point's values, its ties)."""
    found = _FREE.get(expr)
    if found is None:
        found = _FREE[expr] = frozenset(_free_set(expr))
    return found


def ordered_free_symbols(expr: sympy.Basic) -> tuple[sympy.Basic, ...]:
    """``tuple(expr.free_symbols)``: SymPy's set, in its order (:func:`_free_set`)."""
    return tuple(_free_set(expr))


def _free_set(expr: sympy.Basic) -> set[sympy.Basic]:
    """``expr.free_symbols``: the same set, built by the same unions (so it iterates in the same order), each distinct
    subexpression's computed once per process. SymPy's ``Basic.free_symbols`` is the union of its arguments', in
    order, computed afresh for every occurrence of a part shared by many: the rows of a regime table repeat the
    same relations hundreds of times. A class with its own ``free_symbols`` (a symbol, an integral) is asked as
    SymPy asks it. The set is the memo's: read it, never change it."""
    found = _NODE_FREE.get(expr)
    if found is None:
        unions = _UNIONS.get(type(expr))
        if unions is None:
            owner = next((k for k in type(expr).__mro__ if "free_symbols" in k.__dict__), None)
            unions = _UNIONS[type(expr)] = owner is sympy.Basic
        found = set().union(*(_free_set(a) for a in expr.args)) if unions else expr.free_symbols
        _NODE_FREE[expr] = found
    return found


def atoms(expr: sympy.Basic, *types: type) -> set[sympy.Basic]:
    """``expr.atoms(*types)``: the same set, its members put in in the same order (so it iterates in the same order),
    with each distinct subexpression walked once. SymPy's preorder traversal walks a subexpression again wherever it
    recurs (73 thousand nodes for the 228-row occupancy regime table, whose distinct nodes are a few hundred); a
    subexpression equal to one walked before adds only members already in the set. The same traversal otherwise: a
    node, then its arguments in order (a ``LatticeOp``'s, ``And``/``Min``/...: its argument set, as SymPy walks it)."""
    if not types:  # SymPy's default (its atoms proper)
        return expr.atoms()
    found: set[sympy.Basic] = set()
    walked: set[sympy.Basic] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if not isinstance(node, sympy.Basic):
            return expr.atoms(*types)  # a non-SymPy argument: SymPy's own walk
        if node in walked:
            continue
        walked.add(node)
        if isinstance(node, types):
            found.add(node)
        args = node._argset if hasattr(node, "_argset") else node.args
        stack.extend(reversed(tuple(args)))
    return found


def has_pieces(expr: Any) -> bool:
    """Does ``expr`` contain a ``Min``, ``Max`` or ``Piecewise``?"""
    return isinstance(expr, sympy.Basic) and expr.has(*_PIECEWISE)


def abs_as_max(expr: Any, var: sympy.Symbol) -> Any:
    """``expr`` with each ``Abs(u)`` whose ``u`` holds ``var`` written ``Max(u, -u)`` (``u`` real): a kink where ``u`` is 0
    between two regimes, as a Min/Max has (``Abs(L - 300) <= 100`` holds where ``L - 300 <= 100`` and ``300 - L <= 100``)."""
    if not isinstance(expr, sympy.Basic) or not expr.has(sympy.Abs):
        return expr
    return expr.replace(lambda e: isinstance(e, sympy.Abs) and var in e.free_symbols, lambda e: sympy.Max(e.args[0], -e.args[0]))


def has_staircase(expr: Any, var: sympy.Symbol) -> bool:
    """Does ``expr`` contain ``floor``/``ceiling`` of something depending on ``var``?"""
    if not isinstance(expr, sympy.Basic):
        return False
    return any(var in node.free_symbols for node in expr.atoms(*_INTEGER_PARTS))


def exact_number(value: Any) -> sympy.Expr:
    """An exact SymPy number from an int/float/str number (``0.1477`` -> ``1477/10000``).

    Raises:
        errors.UsageError: ``value`` is a bool.
        TypeError, ValueError: text that is not a number.
    """
    if isinstance(value, bool):
        raise errors.UsageError(f"{value!r} is not a number")
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, float):
        return sympy.Rational(repr(value))
    return sympy.Rational(str(value))


def small_simplify(expr: sympy.Expr) -> sympy.Expr:
    """Simplify, but only when the expression is small enough to do it quickly (memoised per expression)."""
    if not isinstance(expr, sympy.Basic) or expr.is_Atom:
        return expr
    if expr in _SMALL_SIMPLIFIED:
        return _SMALL_SIMPLIFIED[expr]
    try:
        if _monomial_of_integer_parts(expr):
            out = expr
        elif sympy.count_ops(expr) > 120:
            out = sympy.cancel(expr) if not has_pieces(expr) else expr
        else:
            out = _logs_of_powers_undone(simplified(expr), expr)
    except (TypeError, ValueError, NotImplementedError, RecursionError):
        out = expr
    _SMALL_SIMPLIFIED[expr] = out
    return out


def simplified(expr: sympy.Basic) -> sympy.Basic:
    """``sympy.simplify(expr)``, memoised per expression (simplify is deterministic: the same input gives the same
    output), so that :func:`small_simplify` and :mod:`symgpu.derive.rational_solve` (which asks whether a root is its
    own simplified form, and meets the same roots as the conditions solved for them) run it once for each; a product of
    integer powers of symbols, numbers and ``floor``/``ceiling`` of such products (:func:`_monomial_of_integer_parts`)
    is given back as it is, as ``simplify`` gives it back, without running it. An exception ``simplify`` raises is
    raised again at each call (nothing is kept)."""
    if not isinstance(expr, sympy.Basic) or not expr.args or _monomial_of_integer_parts(expr):
        return expr  # an atom as simplify gives it back too
    found = _SIMPLIFY_RESULTS.get(expr)
    if found is None:
        _SIMPLIFICATIONS.add()
        found = _SIMPLIFY_RESULTS[expr] = sympy.simplify(expr)
    return found


def _is_log_of_a_power(e: sympy.Basic) -> bool:
    """``log(x**s)`` or ``log(c**t*x**s)``: a log of a power (or product of powers) with a symbolic exponent."""
    return isinstance(e, sympy.log) and any(f.is_Pow and not f.exp.is_number for f in sympy.Mul.make_args(e.args[0]))


def _logs_of_powers_undone(out: sympy.Expr, expr: sympy.Expr) -> sympy.Expr:
    """``simplify``'s result with ``log(x**s)`` (``log(c**t*x**s)``) written back as ``s*log(x)`` (``t*log(c) +
    s*log(x)``, where the bases are positive, as ``simplify`` needs to combine them) where ``expr`` had no such
    log: ``simplify`` combines ``s_fork*log(ilp/ilp_ref)`` into ``log((ilp/ilp_ref)**s_fork)``, whose
    exponent has a unit (cycles) and whose power overflows IEEE doubles long before the log does."""
    if not out.has(sympy.log) or expr.find(_is_log_of_a_power):
        return out
    return out.replace(_is_log_of_a_power, _log_of_powers_split)


def _log_of_powers_split(e: sympy.log) -> sympy.Expr:
    """``log(c**t*x**s*y)`` as ``t*log(c) + s*log(x) + log(y)``: each power of symbolic exponent taken out."""
    powers = [f for f in sympy.Mul.make_args(e.args[0]) if f.is_Pow and not f.exp.is_number]
    rest = sympy.Mul(*(f for f in sympy.Mul.make_args(e.args[0]) if f not in powers))
    return sympy.Add(*(f.exp * sympy.log(f.base) for f in powers)) + (sympy.log(rest) if rest != 1 else 0)


def _monomial_of_integer_parts(expr: sympy.Expr) -> bool:
    """Is ``expr`` a product of integer powers of symbols, numbers and ``floor``/``ceiling``
    of such products, all the way down (inside an integer part, a sum of symbols apart from the
    product's other factors may be one of them: :func:`_integer_monomial`)? ``simplify`` gives
    such a product back unchanged:
    its factors are independent generators with nothing to cancel or combine, and no
    argument has a sum to rewrite. (The occupancy limits, floors of floors of such
    products, took 50-120 ms each in ``simplify`` for no change.) A sum anywhere inside, as
    in ``floor(y**2/(x + y)**2)/y`` (0 for positive ``x``, ``y``), goes to ``simplify``."""
    if not isinstance(expr, (sympy.Mul, sympy.Pow, *_INTEGER_PARTS)):
        return False
    return _integer_monomial(expr, sums=False)


def _integer_monomial(expr: sympy.Expr, *, sums: bool) -> bool:
    """``sums``: ``expr`` is an integer part's argument, where one more kind of factor is kept, a sum of distinct
    symbols (each once, coefficient 1) to the first power, none of them in the product's other factors, which have no
    negative number, as in the
    occupancy calculator's ``ceiling((smem_per_block + smem_reserved_per_block)/smem_alloc_unit)``: nothing cancels
    against it and no term leaves the integer part (``ceiling((a + b)/a)`` goes to ``simplify``)."""
    factors = sympy.Mul.make_args(expr)
    for factor in factors:
        base, exponent = factor.as_base_exp()
        if not exponent.is_Integer:
            return False
        if isinstance(base, _INTEGER_PARTS):
            if not _integer_monomial(base.args[0], sums=True):
                return False
        elif sums and isinstance(base, sympy.Add) and exponent == 1:
            if not _sum_apart(base, [f for f in factors if f is not factor]):
                return False
        elif not (base.is_Symbol or base.is_Number):
            return False
    return True


def _sum_apart(total: sympy.Add, others: list[sympy.Expr]) -> bool:
    """Is ``total`` a sum of distinct symbols none of which ``others`` reads, with no negative number among them
    (``simplify`` moves a minus sign into the sum)?"""
    if not all(term.is_Symbol for term in total.args) or any(other.is_Number and other.is_negative for other in others):
        return False
    return not any(term in other.free_symbols for other in others for term in total.args)


#: free symbols from which a branch value is presented without ``simplify`` (:func:`branch_form`)
MANY_SYMBOLS = 10


def branch_form(expr: Any) -> Any:
    """Present one branch of a nested ``Min``/``Max``/``Piecewise``: :func:`nice`, except for a
    value of :data:`MANY_SYMBOLS` free symbols or more, which is presented as the shortest
    (``count_ops``) of itself, its ``together`` form and that with its common factors taken out
    (a sum spelled out and as a factor, :func:`_collected`, then ``factor_terms``), each also with a sum whose terms are mostly negative turned round
    (``-a/(-b - c)`` as ``a/(b + c)``). ``simplify`` of such a value
    costs 40 to 220 ms (Hong & Kim's regimes: 12 to 15 symbols) and, on the question corpus,
    gave back a longer value than its input for 9 of 13 such values: it has nothing to cancel
    that ``together`` leaves."""
    if not isinstance(expr, sympy.Expr) or len(expr.free_symbols) < MANY_SYMBOLS:
        return nice(expr)
    together = sympy.together(expr)
    common = sympy.factor_terms(_collected(together))  # a common factor taken out: X + (c - 1)*X is X*c
    return min((expr, _signs_turned(expr), together, _signs_turned(together), common, _signs_turned(common)), key=sympy.count_ops)


def _collected(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with a sum ``A`` that appears both as a factor of one term (``c*A``) and, spelled
    out, as the other terms (``A + c*A``) written once: ``(c + 1)*A``. MDM's multi-round stall
    ``X + (ceiling(M_Read*W/MSHRs) - 1)*X`` (its ``X`` a sum of four terms, flattened into the
    outer sum) is ``ceiling(M_Read*W/MSHRs)*X``. ``expr`` itself where there is no such sum."""
    numerator, denominator = sympy.fraction(expr)
    if not isinstance(numerator, sympy.Add):
        return expr
    for term in numerator.args:
        for factor in sympy.Mul.make_args(term):
            if isinstance(factor, sympy.Add) and numerator - term - factor == 0:
                return (term / factor + 1) * factor / denominator
    return expr


def _signs_turned(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with each sum factor of a product whose sign SymPy would extract (its leading
    terms negative) written as minus the negated sum."""
    if not isinstance(expr, sympy.Mul):
        return expr
    factors, flips = [], 0
    for factor in expr.args:
        base, exponent = factor.as_base_exp()
        if isinstance(base, sympy.Add) and exponent.is_Integer and exponent % 2 == 1 and base.could_extract_minus_sign():
            factors.append((-base) ** exponent)
            flips += 1
        else:
            factors.append(factor)
    return sympy.Mul(*factors) * (-1) ** flips


def nice(expr: Any) -> Any:
    """Present a result: :func:`small_simplify` (non-expressions are returned as they are)."""
    if not isinstance(expr, sympy.Expr):
        return expr
    out = small_simplify(expr)
    return out


def xreplaced(node: sympy.Basic, rule: dict[sympy.Symbol, sympy.Expr],
              memo: dict[sympy.Basic, tuple[sympy.Basic, bool]]) -> tuple[sympy.Basic, bool]:
    """SymPy's ``Basic._xreplace(rule)`` (the node and whether it changed), remembering each node's
    outcome in ``memo`` (equal nodes give equal outcomes); a rebuilt Min/Max is
    :func:`~symgpu.proofs.unordered.min_max`'s, the node SymPy builds."""
    if node in rule:
        return rule[node], True
    found = memo.get(node)
    if found is not None:
        return found
    args = []
    changed = False
    for arg in node.args:
        if isinstance(arg, sympy.Basic):
            new, arg_changed = xreplaced(arg, rule, memo)
            args.append(new)
            changed |= arg_changed
        else:
            args.append(arg)
    if not changed:
        outcome: tuple[sympy.Basic, bool] = (node, False)
    elif node.func is sympy.Min or node.func is sympy.Max:
        outcome = (unordered.min_max(node.func, tuple(args)), True)  # SymPy's node, its search done once per argument tuple
    else:  # SymPy's node (a floor/ceiling's evaluation skipped where proved)
        outcome = (whole_parts.rebuilt(node.func, args), True)
    memo[node] = outcome
    return outcome


#: the most expressions :func:`min_max_branches` gives (each Min/Max multiplies their number by its arguments')
MAX_MIN_MAX_BRANCHES = 16


def min_max_branches(expr: sympy.Expr) -> list[sympy.Expr] | None:
    """The expressions ``expr`` can equal, each Min/Max replaced by one of its arguments (innermost first, each once); None
    past :data:`MAX_MIN_MAX_BRANCHES`."""
    nodes = [n for n in sympy.postorder_traversal(expr) if isinstance(n, (sympy.Min, sympy.Max))]
    if not nodes:
        return [expr]
    found: list[sympy.Expr] = []
    for arg in nodes[0].args:
        more = min_max_branches(expr.xreplace({nodes[0]: arg}))
        if more is None or len(found) + len(more) > MAX_MIN_MAX_BRANCHES:
            return None
        found.extend(m for m in more if m not in found)
    return found
