"""A Python number a torch layer reads from its own attribute and hands to an op as a number
(BatchNorm's `momentum`, a Dropout's `p`, a LeakyReLU's `negative_slope`), changed by the
program between calls. Dynamo guards on the value, so each new value compiles again; the
usual fix for a changing number (make it a tensor) does not hold here, since torch's layer
passes it on to an op that takes a number (probes42b bn_momentum_schedule_recompile: a
PointNet-style BatchNorm momentum schedule; `torch.tensor(momentum)` made every BatchNorm
call a graph break). The line to change is the program's assignment to the attribute."""

from __future__ import annotations

import os
import re
from typing import Any

from compdiag.analyses.locate import source_line
from compdiag.formats.user_code import is_user_file

LAYER_NUMBER_FIX = (
    "`{attr}` is read by torch's own layer code ({where}) and passed to an op as a Python "
    "number, so it cannot become a tensor: keep it constant while the model is compiled, or "
    "let it take a fixed few values (round the schedule to a few steps: each value compiles "
    "once, with `torch._dynamo.config.recompile_limit` above their number); update it between "
    "phases rather than every step.")
LAYER_NUMBER_EXPLANATION = (
    " {src} is an attribute of a torch layer that the layer's own code reads as a Python "
    "number{written}: every new value is a new constant in the graph.")


def layer_number(ctx: Any, read: dict[str, Any] | None, source: str,
                 cid: str | None) -> dict[str, Any] | None:
    """{fix, explanation, frame} where `source`'s value guard was read in torch's own code
    (the guard's location, `read`, is not the program's file); `frame`, the program's first
    line that assigns the attribute (`m.momentum = ...`, locate.source_line over the files
    compile `cid` started from), else None."""
    where = (read or {}).get("loc_filename")
    attr = re.search(r"\.(\w+)$", source or "")
    if not where or attr is None:
        return None
    # torch's own file: one the run did not keep (torch shortens its paths: a relative
    # `nn/modules/batchnorm.py` the store has no file for), or library code
    resolved = ctx.resolve(where) or where
    if os.path.isabs(resolved) and is_user_file(resolved):
        return None
    name = attr.group(1)
    frame = source_line(ctx, cid, re.compile(rf"\.\s*{re.escape(name)}\s*=(?!=)"))
    written = f", and the program sets it at line {frame.lineno}" if frame else ""
    return {"fix": LAYER_NUMBER_FIX.format(attr=name, where=where),
            "explanation": LAYER_NUMBER_EXPLANATION.format(src=source, written=written),
            "frame": frame}
