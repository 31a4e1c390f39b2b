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
