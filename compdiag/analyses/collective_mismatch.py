"""A rank that native code aborted because the ranks' collectives did not match: gloo's
"Received data size doesn't match expected size. Is there a distributed collective mismatch in
your code?" (an uncaught C++ exception, then SIGABRT). Under `compdiag run -m
torch.distributed.run` the ranks' stderr goes through the launcher, so the C++ runtime's last
words are the launcher's run's, and the rank's own run recorded nothing after the signal
(probes40d ddp_python_reducer_multitask: "killed by SIGABRT (nothing after it was recorded)",
fix "run without torch.compile", where DDP's python_reducer with rank-dependent unused
parameters made the ranks all-reduce different sizes)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.locate import source_line

_RANK_LINE = re.compile(r"^\[rank\d+\]:")
_SETTING = re.compile(r"\boptimize_ddp\s*=")
MISMATCH_WORDS = ("collective mismatch", "doesn't match expected size",
                  "does not match expected size")

MISMATCH_FIX = ("The ranks called different collectives (in size, order or number), so one "
                "received what another did not send. Find the rank-dependent path (a branch on "
                "the rank, data that differs per rank, unused parameters that differ) with "
                "`compdiag explain --job`, and make every rank call the same collectives.")
PYTHON_REDUCER_FIX = ("`torch._dynamo.config.optimize_ddp = \"python_reducer\"` all-reduces "
                      "each gradient from a hook and ignores DDP's find_unused_parameters, so "
                      "ranks whose steps use different parameters all-reduce different sizes "
                      "and the collectives no longer match. Leave optimize_ddp at its default "
                      "(DDPOptimizer), or make every rank use every parameter each step.")


def launcher_native(reader: Any, run: dict[str, Any]) -> str | None:
    """The C++ runtime's last words the job's launcher recorded (its ranks' stderr), where
    this rank's own run has none: up to the first line a rank's Python printed (`[rank0]:`)."""
    launcher = reader.job_launcher(run["job"]) if run.get("job") else None
    ends = reader.program_ends(launcher["id"]) if launcher else []
    text = next((e["native_message"] for e in ends if e.get("native_message")), None)
    if not text:
        return None
    lines = text.splitlines()
    cut = next((k for k, line in enumerate(lines) if _RANK_LINE.match(line)), len(lines))
    return "\n".join(lines[:cut]) or None


def mismatch_fix(ctx: Any, native: str | None) -> tuple[str, UserFrame] | None:
    """(fix, the line of the setting that caused it where one did) for a collective mismatch
    the native message names; None for any other message."""
    if not native or not any(w in native for w in MISMATCH_WORDS):
        return None
    for wrap in ctx.r.ddp_wraps(ctx.run_id):
        settings = wrap.get("settings") or {}  # the reader decodes the JSON column
        if settings.get("python_reducer") and settings.get("find_unused_parameters"):
            # the setting's own line, where the program makes it; else the DDP(...) call
            cid = next(iter(ctx.compiles), None)
            setting = source_line(ctx, cid, _SETTING) if cid is not None else None
            return PYTHON_REDUCER_FIX, setting or ctx.frame(
                wrap.get("filename"), wrap.get("lineno"), wrap.get("line"), evidence="source")
    return MISMATCH_FIX, UserFrame()
