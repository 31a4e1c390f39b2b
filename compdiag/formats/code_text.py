"""A user file's code without its strings and comments, line for line: what a search for a
statement (`config.freezing = True`, `no_grad(`) should read. A docstring that quotes the
statement, or a comment about it, is not where the program makes it."""

from __future__ import annotations

import io
import tokenize


def code_only_lines(text: str) -> list[str]:
    """`text`'s lines with every string literal and comment blanked to spaces (multi-line
    strings included), so columns and line numbers stay; the lines as they are where the
    text does not tokenize (a file cut short)."""
    lines = text.splitlines()
    out = [list(line) for line in lines]
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type not in (tokenize.STRING, tokenize.COMMENT) and \
                    getattr(tokenize, "FSTRING_MIDDLE", None) != tok.type:
                continue
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                if r - 1 >= len(out):
                    break
                row = out[r - 1]
                start = c0 if r == r0 else 0
                end = c1 if r == r1 else len(row)
                row[start:end] = " " * max(0, min(end, len(row)) - start)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return lines
    return ["".join(row) for row in out]


def called(line: str | None) -> str | None:
    """The function a line of code calls, as the line spells it (`dist.broadcast_object_list`
    of `dist.broadcast_object_list(flag, src=0)`): its outermost call, not a method of another
    call's result; None where the line does not parse alone or calls nothing. What a headline
    names when torch's words are about Dynamo's machinery, not the user's call."""
    import ast

    try:
        tree = ast.parse((line or "").strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) \
                and not isinstance(getattr(node.func, "value", None), ast.Call):
            return ast.unparse(node.func)
    return None
