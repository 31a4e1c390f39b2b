"""The real `compdiag tui` in a pseudo-terminal: it paints its first screen and quits on q."""

from __future__ import annotations

import os
import pty
import select
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import fcntl
import termios

from compdiag_tui.demo_store import build_demo_store


def test_real_app_in_a_pty_shows_the_tree_and_quits_on_q(tmp_path: Path) -> None:
    store = build_demo_store(tmp_path / "demo.db", compiles=14)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("TEXTUAL", None)
    proc = subprocess.Popen([sys.executable, "-m", "compdiag", "tui", "--store", str(store)],
                            stdin=slave, stdout=slave, stderr=slave, env=env,
                            start_new_session=True, close_fds=True)
    os.close(slave)
    out = bytearray()

    def read_until(pred, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return True
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    out.extend(os.read(master, 1 << 16))
                except OSError:
                    break
        return pred()

    try:
        # The compile tree of run 1: its frames, a compile id, a graph break, the key bar.
        seen = read_until(lambda: all(s in out for s in (b"frame", b"0/0", b"graph break",
                                                         b"Quit")), 60)
        assert seen, bytes(out[-2000:])
        os.write(master, b"q")
        read_until(lambda: proc.poll() is not None, 20)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)
