"""User code that torch itself ran while it traced (issue 29 §1, the line torch points at).

While Dynamo and AOTAutograd trace a line, torch runs some of the program's own Python for
real: a tensor subclass's `__torch_dispatch__` and the helpers it calls, a `__torch_function__`,
a hook. An exception raised there ends the compile, and torch's "from user code" names only
the traced line (the matmul whose dispatch ran the subclass), while the Python traceback of
the exception holds the user frames torch called, below torch's own: the innermost of those
is where it was raised (set19 subclass_dispatch_branch, pytorch#115646: a data-dependent `if`
in the helper `__torch_dispatch__` calls)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.locate import TORCH
from compdiag.formats.user_code import frames_in, is_user_file

# torch appends the traced user frames after this line; the Python traceback is above it
FROM_USER_CODE = "from user code:"


@dataclass(frozen=True)
class RanWhileTracing:
    frame: UserFrame           # the innermost user frame torch called (where it was raised)
    via: tuple[UserFrame, ...]  # the user frames between, outermost first (__torch_dispatch__)
    function: str | None       # the function that frame is in


def ran_while_tracing(ctx: Any, traceback: str | None, traced: UserFrame
                      ) -> RanWhileTracing | None:
    """The user code torch ran while tracing `traced` (the line torch's message names) that
    raised: the traceback's innermost user frame, when torch's own frames come before it
    (torch called it) and it is not `traced` itself; None otherwise."""
    text = (traceback or "").split(FROM_USER_CODE, 1)[0]
    frames = frames_in(text)
    mine = [i for i, f in enumerate(frames) if is_user_file(ctx.resolve(f.get("filename")))]
    if not mine:
        return None
    last = mine[-1]
    called = [i for i in mine if any(not is_user_file(ctx.resolve(f.get("filename")))
                                     for f in frames[:i])]
    if last not in called:
        return None
    first = called[0]
    here = ctx.frame(ctx.resolve(frames[last]["filename"]), frames[last]["lineno"],
                     frames[last].get("line"), evidence=TORCH)
    if (here.filename, here.lineno) == (traced.filename, traced.lineno):
        return None
    via = tuple(ctx.frame(ctx.resolve(frames[i]["filename"]), frames[i]["lineno"],
                          frames[i].get("line"), evidence=TORCH)
                for i in called if first <= i < last)
    return RanWhileTracing(here, via, frames[last].get("name"))


def library_frame(ctx: Any, traceback: str | None) -> dict[str, Any] | None:
    """The library frame a break of traced code is in, under torch's "from user code:": the
    innermost frame there when it is no user file (probes36b
    gpt2_attn_entropy_fullgraph: `with _hook_installation_lock:` in transformers' output
    capturing, reached from the user's `model(..., output_attentions=True)` under
    fullgraph=True, whose fix told the user to move that `with` block); None otherwise."""
    if FROM_USER_CODE not in (traceback or ""):
        return None
    frames = frames_in((traceback or "").split(FROM_USER_CODE, 1)[1])
    if not frames or is_user_file(ctx.resolve(frames[-1].get("filename"))):
        return None
    # (no user frame at all: the program compiled a library function itself, probes37a
    # ema_averaged_model_fullgraph's `torch.compile(ema.update_parameters, fullgraph=True)`,
    # failing at swa_utils' `if copy_param:`)
    return frames[-1]
