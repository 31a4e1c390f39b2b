"""What an operator's schema declares it writes (`Tensor(a!)`), read one way everywhere: capture's
accuracy localiser and its undeclared-mutation check, and minify rebuilding a custom op the
user's program registered (its `mutates_args` must be what the recorded schema said)."""

from __future__ import annotations

from typing import Any


def declared_writes(schema: Any) -> list[int]:
    """The positions of the arguments an op's schema declares it writes (`Tensor(a!)`)."""
    return [i for i, a in enumerate(getattr(schema, "arguments", ()) or ())
            if getattr(getattr(a, "alias_info", None), "is_write", False)]


def declared_write_names(schema: Any) -> list[str]:
    """The names of those arguments, as `torch.library.custom_op(mutates_args=...)` takes them."""
    return [schema.arguments[i].name for i in declared_writes(schema)]
