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
import re
from typing import Any, Iterable, Mapping, Union

from compdiag.analyses.diagnosis import UserFrame
from compdiag.formats import lazy_re
from compdiag.formats.compiled_code import first_compiled
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
        if fn and not os.path.isabs(fn) and ctx.source_lines(fn) is None:
            continue  # a path torch shortened (nn/modules/x.py), not a file the run kept
        if ctx.foreign(fn):
            continue  # another program's file (a cache entry it wrote), not this run's
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


# an error whose words imply the op that raised it, among a compile's ops of several lines
# (probes47e voxel_centroid_int_floordiv: an integer division by zero in a kernel fused with
# the index_add_ before it)
ERROR_OPS = (("ZeroDivisionError", ("aten.div.", "aten.floor_divide", "aten.remainder",
                                    "aten.fmod")),)


def compiled_ops(ctx: Any, frames: Iterable[Mapping[str, Any]] | None,
                 cid: str | None = None, kernel_frames: Frames = None,
                 words: str | None = None) -> list[Frames]:
    """Evidence `fx_node` for a failure raised, or a native crash, while compiled code ran
    (issue 29 §1): the op inside the compiled function, never the call that ran it.

    The kernel the failure names (`kernel_frames`: its nodes' user lines, stored at ingest)
    first; else the ops of the compile that ran: `cid`, or the compile of the compiled
    function the stack passes through (its frame is at its `def` line), when all its graph
    nodes come from one user line (which op of several raised, nothing stored says)."""
    out: list[Frames] = [kernel_frames] if kernel_frames else []
    frames = list(frames or ())
    cid = cid or _running_compile(ctx, frames)
    if cid is not None and any(_MUTATION_EPILOGUE in (f.get("filename") or "") or
                               f.get("name") == "_apply_mutations" for f in frames):
        # raised where AOTAutograd writes the graph's new values back into the inputs it
        # changed (probes44j dann_grad_reverse_data_noise: `feat.data.add_(noise)` on a custom
        # Function's output, shown at the call): the op is the in-place write on an input
        out += inplace_lines(ctx, cid)
    if cid is not None:
        # the post-grad graph's nodes, else (a backend that writes none: eager, aot_eager)
        # those of the graph Dynamo handed the backend
        for nodes in (ctx.graph_nodes(cid), ctx.dynamo_nodes(cid)):
            lines = {(n["filename"], n["lineno"]): n for n in nodes
                     if n.get("filename") and n.get("lineno")
                     and is_user_file(ctx.resolve(n["filename"]))}
            implied = next((ops for said, ops in ERROR_OPS if said in (words or "")), ())
            if len(lines) > 1 and implied:  # the lines of the ops the error's words imply
                lines = {k: n for k, n in lines.items() if any(
                    str(m.get("target") or "").startswith(implied) for m in nodes
                    if (m.get("filename"), m.get("lineno")) == k)}
            if lines:
                if len(lines) == 1:
                    out.append(next(iter(lines.values())))
                break
    return out


# AOTAutograd's generated epilogue that copies mutated inputs back (subclass_codegen's
# `codegen(mutation_epilogue)` file name)
_MUTATION_EPILOGUE = "mutation_epilogue"
# an in-place method or op on one of the graph's inputs (or on its `.data`) in Dynamo's
# graph code (`l_x_.sub_(l_mean_)`, `_get_data_attr.add_(mul)`,
# `torch.ops.aten.add_.Tensor(l_x_, ...)`)
_INPLACE_ON_INPUT = lazy_re.compile(
    r"^\s*(?:(?:l_\w+|_get_data_attr\w*)\.[a-z]\w*_\(|torch\.ops\.\w+\.\w+_\.\w+\(l_)")


# autograd's version-counter check: a tensor the backward saved was changed in place after
VERSION_COUNTER = "modified by an inplace operation"


def overwritten_lines(ctx: Any, cid: str | None, words: str | None) -> list[dict[str, Any]]:
    """For an error that says a tensor saved for the backward was changed in place
    (autograd's version counter), the in-place ops on compiled graphs' inputs: the cause,
    where the backward that raised is its consequence (probes46c adapter_inplace_norm_sysexit:
    the program's exception said it at `loss.backward()`). [] for any other error."""
    return inplace_lines(ctx, cid) if VERSION_COUNTER in (words or "") else []


