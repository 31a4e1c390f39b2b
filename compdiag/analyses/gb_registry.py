"""torch's own graph-break registry (`torch/_dynamo/graph_break_registry.json`): GB code ->
type, explanation and hints, read from the installed torch at run time, never copied."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{code}.html"


@functools.lru_cache(maxsize=1)
def gb_registry() -> dict[str, dict[str, Any]]:
    """GB code -> {Gb_type, Explanation, Hints} from the installed torch (without importing it)."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return {}
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(list(spec.submodule_search_locations)[0]) / "_dynamo" / "graph_break_registry.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    out = {}
    for code, entries in data.items():
        if isinstance(entries, list) and entries and isinstance(entries[-1], dict):
            out[code.upper()] = entries[-1]
    return out


def gb_type(code: str | None) -> str:
    """The registry's graph-break type for a code, '' when it is unknown or a code variable."""
    reg_type = gb_registry().get((code or "").upper(), {}).get("Gb_type") or ""
    return "" if reg_type.startswith("_") or "{" in reg_type else reg_type
