"""Issue 29's properties over one stored run; tests/test_corpus.py checks them over every
corpus run, tests/test_locate.py over every fixture store.

§1: no diagnosis points at the `def` or decorator line of its compiled function while the
store holds a deeper user frame for it (the call that triggered that compile). It reads the
store's facts (compiles, call stacks), not the diagnosis' own `evidence`, so it holds a build
that never said where its line came from to the same standard.

§2: no diagnosis that is another's consequence ranks above its cause: each consequence the
kinds' relations find is folded under its cause, and the cause ranks at least where the
consequence would have ranked on its own (unless the consequence is the cause's own finding
reported again: the cause's cost is then its own)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from compdiag.analyses.context import RunContext
from compdiag.formats.user_code import is_user_file
from compdiag.store.reader import Reader


def def_span(ctx: RunContext, cid: str | None) -> tuple[str, int, int] | None:
    """(file, first line, def line) of the compiled function of `cid`: its decorators (the
    code object's first line) through its `def`."""
    row = ctx.code_row(cid)
    if not row or not row.get("filename") or not row.get("lineno"):
        return None
    filename, first = ctx.resolve(row["filename"]), int(row["lineno"])
    try:
        lines = Path(filename).read_text(errors="replace").splitlines()
    except OSError:
        return filename, first, first
    # A resume function's first line is the line it resumes at, no def: not a def span.
    if first > len(lines) or not lines[first - 1].lstrip().startswith(("@", "def ",
                                                                          "async def ")):
        return None
    for i in range(first, min(first + 40, len(lines) + 1)):
        if lines[i - 1].lstrip().startswith(("def ", "async def ")):
            return filename, first, i
    return filename, first, first


def def_line_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                      ) -> list[str]:
    """One line per diagnosis (explain --json's) that points at its compiled function's def
    or decorator line although the store holds the user's call of that compile, or the line
    where its fatal exception surfaced."""
    ctx = RunContext(reader, run_id)
    out = []
    for d in diagnoses:
        uf = d.get("user_frame") or {}
        for cid in dict.fromkeys([d.get("compile_id"), *(d.get("compile_ids") or [])]):
            span = def_span(ctx, cid) if cid else None
            if not span or not uf.get("lineno") or ctx.resolve(uf.get("filename")) != span[0] \
                    or not span[1] <= int(uf["lineno"]) <= span[2]:
                continue
            # the call of that compile, and where a fatal exception surfaced in the user's
            # code (its traceback, torch's own)
            surfaced = (d.get("details") or {}).get("surfaced_at") or {}
            frames = [*ctx.call_chain(cid), *([ctx.frame(surfaced.get("filename"),
                                                         surfaced.get("lineno"))]
                                              if surfaced.get("lineno") else [])]
            deeper = [f for f in frames if (f.filename, f.lineno) != (span[0], uf["lineno"])]
            if deeper:
                out.append(f"{d['kind']} {d['reason'][:80]!r} points at the def line "
                           f"{Path(span[0]).name}:{uf['lineno']} of compile {cid}, while the "
                           f"call at line {deeper[-1].lineno} triggered it")
                break
    return out


def consequence_problems(reader: Reader, run_id: int) -> list[str]:
    """One line per consequence (by the kinds' declared relations) that explain shows on its
    own, or whose cause ranks below where it would have ranked."""
    from compdiag.analyses.explain import causes_of, collect, explain

    ctx = RunContext(reader, run_id)
    found = collect(ctx)
    links = causes_of(found, found, ctx)
    shown = explain(reader, run_id)
    out = []

    def key(d: Any) -> tuple:
        return (d.kind, d.reason, d.compile_id, d.user_frame)
    where = {key(d): i for i, d in enumerate(shown)}
    for effect in found:
        if id(effect) not in links:
            continue
        cause, rel = links[id(effect)]
        if key(effect) in where and key(effect) != key(cause):
            out.append(f"{effect.kind} {effect.reason[:60]!r} is shown on its own, though it "
                       f"is the consequence of {cause.kind} {cause.reason[:60]!r}")
            continue
        at = where.get(key(cause))
        if at is None:
            out.append(f"the cause {cause.kind} {cause.reason[:60]!r} is not shown")
        elif shown[at].score < effect.score and not rel.same_finding:
            out.append(f"{cause.kind} {cause.reason[:60]!r} ranks at {shown[at].score}, below "
                       f"its consequence {effect.kind} {effect.reason[:60]!r} "
                       f"({effect.score})")
    return out


