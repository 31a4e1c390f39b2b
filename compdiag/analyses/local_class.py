"""A class defined inside a function: every call of that function runs the `class` statement
again and makes a new class object, so an instance of each is of another type than the one
compiled for. Dynamo guards on the exact type (`___check_type_id(self, ...)`), and the
recompiles read as "another instance" where no value differs (probes40a
sweep_local_model_class, pytorch/pytorch#167504: a model class built per hyperparameter
trial inside a factory, at the recompile limit after 8 trials)."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.analyses.diagnosis import UserFrame

# torch prints the guarded type as `type=<class '__main__.build_model.<locals>.MLP'>`
_LOCAL_TYPE = re.compile(r"type=<class '(?:[\w.]+\.)?(\w+)\.<locals>\.(\w+)'>")

SUFFIX = "; a new class each time: {cls} is defined inside {outer}()"
EXPLANATION = ("A `class` statement inside a function runs again at every call of that "
               "function and creates a new class object, even with the same code. Dynamo "
               "guards on the exact type of {src} (___check_type_id), so an instance of each "
               "new {cls} is a new input to {fn}(): it compiles again, and at the recompile "
               "limit runs in eager. Nothing differs between the instances but their class.")
FIX = ("Define {cls} once, at module level, and pass what varies to its `__init__` (or to "
       "{outer}() as arguments it stores): every instance then shares one class and one "
       "compiled graph.")


def local_class(failed_guard: str | None) -> tuple[str, str] | None:
    """(enclosing function, class) of a type guard on a class defined inside a function."""
    m = _LOCAL_TYPE.search(failed_guard or "")
    return (m.group(1), m.group(2)) if m else None


def class_statement(ctx: Any, filenames: list[str | None], outer: str,
                    cls: str) -> UserFrame | None:
    """The `class CLS` statement inside `def OUTER` in the first of the files whose kept
    source has it."""
    for filename in dict.fromkeys(f for f in filenames if f):
        text = ctx.source_text(filename)
        try:
            tree = ast.parse(text) if text else None
        except SyntaxError:
            continue
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == outer:
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ClassDef) and inner.name == cls:
                        return ctx.frame(filename, inner.lineno, None, "source")
    return None
