"""Turns structured-trace records into store rows: the one normaliser that live capture and
TORCH_TRACE import share, so a run and an import of its own log agree."""

from __future__ import annotations

import json
import linecache
from typing import Any

from compdiag.formats import fast_json
from compdiag.formats.compile_id import CompileId, first_attempt
from compdiag.formats.user_code import is_user_file
from compdiag.ingest import ddp as D
from compdiag.ingest.aliased_inputs import AliasedInputs
from compdiag.ingest import parsers as P
from compdiag.ingest.inductor_records import InductorRecords
from compdiag.ingest.cached_paths import fresh_frames, fresh_paths
from compdiag.ingest.graph_calls import dynamo_node_rows, generated_node, graph_calls, refused_node
from compdiag.ingest.generations import Generations, starts_compile
from compdiag.ingest.own_records import OwnRecords
from compdiag.ingest.unbacked_symbols import UnbackedSymbols
from compdiag.ingest.timeline import Timeline, event_args
from compdiag.ingest.traced_stacks import with_traced
from compdiag.ingest.parse_text import names_codegen_frame
from compdiag.ingest.specializer import torch_specializer
from compdiag.store.schema import BACKWARD_FAILURE_NOTE
from compdiag.store.writer import Writer

_NO_HANDLER = object()


class Ingestor(OwnRecords, InductorRecords, UnbackedSymbols, D.DistributedRows, AliasedInputs):
    """Feeds one run's records into a Writer; keeps per-run state (interned file names,
    compile rows in progress). Every method is defensive: unknown shapes are kept raw."""

    def __init__(self, writer: Writer, run_id: int) -> None:
        self.w = writer
        self.run_id = run_id
        self.seq = 0
        self.strings: dict[int, str] = {}
        self.compiles: dict[str, dict[str, Any]] = {}
        self.post_grad: dict[str | None, dict[str, str]] = {}  # cid -> node -> 'file:line  code'
        # cid -> innermost frame -> the user's part of the stack the post-grad graph cuts
        # (capture/node_stacks.py), for the compiles whose post-grad graphs are still to come
        self.node_stacks: dict[str | None, dict[tuple[str, int], list[dict[str, Any]]]] = {}
        self.counts = {"compiles": 0, "graph_breaks": 0, "recompiles": 0, "failures": 0,
                       "kernels": 0, "cudagraph_skips": 0}
        self.torch_version: str | None = None
        self._seen_recompiles: set[tuple[str | None, str]] = set()
        self.metadata_guards: dict[str, str] = {}  # ___check_metadata_<id>_c0/1 -> its source
        self._seen_cudagraphs: set[tuple[str | None, bool]] = set()
        self._reason_events: dict[str | None, bool] = {}  # cid -> its event has a user stack
        self.output_code_files: dict[str, str | None] = {}
        # Each output code file's wrapper lines that call a kernel (file -> line -> {kernel,
        # kernel_compile_id, kernel_frames}): a native crash whose Python stack ends on such a
        # line died in that kernel (own_records._running_kernel).
        self.wrapper_calls: dict[str, dict[int, dict[str, Any]]] = {}
        # compile id -> the forward call anomaly mode's warning named (a backward failing)
        self.forward_ops: dict[str | None, list[dict[str, Any]]] = {}
        # The kernels (name, source, user lines) of the compile whose output code came last, to
        # place a kernel-compile error: it fails right after its output code is logged (a lazy
        # backward logs its own under the forward's id). One compile's worth, not the run's:
        # this lives in the user's process, and the sources are in the store already.
        self.kernel_sources: dict[str | None, list[tuple[str, str, list[str]]]] = {}
        # Dynamo's error text per compile: its "from user code:" frames are the user stack,
        # where compilation_metrics keeps only the innermost frame (often torch's own).
        self.dynamo_errors: dict[str | None, str] = {}
        # The runtime assertions the traced graphs check (message -> the user frame of its
        # node), per compile: small, so the run's, not one compile's.
        self.assertions: dict[str | None, dict[str, dict[str, Any]]] = {}
        self.graph_calls: dict[str | None, list[dict[str, Any]]] = {}
        self.fresh: dict[str | None, Any] = {}  # cid -> Dynamo's frames (ingest/cached_paths.py)
        # per compile, the last exception a fake-tensor run raised (capture/exception_origin.py)
        self.fake_runs: dict[str | None, dict[str, Any]] = {}
        # the user frames of the node Inductor was lowering when it failed, by compile
        # (capture/lowering_node.py): a failure's op line where its text names none
        self.lowering_nodes: dict[str | None, list[dict[str, Any]]] = {}
        # the higher-order operator the next graph break of a compile happened inside
        # (capture/break_hop.py), the frames Dynamo was tracing then (capture/break_stack.py)
        self.break_hops: dict[str | None, str] = {}
        self.break_stacks: dict[str | None, list[dict[str, Any]] | None] = {}
        self.lowering_where: dict[str | None, str | None] = {}
        self.last_compiled: str | None = None
        self.last_recorded: str | None = None  # the compile a CUDA graph was recorded for last
        # (exception type, stage, first line) of each compile failure compilation_metrics
        # reported: the exception that escapes the program may be one of them, re-raised by
        # the compiled function's wrapper with the compile's frames cut.
        self.compile_failures: list[tuple[str, str, str]] = []
        # cid -> the scheduler's partition summary: with a CUDA-graphed partition, the ops it
        # leaves out split the graph (recorded as splits), they do not skip it.
        self.partitioned: dict[str | None, dict[str, int]] = {}
        self.timeline = Timeline()
        self.ddp_children: dict[str | None, int] = {}  # cid -> DDPOptimizer pieces seen
        # torch counts compiles from 0/0 again after torch._dynamo.reset(): every id torch
        # names is stored with the generation it belongs to (ingest/generations.py).
        self.gens = Generations()
        self._generation = 0  # the last generation a dynamo_resets row was written for
        self._sched_seen: dict[tuple[str | None, str], dict[str, Any]] = {}
        self._sched_lines: dict[tuple[str | None, str], str] = {}  # its last entry's text
        self._handlers: dict[str, Any] = {}  # record kind -> its _on_ method (or None)
        self.exit_code: int | None = None  # a program_end record's (an import has no other)

    # -- entry points -----------------------------------------------------------------------
    def record(self, metadata: dict[str, Any], payload: str | None,
               raw: str | None = None) -> None:
        """One structured-trace record; `raw` is its envelope's JSON text when the caller has
        it verbatim (an imported log), kept as is instead of encoding `metadata` again."""
        kind = P.record_kind(metadata)
        if kind == "compdiag" and self._own_record(metadata, payload, raw):
            return
        cid = self.gens.qualify(P.compile_id_of(metadata), starts=starts_compile(kind, payload),
                                ends=kind == "compilation_metrics")
        if self.gens.generation != self._generation:  # a reset seen only as a repeated id
            self._reset_row(None)
        self.seq += 1
        self.w.insert("records", run_id=self.run_id, seq=self.seq, kind=kind, compile_id=cid,
                      metadata=raw if raw is not None else json.dumps(metadata, default=repr),
                      payload=payload)
        if cid is not None and cid not in self.compiles:
            # Every compile id torch names is a compile (tlparse counts them so too), also one
            # whose compilation_metrics never came: a restart attempt ('0/0_1' has no
            # dynamo_start) cut off by a crash, a SIGKILL or a truncated log.
            self._write_compile(self._compile_row(cid, metadata))
        handler = self._handlers.get(kind, _NO_HANDLER)
        if handler is _NO_HANDLER:  # looked up once per kind (a capture asks per record)
            handler = getattr(self, "_on_" + kind.replace(":", "_").replace(".", "_"), None)
            self._handlers[kind] = handler
        if handler is None and kind.startswith("artifact:"):
            cache = P.cache_artifact(kind.split(":", 1)[1])
            if cache is not None:
                self._cache_lookup(cid, *cache, payload)
            return
        if handler is not None:
            if cid in self.fresh and kind != "dynamo_output_graph":  # a cache's stale paths
                payload = fresh_paths(payload, self.fresh[cid])
            handler(metadata.get(kind, metadata.get(kind.split(":")[0])), cid, payload, metadata)

    def _reset_row(self, payload: str | None) -> None:
        """The generation a reset began, with the user line that called it (capture's record)."""
        try:
            at = fast_json.loads(payload) if payload else None
        except ValueError:
            at = None
        at = at if isinstance(at, dict) else {}
        self._generation = self.gens.generation
        self.w.insert("dynamo_resets", run_id=self.run_id, seq=self.seq,
                      generation=self.gens.generation, filename=at.get("filename"),
                      lineno=at.get("lineno"), line=at.get("line"))

    def flush(self) -> None:
        for row in self.compiles.values():
            self._write_compile(row)

    # -- handlers ---------------------------------------------------------------------------
    def _on_str(self, value: Any, cid: str | None, payload: str | None, md: dict) -> None:
        if isinstance(value, (list, tuple)) and len(value) == 2 and isinstance(value[1], int):
            self.strings[value[1]] = str(value[0])

    def _compile_row(self, cid: str, md: dict) -> dict[str, Any]:
        row = self.compiles.get(cid)
        if row is None:
            parts = CompileId.of(cid) or CompileId(md.get("frame_id"),
                                                   md.get("frame_compile_id"))
            row = {"compile_id": cid, "frame": parts.frame,
                   "frame_compile": parts.frame_compile, "attempt": parts.attempt,
                   "generation": parts.generation, "compiled_autograd": parts.compiled_autograd,
                   "co_name": None, "filename": None, "lineno": None, "status": "started",
                   "stage_times": {}, "metrics": None, "call_site": None,
                   "automatic_dynamic": None, "guard_count": None, "assume_static": None}
            first = self.compiles.get(first_attempt(cid)) if parts.attempt else None
            if first is not None:  # a restart attempt: same frame, same code location
                for key in ("co_name", "filename", "lineno", "call_site"):
                    row[key] = first[key]
            self.compiles[cid] = row
            self.counts["compiles"] += 1
        return row

    def _write_compile(self, row: dict[str, Any]) -> None:
        cols = dict(frame=row["frame"], frame_compile=row["frame_compile"],
                    attempt=row["attempt"], generation=row["generation"],
                    compiled_autograd=row["compiled_autograd"], co_name=row["co_name"],
                    filename=row["filename"], lineno=row["lineno"], status=row["status"],
                    stage_times=row["stage_times"], automatic_dynamic=row["automatic_dynamic"],
                    guard_count=row["guard_count"], assume_static=row["assume_static"])
        if row.get("metrics_written"):
            self.w.update("compiles", {"run_id": self.run_id, "compile_id": row["compile_id"]},
                          **cols)
            return
        self.w.upsert("compiles", run_id=self.run_id, compile_id=row["compile_id"], **cols,
                      metrics=row["metrics"])
        if row["metrics"] is not None:
            # Written once: every compile's row stays in memory for the run (a later record
            # may change its status) and its metrics were the bulk of it (import streams).
            row["metrics"], row["metrics_written"] = None, True

    def _frame(self, f: dict[str, Any]) -> dict[str, Any]:
        fn = f.get("filename")
        if isinstance(fn, int):
            fn = self.strings.get(fn, f"<file {fn}>")
        return {"filename": fn, "lineno": f.get("line"), "name": f.get("name"),
                "line": f.get("loc")}

    def _on_dynamo_start(self, value: Any, cid: str | None, payload: str | None,
                         md: dict) -> None:
        if cid is None:
            return
        row = self._compile_row(cid, md)
        stack = value.get("stack") if isinstance(value, dict) else None
        if isinstance(stack, list) and stack:
            frames = [self._frame(f) for f in stack if isinstance(f, dict)]
            if frames:
                me = frames[-1]
                row["co_name"], row["filename"], row["lineno"] = (me["name"], me["filename"],
                                                                  me["lineno"])
                # The innermost caller in the user's own code; the compiled function itself
                # when every caller is python's or compdiag's (runpy, the capture's child).
                row["call_site"] = next((f for f in reversed(frames[:-1])
                                         if is_user_file(f["filename"])), me)
            self.w.upsert("compile_stacks", run_id=self.run_id, compile_id=cid,
                          frames=[{"filename": f["filename"], "lineno": f["lineno"],
                                   "line": f["line"] or None, "name": f["name"]}
                                  for f in frames])
        self._write_compile(row)

    def _on_symbolic_shape_specialization(self, value: Any, cid: str | None,
                                          payload: str | None, md: dict) -> None:
        if not isinstance(value, dict):
            return
        frames = [self._frame(f) for f in value.get("user_stack") or [] if isinstance(f, dict)]
        user = next((f for f in reversed(frames) if is_user_file(f["filename"])), None) or {}
        if not user and cid is None:
            # no compile: torch.export's non-strict trace runs the program's Python itself,
            # so the live stack holds the line that specialised (probes44c
            # export_batch_reshape_specialized: a reshape to a fixed batch size)
            live = [self._frame(f) for f in value.get("stack") or [] if isinstance(f, dict)]
            user = next((f for f in reversed(live) if is_user_file(f["filename"])), None) or {}
        sources = value.get("sources")
        self.w.insert("shape_specializations", run_id=self.run_id, compile_id=cid, seq=self.seq,
                      symbol=str(value.get("symbol")) if value.get("symbol") else None,
                      sources=[str(x) for x in sources] if isinstance(sources, list) else [],
                      value=None if value.get("value") is None else str(value["value"]),
                      reason=value.get("reason"), filename=user.get("filename"),
                      lineno=user.get("lineno"), line=user.get("line") or None, user_stack=frames,
                      torch_frame=torch_specializer(self._frame(f) for f in value.get("stack")
                                                    or [] if isinstance(f, dict)))

    def _on_compilation_metrics(self, value: Any, cid: str | None, payload: str | None,
                                md: dict) -> None:
        named = cid is None  # the id the record names, not the envelope's (already read)
        cid = _metrics_cid(value, cid)
        if named:
            cid = self.gens.qualify(cid, ends=True)
        if cid is None:
            return
        row = self._compile_row(cid, md)
        row["metrics"], row["metrics_written"] = value, False
        row["co_name"] = value.get("co_name") or row["co_name"]
        row["filename"] = value.get("co_filename") or row["filename"]
        row["lineno"] = value.get("co_firstlineno") or row["lineno"]
        row["stage_times"] = P.stage_times(value)
        row.update(P.metrics_facts(value))
        self.torch_version = value.get("pytorch_version") or self.torch_version
        if value.get("fail_type"):
            row["status"] = "failed"
            self._failure_from_metrics(cid, row, value)
        elif row["status"] != "graph_break":
            ops = value.get("graph_op_count")
            # "empty": no graph (docs/json.md). A frame Dynamo rewrote without one (a hook
            # registered, a side effect replayed, the partial graph before a break that held
            # no op) has guarded code all the same; what says a graph went to the backend
            # is its dynamo_output_graph record (a graph of no calls with outputs still has
            # one). Before, such a compile was "ok", a graph in show and in the divergence
            # kind's count (PyTorch's test_hooks.py and test_ctx_manager.py: 1 graph shown
            # where torch's CompileCounter counted 0).
            # torch leaves graph_op_count out (None) where Dynamo kept no output graph at all
            no_graph = not value.get("has_guarded_code") or cid not in self.graph_calls
            rewritten = ops is None and value.get("has_guarded_code") is True and \
                cid not in self.graph_calls
            row["status"] = "empty" if (ops == 0 and no_graph) or rewritten else "ok"
        reason = value.get("recompile_reason")
        if reason:
            reasons = reason if isinstance(reason, list) else [reason]
            if reasons:
                self._recompile_event(cid, "metrics", str(reasons[0]))
            for r in reasons:
                self._recompile(cid, str(r))
        for config, setting in P.injected_bugs(value).items():
            self.w.insert("injected_bugs", run_id=self.run_id, compile_id=cid, config=config,
                          value=json.dumps(setting))
        for cache, result, key in P.remote_cache_lookups(value):
            self.w.insert("cache_events", run_id=self.run_id, compile_id=cid, cache=cache,
                          hit=result == "hit", key=key, result=result, seq=self.seq)
        skip = value.get("cudagraph_skip_reason")
        if skip:
            self._cudagraph(cid, False, str(skip))
        if value.get("inductor_cumulative_compile_time_us"):
            self.last_compiled = cid
        self._write_compile(row)

    def _on_bwd_compilation_metrics(self, value: Any, cid: str | None, payload: str | None,
                                    md: dict) -> None:
        """AOTAutograd compiles a backward graph lazily, at the first backward(); a failure
        there is reported here, under the forward's compile id, not in compilation_metrics.
        Without it the failure was only the exception escaping `loss.backward()`: no compile
        id, and that line as the user's."""
        cid = self.gens.qualify(_metrics_cid(value, cid))
        if cid is None or not value.get("fail_type"):
            return
        row = self._compile_row(cid, md)
        # No op line found: the compiled function's def, not where the forward was called.
        where = ({"filename": row["filename"], "lineno": row["lineno"], "line": None}
                 if row.get("filename") else row.get("call_site"))
        self._failure_from_metrics(cid, {"call_site": where}, value,
                                   suffix=BACKWARD_FAILURE_NOTE)

    def _failure_from_metrics(self, cid: str, row: dict[str, Any], m: dict[str, Any],
                              suffix: str | None = None) -> None:
        tb = m.get("exception_stack_trace")
        if isinstance(tb, list):
            tb = "\n".join(str(t) for t in tb)
        reason = str(m.get("fail_reason") or "")
        err = self.dynamo_errors.pop(cid, "")
        at = err.find("from user code:")
        if at >= 0:
            reason += "\n\n" + err[at:at + 4000]
        stage = P.classify_stage(m.get("fail_type"), reason, tb)
        self.compile_failures.append((str(m.get("fail_type")), stage, P.first_line(reason)))
        frame = {"filename": m.get("fail_user_frame_filename"),
                 "lineno": m.get("fail_user_frame_lineno"), "line": None}
        if not frame["filename"] and row.get("call_site"):
            frame = dict(row["call_site"])
        message = _failure_message(str(m.get("fail_type")), reason)
        self.failure(cid, stage=stage, exc_type=str(m.get("fail_type")),
                     message=f"{message} ({suffix})" if suffix else message,
                     filename=frame.get("filename"), lineno=frame.get("lineno"),
                     line=frame.get("line"), traceback=(tb or "") + "\n" + reason[:20000],
                     torch_message=str(m.get("fail_reason") or "")[:20000] or None)

    def failure(self, cid: str | None, *, stage: str, exc_type: str | None, message: str,
                filename: str | None, lineno: int | None, line: str | None = None,
                traceback: str | None = None, torch_message: str | None = None) -> None:
        """Every failure, from the trace or an exception that escaped the program. When its
        error carries the failing FX node's stack trace, the op's own line is the user frame
        (the one the caller found is only the compiled function's). Codegen and kernel-compile
        errors carry none; the op or kernel they name leads to the same lines."""
        cid = self.gens.qualify(cid)
        op = [f for f in P.node_trace_frames(traceback) if is_user_file(f.get("filename"))]
        if not op:  # anomaly mode's forward call of the backward that failed (own_records)
            op = self.forward_ops.pop(cid, None) or []
        if not op:
            op = self._assertion_frames(cid, torch_message or message)
        if not op:
            op, where = self._generated_code_frames(cid, traceback,
                                                    whole_graph=stage == "kernel_compile")
            if where and where not in message:
                message = f"{message} ({where})"
        if not op and stage != "runtime":  # the node Inductor was lowering, or the one a
            op = self.lowering_nodes.pop(cid, None) or []  # failing compile's frames held
            where = self.lowering_where.pop(cid, None)
            if op and where and where not in message:
                message = f"{message} ({where})"
            if op and stage == "inductor_lowering" and names_codegen_frame(where):
                stage = "inductor_codegen"  # torch's frame that raised is codegen's (46c)
        if not op:  # raised in the Dynamo graph's own code (an eager backend): its node's
            at = generated_node(traceback, self.graph_calls)
            op = [at["frame"]] if at and is_user_file(at["frame"].get("filename")) else []
        if op:
            filename, lineno, line = op[-1]["filename"], op[-1]["lineno"], op[-1]["line"]
        if line is None and filename and lineno:
            line = linecache.getline(filename, int(lineno)).strip() or None
        self.counts["failures"] += 1
        facts = self.fake_run_origin(cid, P.failure_facts(
            exc_type, message, traceback, torch_message),
            "\n".join(x for x in (message, torch_message, traceback) if x))
        deeper = facts.pop("origin_frame", None)
        if deeper:  # the program's code the raising kernel ran (its fake implementation)
            filename, lineno, line = deeper["filename"], deeper["lineno"], deeper.get("line")
        self.w.insert("failures", run_id=self.run_id, compile_id=cid, stage=stage,
                      exc_type=exc_type, message=message, filename=filename, lineno=lineno,
                      line=line, traceback=traceback, torch_message=torch_message, **facts)

    def _assertion_frames(self, cid: str | None, message: str | None
                          ) -> list[dict[str, Any]]:
        """The user frame of the traced graph's runtime assertion that raised `message` (a
        deferred `torch._check`, a size check), the failure's compile's first, then any (a
        failure at run time may not know its compile)."""
        first = [self.assertions.get(cid) or {}] if cid in self.assertions else []
        for held in [*first, *reversed(list(self.assertions.values()))]:
            frame = held.get((message or "").strip())
            if frame and is_user_file(frame.get("filename")):
                return [frame]
        return []

    def _traced_graph(self, value: Any, cid: str | None, payload: str | None,
                      md: dict) -> None:
        found = P.assertion_frames(payload)
        if found:
            self.assertions.setdefault(cid, {}).update(found)

    _on_aot_inference_graph = _on_aot_forward_graph = _on_aot_backward_graph = _traced_graph

    def _on_dynamo_output_graph(self, value: Any, cid: str | None, payload: str | None,
                                md: dict) -> None:
        self._traced_graph(value, cid, payload, md)
        # the calls a cache bypass may name, with their user lines (ingest/graph_calls.py)
        self.graph_calls[cid] = graph_calls(payload)
        self.fresh[cid] = fresh_frames([c["frame"] for c in self.graph_calls[cid]])
        # every node at its user line: node evidence for every backend (issue 29 §1)
        for row in dynamo_node_rows(self.graph_calls[cid]):
            self.w.insert("dynamo_nodes", run_id=self.run_id, compile_id=cid, seq=self.seq,
                          **row)

    def _on_artifact_dynamo_graph_break_reason(self, value: Any, cid: str | None,
                                               payload: str | None, md: dict) -> None:
        if not payload:
            return
        gb = P.parse_graph_break(payload)
        # user code the backend ran under the break's line (not an allow_in_graph function,
        # whose kind is about the marked call)
        deeper = P.cause_user_frame(payload) if "Backend compiler exception" in \
            str(gb["gb_type"]) else None
        if deeper is not None:
            gb.update(filename=deeper["filename"], lineno=deeper["lineno"], line=deeper["line"])
        if gb["line"] is None and gb["filename"] and gb["lineno"]:
            gb["line"] = linecache.getline(gb["filename"], gb["lineno"]).strip() or None
        more = P.graph_break_details(payload)
        self.counts["graph_breaks"] += 1
        self.w.insert("graph_breaks", run_id=self.run_id, compile_id=cid,
                      reason=gb["gb_type"] or gb["reason"][:500], gb_type=gb["gb_type"],
                      gb_code=gb["gb_code"], filename=gb["filename"], lineno=gb["lineno"],
                      line=gb["line"], hints=gb["hints"], explanation=gb["explanation"],
                      debug_context=more["debug_context"], gb_type_inner=more["gb_type_inner"],
                      user_stack=with_traced(more["user_stack"], self.break_stacks.pop(cid, None)),
                      frame_skipped=more["frame_skipped"],
                      torch_message=payload[:20000], lib_frame=P.library_frame(payload),
                      root_cause=more["root_cause"], root_value=more["root_value"],
                      skip_why=more["skip_why"], hop=self.break_hops.pop(cid, None))
        if cid is not None:
            row = self._compile_row(cid, md)
            if row["status"] in ("started", "ok"):
                row["status"] = "graph_break"
            self._write_compile(row)

    def _on_artifact_recompile_reasons(self, value: Any, cid: str | None, payload: str | None,
                                       md: dict) -> None:
        for reason in P.parse_recompile_reasons(payload):
            self._recompile(cid, reason)

    def _recompile(self, cid: str | None, reason: str) -> None:
        text = P._CID_PREFIX.sub("", reason).strip()
        # A restart attempt (0/1_1) repeats the reason of its first try (0/1).
        key = (first_attempt(cid), text)
        if key in self._seen_recompiles:
            return
        self._seen_recompiles.add(key)
        self.counts["recompiles"] += 1
        self.w.insert("recompiles", run_id=self.run_id, compile_id=cid, reason=text,
                      guard=P.guard_of(text))
        # Without compilation_metrics (a partial log) the rows are all there is: the first
        # with a user stack, else the first that is a guard and not a stack line.
        has_stack = "User stack trace:" in text
        had = self._reason_events.get(cid)
        first = had is None and (has_stack or not text.startswith(("User stack trace", "File ")))
        if cid is not None and (first or (had is False and has_stack)):
            self._reason_events[cid] = has_stack
            self._recompile_event(cid, "reasons", text)

    def _recompile_event(self, cid: str | None, source: str, reason: str) -> None:
        """The guard that failed for one recompiled compile id, classified once, here."""
        if cid is None:
            return
        text, frames = P.split_recompile(reason)
        g = P.classify_guard(text, self.metadata_guards)
        loc = P.guard_location(text) or {}
        self.w.upsert("recompile_events", run_id=self.run_id, compile_id=cid, source=source,
                      seq=self.seq, failed_guard=text, user_stack=frames,
                      category=g["category"], guarded=g["source"], tensor=g.get("tensor"),
                      before=g["before"], after=g["after"], loc_filename=loc.get("filename"),
                      loc_lineno=loc.get("lineno"), loc_line=loc.get("line"))

    def _on_dynamo_cpp_guards_str(self, value: Any, cid: str | None, payload: str | None,
                                  md: dict) -> None:
        for guarded, setting in P.guard_values(payload):
            self.w.insert("guard_values", run_id=self.run_id, compile_id=cid, seq=self.seq,
                          guarded=guarded, value=setting)
        self.metadata_guards.update(P.metadata_guard_sources(payload))
        for source, n in P.guard_sources(payload).items():
            self.w.insert("guard_sources", run_id=self.run_id, compile_id=cid, seq=self.seq,
                          source=source, guards=n)

    def _cache_lookup(self, cid: str | None, cache: str, result: str,
                      payload: str | None) -> None:
        """One cache artifact (fx_graph_cache_miss, aotautograd_cache_hit, ...): the lookup
        and its key's components, which explain a miss against an earlier compile."""
        info = P.cache_lookup(payload)
        node = (refused_node(self.graph_calls.get(cid) or [], info["reason"])
                if result == "bypass" else None)
        self.w.insert("cache_events", run_id=self.run_id, compile_id=cid, cache=cache,
                      hit=result == "hit", key=info["key"], result=result,
                      reason=info["reason"], detail=info["detail"], seq=self.seq,
                      time_saved_s=info["time_saved_s"],
                      node=json.dumps(node) if node else None)
        if info["components"]:
            # one row for the lookup (a JSON list), not one per component: store/schema.py
            self.w.insert("cache_keys", run_id=self.run_id, seq=self.seq,
                          components=info["components_json"])

    def _on_chromium_event(self, value: Any, cid: str | None, payload: str | None,
                           md: dict) -> None:
        """A dynamo_timed region's begin or end, or an instant: closed regions are kept per
        compile id, and a compile's stage times are rewritten whenever one of its outermost
        regions closes (a killed process keeps what closed before it died)."""
        try:
            ev = fast_json.loads(payload) if payload else None
        except ValueError:
            return
        if not isinstance(ev, dict):
            return
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        named = args.get("compile_id")
        if isinstance(named, str):  # torch's id without its generation
            named = self.gens.qualify(named, starts=cid is None and
                                      starts_compile("chromium_event", payload))
        elif cid is not None:
            named = cid
        if named is not None:
            ev = {**ev, "args": {**args, "compile_id": named}}
        for iv in self.timeline.event(ev):
            if iv.compile_id is None:
                continue
            self.w.insert("compile_events", run_id=self.run_id, compile_id=iv.compile_id,
                          seq=self.seq, name=iv.name, cat=iv.cat, start_us=iv.start_us,
                          dur_us=iv.dur_us, depth=iv.depth, stage=iv.stage,
                          args=event_args(iv.args, iv.compile_id))
            if iv.depth == 0 and iv.dur_us is not None:
                for clock in iv.clocks:  # the compile ids whose time this region held
                    if clock is None:
                        continue
                    for stage, us in self.timeline.clocks[clock].stages.items():
                        self.w.upsert("compile_stages", run_id=self.run_id,
                                      compile_id=clock, stage=stage, seconds=us / 1e6)

    def _on_artifact_dynamo_error(self, value: Any, cid: str | None, payload: str | None,
                                  md: dict) -> None:
        if payload:
            self.dynamo_errors[cid] = payload

    # -- compdiag's own events --------------------------------------------------------------
    def autotune_choice(self, cid: str | None, op: str, choice: str, detail: str) -> None:
        self.w.insert("autotune", run_id=self.run_id, compile_id=self.gens.qualify(cid), op=op,
                      choice=choice, detail=detail)

    # -- the rest of what capture's taps write (they write only through the ingestor) --------
    def warn(self, message: str) -> None:
        self.w.warn(self.run_id, message)

    def tensor(self, cid: str | None, role: str, *, dtype: str, shape: list[int],
               stride: list[int], data: bytes) -> None:
        """One tensor of a failing graph, as raw bytes (formats/failure_graph.py)."""
        self.w.insert("tensors", run_id=self.run_id, compile_id=self.gens.qualify(cid),
                      role=role, dtype=dtype, shape=shape, stride=stride, data=data)

    def perf_graph(self, **cols: Any) -> None:
        if "compile_id" in cols:
            cols["compile_id"] = self.gens.qualify(cols["compile_id"])
        self.w.upsert("perf_graphs", run_id=self.run_id, **cols)

    def perf_call(self, **cols: Any) -> None:
        self.w.upsert("perf_calls", run_id=self.run_id, **cols)

    def perf_run(self, **cols: Any) -> None:
        self.w.upsert("perf_runs", run_id=self.run_id, **cols)

    def update_run(self, **cols: Any) -> None:
        self.w.update_run(self.run_id, **cols)

    def commit(self) -> None:
        """Write what is queued now, not at the next flush tick (the process may die)."""
        self.w.flush()


def _metrics_cid(value: Any, cid: str | None) -> str | None:
    """A metrics record's compile id: the envelope's, else the one the record names; None for
    a record that is not a dict (kept as a raw record, not read)."""
    if not isinstance(value, dict):
        return None
    if cid is None and isinstance(value.get("compile_id"), str):
        return value["compile_id"]
    return cid


def _failure_message(exc_type: str, reason: str) -> str:
    """One readable line: the innermost 'Type: message' Dynamo wrapped, without the g++ dump
    (nor, for an exception with no words, the first line of the user frames Dynamo appends)."""
    first = P.first_line(P.without_trailer(reason), 400) or exc_type
    cause = P.import_failure_cause(reason)
    if cause and cause not in first:
        first = f"{first}: {cause}"
    target = P.lowering_target(reason)
    return f"{first} (lowering {target})" if target and target not in first else first
