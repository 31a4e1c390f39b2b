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
from compdiag.analyses.rules import Words, every, one_of
from compdiag.formats.user_code import frames_in, is_user_file

# `torch._dynamo.config.NAME = ...`, `inductor_config.NAME = ...`, `config.NAME = ...`
_ASSIGNED = re.compile(r"\bconfig\.(\w+)\s*=(?!=)")
# Words that say nothing of what a setting or a function is about.
_PLAIN = frozenset({"enable", "enabled", "disable", "use", "allow", "force", "config", "run",
                    "do", "is", "to", "the", "of", "maybe", "get", "set", "call", "fn",
                    "inner", "wrapper", "impl", "and", "or", "in", "on", "for", "with"})
# The innermost torch frames whose function names are compared.
_INNERMOST = 3


# A setting given as a key of a dict (`options={"max_autotune_gemm_backends": "TRITON"}`, an
# options dict built before the torch.compile call), besides a config's attribute (_ASSIGNED)
_KEY = re.compile(r"""["'](\w+_\w+)["']\s*:""")
_CODE_OF_GIVEN = re.compile(rf":|{_ASSIGNED.pattern}")
_OPTIONS_NAME = re.compile(r"\boptions\s*=\s*([A-Za-z_]\w*)")  # a dict passed by its name


@dataclass(frozen=True)
class ConfigCause:
    frame: UserFrame    # the assignment in the user's source
    name: str           # the config's name
    function: str | None  # the torch function that raised (None: torch's message names it)


def _words(name: str) -> set[str]:
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w
            for w in name.lower().strip("_").split("_") if w and w not in _PLAIN}


def config_behind(ctx: Any, cid: str | None, traceback: str | None,
                  message: str | None = None) -> ConfigCause | None:
    """The config assignment in the user's source that the torch function a failure was
    raised in is about (two words in common, or all of the config's), else a setting the
    program gives (an options dict's key, a config assignment) that torch's `message` names
    (probes36d cpu_autotune_triton_options: "please consider adding ATEN into
    max_autotune_gemm_backends config", from `options={"max_autotune_gemm_backends":
    "TRITON"}` on a CPU); None when the traceback ends in user code or nothing matches."""
    frames = frames_in(traceback or "")
    found = None
    if frames and not is_user_file(frames[-1].get("filename")):
        found = _raised_for(ctx, cid, frames) or _named_in(ctx, cid, message or "")
    # (a failure whose words say it is torch's, whatever frames its text quotes last: a
    # lowering error prints the IR's user stack traces)
    return found or _known_setting(ctx, cid, f"{message or ''}\n{traceback or ''}")


# Failures torch raises only because of a setting its words do not name as a config: (words
# of the failure, the config attributes and the environment variables behind it). probes45c:
# `implicit_fallbacks = False` then "missing lowering" for grid_sampler_3d; CXX=clang++ on a
# machine without it, read into cpp.cxx; `cpp.march = "znver5"`, which the compiler rejected.
SETTINGS_BEHIND: tuple[tuple[Words, tuple[str, ...], tuple[str, ...]], ...] = (
    (one_of("MissingOperatorWithoutDecomp"), ("implicit_fallbacks",), ()),
    (one_of("InvalidCxxCompiler", "No working C++ compiler"), ("cpp.cxx",), ("CXX",)),
    (every("CppCompileError", "-march="), ("cpp.march",), ()),
)
_ENVIRON = re.compile(r"\benviron\b|\bputenv\(")


def _known_setting(ctx: Any, cid: str | None, text: str) -> ConfigCause | None:
    """The program's line that makes a setting SETTINGS_BEHIND names for this failure: a
    config attribute assigned, or an environment variable set in its code."""
    for words, names, variables in SETTINGS_BEHIND:
        if not words.found_in(text):
            continue
        for name in names:
            assigned = re.compile(rf"(?<![\w]){re.escape(name)}\s*=(?!=)")
            for frame in source_matches(ctx, cid, assigned):
                return ConfigCause(frame, name, None)
        for variable in variables:
            quoted = re.compile(rf"""["']{re.escape(variable)}["']""")
            for frame in source_matches(ctx, cid, _ENVIRON):
                if quoted.search(frame.line or ""):
                    return ConfigCause(frame, variable, None)
    return None


def _named_in(ctx: Any, cid: str | None, message: str) -> ConfigCause | None:
    """A setting torch's message names as a config ("... into max_autotune_gemm_backends
    config"), given by the program as a key of torch.compile's options (inline, or a dict
    whose name is passed as `options=`) or as a config attribute."""
    # (a line with a colon or a config attribute in its code; the key is a string, which
    # source_matches blanks, so the setting is read from the whole line)
    lines = source_matches(ctx, cid, _CODE_OF_GIVEN) if message else []
    passed = set(_OPTIONS_NAME.findall(" ".join(
        f.line or "" for f in source_matches(ctx, cid, _OPTIONS_NAME)))) if lines else set()
    for frame in lines:
        line = frame.line or ""
        options = "options=" in line.replace(" ", "") or \
            any(re.match(rf"\s*{re.escape(n)}\s*=", line) for n in passed)
        names = (_KEY.findall(line) if options else []) + \
            [n for n in _ASSIGNED.findall(line) if "_" in n]
        for name in names:
            if re.search(rf"(?<![\w.]){re.escape(name)}\W+(?:config|option)|"
                         rf"config\.{re.escape(name)}", message):
                return ConfigCause(frame, name, None)
    return None


def _raised_for(ctx: Any, cid: str | None, frames: list[dict[str, Any]]) -> ConfigCause | None:
    torch_fns = [f.get("name") or "" for f in frames[-_INNERMOST:]]
    for frame in source_matches(ctx, cid, _ASSIGNED):
        m = _ASSIGNED.search(frame.line or "")
        want = _words(m.group(1)) if m else set()
        for fn in reversed(torch_fns):
            shared = want & _words(fn)
            if want and (len(shared) >= 2 or shared == want):
                return ConfigCause(frame, m.group(1), fn)
    return None
