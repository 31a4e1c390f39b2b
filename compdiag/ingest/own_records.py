"""compdiag's own records: what capture saw that torch does not emit (artifact-logger
lines, bytecode, the program's exception, failures at run time, accuracy checks, how the
program ended), each kept as a `compdiag:KIND` record whose facts are derived from it here,
live, again at reindex, and at import of a trace log `compdiag report` wrote (which carries
these records with their record kind and compile id: importer/trace_writer.py).

A mixin of the Ingestor (its writer `w`, `run_id`, `seq` and per-run state)."""

from __future__ import annotations

import json
from typing import Any

from compdiag.formats.user_code import is_user_file
from compdiag.ingest import ddp as D
from compdiag.ingest import parsers as P
from compdiag.ingest import traced_stacks
from compdiag.ingest.endings import program_end_row
from compdiag.ingest.generations import RESET_KIND
from compdiag.ingest.graph_calls import called_frame, generated_node
from compdiag.store.schema import NOT_COMPARED

FAKE_RUN_KIND = "fake_run_error"  # capture/exception_origin.py's record
FRAME_SKIPPED = "Dynamo skipped the frame"  # a frame_skip record's graph-break type
LOWERING_NODE = "lowering_node"  # capture/lowering_node.py's record
BREAK_HOP = "break_hop"  # capture/break_hop.py's record
BREAK_STACK = "break_stack"  # capture/break_stack.py's record


def failing_node_words(data: dict[str, Any]) -> str | None:
    """Where in torch a compile failed and on which node, from the lowering-node record's
    metadata ({node, target, check, pattern}): "in pattern mul_softmax_pattern's check
    _other_is_broadcasted_in_dim (torch/_inductor/fx_passes/joint_graph.py:1021), on node sub
    (aten.sub.Tensor)"; None for the lowering's own record (the failure's text names it)."""
    if data.get("from") == "torch_log" and data.get("message"):
        return f"torch logged: {str(data['message']).strip()}"
    if data.get("from") != "traceback" or not data.get("node"):
        return None
    check, pattern = data.get("check"), data.get("pattern")
    where = (f"in pattern {pattern}'s check {check}" if pattern and check else
             f"in pattern {pattern}" if pattern else f"in {check}" if check else "")
    on = f"on node {data['node']}" + (f" ({data['target']})" if data.get("target") else "")
    lines = data.get("match_lines")
    if isinstance(lines, list) and len(lines) > 1:  # the construct the pattern matched
        on += " of a match at lines " + ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
    return f"{where}, {on}" if where else on
FRAME_SKIP = "frame_skip"  # capture/frame_skips.py's record
# torch's skip reason for a frame of its own code: kept where it was the compiled entry itself
SKIPFILES = "frame is in the Dynamo skipfiles list"
FAILURE_FIELDS = ("stage", "exc_type", "message", "filename", "lineno", "line", "traceback",
                  "torch_message")


