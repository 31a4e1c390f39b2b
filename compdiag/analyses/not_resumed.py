"""Which functions ran in eager because Dynamo gave up on their frame at a graph break, in
words: the skipped frames' own functions, the decorator's wrapper a ContextDecorator adds, or
the rest of a function after the break its resume function stands for."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.decorator_lines import context_decorator

# a resume function's code name: the rest of a function after the break at a line
_RESUME_AT = re.compile(r"^torch_dynamo_resume_in_\w+?_at_(\d+)$")


def not_resumed(ctx: Any, skipped: list[dict[str, Any]], count: int) -> str:
    """Which functions ran in eager because Dynamo gave up on their frame at this break: the
    skipped frames' own functions, not the first compile's of the group. One user line can
    break in frames that resumed and in frames that did not (torchvision's Faster R-CNN:
    `torch.where` in `batched_nms` breaks under `forward`, which resumes, and under
    `filter_proposals`, whose loop cannot)."""
    names = list(dict.fromkeys(n for n in (ctx.user_fn_name(r["compile_id"]) for r in skipped
                                           if r.get("compile_id")) if n))
    # a resume function skipped: only the rest of its function after the break ran in eager
    # (probes41a tta_fork_rng_noise: "skipped the whole function tta_predict()", whose part
    # before the `with` compiled)
    resumed = [m.group(1) for m in (_RESUME_AT.match(ctx.fn_name(r["compile_id"]) or "")
                                    for r in skipped if r.get("compile_id")) if m]
    lead = ("Dynamo could not resume after this break" if len(skipped) == count else
            f"Dynamo could not resume after {len(skipped)} of these {count} breaks")
    # why, where torch said it in a second break it chained (`graph break in loop`)
    why = next((r["skip_why"] for r in skipped if r.get("skip_why")), None)
    if why:
        lead += f" (torch: {why.rstrip('.')})"
    # torch marks the skipped code object: every later call of it runs in eager too, whatever
    # its inputs, until a reset (pytorch/pytorch#144820)
    later = (" Torch skips the function's code from then on: every later call of it runs in "
             "eager too, whatever its inputs, until `torch._dynamo.reset()`.")
    wrapper = next((r for r in skipped if context_decorator(r.get("lib_frame"),
                                                            r.get("explanation"))), None)
    if wrapper is not None and names:  # the decorator's wrapper, not the function it wraps
        return (f"{lead}, so Dynamo skipped the decorator's wrapper (contextlib's `inner`), "
                f"which runs in eager around {names[0]}() at every call; {names[0]}() itself "
                "is compiled as a frame of its own.")
    if resumed and len(names) == 1 and len(resumed) == len(skipped):
        return (f"{lead}, so Dynamo skipped the rest of {names[0]}() after line "
                f"{resumed[0]} (its resume function), which ran in eager; the part before "
                f"the break is compiled.{later}")
    if not names:
        return f"{lead}, so Dynamo skipped the whole function and it ran in eager.{later}"
    which = ", ".join(f"{n}()" for n in names)
    return (f"{lead}, so Dynamo skipped the whole function {which}, which ran in eager.{later}"
            if len(names) == 1 else
            f"{lead}, so Dynamo skipped these whole functions, which ran in eager: "
            f"{which}.{later}")
