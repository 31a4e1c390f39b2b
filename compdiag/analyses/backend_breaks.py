"""Words for a graph break Dynamo made of a backend's exception (GB0219, "Backend compiler
exception"): what the backend failed on and the graph node it ran, in the user's words; and
torch's "WON'T CONVERT fn ..." note, which repeats a break of the same compile. Split from
analyses/diagnoses/graph_breaks.py."""

from __future__ import annotations

import re
from typing import Any


_BACKEND_FAILED = re.compile(r"Backend compiler `?(\w+)`? failed with ([\w.]+)")
_EXECUTING = re.compile(r"While executing %\w+ : .*?target=([\w.]+)")


def backend_context(gb_type: str, explanation: str | None, message: str) -> str:
    """What a backend failed on, for the break Dynamo made of its exception: the exception's
    op and the graph node torch was running (probes32a ddpm_schedule_index: "inductor failed
    on aten._local_scalar_dense.default, running operator.getitem", a tensor index read as a
    number, where the reason said only "Backend: inductor")."""
    failed = _BACKEND_FAILED.search(explanation or "") if gb_type.startswith("Backend compiler") \
        else None
    if failed is None:
        return ""
    node = _EXECUTING.search(message)
    read = (": a tensor's value read as a Python number" if "_local_scalar_dense"
            in failed.group(2) else "")
    return (f"{failed.group(1)} failed on {failed.group(2)}"
            + (f", running {_NODE_WORDS.get(node.group(1), node.group(1))}" if node else "")
            + read)


# graph nodes of Python syntax, in the user's words
_NODE_WORDS = {"operator.getitem": "an index `x[i]` (operator.getitem)",
               "operator.setitem": "an indexed assignment `x[i] = v` (operator.setitem)"}


def wont_convert(row: dict[str, Any]) -> bool:
    return str(row.get("gb_type") or row.get("reason") or "").startswith("WON'T CONVERT")
