"""The test cases of one PyTorch test file, found by reading its source (never importing it).

Reading the AST, not running pytest's collection, keeps collection cheap and lets the sweep
count a case whose module fails to import on this torch (a test file newer than the wheel):
it is still collected, and then reported as not run."""

from __future__ import annotations

import ast
import functools
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
    owner: str = ""  # the class that defines the method, when CLS inherits it

    @property
    def id(self) -> str:
        return f"{self.file}::{self.cls}::{self.name}"


@functools.lru_cache(maxsize=8)
def parse(path: Path) -> ast.Module:
    """The file's AST, parsed once per sweep (a case's derivation looks up its method and
    class again; test_aot_autograd_cache.py is 186 KB and has 159 cases)."""
    return ast.parse(path.read_text(), filename=str(path))


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target)


def _tests_of(cls: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [fn for fn in cls.body if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            and fn.name.startswith("test")]


def _inherited(cls: ast.ClassDef, classes: dict[str, ast.ClassDef],
               seen: frozenset[str] = frozenset()) -> list[tuple[str, ast.AST]]:
    """(defining class, method) of the tests CLS inherits from base classes of the same file
    and does not define itself, bases in method-resolution order (depth first)."""
    own = {fn.name for fn in _tests_of(cls)}
    out: list[tuple[str, ast.AST]] = []
    for base in cls.bases:
        name = base.id if isinstance(base, ast.Name) else ""
        if name not in classes or name in seen:
            continue
        parent = classes[name]
        for fn in _tests_of(parent):
            if fn.name not in own and all(fn.name != f.name for _, f in out):
                out.append((name, fn))
        for owner, fn in _inherited(parent, classes, seen | {name}):
            if fn.name not in own and all(fn.name != f.name for _, f in out):
                out.append((owner, fn))
    return out


def collect(checkout: Path, relpath: str) -> list[Case]:
    """Every `test_*` method of every module-level class of CHECKOUT/RELPATH, in file order.

    A class that inherits tests from a base class of the same file runs them again under its
    own decorators (`@config.patch(bundled_autograd_cache=True) class B(A): pass`): pytest
    collects them as `FILE::B::test_x`, so they are cases of their own (`owner` names A)."""
    tree = parse(checkout / relpath)
    classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}
    cases = []
    for cls in classes.values():
        for fn in _tests_of(cls):
            cases.append(Case(relpath, cls.name, fn.name, fn.lineno,
                              fn.end_lineno or fn.lineno,
                              tuple(_decorator_name(d) for d in fn.decorator_list)))
        for owner, fn in _inherited(cls, classes):
            cases.append(Case(relpath, cls.name, fn.name, fn.lineno,
                              fn.end_lineno or fn.lineno,
                              tuple(_decorator_name(d) for d in fn.decorator_list), owner))
    return cases


def class_node(checkout: Path, case: Case) -> ast.ClassDef:
    """The class the case runs in (its decorators patch configs for every test)."""
    for cls in parse(checkout / case.file).body:
        if isinstance(cls, ast.ClassDef) and cls.name == case.cls:
            return cls
    raise LookupError(case.id)


def method_node(checkout: Path, case: Case) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The test method's AST node (parsed again: cases stay small, plain data)."""
    for cls in parse(checkout / case.file).body:
        if isinstance(cls, ast.ClassDef) and cls.name == (case.owner or case.cls):
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        fn.name == case.name:
                    return fn
    raise LookupError(case.id)
