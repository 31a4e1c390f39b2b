"""Shared helpers for the benchmarks: timing child processes, medians, a small table."""

from __future__ import annotations

import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PYTHON = sys.executable


def venv_bin(name: str) -> str:
    """A console script next to this interpreter (the venv's bin/), else on PATH."""
    cand = Path(PYTHON).parent / name
    return str(cand) if cand.exists() else name


def timed(cmd: list[str], *, env: dict[str, str] | None = None, cwd: str | None = None,
          log: Path | None = None) -> tuple[float, float]:
    """Run CMD to completion; return (wall seconds, child CPU seconds user+sys).

    Output goes to LOG (or /dev/null); a non-zero exit raises with the log's tail."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = open(log, "wb") if log else subprocess.DEVNULL
    try:
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        wall = time.perf_counter() - t0
    finally:
        if log:
            out.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:] if log else ""
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}\n{tail}")
    return wall, cpu


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def machine() -> str:
    try:
        cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                    if ln.startswith("model name")), platform.processor())
    except OSError:
        cpu = platform.processor()
    load = os.getloadavg()
    import importlib.metadata as md

    try:
        torch_v = md.version("torch")
    except md.PackageNotFoundError:
        torch_v = "?"
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs ({cpu}), "
            f"Python {platform.python_version()}, torch {torch_v}, "
            f"load avg {load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f}")


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)
