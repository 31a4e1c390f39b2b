"""A user file's code without its strings and comments, line for line: what a search for a
statement (`config.freezing = True`, `no_grad(`) should read. A docstring that quotes the
statement, or a comment about it, is not where the program makes it."""

from __future__ import annotations

import ast
import io
import re
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


def calls_in(line: str | None) -> list[ast.Call]:
    """The calls a line of code makes that can be a call of the user's (outermost first), not
    a method of another call's result (`.pow(2)` of `compiled(x).pow(2)`); none where the line
    does not parse alone. A compound statement's header (`with m(...):`, `if f(x):`) is
    parsed with an empty body."""
    text = (line or "").strip()
    if text.endswith(":"):
        text += " pass"
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and not isinstance(getattr(n.func, "value", None), ast.Call)]


def _names(function: str, call: str) -> bool:
    """Whether a library function is the one a call names (`unbind_int` for `unbind`)."""
    return function == call or function.startswith(call + "_")


def called(line: str | None, into: str | None = None) -> str | None:
    """The function a line of code calls, as the line spells it (`dist.broadcast_object_list`
    of `dist.broadcast_object_list(flag, src=0)`): its outermost call; None where the line does
    not parse alone or calls nothing by name. What a headline names when torch's words are
    about Dynamo's machinery, not the user's call. `into`: the library function the failure
    or break is inside; the line's call that names it (`frames.unbind` for torch's
    `unbind_int`, not the outer `torch.stack`) where there is one."""
    names = called_names(line)
    return next((n for n in names if into and _names(into, n.rsplit(".", 1)[-1])),
                names[0] if names else None)


def callee(node: ast.Call) -> str:
    """The function a call node calls, as the code spells it (`torch.jit.script`), or "" for a
    call of an expression (`f()(x)`, `fns[0](x)`)."""
    return ast.unparse(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else ""


def called_names(line: str | None) -> list[str]:
    """Every function a line of code calls by name, as the line spells it, outermost first
    (calls_in's calls whose callee is a name or an attribute)."""
    return [name for n in calls_in(line) if (name := callee(n))]


# keyword arguments whose value is an object a graph cannot take, in the user's words
_OBJECT_KEYWORDS = {"generator": "a torch.Generator"}


# what a descriptor's getter is, by the file it is defined in (functools.cached_property's
# takes a lock on Python before 3.12, which Dynamo cannot enter: probes36e)
_GETTERS = {"functools.py": " (a functools.cached_property)"}


def attribute_read(line: str | None) -> str | None:
    """The one attribute a line reads without calling it (`self.cfg.scale` of
    `att = (q @ k.transpose(-2, -1)) * self.cfg.scale`), as the line spells it: what ran a
    descriptor's `__get__`. None where the line does not parse alone or reads several."""
    text = (line or "").strip()
    try:
        tree = ast.parse(text + (" pass" if text.endswith(":") else ""))
    except SyntaxError:
        return None
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    inner |= {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    reads = {ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Attribute)
             and isinstance(n.ctx, ast.Load) and id(n) not in inner}
    return reads.pop() if len(reads) == 1 else None


def call_clause(line: str | None, said: str = "", objects: bool = False,
                into: str | None = None, home: str | None = None) -> str:
    """`, calling `torch.rand(...)`` for a headline whose torch words (`said`) are about
    Dynamo's machinery and do not name the user's call already; with `objects`, also what the
    call was passed of _OBJECT_KEYWORDS (` with generator= (a torch.Generator)`). `into`: the
    library function the break is inside; the line's call it names (`frames.unbind()` for
    torch's `unbind_int`, not the outer `torch.stack(...)`), else the outermost. Empty where
    the line calls nothing by name or `said` names it. Inside a descriptor's `__get__`
    (`home`: the file it is in), the attribute the line reads, not a call."""
    read = attribute_read(line) if into == "__get__" else None
    if read is not None:
        home_file = (home or "").replace("\\", "/").rsplit("/", 1)[-1]
        return "" if f"`{read}`" in said else f", reading `{read}`" + _GETTERS.get(home_file, "")
    name = called(line, into)
    if name is None or name.rsplit(".", 1)[-1] in said:
        return ""
    keys = [k.arg for n in calls_in(line) for k in n.keywords
            if k.arg in _OBJECT_KEYWORDS] if objects else []
    return f", calling `{name}(...)`" + (
        f" with {keys[0]}= ({_OBJECT_KEYWORDS[keys[0]]})" if keys else "")


def assigned_names(line: str | None) -> set[str]:
    """The plain names a user line assigns (`a, b = f(x)`, `s: T = f(x)`, `y += 1`)."""
    try:
        tree = ast.parse((line or "").strip())
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
    return out


def read_names(line: str | None) -> set[str]:
    """The names a user line reads; a line that does not parse alone (`with f(x) as y:`, a
    clause of a longer statement) is read word by word."""
    text = (line or "").strip()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set(re.findall(r"[A-Za-z_]\w*", text))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def drawn_from(line: str | None, module: str) -> tuple[set[str], str] | None:
    """The names a line assigns from a call of `module`'s (`top = random.randint(0, h)` with
    module `random`: ({"top"}, "random.randint")), the first such call as the line spells it;
    None where the line assigns nothing or calls nothing of `module`'s."""
    made = assigned_names(line)
    if not made:
        return None
    for node in calls_in(line):
        name = callee(node)
        if name.startswith(module + "."):
            return made, name
    return None


def indexed_by(line: str | None, names: set[str]) -> tuple[str, str] | None:
    """The container a line looks an item up in by one of `names` (`ALPHAS[t]`, `self.ts[
    self.i - 1]` with names {"t"} or {"self.i"}, or {".i"} for any object's `i`): the container
    and the lookup as the line spells them (("ALPHAS", "ALPHAS[t]")); None where no
    subscript's index is, or computes from, one of them (a slice `[:n]` is not a lookup) or
    the line does not parse alone."""
    text = (line or "").strip()
    if text.endswith(":"):
        text += " pass"
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or isinstance(node.slice, ast.Slice):
            continue
        index = {ast.unparse(n) for n in ast.walk(node.slice)
                 if isinstance(n, (ast.Name, ast.Attribute))}
        # a name starting with "." is an attribute read through any object (`self.step_index`
        # inside the method for the guard's `scheduler.step_index`)
        if index & names or any(i.endswith(n) for i in index for n in names
                                if n.startswith(".")):
            return ast.unparse(node.value), ast.unparse(node)
    return None


# methods that change the object they are called on (list, dict, set, deque)
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "popleft", "appendleft", "remove",
                       "clear", "update", "setdefault", "add", "discard", "sort", "reverse"})


