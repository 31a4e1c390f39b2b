"""The FX node Inductor was lowering when it failed (issue 29 §1: the line torch points at).

A LoweringException names its node's target and stack trace, but an assertion raised in
GraphLowering.call_function before that wrapping (an in-place complex foreach op's
`<built-in function getitem> is not an OpOverload`, pytorch#197376) names nothing: the failure
fell back to the compiled function's call. Capture wraps `GraphLowering.run_node` and, when it
raises (once per graph: the innermost node), keeps that node's name, target and the user
frames of its stack trace as one record of compdiag's own; ingest gives them to the failure of
the same compile that names no op line of its own (ingest/ingestor.py). Reads only; a fault is
a run warning. One try per lowered node is the whole cost."""

from __future__ import annotations

import json
from types import FunctionType
from typing import Any

from compdiag.capture.after_import import after_import
from compdiag.capture.compile_context import current_compile_id
from compdiag.formats.user_code import frames_in, is_user_file
from compdiag.ingest.own_records import LOWERING_NODE


def install(capture: Any) -> None:
    """Once Inductor's graph module is imported (a program that never lowers a graph never
    pays for importing it)."""
    after_import("torch._inductor.graph", lambda m: _wrap(capture, m.GraphLowering))


def _wrap(capture: Any, GraphLowering: Any) -> None:  # noqa: N803 - the class it patches
    original = GraphLowering.run_node
    if getattr(original, "_compdiag", False):
        return

    def run_node(self: Any, n: Any) -> Any:
        try:
            return original(self, n)
        except Exception:
            if not capture.paused_depth and not getattr(self, "_compdiag_failed", False):
                self._compdiag_failed = True
                capture.guarded("lowering node", _record, capture, n)
            raise

    run_node._compdiag = True  # type: ignore[attr-defined]
    run_node.__wrapped__ = original  # type: ignore[attr-defined]
    GraphLowering.run_node = run_node


def record_failing_node(capture: Any) -> None:
    """At a failed compile's compilation_metrics record (torch logs it while the exception is
    still being handled: sys.exc_info() holds it), the FX node torch's innermost frame of its
    own was working on: a local that is a graph node, or a pattern match's nodes (a joint-
    or post-grad pass whose check raised, pytorch#190418), through the exception's causes.
    Recorded as the lowering node's record is, for a failure that names no op line of its
    own; nothing when a frame of the user's is innermost (it is the line) or no node is."""
    import sys

    exc = sys.exc_info()[1]
    if exc is None:
        return
    found = failing_node(exc)
    if found:
        frames, facts = found
        capture.ing.event(LOWERING_NODE, current_compile_id(), {"from": "traceback", **facts},
                          payload=json.dumps(frames, default=repr))


def failing_node(exc: BaseException) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
    """The user frames of the graph node the innermost torch frame holding one was working
    on, the original exception first (its cause or context, then the wrapper), with what
    names it: {node, target, check (torch's innermost function, file:line), pattern (the
    handler of the pattern whose check or replacement raised)}; None when no node is."""
    chain: list[BaseException] = []
    implicit: set[int] = set()  # links reached through __context__: handled by the program
    e: BaseException | None = exc
    while e is not None and e not in chain and len(chain) < 8:
        chain.append(e)
        if e.__cause__ is not None:
            e = e.__cause__
        elif e.__context__ is not None and not e.__suppress_context__:
            e = e.__context__
            implicit.add(id(e))
        else:
            e = None
    fallback: tuple[list[dict[str, Any]], Any] | None = None
    for e in reversed(chain):
        tbs = []
        tb = e.__traceback__
        while tb is not None:
            tbs.append(tb)
            tb = tb.tb_next
        check = next((f"{t.tb_frame.f_code.co_name} ({_short(t.tb_frame.f_code.co_filename)}:"
                      f"{t.tb_lineno})" for t in reversed(tbs)
                      if not t.tb_frame.f_code.co_name.startswith("<")), None)
        pattern = next((name for t in reversed(tbs)
                        if (name := _pattern_name(t.tb_frame.f_locals))), None)
        for tb in reversed(tbs):
            filename = tb.tb_frame.f_code.co_filename
            if is_user_file(filename):
                if id(e) in implicit:
                    continue  # the program's own exception it was handling, not this one
                return None  # the user's own code raised: its frame is the evidence
            if "/compdiag/" in filename.replace("\\", "/"):
                continue
            subject, others = _nodes(tb.tb_frame.f_locals)
            for node in subject:
                frames = _user_frames(node)
                if frames:
                    return frames, _facts(node, check, pattern,
                                          _match_lines(tb.tb_frame.f_locals))
            for node in others if fallback is None else ():
                frames = _user_frames(node)
                if frames:
                    fallback = (frames, node)
                    break
        if fallback is not None:
            return fallback[0], _facts(fallback[1], check, pattern)
    return None


def _short(filename: str) -> str:
    """torch/_inductor/fx_passes/joint_graph.py, not the site-packages path."""
    path = filename.replace("\\", "/")
    return path[path.rindex("/torch/") + 1:] if "/torch/" in path else path.rsplit("/", 1)[-1]


