"""A `compdiag perf SCRIPT` session, and the report filed for it.

SCRIPT runs under capture with the timer on (capture/perf_timing.py), once per mode, each in
its own child process with its own fresh TORCHINDUCTOR_CACHE_DIR (a cache hit would hide the
compile time). With --repeat N each mode runs N times: the first compiles cold, the others reuse
its cache and add their own timings, because a speed-up measured inside one process cannot show
how much another process of the same program differs (on an H200, about one resnet50 process
in ten ran 20% slower throughout, with or without compdiag). The report (one document, the
`--json` output) is built from those runs by compdiag/analyses/perf.py and filed in the store
under each run it covers (table perf_reports) for the TUI and for `compdiag perf RUN`."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from compdiag.store.reader import Reader

Run = tuple[str, int, int]  # (mode, run id, exit status)


def run_modes(store: Path, target: list[str], modes: list[str] | None, *,
              budget: float | None = None, reps: int | None = None, repeat: int | None = None,
              keep_caches: str | None = None, json_stdout: bool = False,
              announce: Callable[[str | None, int, int], None] | None = None,
              progress: Any = None) -> list[Run]:
    """TARGET (a script and its argv) under capture with the timer on, in one child process per
    mode (None: as written) and `repeat` processes per mode; a failing program is not run
    again. `budget`/`reps` are the timer's seconds per graph and least samples; each mode's
    Inductor cache is DIR/inductor-MODE under `keep_caches`, else in a temporary directory
    removed afterwards. With `json_stdout`, stdout is kept for one JSON document: the program's
    stdout goes to stderr and run's summary line is left out. `announce(mode, i, repeat)` is
    called before the i-th process (from 0) of a mode starts. `progress` (views/perf.py's
    ProgressView) hears each process start and end and each graph's timing, through a
    side channel from the child (capture/progress.py)."""
    from compdiag.capture.runner import run_program

    runs = []
    tmp = Path(keep_caches) if keep_caches else Path(tempfile.mkdtemp(prefix="compdiag-perf-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        repeat = repeat or 1
        for mode in modes or [None]:
            # The first process compiles into a fresh cache (its compile time is the mode's);
            # the repeats find the same kernels there and only add timings.
            env = {"COMPDIAG_PERF": "1",
                   "TORCHINDUCTOR_CACHE_DIR": str(tmp / f"inductor-{mode or 'own'}")}
            if budget is not None:
                env["COMPDIAG_PERF_BUDGET_S"] = repr(budget)
            if reps is not None:
                env["COMPDIAG_PERF_MIN_REPS"] = str(reps)
            for i in range(repeat):
                if announce is not None:
                    announce(mode, i, repeat)
                channel = _channel(progress, mode or "default", i, repeat)
                try:
                    with stdout_to_stderr(json_stdout):
                        code, run_id = run_program(
                            store, target, mode=None if mode in (None, "default") else mode,
                            extra_env={**env, **(channel.env() if channel else {})},
                            quiet=json_stdout,
                            pass_fds=(channel.write_fd,) if channel else ())
                finally:
                    if channel is not None:
                        channel.close()
                        progress.process_done(mode or "default")
                runs.append((mode or "default", run_id, code))
                if code == INTERRUPTED:
                    return runs  # Ctrl-C: no other mode or repeat either
                if code:
                    break  # a failing program is not run again
    finally:
        if not keep_caches:
            shutil.rmtree(tmp, ignore_errors=True)
    return runs


INTERRUPTED = 128 + 2  # the exit status of a program Ctrl-C ended (SIGINT), as a shell shows it


def _channel(progress: Any, mode: str, i: int, repeat: int) -> Any:
    """The progress side channel for one process, or None without a progress view."""
    if progress is None:
        return None
    from compdiag.capture.progress import Channel

    progress.process_started(mode, i, repeat)
    return Channel(lambda event: progress.event(mode, event), progress.tick)


@contextlib.contextmanager
def stdout_to_stderr(on: bool) -> Iterator[None]:
    """With --json, stdout carries one JSON document: the program's own stdout (the child
    inherits file descriptor 1) goes to stderr meanwhile."""
    if not on:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def recorded_runs(reader: Reader, run_id: int) -> list[Run]:
    """The runs a stored RUN is shown with: itself in the mode it ran, or, when it was recorded
    in a mode comparison or with --repeat, every run that report covered (if all still have
    their timings)."""
    mode = ((reader.perf_run(run_id) or {}).get("mode")
            or reader.run(run_id).get("mode") or "default")
    runs = [(mode, run_id, 0)]
    filed = reader.perf_report(run_id) or {}
    if filed.get("modes") or any(r.get("repeats") for r in filed.get("runs") or []):
        others = [(r.get("mode"), x, 0) for r in filed.get("runs") or []
                  for x in [r.get("run")] + [q.get("run") for q in r.get("repeats") or []]]
        if all(isinstance(r, int) and reader.perf_graphs(r) for _, r, _ in others):
            runs = others
    return runs


def build_document(store: Path, runs: list[Run], *, compare: bool) -> dict[str, Any]:
    """One report per mode, from its first run; a mode's later runs (--repeat) are kept under
    its `repeats` as their whole-run speed-ups."""
    from compdiag.analyses.perf import compare_modes, report, repeat_summary
    from compdiag.store.schema import SCHEMA_VERSION

    reports: dict[str, dict[str, Any]] = {}
    with Reader(store) as reader:
        for mode, run_id, _ in runs:
            if mode in reports:
                reports[mode].setdefault("repeats", []).append(repeat_summary(reader, run_id))
                continue
            rep = report(reader, run_id)
            rep["mode"] = mode
            cg = reader.cudagraphs(run_id)
            rep["cudagraphs"] = {"applied": sum(1 for c in cg if c.get("applied")),
                                 "skipped": sum(1 for c in cg if not c.get("applied"))}
            reports[mode] = rep
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "store": str(store),
                           "created_at": time.time(), "runs": list(reports.values())}
    doc["modes"] = compare_modes(reports) if compare else None
    return doc


def file_report(store: Path, doc: dict[str, Any]) -> None:
    """Keep the report in the store under every run it covers (the TUI reads it there)."""
    from compdiag.store.writer import Writer

    document = json.dumps(doc, default=repr)
    w = Writer(store)
    try:
        for rep in doc["runs"]:
            for run in [rep["run"]] + [q["run"] for q in rep.get("repeats") or []]:
                w.upsert("perf_reports", run_id=run, created_at=doc["created_at"],
                         document=document)
        w.flush()
    finally:
        w.close()


def run_tries(store: Path, target: list[str], base: dict[str, Any], base_run: int, *,
              budget: float | None = None, reps: int | None = None, json_stdout: bool = False,
              only: set[str] | None = None,
              announce: Callable[[str], None] | None = None) -> dict[str, Any]:
    """`--try`: the settings the baseline report's top limiters name, each run once in its
    own process (a fresh cache: its compile is measured too), beside the baseline."""
    from compdiag.analyses.perf import report
    from compdiag.analyses.perf_try import SETTINGS, choose, effect
    from compdiag.capture.runner import run_program

    tries, skipped = choose(base.get("limiters") or [], base.get("device"), base.get("mode"),
                            only)
    results = []
    tmp = Path(tempfile.mkdtemp(prefix="compdiag-try-"))
    try:
        for row in tries:
            s = SETTINGS[row["setting"]]
            env = {"COMPDIAG_PERF": "1", "TORCHINDUCTOR_CACHE_DIR": str(tmp / s.name)}
            if s.child:
                env["COMPDIAG_TRY"] = s.child
            if budget is not None:
                env["COMPDIAG_PERF_BUDGET_S"] = repr(budget)
            if reps is not None:
                env["COMPDIAG_PERF_MIN_REPS"] = str(reps)
            if announce is not None:
                announce(s.what)
            mode = s.mode or (base.get("mode") if base.get("mode") not in (None, "default")
                              else None)
            with stdout_to_stderr(json_stdout):
                code, run_id = run_program(store, target, mode=mode, extra_env=env,
                                           quiet=json_stdout)
            with Reader(store) as reader:
                rep = report(reader, run_id)
                out = {**row, "run": run_id, "exit_code": code, "mode": mode or "default"}
                out.update(effect(reader, base, rep, base_run, run_id) if code == 0 else
                           {"verdict": "the program failed with this setting"})
            results.append(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"baseline": {"run": base_run, "mode": base.get("mode")}, "settings": results,
            "not_tried": skipped}

