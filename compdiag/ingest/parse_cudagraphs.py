"""Parsers of CUDA-graph records: skips (perf hints, graph partitioning's left-out ops),
cudagraph_trees' recordings and their input sizes, the partitions and the work between them in
the output code. Pure text (re-exported by ingest/parsers.py)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats import lazy_re
from compdiag.formats.user_code import frames_in

# -- skips (perf hints, partitioning's left-out ops) ------------------------------------------
CUDAGRAPH_RECORDING = lazy_re.compile(r"Recording function=|Recording function \d+")
_CG_SKIP = lazy_re.compile(r"skipping cudagraphs due to (.*)", re.I | re.S)


_PARTITION_OP = lazy_re.compile(r"^\s*(\w+): reason=(.+?), ir=\w+, fx=(.+)$")


def parse_partition_skip(msg: str) -> str | None:
    """Graph partitioning (torch >= 2.9) keeps CUDA graphs for the rest of the graph and logs
    each op it leaves out: 'op1: reason=cpu ops, ir=ComputedBuffer, fx=aten.add.Tensor(...)'."""
    m = _PARTITION_OP.match(msg)
    if not m or "when cudagraphs is disabled" in m.group(2):
        # Partitioning also runs without CUDA graphs (mode default) and says so per op: no
        # skip, nothing was asked of CUDA graphs.
        return None
    return f"partition left out of CUDA graphs: {m.group(2)} ({m.group(3).strip()})"


def parse_cudagraph_skip(msg: str) -> str | None:
    m = _CG_SKIP.search(msg)
    return m.group(1).strip() if m else None


# -- CUDA-graph coverage: recordings, partitions (cudagraph_trees and the scheduler log them) ---
_CG_RECORDED = lazy_re.compile(r"Recording function=(?P<fn>\w+), cuda_graph_id=(?P<gid>\d+)"
                          r"(?:, inputs: (?P<inputs>.*))?", re.S)
_CG_TENSOR_IN = lazy_re.compile(r"Tensor\(size=\[(?P<size>[^\]]*)\]")
_CG_INT_IN = lazy_re.compile(r"\]: int\((?P<v>-?\d+)\)")
_CG_PARTITIONS = lazy_re.compile(r"Created (\d+) graph partitions: (\d+) cudagraphable, "
                            r"(\d+) non-cudagraphable")
_RUNNER_PARTITIONS = lazy_re.compile(r"^runner = Runner\(partitions=\[(?P<names>[^\]]*)\]\)", re.M)


def parse_cudagraph_recording(msg: str) -> dict[str, Any] | None:
    """One CUDA-graph recording (cudagraph_trees, DEBUG): 'Recording function=partition_0,
    cuda_graph_id=2, inputs: [0]: Tensor(size=[1024], ...), [1]: int(1024)'. Each distinct
    set of input sizes records its own graph; the sizes say which."""
    m = _CG_RECORDED.search(msg)
    if not m:
        return None
    inputs = m.group("inputs") or ""
    sizes = [[int(x) for x in t.group("size").replace(" ", "").split(",") if x.lstrip("-").isdigit()]
             for t in _CG_TENSOR_IN.finditer(inputs)]
    return {"function": m.group("fn"), "graph_id": int(m.group("gid")), "sizes": sizes,
            "symints": [int(i.group("v")) for i in _CG_INT_IN.finditer(inputs)]}


_CG_TREE = lazy_re.compile(r"Recording cudagraph tree for (?:graph without symints|symint key "
                      r"(?P<key>.+?))\s*$")
_CG_OBSERVED = lazy_re.compile(r"We have observed (\d+) distinct sizes")


def parse_cudagraph_tree(msg: str) -> dict[str, Any] | None:
    """cudagraph_trees' own count for a function: a tree recorded for a new int key ('Recording
    cudagraph tree for symint key 512'; key '' for 'graph without symints'), or its warning
    '... recording a new graph for each distinct input size ... We have observed 9 distinct
    sizes' (key None, observed 9), logged once, when a function passes the warn limit."""
    m = _CG_OBSERVED.search(msg)
    if m:
        return {"key": None, "observed": int(m.group(1))}
    m = _CG_TREE.search(msg)
    if m:
        return {"key": (m.group("key") or "").strip(), "observed": None}
    return None


_CG_RERECORD = lazy_re.compile(r"Re-recording function=(?P<fn>\w+)(?:, mode=\w+)?, reason=(?P<why>.+)",
                          re.S)
_CG_INPUT_NAME = lazy_re.compile(r"input name: (\w+)")
# the first changed input's first use, as torch names it: 'input stack trace:   File "x.py",
# line 25, in forward\n    k_cache.index_copy_(...)' (up to the next input or the end)
_CG_INPUT_TRACE = lazy_re.compile(r"input stack trace:(?P<body>.*?)(?=input name:|\Z)", re.S)
_CG_TRACE_FRAME = lazy_re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>[\w<>.]+)'
                                  r'(?:[ \t]*\n[ \t]+(?P<code>[^\n]+))?')


