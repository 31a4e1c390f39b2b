"""The guards a refused recompile names: `error_on_recompile` (RecompileError) and the
`fail_on_recompile` stance raise instead of recompiling, with the failed guards in the
message ("triggered by the following guard failure(s):\\n    - 0/0: GLOBAL_STATE changed:
grad_mode"). Classified here as a recompile's are (parse_dynamo.classify_guard), so the
failure is explained by what changed (issue 29 §2, the cause above its consequence; probes35c
strict_recompile_val_pass: an evaluation pass under no_grad was "Dynamo failed while tracing",
with a fix about dtypes and dynamic dimensions)."""

from __future__ import annotations

from typing import Any

from compdiag.formats import lazy_re
from compdiag.ingest.parse_dynamo import classify_guard

_TRIGGERED = "triggered by the following guard failure(s):"
# the refused function: "Recompiling function forward in", "function name: 'forward'"
_FUNCTION = lazy_re.compile(r"Recompiling function (\w+)|function name: '(\w+)'")
_ITEM = lazy_re.compile(r"^\s*-\s*(?:\d+/\d+:\s*)?(?P<guard>.+?)\s*$")


def failed_guards(*texts: str | None) -> list[dict[str, Any]] | None:
    """Each failed guard of the first text that lists them: its text, its classification
    (category, source, before, after) and the function refused; None when no text does."""
    for text in texts:
        if not text or _TRIGGERED not in text:
            continue
        named = _FUNCTION.search(text)
        function = (named.group(1) or named.group(2)) if named else None
        out = []
        for line in text.split(_TRIGGERED, 1)[1].splitlines():
            m = _ITEM.match(line)
            if m:
                out.append({"guard": m.group("guard"), "function": function,
                            **classify_guard(m.group("guard"))})
            elif line.strip() and out:
                break  # the list ends where the indented "- " items do
        return out or None
    return None
