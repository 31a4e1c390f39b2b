"""A failure raised in torch code that runs only because the program turned a setting on
(issue 29 §1, set20's compiler_collectives_gloo: `torch._dynamo.config.enable_compiler_collectives
= True`, then Dynamo's `run_compiler_collective` raised a TypeError on a gloo process group).
The line torch's traceback ends at is torch's; the line the user can change is the config
assignment, found in the user's source where its name and the raising torch function's name
share their words (`compiler`, `collective`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import UserFrame
from compdiag.analyses.locate import source_matches
from compdiag.formats.user_code import frames_in, is_user_file

# `torch._dynamo.config.NAME = ...`, `inductor_config.NAME = ...`, `config.NAME = ...`
_ASSIGNED = re.compile(r"\bconfig\.(\w+)\s*=(?!=)")
# Words that say nothing of what a setting or a function is about.
_PLAIN = frozenset({"enable", "enabled", "disable", "use", "allow", "force", "config", "run",
                    "do", "is", "to", "the", "of", "maybe", "get", "set", "call", "fn",
                    "inner", "wrapper", "impl", "and", "or", "in", "on", "for", "with"})
# The innermost torch frames whose function names are compared.
_INNERMOST = 3


@dataclass(frozen=True)
class ConfigCause:
    frame: UserFrame    # the assignment in the user's source
    name: str           # the config's name
    function: str       # the torch function that raised


def _words(name: str) -> set[str]:
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w
            for w in name.lower().strip("_").split("_") if w and w not in _PLAIN}


def config_behind(ctx: Any, cid: str | None, traceback: str | None) -> ConfigCause | None:
    """The config assignment in the user's source that the torch function a failure was
    raised in is about (two words in common, or all of the config's), None when the
    traceback ends in user code or no assignment matches."""
    frames = frames_in(traceback or "")
    if not frames or is_user_file(frames[-1].get("filename")):
        return None
    torch_fns = [f.get("name") or "" for f in frames[-_INNERMOST:]]
    for frame in source_matches(ctx, cid, _ASSIGNED):
        m = _ASSIGNED.search(frame.line or "")
        want = _words(m.group(1)) if m else set()
        for fn in reversed(torch_fns):
            shared = want & _words(fn)
            if want and (len(shared) >= 2 or shared == want):
                return ConfigCause(frame, m.group(1), fn)
    return None
