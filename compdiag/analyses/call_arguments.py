"""A guard's source spelled as the user passed it at the compiled call: `args[i]` of a
compiled function's varargs as the user's own argument (`encode(mel)`: `mel`), a `**kwargs`
entry as its keyword's value. Split from analyses/diagnoses/recompiles.py, which words a
recompile with it."""

from __future__ import annotations

import ast
import re

from compdiag.formats.code_text import calls_in

_VARARG = re.compile(r"^(?:L\['args'\]|args)\[(\d+)\]")
_KWARG = re.compile(r"^(?:L\['kwargs'\]|kwargs)\['(\w+)'\]")


def passed_as(source: str, call_line: str | None) -> str:
    """A guard on `args[i]`, the varargs of the compiled function (an nn.Sequential's
    `forward(*input)`), spelled as the user's own argument at the call (`encode(mel)`: `mel`),
    so its name and a fix's `mark_dynamic(mel, 2)` are the user's; unchanged where the call
    line does not parse to one call with that many plain arguments."""
    kw = _KWARG.match(source or "")
    if kw is not None and call_line:
        # a **kwargs entry: the keyword the user passed at the call (`past_key_values=past`)
        given = [k.value for n in calls_in(call_line) for k in n.keywords
                 if k.arg == kw.group(1)]
        if len(given) != 1:
            return source
        return _as_source(given[0]) + source[kw.end():]
    m = _VARARG.match(source or "")
    if m is None or not call_line:
        return source
    i = int(m.group(1))
    # the calls that can be the compiled one: with an i-th argument
    calls = [n for n in calls_in(call_line) if i < len(n.args)]
    if len(calls) != 1 or isinstance(calls[0].args[i], ast.Starred):
        return source
    return _as_source(calls[0].args[i]) + source[m.end():]


def keyword_named(guarded: str, passed: str) -> str:
    """A keyword argument passed as an expression is named by its keyword too
    (`attention_mask (ids != PAD)`): the keyword is what the user knows the input by."""
    kw = _KWARG.match(guarded or "")
    return f"{kw.group(1)} {passed}" if kw and passed.startswith("(") else passed


def _as_source(arg: ast.expr) -> str:
    """An argument's expression as a guard source's root: a plain name as a local of the
    compiled frame (spelled as every other is), an attribute, item or call as written, any
    other expression in parentheses (so `.size()[0]` applies to the whole of it)."""
    if isinstance(arg, ast.Name):
        return f"L['{arg.id}']"
    text = ast.unparse(arg)
    return text if isinstance(arg, (ast.Attribute, ast.Subscript, ast.Call)) else f"({text})"
