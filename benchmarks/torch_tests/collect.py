"""The test cases of one PyTorch test file, found by reading its source (never importing it).

Reading the AST, not running pytest's collection, keeps collection cheap and lets the sweep
count a case whose module fails to import on this torch (a test file newer than the wheel):
it is still collected, and then reported as not run."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Case:
    """One test method: `file::Class::test_name`, with where its source sits in the file."""

    file: str  # relative to the checkout, e.g. test/dynamo/test_error_messages.py
    cls: str
    name: str
    lineno: int
    end_lineno: int
    decorators: tuple[str, ...] = field(default=())

    @property
    def id(self) -> str:
        return f"{self.file}::{self.cls}::{self.name}"


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target)


def collect(checkout: Path, relpath: str) -> list[Case]:
    """Every `test_*` method of every module-level class of CHECKOUT/RELPATH, in file order.

    A class counts when it defines test methods itself; inherited tests of a base class
    defined in the same file are not repeated (PyTorch's files rarely rely on that)."""
    tree = ast.parse((checkout / relpath).read_text(), filename=relpath)
    cases = []
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    fn.name.startswith("test"):
                cases.append(Case(relpath, cls.name, fn.name, fn.lineno,
                                  fn.end_lineno or fn.lineno,
                                  tuple(_decorator_name(d) for d in fn.decorator_list)))
    return cases


def method_node(checkout: Path, case: Case) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The test method's AST node (parsed again: cases stay small, plain data)."""
    tree = ast.parse((checkout / case.file).read_text(), filename=case.file)
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and cls.name == case.cls:
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        fn.name == case.name:
                    return fn
    raise LookupError(case.id)
