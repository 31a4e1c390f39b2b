"""A generic test-case reducer in the style of Hypothesis's shrinker.

One current value and a predicate ("still fails the same way"). `consider(candidate)` accepts a
candidate only when it is strictly simpler than the current one (by `sort_key`), was not tried
before (queries are memoised by `key`), and the predicate holds. Reductions are small named
passes run to a fixpoint; `delete_chunks` + `find_integer` remove as much as possible at once in
O(log n) queries, like Hypothesis's and ddmin's chunked deletion.

Nothing here knows about graphs: tests drive it with fast synthetic predicates."""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class Stats:
    calls: int = 0              # unique predicate evaluations
    cache_hits: int = 0
    accepted: int = 0
    per_pass: dict[str, int] = field(default_factory=dict)


class Reducer(Generic[T]):
    def __init__(self, initial: T, predicate: Callable[[T], bool], *,
                 key: Callable[[T], Hashable] = lambda v: v,  # type: ignore[assignment,return-value]
                 sort_key: Callable[[T], Any] = lambda v: v,  # type: ignore[assignment,return-value]
                 on_change: Callable[["Reducer[T]"], None] | None = None,
                 max_calls: int | None = None) -> None:
        self.current = initial
        self.predicate = predicate
        self.key = key
        self.sort_key = sort_key
        self.on_change = on_change
        self.max_calls = max_calls
        self.stats = Stats()
        self.cache: dict[Hashable, bool] = {key(initial): True}
        self.pass_name = "start"

    # -- the one way a value changes --------------------------------------------------------------
    def left_is_better(self, left: T, right: T) -> bool:
        return self.sort_key(left) < self.sort_key(right)

    def query(self, candidate: T) -> bool:
        """The predicate on `candidate`, memoised (no simplicity check, no acceptance)."""
        k = self.key(candidate)
        if k in self.cache:
            self.stats.cache_hits += 1
            return self.cache[k]
        if self.max_calls is not None and self.stats.calls >= self.max_calls:
            return False
        self.stats.calls += 1
        self.stats.per_pass[self.pass_name] = self.stats.per_pass.get(self.pass_name, 0) + 1
        result = bool(self.predicate(candidate))
        self.cache[k] = result
        return result

    def consider(self, candidate: T | None) -> bool:
        """True when `candidate` is (or equals) an accepted simplification of the current value."""
        if candidate is None:
            return False
        if self.key(candidate) == self.key(self.current):
            return True
        if not self.left_is_better(candidate, self.current):
            return False
        if not self.query(candidate):
            return False
        self.current = candidate
        self.stats.accepted += 1
        if self.on_change is not None:
            self.on_change(self)
        return True

    # -- driving passes -------------------------------------------------------------------------
    def run(self, passes: Sequence[tuple[str, Callable[["Reducer[T]"], None]]]) -> T:
        """Run the passes in order until a full round changes nothing."""
        while True:
            before = self.key(self.current)
            for name, fn in passes:
                self.pass_name = name
                fn(self)
            if self.key(self.current) == before:
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
        """No single item can be deleted from the current value (memoised queries)."""
        base = self.current
        for item in items_of(base):
            cand = without(base, [item])
            if cand is not None and self.query(cand):
                return False
        return True


def reduce_sequence(items: Sequence[Any], predicate: Callable[[tuple], bool],
                    max_calls: int | None = None) -> tuple[tuple, Reducer[tuple]]:
    """Shrink a sequence to a 1-minimal subsequence that still satisfies `predicate` (which
    must hold for `items`). Returns (result, reducer) — reducer.stats.calls counts queries."""

    def without(value: tuple, positions: Sequence[int]) -> tuple:
        gone = set(positions)
        return tuple(v for i, v in enumerate(value) if i not in gone)

    r: Reducer[tuple] = Reducer(tuple(items), predicate, sort_key=lambda v: (len(v), v),
                                max_calls=max_calls)
    r.run([("delete chunks",
            lambda red: red.delete_chunks(lambda v: range(len(v)), without))])
    return r.current, r
