"""A warning the program's own filter turned into an exception.

`warnings.simplefilter("error")` (or `filterwarnings("error", ...)`, a test harness's strict
setting) makes every warning raise: one torch issues for its own reasons, while importing
Inductor or compiling (a deprecated API torch itself still calls), then ends the program at a
torch call that is right. The cause is the filter's line, not the call that raised (probes37c
strict_warnings_compile: "torch.compile() refused its argument (DeprecationWarning:
`torch.jit.script_method` is deprecated ...)", with a fix to change the torch.compile call as
the message says, which asks to switch to torch.compile)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.analyses.locate import source_matches
from compdiag.formats.user_code import is_user_file

# an exception class that is a warning category (DeprecationWarning, UserWarning, ...)
WARNING_CLASS = re.compile(r"(?:^|\.)[A-Za-z]*Warning$")
# the program's statement that makes warnings errors (all, or a category): the call in its
# code (not a comment or a string), its first argument "error" in the source
FILTER_CALL = re.compile(r"\b(?:simplefilter|filterwarnings)\(")
ERROR_FILTER = re.compile(r"""\b(?:warnings\.)?(?:simplefilter|filterwarnings)\("""
                          r"""\s*(?:action\s*=\s*)?["']error["']""")
# the category a filter names (a keyword or simplefilter's second argument): another class
# than the raised one's (or Warning's) does not make it an error
CATEGORY = re.compile(r"\bcategory\s*=\s*([\w.]+)|simplefilter\(\s*[\"']error[\"']\s*,\s*"
                      r"([\w.]+)")

REASON = ("torch's {exc_type} was raised as an error{where}, because line {lineno} makes "
          "warnings errors (`{filter}`): {said}")
EXPLANATION = ("The warning is torch's own, issued while it imports or compiles (it may call "
               "an API it deprecates itself); it only warns, and eager code runs the same. "
               "The program's warnings filter at line {lineno} turns every warning into an "
               "exception, so this one ended the program{where}.")
FIX = ("Keep warnings errors for your own code, not torch's: after line {lineno} add "
       "`warnings.filterwarnings(\"ignore\", category={category}, module=r\"torch\\.\")` (or "
       "`\"default\"` to still see them), or set the strict filter after the first compiled "
       "call.")


def error_filter(ctx: Any, exc_type: str | None,
                 raised: dict[str, Any] | None) -> dict[str, Any] | None:
    """{frame, lineno, statement} of the program's filter that made warnings errors, when
    the exception that ended it is a warning category raised outside the user's code
    (`raised`: the innermost frame; the program's own warning is its own business); None
    otherwise."""
    if not exc_type or not WARNING_CLASS.search(exc_type) or is_user_file(
            ctx.resolve((raised or {}).get("filename")) or (raised or {}).get("filename")):
        return None
    # (no compile id: every user file the run kept, the call in code, not a comment)
    for at in source_matches(ctx, None, FILTER_CALL):
        text = at.line or ""
        m = ERROR_FILTER.search(text)
        named = CATEGORY.search(text) if m is not None else None
        category = (named.group(1) or named.group(2)).rsplit(".", 1)[-1] if named else None
        if m is not None and category in (None, "Warning", exc_type.rsplit(".", 1)[-1]):
            return {"frame": at, "lineno": at.lineno,
                    "statement": text[m.start():text.index(")", m.end()) + 1]
                    if ")" in text[m.end():] else text}
    return None


# A warning raised while Dynamo traced, which it wraps in its own error (InternalTorchDynamoError:
# "UserWarning: Pred is a Python constant ..." from torch.cond given a bool, probes38k
# program_warnings_error_cond_variant): the wrapped warning's class, first in the message.
WRAPPED_WARNING = re.compile(r"(?:^|:\s)([A-Za-z]*Warning):\s*(\S.*)")


def wrapped_warning(ctx: Any, text: str, where: str) -> dict[str, Any] | None:
    """{frame, reason, explanation, fix} for a compile failure whose error is a warning the
    program's filter made an error (`text`: the failure's words, `where`: " at line N" of the
    call that raised it); None otherwise."""
    m = WRAPPED_WARNING.search(text or "")
    strict = error_filter(ctx, m.group(1), None) if m else None
    if strict is None:
        return None
    words = dict(exc_type=m.group(1), where=where, lineno=strict["lineno"],
                 said=m.group(2)[:300], filter=strict["statement"], category=m.group(1))
    return {"frame": strict["frame"], "reason": REASON.format(**words),
            "explanation": EXPLANATION.format(**words), "fix": FIX.format(**words)}
