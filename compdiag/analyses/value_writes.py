"""What kind of value a graph break tested, and where the program made it (issue 29 §1: the
line that causes it).

A data-dependent `if` inside library code that tests a NumPy value is not the library's fault:
the program wrote the NumPy value into what the library reads (YOLOv5's warmup sets
`g["momentum"] = np.interp(...)` in an optimizer's param_groups, and SGD's `if momentum != 0:`
then breaks the compiled `opt.step` at every step: benchmarks/probes37a
yolo_np_interp_momentum). Dynamo traces a NumPy scalar as a 0-d tensor, so the branch is
data-dependent; a Python float would be a constant. The program's line that wrote the name the
branch tests, from a NumPy call, is found in the kept source."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.formats.code_text import branch_condition
from compdiag.formats.user_code import is_user_file

# VariableTracker kinds in words (parse_dynamo's snake case of `NumpyNdarrayVariable`)
VALUE_WORDS = {"numpy_ndarray": "NumPy", "tensor": "tensor", "sym_node": "symbolic (SymInt, "
               "SymBool)", "constant": "constant"}
NUMPY_CALL = re.compile(r"\b(?:np|numpy)\.[\w.]+\(")
NUMPY_WRITE_FIX = ("Line {lineno} writes a NumPy value (`{call}` returns a NumPy scalar) into "
                   "`{name}`, which {where} tests inside the compiled function: Dynamo traces "
                   "a NumPy scalar as a 0-d tensor, so the branch depends on data and breaks "
                   "the graph at every call. A Python number removes the break (`{fixed}`), "
                   "but Dynamo treats it as a constant: a value that changes at every step (a "
                   "warmup ramp) then compiles again for each new value, up to the recompile "
                   "limit. For such a value, keep the "
                   "code that reads it in eager (compile the model, not the library call "
                   "around it); for one set once, write the Python number.")


def root_words(root: str | None, value: str | None, kind: str) -> str:
    """What torch could not handle, from the innermost exception it chained under the break
    (both facts stored at ingest): the kind of value Dynamo had no graph form for ('a
    data_ptr value'), else that exception's own line. Empty when there is none or it only
    repeats the break's type."""
    if value and not root:   # the value a data-dependent `if` tested: 'on a NumPy value'
        return f"on a {VALUE_WORDS.get(value, value)} value"
    if not root or kind.lower() in root.lower():
        return ""
    if value:
        return f"a {VALUE_WORDS.get(value, value)} value"
    if ": " not in root:  # a bare `AssertionError` says nothing the break's type does not
        return ""
    return root if len(root) <= 120 else root[:117] + "..."


def _tested_names(line: str | None) -> list[str]:
    cond = branch_condition(line)
    if cond is None:
        return []
    try:
        tree = ast.parse(cond, mode="eval")
    except SyntaxError:
        return []
    names = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
    names += [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    return list(dict.fromkeys(names))


def numpy_write(ctx: Any, row: dict[str, Any]) -> dict[str, Any] | None:
    """{frame, name, call, fix} of the program's line that wrote, from a NumPy call, the name
    a break's library `if` tested on a NumPy value; None for any other break."""
    lib = row.get("lib_frame") if isinstance(row.get("lib_frame"), dict) else None
    if row.get("root_value") != "numpy_ndarray" or not lib \
            or is_user_file(lib.get("filename")):
        return None
    names = _tested_names(lib.get("line"))
    if not names:
        return None
    key = ("numpy_write", lib.get("filename"), lib.get("lineno"))
    cache = ctx.__dict__.setdefault("_value_writes", {})
    if key not in cache:
        cache[key] = _find(ctx, names, lib)
    return cache[key]


def _first_call(text: str) -> str:
    """The NumPy call `text` starts with, up to its closing parenthesis."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return text[:i + 1]
    return text.strip()


def _find(ctx: Any, names: list[str], lib: dict[str, Any]) -> dict[str, Any] | None:
    for name in names:
        # g["momentum"] = np..., self.momentum = np..., momentum = np..., f(momentum=np...)
        write = re.compile(rf"(?:\[\s*['\"]{re.escape(name)}['\"]\s*\]|\b{re.escape(name)})"
                           rf"\s*=(?!=)\s*(?P<rhs>.*)")
        for path in sorted(ctx.r.source_paths(ctx.run_id)):
            # the key's quotes are blanked in code_lines: match the line as written, and
            # its code (no string or comment) for the NumPy call
            code = ctx.code_lines(path) or []
            for i, text in enumerate(ctx.source_lines(path) or (), 1):
                m = write.search(text)
                call = NUMPY_CALL.search(m.group("rhs")) if m else None
                if call is None or call.start() != 0 or i > len(code) \
                        or not NUMPY_CALL.search(code[i - 1]):
                    continue
                rhs = _first_call(m.group("rhs"))
                where = (f"`{lib.get('line', '').strip()}` "
                         f"({str(lib.get('filename')).rsplit('/', 1)[-1]}:{lib.get('lineno')})")
                return {"frame": ctx.frame(path, i, text, "source"), "name": name,
                        "call": rhs,
                        "fix": NUMPY_WRITE_FIX.format(
                            lineno=i, call=rhs, name=name, where=where,
                            fixed=text.strip().replace(rhs, f"float({rhs})", 1))}
    return None
