"""The Ingestor's handlers for what Inductor and cudagraph_trees emit: post-grad graphs,
output code (kernels, partitions, epilogue misses, ATen fallbacks), CUDA-graph skips,
recordings and partitions, the fusion and scheduler loggers' lines; and the user line of a
failure in generated code. A mixin of ingest/ingestor.py's Ingestor, whose __init__ holds the
state these read (post_grad, kernel_sources, partitioned, ...)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.compiled_code import async_device_error
from compdiag.formats.user_code import frames_in, is_user_file
from compdiag.ingest import parsers as P


class InductorRecords:
    """Ingestor's Inductor and CUDA-graph handlers (see Ingestor for the state)."""

    w: Any
    run_id: int
    seq: int
    counts: dict[str, int]
    post_grad: dict[str | None, dict[str, str]]
    node_stacks: dict[str | None, dict[tuple[str, int], list[dict[str, Any]]]]
    kernel_sources: dict[str | None, list[tuple[str, str, list[str]]]]
    output_code_files: dict[str, str | None]
    wrapper_calls: dict[str, dict[int, dict[str, Any]]]
    partitioned: dict[str | None, dict[str, int]]
    last_compiled: str | None
    last_recorded: str | None
    _seen_cudagraphs: set[tuple[str | None, bool]]
    gens: Any  # ingest/generations.py's Generations: qualifies torch's ids with a generation

    def _generated_code_frames(self, cid: str | None, traceback: str | None,
                               whole_graph: bool = False
                               ) -> tuple[list[dict[str, Any]], str | None]:
        """The user frame of a failure in generated code: the kernel whose source the compiler
        quoted (its ops' '# File:' lines), or the op whose codegen raised (the post-grad nodes
        named after it); the earliest user line of them, and what it was found from."""
        kernels = self.kernel_sources.get(cid) or []
        name = P.kernel_of_error(traceback, [(n, src) for n, src, _ in kernels])
        found: list[tuple[list[str], str]] = []
        nodes = self.post_grad.get(cid) or {}
        if name:
            checked = P.bounds_check_lines(traceback, name, nodes)
            if checked:
                found.append((checked, f"the indexing op of kernel {name}'s bounds check"))
            found.append((next(u for n, _, u in kernels if n == name), f"kernel {name}"))
        for op in P.codegen_ops(traceback):
            named = re.compile(rf"{re.escape(op)}(?:_\d+)?")
            hits = [line for n, line in nodes.items() if named.fullmatch(n)]
            if hits:
                found.append((hits, f"codegen of {op}"))
                break
        alloc = self._allocation(traceback)
        if alloc:
            found.append((alloc["kernel_frames"],
                          f"allocating the output buffer of kernel {alloc['kernel']}"))
        for lines, where in found:
            frames = [f for f in lines if isinstance(f, dict)] or P.user_frames(lines)
            if frames:
                return [min(frames, key=lambda f: (f["filename"], f["lineno"]))], where
        # A kernel that failed to compile was made of the graph's nodes: when they all come
        # from one user line, that is the line (a Triton error quoting a kernel never logged).
        frames = P.user_frames(nodes.values()) if whole_graph else []
        if len({(f["filename"], f["lineno"]) for f in frames}) == 1:
            return frames[:1], "the graph's only user line"
        return [], None

    def _allocation(self, traceback: str | None) -> dict[str, Any] | None:
        """The wrapper call of the kernel whose output buffer the innermost output-code line
        of `traceback` allocates (`buf1 = empty_strided_cpu(...)`: an out-of-memory error),
        {kernel, kernel_frames (its ops' user lines)}; None where the traceback ends
        elsewhere, or for an asynchronous device error (it surfaces at whatever line runs
        next)."""
        if not traceback or async_device_error(traceback):
            return None
        for f in reversed(frames_in(traceback)):
            calls = self.wrapper_calls.get(f.get("filename") or "")
            if calls is not None:
                call = calls.get(f.get("lineno")) or {}
                return call if call.get("alloc") and call.get("kernel_frames") else None
        return None

    def _on_artifact_inductor_post_grad_graph(self, value: Any, cid: str | None,
                                              payload: str | None, md: dict) -> None:
        if payload:
            nodes = P.graph_nodes(payload)
            stacks = self.node_stacks.get(cid) or {}
            for n in nodes:
                # The graph text names a node's innermost frame only: where that is a
                # library's, the user's part of its stack that capture kept (issue 29 §1).
                stack = stacks.get(P.frame_key(n["filename"], n["lineno"])) \
                    if n["filename"] and not is_user_file(n["filename"]) else None
                n["stack"] = stack or None
            # a kernel's user lines: its nodes' user frames (the first of a cut stack)
            self.post_grad[cid] = P.node_lines([{**n, **n["stack"][0]} if n["stack"] else n
                                                for n in nodes])
            for n in nodes:
                self.w.insert("graph_nodes", run_id=self.run_id, compile_id=cid, seq=self.seq,
                              **n)

    def _on_inductor_post_grad_graph(self, value: Any, cid: str | None, payload: str | None,
                                     md: dict) -> None:
        self._on_artifact_inductor_post_grad_graph(value, cid, payload, md)

    def _on_inductor_output_code(self, value: Any, cid: str | None, payload: str | None,
                                 md: dict) -> None:
        if isinstance(value, dict):
            for key in ("filename", "file_path"):
                if isinstance(value.get(key), str):
                    self.output_code_files[value[key]] = cid
        if not payload:
            return
        split = P.output_code_splits(payload)
        if split and split["cudagraphable"] and cid not in self.partitioned:
            # A cache hit logs no scheduling: the wrapper is all there is. (Default mode
            # partitions too, into no CUDA-graphed partition: nothing to record.)
            non = split["non_cudagraphable"]
            self.w.insert("cudagraph_partitions", run_id=self.run_id, compile_id=cid,
                          source="output_code",
                          partitions=None if non is None else split["cudagraphable"] + non,
                          cudagraphable=split["cudagraphable"], non_cudagraphable=non)
            for w in split["work"][:20]:
                self.w.insert("cudagraph_splits", run_id=self.run_id, compile_id=cid, **w)
        for miss in P.epilogue_misses(payload):
            self.w.insert("epilogue_misses", run_id=self.run_id, compile_id=cid, **miss)
        for op in P.fallback_calls(payload):
            self.w.insert("fallback_calls", run_id=self.run_id, compile_id=cid, seq=self.seq,
                          op=op)
        # a kernel's 'Source Nodes' name post-grad nodes, or (torch 2.11's CUDA kernels) the
        # Dynamo graph's nodes: either's user line; the post-grad graph's where both have one
        dynamo = {c["name"]: f"{c['frame']['filename']}:{c['frame']['lineno']}  "
                             f"{c['frame'].get('line') or ''}".rstrip()
                  for c in (getattr(self, "graph_calls", {}) or {}).get(cid) or []
                  if c.get("frame") and c["frame"].get("filename")}
        if cid not in self.kernel_sources:
            self.kernel_sources = {cid: []}
        kernels = P.parse_output_code(payload, self.post_grad.get(cid) or {}, dynamo)
        files = [value[key] for key in ("filename", "file_path")
                 if isinstance(value, dict) and isinstance(value.get(key), str)]
        if files:
            calls = P.wrapper_kernel_calls(payload, kernels, cid)
            for f in files:
                self.wrapper_calls[f] = calls
            for old in list(self.wrapper_calls)[:-64]:  # the latest compiles' are the ones run
                del self.wrapper_calls[old]
        for k in kernels:
            self.counts["kernels"] += 1
            self.w.insert("kernels", run_id=self.run_id, compile_id=cid, name=k["name"],
                          backend=k["backend"], source=k["source"], fx_nodes=k["fx_nodes"],
                          fused_ops=k["fused_ops"], user_lines=k.get("user_lines", []))
            self.kernel_sources[cid].append(
                (k["name"], k["source"] or "", k.get("user_lines") or []))

    def _cudagraph(self, cid: str | None, applied: bool, reason: str | None) -> None:
        # The same skip is reported by perf_hints and by compilation_metrics: keep one.
        if (cid, applied) in self._seen_cudagraphs:
            return
        self._seen_cudagraphs.add((cid, applied))
        if not applied:
            self.counts["cudagraph_skips"] += 1
        self.w.insert("cudagraphs", run_id=self.run_id, compile_id=cid, applied=applied,
                      reason=reason, **(P.cudagraph_skip_facts(reason) if not applied else {}))

    def _cudagraph_facts(self, cid: str | None, msg: str, call: Any = None) -> None:
        """Recordings and partitions, from a cudagraphs line (live, and again at reindex);
        `call` is the user line that called the compiled function (capture's, when it recorded)."""
        named = P.CID_IN_LINE.match(msg)
        cid = self.gens.qualify(named.group(1) if named else cid)
        call = call if isinstance(call, dict) else None
        rec = P.parse_cudagraph_recording(msg)
        if rec:
            self.w.insert("cudagraph_recordings", run_id=self.run_id, compile_id=cid,
                          call=call, **rec)
            self.last_recorded = cid
            return
        again = P.parse_cudagraph_rerecord(msg)
        if again:
            self.w.insert("cudagraph_rerecords", run_id=self.run_id, compile_id=cid or
                          self.last_recorded or self.last_compiled, call=call, **again)
            return
        tree = P.parse_cudagraph_tree(msg)
        if tree:
            # torch < 2.13 names no compile in these lines, which come before the recording
            # they announce: the graph that recorded last (or compiled last) is the one.
            self.w.insert("cudagraph_trees", run_id=self.run_id, compile_id=cid or
                          self.last_recorded or self.last_compiled, call=call, **tree)
            return
        summary = P.parse_partition_summary(msg)
        if summary:
            self.partitioned[cid] = summary
            self.w.insert("cudagraph_partitions", run_id=self.run_id, compile_id=cid,
                          source="scheduler", **summary)
            return
        op = P.parse_partition_op(msg)
        if op and (self.partitioned.get(cid) or {}).get("cudagraphable"):
            self.w.insert("cudagraph_splits", run_id=self.run_id, compile_id=cid, **op)

    def cudagraph_line(self, cid: str | None, msg: str) -> None:
        """cudagraph_trees logs skips and recordings at the first call, outside any compile:
        the compile id is the one the line names ('[0/0] Recording ...') or, for a skip, the
        graph compiled last (the call that follows a compile is the one that records)."""
        named = P.CID_IN_LINE.match(msg)
        cid = self.gens.qualify(named.group(1) if named else cid)
        reason = P.parse_cudagraph_skip(msg) or P.parse_partition_skip(msg)
        summary = P.parse_partition_summary(msg)
        if summary:
            self.partitioned[cid] = summary
        if reason and not P.parse_cudagraph_skip(msg) and (
                self.partitioned.get(cid) or {}).get("cudagraphable"):
            return  # an op left out of a partitioned graph: a split (_cudagraph_facts)
        if reason:
            self._cudagraph(cid or self.last_compiled, False, reason)
        elif P.CUDAGRAPH_RECORDING.search(msg) and cid is not None:
            if (cid, False) not in self._seen_cudagraphs:
                self._cudagraph(cid, True, None)

    def cudagraph_applied(self, cid: str | None, detail: str | None = None) -> None:
        self._cudagraph(self.gens.qualify(cid), True, detail)