class OwnRecords:
    def event(self, kind: str, compile_id: str | None, data: dict[str, Any],
              payload: str | None = None) -> None:
        """compdiag's own records (artifact-logger lines, bytecode, failures at runtime)."""
        compile_id = self.gens.qualify(compile_id)
        md = {"compdiag": {"kind": kind, **data}}
        self.seq += 1
        self.w.insert("records", run_id=self.run_id, seq=self.seq, kind="compdiag:" + kind,
                      compile_id=compile_id, metadata=json.dumps(md, default=repr),
                      payload=payload)
        self.event_facts(kind, compile_id, payload, data)

    def _own_record(self, metadata: dict[str, Any], payload: str | None,
                    raw: str | None) -> bool:
        """One of compdiag's own records read back from a trace log (`compdiag report` writes
        them, importer/trace_writer.py adds their record kind and compile id): stored as
        capture stored it, its facts derived as capture derived them."""
        own = metadata.get("compdiag")
        kind = own.get("record_kind") if isinstance(own, dict) else None
        if not isinstance(kind, str) or not kind.startswith("compdiag:"):
            return False
        cid = self.gens.qualify(own.get("compile_id") if isinstance(own.get("compile_id"), str)
                                else None)
        md = {"compdiag": {k: v for k, v in own.items() if k not in ("record_kind", "compile_id")}}
        self.seq += 1
        self.w.insert("records", run_id=self.run_id, seq=self.seq, kind=kind, compile_id=cid,
                      metadata=json.dumps(md, default=repr), payload=payload)
        self.event_facts(kind.split(":", 1)[1], cid, payload, md["compdiag"])
        return True

    def event_facts(self, kind: str, compile_id: str | None, payload: str | None,
                    data: dict[str, Any] | None = None) -> None:
        """The facts one of compdiag's own records holds (also replayed by reindex); `data`
        is the record's own metadata (capture's, under its `compdiag` key)."""
        compile_id = self.gens.qualify(compile_id)
        if kind == RESET_KIND:
            self.gens.reset()
            self._reset_row(payload)
        elif kind == "perf_hints" and payload and payload.strip():
            hint = P.perf_hint(payload)
            self.w.insert("perf_hints", run_id=self.run_id, compile_id=compile_id, **hint)
        elif kind == "call_stack" and payload and compile_id:
            call = P.call_stack(payload)
            if call is not None:
                self.w.upsert("call_stacks", run_id=self.run_id, compile_id=compile_id, **call)
        elif kind == "program_exception" and payload:
            try:
                exc = json.loads(payload)
            except ValueError:
                return
            if isinstance(exc, dict) and exc.get("exc_type"):
                self.w.insert("program_exceptions", run_id=self.run_id, seq=self.seq,
                              compile_id=compile_id, exc_type=str(exc["exc_type"]),
                              message=str(exc.get("message") or ""),
                              frames=[f for f in exc.get("frames") or []
                                      if isinstance(f, dict)],
                              compiled=exc.get("compiled"), stage=exc.get("stage"),
                              handling=exc["handling"] if isinstance(exc.get("handling"), dict)
                              else None)
                self._interrupted_compile(exc)
        elif kind == "program_end":
            row = program_end_row(payload)
            if row is not None:
                row.update(self._running_kernel(row.get("stderr_tail"), row.get("frames")))
                self.w.insert("program_ends", run_id=self.run_id, seq=self.seq, **row)
                if row["how"] != "os._exit":
                    self.exit_code = row["exit_code"]
        elif kind in ("failure", "accuracy") and payload:
            try:
                fact = json.loads(payload)
            except ValueError:
                return
            if kind == "accuracy" and isinstance(fact, dict):
                self._accuracy_facts(compile_id, fact)
            elif isinstance(fact, dict) and isinstance(fact.get("stage"), str):
                self.failure(compile_id, **{k: fact.get(k) for k in FAILURE_FIELDS})
        elif kind == "cudagraphs" and payload:
            self._cudagraph_facts(compile_id, payload, (data or {}).get("call"))
        elif kind == "fusion" and payload:
            self.fusion_line(compile_id, payload)
        elif kind == FAKE_RUN_KIND and payload:
            try:
                fact = json.loads(payload)
            except ValueError:
                return
            if isinstance(fact, dict) and fact.get("exc_type"):
                self.fake_runs[compile_id] = fact
                for old in list(self.fake_runs)[:-4]:  # a failure follows its run at once
                    del self.fake_runs[old]
        elif kind == "node_stacks" and payload:
            stacks = self.node_stacks
            stacks.setdefault(compile_id, {}).update(P.node_stacks(payload))
            for old in list(stacks)[:-4]:  # a few compiles' worth: their graphs come next
                del stacks[old]
        elif kind == "sched_node" and payload:
            node = json.loads(payload)
            self.w.upsert("sched_nodes", run_id=self.run_id, compile_id=compile_id, **node)
        elif kind in D.EVENTS:
            self.distributed_event(kind, compile_id, payload)
        elif kind == BREAK_HOP and payload:  # capture/break_hop.py: for the next break
            self.break_hops[compile_id] = payload[:100]
        elif kind == BREAK_STACK:  # capture/break_stack.py: for the next break
            self.break_stacks[compile_id] = traced_stacks.parse(payload)
        elif kind == LOWERING_NODE and payload:  # capture/lowering_node.py
            try:
                frames = json.loads(payload)
            except ValueError:
                return
            if isinstance(data, dict) and data.get("library") and isinstance(frames, list):
                # torch's own line: the user line of the graph's node calling the same
                at = called_frame(self.graph_calls.get(compile_id) or [],
                                  next((f.get("code") for f in frames if isinstance(f, dict)),
                                       None))
                frames = [at] if at and is_user_file(at.get("filename")) else None
            if isinstance(frames, list) and compile_id not in self.lowering_nodes:
                # the lowering's own record first; a failing compile's node (its frames at
                # the failure) says where in torch it failed and on which node
                self.lowering_nodes[compile_id] = [f for f in frames if isinstance(f, dict)]
                self.lowering_where[compile_id] = failing_node_words(
                    data if isinstance(data, dict) else {})
        elif kind == FRAME_SKIP and payload:
            self._frame_skip(data if isinstance(data, dict) else {}, payload)
        elif kind == "warning" and payload:
            where = data if isinstance(data, dict) else {}
            forward = [f for f in P.anomaly_frames(payload) if is_user_file(f.get("filename"))]
            if forward:  # the op whose backward fails next (Ingestor.failure)
                self.forward_ops[compile_id] = forward
            lineno = where.get("lineno")
            self.w.insert("torch_warnings", run_id=self.run_id, compile_id=compile_id,
                          category=where.get("category") if isinstance(
                              where.get("category"), str) else None,
                          message=payload[:4000],
                          filename=where.get("filename") if isinstance(
                              where.get("filename"), str) else None,
                          lineno=lineno if isinstance(lineno, int) else None,
                          call=where.get("call") if isinstance(where.get("call"), dict)
                          else None)

    def _frame_skip(self, where: dict[str, Any], reason: str) -> None:
        """A frame Dynamo declined to trace (capture/frame_skips.py): a graph-break row of a
        skipped frame at the user's call, so the run is never silent about it; torch counts
        no graph break for it, and neither do the run's counts."""
        call = where.get("call") if isinstance(where.get("call"), dict) else {}
        name, file = str(where.get("name") or ""), where.get("filename")
        what = (f"{name}() ({file}:{where.get('firstlineno')})" if name and is_user_file(file)
                else "the compiled function")
        if reason.startswith(SKIPFILES):  # the compiled entry is torch's own (nn.Sequential)
            entry = reason[len(SKIPFILES):].strip(" ()") or name or "the compiled callable"
            what = f"{entry}() (torch's own code)"
            reason = (f"{SKIPFILES}: torch.compile was given torch's own code to start from "
                      f"({entry}), which Dynamo does not trace")
        self.w.insert("graph_breaks", run_id=self.run_id, compile_id=None,
                      reason=reason[:500], gb_type=f"{FRAME_SKIPPED}: {reason}"[:500],
                      filename=call.get("filename"), lineno=call.get("lineno"),
                      line=call.get("line"), hints=[],
                      explanation=f"Dynamo did not trace {what} at this call: {reason.rstrip('.')}. "
                                  "The call ran in eager.",
                      debug_context="", user_stack=[call] if call else [], frame_skipped=1,
                      torch_message=f"skipping: {name} (reason: {reason}, file: "
                                    f"{where.get('filename')})")

    def _running_kernel(self, stderr_tail: str | None,
                        frames: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The generated kernel a native end came from, when the end of stderr holds that
        kernel's own check (Inductor's C++ bounds check, `kernel, FILE.cpp:N, index out of
        bounds: ...`, printed by the C++ runtime as terminate's what()), or when faulthandler's
        Python stack (`frames`) ends on an output code's wrapper line that calls it (a crash
        inside the kernel: SIGSEGV, SIGFPE, SIGBUS): {kernel, kernel_compile_id, kernel_frames
        (the user lines of its ops)}; empty when none of the kernels the ingestor holds says
        it (the run's, in the parent that records the end: capture/runner.py)."""
        held = [(cid, name, src, lines) for cid, ks in (self.kernel_sources or {}).items()
                for name, src, lines in ks]
        name = P.kernel_of_error(stderr_tail, [(n, src) for _, n, src, _ in held]) \
            if stderr_tail else None
        for cid, n, _, lines in held:
            if n == name:
                # a bounds check is about the kernel's indexing op, not its first op
                checked = P.bounds_check_lines(stderr_tail, n, self.post_grad.get(cid) or {})
                return {"kernel": n, "kernel_compile_id": cid,
                        "kernel_frames": P.user_frames(checked or lines)}
        # or the wrapper line faulthandler's innermost frame in an output code module is on
        for f in reversed(frames or []):
            call = (self.wrapper_calls.get(f.get("filename") or "") or {}).get(f.get("lineno"))
            if call is not None and not call.get("alloc"):
                return {k: v for k, v in call.items() if k != "alloc"}
            if f.get("filename") in self.wrapper_calls:
                break  # the wrapper, but on no kernel's call (an allocation, a copy)
        # or the Dynamo graph's own code an eager backend ran: the node of its line
        node = generated_node(stderr_tail, self.graph_calls) if stderr_tail else None
        if node and is_user_file(node["frame"].get("filename")):
            return {"kernel": node["kernel"], "kernel_compile_id": node["compile_id"],
                    "kernel_frames": [{k: node["frame"].get(k)
                                       for k in ("filename", "lineno", "line")}]}
        return {}

    def fake_run_origin(self, cid: str | None, facts: dict[str, Any], text: str
                        ) -> dict[str, Any]:
        """A failure's facts with what capture recorded of the fake-tensor run that raised it
        (capture/exception_origin.py): the op whose kernel raised, the original exception and
        who raised it, where the failure's text is that exception's (its message in it: a
        graph break of the same compile that Dynamo handled is another exception). The
        text's own facts (parse_failures.fake_run_facts) where capture recorded none."""
        run = self.fake_runs.get(cid)
        if run is None and cid is not None and cid not in self.fake_runs:
            run = self.fake_runs.get(None)  # a compile context capture did not see
        msg = str((run or {}).get("message") or "").strip()
        first = msg.splitlines()[0] if msg else ""
        if run is None or not first or first not in text:
            return facts
        self.fake_runs.pop(cid, None)
        frame = run.get("user_frame")
        return {**facts, "fake_op": run.get("op") or facts.get("fake_op"),
                "origin_exc": f"{run.get('exc_type')}: {msg}"[:4000],
                "origin": run.get("origin") or facts.get("origin"),
                # the program's code the kernel ran (a fake implementation): not a column,
                # the failure's own line (Ingestor.failure)
                "origin_frame": frame if isinstance(frame, dict) and is_user_file(
                    frame.get("filename")) and frame.get("lineno") else None}

    def escaped_failure(self, cid: str | None, **failure: Any) -> None:
        """A failure capture saw itself (an exception out of compiled code at run time), kept
        as a record of compdiag's own so that a report's trace log carries it to import."""
        self.event("failure", cid, {"stage": failure.get("stage")},
                   payload=json.dumps(failure, default=repr))

    def _interrupted_compile(self, exc: dict[str, Any]) -> None:
        """A Ctrl-C or sys.exit that ended the program inside a compile (capture saw compile
        frames on its traceback): torch's `except Exception` let it pass, so its metrics of
        that compile carry no fail_type and read as a finished compile. The compile last
        started is the one it stopped (compiles of a thread run one at a time): "interrupted",
        not "ok" (benchmarks/probes24 ctrl_c_during_compile)."""
        if not exc.get("in_compile") or exc.get("exc_type") not in ("KeyboardInterrupt",
                                                                     "SystemExit"):
            return
        row = next(reversed(self.compiles.values()), None)
        if row is not None and row["status"] != "failed":
            row["status"] = "interrupted"
            self._write_compile(row)

    def program_exception(self, cid: str | None, **exc: Any) -> None:
        """The exception that ended the program (capture/failures.py): type, message (every
        line), frames, the compiled code it came through. A record of compdiag's own, so
        `compdiag reindex` re-derives the fact."""
        self.event("program_exception", cid, {"exc_type": exc.get("exc_type")},
                   payload=json.dumps(exc, default=repr))

    def program_end(self, **end: Any) -> None:
        """How the program ended when not well (ingest/endings.py): os._exit's call, or the
        status or signal with faulthandler's dump and the end of stderr, kept raw."""
        self.event("program_end", None, {"how": end.get("how")},
                   payload=json.dumps(end, default=repr))

    def accuracy(self, check: Any) -> None:
        """A GraphCheck from capture/accuracy.py, kept as a record of compdiag's own (so a
        report's trace log carries it to `compdiag import`); its facts: one row per output, a
        failure if it fails."""
        cid = self.gens.qualify(check.compile_id)
        doc = {"compile_id": cid, "error": check.error,
               "nondeterministic": bool(check.nondeterministic),
               "divergent_node": check.divergent_node,
               "inputs": getattr(check, "inputs", None),
               "outputs": [{"output": o.output, "max_abs": o.max_abs, "max_rel": o.max_rel,
                            "ok": bool(o.ok), "detail": dict(o.detail)} for o in check.outputs]}
        self.event("accuracy", cid, {}, payload=json.dumps(doc, default=repr))

    def _accuracy_facts(self, cid: str | None, check: dict[str, Any]) -> None:
        if check.get("error"):
            self.w.warn(self.run_id, f"accuracy check of {cid} could not run: "
                                     f"{check['error']}")
            # a fact too, so explain says this graph went unchecked (Reader.accuracy keeps
            # such rows apart: nothing was compared)
            self.w.insert("accuracy", run_id=self.run_id, compile_id=cid, output=None,
                          max_abs=None, max_rel=None, ok=True,
                          detail=json.dumps({"verdict": NOT_COMPARED,
                                             "error": str(check["error"])[:2000]}))
            return
        outputs = [o for o in check.get("outputs") or [] if isinstance(o, dict)]
        node = check.get("divergent_node") or {}
        for o in outputs:
            detail = dict(o.get("detail") or {})
            if check.get("nondeterministic"):
                detail["eager_nondeterministic"] = True
            if node:
                detail["divergent_node"] = node
            if check.get("inputs"):
                detail["inputs"] = check["inputs"]
            self.w.insert("accuracy", run_id=self.run_id, compile_id=cid,
                          output=o.get("output"), max_abs=o.get("max_abs"),
                          max_rel=o.get("max_rel"), ok=bool(o.get("ok")),
                          detail=json.dumps(detail, default=repr))
        if check.get("nondeterministic"):
            self.w.warn(self.run_id, f"eager is non-deterministic on graph {cid}: "
                                     "accuracy differences there are not attributed to the compiler")
        bad = [o for o in outputs if not o.get("ok")]
        if bad:
            frame = node.get("user_frame") or {}
            where = (f"; first divergent node {node['node']} ({node['op']})"
                     if node.get("node") else "")
            self.failure(cid, stage="accuracy", exc_type="AccuracyMismatch",
                         message=f"{bad[0].get('output')}: "
                                 f"{(bad[0].get('detail') or {}).get('reason', 'mismatch')}"
                                 f"{where}",
                         filename=frame.get("filename"), lineno=frame.get("lineno"),
                         line=frame.get("line"),
                         traceback=json.dumps([o.get("detail") for o in bad], default=repr))

    def fusion_line(self, cid: str | None, msg: str) -> None:
        cid = self.gens.qualify(cid)
        row = P.parse_fusion_line(msg)
        if row:
            self.w.insert("fusion", run_id=self.run_id, compile_id=cid, **row)

    def scheduler_node_line(self, cid: str | None, msg: str) -> None:
        """A fusion-candidate entry: which FX nodes and user lines a scheduler node is; kept
        as a small record of its own (the parsed node, once per change, not the listing) so
        a report's trace log carries it to import."""
        cid = self.gens.qualify(cid)
        name = P.scheduler_node_name(msg)
        if name is None or self._sched_lines.get((cid, name)) == msg:
            return  # the same entry as this node's last one: the same node, nothing new
        self._sched_lines[(cid, name)] = msg
        node = P.scheduler_node(msg)
        if node and self._sched_seen.get((cid, node["name"])) != node:
            self._sched_seen[(cid, node["name"])] = node
            self.event("sched_node", cid, {}, payload=json.dumps(node))
