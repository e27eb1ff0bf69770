"""An error message quotes an expression by its first characters (``model.printing.brief``): the same text as
``sympy.sstr(expr)[:n]`` for an expression of modest size, and a bounded amount of work for a huge one, which
printing in full only to cut it made seconds per caught error (Volkov's warp throughput over dual_issues: 278 s of
a 373 s extremum spent printing messages that were caught and dropped)."""

import sympy

from symgpu.evaluate import one_sided
from symgpu import errors
from symgpu.model import printing


def test_a_modest_expression_is_quoted_as_sympy_prints_it_cut_to_the_length() -> None:
    x, y, z = sympy.symbols("x y z", positive=True)
    for expr in (x, sympy.Min(x + 1, y**2) / 3, sympy.Piecewise((x, x > y), (y * z, True)),
                 sympy.Add(*[sympy.Symbol(f"a{i}") * x**i for i in range(40)])):
        for n in (5, 80, 120):
            assert printing.brief(expr, n) == sympy.sstr(expr)[:n]


def test_an_expression_whose_full_text_is_astronomical_is_quoted_in_a_few_characters() -> None:
    # each level uses the one below twice: 2**60 copies of x in the printed text, never printable in full
    x, y = sympy.symbols("x y", positive=True)
    expr = x
    for _ in range(60):
        expr = (expr + x) * (expr + y)
    text = printing.brief(expr, 120)
    assert 0 < len(text) <= 120 and "x" in text


def test_an_undefined_value_of_such_an_expression_is_refused_with_a_short_message() -> None:
    x, y = sympy.Symbol("x"), sympy.Symbol("y", positive=True)  # x may be negative: no one-sided limit is taken
    expr = 1 / x
    for _ in range(60):
        expr = (expr + y) * (expr + 2 * y)
    try:
        one_sided.substitute(expr, {x: sympy.Integer(0), y: sympy.Integer(1)})
    except errors.NoValueError as exc:
        assert str(exc).startswith("the expression is undefined at the given values (") and len(str(exc)) < 200
    else:
        raise AssertionError("1/x at x = 0 has a value")
