"""A compiled optimizer step's one recompile when its state is first filled: by design.

`torch.optim` optimizers create their per-parameter state (SGD's momentum buffer, Adam's
moments and step) inside the first `step()`: compiled, the first call is traced with an empty
`self.state`, and the second finds it filled, fails the guard on its length and compiles once
more; every later step reuses that graph (probes37a bf16_sgd_compiled_step: "len(self.state[...])
changed (0 -> another value)" was a problem, with a fix to pad a list). Once, from 0, in
torch.optim's own code: information, the recompile every compiled optimizer step makes."""

from __future__ import annotations

import re
from typing import Any

OPTIM = "/torch/optim/"
# the state dict, and the per-parameter state lists the functional optimizers take from it
# (SGD's momentum buffers start as None: probes37a yolo_np_interp_momentum)
STATE = re.compile(r"\bself\.state\[|\['state'\]|\.state\b|\b(?:momentum_buffer_list|exp_avgs|"
                   r"exp_avg_sqs|max_exp_avg_sqs|state_steps|state_sums|square_avgs|"
                   r"acc_deltas|grad_avgs|mu_products|prevs|step_sizes)\b")
FIRST_STEP_STATE = (
    "Nothing to do: the optimizer creates its state (momentum buffers, Adam's moments) inside "
    "its first step, so the compiled step's second call finds `state` filled and compiles "
    "once more; every later step reuses that graph. A recompile on it at every step would be "
    "a problem.")
PURPOSE = {"needs": (), "fix": FIRST_STEP_STATE}


def first_step_state(ctx: Any, cid: str | None, source: str | None,
                     before: object) -> dict[str, Any] | None:
    """ON_PURPOSE's row for a recompile on an optimizer's state that was empty (`before` 0,
    or None) in a frame of torch.optim's own code; None otherwise."""
    row = ctx.code_row(cid) or {}
    where = str(row.get("filename") or "").replace("\\", "/")
    if OPTIM not in where or str(before) not in ("0", "None") \
            or not STATE.search(source or ""):
        return None
    return PURPOSE
