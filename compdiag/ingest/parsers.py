"""Pure text parsers for what torch emits (no torch import, no store): fuzzable and shared by
live capture and TORCH_TRACE import, so both produce the same rows from the same records.

This module is the one name callers import (`from compdiag.ingest import parsers as P`): the
record envelope's parsers are here; each record family's parsers sit in a module of their own,
re-exported below:

    parse_dynamo.py      graph breaks, recompile reasons, guards, call stacks
    parse_failures.py    a compile failure's stage, the op and kernel it names
    parse_inductor.py    output code, graph nodes, fusion/scheduler lines, perf hints
    parse_cudagraphs.py  CUDA-graph skips, recordings, partitions
    parse_caches.py      compile-cache lookups and their key components
    parse_text.py        what they share (a traceback frame, a first line)
"""

from __future__ import annotations

import functools
from typing import Any

from compdiag.formats import lazy_re
from compdiag.formats.compile_id import CompileId
from compdiag.ingest.parse_text import (  # noqa: F401 - re-exported
    TB_FRAME, first_line, without_trailer)
from compdiag.ingest.parse_dynamo import (  # noqa: F401 - re-exported
    call_stack, cause_user_frame, classify_guard, debug_context, graph_break_details,
    guard_location, guard_of, library_frame, metrics_facts, parse_graph_break,
    parse_recompile_reasons, root_cause, split_recompile, stage_times)
from compdiag.ingest.parse_guard_tree import (  # noqa: F401 - re-exported
    guard_sources, guard_values, metadata_guard_sources)
from compdiag.ingest.parse_failures import (  # noqa: F401 - re-exported
    KERNEL_TOOLCHAIN_ERRORS, STAGES, anomaly_frames, bare_assertion, builtin_classes,
    bounds_check_lines, classify_stage, codegen_ops, exception_origin, failure_facts, import_failure_cause, kernel_of_error, lowering_target, node_trace_frames)
from compdiag.ingest.parse_inductor import (  # noqa: F401 - re-exported
    assertion_frames, epilogue_misses, fallback_calls, frame_key, graph_node_lines, graph_nodes,
    injected_bugs, node_lines, node_stacks, parse_fusion_line, parse_output_code, perf_hint, scheduler_node,
    scheduler_node_name, scheduler_node_names, user_frames, user_line_frame, wrapper_kernel_calls)
from compdiag.ingest.parse_cudagraphs import (  # noqa: F401 - re-exported
    CUDAGRAPH_RECORDING, cudagraph_skip_facts, output_code_partitions, output_code_splits,
    parse_cudagraph_recording, parse_cudagraph_rerecord, parse_cudagraph_skip,
    parse_cudagraph_tree, parse_partition_op, parse_partition_skip,
    parse_partition_summary)
from compdiag.ingest.parse_caches import (  # noqa: F401 - re-exported
    COMPONENT_VALUE_LIMIT, cache_artifact, cache_lookup, key_component, remote_cache_lookups)
from compdiag.ingest.parse_dynamo import _CID_PREFIX  # noqa: F401 - the ingestor's

ENVELOPE_KEYS = {"frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "rank",
                 "has_payload", "stack", "subgraph_name"}


def record_kind(metadata: dict[str, Any]) -> str:
    """The record's kind: its one non-envelope key; artifacts by their name."""
    for key, value in metadata.items():
        if key in ENVELOPE_KEYS:
            continue
        if key == "artifact" and isinstance(value, dict) and isinstance(value.get("name"), str):
            return "artifact:" + value["name"]
        return str(key)
    return "unknown"


def compile_id_of(metadata: dict[str, Any]) -> str | None:
    """torch's own spelling: '0/1', with '_N' for restart attempts and '!ca/' for compiled
    autograd, so ids match what TORCH_LOGS and tlparse print."""
    get = metadata.get
    try:
        return _trace_id_text(get("frame_id"), get("frame_compile_id"), get("attempt"),
                              get("compiled_autograd_id"))
    except TypeError:  # an unhashable value in an odd envelope: no cache for it
        cid = CompileId.from_trace(metadata)
        return None if cid is None else str(cid)


@functools.lru_cache(maxsize=4096, typed=True)  # typed: True is not the frame id 1
def _trace_id_text(frame: Any, frame_compile: Any, attempt: Any, ca: Any) -> str | None:
    """compile_id_of an envelope's four counters, built once per distinct id (every record
    of a capture asks)."""
    cid = CompileId.from_trace({"frame_id": frame, "frame_compile_id": frame_compile,
                                "attempt": attempt, "compiled_autograd_id": ca})
    return None if cid is None else str(cid)


CID_IN_LINE = lazy_re.compile(r"^\s*\[(!?\d+/\d+(?:_\d+)?)\]")
