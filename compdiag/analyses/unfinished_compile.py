"""The compile a run was still in when it ended (issue 29 §3): a process killed by a time limit,
the out-of-memory killer or a user's Ctrl-C while torch.compile was compiling ends with no
Python frame of the user's to show (the signal may land on a helper thread, and faulthandler
keeps only the innermost 100 frames of a deep compile), yet the store knows which compile had
started and never finished, what it had done last, how long it had run, and how big its
graph was. The program kind says how the run ended from it, at the user's call that started
that compile.

Read from stored facts only: compiles (`status` started), compile_events (the closed regions
of that compile), the run's end time, and the compile's graph nodes (their user lines)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.formats.user_code import is_user_file

# One user line whose ops appear this many times in one graph was traced over and over: a
# Python loop Dynamo unrolled (each iteration's ops are new nodes of the graph).
UNROLLED_NODES = 20


@dataclass(frozen=True)
class Unfinished:
    """A compile that started and never ended."""

    compile_id: str
    function: str
    call: UserFrame                      # the user's call that started it (else its def)
    seconds: float | None = None         # from its first recorded step to the run's end
    last_step: str | None = None         # the last step of it that finished (torch's name)
    last_stage: str | None = None        # ... and the compile stage it belongs to
    nodes: int = 0                       # nodes of its graph (post-grad, else Dynamo's)
    hot_lines: tuple = field(default_factory=tuple)  # ((UserFrame, nodes), ...) most first

    def describe(self) -> str:
        """'integrate() (compile 0/0, 598 s in; last finished step: X, inductor_passes)'."""
        parts = [f"compile {self.compile_id}"]
        if self.seconds is not None:
            parts.append(f"{self.seconds:.0f} s in")
        words = f"{self.function}() ({', '.join(parts)}"
        if self.last_step:
            stage = f", {self.last_stage}" if self.last_stage else ""
            words += f"; last finished step: {self.last_step}{stage}"
        return words + ")"

    def unrolled(self) -> list[tuple[UserFrame, int]]:
        """The user lines whose ops the graph holds UNROLLED_NODES times or more."""
        return [(f, n) for f, n in self.hot_lines if n >= UNROLLED_NODES]


def unfinished_compile(ctx: Any) -> Unfinished | None:
    """The latest compile of the run that started and never finished, or None."""
    # "interrupted": a Ctrl-C inside it ended the program (ingest marks the compile it stopped)
    started = [c for c in ctx.compiles.values() if c.get("status") in ("started", "interrupted")]
    if not started:
        return None
    row = started[-1]
    cid = row["compile_id"]
    events = [e for e in ctx.r.compile_events(ctx.run_id) if e.get("compile_id") == cid
              and e.get("start_us") is not None]
    seconds = last_step = last_stage = None
    if events:
        first_us = min(e["start_us"] for e in events)
        ended = (ctx.run or {}).get("ended_at")
        if ended and ended * 1e6 > first_us:
            seconds = round(ended - first_us / 1e6, 1)
        last = max(events, key=lambda e: e["start_us"] + (e.get("dur_us") or 0))
        last_step, last_stage = last.get("name"), last.get("stage")
    nodes = ctx.graph_nodes(cid) or ctx.dynamo_nodes(cid)
    lines: Counter = Counter()
    for n in nodes:
        fn = ctx.resolve(n.get("filename"))
        if fn and n.get("lineno") and is_user_file(fn):
            lines[(fn, n["lineno"])] += 1
    hot = tuple((ctx.frame(fn, ln, evidence="fx_node"), k) for (fn, ln), k in
                lines.most_common(3))
    chain = ctx.call_chain(cid)
    call = chain[-1] if chain else ctx.def_frame(cid)
    code = ctx.code_row(cid) or {}
    return Unfinished(compile_id=cid, function=code.get("co_name") or "a compiled function",
                      call=call, seconds=seconds, last_step=last_step, last_stage=last_stage,
                      nodes=len(nodes), hot_lines=hot)
