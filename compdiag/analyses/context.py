"""Per-run lookups every diagnosis kind shares, through the store's query API only: the
run's compiles, the user frame a diagnosis points at, injected bugs, op lines."""

from __future__ import annotations

import functools
import os
import re
import shlex
from typing import Any, Iterable

from compdiag.analyses.compiling_branches import eager_fallback_words
from compdiag.analyses.diagnosis import UserFrame
from compdiag.formats.code_text import code_only_lines, function_span
from compdiag.formats.command_line import command_line, is_default_store
from compdiag.formats.compile_id import first_attempt, frame_of
from compdiag.formats.compiled_code import TORCH_WRAPPERS, resumed_function
from compdiag.formats.first_nonblank import first_nonblank
from compdiag.formats.guard_source import in_user_spelling
from compdiag.formats.user_code import is_user_file
from compdiag.store.reader import Reader



# perf times a script in one process: a module run (`-m torch.distributed.run ...`, a torchrun
# job) has no perf command that works as pasted (probes40d: "unrecognized arguments: -m")
MODULE_PERF = ("compdiag perf over a single-process version of the program (perf times a "
               "script run by python, not a module run with -m or a torchrun job)")


class RunContext:
    def __init__(self, reader: Reader, run_id: int) -> None:
        self.r = reader
        self.run_id = run_id
        self._spans: dict[tuple, tuple[int, int] | None] = {}  # def_span's, per code object
        self.run = reader.run(run_id)
        self.cwd = self.run.get("cwd")
        # the command line a fix re-runs: none for an imported log (its argv is the log's
        # path, which `compdiag run` or `bisect RUN` cannot run: probes26)
        ran = self.run.get("source", "run") == "run"
        self.argv: list[str] = (self.run.get("argv") or []) if ran else []
        if ran and self.run.get("job") and self.run.get("rank") is not None:
            # a rank's own command line (`-u script.py`, as torchrun starts a worker) runs
            # nothing alone: a command that re-runs it re-runs the launch (probes26)
            launcher = reader.job_launcher(self.run["job"])
            if launcher and launcher.get("argv"):
                self.argv = launcher["argv"]
        self.crashed = (self.run.get("exit_code") or 0) != 0
        # the kinds that raised on this run (analyses.registry.KindFault), said, never fatal
        self.faults: list[Any] = []
        self.compiles = {c["compile_id"]: c for c in reader.compiles(run_id)}
        self.frame_rows: dict[Any, dict[str, Any]] = {}
        self._graph_nodes: dict[str | None, list[dict[str, Any]]] = {}
        for c in self.compiles.values():
            if c.get("co_name") and c.get("frame") not in self.frame_rows:
                self.frame_rows[c.get("frame")] = c

    # -- the store's path as the fix commands spell it -------------------------------------
    @property
    def store(self) -> str | None:
        """The store's path for the commands a fix names (formats.command_line adds
        `--store` unless it is the default store); None for the default store."""
        path = str(self.r.path)
        return None if is_default_store(path) else path

    def perf_try_command(self) -> str:
        """`compdiag perf --try` over this run's own command line, in backticks, as a fix
        prints it; words for a run with no command to re-run (an imported log)."""
        if not self.argv:
            return "compdiag perf --try over the program that wrote this log"
        if self.argv[0] == "-m":
            return MODULE_PERF
        return f"`{self._anchored('perf', '--try', *self.argv)}`"

    def run_command(self, command: str) -> str:
        """`compdiag COMMAND [--store S] RUN` for this run (show, perf): a fix names the run
        and the store, never a bare `compdiag show`, which reads another store's latest run."""
        return command_line(command, self.run_id, store=self.store)

    def perf_command(self) -> str:
        """The `compdiag perf` line that measures this run: re-reading its timings where it
        has some (a `compdiag perf` run), else recording them by running its program again
        (probes31a, probes31d: `compdiag perf --store S 1` of a plain `compdiag run` exits 2,
        "run 1 has no perf timings")."""
        if self.r.perf_graphs(self.run_id):
            return f"`{self.run_command('perf')}`"
        if not self.argv:
            return "`compdiag perf` over the program that wrote this log"
        if self.argv[0] == "-m":
            return MODULE_PERF
        return f"`{self._anchored('perf', *self.argv)}`"

    def rerun_command(self, *options: str, env: dict[str, str] | None = None) -> str:
        """`compdiag run OPTIONS` over this run's own command line, into the same store, in
        backticks: the line a fix prints runs as pasted; words where the run kept no command
        (an imported log), never a placeholder."""
        if self.has_accuracy_rows and "--check-accuracy" not in options:
            # the run again as it was: a checked run's re-run checks too (probes31d: the
            # caches-off line dropped --check-accuracy)
            options = (*options, "--check-accuracy")
        if not self.argv:
            return " ".join([*(f"{k}={v}" for k, v in (env or {}).items()), "compdiag run",
                             *options, "over the program that wrote this log"])
        return f"`{self._anchored('run', *options, *self.argv, env=env)}`"

    def _anchored(self, command: str, *args: str, env: dict[str, str] | None = None) -> str:
        """The command line, run from the run's folder where it names a relative path (the
        script) and with the store's absolute path then: pasted from another folder it still
        finds both (probes28a: a re-run line with `benchmarks/...py` exited 2 elsewhere)."""
        relative = self.cwd and any(
            not a.startswith("-") and not os.path.isabs(a) and (a.endswith(".py") or "/" in a)
            for a in map(str, args))
        if not relative:
            return command_line(command, *args, store=self.store, env=env)
        store = os.path.abspath(self.store) if self.store else None
        return (f"cd {shlex.quote(str(self.cwd))} && "
                f"{command_line(command, *args, store=store, env=env)}")

    # -- code locations --------------------------------------------------------------------
    def resolve(self, filename: str | None) -> str | None:
        """A relative path as the run's cwd's, where the run kept that file (the store, not
        the file system: the folder may be gone); else the one kept file it is the end of
        (torch shortens the paths in a guard's location by a fixed count of characters:
        `mp/probe/d2.py` for /tmp/probe/d2.py)."""
        if filename and not os.path.isabs(filename) and not filename.startswith("<"):
            kept = self.r.source_paths(self.run_id)
            if self.cwd:
                cand = os.path.normpath(os.path.join(self.cwd, filename))
                if cand in kept:
                    return cand
            ends = [k for k in kept if k.endswith(filename)]
            if len(ends) == 1:
                return ends[0]
        return filename

    def source_line(self, filename: str | None, lineno: int | None) -> str | None:
        """Line `lineno` of a user file as the run kept it, stripped; None when not kept."""
        line = self.r.source_line(self.run_id, self.resolve(filename), lineno)
        return (line or "").strip() or None

    def foreign(self, filename: str | None) -> bool:
        """A user file the run never saw, where it keeps those it saw (ingest/sources.py): a
        frame of another program's compile (an FX graph cache entry names the file of the
        program that wrote it), never a line of this run. Captured runs only: an imported
        log's files may be elsewhere, kept or not."""
        if not filename or self.run.get("source", "run") != "run" or \
                not self.r.source_paths(self.run_id) or not is_user_file(self.resolve(filename)):
            return False
        # kept because a record named it, yet never run here: no compile, graph node or
        # live call of this run is in it (probes42d ca_optim_in_backward_hook: compiled
        # autograd's cached graphs named a draft copy still on disk, and four panels
        # pointed there)
        return self.source_lines(filename) is None or \
            bool(self._live) and self.resolve(filename) not in self._live

    @functools.cached_property
    def _live(self) -> set[str]:
        """The files this run ran code of: those Dynamo traced, those of the live calls
        capture saw start each compile, of the program's exceptions, failures and ending
        stacks, of Dynamo's graph breaks and guard locations, and the script itself."""
        files = set(self._traced)
        stacks = [s.get("frames") for s in self.r.call_stacks(self.run_id).values()] + \
            [e.get("frames") for e in [*self.program_exceptions,
                                        *self.r.program_ends(self.run_id)]]
        stacks.append([f for f in self.failures if f.get("filename")])  # tracebacks' lines
        # what Dynamo said while tracing in this process (never served from a cache): the
        # lines its graph breaks and recompiled guards name
        for b in self.r.graph_breaks(self.run_id):
            stacks.append([b, *(b.get("user_stack") or [])])
        stacks.append([{"filename": e.get("loc_filename")}
                       for e in self.r.recompile_events(self.run_id) if e.get("loc_filename")])
        for frames in stacks:
            files.update(self.resolve(f.get("filename")) for f in frames or []
                         if isinstance(f, dict) and f.get("filename"))
        files.update(self.resolve(a) for a in (self.argv or [])[:1])
        return {f for f in files if f}

    @functools.cached_property
    def _traced(self) -> set[str]:
        return {self.resolve(f) for f in self.r.traced_filenames(self.run_id)}

    def traced(self, filename: str | None) -> bool:
        """Whether Dynamo traced this user file in this run (its graphs' nodes, its compiled
        frames), or the run has no Dynamo graph to say (an imported log without one): a cached
        post-grad graph's node of a file Dynamo never traced here is the frame of the program
        that wrote the cache entry (probes30a sampler_settings_ok: a draft's copy, still on
        disk, named by the fallback diagnoses)."""
        return not self._traced or self.resolve(filename) in self._traced

    def source_lines(self, filename: str | None) -> list[str] | None:
        """The lines of a user file as the run kept it (ingest/sources.py), or None."""
        return self.r.source_lines(self.run_id, self.resolve(filename))

    def code_lines(self, filename: str | None) -> list[str] | None:
        """source_lines with their strings and comments blanked (formats/code_text.py): what a
        search for a statement reads, so a docstring quoting it is not its line."""
        text = self.source_text(filename)
        return None if text is None else code_only_lines(text)

    def source_text(self, filename: str | None) -> str | None:
        """A user file's whole text as the run kept it (what ast parses), or None."""
        return self.r.source_text(self.run_id, self.resolve(filename))

    def frame(self, filename: str | None, lineno: int | None, line: str | None = None,
              evidence: str | None = None) -> UserFrame:
        filename = self.resolve(filename)
        if not line and filename and lineno:
            line = self.source_line(filename, lineno)
        return UserFrame(filename, lineno, line, evidence)

    def code_row(self, cid: str | None) -> dict[str, Any] | None:
        """The compile row naming the code object (an attempt or a failed compile may not)."""
        row = self.compiles.get(cid or "")
        if row and row.get("co_name"):
            return row
        if row is not None:
            return self.frame_rows.get(row.get("frame"))
        if cid:
            m = re.match(r"^!?(?:\d+/)?(\d+)/", cid)
            if m:
                return self.frame_rows.get(int(m.group(1)))
        return None

    @functools.cached_property
    def _stacks(self) -> dict[str, list[dict[str, Any]]]:
        return self.r.compile_stacks(self.run_id)

    def start_stack(self, cid: str | None) -> list[dict[str, Any]]:
        """The Python stack at compile start (dynamo_start)."""
        if cid in self._stacks:
            return self._stacks[cid]
        return self._stacks.get(first_attempt(cid) or "", [])

    @functools.cached_property
    def _calls(self) -> dict[str, dict[str, Any]]:
        return self.r.call_stacks(self.run_id)

    def call(self, cid: str | None) -> dict[str, Any]:
        """{frames, objects} of the user's call that started the compile (capture's
        call_stacks), {} when the store has none (an imported log)."""
        return self._calls.get(cid or "") or self._calls.get(first_attempt(cid) or "") or {}

    def call_chain(self, cid: str | None) -> list[UserFrame]:
        """The user frames of the call that started the compile, outermost first: capture's
        live stack, else torch's dynamo_start stack without the compiled function itself
        (which lacks the innermost caller)."""
        frames = self.call(cid).get("frames")
        if not frames:
            frames = self.start_stack(cid)[:-1]
        return [self.frame(self.resolve(f.get("filename")), f.get("lineno"), f.get("line"),
                           "call")
                for f in frames or [] if is_user_file(self.resolve(f.get("filename")))
                and f.get("lineno")]

    def def_frame(self, cid: str | None) -> UserFrame:
        """The compiled function's `def` line, when it is the user's."""
        row = self.code_row(cid)
        if row and is_user_file(self.resolve(row.get("filename"))) and row.get("lineno"):
            return self.frame(row["filename"], row["lineno"], evidence="def")
        return UserFrame()

    def def_span(self, cid: str | None) -> tuple[int, int] | None:
        """(first, last) line of the compiled function's code in its user file, from its kept
        source (code_text.function_span); None where its file is not the user's or its text
        holds no such function. One parse per code object, however many kinds ask."""
        d = self.def_frame(cid)
        if not d.filename:
            return None
        key = (d.filename, d.lineno)
        if key not in self._spans:
            self._spans[key] = function_span(self.source_text(d.filename), d.lineno or 0)
        return self._spans[key]

    def in_function(self, cid: str | None, at: Any) -> bool:
        """Whether frame AT lies in the function compile CID compiled (its file and def_span)."""
        d, span = self.def_frame(cid), self.def_span(cid)
        return bool(span and at and at.filename == d.filename
                    and span[0] <= (at.lineno or 0) <= span[1])

    @functools.cached_property
    def specializations(self) -> list[dict[str, Any]]:
        """Symbols Dynamo specialised to a constant, each with the user line that did it."""
        return self.r.shape_specializations(self.run_id)

    def specialization(self, source: str, cids: Iterable[str | None], *,
                       lineless: bool = False) -> dict[str, Any] | None:
        """The first specialisation of `source` (L['x'].size()[0], or as the user spells it) in
        one of these compiles that names a user line (`lineless`: one that names none, torch's
        own code did it)."""
        want = {c for c in cids if c} | {first_attempt(c) for c in cids if c}
        for s in self.specializations:
            named = s.get("sources") or []
            if (s["compile_id"] in want and (source in named or source in map(
                    in_user_spelling, named))
                    and bool(s.get("filename") and s.get("lineno")) != lineless):
                return s
        return None

    def fn_name(self, cid: str | None) -> str | None:
        """The compiled function's name as the user knows it: its code object's, except for
        the wrapper torch compiles in its place (torch 2.13 compiles `torch.compile(module)`
        as `external_utils.inner` around the module's call): then the class of the object the
        user called, as capture saw it at the call (`Sequential.forward`); and for a library
        decorator's wrapper (`wrapped_func` around a model's forward), the function it wraps
        (`LlamaForCausalLM.forward`)."""
        row = self.code_row(cid)
        name = row.get("co_name") if row else None
        if name and not is_user_file(self.resolve(row.get("filename"))):
            call = self.call(cid)
            called = (call.get("objects") or {}).get("fn")
            if name in TORCH_WRAPPERS and isinstance(called, list) and called and \
                    isinstance(called[0], str):
                return f"{called[0].rsplit('.', 1)[-1]}.forward"
            if isinstance(call.get("wraps"), str) and call["wraps"]:
                return call["wraps"]
        return name

    def user_fn_name(self, cid: str | None) -> str | None:
        """fn_name as text a user can act on: a resume function is named by the function it
        resumes (a fix never says to decorate `torch_dynamo_resume_in_fn_at_18`, which
        exists only inside Dynamo)."""
        return resumed_function(self.fn_name(cid))

    def graph_nodes(self, cid: str | None) -> list[dict[str, Any]]:
        """The compile's post-grad nodes, each at its user frame (issue 29 §1): torch's graph
        text names a node's innermost frame, which for an op reached through library code is
        the library's; the first frame of the node's stored `stack` is the user line that
        called into it. `lib_frame`: torch's innermost frame, where it was replaced."""
        if cid not in self._graph_nodes:
            self._graph_nodes[cid] = [self.current_line(n) for n in _at_user_frames(
                self.r.graph_nodes(self.run_id, cid))]
        return self._graph_nodes[cid]

    def every_graph_nodes(self, cid: str | None) -> list[dict[str, Any]]:
        """graph_nodes of every post-grad graph of the compile, its forward's then its
        backward's (a fact about an op of the forward: a CUDA-graph skip logged there)."""
        key = ("every", cid)
        if key not in self._graph_nodes:
            self._graph_nodes[key] = [self.current_line(n) for n in _at_user_frames(
                self.r.every_graph_nodes(self.run_id, cid))]
        return self._graph_nodes[key]

    def current_line(self, node: dict[str, Any]) -> dict[str, Any]:
        """NODE at the line its code is on in the file as this run kept it: a graph served
        from the FX graph cache carries the stack traces of the run that wrote the entry, and
        an edit above the code since then moves it (probes40b ranking_margin_bf16_grad: line
        26, blank now, quoting a line of an earlier draft). The node's own text found once in
        the file is its line; where the file holds no code at the node's line (blank, a
        comment, past its end), the node has no line."""
        text = (node.get("line") or "").strip()
        lines = self.source_lines(node.get("filename")) if text and node.get("lineno") else None
        if not lines:
            return node
        lineno = node["lineno"]
        here = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        if here == text:
            return node
        found = [k + 1 for k, line in enumerate(lines) if line.strip() == text]
        if len(found) == 1:
            return {**node, "lineno": found[0], "line": lines[found[0] - 1].strip()}
        if not here or here.startswith("#"):
            return {**node, "filename": None, "lineno": None}
        return node

    def dynamo_nodes(self, cid: str | None) -> list[dict[str, Any]]:
        """The nodes of the graph Dynamo handed the backend, at their user lines: node
        evidence for a backend that writes no post-grad graph (eager, aot_eager)."""
        return self.r.dynamo_nodes(self.run_id, cid)

    def op_user_lines(self, cid: str | None, op: str) -> list[dict[str, Any]]:
        """User lines of the post-grad graph nodes calling aten.<op> (graph_nodes): the last
        graph's, else those of any graph of the compile (an op only its forward has), else
        Dynamo's nodes calling `torch.<op>(` (a compile served from the FX graph cache has
        no post-grad graph of this run; the cached one names the file of the program that
        wrote the entry)."""
        for nodes in (self.graph_nodes(cid), self.every_graph_nodes(cid)):
            lines = [{"filename": n["filename"], "lineno": n["lineno"], "line": n["line"]}
                     for n in nodes if n["op"] == op and n["filename"] and n["lineno"]
                     and not self.foreign(n["filename"]) and self.traced(n["filename"])]
            if lines:
                return lines
        calls = (f"torch.{op}(", f"torch.ops.aten.{op}(", f"torch.ops.aten.{op}.")
        return [{"filename": n["filename"], "lineno": n["lineno"], "line": n.get("line")}
                for n in self.dynamo_nodes(cid)
                if (n.get("call") or "").startswith(calls) and n.get("filename")
                and n.get("lineno")]

    def target_user_lines(self, cid: str | None, target: str | None) -> list[dict[str, Any]]:
        """User lines of the compile's graph nodes whose target is `target` (ns.op.overload,
        or ns.op for any overload): post-grad nodes, else Dynamo's (torch.ops.<target>(...));
        none for no target."""
        if not target:
            return []

        def mine(t: str) -> bool:
            t = t.removeprefix("torch.ops.")
            return t == target or t.rsplit(".", 1)[0] == target
        lines = [n for n in self.graph_nodes(cid) if mine(n.get("target") or "")]
        if not lines:
            lines = [n for n in self.dynamo_nodes(cid)
                     if mine((n.get("call") or "").split("(", 1)[0])]
        return [{"filename": n["filename"], "lineno": n["lineno"], "line": n.get("line")}
                for n in lines if n.get("filename") and n.get("lineno")]

    # -- facts several kinds read ------------------------------------------------------------
    @functools.cached_property
    def _injected(self) -> list[dict[str, Any]]:
        return self.r.injected_bugs(self.run_id)

    def injected_bugs(self, cid: str | None) -> dict[str, Any]:
        """Inductor's *_TESTING_ONLY bug injectors on for this compile (or any, for a failure
        no compile claims)."""
        mine = cid in self.compiles
        return {b["config"]: b["value"] for b in self._injected
                if not mine or b["compile_id"] == cid}

    @functools.cached_property
    def failures(self) -> list[dict[str, Any]]:
        """The run's failures, one per error: an exception another process of the run
        recorded as a compile's failure (a DataLoader worker's) and the program then re-raised
        (DataLoader's "Caught X in DataLoader worker process N", the worker's traceback in its
        text) is that failure, with the re-raise's first line kept as `reraised`."""
        rows = self.r.failures(self.run_id)
        compiled = [f for f in rows if f.get("compile_id")]
        out = []
        for f in rows:
            same = None if f.get("compile_id") else next(
                (c for c in compiled if _reraises(f, c)), None)
            if same is None:
                out.append(f)
                continue
            if same in out:
                out.remove(same)
            out.append({**same, "reraised": first_nonblank(f.get("message"))[:200]})
        return out

    def automatic_dynamic(self, cid: str | None) -> bool:
        """Whether automatic dynamic shapes were on for a compile (stored at ingest from its
        dynamo_config; on, torch's default, when the store does not say)."""
        on = (self.compiles.get(cid or "") or {}).get("automatic_dynamic")
        return on is None or bool(on)

    def dynamic_requested(self, cid: str | None) -> bool:
        """Whether the compile asked for dynamic shapes up front (torch.compile(dynamic=True):
        dynamo_config's assume_static_by_default off, stored at ingest)."""
        return (self.compiles.get(cid or "") or {}).get("assume_static") == 0

    def recorded_calls(self, kind: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(the facts, the user's call: {} where none) of each `compdiag:KIND` record capture
        kept of a call the user's code made (config_sets.py's, processes.py's)."""
        out = []
        for rec in self.r.records(self.run_id, kind=f"compdiag:{kind}", with_payload=False):
            data = (rec.get("metadata") or {}).get("compdiag") or {}
            out.append((data, data.get("call") if isinstance(data.get("call"), dict) else {}))
        return out

    @functools.cached_property
    def program_exceptions(self) -> list[dict[str, Any]]:
        return self.r.program_exceptions(self.run_id)

    @property
    def program_exception(self) -> dict[str, Any] | None:
        """The exception that ended the program (the last recorded), if the run kept one."""
        return self.program_exceptions[-1] if self.crashed and self.program_exceptions \
            else None

    @functools.cached_property
    def ending_failure(self) -> dict[str, Any] | None:
        """The failure that ended the run, if one did: the last failure of a run that exited
        non-zero, unless the program's own exception (raised outside compiled code) ended it
        or torch caught the failure itself (an Unsupported of a compile whose frame it
        skipped: the program went on). One fact for the failures kind (its fatal failure) and
        the program kind (which says how the run ended when no failure did)."""
        exc = self.program_exception
        if not (self.crashed and self.failures) or (exc is not None
                                                    and not exc.get("compiled")):
            return None
        last = self.failures[-1]
        caught = last.get("exc_type") == "Unsupported" and self.torch_skipped(
            last["compile_id"])
        return None if caught else last

    @functools.cached_property
    def recompile_limits(self) -> dict[Any, dict[str, Any]]:
        """frame (CompileId.frame_key) -> {compile_id, explanation, torch_message, ended} for
        each function Dynamo stopped compiling because it hit the recompile limit (a failure
        row of type Unsupported); `ended`: that failure ended the program."""
        limits: dict[Any, dict[str, Any]] = {}
        ended = self.ending_failure
        for f in self.failures:
            if is_recompile_limit(f):
                cid = f["compile_id"]
                limits[frame_of(cid)] = {"compile_id": cid,
                                         "explanation": (f.get("gb_explanation") or "")
                                         + eager_fallback_words(self, cid),
                                         "torch_message": f.get("torch_message")
                                         or f.get("message"),
                                         # the limit raised and ended the program
                                         # (fullgraph=True, fail_on_recompile_limit_hit)
                                         "ended": ended is not None and
                                         ended.get("id") == f.get("id")}
        return limits

    @functools.cached_property
    def _torch_skipped(self) -> set[str]:
        cids = {g["compile_id"] for g in self.r.graph_breaks(self.run_id)
                if g.get("frame_skipped") and g.get("compile_id")}
        return cids | {first_attempt(c) for c in cids}

    def torch_skipped(self, cid: str | None) -> bool:
        """Whether torch said, at a break of this compile, that it skipped the function and
        fell back to eager ("Failed to handle graph break gracefully"): the Unsupported it
        raised there was caught by torch and the program went on, so a failure of that
        compile is the break's consequence, never the end of the program. Without that line
        (fullgraph=True, error_on_graph_break, a backend's exception torch logs as WON'T
        CONVERT) the exception reached the program, whether the program caught it or not."""
        return bool(cid) and (cid in self._torch_skipped
                              or first_attempt(cid) in self._torch_skipped)

    @functools.cached_property
    def has_accuracy_rows(self) -> bool:
        return bool(self.r.accuracy(self.run_id))


def _at_user_frames(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Post-grad nodes each at its user frame: the first frame of its stored `stack` (the user
    line that called into a library op), torch's innermost one kept as `lib_frame`."""
    rows = []
    for n in nodes:
        stack = n.get("stack") or []
        if stack and isinstance(stack[0], dict) and stack[0].get("lineno"):
            n = {**n, "lib_frame": {k: n.get(k) for k in ("filename", "lineno", "line")},
                 **{k: stack[0].get(k) for k in ("filename", "lineno", "line")}}
        rows.append(n)
    return rows


def _reraises(escaped: dict[str, Any], compiled: dict[str, Any]) -> bool:
    """Whether an escaped failure re-raises a compile's: the same exception type at the same
    user line, with the compile failure's first line inside the escaped one's text."""
    first = first_nonblank(compiled.get("message"))
    text = f"{escaped.get('torch_message') or ''}\n{escaped.get('traceback') or ''}"
    return (bool(first) and first in text
            and escaped.get("exc_type") == compiled.get("exc_type")
            and (escaped.get("filename"), escaped.get("lineno"))
            == (compiled.get("filename"), compiled.get("lineno")))


def exception_frames(exc: dict[str, Any] | None) -> tuple[dict | None, dict | None]:
    """(the user's frame it surfaced at, the frame it was raised in) of a program exception."""
    frames = (exc or {}).get("frames") or []
    user = [f for f in frames if is_user_file(f.get("filename"))]
    return (user[-1] if user else None), (frames[-1] if frames else None)


def is_recompile_limit(failure: dict[str, Any]) -> bool:
    """Dynamo gave up on the function at the recompile limit (a fact stored at ingest)."""
    return bool(failure.get("recompile_limit"))
