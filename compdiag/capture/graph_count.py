"""How many graphs this process has compiled so far, for capture's hooks that judge a change
by whether it came after a compile (module_hooks.py, config_sets.py): torch's own count
(`counters["stats"]["unique_graphs"]`, which torch._dynamo.reset() clears), kept rising across
resets."""

from __future__ import annotations

from typing import Callable


def graphs_so_far() -> Callable[[], int]:
    """A function returning the count; 0 always on a torch without the counter."""
    try:
        from torch._dynamo.utils import counters
    except ImportError:
        return lambda: 0
    seen = {"last": 0, "base": 0}

    def graphs() -> int:
        now = int(counters["stats"].get("unique_graphs", 0))
        if now < seen["last"]:  # a reset cleared torch's count
            seen["base"] += seen["last"]
        seen["last"] = now
        return seen["base"] + now

    return graphs
