"""A generic test-case shrinker in the style of Hypothesis's (shrinking/common.py).

A Shrinker holds one current value and a predicate ("still fails the same way").
`consider(value)` is the one way the value changes: `incorporate` rejects what is not strictly
simpler (`left_is_better`), asks the predicate at most once per unique value (the `seen`
answers, so `calls` counts unique queries), and accepts the value, counting a change, when the
predicate holds. A subclass adds small named passes (`@shrink_pass`) and a `run_step` that
`run` repeats until a step changes nothing; `delete_chunks` + `find_integer` remove as much as
possible at once in O(log n) queries, like Hypothesis's and ddmin's chunked deletion.

Nothing here knows about graphs: tests drive it with fast synthetic predicates."""

from __future__ import annotations

import functools
from typing import Any, Callable, Generic, Hashable, Sequence, TypeVar

T = TypeVar("T")


def find_integer(f: Callable[[int], bool]) -> int:
    """The largest n with f(n) true, assuming f(0) is true and f is monotone-ish: probes
    1..4 linearly, then doubles, then binary-searches (Hypothesis's find_integer)."""
    for i in range(1, 5):
        if not f(i):
            return i - 1
    lo, hi = 4, 5
    while f(hi):
        lo, hi = hi, hi * 2
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if f(mid):
            lo = mid
        else:
            hi = mid
    return lo


def shrink_pass(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A method that is a named pass: the queries it makes are counted under `name`."""
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run_pass(self: "Shrinker[Any]", *args: Any, **kwargs: Any) -> Any:
            self.pass_name = name
            return fn(self, *args, **kwargs)

        run_pass.pass_name = name  # type: ignore[attr-defined]
        return run_pass
    return decorate


class Shrinker(Generic[T]):
    """One current value, the predicate it satisfies, and the count of questions asked.

    `initial` is taken to satisfy the predicate unless `verified=False` (then a subclass asks,
    with `query(initial)`). `max_calls` caps the unique queries: past it, every new value is
    answered "no" without asking (and without remembering the answer)."""

    def __init__(self, initial: T, predicate: Callable[[T], bool], *,
                 max_calls: int | None = None, verified: bool = True) -> None:
        self.initial = self.current = initial
        self.predicate = predicate
        self.max_calls = max_calls
        self.seen: dict[Hashable, bool] = {self.key(initial): True} if verified else {}
        self.calls = 0              # unique predicate queries
        self.cache_hits = 0         # questions answered from `seen`
        self.changes = 0            # accepted simplifications
        self.per_pass: dict[str, int] = {}   # unique queries by the pass that asked them
        self.pass_name = "start"

    # -- what a subclass defines ----------------------------------------------------------------
    def key(self, value: T) -> Hashable:
        """What makes two values the same question (default: the value itself)."""
        return value  # type: ignore[return-value]

    def sort_key(self, value: T) -> Any:
        return value

    def left_is_better(self, left: T, right: T) -> bool:
        """Whether `left` is strictly simpler than `right`."""
        return self.sort_key(left) < self.sort_key(right)

    def run_step(self) -> None:
        """One round of the passes; `run` repeats it until it changes nothing."""
        raise NotImplementedError

    def changed(self) -> None:
        """Called after every accepted change (a subclass reports progress here)."""

    # -- the one way the current value changes ------------------------------------------------
    def consider(self, value: T | None) -> bool:
        """True when `value` is the current value afterwards: accepted now, or already it."""
        if value is None:
            return False
        if self.key(value) == self.key(self.current):
            return True
        return self.incorporate(value)

    def incorporate(self, value: T) -> bool:
        """Accept `value` if it is strictly simpler and the predicate holds for it."""
        if not self.left_is_better(value, self.current):
            return False
        if not self.query(value):
            return False
        self.current = value
        self.changes += 1
        self.changed()
        return True

    def query(self, value: T) -> bool:
        """The predicate on `value`, asked once per unique value (no simplicity check, no
        acceptance); a value tried before is answered from `seen`."""
        k = self.key(value)
        if k in self.seen:
            self.cache_hits += 1
            return self.seen[k]
        if self.max_calls is not None and self.calls >= self.max_calls:
            return False
        self.calls += 1
        self.per_pass[self.pass_name] = self.per_pass.get(self.pass_name, 0) + 1
        result = self.seen[k] = bool(self.predicate(value))
        return result

    # -- driving passes -------------------------------------------------------------------------
    def run(self) -> T:
        """`run_step` until a whole step changes nothing."""
        while True:
            before = self.changes
            self.run_step()
            if self.changes == before:
                return self.current

    def delete_chunks(self, items_of: Callable[[T], Sequence[Any]],
                      without: Callable[[T, Sequence[Any]], T | None]) -> bool:
        """For each position, delete the longest run of items starting there that keeps the
        predicate (find_integer). Returns whether anything was deleted."""
        changed = False
        i = 0
        while True:
            base = self.current
            items = list(items_of(base))
            if i >= len(items):
                return changed

            def can_delete(k: int) -> bool:
                if k == 0:
                    return True
                if i + k > len(items):
                    return False
                return self.consider(without(base, items[i:i + k]))

            if find_integer(can_delete):
                changed = True
            else:
                i += 1

    def is_one_minimal(self, items_of: Callable[[T], Sequence[Any]],
                       without: Callable[[T, Sequence[Any]], T | None]) -> bool:
        """No single item can be deleted from the current value (queries, never accepts);
        False when a cap on queries leaves one of them unasked (not known to be minimal)."""
        base = self.current
        for item in items_of(base):
            cand = without(base, [item])
            if cand is None:
                continue
            if self.key(cand) not in self.seen and self.max_calls is not None \
                    and self.calls >= self.max_calls:
                return False
            if self.query(cand):
                return False
        return True


class SequenceShrinker(Shrinker[tuple]):
    """A sequence to a 1-minimal subsequence that still satisfies the predicate (which must
    hold for the initial sequence)."""

    def sort_key(self, value: tuple) -> Any:
        return (len(value), value)

    @shrink_pass("delete chunks")
    def run_step(self) -> None:
        self.delete_chunks(lambda v: range(len(v)), _without_positions)


def _without_positions(value: tuple, positions: Sequence[int]) -> tuple:
    gone = set(positions)
    return tuple(v for i, v in enumerate(value) if i not in gone)