def parse_cudagraph_rerecord(msg: str) -> dict[str, Any] | None:
    """cudagraph_trees re-recording a function whose recorded graph no longer fits the call
    (DEBUG; '[0/0] Re-recording function=partition_0, reason=static input data pointer
    changed.\ninput name: arg0_1. data pointer changed from ...'; torch 2.13 adds 'mode=...').
    Not a new size: an address or liveness check the recording failed (issue 29 §6). `frames`:
    the changed input's stack trace torch names (its first use in the user's code)."""
    m = _CG_RERECORD.search(msg)
    if not m:
        return None
    why = m.group("why").strip()
    name = _CG_INPUT_NAME.search(why)
    trace = _CG_INPUT_TRACE.search(why)
    frames = [{"filename": f.group("file"), "lineno": int(f.group("line")), "name": f.group("fn"),
               "line": (f.group("code") or "").strip() or None}
              for f in _CG_TRACE_FRAME.finditer(trace.group("body"))] if trace else []
    return {"function": m.group("fn"), "reason": why.splitlines()[0].strip().rstrip("."),
            "input": name.group(1) if name else None, "frames": frames}


def parse_partition_summary(msg: str) -> dict[str, int] | None:
    """The scheduler's 'Created 2 graph partitions: 1 cudagraphable, 1 non-cudagraphable'."""
    m = _CG_PARTITIONS.search(msg)
    if not m:
        return None
    return {"partitions": int(m.group(1)), "cudagraphable": int(m.group(2)),
            "non_cudagraphable": int(m.group(3))}


def parse_partition_op(msg: str) -> dict[str, str] | None:
    """An op a partition keeps out of CUDA graphs ('op0: reason=cpu ops, ir=DeviceCopy,
    fx=prims.device_put.default(arg1_1, cpu)'); its fx part is absent for some ops."""
    m = re.match(r"^\s*(\w+): reason=(.+?), ir=\w+(?:, fx=(.+))?$", msg.strip("\n"))
    if not m or "when cudagraphs is disabled" in m.group(2):
        return None
    return {"node": m.group(1), "reason": m.group(2).strip(), "fx": (m.group(3) or "").strip()}


def output_code_partitions(code: str | None) -> list[str] | None:
    """The CUDA-graphed partitions an Inductor wrapper runs ('runner = Runner(partitions=
    [partition_0, partition_1,])'); None when the graph was not partitioned. A cache hit logs
    no scheduling, so this is all a cached compile tells."""
    m = _RUNNER_PARTITIONS.search(code or "")
    if not m:
        return None
    return [n.strip() for n in m.group("names").split(",") if n.strip()]


_CALL_WORK = lazy_re.compile(
    r"^\s*(?:\w+ = )?(?:(?P<copy>\w+\.copy_)\(|(?P<kernel>(?:cpp|triton)_\w+)"
                        r"(?:\.run)?\(|extern_kernels\.(?P<ext>\w+)\(|torch\.ops\.(?P<op>[\w.]+)\()")


def output_code_splits(code: str | None) -> dict[str, Any] | None:
    """A partitioned wrapper's work outside its CUDA-graphed partitions: in `call`, each run of
    kernels, copies and extern calls between `self.partitions[i](...)` calls is one partition
    that runs without CUDA graphs (what a cache hit tells of the split; no scheduler log)."""
    names = output_code_partitions(code)
    if names is None:
        return None
    body = (code or "").split("    def call(self, args):", 1)
    if len(body) < 2:
        return {"cudagraphable": len(names), "non_cudagraphable": None, "work": []}
    runs, current, work = 0, False, []
    for line in body[1].split("\nrunner = Runner", 1)[0].splitlines():
        if "self.partitions[" in line:
            current = False
            continue
        m = _CALL_WORK.match(line)
        if m:
            what = m.group("copy") or m.group("kernel") or m.group("ext") or m.group("op")
            work.append({"node": what, "reason": "device copy" if m.group("copy") else
                         "cpu kernel" if what.startswith("cpp_") else "outside the partitions",
                         "fx": line.strip()})
            if not current:
                runs, current = runs + 1, True
    return {"cudagraphable": len(names), "non_cudagraphable": runs, "work": work}


# -- the facts analyses read of a skip (stored with it: store.schema.BACKFILLED_COLUMNS) ----
_CG_OP = lazy_re.compile(r"\baten\.(\w+)\.\w+\(")
# the op torch's "incompatible op" reason names bare (`run_and_save_rng_state`, a higher-order
# op) or qualified without a call (`aten._fused_moving_avg_obs_fq_helper_functional.default`)
_CG_INCOMPATIBLE = lazy_re.compile(r"\bincompatible ops? (?:aten\.)?(\w+)")


def cudagraph_skip_facts(reason: str | None) -> dict[str, Any]:
    """A skip reason's parts: its head (without the "Found from" trace torch appends), the
    user frames of that trace, and the ops it names (a partition's reason names its op:
    "cpu ops (aten.sum.default(arg1_1))"; an incompatible op's, bare or qualified)."""
    text = (reason or "unknown reason").strip()
    head, found, trace = text.partition("Found from")
    # the trace may begin on the marker's own line ("Found from   File ...")
    return {"head": head.strip().rstrip("."),
            "frames": frames_in(trace if found else text),
            "ops": list(dict.fromkeys(_CG_OP.findall(text) + _CG_INCOMPATIBLE.findall(head)))}
