"""A deterministic, synthetic store (through the Writer API, no torch): the TUI's tests,
snapshots and benchmark use it. `build_demo_store(path)` gives a small run with every kind of
event; `compiles=1200, payload_mb=100` gives the benchmark's big run.

    python -m compdiag_tui.demo_store OUT.db [--compiles N] [--payload-mb MB]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

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
                     seed: int = 0, runs: int = 1, cwd: str = "/src/demo") -> Path:
    """Write a synthetic run (or several) into `path`; returns the path.

    compiles: compile ids in the (last) run, spread over frames of up to 8 compiles.
    payload_mb: roughly how many MB of payload text (graphs, code, bytecode) to write in all.
    """
    path = Path(path)
    rng = random.Random(seed)
    w = Writer(path, flush_interval=1e9)
    per_compile = int(payload_mb * 1e6 / max(compiles, 1)) if payload_mb else 0
    run_id = 0
    for r in range(runs):
        small = r < runs - 1
        run_id = w.begin_run(source="run", argv=["model.py", "--steps", "3"], cwd=cwd,
                             torch_version="2.13.0+cpu", device="cpu", pid=4242,
                             started_at=STARTED_AT + 3600 * r, status="running")
        _write_run(w, run_id, rng, 4 if small else compiles, per_compile)
        w.end_run(run_id, exit_code=0 if small else 1, status="done")
        w.update_run(run_id, ended_at=STARTED_AT + 3600 * r + 42.5)
        w.flush()
    w.close()
    return path


def _write_run(w: Writer, run_id: int, rng: random.Random, compiles: int,
               per_compile: int) -> None:
    seq = 0

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
            w.insert("recompiles", run_id=run_id, compile_id=cid,
                     reason=f"tensor 'x' size mismatch at index 0. expected {8 * frame_compile}"
                            f", actual {8 * (frame_compile + 1)}", guard=guard)
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