def mutated_object(line: str | None) -> str | None:
    """The object a line changes in place, as the line spells it: the receiver of a mutating
    method (`self.log.append(x)` -> "self.log"), or the container or object an item or
    attribute assignment writes (`stats[k] = v` -> "stats", `self.n += 1` -> "self"); None
    where the line does neither or does not parse alone."""
    try:
        tree = ast.parse((line or "").strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _MUTATORS:
            return ast.unparse(node.func.value)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                if isinstance(target, (ast.Subscript, ast.Attribute)):
                    return ast.unparse(target.value)
    return None


def innermost_def(tree: ast.AST, lineno: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function definition of `tree` whose lines hold `lineno` (None at module
    level): where a line of a user file belongs."""
    return max((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.lineno <= lineno <= (n.end_lineno or n.lineno)),
               key=lambda n: n.lineno, default=None)


def def_at(text: str | None, lineno: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """innermost_def of a file's text; None where the text does not parse."""
    try:
        return innermost_def(ast.parse(text or ""), lineno)
    except (SyntaxError, ValueError):
        return None


def function_span(text: str | None, first_line: int) -> tuple[int, int] | None:
    """(first, last) line of the function whose code starts at `first_line` (a code object's
    co_firstlineno: its `def`, or its first decorator) in a file's text; None where the text
    does not parse or holds no such function."""
    try:
        tree = ast.parse(text or "")
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            starts = [node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]
            if first_line in starts:
                return min(starts), node.end_lineno or node.lineno
    return None


def branch_condition(line: str | None) -> str | None:
    """The condition an `if`/`elif`/`while` line tests, as the line spells it (`if
    self.observer_on:` -> "self.observer_on"); None for any other line."""
    text = (line or "").strip()
    if not text.startswith(("if ", "elif ", "while ")) or not text.endswith(":"):
        return None
    text = text.removeprefix("el") + " pass"
    try:
        node = ast.parse(text).body[0]
    except (SyntaxError, IndexError):
        return None
    return ast.unparse(node.test) if isinstance(node, (ast.If, ast.While)) else None