def _pattern_name(local_vars: dict[str, Any]) -> str | None:
    """The pattern a pattern matcher's frame was applying: its entry's handler or name
    (`entry`), or the search function a replacement's check re-traces (`search_fn`, in
    register_replacement's check: probes35b mixup_randperm_pairs, randperm_index_pattern)."""
    entry = local_vars.get("entry")
    names = []
    if _inductors(entry):
        names += [getattr(getattr(entry, "handler", None), "__name__", None),
                  getattr(entry, "pattern_name", None)]
    fn = local_vars.get("search_fn")
    if isinstance(fn, FunctionType) and \
            str(getattr(fn, "__module__", "") or "").startswith("torch._inductor"):
        names.append(fn.__name__)
    return next((n for n in names if isinstance(n, str) and n and n != "<lambda>"), None)


def _match_lines(local_vars: dict[str, Any]) -> list[int]:
    """The user lines of a pattern match's nodes among a frame's locals (the construct the
    pattern matched: torch.randperm's line and the index's), in order."""
    lines: set[int] = set()
    for value in list(local_vars.values()):
        nodes = getattr(value, "nodes", None) if type(value).__name__ == "Match" else None
        for n in nodes if isinstance(nodes, list) else ():
            if _is_op_node(n):
                lines.update(f["lineno"] for f in _user_frames(n)[-1:] if f.get("lineno"))
    return sorted(lines)


def _facts(node: Any, check: str | None, pattern: str | None,
           lines: list[int] | None = None) -> dict[str, Any]:
    facts: dict[str, Any] = {"node": str(node.name), "target": str(node.target)}
    if check:
        facts["check"] = check
    if pattern:
        facts["pattern"] = pattern
    if lines and len(lines) > 1:
        facts["match_lines"] = lines
    return facts


# The names torch's passes give the node they are working on (GraphLowering.run_node's `n`,
# the pattern matcher's `node`), as against its operands (`inp`, `other`, `x`): the node a
# frame works on is its subject; an operand only where no frame names a subject.
SUBJECT_NAMES = ("node", "n", "cur_node", "anchor", "match", "m", "snode", "buf", "buffer")


def _user_frames(node: Any) -> list[dict[str, Any]]:
    return [f for f in frames_in(node.meta.get("stack_trace") or "")
            if is_user_file(f.get("filename"))]


def _nodes(local_vars: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The graph nodes among a frame's locals: (the subject's, the others'); a pattern
    match's nodes are the subject's."""
    subject: list[Any] = []
    others: list[Any] = []
    for name, value in list(local_vars.items()):
        found = [value] if _is_op_node(value) else _origins(value)
        if not found and type(value).__name__ == "Match":
            # the pattern's output (its anchor, what the pattern is about) first
            nodes = getattr(value, "nodes", None)
            found = [n for n in reversed(nodes) if _is_op_node(n)] \
                if isinstance(nodes, list) else []
            subject.extend(found)
            continue
        (subject if name in SUBJECT_NAMES else others).extend(found)
    return subject, others


def _origins(value: Any) -> list[Any]:
    """The graph nodes an Inductor IR buffer or a scheduler node was made from (`origins`,
    a scheduler node's through its `node`): where a codegen or scheduling failure's subject is
    a buffer, not a graph node; sorted by name, for a stable choice."""
    if not _inductors(value):
        return []  # never probe another object's attributes: a __getattr__ may run code
    for holder in (value, getattr(value, "node", None)):
        if holder is not None and not _inductors(holder):
            break
        origins = getattr(holder, "origins", None) if holder is not None else None
        if isinstance(origins, (set, frozenset)) or type(origins).__name__ == "OrderedSet":
            try:
                nodes = [n for n in origins if _is_op_node(n)]
            except Exception:  # noqa: BLE001 - fail open: a container we cannot walk
                return []
            # the node whose value the buffer is first, then the ops that compute over the
            # ones that only fill, view or broadcast (probes46c: a fused backward kernel's
            # origins, by name, led with the `expand` of a sum's gradient, not the upsample's
            # index_put)
            own = getattr(holder, "origin_node", None)
            return sorted(nodes, key=lambda n: (n is not own, _layout_only(n), str(n.name)))
    return []


_LAYOUT_OPS = frozenset({"expand", "view", "reshape", "unsqueeze", "squeeze", "permute", "t",
                         "transpose", "full", "zeros", "ones", "empty", "alias", "slice",
                         "select", "clone", "_to_copy", "as_strided", "full_like",
                         "zeros_like", "empty_like"})


def _layout_only(node: Any) -> bool:
    """An op that fills, views or broadcasts (`aten.expand.default`), not one that computes."""
    target = getattr(node, "target", None)
    name = str(getattr(target, "__name__", target)).split(".")[0]
    return name in _LAYOUT_OPS


def _inductors(value: Any) -> bool:
    """Whether `value` is an object of Inductor's own (an IR buffer, a scheduler node, a
    pattern entry): only those are read for attributes (a Dynamo variable's __getattr__
    would build what it stands for)."""
    return type(value).__module__.startswith("torch._inductor")


def _is_op_node(value: Any) -> bool:
    return type(value).__name__ == "Node" and getattr(value, "op", None) in (
        "call_function", "call_method", "call_module") and isinstance(
        getattr(value, "meta", None), dict)


def _record(capture: Any, n: Any) -> None:
    frames = [f for f in frames_in(n.meta.get("stack_trace") or "")
              if is_user_file(f.get("filename"))]
    capture.ing.event(LOWERING_NODE, current_compile_id(), {"node": n.name, "target": str(n.target)},
                      payload=json.dumps(frames, default=repr))
