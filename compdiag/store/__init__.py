"""The SQLite log store: the one model every analysis and view reads (see DESIGN.md)."""

from compdiag.store.schema import SCHEMA_VERSION, StoreError, default_store_path
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer

__all__ = ["SCHEMA_VERSION", "StoreError", "default_store_path", "Reader", "Writer"]
