"""Which generation a compile id torch names belongs to: torch counts compiles from '0/0'
again after `torch._dynamo.reset()`, and the Ingestor keys every fact by CompileId's text with
the generation in it, so the compiles before and after a reset stay apart.

Two signs of a reset, either enough:
- capture's own `compdiag:dynamo_reset` record (its hook on torch._dynamo.reset), and
- in a log without one (an imported TORCH_TRACE): a compile that starts under an id whose
  compile already started and ended (reported its metrics) in this generation, or that
  reports its metrics a second time. A compile's first record is its outermost chromium
  region ('dynamo', opened before dynamo_start), so its timings fall into the new generation
  too. A start record that comes after its compile's metrics, with none before them, is a
  late record of that compile, not a new one.

A reset before any compile of the current generation advances nothing: a test suite that
resets before each test keeps '0/0' for its first compile."""

from __future__ import annotations

import functools
from typing import Any

from compdiag.formats import fast_json
from compdiag.formats.compile_id import CompileId

RESET_KIND = "dynamo_reset"  # compdiag:dynamo_reset, capture's record of a reset
_COMPILE_REGION = "dynamo"   # convert_frame's outermost chromium region of one compile


class Generations:
    """The current generation and what torch has reported in it."""

    def __init__(self) -> None:
        self.generation = 0
        self._compiled = False
        self._started: set[str] = set()  # torch ids whose compile's start record came
        self._ended: set[str] = set()  # torch ids whose compilation_metrics came

    def reset(self) -> None:
        """torch._dynamo.reset() ran: later ids are a new generation, if this one compiled."""
        if self._compiled:
            self.generation += 1
            self._compiled = False
            self._started.clear()
            self._ended.clear()

    def qualify(self, raw: str | None, *, starts: bool = False,
                ends: bool = False) -> str | None:
        """The stored key of an id torch named now ('0/0' -> '0/0@1' after a reset). `starts`:
        the record opens a compile; `ends`: it is the compile's metrics. An id that already
        names a generation (a replayed compdiag record) is kept; other text is returned as
        it is."""
        cid = CompileId.of(raw)
        if cid is None or cid.generation:
            return raw if cid is None else str(cid)
        torch_id = _torch_id(cid)
        if torch_id in self._ended and (ends or starts and torch_id in self._started):
            self.reset()
        self._compiled = True
        if starts:
            self._started.add(torch_id)
        if ends:
            self._ended.add(torch_id)
        return _key(cid, self.generation)


@functools.lru_cache(maxsize=4096)
def _torch_id(cid: CompileId) -> str:
    """torch's id of the compile, its attempts one: a compile that restarted (0/0, then 0/0_1
    after a graph break) reports its metrics under the last attempt, and a reset's new 0/0
    is its first attempt again (benchmarks/probes25 reset_bench_fullgraph_toggle: the import
    merged the two)."""
    return cid.first_attempt().torch_id()


@functools.lru_cache(maxsize=4096)
def _key(cid: CompileId, generation: int) -> str:
    """The stored key of a generation-0 id in `generation` (every record asks: built once)."""
    return str(cid.with_generation(generation))


def starts_compile(kind: str, payload: str | None) -> bool:
    """Does this record open a compile: dynamo_start, or the begin of convert_frame's
    outermost chromium region (read cheaply: most chromium events are not it)."""
    if kind == "dynamo_start":
        return True
    if kind != "chromium_event" or not payload or f'"{_COMPILE_REGION}"' not in payload:
        return False
    try:
        ev: Any = fast_json.loads(payload)
    except ValueError:
        return False
    return isinstance(ev, dict) and ev.get("name") == _COMPILE_REGION and ev.get("ph") == "B"
