"""The SQLite log store: the one model every analysis and view reads (see DESIGN.md).

The names below are imported when first asked for (PEP 562): importing any module of the
package runs this file first, and `compdiag run`'s parent, which needs the writer and the
schema only, paid for the reader's modules at every run (issue 34)."""

from __future__ import annotations

from typing import Any

__all__ = ["SCHEMA_VERSION", "StoreError", "default_store_path", "Reader", "Writer"]
_WHERE = {"SCHEMA_VERSION": "schema", "StoreError": "schema", "default_store_path": "schema",
          "Reader": "reader", "Writer": "writer"}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
