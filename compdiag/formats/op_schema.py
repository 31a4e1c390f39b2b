"""What an operator's schema declares it writes (`Tensor(a!)`), read one way everywhere: capture's
accuracy localiser and its undeclared-mutation check, and minify rebuilding a custom op the
user's program registered (its `mutates_args` must be what the recorded schema said); and
what an FX call's name says it writes (torch's trailing-underscore convention)."""

from __future__ import annotations

from typing import Any


def declared_writes(schema: Any) -> list[int]:
    """The positions of the arguments an op's schema declares it writes (`Tensor(a!)`)."""
    return [i for i, a in enumerate(getattr(schema, "arguments", ()) or ())
            if getattr(getattr(a, "alias_info", None), "is_write", False)]


def declared_write_names(schema: Any) -> list[str]:
    """The names of those arguments, as `torch.library.custom_op(mutates_args=...)` takes them."""
    return [schema.arguments[i].name for i in declared_writes(schema)]


def named_in_place(node: Any) -> bool:
    """An FX call whose name marks it in place, torch's convention: `x.add_(y)`,
    `torch.relu_`, `aten.add_.Tensor` (a trailing underscore, not a dunder)."""
    if node.op == "call_method":
        name = str(node.target)
    elif node.op == "call_function":
        name = str(getattr(node.target, "__name__", node.target)).split(".")[0]
    else:
        return False
    return name.endswith("_") and not name.endswith("__")
