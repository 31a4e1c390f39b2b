"""Which compile is running now, as the store names it: read from torch's CompileContext by
every tap that hears of something outside a trace record (artifact lines, bytecode, failing
graphs, accuracy checks, perf timings)."""

from __future__ import annotations


def current_compile_id() -> str | None:
    import torch._guards

    from compdiag.ingest.parsers import compile_id_of

    trace_id = torch._guards.CompileContext.current_trace_id()
    if trace_id is None:
        return None
    c = trace_id.compile_id
    return compile_id_of({"frame_id": c.frame_id, "frame_compile_id": c.frame_compile_id,
                          "attempt": trace_id.attempt,
                          "compiled_autograd_id": c.compiled_autograd_id})
