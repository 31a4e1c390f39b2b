"""torch.compile(...) refusing its own arguments, in words: the call torch would accept.

torch checks `mode=` and `options=` when torch.compile is called, before anything compiles,
and its message already holds the evidence for the fix: a misspelt option comes with the list
of every option torch knows (`known options are [...]`), so the right name is read from that
list, never from a table of ours that a new torch would outdate. Rules as data: the first whose
pattern matches torch's message gives the fix; none matching keeps the generic one."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

from compdiag.formats.compiled_code import compile_api_refusal
from compdiag.formats.user_code import is_user_file

_UNKNOWN_OPTION = re.compile(r"Unexpected optimization option ([^\s,]+),? known options are "
                             r"\[(.*?)(?:\]|$)", re.S)
_MODE_AND_OPTIONS = re.compile(r"Either mode or options can be specified")
_MODE_ARG = re.compile(r"""\bmode\s*=\s*["']([\w-]+)["']""")


def _unknown_option(m: re.Match[str], line: str) -> str:
    name = m.group(1).strip("'\"")
    known = re.findall(r"'([^']+)'", m.group(2))
    # the same name under a config section (`cudagraphs` -> `triton.cudagraphs`) first, then
    # a near spelling (`max_autotunes` -> `max_autotune`)
    near = [k for k in known if k.rsplit(".", 1)[-1] == name] or \
        difflib.get_close_matches(name, known, n=3, cutoff=0.8)
    if near:
        names = ", ".join(f"`{k}`" for k in near)
        return (f"`{name}` is not an option name torch.compile knows; its list of known options "
                f"(in torch's message) has {names}: spell the key as the list does, e.g. "
                f"`options={{\"{near[0]}\": ...}}` (the keys are torch._inductor.config's "
                "names, sections included).")
    return (f"`{name}` is not among the options torch.compile knows (torch's message lists "
            "them all; `torch._inductor.list_options()` prints the same list): use one of "
            "those names, or set the value in torch._inductor.config before the call.")


def _mode_and_options(m: re.Match[str], line: str) -> str:
    mode = _MODE_ARG.search(line or "")
    said = f"'{mode.group(1)}'" if mode else "MODE"
    return ("Pass `options=` alone, with the mode's own settings added to it: "
            f"`torch._inductor.list_mode_options({said})` returns them as a dict "
            "(e.g. {'triton.cudagraphs': True} for 'reduce-overhead'), so "
            f"`options={{**torch._inductor.list_mode_options({said}), ...}}` compiles as the "
            "mode would, with your options on top; or keep `mode=` and set the other options "
            "in torch._inductor.config before the call.")


# torch's own way round it, where its message gives one (`Workaround: ...`)
_WORKAROUND = re.compile(r"^\s*(?:Workaround|Fix|Hint|Instead)\b[^:\n]*:\s*(.+)$", re.M | re.I)
REFUSED = ("torch.compile() itself refused what it was given, at the call, before compiling "
           "anything ({compiles} compiles in this run): no compiled code ran, so there is no "
           "graph or backend to narrow down. Change the torch.compile(...) call as torch's "
           "message says{workaround}.")
RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], str], str]], ...] = (
    (_UNKNOWN_OPTION, _unknown_option),
    (_MODE_AND_OPTIONS, _mode_and_options),
)


def refusal_words(message: str) -> str | None:
    """torch's message short enough for a headline: a refused option name without the list
    of the hundreds torch knows (the fix reads the list; a long one may be cut where it was
    stored, so no count is said)."""
    m = _UNKNOWN_OPTION.search(message or "")
    if m is None:
        return None
    return (f"Unexpected optimization option {m.group(1)} (not among the options torch "
            "lists)")


def refusal_fix(message: str, line: str, compiles: int) -> str:
    """The fix for torch.compile's refusal of its arguments (`message` torch's, `line` the
    user's call): the first rule's call torch would accept, then that nothing compiled."""
    known = next((fix(m, line) for pattern, fix in RULES
                  if (m := pattern.search(message or ""))), None)
    hint = _WORKAROUND.search(message or "")
    workaround = f" ({hint.group(1).strip().rstrip('.:')})" if hint else ""
    return " ".join(filter(None, (known, REFUSED.format(compiles=compiles,
                                                        workaround=workaround))))


