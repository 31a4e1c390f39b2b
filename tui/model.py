"""What the TUI knows about a store, read through `compdiag.store.Reader` only.

Cheap, index-backed queries feed the first screen (the compile index without payloads); every
payload (a graph, bytecode, kernel source) is fetched when its view is opened. Results that do
not change while a run is displayed are memoised here, so a keystroke never re-queries them.
"""

from __future__ import annotations

import os

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compdiag.formats.command_line import command_line
from compdiag.formats.compile_id import frame_of
from compdiag.store.reader import Reader, compile_id_key
from compdiag.formats.compiled_code import TORCH_WRAPPERS

# Status of one compile id as the tree shows it, and its colour.
STATUS_STYLE = {
    "failed": "bold red", "graph_break": "yellow", "recompile": "magenta", "ok": "green",
    "empty": "dim", "started": "dim",
}
STATUS_WORD = {
    "failed": "failed", "graph_break": "graph break", "recompile": "recompile", "ok": "ok",
    "empty": "empty", "started": "started",
}
# A status counted: "2 failures", "1 graph break" (formats/words.py's plural).
STATUS_NOUN = {"failed": "failure", "graph_break": "graph break", "recompile": "recompile"}

# The stage tabs of a compile id: (tab id, title, [(label, record kinds tried in order, lexer)]).
ARTIFACT_TABS: dict[str, list[tuple[str, tuple[str, ...], str]]] = {
    "bytecode": [
        ("original", ("compdiag:bytecode_original",), "text"),
        ("transformed", ("compdiag:bytecode_transformed",), "text"),
        ("decompiled", ("compdiag:transformed_source",), "python"),
    ],
    "dynamo": [
        ("graph", ("dynamo_output_graph",), "python"),
        ("guards", ("dynamo_cpp_guards_str", "dynamo_guards"), "text"),
    ],
    "aot": [
        ("inference", ("aot_inference_graph",), "python"),
        ("forward", ("aot_forward_graph",), "python"),
        ("backward", ("aot_backward_graph",), "python"),
        ("joint", ("aot_joint_graph",), "python"),
    ],
    "postgrad": [
        ("post-grad graph", ("inductor_post_grad_graph", "artifact:inductor_post_grad_graph"),
         "python"),
        ("pre-grad graph", ("inductor_pre_grad_graph", "artifact:inductor_pre_grad_graph"),
         "python"),
    ],
}

# Which tab shows a record kind (search hits jump there); anything else opens the raw tab.
KIND_TAB = {kind: tab for tab, views in ARTIFACT_TABS.items()
            for _, kinds, _ in views for kind in kinds}
KIND_TAB.update({"inductor_output_code": "kernels",
                 "artifact:dynamo_graph_break_reason": "overview",
                 "artifact:recompile_reasons": "overview",
                 "compilation_metrics": "timings"})


@dataclass
class CompileInfo:
    """One row of the compile tree: no payloads, just what colours and labels need."""

    compile_id: str
    frame: int | None
    attempt: int
    co_name: str | None
    filename: str | None
    lineno: int | None
    status: str            # the store's status: ok | graph_break | failed | empty | started
    stage_times: dict[str, float]
    graph_breaks: int = 0
    recompile: str | None = None     # the recompile reason when this compile was one
    failure: str | None = None

    @property
    def display_status(self) -> str:
        if self.status == "failed" or self.failure:
            return "failed"
        if self.status == "graph_break" or self.graph_breaks:
            return "graph_break"
        if self.recompile:
            return "recompile"
        return self.status if self.status in STATUS_STYLE else "started"


@dataclass
class FrameInfo:
    frame: int | None
    co_name: str | None
    filename: str | None
    lineno: int | None
    compiles: list[CompileInfo] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for c in self.compiles if c.display_status == status)


