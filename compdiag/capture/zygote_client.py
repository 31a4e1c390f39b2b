"""`compdiag run`'s side of the fork server (capture/zygote.py): an internal, test-only option.
When COMPDIAG_ZYGOTE names a server's socket, run_program asks it to fork the capture child
instead of starting a fresh interpreter; anything that does not go exactly right before the
child exists (no server, a refusal, a closed descriptor, a broken answer) starts the child
the normal way. Unset, nothing here runs.

Each outcome is appended to SOCKET.log beside the server's own lines (forked, or why not), so
a test session can count the forks and see every fallback."""

from __future__ import annotations

import json
import os
import socket
import time

ENV_ZYGOTE = "COMPDIAG_ZYGOTE"
HANDSHAKE_S = 120.0  # the server answers at once; a loaded machine may delay it


class ForkedChild:
    """What run_program needs of a Popen (pid, wait, send_signal) for a child the server
    forked: wait() returns what Popen.wait() would (the exit code, -N when killed by N)."""

    def __init__(self, conn: socket.socket, pid: int, rest: bytes) -> None:
        self.conn, self.pid, self._buf = conn, pid, rest
        self.returncode: int | None = None

    def wait(self) -> int:
        if self.returncode is None:
            status = self._status()
            self.conn.close()
            if status is None:
                self.returncode = self._lost()
            else:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def _status(self) -> int | None:
        self.conn.settimeout(None)
        while b"\n" not in self._buf:
            try:
                data = self.conn.recv(4096)
            except InterruptedError:  # noqa: PERF203
                continue
            except OSError:
                return None
            if not data:
                return None
            self._buf += data
        try:
            return int(json.loads(self._buf.split(b"\n", 1)[0])["status"])
        except (ValueError, KeyError, TypeError):
            return None

    def _lost(self) -> int:
        """The server died (or answered nonsense) while the program ran: wait until the
        program is gone, say so on stderr and end 1 (the status is nobody's to report)."""
        while _alive(self.pid):
            time.sleep(0.2)
        import sys

        print(f"compdiag: the fork server ({ENV_ZYGOTE}) lost the exit status of process "
              f"{self.pid}", file=sys.stderr)
        return 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie nobody reaps yet is gone for our purpose
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def start(path: str, argv: list[str], env: dict[str, str], stderr_fd: int | None,
          pass_fds: tuple[int, ...]) -> ForkedChild | None:
    """Ask the server at PATH to fork `python -m compdiag.capture.child ARGV` with ENV, this
    process's cwd, stdin and stdout, STDERR_FD (None: ours) and PASS_FDS at their numbers.
    None: start it the normal way (the reason is logged)."""
    fds = [0, 1, stderr_fd if stderr_fd is not None else 2, *pass_fds]
    try:
        for fd in fds:
            os.fstat(fd)  # a closed stdin/stdout: Popen would leave it closed; not done here
    except OSError:
        return _fallback(path, "a standard descriptor is closed")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(HANDSHAKE_S)
        conn.connect(path)
        msg = json.dumps({"argv": argv, "env": env, "cwd": os.getcwd(),
                          "fds": [0, 1, 2, *pass_fds]}).encode() + b"\n"
        sent = socket.send_fds(conn, [msg[:4096]], fds)
        conn.sendall(msg[sent:])
        buf = b""
        while b"\n" not in buf:
            data = conn.recv(4096)
            if not data:
                raise ConnectionError("the server closed the connection")
            buf += data
        line, rest = buf.split(b"\n", 1)
        answer = json.loads(line)
    except (OSError, ValueError) as exc:
        conn.close()
        return _fallback(path, f"{type(exc).__name__}: {exc}")
    if "pid" not in answer:
        conn.close()
        return _fallback(path, str(answer.get("refused", answer)))
    return ForkedChild(conn, int(answer["pid"]), rest)


def _fallback(path: str, why: str) -> None:
    try:
        with open(path + ".log", "a", encoding="utf-8") as f:
            f.write(f"{time.time():.3f} fallback pid={os.getpid()} {why}\n")
    except OSError:
        pass
    return None

