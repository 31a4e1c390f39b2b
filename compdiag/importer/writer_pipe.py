"""An import's store writes, done by a second process while this one parses the log.

Importing one log is two halves of about equal cost: reading, parsing and deriving facts
(the Ingestor), and writing them (compressing the large texts into blobs, SQLite's inserts).
Where a CPU would otherwise sit idle (one log, or fewer logs than CPUs), `PipedWriter` hands
the Ingestor's writes to a real `Writer` in a forked child: the calls go over a pipe in
batches, in order, and the child applies them while the parent parses the next records.
zlib and SQLite would release the GIL, but the blob bookkeeping and the Ingestor do not: a
thread would not overlap them, a process does.

The pipe bounds memory: a batch waits until the child has read the one before, so neither
process holds more than a batch or two of the log, whatever its size. A write that fails in
the child fails `close()` with its message (the import then drops the run, as it does when a
write fails in-process); the calls after it are still applied, as an in-process Writer that
raised on one flush goes on with the next.
"""

from __future__ import annotations

import multiprocessing
import traceback
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from compdiag.store.writer import Writer

# A batch goes to the child at this many calls or this many characters of text, whichever
# comes first: big enough that pickling and the pipe cost little per call, small enough that
# the child starts early and the two processes keep little of the log in memory.
BATCH_CALLS = 2000
BATCH_CHARS = 1 << 20
# The Writer methods forwarded (the Ingestor's and the import's; none returns a value).
FORWARDED = ("insert", "upsert", "insert_rows", "update", "update_run", "warn", "flush",
             "end_run", "delete_run")


class WriteFailed(Exception):
    """A write the child applied raised (its message, with the child's traceback's last line)."""


class PipedWriter:
    """The write methods of `Writer` (see FORWARDED), applied by a Writer on `store` in a
    forked child process. `close()` waits for every call to be applied."""

    def __init__(self, store: Path | str, *, flush_interval: float = 1.0,
                 checkpoint: bool = True) -> None:
        ctx = multiprocessing.get_context("fork")
        self._conn, child_end = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child_end, str(store), flush_interval,
                                                      checkpoint),
                                 name="compdiag-import-writer", daemon=True)
        self._proc.start()
        child_end.close()
        self._batch: list[tuple[str, tuple, dict[str, Any]]] = []
        self._chars = 0
        self._closed = False

    def __getattr__(self, name: str) -> Any:
        if name not in FORWARDED:
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> None:
            self._call(name, args, kwargs)
        return call

    def insert(self, table: str, **cols: Any) -> None:      # the hot one: no closure per call
        self._batch.append(("insert", (table,), cols))
        for value in cols.values():
            if type(value) is str:
                self._chars += len(value)
        if len(self._batch) >= BATCH_CALLS or self._chars >= BATCH_CHARS:
            self._send()

    def _call(self, name: str, args: tuple, kwargs: dict[str, Any]) -> None:
        if self._closed:
            raise ValueError("write to a closed PipedWriter")
        self._batch.append((name, args, kwargs))
        self._chars += sum(len(a) for a in (*args, *kwargs.values()) if type(a) is str)
        if len(self._batch) >= BATCH_CALLS or self._chars >= BATCH_CHARS:
            self._send()

    def _send(self) -> None:
        if self._batch:
            batch, self._batch, self._chars = self._batch, [], 0
            self._conn.send(batch)

    def close(self) -> None:
        """Apply everything sent, close the child's Writer; WriteFailed if a write failed."""
        if self._closed:
            return
        self._closed = True
        try:
            self._send()
            self._conn.send(None)
            error = self._conn.recv()
        except (EOFError, OSError) as exc:
            error = f"the import's writer process ended early ({type(exc).__name__})"
        finally:
            self._conn.close()
            self._proc.join(timeout=60)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
        if error is not None:
            raise WriteFailed(error)

    def kill(self) -> None:
        """Stop the child without applying what is still queued (Ctrl-C)."""
        self._closed = True
        self._conn.close()
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join()


def _serve(conn: Connection, store: str, flush_interval: float, checkpoint: bool) -> None:
    """The child: apply each batch's calls to one Writer, in order, until None; reply with
    the first failure's message, or None."""
    error: str | None = None
    writer = None
    try:
        writer = Writer(store, flush_interval=flush_interval)
        if not checkpoint:
            writer.conn.execute("PRAGMA wal_autocheckpoint=0")
        while True:
            batch = conn.recv()
            if batch is None:
                break
            for name, args, kwargs in batch:
                try:
                    getattr(writer, name)(*args, **kwargs)
                except Exception as exc:  # noqa: BLE001 - reported to the parent at close
                    if error is None:
                        error = _describe(exc)
        writer.close()
    except BaseException as exc:  # noqa: BLE001 - the parent must hear of it, not hang
        if error is None:
            error = _describe(exc)
    try:
        conn.send(error)
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


def _describe(exc: BaseException) -> str:
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" (at {where[0].filename}:{where[0].lineno})" if where else ""
    return f"{type(exc).__name__}: {exc}{at}"
