"""Compiled autograd's graphs (torch's `compiled_autograd_graph` trace records), as rows: the
autograd nodes each graph runs, its inputs and the sizes it reads as dynamic.

Each graph is one compiled-autograd cache miss; Dynamo then compiles it under compile ids
`!N/...` (N: the graph's id). torch says why it missed only in its C++ verbose log (off by
default, and costly); what differs between consecutive graphs says it from the records."""

from __future__ import annotations

from typing import Any

from compdiag.formats import lazy_re

_NODE = lazy_re.compile(r"code: ([\w:]+) \(NodeCall \d+\)")
_INPUT = lazy_re.compile(r"\binputs\[(\d+)\]")
_SIZE = lazy_re.compile(r"\bsizes\[(\d+)\]")


def graph_row(payload: str | None) -> dict[str, Any] | None:
    """{nodes, inputs, dynamic_sizes} of one compiled-autograd graph's printed module."""
    if not payload or "def forward" not in payload:
        return None
    return {"nodes": _NODE.findall(payload),
            "inputs": len(set(_INPUT.findall(payload))),
            "dynamic_sizes": len(set(_SIZE.findall(payload)))}
