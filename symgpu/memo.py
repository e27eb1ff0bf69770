"""Bounded in-process memos: one type for every module-level cache of symgpu, with a name, a
bound, hit and miss counts, and one reset (:func:`clear_all`) for tests and benchmarks; and
:class:`Tally`, a named count of calls of an expensive step, reset alike. :func:`undoing_clears`
puts back what a block's :func:`clear_all` emptied (a test that starts cold does not leave the
tests after it to warm every memo again).

Eviction is *clear when full*: inserting a new key into a memo that holds ``maxsize`` entries
first empties it. Chosen over LRU because (1) it is what the hand-written caches it replaces
did, so their behaviour is unchanged; (2) a hit is one dict lookup, with no reordering on the
hot paths (sign verdicts, factored forms are looked up hundreds of thousands of times); (3) a
memo whose entries must go together (values at one generic point) never loses part of a set.
A memo is a cache only: every value can be computed again, so a clear never changes a result.

State kept per owner (a model's compiled functions, its expanded expressions) is a
:class:`MemoFamily`: one :class:`Memo` per owner, each bounded by the family's ``maxsize``, the
owners held weakly; the family is registered and counted as one.

NOTE: layer 0; imports nothing from symgpu.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, overload

K = TypeVar("K")
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])

_MISSING: Any = object()


@dataclass(frozen=True)
class MemoStats:
    """One memo's state: its name, entries held, bound, and lookups that hit or missed."""

    name: str
    size: int
    maxsize: int
    hits: int
    misses: int
    #: a family's owners holding a memo (``None`` for a single memo); then ``size``, ``hits`` and
    #: ``misses`` are summed over their memos and ``maxsize`` bounds each of them
    owners: int | None = None


class Memo(Generic[K, V]):
    """A mapping that holds at most ``maxsize`` entries (emptied when a new key would exceed
    it), registered under ``name`` for :func:`clear_all` and :func:`stats`.

    ``key in memo``, :meth:`get` and :meth:`setdefault` count a hit or a miss; ``memo[key]``
    does not (it follows an ``in`` that was counted). ``weak=True`` keeps the keys weakly
    (a model's entries go with the model), as :class:`weakref.WeakKeyDictionary` does.
    """

    __slots__ = ("name", "maxsize", "hits", "misses", "_data", "__weakref__")

    def __init__(self, name: str, maxsize: int, *, weak: bool = False, registered: bool = True) -> None:
        if maxsize < 1:
            raise ValueError(f"memo {name!r}: maxsize is {maxsize}, but it should be at least 1")
        self.name = name
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._data: dict[K, V] | weakref.WeakKeyDictionary[Any, V] = weakref.WeakKeyDictionary() if weak else {}
        if registered:  # a member of a MemoFamily is counted and cleared through its family
            _register(self)

    def __repr__(self) -> str:
        return f"Memo({self.name!r}, {len(self._data)}/{self.maxsize})"

    def __contains__(self, key: object) -> bool:
        found = key in self._data
        if found:
            self.hits += 1
        else:
            self.misses += 1
        return found

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __setitem__(self, key: K, value: V) -> None:
        data = self._data
        if len(data) >= self.maxsize and key not in data:
            data.clear()
        data[key] = value

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._data))

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: V) -> V: ...

    def get(self, key: K, default: V | None = None) -> V | None:
        value = self._data.get(key, _MISSING)
        if value is _MISSING:
            self.misses += 1
            return default
        self.hits += 1
        return cast(V, value)

    def setdefault(self, key: K, default: V) -> V:
        value = self._data.get(key, _MISSING)
        if value is _MISSING:
            self.misses += 1
            self[key] = default
            return default
        self.hits += 1
        return cast(V, value)

    def clear(self) -> None:
        """Empty the memo and reset its counts."""
        self._data.clear()
        self.hits = self.misses = 0

    def stats(self) -> MemoStats:
        return MemoStats(self.name, len(self._data), self.maxsize, self.hits, self.misses)

    def _take(self) -> _State:
        """Empty the memo and reset its counts as :meth:`clear` does, returning what it held (the
        mapping itself, not a copy: weak keys stay weak)."""
        state = _State(self._data, self.hits, self.misses)
        self._data = weakref.WeakKeyDictionary() if isinstance(self._data, weakref.WeakKeyDictionary) else {}
        self.hits = self.misses = 0
        return state

    def _put(self, state: _State) -> None:
        """Hold again what :meth:`_take` returned (what was put in since is dropped)."""
        self._data, self.hits, self.misses = state.data, state.hits, state.misses


