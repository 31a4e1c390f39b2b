"""The program's calls of torch's portable cache API that saved nothing, from the facts
capture stored (capture/cache_artifacts.py: one `compdiag:cache_artifacts` record per call of
`torch.compiler.save_cache_artifacts` / `load_cache_artifacts`, with the user's line, whether
it returned None, and how many graphs had compiled by then)."""

from __future__ import annotations

from typing import Any

RECORD = "compdiag:cache_artifacts"


def early_saves(ctx: Any) -> list[dict[str, Any]]:
    """Each save made before any graph compiled, which returned None, in a run that compiled
    afterwards: the artifacts a later launch loads hold nothing of this run's graphs."""
    if not ctx.compiles:
        return []
    out = []
    for rec in ctx.r.records(ctx.run_id, kind=RECORD, with_payload=False):
        data = (rec.get("metadata") or {}).get("compdiag") or {}
        call = data.get("call")
        if data.get("op") == "save" and data.get("returned_none") is True and \
                data.get("graphs") == 0 and isinstance(call, dict) and call.get("lineno"):
            out.append(data)
    return out
