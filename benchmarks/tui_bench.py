"""Benchmark of `compdiag tui` on a big store: first screen and keystroke latency.

Builds (or reuses) a synthetic store with 1,200 compile ids and ~100 MB of payloads
(compdiag_tui.demo_store), then starts the real app in a pseudo-terminal, as a user would:

- first screen: seconds from spawning `python -m compdiag tui` (interpreter start, imports,
  store open, compile tree of every compile id) until the compile tree and its first compile's
  summary are on the terminal;
- keystrokes: milliseconds from writing a key to the pty until the app's repaint arrives
  (time to the first byte of the answer, and to the end of the burst of output). Keys cover
  moving in the tree, opening a compile id, switching stage tabs (each loads its payload
  lazily), picking kernels, and typing a search.

    python benchmarks/tui_bench.py [--store big.db] [--compiles 1200] [--payload-mb 100]
                                   [--rounds 3] [--no-keys] [--json] [--smoke]

`--no-keys` times first screens only (use more --rounds). Every child runs as an installed
compdiag does, with bytecode caches (PYTHONDONTWRITEBYTECODE is dropped for them), after one
untimed launch that warms those caches and the page cache. Start-up is also split into the
interpreter, Textual's import and the start path's imports (each in a fresh process: less
noisy than the pty figure). The machine's load average is printed with the figures: on a
shared 2-core box they move.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

KEYS = {"down": b"\x1b[B", "up": b"\x1b[A", "enter": b"\r", "escape": b"\x1b",
        "right_square_bracket": b"]", "slash": b"/"}


class Term:
    """A child process on a pseudo-terminal; reads everything it paints."""

    def __init__(self, argv: list[str], *, cols: int = 160, rows: int = 45,
                 env: dict[str, str] | None = None) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        full_env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(cols),
                    "LINES": str(rows), **(env or {})}
        full_env.pop("TEXTUAL", None)
        full_env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                                     env=full_env, start_new_session=True, close_fds=True)
        os.close(slave)
        self.buffer = bytearray()
        self.first_byte: float | None = None

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            data = os.read(self.master, 1 << 16)
        except OSError:
            return b""
        if self.first_byte is None and data:
            self.first_byte = time.perf_counter() - self.t0
        self.buffer += data
        return data

    def wait_for(self, *needles: bytes, timeout: float = 30.0) -> float:
        """Seconds since spawn when every needle has been painted."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            if all(n in self.buffer for n in needles):
                return time.perf_counter() - self.t0
            self.read(0.01)
        raise TimeoutError(f"never saw {needles!r}; last output: {bytes(self.buffer[-400:])!r}")

    def drain(self, quiet: float = 0.05, limit: float = 5.0) -> None:
        end = time.perf_counter() + limit
        while time.perf_counter() < end and self.read(quiet):
            pass

    def key(self, name: str, quiet: float = 0.03) -> tuple[float, float, float]:
        """(ms to the first byte of the answer, ms to the end of its burst, ms of the app's CPU
        time from the key to the end of its burst)."""
        self.drain(0.02)
        cpu0 = self.cpu_s()
        start = time.perf_counter()
        os.write(self.master, KEYS.get(name, name.encode()))
        first = last = None
        deadline = start + 5.0
        while time.perf_counter() < deadline:
            data = self.read(quiet if first is not None else 5.0)
            now = time.perf_counter()
            if not data:
                break
            if first is None:
                first = now
            last = now
        cpu = (self.cpu_s() - cpu0) * 1000
        if first is None:
            return float("nan"), float("nan"), cpu
        return (first - start) * 1000, (last - start) * 1000, cpu

    def cpu_s(self) -> float:
        """CPU time (user + system, every thread) the child has used so far, in seconds, from
        the scheduler's nanosecond counters; NaN where /proc has none (not Linux). Beside the
        wall time it tells the app's own cost from the machine's load: on a shared box wall
        time waits for a CPU, CPU time does not."""
        total = 0
        try:
            for task in os.listdir(f"/proc/{self.proc.pid}/task"):
                with open(f"/proc/{self.proc.pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return float("nan")
        return total / 1e9

    def close(self) -> int | None:
        try:
            os.write(self.master, b"q")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)
        return self.proc.returncode


def build(store: Path, compiles: int, payload_mb: float) -> dict[str, float]:
    from compdiag_tui.demo_store import build_demo_store

    t = time.perf_counter()
    build_demo_store(store, compiles=compiles, payload_mb=payload_mb)
    return {"build_s": round(time.perf_counter() - t, 2),
            "store_mb": round(store.stat().st_size / 1e6, 1)}


