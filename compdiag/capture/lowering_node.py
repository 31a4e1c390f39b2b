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


def _record(capture: Any, n: Any) -> None:
    frames = [f for f in frames_in(n.meta.get("stack_trace") or "")
              if is_user_file(f.get("filename"))]
    capture.ing.event(LOWERING_NODE, current_compile_id(), {"node": n.name, "target": str(n.target)},
                      payload=json.dumps(frames, default=repr))
