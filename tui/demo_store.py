"""A deterministic, synthetic store (through the Writer API, no torch): the TUI's tests,
snapshots and benchmark use it. `build_demo_store(path)` gives a small run with every kind of
event; `compiles=1200, payload_mb=100` gives the benchmark's big run. `perf=True` adds raw
`compdiag perf` samples (for `compdiag perf RUN` to analyse); `perf_report=True` files a fixed,
hand-written perf report (`demo_perf_report`, the --json document's shape) under the last two
runs, so the TUI's perf screen has something stable to show.

    python -m compdiag_tui.demo_store OUT.db [--compiles N] [--payload-mb MB]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from compdiag.ingest.parsers import classify_guard
from compdiag.ingest.sources import keep_sources
from compdiag.store.writer import Writer

STARTED_AT = 1_790_000_000.0          # fixed: snapshots must not depend on the clock
USER_FILE = "model.py"

OPS = ("sin", "cos", "add", "mul", "relu", "exp", "sigmoid", "tanh", "sub", "div", "neg",
       "abs", "sqrt", "rsqrt", "log")

USER_SOURCE = '''"""A model that graph-breaks, recompiles and fails (the TUI's demo)."""
import torch


class Block(torch.nn.Module):
    def forward(self, x):
        y = torch.sin(x) * 2
        print("debug", y.shape)          # graph break: print
        z = torch.relu(y) + x
        return z.cos()


def step(model, x):
    out = model(x)
    return out.sum()
'''


def _graph(rng: random.Random, n_ops: int, prefix: str = "torch") -> tuple[str, list[str]]:
    lines = ["class GraphModule(torch.nn.Module):",
             '    def forward(self, L_x_: "f32[8, 16][16, 1]cpu"):', "        l_x_ = L_x_"]
    names, prev = [], "l_x_"
    for i in range(n_ops):
        op = OPS[rng.randrange(len(OPS))]
        name = f"{op}_{i}" if i else op
        lineno = 7 + (i % 4)
        lines.append("")
        lines.append(f"        # File: {USER_FILE}:{lineno} in forward, code: "
                     f"y = torch.{op}(x) * 2")
        lines.append(f'        {name}: "f32[8, 16][16, 1]cpu" = {prefix}.{op}({prev});  '
                     f"{prev} = None")
        names.append(name)
        prev = name
    lines.append(f"        return ({prev},)")
    return "\n".join(lines) + "\n", names


def _cpp_kernel(name: str, ops: list[str], n_lines: int) -> str:
    body = [f'extern "C" void {name}(const float* in_ptr0, float* out_ptr0)', "{",
            "    for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(128L); "
            "x0+=static_cast<int64_t>(8L))", "    {",
            "        auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + x0, 8);"]
    for i in range(n_lines):
        op = ops[i % len(ops)]
        body.append(f"        auto tmp{i + 1} = tmp{i}.{op}();")
    body += [f"        tmp{n_lines}.store(out_ptr0 + x0);", "    }", "}"]
    return "\n".join(body)


def _bytecode(rng: random.Random, n: int) -> str:
    ops = ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_ATTR", "CALL", "STORE_FAST", "BINARY_OP",
           "LOAD_CONST", "RETURN_VALUE")
    return "\n".join(f"{7 + i // 6:>3} {i * 2:>12} {ops[rng.randrange(len(ops))]:<24} "
                     f"{i % 7} (x)" for i in range(n)) + "\n"


def build_demo_store(path: Path | str, *, compiles: int = 14, payload_mb: float = 0.0,
                     seed: int = 0, runs: int = 1, cwd: str = "/src/demo", perf: bool = False,
                     perf_report: bool = False) -> Path:
    """Write a synthetic run (or several) into `path`; returns the path.

    compiles: compile ids in the (last) run, spread over frames of up to 8 compiles.
    payload_mb: roughly how many MB of payload text (graphs, code, bytecode) to write in all.
    perf: raw perf samples in every run, the last one timed under mode default, the one
    before under reduce-overhead, then max-autotune.
    perf_report: `demo_perf_report` filed under the last run (and the one before, as the
    reduce-overhead side of its mode comparison, when there is one).
    """
    path = Path(path)
    rng = random.Random(seed)
    w = Writer(path, flush_interval=1e9)
    per_compile = int(payload_mb * 1e6 / max(compiles, 1)) if payload_mb else 0
    run_id = 0
    timed: dict[int, tuple[str, list[tuple[str, str, float]]]] = {}
    for r in range(runs):
        small = r < runs - 1
        run_id = w.begin_run(source="run", argv=["model.py", "--steps", "3"], cwd=cwd,
                             torch_version="2.13.0+cpu", device="cpu", pid=4242,
                             started_at=STARTED_AT + 3600 * r, status="running")
        graphs = _write_run(w, run_id, rng, 4 if small else compiles, per_compile)
        timed[run_id] = (PERF_MODES[(runs - 1 - r) % len(PERF_MODES)], graphs)
        if perf:
            _write_perf_samples(w, run_id, timed[run_id][0], graphs)
        keep_sources(w, run_id)  # as capture does: model.py's text where it is (cwd)
        w.end_run(run_id, exit_code=0 if small else 1, status="done")
        w.update_run(run_id, ended_at=STARTED_AT + 3600 * r + 42.5)
        w.flush()
    if perf_report:
        # The modes in the order `--modes default,reduce-overhead` runs them: default first.
        doc = demo_perf_report({rid: timed[rid] for rid in sorted(timed)[-2:][::-1]}, path)
        for rid in sorted(timed)[-2:]:
            w.upsert("perf_reports", run_id=rid, created_at=doc["created_at"],
                     document=json.dumps(doc))
    w.close()
    return path


# -- `compdiag perf` ---------------------------------------------------------------------------
PERF_MODES = ("default", "reduce-overhead", "max-autotune")

# (eager median s, compiled/eager, noise): faster, within noise, slower, in turn.
_PERF_SHAPES = ((2.4e-3, 0.42, 0.02), (0.9e-3, 0.55, 0.03), (0.3e-3, 0.98, 0.25),
                (1.6e-3, 0.61, 0.02), (0.2e-3, 1.25, 0.03))


def _write_perf_samples(w: Writer, run_id: int, mode: str,
                        graphs: list[tuple[str, str, float]]) -> None:
    """Raw samples as the capture's timer files them: 9 paired samples per called graph and
    for whole calls of the module, 8 calls each (the analysis computes the rest)."""
    rng = random.Random(1000 + run_id)          # its own: the run's other content stays as is
    faster = {"default": 1.0, "reduce-overhead": 0.8, "max-autotune": 0.7}[mode]

    def samples(median: float, noise: float) -> list[float]:
        return [median * (1 + rng.uniform(-noise, noise)) for _ in range(9)]

    in_graphs = 0.0
    for i, (cid, _, _) in enumerate(graphs[:6]):
        eager, ratio, noise = _PERF_SHAPES[i % len(_PERF_SHAPES)]
        compiled = eager * (ratio * faster if ratio < 0.9 else ratio)
        in_graphs += compiled
        w.upsert("perf_graphs", run_id=run_id, compile_id=cid, eager_s=samples(eager, noise),
                 compiled_s=samples(compiled, noise), inner=4, warmup=3, timer="perf_counter",
                 device="cpu", grad_enabled=0, n_inputs=1, input_bytes=512, output_bytes=512,
                 output_copy_s=2e-6, calls=8, error=None)
    whole = {"default": 1.68, "reduce-overhead": 1.71, "max-autotune": 1.75}[mode]
    w.upsert("perf_calls", run_id=run_id, target="Block", eager_s=samples(9.5e-3, 0.02),
             compiled_s=samples(max(9.5e-3 / whole, in_graphs * 1.1), 0.02), inner=1, warmup=3,
             timer="perf_counter", device="cpu", grad_enabled=0, at_call=2, calls=8, error=None)
    w.upsert("perf_runs", run_id=run_id, mode=mode, peak_rss_bytes=427 << 20,
             peak_cuda_bytes=None, device="cpu", program_s=12.5, settings={"reps": 9})


def _stats(median: float, spread: float) -> dict[str, float]:
    return {"n": 9, "median": median, "q1": median * (1 - spread / 2),
            "q3": median * (1 + spread / 2), "min": median * (1 - spread), "rel_spread": spread}


def _speedup(ratio: float, lo: float, hi: float) -> dict[str, Any]:
    verdict = "faster" if lo > 1 else "slower" if hi < 1 else "within noise"
    return {"ratio": ratio, "lo": lo, "hi": hi, "verdict": verdict, "paired": True,
            "noise": round((hi - lo) / 2 / ratio, 4)}


def _demo_section(run_id: int, mode: str, graphs: list[tuple[str, str, float]]
                  ) -> dict[str, Any]:
    # On this CPU demo, the other modes gain nothing beyond the noise (no CUDA graphs).
    faster = {"default": 1.0, "reduce-overhead": 1.02, "max-autotune": 1.05}[mode]
    rows, eager_t, comp_t = [], 0.0, 0.0
    for i, (cid, co_name, compile_s) in enumerate(graphs[:6]):
        eager, ratio, noise = _PERF_SHAPES[i % len(_PERF_SHAPES)]
        speed = 1 / ratio * (faster if ratio < 0.9 else 1.0)
        lo, hi = speed * (1 - 2 * noise), speed * (1 + 2 * noise)
        sp = _speedup(speed, lo, hi)
        saved = eager - eager / speed
        eager_t, comp_t = eager_t + 8 * eager, comp_t + 8 * eager / speed
        rows.append({"compile_id": cid, "function": co_name, "filename": USER_FILE,
                     "lineno": 5, "calls": 8, "device": "cpu", "timer": "perf_counter",
                     "inner": 4, "grad_enabled": False, "input_bytes": 512,
                     "output_bytes": 512, "output_copy_s": 2e-6,
                     "eager": _stats(eager, noise), "compiled": _stats(eager / speed, noise),
                     "speedup": sp, "compile_s": compile_s,
                     "payback_calls": int(compile_s / saved) + 1
                     if sp["verdict"] == "faster" else None,
                     "kernels": {"cpp": 1 + i % 3}, "fallbacks": [], "library_calls": [],
                     "error": None, "device_name": "cpu"})
    call_e = 9.5e-3
    call_c = call_e / (1.68 * faster)
    outside = (call_c - comp_t / 8) / call_c
    step = next((cid for cid, name, _ in graphs if name == "step"), None)
    limiters = [
        {"kind": "graph_break", "impact": 0.41, "basis": "measured",
         "reason": "Failed to trace builtin operator",
         "evidence": "splits step() into 2 compiled graphs holding 38% of the compiled time; "
                     "the 1.05 MB crossing the break take 212 us per call to write and read "
                     "back (measured copy), 41% of these graphs' compiled time",
         "compile_ids": [c for c in (step, "1/2") if c], "fix":
             "Avoid calling builtin `print`; use torch._dynamo.config."
             "reorderable_logging_functions.",
         "user_frame": {"filename": USER_FILE, "lineno": 8,
                        "line": 'print("debug", y.shape)          # graph break: print'}},
        {"kind": "outside_graphs", "impact": round(outside, 4), "basis": "measured",
         "reason": f"{outside:.0%} of each compiled call of Block runs outside its compiled "
                   "graphs",
         "evidence": f"a whole compiled call takes {call_c * 1e3:.2f} ms, its graphs "
                     f"{comp_t / 8 * 1e3:.2f} ms; the rest is Dynamo's guard checks, the Python "
                     "between graphs (graph breaks) and the compiled wrappers' own work",
         "compile_ids": [g["compile_id"] for g in rows],
         "fix": "remove graph breaks so more of the call runs in one graph",
         "user_frame": None},
        {"kind": "launch_overhead", "impact": 0.12, "basis": "measured",
         "reason": "3 kernels in 120 us per call (40.0 us per kernel)",
         "evidence": "about 25% of graph 2/0's time is kernel dispatch (3 x ~10 us); the work "
                     "per call is too small", "compile_ids": ["2/0"],
         "fix": "batch more work per call", "user_frame": None},
        {"kind": "recompile", "impact": 0.05, "basis": "structural",
         "reason": "size L['x'].size()[0] changed (8 -> 16)",
         "evidence": "1 recompile(s), 1.06 s of extra compile time (paid again before any "
                     "speed-up)", "compile_ids": ["1/1"],
         "fix": "mark the dimension dynamic: torch._dynamo.mark_dynamic(x, 0)",
         "user_frame": {"filename": USER_FILE, "lineno": 14, "line": None}},
    ]
    module_sp = _speedup(call_e / call_c, call_e / call_c * 0.95, call_e / call_c * 1.04)
    return {
        "run": run_id, "mode": mode, "exit_code": 0, "device": "cpu",
        "peak_rss_bytes": 427 << 20, "peak_cuda_bytes": None, "settings": {"reps": 9},
        "graphs": rows,
        "totals": {"graphs_timed": len(rows), "compiles": len(graphs),
                   "compile_s": round(sum(total for _, _, total in graphs), 3),
                   "eager_s": eager_t, "compiled_s": comp_t,
                   "speedup": _speedup(eager_t / comp_t, eager_t / comp_t * 0.93,
                                       eager_t / comp_t * 1.06), "payback_runs": None},
        "modules": [{"target": "Block", "calls": 8, "at_call": 2, "device": "cpu",
                     "timer": "perf_counter", "inner": 1, "grad_enabled": False,
                     "eager": _stats(call_e, 0.02), "compiled": _stats(call_c, 0.02),
                     "speedup": module_sp, "error": None}],
        "module_totals": {"modules_timed": 1, "eager_s": 8 * call_e, "compiled_s": 8 * call_c,
                          "speedup": module_sp},
        "outside_graphs": {"target": "Block", "call_compiled_s": call_c, "call_eager_s": call_e,
                           "graphs_compiled_s": comp_t / 8, "graphs_eager_s": eager_t / 8,
                           "outside_s": call_c - comp_t / 8, "outside_frac": outside},
        "limiters": sorted(limiters, key=lambda lim: -lim["impact"]),
        "notes": ["'within noise': the 95% interval of the speed-up contains 1.0; the "
                  "difference is smaller than the timing noise",
                  *([f"compiled but never called (not timed): "
                     f"{', '.join(cid for cid, _, _ in graphs[6:])}"] if graphs[6:] else [])],
        "cudagraphs": {"applied": 0, "skipped": 0},
    }


def demo_perf_report(runs: dict[int, tuple[str, list[tuple[str, str, float]]]],
                     store: Path | str = "demo.db") -> dict[str, Any]:
    """A `compdiag perf --json` document (its documented shape, fixed numbers) over `runs`
    ({run id: (mode, [(compile id, function, compile seconds) of its compiled graphs])}); a
    mode comparison when there are two runs or more."""
    sections = [_demo_section(rid, mode, graphs) for rid, (mode, graphs) in runs.items()]
    doc: dict[str, Any] = {"schema_version": 1, "store": str(store),
                              "created_at": STARTED_AT + 7200, "runs": sections, "modes": None}
    if len(sections) < 2:
        return doc
    rows = []
    for rep in sections:
        sp = rep["module_totals"]["speedup"]
        rows.append({"mode": rep["mode"], "run": rep["run"], "basis": "whole calls",
                     "compile_s": rep["totals"]["compile_s"],
                     "steady_s": rep["module_totals"]["compiled_s"],
                     "eager_s": rep["module_totals"]["eager_s"],
                     "graphs_speedup": rep["totals"]["speedup"]["ratio"],
                     "speedup": sp["ratio"], "speedup_lo": sp["lo"], "speedup_hi": sp["hi"],
                     "verdict": sp["verdict"], "peak_rss_bytes": rep["peak_rss_bytes"],
                     "peak_cuda_bytes": None, "graphs": len(rep["graphs"]),
                     "exit_code": 0, "cudagraphs": rep["cudagraphs"]})
    base = next((r for r in rows if r["mode"] == "default"), rows[0])
    reasons = [f"{base['mode']}: {base['speedup']:.2f}x over eager; no "
               "other mode is faster beyond the noise"]
    reasons += [f"{r['mode']}: {r['speedup']:.2f}x over eager [{r['speedup_lo']:.2f}-"
                f"{r['speedup_hi']:.2f}] vs {base['mode']} {base['speedup']:.2f}x "
                f"[{base['speedup_lo']:.2f}-{base['speedup_hi']:.2f}]: no gain beyond the "
                f"noise, {r['compile_s'] / base['compile_s']:.1f}x the compile time"
                for r in rows if r is not base]
    doc["modes"] = {"rows": rows, "recommendation": {
        "mode": base["mode"], "reasons": reasons,
        "caveats": ["speed-ups are paired within each mode's own process; compare the "
                    "speed-ups, not the times", "compile time is one measurement per mode"]}}
    return doc


def _write_run(w: Writer, run_id: int, rng: random.Random, compiles: int,
               per_compile: int) -> list[tuple[str, str]]:
    """The run's records; returns the (compile id, function, compile seconds) of its compiled
    graphs."""
    seq = 0
    graphs: list[tuple[str, str]] = []

    def record(kind: str, cid: str | None, metadata: dict, payload: str | None) -> None:
        nonlocal seq
        seq += 1
        w.insert("records", run_id=run_id, seq=seq, kind=kind, compile_id=cid,
                 metadata=json.dumps(metadata), payload=payload)

    # ~ how many graph nodes give `per_compile` bytes over ~6 graph-sized payloads.
    n_ops = max(3, min(4000, per_compile // 780)) if per_compile else 3
    frame, frame_compile = 0, 0
    names = ["forward", "step", "attention", "mlp", "norm", "loss"]
    for i in range(compiles):
        if i and (frame_compile >= 1 + (frame * 3) % 8 or i % 8 == 0):
            frame += 1
            frame_compile = 0
        co_name = names[frame % len(names)] if frame < len(names) else f"fn_{frame}"
        lineno = 5 + 10 * (frame % 5)
        kind_of = i % 7
        cid = f"{frame}/{frame_compile}"
        status = "ok"
        times = {"dynamo": round(0.05 + rng.random() * 0.5, 3),
                 "aot": round(0.02 + rng.random() * 0.3, 3),
                 "inductor": round(0.1 + rng.random() * 0.9, 3),
                 "inductor_codegen": round(0.01 + rng.random() * 0.2, 3),
                 "kernel_compile": round(rng.random() * 0.1, 3)}
        times["total"] = round(sum(times.values()), 3)
        if kind_of == 1:   # a graph break: the restart attempt compiles the rest
            status = "graph_break"
            times = {}
            w.insert("graph_breaks", run_id=run_id, compile_id=cid,
                     reason="Failed to trace builtin operator", gb_type=
                     "Failed to trace builtin operator", gb_code="GB0059", filename=USER_FILE,
                     lineno=8, line='print("debug", y.shape)          # graph break: print',
                     hints=["Avoid calling builtin `print`; use torch._dynamo.config."
                            "reorderable_logging_functions."])
            record("artifact:dynamo_graph_break_reason", cid, {"artifact": {
                "name": "dynamo_graph_break_reason", "encoding": "string"}},
                "Graph break: Failed to trace builtin operator (GB0059) at model.py:8")
        if frame_compile > 0 and kind_of in (0, 2, 5):
            guard = "L['x'].size()[0]"
            reason = (f"tensor 'x' size mismatch at index 0. expected {8 * frame_compile}"
                      f", actual {8 * (frame_compile + 1)}")
            w.insert("recompiles", run_id=run_id, compile_id=cid, reason=reason, guard=guard)
            g = classify_guard(reason)
            w.upsert("recompile_events", run_id=run_id, compile_id=cid, source="metrics",
                     seq=seq, failed_guard=reason, category=g["category"],
                     guarded=g["source"], tensor=g["tensor"], before=g["before"],
                     after=g["after"])
        if kind_of == 4 and (i // 7) % 2 == 0:
            status = "failed"
            w.insert("failures", run_id=run_id, compile_id=cid, stage="inductor_lowering",
                     exc_type="LoweringException",
                     message="NotImplementedError: could not lower aten.my_op.default",
                     filename=USER_FILE, lineno=9, line="z = torch.relu(y) + x",
                     traceback="Traceback (most recent call last):\n  ...\nLoweringException")
        w.upsert("compiles", run_id=run_id, compile_id=cid, frame=frame,
                 frame_compile=frame_compile, attempt=0, co_name=co_name, filename=USER_FILE,
                 lineno=lineno, status=status, stage_times=times,
                 metrics={"co_name": co_name, "frame_key": str(i),
                          "graph_op_count": n_ops, "inductor_config": "{}"})
        record("dynamo_start", cid, {"dynamo_start": {"stack": []}, "frame_id": frame,
                                     "frame_compile_id": frame_compile}, None)
        if status == "graph_break":
            frame_compile += 1
            continue
        graph, nodes = _graph(rng, n_ops)
        record("dynamo_output_graph", cid, {"dynamo_output_graph": {}}, graph)
        record("dynamo_cpp_guards_str", cid, {"dynamo_cpp_guards_str": {}},
               "TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
               "| +- TENSOR_MATCH: check_tensor(L['x'], Tensor, torch.float32, "
               f"size=[{8 * (frame_compile + 1)}, 16], stride=[16, 1])\n")
        aot, _ = _graph(rng, n_ops, "torch.ops.aten")
        record("aot_inference_graph", cid, {"aot_inference_graph": {}}, aot)
        record("inductor_post_grad_graph", cid, {"inductor_post_grad_graph": {}}, aot)
        record("compdiag:bytecode_original", cid, {"compdiag": {"kind": "bytecode_original"}},
               _bytecode(rng, max(12, n_ops * 4)))
        record("compdiag:bytecode_transformed", cid,
               {"compdiag": {"kind": "bytecode_transformed"}}, _bytecode(rng, max(12, n_ops * 4)))
        record("compdiag:transformed_source", cid, {"compdiag": {"kind": "transformed_source"}},
               f"def {co_name}(self, x):\n    graph_out_0 = __compiled_fn_{i}(x)\n"
               "    return graph_out_0[0]\n")
        record("compilation_metrics", cid, {"compilation_metrics": {"co_name": co_name}}, None)
        if status == "failed":
            frame_compile += 1
            continue
        graphs.append((cid, co_name, times["total"]))
        kernel_sources = []
        n_kernels = 1 + i % 3
        for k in range(n_kernels):
            ops = [OPS[(i + k + j) % len(OPS)] for j in range(2 + k % 2)]
            name = f"cpp_fused_{'_'.join(ops)}_{k}"
            src = _cpp_kernel(name, ops, max(4, n_ops // 2))
            kernel_sources.append(src)
            w.insert("kernels", run_id=run_id, compile_id=cid, name=name, backend="cpp",
                     source=src, fx_nodes=[n for n in nodes if n.split("_")[0] in ops][:8],
                     fused_ops=ops,
                     user_lines=[f"{USER_FILE}:7  y = torch.sin(x) * 2",
                                 f"{USER_FILE}:9  z = torch.relu(y) + x"])
            if k:
                w.insert("fusion", run_id=run_id, compile_id=cid, node1=f"op{k - 1}",
                         node2=f"op{k}", fused=k % 2 == 1,
                         reason=None if k % 2 else "no shared data")
        record("inductor_output_code", cid, {"inductor_output_code": {"filename": f"/tmp/{i}.py"}},
               "# AOT ID: ['0_inference']\nimport torch\n\n" + "\n\n".join(
                   f"{name}_src = async_compile.cpp_pybinding('''\n{src}\n''')"
                   for name, src in zip(range(n_kernels), kernel_sources)) + "\n")
        if i % 5 == 0:
            w.insert("cudagraphs", run_id=run_id, compile_id=cid, applied=i % 10 == 0,
                     reason=None if i % 10 == 0 else "skipping cudagraphs due to cpu device")
        if i % 6 == 0:
            ok = i % 12 == 0
            w.insert("accuracy", run_id=run_id, compile_id=cid, output="output[0]",
                     max_abs=0.0 if ok else 0.125, max_rel=0.0 if ok else 0.031, ok=ok,
                     detail=None)
        frame_compile += 1
        if seq % 2000 == 0:
            w.flush()
    return graphs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("out")
    p.add_argument("--compiles", type=int, default=14)
    p.add_argument("--payload-mb", type=float, default=0.0)
    args = p.parse_args(argv)
    build_demo_store(args.out, compiles=args.compiles, payload_mb=args.payload_mb)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