def payload_mb(store: Path) -> float:
    from compdiag.store.reader import Reader

    with Reader(store) as r:
        # the payloads' text, wherever the store keeps it (store/blobs.py)
        a = r.conn.execute(f"SELECT coalesce(sum(length({r._payload})), 0) FROM records"
                           ).fetchone()[0]
        b = r.conn.execute("SELECT coalesce(sum(length(source)), 0) FROM kernels").fetchone()[0]
        n = r.conn.execute("SELECT count(*) FROM compiles").fetchone()[0]
    return round((a + b) / 1e6, 1), n


def measure(store: Path, rounds: int = 3, keys_too: bool = True) -> dict:
    argv = [sys.executable, "-m", "compdiag", "tui", "--store", str(store)]
    first_screens, first_bytes, first_cpus = [], [], []
    keys: dict[str, list[tuple[float, float, float]]] = {}
    for i in range(rounds + 1):
        term = Term(argv)
        try:
            # The tree's first compile id highlighted and its summary drawn.
            first_screen = term.wait_for(b"0/0", b"compile ", b"attempt")
            first_cpu = term.cpu_s()
            if i == 0:              # warm-up: bytecode and page caches, not timed
                term.drain(0.2)
                continue
            first_screens.append(first_screen)
            first_cpus.append(first_cpu)
            first_bytes.append(term.first_byte or float("nan"))
            term.drain(0.2)
            if not keys_too:
                continue
            # Down the tree and back to the first compile id (row 1), open it, visit the
            # stage tabs, pick kernels, go back, search.
            plan = (["down"] * 15 + ["up"] * 15 + ["enter"] + list("2345") + ["7"]
                    + ["down"] * 2 + list("890") + ["escape"] + ["down"] * 5
                    + ["slash"] + list("sigmoid") + ["escape"])
            for name in plan:
                tabs = {"2": "bytecode", "3": "dynamo", "4": "aot", "5": "post-grad",
                        "7": "kernels", "8": "cudagraphs", "9": "timings", "0": "accuracy"}
                label = f"tab {name} {tabs[name]}" if name in tabs else name
                if len(name) == 1 and name.isalpha():
                    label = "search typing"
                keys.setdefault(label, []).append(term.key(name))
                if name == "slash":
                    term.drain(0.1)
        finally:
            term.close()
    out = {"first_screen_s": {"median": round(statistics.median(first_screens), 3),
                              "min": round(min(first_screens), 3),
                              "max": round(max(first_screens), 3),
                              "runs": [round(x, 3) for x in first_screens],
                              "cpu_median": round(statistics.median(first_cpus), 3),
                              "cpu_min": round(min(first_cpus), 3),
                              "cpu_max": round(max(first_cpus), 3),
                              "cpu_runs": [round(x, 3) for x in first_cpus],
                              "first_output_byte_median": round(statistics.median(first_bytes),
                                                                3)},
           "keys_ms": {}}
    if not keys:
        return out
    everything: list[float] = []
    no_escape: list[float] = []
    all_cpus: list[float] = []
    for label, values in keys.items():
        firsts = sorted(v[0] for v in values if v[0] == v[0])
        ends = sorted(v[1] for v in values if v[1] == v[1])
        cpus = sorted(v[2] for v in values if v[2] == v[2])
        if not firsts:
            continue
        everything += firsts        # escape included (issue 34's goal counts it)
        all_cpus += cpus
        if label != "escape":
            no_escape += firsts
        out["keys_ms"][label] = {"n": len(firsts), "median": round(statistics.median(firsts), 1),
                                 "p95": round(_pct(firsts, 95), 1), "max": round(firsts[-1], 1),
                                 "burst_end_median": round(statistics.median(ends), 1),
                                 "cpu_median": _round(cpus, 50), "cpu_p95": _round(cpus, 95)}
    everything.sort()
    no_escape.sort()
    all_cpus.sort()
    out["all_keys_ms"] = {"n": len(everything), "median": round(statistics.median(everything), 1),
                          "p95": round(_pct(everything, 95), 1), "max": round(everything[-1], 1),
                          "cpu_median": _round(all_cpus, 50), "cpu_p95": _round(all_cpus, 95),
                          "p95_without_escape": round(_pct(no_escape, 95), 1)}
    return out


# What `python -m compdiag tui` imports before its app starts, as cli.main and cmd_tui do it:
# the cli, the tui subcommand's module alone, then (collector off) the app.
START_PATH = ("import compdiag.cli as cli; "
              "cli.build_parser([c for c in cli.COMMANDS if c[0] == 'tui']); "
              "import gc; gc.disable(); import compdiag_tui.app")


