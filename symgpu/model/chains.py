"""A model's definition chains (each defined quantity's equation using others) checked free of cycles and at most
:data:`MAX_CHAIN` equations long: for every quantity at once when a model is built and checked whole, or from the
quantities a question reads, one at a time, when its equations are built as they are read
(:mod:`symgpu.model.lazy_build`).

Substitution, evaluation and the derivations walk such a chain one level at a time (recursively): a cycle would
never end and a longer chain would exhaust the stack, so both are refused here, with the file's location, first.
The walk is iterative: a long chain in any file order costs no recursion here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

#: Most equations in one chain, each using the next (c1 = c0 + L_F, c2 = c1 + L_F, ...).
MAX_CHAIN = 250


class Chains:
    """The chains from the quantities checked so far, each checked once.

    Args:
        uses: the defined quantities a defined quantity's equation uses (its right-hand side's symbols), asked
            once per quantity, when the walk first reaches it.
        equation_id: the id of the equation defining a quantity (for the error's location).
        fail: ``(where, problem, hint)`` -> the error to raise (the model's :meth:`~symgpu.model.checks.ModelChecks.fail`).
    """

    def __init__(self, uses: Callable[[str], Iterable[str]], equation_id: Callable[[str], str],
                 fail: Callable[[str, str, str], Exception]) -> None:
        self._uses = uses
        self._equation_id = equation_id
        self._fail = fail
        self._used: dict[str, list[str]] = {}
        #: each quantity whose chains are checked -> the most equations in one of them (its own included)
        self.depth: dict[str, int] = {}

    def uses(self, name: str) -> list[str]:
        """The defined quantities ``name``'s equation uses, in reverse order of name (the walk takes them in order)."""
        found = self._used.get(name)
        if found is None:
            found = self._used[name] = sorted(self._uses(name), reverse=True)
        return found

    def check(self, starts: Iterable[str]) -> None:
        """Walk the chains from each of ``starts`` (depth first, in order) not walked before.

        Raises:
            errors.ModelFileError: equations that form a cycle (the first one met, ``a -> b -> a``), or a chain of
                more than :data:`MAX_CHAIN` equations; nothing from the failed walk counts as checked.
        """
        depth = self.depth
        for start in starts:
            if start in depth:
                continue
            trail: list[str] = [start]
            on_trail = {start}
            pending: list[list[str]] = [list(self.uses(start))]
            while trail:
                if pending[-1]:
                    name = pending[-1].pop()
                    if name in depth:
                        continue
                    if name in on_trail:
                        loop = trail[trail.index(name):] + [name]
                        raise self._fail(f"equation {self._equation_id(name)}", f"equations form a cycle: {' -> '.join(loop)}",
                                         "an implicit relation must keep one side as an input symbol (see the fixed-point derivation)")
                    on_trail.add(name)
                    trail.append(name)
                    pending.append(list(self.uses(name)))
                    continue
                done = trail.pop()
                pending.pop()
                on_trail.discard(done)
                longest = 1 + max((depth[u] for u in self.uses(done)), default=0)
                if longest > MAX_CHAIN:
                    raise self._fail(f"equation {self._equation_id(done)}",
                                     f"'{done}' is defined through a chain of {longest} equations, each using the next (limit {MAX_CHAIN})",
                                     "write the chain's result in fewer steps (e.g. a closed form of the sum)")
                depth[done] = longest
