"""The one way every diagnosis kind finds the user's line it points at (issue 29 §1).

A diagnosis points at the deepest evidence the store holds for it, in this fixed order
(docs/explain.md, "Which line a diagnosis points at"):

1. `torch`: a user frame torch named in its own words about the fact: a `Found from` frame
   of a CUDA-graph skip, the `User stack:` of a constraint violation, the `from user code:`
   or user-code traceback of a graph break or a failure, a recompile's guard stack, the
   traceback of the program's exception. Ingest parsed these into frames.
2. `fx_node`: the stack traces of the FX nodes the fact concerns: the refused fusion pair's
   origins, the nodes a kernel or buffer came from, the first divergent node, the op a perf
   hint or a TF32 warning is about (graph_nodes, sched_nodes, kernels' user lines, stored at
   ingest).
3. `call`: the user's call that triggered the compile (capture's live stack, else torch's
   dynamo_start stack without the compiled function itself).
4. `def`: the compiled function's `def` (or decorator) line, last, and the diagnosis then
   says that it is a fallback: torch named no line, no node of it has one, and no call of
   it was seen.

A kind hands locate() what it has (already stored facts: frames, never torch's text) and
locate() takes the first user frame in that order. A line a kind finds in the user's program
itself (the setting its fix changes: a `DDP(...)` call, a config assignment) is evidence
`source`, chosen by the kind before it asks locate()."""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Union

from compdiag.analyses.diagnosis import UserFrame
from compdiag.formats.user_code import is_user_file

# The evidence a UserFrame carries, deepest first (`source`: a line of the user's program a
# kind found itself, e.g. the setting its fix changes).
TORCH, FX_NODE, CALL, DEF, SOURCE = "torch", "fx_node", "call", "def", "source"
ORDER = (TORCH, FX_NODE, CALL, DEF)
# What `explain` says next to a line that is only the compiled function's (evidence `def`).
DEF_NOTE = "the compiled function; torch named no line"

Frames = Union[Mapping[str, Any], UserFrame, Iterable[Union[Mapping[str, Any], UserFrame]], None]


def locate(ctx: Any, cid: str | None = None, *, torch: Iterable[Frames] = (),
           nodes: Iterable[Frames] = (), calls: Iterable[Frames] = (),
           call: bool = True) -> UserFrame:
    """The user frame a diagnosis of compile `cid` points at: the first user frame among
    `torch` (frames torch named), then `nodes` (FX nodes' stack traces), then the call that
    triggered the compile, then the compiled function's def line. `torch` and `nodes` are
    sequences of candidates, tried in order, each a frame or a list of frames (outermost
    first, searched from the innermost); `calls`, the user's calls the fact is about, when
    capture saw them (the call that brought a new size), before the compile's own call. `call=False` for a fact whose compile's call is
    not its line (an exception outside compiled code). An empty UserFrame when none is the
    user's."""
    # The compiled function's own first line, wherever a traceback passes through the
    # compiled frame: that is the `def` fallback, never evidence of its own.
    skip = _def_line(ctx, cid)
    for evidence, groups in ((TORCH, torch), (FX_NODE, nodes), (CALL, calls)):
        for cand in _groups(groups):
            found = first_user_frame(ctx, cand, evidence, skip)
            if found:
                return found
    if cid is None:
        return UserFrame()
    if call:
        chain = ctx.call_chain(cid)
        if chain:
            return with_evidence(chain[-1], CALL)
    row = ctx.code_row(cid)
    if row and is_user_file(ctx.resolve(row.get("filename"))) and row.get("lineno"):
        return ctx.frame(row["filename"], row["lineno"], evidence=DEF)
    # The compiled frame itself, where torch's start stack has no caller of it.
    return first_user_frame(ctx, ctx.start_stack(cid), DEF)


def first_user_frame(ctx: Any, cand: Frames, evidence: str,
                     skip: tuple[str | None, int] | None = None) -> UserFrame:
    """The innermost user frame of `cand` (a frame or a list, outermost first), other than
    `skip` (file, line)."""
    if cand is None:
        return UserFrame()
    frames = [cand] if isinstance(cand, (Mapping, UserFrame)) else list(cand)
    for f in reversed(frames):
        f = f.to_json() if isinstance(f, UserFrame) else f
        fn = ctx.resolve(f.get("filename"))
        if fn and not os.path.isabs(fn) and not os.path.exists(fn):
            continue  # a path torch shortened (nn/modules/x.py), not the user's file
        if skip is not None and (fn, f.get("lineno")) == skip:
            continue
        if is_user_file(fn) and f.get("lineno"):
            return ctx.frame(fn, f.get("lineno"), f.get("line"), evidence=evidence)
    return UserFrame()


def _def_line(ctx: Any, cid: str | None) -> tuple[str | None, int] | None:
    """(file, line) of the compiled function's `def` or first decorator; None for a resume
    function (its first line is the line it resumes at, a real line) or unreadable source."""
    row = ctx.code_row(cid) if cid else None
    if not row or not row.get("filename") or not row.get("lineno"):
        return None
    here = ctx.frame(row["filename"], row["lineno"])
    if not (here.line or "").startswith(("def ", "async def ", "@")):
        return None
    return here.filename, int(row["lineno"])


def with_evidence(frame: UserFrame, evidence: str) -> UserFrame:
    return UserFrame(frame.filename, frame.lineno, frame.line, evidence) if frame else frame


def _groups(groups: Iterable[Frames] | None) -> list[Frames]:
    """`torch=`/`nodes=`: a sequence of candidates, each a frame or a list of frames."""
    return list(groups or ())