def _ops_named(d: dict[str, Any]) -> set[str]:
    """The ATen ops a diagnosis is about: its details' `op`/`ops`, and `aten.X` in its reason."""
    details = d.get("details") or {}
    ops = {details.get("op"), *(details.get("ops") or [])} - {None}
    ops |= set(re.findall(r"\baten\.(\w+)", d.get("reason") or ""))
    return {str(o).split(".")[-1] if str(o).startswith("aten.") else str(o) for o in ops}


def library_line_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                          ) -> list[str]:
    """Issue 29 §1, library frames: one line per diagnosis whose line is inside torch, a
    site-package or the stdlib; and per diagnosis of an op whose post-grad nodes' stored
    stacks (graph_nodes.stack, the user's part of a stack the graph text cut) or own lines
    hold a user frame, while the diagnosis falls back to the call or the def line. Reads the
    store's facts for the frames; the evidence field only to tell a fallback from a line of
    its own."""
    ctx = RunContext(reader, run_id)
    out = []
    for d in _every(diagnoses):
        uf = d.get("user_frame") or {}
        fn = uf.get("filename")
        if fn and not is_user_file(fn):
            out.append(f"{d['kind']} {d['reason'][:80]!r} points at library code "
                       f"{fn}:{uf.get('lineno')}")
            continue
        ops, cid = _ops_named(d), d.get("compile_id")
        # a line torch named, one the kind found in the program, or one of an FX node's
        # stack: evidence of its own; the call and the def line are what a lost stack leaves
        if not ops or not cid or uf.get("evidence") in ("torch", "source", "fx_node"):
            continue
        users = set()
        for n in reader.graph_nodes(run_id, cid):
            if n.get("op") not in ops:
                continue
            own = [{"filename": n.get("filename"), "lineno": n.get("lineno")}]
            for f in [*(n.get("stack") or []), *own]:
                if is_user_file(ctx.resolve(f.get("filename"))) and f.get("lineno"):
                    users.add((ctx.resolve(f["filename"]), int(f["lineno"])))
                    break
        if users:
            out.append(f"{d['kind']} {d['reason'][:80]!r} points at {_where(uf)}, while its "
                       f"op's node stack holds the user line {_line(sorted(users)[0])}")
    return out


def _where(uf: dict[str, Any]) -> str:
    """A diagnosis' line as a problem names it: file:line (evidence)."""
    return f"{Path(uf.get('filename') or '?').name}:{uf.get('lineno')} ({uf.get('evidence')})"


def _line(at: tuple[str, int]) -> str:
    return f"{Path(at[0]).name}:{at[1]}"


def _every(diagnoses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for d in diagnoses:
        out.append(d)
        out += [c for c in d.get("consequences") or [] if isinstance(c, dict)]
    return out


def ended_node_problems(reader: Reader, run_id: int, diagnoses: list[dict[str, Any]]
                        ) -> list[str]:
    """Issue 29 §1 for every backend: when the store names the node of the compiled graph
    the run ended in (program_ends' kernel_frames: an Inductor kernel's ops, or the Dynamo
    graph's node whose generated line an eager backend ran), every failure or program
    diagnosis that says how the run ended points at one of those user lines, not at the
    call of the compiled function or its def."""
    from corpus_check import says_how_it_ended

    ctx = RunContext(reader, run_id)
    lines = {(ctx.resolve(f.get("filename")), f.get("lineno"))
             for e in reader.program_ends(run_id) if e.get("kernel")
             for f in e.get("kernel_frames") or []
             if f.get("lineno") and is_user_file(ctx.resolve(f.get("filename")))}
    out = []
    for d in _every(diagnoses):
        uf = d.get("user_frame") or {}
        if not lines or d["kind"] not in ("failure", "program") or not says_how_it_ended(d) \
                or uf.get("evidence") == "torch" or not uf.get("lineno"):
            continue  # a user frame the compiled code called; no line at all: §3's to judge
        if (ctx.resolve(uf.get("filename")), uf.get("lineno")) not in lines:
            out.append(f"{d['kind']} {d['reason'][:70]!r} says how the run ended at "
                       f"{_where(uf)}, while the store names the node it ended in, at "
                       f"{_line(sorted(lines)[0])}")
    return out