# The user's own code that torch.compile ran while it looked at its argument (a module's
# `__getattr__`, a property): probes47b detector_getattr_metadata, pytorch#183890 / #180824,
# a RecursionError in a `__getattr__` that `hasattr(self, ...)` re-entered, said as "the
# program's own error, outside compiled code" with a check under force_eager that raised too.
CALLBACK_REASON = ("torch.compile(){where} raised {exc_type} in your {name}() at line "
                   "{lineno}, which it ran while looking at its argument: {said}")
CALLBACK_EXPLANATION = ("torch.compile wraps its argument and looks attributes up on it "
                        "(`hasattr`, `getattr`) before anything compiles; that lookup ran "
                        "your {name}() at line {lineno}, which raised {exc_type}. Nothing "
                        "was traced: the error is in that code, reached through "
                        "torch.compile's call{where}.")
RECURSIVE_GETATTR_FIX = ("Your `__getattr__` (line {lineno}) runs for every attribute the "
                         "object lacks, and it looks an attribute of the object up itself "
                         "(`hasattr(self, ...)`, `self.name`), which runs `__getattr__` again "
                         "without end while that attribute does not exist. Look it up "
                         "without `__getattr__`, `self.__dict__.get(\"name\", default)`, or "
                         "set it in `__init__` so it always exists.")
CALLBACK_FIX = ("Make {name}() at line {lineno} work for any name it is asked about (a "
                "`__getattr__` must raise AttributeError for a name the object does not "
                "have, and nothing else), then call torch.compile again.")


def refusal_parts(ctx: Any, exc: dict[str, Any], frame: Any, exc_type: str, said: str,
                  where: str, raised: dict[str, Any] | None) -> dict[str, Any]:
    """{reason, explanation, fix, frame} for an exception raised inside torch.compile's own
    call: torch refusing its arguments, or the user's code it ran (CALLBACK_*) there."""
    message = exc.get("message") or ""
    frames = exc.get("frames") or []
    api = next((i for i, f in enumerate(frames) if compile_api_refusal(
        [((f.get("filename") or "").replace("\\", "/"), f.get("name") or "")])), None)
    mine = [f for f in frames[api + 1:] if is_user_file(f.get("filename"))] \
        if api is not None else []
    if mine:  # the innermost line of the user's that torch.compile's call ran (the line
        # that recursed, for a recursion: the one repeated most)
        key = [(g.get("filename"), g.get("lineno")) for g in mine]
        f = max(reversed(mine), key=lambda g: key.count((g.get("filename"), g.get("lineno")))) \
            if exc_type == "RecursionError" else mine[-1]
        call = next((g for g in reversed(frames[:api]) if is_user_file(g.get("filename"))), {})
        where = f" at line {call['lineno']}" if call.get("lineno") else where
        words = dict(where=where, exc_type=exc_type, name=f.get("name"), said=said,
                     lineno=f.get("lineno"))
        fix = RECURSIVE_GETATTR_FIX if exc_type == "RecursionError" and f.get("name") in (
            "__getattr__", "__getattribute__") else CALLBACK_FIX
        return {"reason": CALLBACK_REASON.format(**words),
                "explanation": CALLBACK_EXPLANATION.format(**words),
                "fix": fix.format(**words),
                "frame": ctx.frame(f.get("filename"), f.get("lineno"), f.get("line"), "torch")}
    return {"reason": f"torch.compile() refused its argument{where} ({exc_type}): "
                      f"{refusal_words(message) or said}",
            "explanation": f"The call to torch.compile{where} raised {exc_type} before any "
                           f"compile: the exception was raised in {(raised or {}).get('filename')}:"
                           f"{(raised or {}).get('lineno')} ({(raised or {}).get('name')}), "
                           "inside torch.compile's own checks of its argument.",
            "fix": refusal_fix(message, frame.line or "", len(ctx.compiles)), "frame": frame}
