"""Settings torch.compile changes for the whole process, found where the program relies on
them (issue 29 §4: where accuracy bugs hide).

`torch.compile(...)` runs Dynamo's TorchPatcher.patch once per process, which calls
`torch.distributions.Distribution.set_default_validate_args(False)`: from then on no
distribution checks its arguments, in eager code too, unless it is built with
`validate_args=True`. A program that builds distributions then accepts an empty batch,
probabilities that do not sum to one or a scale of zero silently where plain Python raised
(pytorch/pytorch#194548). Read from the program's stored sources (ingest/sources.py), never
from files that may have changed."""

from __future__ import annotations

import ast
from typing import Any

# the package whose classes validate their arguments by default, and the keyword that
# re-enables it per object
DISTRIBUTIONS = "distributions"
VALIDATE = "validate_args"


# In words: the setting, what it means, its fix (the accuracy kind's information, and a cause of
# the program's own failed check: analyses/check_causes.py).
VALIDATION_OFF = (
    "torch.compile turned off torch.distributions' argument validation for the whole process "
    "(Dynamo calls `Distribution.set_default_validate_args(False)` at the first "
    "torch.compile): {cls}(...) at line {line} no longer checks its arguments, in eager code "
    "too")
VALIDATION_EXPLANATION = (
    "Invalid arguments (an empty batch, probabilities that do not sum to one, a scale of zero) "
    "now pass silently where plain Python raises a ValueError, so compiled and eager code may "
    "both return numbers for inputs that should have been rejected.")
VALIDATION_FIX = (
    "Where the arguments must be checked, build the distribution with `validate_args=True`, "
    "or call `torch.distributions.Distribution.set_default_validate_args(True)` after "
    "`torch.compile(...)` (eager code then checks again; code Dynamo traces stays unchecked).")


def distribution_built(ctx: Any) -> dict[str, Any] | None:
    """The first construction of a torch.distributions class in the program's kept sources
    that does not pass `validate_args`: {filename, lineno, cls}; None when none."""
    for path in sorted(ctx.r.source_paths(ctx.run_id)):
        text = ctx.r.source_text(ctx.run_id, path)
        if not text or DISTRIBUTIONS not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        classes, packages = _imported_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or any(k.arg == VALIDATE for k in node.keywords):
                continue
            cls = _distribution_class(node.func, classes, packages)
            if cls:
                return {"filename": path, "lineno": node.lineno, "cls": cls}
    return None


def _imported_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(class names bound by `from torch.distributions[.x] import Name`, the names the package
    itself is bound to: `import torch.distributions as D`, `from torch import distributions`)."""
    classes: set[str] = set()
    packages: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith(f"torch.{DISTRIBUTIONS}"):
            classes |= {a.asname or a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module == "torch":
            packages |= {a.asname or a.name for a in n.names if a.name == DISTRIBUTIONS}
        elif isinstance(n, ast.Import):
            packages |= {a.asname for a in n.names
                         if a.asname and a.name.startswith(f"torch.{DISTRIBUTIONS}")}
    return classes, packages


def _distribution_class(func: ast.AST, classes: set[str], packages: set[str]) -> str | None:
    """`torch.distributions.Categorical`, `D.Normal` (D the package), or `Normal` imported
    from it: the class name; else None. Capitalised names only (classes)."""
    if isinstance(func, ast.Name):
        return func.id if func.id in classes and func.id[:1].isupper() else None
    if isinstance(func, ast.Attribute) and func.attr[:1].isupper():
        chain = ast.unparse(func.value)
        if chain.endswith(DISTRIBUTIONS) or chain in packages:
            return func.attr
    return None