def inplace_lines(ctx: Any, cid: str | None) -> list[dict[str, Any]]:
    """User lines of in-place ops on a compiled graph's inputs (the compile's, or any
    compile's for a backward that names none), in graph order."""
    cids = [cid] if cid else list(ctx.compiles)
    return [{"filename": n["filename"], "lineno": n["lineno"], "line": n.get("line")}
            for c in cids for n in ctx.dynamo_nodes(c)
            if n.get("filename") and n.get("lineno")
            and _INPLACE_ON_INPUT.match(n.get("call") or "")]


def _running_compile(ctx: Any, frames: Iterable[Mapping[str, Any]]) -> str | None:
    """The latest compile of the compiled function whose frame (at its `def` line) the stack
    passes through, innermost first."""
    for f in reversed(list(frames)):
        fn = ctx.resolve(f.get("filename"))
        if not is_user_file(fn):
            continue
        mine = [cid for cid in ctx.compiles
                if _code_line(ctx, cid) == (fn, f.get("lineno"))]
        if mine:
            return mine[-1]
    return None


def inside_compiled(ctx: Any, frames: Iterable[Mapping[str, Any]] | None,
                    first: int | None) -> list[Mapping[str, Any]]:
    """Evidence `torch` for a failure inside compiled code: the frames of torch's traceback
    (or faulthandler's dump) from the first compiled one (`first`) inwards, less any compiled
    function's own frame (Dynamo shows it at its `def` line: the `def` fallback, never
    evidence). A user frame left is one the compiled code called (a function it skipped)."""
    if first is None:
        return []
    return [f for f in list(frames or ())[first:] if not _is_def(ctx, f)]


def ran_op(ctx: Any, frames: Iterable[Mapping[str, Any]] | None, cid: str | None = None, *,
           kernel_frames: Frames = None, calls: Iterable[Frames] = (),
           own: Mapping[str, Any] | None = None, named: Frames = None,
           words: str | None = None) -> UserFrame:
    """The user line of a failure raised, or a native crash, while compiled code ran
    (issue 29 §1): `own` (the line ingest found for the failure, from the generated line it
    ended at) or a user frame torch's traceback (or faulthandler's dump) has inside the
    compiled code, then the nodes of the op torch named (`named`: a custom op whose output
    failed its size/stride check), then the op that ran (compiled_ops), then `calls` (where
    it surfaced), then the compile's own call; `words`, the error's message: an in-place
    write that made a saved tensor stale leads (overwritten_lines)."""
    stack = list(frames or ())
    at = first_compiled([f.get("filename") or "" for f in stack])
    # where it surfaced, less the compiled function's own frame (at its `def`)
    outside = [[f for f in _frames(c) if not _is_def(ctx, f)]
               for c in [*calls, stack[:at] if at is not None else []]]
    mine = [own] if own and own.get("filename") and not _is_def(ctx, own) else []
    # raised by torch's own runtime (a CUDA-graph tree's memory-pool check), not by an op:
    # no op ran it, so the call that did (the kernel torch named, if any, still first)
    ops = compiled_ops(ctx, stack, cid, kernel_frames, words) if not in_runtime(stack) else \
        ([kernel_frames] if kernel_frames else [])
    stale = overwritten_lines(ctx, cid, words)
    if stale:
        return locate(ctx, cid, nodes=[stale])
    return locate(ctx, cid, torch=[mine, inside_compiled(ctx, stack, at)],
                  nodes=[*_frames(named), *ops], calls=outside)


# torch's own code that runs around compiled kernels: an exception raised there (innermost,
# past torch's `_check` helpers) is the runtime's, not an op's.
RUNTIME = ("torch/_inductor/cudagraph_trees.py", "torch/_inductor/cudagraph_utils.py",
           "torch/_functorch/_aot_autograd/runtime_wrappers.py")
_CHECK_HELPERS = ("torch/__init__.py",)


# What each RUNTIME file is, for a headline: where in torch's runtime an exception came from.
RUNTIME_NAMES = {"torch/_inductor/cudagraph_trees.py": "CUDA graphs' runtime (cudagraph_trees)",
                 "torch/_inductor/cudagraph_utils.py": "CUDA graphs' runtime (cudagraph_utils)",
                 "torch/_functorch/_aot_autograd/runtime_wrappers.py":
                     "AOTAutograd's runtime wrapper"}


