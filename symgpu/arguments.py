"""The types of the public API's arguments, checked at its front door (:func:`checked`, a decorator of
:meth:`symgpu.api.Model.evaluate` and the derivation operations of :mod:`symgpu.derive.checked`): ``preset=3``,
``values="n=1"``, ``substitute="a=b"`` or ``between="a,b"`` had failed deep inside with a bare AttributeError or
ValueError, or been read character by character (an outside tester's findings, round 14a, F4). A wrong type is an
:class:`symgpu.errors.ArgumentTypeError` naming the argument, what was given and what is expected, in one line."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ParamSpec, TypeVar

from symgpu import errors

P = ParamSpec("P")
R = TypeVar("R")


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _symbol(value: Any) -> bool:  # a name, or a SymPy Symbol (duck-typed: no SymPy import at this stage)
    return isinstance(value, str) or getattr(value, "is_Symbol", False) is True


def _optional(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or test(value)


def _mapping(value: Any) -> bool:
    return isinstance(value, Mapping)


def _items(each: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """One item (a text or a SymPy object) or a list, tuple or set of items that ``each`` accepts."""
    def test(value: Any) -> bool:
        if isinstance(value, str) or hasattr(value, "free_symbols"):
            return each(value)
        return isinstance(value, (list, tuple, set, frozenset)) and all(each(item) for item in value)
    return test


def _relation(value: Any) -> bool:
    return isinstance(value, str) or hasattr(value, "free_symbols")


def _limiter(value: Any) -> bool:  # "limiter", "equation.limiter" or an (equation, limiter) pair
    return isinstance(value, str) or isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, str) for v in value)


def _pair(value: Any) -> bool:
    return value is None or isinstance(value, (tuple, list)) and all(_symbol(item) for item in value)


#: argument -> (its test, what is expected): the names every front door gives these arguments
EXPECTED: Mapping[str, tuple[Callable[[Any], bool], str]] = {
    "name": (_symbol, "a quantity name (a str such as 'memory_throughput')"),
    "preset": (_optional(_text), "a preset name (a str such as 'maxwell', or 'A+B' for two merged) or None"),
    "values": (_optional(_mapping), "a mapping of symbol names to values (such as {'n': 20, 'mem_lat': '368 cycle'}) or None"),
    "substitute": (_optional(_mapping), "a mapping of symbol names to values or expression texts (such as {'alu_thru': 'issue_thru'}) or None"),
    "for_": (_symbol, "a symbol name (a str such as 'n') or a SymPy Symbol"),
    "over": (_optional(_symbol), "a symbol name (a str such as 'alpha') or a SymPy Symbol"),
    "var": (_symbol, "a symbol name (a str such as 'alpha') or a SymPy Symbol"),
    "variable": (_symbol, "a symbol name (a str such as 'x') or a SymPy Symbol"),
    "stop_at": (_items(_symbol), "a quantity name or a list/tuple of them (such as ('Latency',))"),
    "assume": (_optional(_items(_relation)), "a relation text (such as 'mem_lat > alu_lat') or a list/tuple of them, or None"),
    "omit": (_items(_limiter), "a limiter name ('limiter' or 'equation.limiter') or a list/tuple of them"),
    "between": (_pair, "two regime names as a tuple (such as ('latency_bound', 'memory_bound')) or None"),
}


def require(model_id: str, argument: str, value: Any) -> None:
    """Refuse ``value`` for ``argument`` unless it has a type :data:`EXPECTED` allows.

    Raises:
        errors.ArgumentTypeError: which argument, what was given (and its type) and what is expected.
    """
    test, expected = EXPECTED[argument]
    if test(value):
        return
    given = repr(value)
    given = given if len(given) <= 80 else given[:77] + "..."
    hint = ""
    if argument == "between" and isinstance(value, str):
        parts = tuple(part for part in re.split(r"[,\s]+", value) if part)
        hint = f"write between={parts!r}"
    elif argument in ("values", "substitute") and isinstance(value, (str, list, tuple)):
        hint = "write {'NAME': VALUE, ...}"
    raise errors.ArgumentTypeError(model_id or "symgpu", f"{argument}={given}",
                                   f"{_article(type(value).__name__)} {type(value).__name__} where {expected} is expected", hint)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def checked(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` with the types of its arguments named in :data:`EXPECTED` checked (:func:`require`) before it runs;
    the model (its first argument, or ``self``) names the message. A call that does not bind is left to ``function``."""
    signature = inspect.signature(function)
    names = tuple(name for name in signature.parameters if name in EXPECTED)

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            bound = signature.bind_partial(*args, **kwargs)
        except TypeError:
            return function(*args, **kwargs)  # Python's own message for a call that does not fit the signature
        owner = next(iter(bound.arguments.values()), None)
        for name in names:
            if name in bound.arguments:
                require(str(getattr(owner, "id", "")), name, bound.arguments[name])
        return function(*args, **kwargs)
    return wrapper


def names(value: Iterable[str] | str) -> frozenset[str]:
    """A lone name as one name (``stop_at="Latency"``), not its characters; an iterable of names as they are."""
    return frozenset((value,) if isinstance(value, str) else value)