def startup_costs(reps: int = 5) -> dict:
    """Interpreter start and the TUI's imports (Textual's mostly), each in a fresh process:
    median and min of `reps` (the min is the cost, the median what a loaded box gives)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def child(code: str) -> dict[str, float]:
        times = []
        for _ in range(reps):
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True, env=env).stdout
            times.append(float(out.strip().splitlines()[-1]))
        return {"median": round(statistics.median(times), 3), "min": round(min(times), 3)}

    bare = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
        bare.append(time.perf_counter() - t)
    code = "import time; t = time.perf_counter(); {}; print(time.perf_counter() - t)"
    return {"python_start_s": {"median": round(statistics.median(bare), 3),
                               "min": round(min(bare), 3)},
            "import_textual_app_s": child(code.format("import textual.app")),
            "import_start_path_s": child(code.format(START_PATH))}


def measure_inprocess(store: Path) -> dict:
    """App start to compile tree ready, inside one process (no interpreter start-up)."""
    import asyncio

    t0 = time.perf_counter()
    from compdiag_tui import CompdiagApp
    from compdiag_tui.widgets import CompileSummary
    t_import = time.perf_counter() - t0

    async def run() -> float:
        app = CompdiagApp(store)
        start = time.perf_counter()
        async with app.run_test(size=(160, 45)):
            while True:
                try:
                    if app.screen.query_one(CompileSummary).info is not None:
                        return time.perf_counter() - start
                except Exception:  # noqa: BLE001 - the screen is not there yet
                    pass
                await asyncio.sleep(0.002)

    return {"import_s": round(t_import, 3), "app_to_tree_s": round(asyncio.run(run()), 3)}


def _round(values: list[float], p: float) -> float | None:
    return round(_pct(values, p), 1) if values else None


def _pct(values: list[float], p: float) -> float:
    k = max(0, min(len(values) - 1, int(round(p / 100 * (len(values) - 1)))))
    return values[k]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", type=Path, help="reuse this store (built when missing)")
    ap.add_argument("--compiles", type=int, default=1200)
    ap.add_argument("--payload-mb", type=float, default=100.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-keys", action="store_true", help="time first screens only")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--smoke", action="store_true",
                    help="a 20-compile store, one launch, one sample of each start-up cost: "
                         "checks the benchmark runs, not its figures")
    args = ap.parse_args(argv)
    reps = 5
    if args.smoke:
        args.compiles, args.payload_mb, args.rounds, args.no_keys, reps = 20, 0.5, 1, True, 1
    tmp = None
    store = args.store
    if store is None:
        tmp = tempfile.TemporaryDirectory(prefix="tui_bench_")
        store = Path(tmp.name) / "big.db"
    result: dict = {"load_avg_1m": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
    if not store.exists():
        result.update(build(store, args.compiles, args.payload_mb))
    result["payload_mb"], result["compiles"] = payload_mb(store)
    result["pty"] = measure(store, args.rounds, keys_too=not args.no_keys)
    result["startup"] = startup_costs(reps)
    result["in_process"] = measure_inprocess(store)
    result["load_avg_1m_after"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"store: {result['compiles']} compile ids, {result['payload_mb']} MB of payloads")
        fs = result["pty"]["first_screen_s"]
        print(f"first screen (spawn to compile tree painted): median {fs['median']} s, "
              f"min {fs['min']} s, max {fs['max']} s over {len(fs['runs'])} runs; its CPU time "
              f"(the app's, every thread) median {fs['cpu_median']} s, min {fs['cpu_min']} s, "
              f"max {fs['cpu_max']} s")
        ip, st = result["in_process"], result["startup"]
        print("  of which (fresh processes, median / min): python start "
              f"{st['python_start_s']['median']} / {st['python_start_s']['min']} s, "
              f"import textual.app {st['import_textual_app_s']['median']} / "
              f"{st['import_textual_app_s']['min']} s, start path's imports "
              f"{st['import_start_path_s']['median']} / {st['import_start_path_s']['min']} s; "
              f"first output byte {fs['first_output_byte_median']} s")
        print(f"  in process: app start to tree {ip['app_to_tree_s']} s")
        if not result["pty"]["keys_ms"]:
            print(f"load average (1 min) {result['load_avg_1m']} -> "
                  f"{result['load_avg_1m_after']} on {result['cpus']} CPUs")
            if tmp is not None:
                tmp.cleanup()
            return 0
        print("keystroke to first repaint byte (ms):")
        for label, v in result["pty"]["keys_ms"].items():
            print(f"  {label:<22} n={v['n']:<3} median {v['median']:>6}  p95 {v['p95']:>6}  "
                  f"max {v['max']:>6}  (burst end median {v['burst_end_median']}; CPU median "
                  f"{v['cpu_median']}, p95 {v['cpu_p95']})")
        a = result["pty"]["all_keys_ms"]
        print(f"  all keys (escape too) n={a['n']:<3} median {a['median']:>6}  p95 {a['p95']:>6}"
              f"  max {a['max']:>6}  (p95 without escape {a['p95_without_escape']}; CPU median "
              f"{a['cpu_median']}, p95 {a['cpu_p95']})")
        print(f"load average (1 min) {result['load_avg_1m']} -> {result['load_avg_1m_after']} "
              f"on {result['cpus']} CPUs")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
