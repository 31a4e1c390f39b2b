"""A side channel from the program's process to `compdiag perf` for its progress bar: one JSON
line per event on a pipe whose write end the child inherits (its number in
COMPDIAG_PROGRESS_FD). The program's own stdout and stderr are never used for it, and a
missing or broken channel costs nothing but the bar (fail open)."""

from __future__ import annotations

import json
import os
import select
import threading
from typing import Any, Callable

ENV_FD = "COMPDIAG_PROGRESS_FD"


def emit(event: str, **fields: Any) -> None:
    """In the child: send one event (no-op without a channel)."""
    fd = os.environ.get(ENV_FD)
    if not fd:
        return
    try:
        os.write(int(fd), (json.dumps({"event": event, **fields}) + "\n").encode())
    except (OSError, ValueError):
        os.environ.pop(ENV_FD, None)  # the reader is gone: stop trying


class Channel:
    """In the parent: the pipe, and a thread handing each event to `listener(event)`; it also
    calls `tick()` about ten times a second, so a bar can move while nothing is said."""

    def __init__(self, listener: Callable[[dict[str, Any]], None],
                 tick: Callable[[], None] | None = None) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_inheritable(self.write_fd, True)
        self.listener, self.tick = listener, tick
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="compdiag-progress",
                                        daemon=True)
        self._thread.start()

    def env(self) -> dict[str, str]:
        return {ENV_FD: str(self.write_fd)}

    def _read(self) -> None:
        buf = b""
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.read_fd], [], [], 0.1)
                if ready:
                    chunk = os.read(self.read_fd, 65536)
                    if not chunk:
                        return
                    buf += chunk
                    *lines, buf = buf.split(b"\n")
                    for line in lines:
                        try:
                            self.listener(json.loads(line))
                        except ValueError:
                            continue
                if self.tick is not None:
                    self.tick()
            except Exception:  # noqa: BLE001 - the bar is never worth a failure
                return

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)
        for fd in (self.read_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass
