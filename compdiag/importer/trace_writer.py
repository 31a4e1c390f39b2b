"""A run's raw records written back as a TORCH_TRACE log (the inverse of trace_log.py), so a
run recorded by `compdiag run` can be opened by tlparse and re-imported by `compdiag import`.

It lives beside the importer because it is the other place that knows the format: one
glog-prefixed line per record, `V1201 14:48:31.553018 771 torch/_logging/structured.py:0]
{envelope}`, then the payload's lines, each after a tab. The records are the store's verbatim
envelopes; compdiag's own records (`{"compdiag": {...}}`, e.g. the failure and its graph, the
program's exception, accuracy checks, how the program ended) go out too, with their record kind
and compile id, so `compdiag import` replays them through the Ingestor and finds the same
facts; tlparse counts them as unknown fields. Every
payload gets an envelope `has_payload` (its md5, as torch writes it): without it tlparse reads
a payload line as a broken log line."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

# The source location a line claims; the real one is not stored (torch's envelope lacks it).
_WHERE = "torch/_logging/structured.py:0]"


@dataclass(frozen=True)
class TraceEntry:
    record_id: int
    compile_id: str | None
    kind: str
    metadata: dict[str, Any]
    payload: str | None


def trace_entries(reader: Any, run_id: int) -> Iterator[TraceEntry]:
    """The run's records in capture order, envelopes decoded (an undecodable one is kept as
    `{"compdiag": {"kind": "unreadable_envelope", "text": ...}}` rather than dropped)."""
    for rec in reader.records(run_id):
        md = rec["metadata"]
        if not isinstance(md, dict):
            md = {"compdiag": {"kind": "unreadable_envelope", "text": str(md)}}
        elif rec["kind"].startswith("compdiag:") and isinstance(md.get("compdiag"), dict):
            # What import needs to store it as capture did: its record kind (the envelope's
            # `kind` may be the record's own field) and compile id (no frame_id here).
            md = {**md, "compdiag": {**md["compdiag"], "record_kind": rec["kind"],
                                     "compile_id": rec["compile_id"]}}
        yield TraceEntry(rec["id"], rec["compile_id"], rec["kind"], md, rec["payload"])


def glog_prefix(when: float, pid: int | None) -> str:
    """`V1201 14:48:31.553018 771 torch/_logging/structured.py:0]` (torch's trace formatter)."""
    stamp = time.strftime("%m%d %H:%M:%S", time.localtime(when))
    return f"V{stamp}.{int((when % 1) * 1e6):06d} {pid or 0} {_WHERE}"


def format_entry(prefix: str, metadata: dict[str, Any], payload: str | None,
                 text: Callable[[str], str] = lambda s: s) -> str:
    """One record as log lines (ending in a newline). `text` rewrites the payload and the
    envelope's strings (e.g. home paths shown relative); has_payload is the md5 of what is
    written, so the importer's checksum still holds."""
    md = dict(metadata)
    if payload is not None:
        payload = text(payload)
        md["has_payload"] = hashlib.md5(payload.encode("utf-8", "surrogatepass")).hexdigest()
    else:
        md.pop("has_payload", None)
    line = f"{prefix} {text(json.dumps(md, default=repr))}\n"
    if payload is None:
        return line
    return line + "".join(f"\t{ln}\n" for ln in payload.split("\n"))
