"""Which line of the program changed a compile cache's key component, for the cache kind's
explained misses (analyses/diagnoses/cache.py): the assignment of a changed config, the call
that switched a global setting, the call that passed an input of another dtype or shape, and
the module globals Dynamo baked into both graphs with different values."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses import caches as C
from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.locate import source_line

# Key components a program changes by a call rather than an assignment: the call's pattern.
COMPONENT_CALLS: tuple[tuple[str, str], ...] = (
    ("deterministic_algorithms_settings", r"\buse_deterministic_algorithms\s*\("),
    # probes40f matmul_precision_cache_miss: the miss was said at the call, not at the
    # `torch.set_float32_matmul_precision("high")` that changed the key
    ("cuda_matmul_settings", r"\bset_float32_matmul_precision\s*\(|\ballow_tf32\s*=(?!=)|"
                             r"\ballow_(?:bf16|fp16)_reduced_precision_reduction\s*=(?!=)"),
    ("fx_kwargs[is_inference]", r"\b(?:no_grad|inference_mode|set_grad_enabled|enable_grad)\s*\("),
)
_CONFIG_COMPONENT = re.compile(r"^\w*config\[(?P<name>\w+)\]$")




def changed_line(ctx: Any, cid: str | None, changes: tuple[C.Change, ...],
                 after: dict[str, Any] | None = None) -> UserFrame | None:
    """The user line that changed a key component, where the program's source shows it: the
    assignment of a changed config (`inductor_config[NAME]`), the call that switched
    deterministic algorithms, the call that passed an input of another dtype, device or shape;
    after the reset that separated the two compiles when known."""
    for change in changes:
        if change.component.startswith("example_inputs"):
            # An input's dtype, device or shape changed: the call that passed it in (the
            # user's call that started this compile) is the line that changed it.
            chain = ctx.call_chain(cid)
            if chain and chain[-1].lineno:
                return chain[-1]
            continue
        m = _CONFIG_COMPONENT.match(change.component)
        pattern = (r"\b%s\s*=(?!=)|[\"']%s[\"']" % ((re.escape(m.group("name")),) * 2) if m
                   else next((p for name, p in COMPONENT_CALLS if name == change.component),
                             None))
        frame = source_line(ctx, cid, re.compile(pattern), after) if pattern else None
        if frame is not None:
            return frame
    return None


_GLOBAL = re.compile(r"^G\['(\w+)'\]$")


def changed_globals(ctx: Any, before: str | None, cid: str | None
                    ) -> list[tuple[str, str | None, str | None]]:
    """Module globals both compiles guarded on (`G['NAME'] == V`: Dynamo baked the value into
    the graph) whose values differ: (NAME, before, after)."""
    if not before or not cid:
        return []
    old, new = ctx.r.guard_values(ctx.run_id, before), ctx.r.guard_values(ctx.run_id, cid)
    return [(m.group(1), old[g], new[g]) for g in old
            if (m := _GLOBAL.match(g)) and g in new and old[g] != new[g]]