def runtime_origin(frames: Iterable[Mapping[str, Any]]) -> str | None:
    """'CUDA graphs' runtime (cudagraph_trees), in _copy_inputs_and_remove_from_src' for a
    traceback whose innermost frame (past torch._check's helpers) is in RUNTIME; else None."""
    stack = [f for f in frames
             if not (f.get("filename") or "").replace(os.sep, "/").endswith(_CHECK_HELPERS)]
    inner = stack[-1] if stack else {}
    name = (inner.get("filename") or "").replace(os.sep, "/")
    what = next((w for path, w in RUNTIME_NAMES.items() if name.endswith(path)), None)
    return f"{what}, in {inner.get('name')}" if what and inner.get("name") else what


def in_runtime(frames: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a traceback's innermost frame (past torch._check's helpers) is in RUNTIME."""
    names = [(f.get("filename") or "").replace(os.sep, "/") for f in frames]
    inner = next((n for n in reversed(names) if not n.endswith(_CHECK_HELPERS)), "")
    return inner.endswith(RUNTIME)


def _frames(cand: Frames) -> list[Mapping[str, Any]]:
    if cand is None:
        return []
    items = [cand] if isinstance(cand, (Mapping, UserFrame)) else list(cand)
    return [f.to_json() if isinstance(f, UserFrame) else f for f in items]


def _is_def(ctx: Any, f: Mapping[str, Any]) -> bool:
    """Whether a frame is a compiled function's own: Dynamo shows it at the code object's
    first line (its `def` or decorator), where no op is."""
    return (ctx.resolve(f.get("filename")), f.get("lineno")) in _defs(ctx)


def _defs(ctx: Any) -> set[tuple[str | None, Any]]:
    return {d for d in (_code_line(ctx, cid) for cid in ctx.compiles) if d is not None}


def _code_line(ctx: Any, cid: str) -> tuple[str | None, Any] | None:
    """(file, first line) of a compile's code object."""
    r = ctx.code_row(cid)
    return (ctx.resolve(r.get("filename")), r.get("lineno")) \
        if r and r.get("filename") and r.get("lineno") else None


def kernel_frames(ctx: Any) -> list[dict[str, Any]]:
    """The user lines of the generated kernel ingest found the run's end in (its own check,
    or the generated line a traceback ended at), if any."""
    return next((e.get("kernel_frames") or [] for e in ctx.r.program_ends(ctx.run_id)
                 if e.get("kernel")), [])


def source_line(ctx: Any, cid: str | None, pattern: re.Pattern[str],
                after: dict[str, Any] | None = None) -> UserFrame | None:
    """The first line matching `pattern` in the user files the compile started from (the
    compiled function's file first); past `after` ({filename, lineno}) when that file has one."""
    found = source_matches(ctx, cid, pattern)
    if after and after.get("filename") and after.get("lineno"):
        here = ctx.resolve(after["filename"])
        later = [f for f in found if f.filename == here and f.lineno > after["lineno"]]
        if later:
            return later[0]
    return found[0] if found else None


def source_matches(ctx: Any, cid: str | None, pattern: re.Pattern[str]) -> list[UserFrame]:
    """Every line matching `pattern` in the code (not a string or comment) of the user files
    the compile started from, the compiled function's file first, each in line order."""
    files: list[str] = []
    row = ctx.code_row(cid)
    for f in [row or {}, *reversed(ctx.start_stack(cid))]:
        fn = ctx.resolve(f.get("filename"))
        if fn and is_user_file(fn) and fn not in files:
            files.append(fn)
    if not files:  # no compile to start from (a failure in a backward): every kept user file
        files = sorted(f for f in ctx.r.source_paths(ctx.run_id) if is_user_file(f))
    found: list[UserFrame] = []
    for fn in files:
        lines, code = ctx.source_lines(fn), ctx.code_lines(fn)
        if lines is None or code is None:
            continue
        for i, (line, bare) in enumerate(zip(lines, code), 1):
            if pattern.search(bare):   # the code, not a string or comment quoting it
                found.append(ctx.frame(fn, i, line.strip(), SOURCE))
    return found
