"""Text helpers every parser family shares: a traceback frame line, a message's first line, a
JSON int that is not a bool. (Re-exported by ingest/parsers.py.)"""

from __future__ import annotations

from typing import Any

from compdiag.formats import lazy_re

TB_FRAME = lazy_re.compile(r'^\s*File "(.+?)", line (\d+), in (.+)$')


def is_int(value: Any) -> bool:
    """An int that is not a bool (JSON true/false must not become a compile id)."""
    return isinstance(value, int) and not isinstance(value, bool)


def first_line(text: str | None, limit: int = 500) -> str:
    if not text:
        return ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:limit]


# What Dynamo appends to an exception's message: the user frames it was tracing, the hint to
# see its own stack. Neither is the message; an exception with no words has only these.
TRAILERS = ("from user code:", "Set TORCHDYNAMO_VERBOSE=1", "Set TORCH_LOGS=")


def without_trailer(text: str | None) -> str:
    """The message without what Dynamo appended to it (TRAILERS): "" for an exception raised
    with no words, whose text is only Dynamo's trailer."""
    text = text or ""
    cut = min((i for i in (text.find(t) for t in TRAILERS) if i >= 0), default=len(text))
    return text[:cut]


# The failing-node words capture adds (ingest/own_records.failing_node_words: "in store
# (torch/_inductor/codegen/cpp.py:3055), on node ...") naming a frame of Inductor's codegen
_CODEGEN_FRAME = lazy_re.compile(r"\bin \w+ \(torch/_inductor/(?:codegen/|scheduler\.py)")


def names_codegen_frame(text: str | None) -> bool:
    """Whether the words name torch's raising frame in Inductor's codegen (probes46c: a
    backward's failure that carried no traceback was called a lowering failure)."""
    return bool(_CODEGEN_FRAME.search(text or ""))