@dataclass(frozen=True)
class _State:
    """What a memo held when :meth:`Memo._take` emptied it: its mapping and counts."""

    data: Any
    hits: int
    misses: int


@dataclass(frozen=True)
class _FamilyState:
    """What a family held when :meth:`MemoFamily._take` emptied it: its owners' memos (owners
    held weakly, as by the family) and each member with what it held."""

    owners: _State
    members: tuple[tuple[Memo[Any, Any], _State], ...]


class MemoFamily(Generic[K, V]):
    """One :class:`Memo` per owner (a model): what is derived from each owner, bounded per owner.

    :meth:`of` gives an owner's memo, made empty on first use; each holds at most ``maxsize``
    entries and is emptied when full, as every memo. The owners are held weakly (an owner's memo
    goes with it), at most ``owners`` of them (then the family starts afresh). The family is
    registered under ``name``: :func:`stats` gives its members' entries and counts summed (of
    the owners alive), :func:`clear_all` empties every member and forgets the owners.
    """

    __slots__ = ("name", "maxsize", "_members")

    def __init__(self, name: str, maxsize: int, *, owners: int = 1024) -> None:
        if maxsize < 1:
            raise ValueError(f"memo {name!r}: maxsize is {maxsize}, but it should be at least 1")
        self.name = name
        self.maxsize = maxsize
        self._members: Memo[Any, Memo[K, V]] = Memo(name, owners, weak=True, registered=False)
        _register(self)

    def __repr__(self) -> str:
        return f"MemoFamily({self.name!r}, {len(self._members)} owners, {self.maxsize} each)"

    def of(self, owner: Any) -> Memo[K, V]:
        """The memo of ``owner`` (weakly referenceable and hashable), made empty on first use."""
        found = self._members.get(owner)
        if found is None:
            found = self._members[owner] = Memo(self.name, self.maxsize, registered=False)
        return found

    def clear(self) -> None:
        """Empty every member (a holder of one sees it empty) and forget the owners."""
        for owner in self._members:
            self._members[owner].clear()
        self._members.clear()

    def stats(self) -> MemoStats:
        members = [self._members[owner] for owner in self._members]
        return MemoStats(self.name, sum(len(m) for m in members), self.maxsize,
                         sum(m.hits for m in members), sum(m.misses for m in members), owners=len(members))

    def _take(self) -> _FamilyState:
        """Empty every member and forget the owners as :meth:`clear` does, returning what they held."""
        members = [self._members[owner] for owner in self._members]
        return _FamilyState(self._members._take(), tuple((member, member._take()) for member in members))

    def _put(self, state: _FamilyState) -> None:
        """Hold again the owners and members :meth:`_take` returned (an owner gone since stays gone)."""
        self._members._put(state.owners)
        for member, held in state.members:
            member._put(held)


#: every memo and memo family made, by name
_REGISTRY: dict[str, Memo[Any, Any] | MemoFamily[Any, Any]] = {}


def _register(memo: Memo[Any, Any] | MemoFamily[Any, Any]) -> None:
    if memo.name in _REGISTRY:
        raise ValueError(f"memo {memo.name!r} exists already: give each memo its own name")
    _REGISTRY[memo.name] = memo


class Tally:
    """A named count of calls of an expensive step that a fast path or a memo is there to avoid
    (SymPy's ``factor``, ``simplify``, ``solve``), registered for :func:`clear_all` and
    :func:`tallies`: how tests and benchmarks see that the step did not run, without replacing it."""

    __slots__ = ("name", "count")

    def __init__(self, name: str) -> None:
        if name in _TALLIES:
            raise ValueError(f"tally {name!r} exists already: give each tally its own name")
        self.name = name
        self.count = 0
        _TALLIES[name] = self

    def __repr__(self) -> str:
        return f"Tally({self.name!r}, {self.count})"

    def add(self) -> None:
        """Count one call."""
        self.count += 1


#: every tally made, by name
_TALLIES: dict[str, Tally] = {}


