"""A cold model built for a question (issue 31: "parse and build only what the question needs"): each equation built
and checked when first read, as the whole build would build and check it, without a record that the model passed.

What a question reads is checked as it is read: an equation's dimensions when it is built (the whole build's
message), the definition chains from it free of cycles and at most :data:`~symgpu.model.chains.MAX_CHAIN` long
(:class:`~symgpu.model.chains.Chains`; reading a quantity builds and checks every equation it is defined through).
The whole-model checks, the equations no question read among them, are left to ``symgpu check``, ``validate`` and
the reports, which build models whole.

A bare literal that an equation reads in a scaled unit becomes a constant of the model
(:mod:`symgpu.model.literal_constants`), shared by the equations that write it. :func:`may_make_literal` tells from
an equation's texts alone, exactly, which equations cannot make one; the few others are built when the model loads
(:meth:`symgpu.model.build.Model._build_equations`: every constant made then, and declared), the rest when read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping

from symgpu.model import expressions, schema
from symgpu.model.chains import Chains
from symgpu.model.records import Equation

#: a run of word characters (ASCII: a Python name, or a number's digits and letters)
_WORD = re.compile(r"\w+", re.ASCII)


def texts(eq: schema.EquationDefinition) -> list[str]:
    """Every expression text of ``eq`` that its build parses: right-hand side or case values and conditions,
    limiters, ``valid_when`` and ``assumes``."""
    cases = [case.value for case in eq.cases] + [case.when for case in eq.cases if case.when.strip() != "otherwise"]
    return [eq.rhs, *cases, *(text for _, text in eq.limiters), *eq.valid_when, *eq.assumes]


def may_make_literal(eq: schema.EquationDefinition, symbols: Collection[str], scaled: Collection[str]) -> bool:
    """Whether building ``eq`` may make a literal constant, from its texts alone (False only where it cannot).

    A constant is made only of a part of the tree that holds no symbol (:meth:`literal_constants.Literals.rewrite`),
    whose leaves the parser builds only from literals (a number's digits, ``True``/``False``: every other name is a
    declared symbol, a function called, or refused), and only in an equation that defines or uses a symbol of a
    scaled unit (``scaled``; :meth:`~symgpu.model.build.Model._scaled_symbols`), or, where the model's units give a
    dimension two scales (its literals of scale 1 made constants too), every symbol. So an equation cannot make one
    where its texts hold no word that starts with a digit or is neither a declared symbol nor a function, or name no
    scaled symbol and define none. Text beyond ASCII (a name Python reads under NFKC normalisation) may.
    """
    words: set[str] = set()
    for text in texts(eq):
        if not text.isascii():
            return True
        words.update(_WORD.findall(text))
    bare = any(word[0].isdigit() or (word not in symbols and word not in expressions.FUNCTIONS) for word in words)
    return bare and (eq.defines in scaled or not words.isdisjoint(scaled))


class ColdEquations:
    """The build behind a cold lazy model's :class:`~symgpu.model.records.LazyEquations`: an equation read is built
    and checked (``build``), and so is every equation it is defined through, its chains checked
    (:class:`~symgpu.model.chains.Chains`); each is kept in ``built`` (by equation id) once its chains passed.

    Args:
        by_defines: each equation's definition by the quantity it defines.
        built: the lazy views' shared equations by id.
        build: an equation built and dimension-checked (raises the whole build's error).
        fail: the model's error builder, for a cycle or a chain too long.
        all_read: called once, when every equation is built and checked, and the chains from each.
    """

    def __init__(self, by_defines: Mapping[str, schema.EquationDefinition], built: dict[str, Equation],
                 build: Callable[[schema.EquationDefinition], Equation], fail: Callable[[str, str, str], Exception],
                 all_read: Callable[[], None]) -> None:
        self._by_defines = by_defines
        self._built = built
        self._build = build
        self._all_read: Callable[[], None] | None = all_read
        #: built and checked, chains not yet (a walk that failed elsewhere)
        self._pending: dict[str, Equation] = {}
        self.chains = Chains(self._uses, lambda name: by_defines[name].id, fail)

    def _equation(self, name: str) -> Equation:
        definition = self._by_defines[name]
        found = self._built.get(definition.id) or self._pending.get(name)
        if found is None:
            found = self._pending[name] = self._build(definition)
        return found

    def _uses(self, name: str) -> Iterable[str]:
        return (s.name for s in self._equation(name).rhs.free_symbols if s.name in self._by_defines)

    def read(self, definition: schema.EquationDefinition) -> Equation:
        """The equation of ``definition``, built and checked with every equation it is defined through.

        Raises:
            errors.ModelFileError: one of them does not build or check (the whole build's message), or its
                chains hold a cycle or are too long.
        """
        self.chains.check((definition.defines,))
        for name in [n for n in self._pending if n in self.chains.depth]:
            equation = self._pending.pop(name)
            self._built.setdefault(equation.id, equation)
        found = self._equation(definition.defines)
        if self._all_read is not None and len(self.chains.depth) == len(self._by_defines):
            all_read, self._all_read = self._all_read, None
            all_read()
        return found
