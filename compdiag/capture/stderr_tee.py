"""The program's stderr passed through to compdiag's own, byte for byte, with its end kept:
when native code aborts (a C++ exception std::terminate reports, a failed assertion, glibc's
heap checks), those last words are the only record of why, and the program cannot store them.

The child writes into a pipe (or, when compdiag's stderr is a terminal, a pseudo-terminal in
raw mode with the terminal's size, so the program still sees a tty and the terminal does the
line endings as before); a thread copies every chunk out as it arrives. Anything that fails
here falls back to the child inheriting stderr, as before (fail open)."""

from __future__ import annotations

import os
import sys
import threading

TAIL_BYTES = 16384
DRAIN_S = 2.0  # after the program ended: how long its leftover writers (workers) may hold on


class StderrTee:
    def __init__(self) -> None:
        self.child_fd: int | None = None  # what the child gets as its stderr (None: inherit)
        self._read_fd: int | None = None
        self._tail = bytearray()
        self._thread: threading.Thread | None = None
        try:
            out = sys.stderr.fileno()
        except (AttributeError, OSError, ValueError):
            return
        self._out = out
        try:
            if os.isatty(out):
                self._read_fd, self.child_fd = _raw_pty(out)
            else:
                self._read_fd, self.child_fd = os.pipe()
        except OSError:
            self._read_fd = self.child_fd = None

    def started(self) -> None:
        """The child has its copy: close ours (EOF comes when every writer is gone), relay."""
        if self.child_fd is None:
            return
        os.close(self.child_fd)
        self._thread = threading.Thread(target=self._relay, name="compdiag-stderr",
                                        daemon=True)
        self._thread.start()

    def _relay(self) -> None:
        while True:
            try:
                data = os.read(self._read_fd, 65536)
            except OSError:  # EIO: the pty's last writer is gone
                break
            if not data:
                break
            self._write(data)
            self._tail += data
            del self._tail[:-TAIL_BYTES]
        os.close(self._read_fd)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._out, view)
            except InterruptedError:
                continue
            except OSError:  # our stderr is gone: keep draining so the program never blocks
                return
            view = view[n:]

    def tail(self) -> str:
        """The end of what the program wrote on stderr (after it ended)."""
        if self._thread is not None:
            self._thread.join(DRAIN_S)
        return bytes(self._tail).decode("utf-8", "replace")


def _raw_pty(terminal: int) -> tuple[int, int]:
    """A pseudo-terminal (master, slave) that passes bytes through unchanged, as big as ours."""
    import fcntl
    import pty
    import termios
    import tty

    master, slave = pty.openpty()
    try:
        tty.setraw(slave)
        size = fcntl.ioctl(terminal, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, size)
    except OSError:
        pass
    return master, slave
