"""CPU seconds per test file, for benchmarks/test_time.md: a pytest plugin.

Wall time on the shared 2-core machine says more about the other engineers' load than about
the suite, so the suite's cost is measured as CPU: user+sys of the pytest process and of every
child it reaped (the `compdiag run` children, their compile workers and gcc), summed over each
test file's tests (fixture setup included: a session fixture is charged to the first test that
needs it). Under pytest-xdist every worker writes its own file; add them up.

    ln -s $PWD/benchmarks/pytest_cpu_by_file.py .venv/lib/python3.*/site-packages/
    python -m pytest -p pytest_cpu_by_file tests/test_accuracy.py

(Not PYTHONPATH=benchmarks: the session's fork server would inherit it and refuse every
capture whose environment strips it, base_env's; benchmarks/test_time.md, round 5.)
    python benchmarks/pytest_cpu_by_file.py OUT.*.json      # the table

Output: $CPU_BY_FILE_OUT (default ./cpu_by_file.json) with `.WORKER` before `.json`, written
after every test, so an interrupted run keeps what it measured."""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest

_by_file: dict[str, list[float]] = {}


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _out() -> Path:
    base = os.environ.get("CPU_BY_FILE_OUT", "cpu_by_file.json").removesuffix(".json")
    return Path(f"{base}.{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.json")


def _write() -> None:
    _out().write_text(json.dumps({"process_cpu": _cpu(), "files": _by_file}, indent=1))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    cpu, wall = _cpu(), time.monotonic()
    yield
    row = _by_file.setdefault(item.nodeid.split("::")[0], [0.0, 0.0, 0])
    row[0] += _cpu() - cpu
    row[1] += time.monotonic() - wall
    row[2] += 1
    _write()


def pytest_sessionfinish(session: pytest.Session) -> None:
    _write()


def table(paths: list[str]) -> str:
    """Files by CPU seconds, heaviest first, over one or more workers' outputs."""
    total, rows = 0.0, {}
    for path in paths:
        doc = json.loads(Path(path).read_text())
        total += doc["process_cpu"]
        for name, (cpu, wall, n) in doc["files"].items():
            row = rows.setdefault(name, [0.0, 0.0, 0])
            row[0] += cpu
            row[1] += wall
            row[2] += n
    lines = [f"{'file':<42} {'cpu s':>7} {'wall s':>7} {'tests':>5}"]
    for name, (cpu, wall, n) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"{name:<42} {cpu:7.1f} {wall:7.1f} {n:5d}")
    lines.append(f"{'(tests)':<42} {sum(r[0] for r in rows.values()):7.1f}")
    lines.append(f"{'(processes, with collection and startup)':<42} {total:7.1f}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(sys.argv[1:]))