class StoreModel:
    """The TUI's single door to the store (a `Reader`), with memoised cheap queries."""

    def __init__(self, store: Path | str) -> None:
        self.path = Path(store)
        self.reader = Reader(self.path)
        self._index: dict[int, list[CompileInfo]] = {}
        self._runs: list[dict[str, Any]] | None = None
        self._perf: dict[int, dict[str, Any] | None] = {}

    def close(self) -> None:
        self.reader.close()

    # -- runs -------------------------------------------------------------------------------
    def runs(self) -> list[dict[str, Any]]:
        if self._runs is None:
            self._runs = self.reader.runs()
        return self._runs

    def run(self, run_id: int) -> dict[str, Any]:
        for r in self.runs():
            if r["id"] == run_id:
                return r
        return self.reader.run(run_id)

    def source_text(self, run_id: int, filename: str | None) -> str | None:
        """A user file's text as the run kept it (a relative name is the run's cwd's, as
        explain resolves it), or None when the run kept no text of it."""
        if not filename:
            return None
        cwd = self.run(run_id).get("cwd")
        for path in (filename, os.path.normpath(os.path.join(cwd, filename)) if cwd else None):
            text = self.reader.source_text(run_id, path)
            if text is not None:
                return text
        return None

    def counts(self, run_id: int) -> dict[str, int]:
        return self.reader.counts(run_id)

    def diff(self, run_a: int, run_b: int) -> list[tuple[str, str]]:
        """What two runs did differently, as `compdiag diff` prints it: (kind, text) lines."""
        from compdiag.analyses.diff import diff_runs
        from compdiag.views.diff import describe

        return describe(diff_runs(self.reader, run_a, run_b))

    def job_document(self, job: str) -> dict[str, Any]:
        """`compdiag explain --job`'s document: the ranks, their counts and divergences."""
        from compdiag.views.job import explain_job_document

        with Reader(self.path) as reader:  # its own connection: called from a worker thread
            return explain_job_document(reader, job)

    # -- the compile tree -------------------------------------------------------------------
    def compile_index(self, run_id: int) -> list[CompileInfo]:
        if run_id not in self._index:
            self._index[run_id] = self._build_index(run_id)
        return self._index[run_id]

    def _build_index(self, run_id: int) -> list[CompileInfo]:
        rows = self.reader.compile_index(run_id)
        # a module of torch.nn's own is compiled through torch's wrapper: named by its class,
        # at the user's call (as `compdiag show` names it)
        if any(r["co_name"] in TORCH_WRAPPERS for r in rows):  # analyses only then: the first
            from compdiag.analyses.compile_names import as_user_knows  # screen stays light

            rows = as_user_knows(self.reader, run_id, rows)
        infos = {r["compile_id"]: CompileInfo(
            compile_id=r["compile_id"], frame=r["frame"], attempt=r["attempt"] or 0,
            co_name=r["co_name"], filename=r["filename"], lineno=r["lineno"],
            status=r["status"], stage_times=r["stage_times"] or {}) for r in rows}
        for g in self.reader.graph_breaks(run_id):
            if g["compile_id"] in infos:
                infos[g["compile_id"]].graph_breaks += 1
        for r in self.reader.recompiles(run_id):
            if r["compile_id"] in infos:
                infos[r["compile_id"]].recompile = r["reason"]
        for f in self.reader.failures(run_id):
            if f["compile_id"] in infos:
                infos[f["compile_id"]].failure = f"{f['stage']}: {f['message'] or f['exc_type']}"
        out = list(infos.values())
        out.sort(key=lambda c: compile_id_key(c.compile_id))
        return out

    def frames(self, run_id: int) -> list[FrameInfo]:
        frames: dict[Any, FrameInfo] = {}
        for c in self.compile_index(run_id):
            # One function per frame of a generation: torch numbers frames from 0 again
            # after torch._dynamo.reset().
            key = frame_of(c.compile_id) if c.frame is not None else ("?", c.co_name)
            f = frames.get(key)
            if f is None:
                f = frames[key] = FrameInfo(c.frame, c.co_name, c.filename, c.lineno)
            f.compiles.append(c)
        return list(frames.values())

    def compile_info(self, run_id: int, compile_id: str) -> CompileInfo | None:
        for c in self.compile_index(run_id):
            if c.compile_id == compile_id:
                return c
        return None

    # -- one compile id (all index-backed, no payloads unless named) ------------------------
    def details(self, run_id: int, compile_id: str) -> dict[str, Any]:
        r = self.reader
        return {
            "graph_breaks": r.graph_breaks(run_id, compile_id),
            "recompiles": r.recompiles(run_id, compile_id),
            "failures": r.failures(run_id, compile_id),
            "kernels": r.kernels(run_id, compile_id, with_source=False),
            "cudagraphs": r.cudagraphs(run_id, compile_id),
            "cudagraph_recordings": r.cudagraph_recordings(run_id, compile_id),
            "cudagraph_partitions": r.cudagraph_partitions(run_id, compile_id),
            "kinds": self.record_kinds(run_id, compile_id),
        }

    def record_kinds(self, run_id: int, compile_id: str) -> dict[str, int]:
        return {k["kind"]: k["n"]
                for k in self.reader.compile_record_kinds(run_id, compile_id)}

    def artifact(self, run_id: int, compile_id: str, kinds: tuple[str, ...]) -> str | None:
        for kind in kinds:
            text = self.reader.artifact(run_id, compile_id, kind)
            if text is not None:
                return text
        return None

    def kernels(self, run_id: int, compile_id: str) -> list[dict[str, Any]]:
        return self.reader.kernels(run_id, compile_id, with_source=False)

    def kernel_source(self, run_id: int, kernel_id: int) -> str | None:
        return self.reader.kernel_source(run_id, kernel_id)

    def fusion(self, run_id: int, compile_id: str) -> list[dict[str, Any]]:
        return self.reader.fusion(run_id, compile_id)

    def cudagraphs(self, run_id: int, compile_id: str) -> list[dict[str, Any]]:
        return self.reader.cudagraphs(run_id, compile_id)

    def accuracy(self, run_id: int, compile_id: str) -> list[dict[str, Any]]:
        return self.reader.accuracy(run_id, compile_id)

    def metrics(self, run_id: int, compile_id: str) -> dict[str, Any] | None:
        row = self.reader.compile(run_id, compile_id)
        return None if row is None else row.get("metrics")

    # -- `compdiag perf` ----------------------------------------------------------------------
    def compile_time(self, run_id: int, compile_id: str) -> dict[str, Any] | None:
        """Where this compile's wall time went (analyses/compile_time.py), guards included."""
        from compdiag.analyses.compile_time import per_compile

        return per_compile(self.reader, run_id, compile_id).get(compile_id)

    def perf_report(self, run_id: int) -> dict[str, Any] | None:
        """The `compdiag perf --json` document filed under this run, or None."""
        if run_id not in self._perf:
            self._perf[run_id] = self.reader.perf_report(run_id)
        return self._perf[run_id]

    def perf_section(self, run_id: int) -> dict[str, Any] | None:
        """This run's part of its perf report (`runs[i]` with `run == run_id`); a later process
        of a mode (`--repeat`) is shown with its mode's report, whose `repeats` name it."""
        doc = self.perf_report(run_id)
        runs = [r for r in (doc or {}).get("runs") or [] if isinstance(r, dict)]
        return next((r for r in runs if r.get("run") == run_id),
                    next((r for r in runs if any(isinstance(q, dict) and q.get("run") == run_id
                                                 for q in r.get("repeats") or [])),
                         runs[0] if runs else None))

    # -- commands for the selected item -----------------------------------------------------
    def minify_command(self, run_id: int, compile_id: str | None) -> str:
        graph = ["--graph", compile_id] if compile_id else []
        return command_line("minify", run_id, *graph, store=self.path.resolve())

    def bisect_command(self, run_id: int) -> str:
        """`compdiag bisect` re-runs a captured run's argv in its cwd (RUN or -- CMD, not both)."""
        return command_line("bisect", run_id, store=self.path.resolve())


def resolve_source(filename: str | None, cwd: str | None) -> Path | None:
    """The user's file on this machine, if it is still there (relative names from the run's cwd)."""
    if not filename or filename.startswith("<"):
        return None
    path = Path(filename)
    candidates = [path] if path.is_absolute() else [Path(cwd or ".") / path, path]
    for c in candidates:
        try:
            if c.is_file():
                return c
        except OSError:
            continue
    return None