def tallies() -> dict[str, int]:
    """The count of every registered tally since the last :func:`clear_all`, by name (sorted)."""
    return {name: _TALLIES[name].count for name in sorted(_TALLIES)}


def forget(name: str) -> None:
    """Take the memo or tally ``name`` out of the registry (its name is free again; tests make
    and drop their own)."""
    _REGISTRY.pop(name, None)
    _TALLIES.pop(name, None)


def registered() -> dict[str, Memo[Any, Any] | MemoFamily[Any, Any]]:
    """Every memo and memo family made so far, by name (a copy)."""
    return dict(_REGISTRY)


def clear_all() -> None:
    """Empty every registered memo and set every tally to 0 (tests and benchmarks start from
    cold caches this way). Within :func:`undoing_clears`, what the block's first clear empties
    is kept, to be put back when the block ends."""
    block = _BLOCKS[-1] if _BLOCKS else None
    if block is not None and block.kept is None:
        block.kept = [(memo, memo._take()) for memo in list(_REGISTRY.values())]
        block.counts = {name: tally.count for name, tally in _TALLIES.items()}
    for memo in list(_REGISTRY.values()):
        memo.clear()
    for tally in list(_TALLIES.values()):
        tally.count = 0


class _Block:
    """One :func:`undoing_clears` block: what its first :func:`clear_all` emptied (``None``
    before it), every registered memo with what it held, and every tally's count."""

    __slots__ = ("kept", "counts")

    def __init__(self) -> None:
        self.kept: list[tuple[Memo[Any, Any] | MemoFamily[Any, Any], Any]] | None = None
        self.counts: dict[str, int] = {}


#: the blocks of :func:`undoing_clears` entered and not left, innermost last
_BLOCKS: list[_Block] = []


@contextlib.contextmanager
def undoing_clears() -> Iterator[None]:
    """A block after which every :func:`clear_all` made in it is undone.

    Its first ``clear_all`` keeps what it empties (no copy: each memo's mapping is set aside
    and the memo given a new one; weak keys stay weak, so an owner or key that dies meanwhile
    is gone for good). When the block ends, every memo and memo family holds again what it held
    just before that clear, with the hit and miss counts it had then, and every tally its
    count then: the state the process would be in had the block not cleared, less what was
    put in since. What the block put in after the clear is dropped (it may come from a
    temporary store or model path), and a memo registered since is emptied. A block without a
    ``clear_all`` costs nothing and changes nothing. Blocks nest (the innermost keeps).

    Sound because a memo is a cache: every entry it held before the clear is as valid after
    it. The counts are put back too so that a clear and its undoing leave no trace: the next
    user of :func:`stats` or :func:`tallies` sees what it would have seen without the block.
    The test suite wraps every test in one (tests/conftest.py): a test still starts cold
    after its own ``clear_all``; the tests after it do not pay to warm the memos again.
    """
    block = _Block()
    _BLOCKS.append(block)
    try:
        yield
    finally:
        _BLOCKS.remove(block)
        if block.kept is not None:
            kept = {id(memo) for memo, _ in block.kept}
            for memo, held in block.kept:
                memo._put(held)
            for memo in list(_REGISTRY.values()):
                if id(memo) not in kept:
                    memo.clear()
            for name, tally in list(_TALLIES.items()):
                tally.count = block.counts.get(name, 0)


def stats() -> tuple[MemoStats, ...]:
    """The state of every registered memo, sorted by name."""
    return tuple(_REGISTRY[name].stats() for name in sorted(_REGISTRY))


def memoised(name: str, maxsize: int, *, typed: bool = False) -> Callable[[F], F]:
    """Decorator: memoise a function of hashable positional arguments in a :class:`Memo`
    (``functools.lru_cache`` with clear-when-full eviction; ``typed`` as there: ``1`` and
    ``1.0`` are different keys). The memo is the wrapper's ``memo`` attribute."""

    def decorate(function: F) -> F:
        memo: Memo[Hashable, Any] = Memo(name, maxsize)

        @functools.wraps(function)
        def wrapper(*args: Any) -> Any:
            key: Hashable = (*args, *(type(a) for a in args)) if typed else args
            value = memo.get(key, _MISSING)
            if value is _MISSING:
                value = memo[key] = function(*args)
            return value

        wrapper.memo = memo  # type: ignore[attr-defined]
        return cast(F, wrapper)

    return decorate
