"""Pure text parsers for what torch emits (no torch import, no store): fuzzable and shared by
live capture and TORCH_TRACE import, so both produce the same rows from the same records."""

from __future__ import annotations

import json
import re
from typing import Any

from compdiag.formats.compile_id import CompileId
from compdiag.formats.user_code import frames_in

ENVELOPE_KEYS = {"frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "rank",
                 "has_payload", "stack", "subgraph_name"}


def record_kind(metadata: dict[str, Any]) -> str:
    """The record's kind: its one non-envelope key; artifacts by their name."""
    for key, value in metadata.items():
        if key in ENVELOPE_KEYS:
            continue
        if key == "artifact" and isinstance(value, dict) and isinstance(value.get("name"), str):
            return "artifact:" + value["name"]
        return str(key)
    return "unknown"


def compile_id_of(metadata: dict[str, Any]) -> str | None:
    """torch's own spelling: '0/1', with '_N' for restart attempts and '!ca/' for compiled
    autograd, so ids match what TORCH_LOGS and tlparse print."""
    cid = CompileId.from_trace(metadata)
    return None if cid is None else str(cid)


def _is_int(value: Any) -> bool:
    """An int that is not a bool (JSON true/false must not become a compile id)."""
    return isinstance(value, int) and not isinstance(value, bool)


# -- graph breaks -----------------------------------------------------------------------------
_GB_AT = re.compile(r"Graph break in user code at (.+?):(\d+)\s*$", re.M)
_GB_URL = re.compile(r"/gb/(gb\d{4})\.html", re.I)
_GB_CODE = re.compile(r"\b(GB\d{4})\b")
_TB_FRAME = re.compile(r'^\s*File "(.+?)", line (\d+), in (.+)$')


def parse_graph_break(text: str) -> dict[str, Any]:
    """Split a dynamo_graph_break_reason payload into type, code, hints and user frame."""
    out: dict[str, Any] = {"reason": text.strip(), "gb_type": None, "gb_code": None,
                           "explanation": None, "hints": [], "filename": None, "lineno": None,
                           "line": None}
    at = _GB_AT.search(text)
    if at:
        out["filename"], out["lineno"] = at.group(1), int(at.group(2))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Graph Break Reason:"):
            rest = line.split(":", 1)[1].strip()
            # New-style: a header line, a blank, then the gb_type on its own line.
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and not lines[j].startswith(" ") and rest.startswith("Encountered"):
                out["gb_type"] = lines[j].strip()
            else:
                out["gb_type"] = rest
            break
    head = text.split("User code traceback:", 1)[0]
    for line in head.splitlines():
        s = line.strip()
        if s.startswith("Explanation:") and out["explanation"] is None:
            out["explanation"] = s.split(":", 1)[1].strip()
        elif s.startswith("Hint:"):
            hint = s.split(":", 1)[1].strip()
            if hint not in out["hints"]:
                out["hints"].append(hint)
    code = _GB_URL.search(text) or _GB_CODE.search(text)
    if code:
        out["gb_code"] = code.group(1).upper()
    # The user frame is the last frame of the "User code traceback" section.
    if "User code traceback:" in text:
        section = text.split("User code traceback:", 1)[1]
        section = section.split("Traceback (most recent call last)", 1)[0]
        tb = section.splitlines()
        for k, line in enumerate(tb):
            m = _TB_FRAME.match(line)
            if m:
                out["filename"], out["lineno"] = m.group(1), int(m.group(2))
                nxt = tb[k + 1].strip() if k + 1 < len(tb) else ""
                out["line"] = nxt if nxt and not nxt.startswith("File ") else None
    if out["gb_type"] is None:
        out["gb_type"] = lines[0].strip() if lines else None
    return out


# -- the op a compile failure names -------------------------------------------------------------
# Inductor's LoweringException appends the failing FX node's stack trace after "Found from :";
# an FX Interpreter error (extra_traceback) appends it after "Original traceback:"; Dynamo's own
# errors end with the user frames it was tracing after "from user code:" (innermost last). Each
# is the user's line of the op that failed, where Dynamo's own frame is only the function.
_NODE_TRACE_MARKERS = ("Found from :", "Original traceback:", "from user code:")


def node_trace_frames(text: str | None) -> list[dict[str, Any]]:
    """The frames (filename, lineno, line) of the first node stack trace in an error text (or
    of the user code Dynamo was tracing)."""
    if not text:
        return []
    at = min((i for i in (text.find(m) for m in _NODE_TRACE_MARKERS) if i >= 0), default=-1)
    if at < 0:
        return []
    frames: list[dict[str, Any]] = []
    lines = text[at:].splitlines()[1:]
    for k, line in enumerate(lines):
        m = _TB_FRAME.match(line)
        if m:
            nxt = lines[k + 1].strip() if k + 1 < len(lines) else ""
            frames.append({"filename": m.group(1), "lineno": int(m.group(2)),
                           "line": nxt if nxt and not nxt.startswith("File ") else None})
        elif frames and not line.strip():
            break  # the trace ends at the first blank line after it began
    return frames


_CODEGEN_FRAME = re.compile(r'^\s*File "[^"]*[/\\]_inductor[/\\]codegen[/\\][^"]*", line \d+, '
                            r'in (\w+)\s*$', re.M)


def codegen_ops(traceback: str | None) -> list[str]:
    """Function names of the traceback's frames inside Inductor's codegen, innermost first.
    A codegen error raised while emitting one op is raised from the op handler's method named
    after it (`cpp.py ... in log1p`), so one of them is the op's name; which one is for the
    caller to check against the graph's nodes."""
    return list(reversed(_CODEGEN_FRAME.findall(traceback or "")))


_QUOTED = re.compile(r"^\s*(?:\d+\s*\|)?\s*(.*?)\s*$")


def kernel_of_error(text: str | None, kernels: list[tuple[str, str]]) -> str | None:
    """The kernel (name, source) whose source holds a line the compiler quoted in its error
    (g++ prints `   15 |   auto tmp1 = ...;`, Triton the line above its caret). Only lines long
    enough to be specific count; with several candidates, the one matching most lines."""
    if not text or not kernels:
        return None
    quoted = set()
    for line in text.splitlines():
        m = _QUOTED.match(line)
        body = m.group(1) if m else ""
        if len(body) >= 12 and not body.startswith(("File ", "/", "In file", "from ")):
            quoted.add(body)
    best, hits = None, 0
    for name, source in kernels:
        lines = {ln.strip() for ln in (source or "").splitlines() if len(ln.strip()) >= 12}
        n = len(quoted & lines)
        if n > hits:
            best, hits = name, n
    if best:
        return best
    # A Triton kernel is Python: its SyntaxError names only the kernel's hashed file, but the
    # traceback passes through the wrapper's line that loads it, `NAME = async_compile.triton(
    # 'NAME', ...`; the innermost such line of a known kernel names it.
    names = {name for name, _ in kernels}
    loaded = [n for n in _ASYNC_LOAD.findall(text) if n in names]
    return loaded[-1] if loaded else None


_ASYNC_LOAD = re.compile(r"=\s*async_compile\.\w+\(\s*'(\w+)'")


def user_line_frame(text: str | None) -> dict[str, Any] | None:
    """A kernel's user line as stored ('file:line  code', graph_node_lines) as a frame."""
    m = re.match(r"^(?P<file>.+?):(?P<line>\d+)(?:  (?P<code>.*))?$", text or "")
    if not m:
        return None
    return {"filename": m.group("file"), "lineno": int(m.group("line")),
            "line": (m.group("code") or "").strip() or None}


_IMPORT_CAUSE = re.compile(r"Failed to import [^\n]*\n\s*(\w+Error: [^\n]{1,200})")


def import_failure_cause(text: str | None) -> str | None:
    """Why generated code did not import: Inductor's "Failed to import FILE" puts the error (a
    SyntaxError in a Triton kernel) on the next line."""
    m = _IMPORT_CAUSE.search(text or "")
    return m.group(1) if m else None


_LOWERING_TARGET = re.compile(r"LoweringException: [^\n]*\n\s*target: (\S+)")


def lowering_target(text: str | None) -> str | None:
    """The op Inductor was lowering when it failed (LoweringException's `target:` line): the
    message alone is often a bare assertion that names nothing."""
    m = _LOWERING_TARGET.search(text or "")
    return m.group(1) if m else None


# -- recompiles -------------------------------------------------------------------------------
_SIZE_MISMATCH = re.compile(r"tensor '(.+?)' (size|stride) mismatch at index (\d+)")
_CID_PREFIX = re.compile(r"^\s*\d+/\d+:\s*")


def parse_recompile_reasons(payload: str | None) -> list[str]:
    if not payload:
        return []
    try:
        value = json.loads(payload)
    except ValueError:
        return [s for s in payload.splitlines() if s.strip()]
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def guard_of(reason: str) -> str:
    """The guard expression a recompile reason names, e.g. L['x'].size()[0]."""
    text = _CID_PREFIX.sub("", reason).strip()
    m = _SIZE_MISMATCH.search(text)
    if m:
        name, what, idx = m.groups()
        src = name if ("[" in name or "." in name) else f"L['{name}']"
        return f"{src}.{'size' if what == 'size' else 'stride'}()[{idx}]"
    return text


# -- failures ---------------------------------------------------------------------------------
STAGES = ("dynamo", "aot", "inductor_lowering", "inductor_codegen", "kernel_compile", "runtime",
          "accuracy")

# Errors of the kernel toolchain or the GPU's limits, named in the exception's type or message
# head (triton.runtime.errors.OutOfResources: 'out of resource: shared memory, Required: ...';
# PTXASError; MLIR's 'PassManager::run failed'; the CUDA launch limit on registers).
KERNEL_TOOLCHAIN_ERRORS = ("CppCompileError", "CompilationError", "PTXASError", "OutOfResources",
                           "out of resource:", "ptxas", "PassManager::run failed",
                           "MLIRCompilationError", "too many resources requested for launch")
_KERNEL_COMPILE = ("CppCompileError", "CompilationError", "triton.compiler", "ptxas",
                   "torch/_inductor/codecache.py", "torch/_inductor/cpp_builder.py",
                   "torch/_inductor/async_compile.py", "torch/_inductor/runtime/triton_heuristics")
_CODEGEN = ("torch/_inductor/codegen/", "torch/_inductor/scheduler.py",
            "torch/_inductor/graph.py\", line", "codegen")
_LOWERING = ("LoweringException", "torch/_inductor/lowering.py", "torch/_inductor/graph.py",
             "torch/_inductor/fx_passes/", "torch/_inductor/decomposition.py",
             "torch/_inductor/compile_fx.py", "torch/_inductor/")
_AOT = ("torch/_functorch/", "torch/_subclasses/", "torch/fx/experimental/proxy_tensor.py")


def classify_stage(exc_type: str | None, message: str | None, traceback: str | None,
                   *, at_runtime: bool = False) -> str:
    """Which compile stage an exception escaped from, from its type, message and frames.

    The deepest torch frame decides: Dynamo wraps backend errors (BackendCompilerFailed,
    InductorError), so the wrapper's own type says little."""
    text = "\n".join(x for x in (exc_type, message, traceback) if x)
    head = (exc_type or "") + " " + (message or "")[:400]
    if any(k in head for k in KERNEL_TOOLCHAIN_ERRORS):
        return "kernel_compile"
    if "LoweringException" in head or "MissingOperatorWith" in head:
        return "inductor_lowering"
    if at_runtime:
        return "runtime"
    frames = [m.group(1) for m in re.finditer(r'File "(.+?)", line \d+', text)]
    deepest = next((f for f in reversed(frames) if "/torch/" in f), "")
    if any(k in deepest for k in _KERNEL_COMPILE):
        return "kernel_compile"
    if deepest.endswith("torch/_inductor/runtime/compile_tasks.py"):
        # Importing generated code failed: a kernel when async_compile was loading it (a
        # Triton kernel's SyntaxError), else the wrapper module Inductor generated.
        loading = any(f.endswith("torch/_inductor/async_compile.py") for f in frames)
        return "kernel_compile" if loading else "inductor_codegen"
    if "torch/_inductor/codegen/" in deepest or deepest.endswith("torch/_inductor/scheduler.py"):
        return "inductor_codegen"
    if "torch/_inductor/" in deepest:
        return "inductor_lowering"
    if any(k in deepest for k in _AOT):
        return "aot"
    if "BackendCompilerFailed" in head or "InductorError" in head:
        # The wrapped error text often names the inner stage even when frames are cut.
        if "compile_fx" in text or "inductor" in text.lower():
            return "inductor_lowering"
        return "aot"
    return "dynamo"


def first_line(text: str | None, limit: int = 500) -> str:
    if not text:
        return ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:limit]


# -- Inductor output code ---------------------------------------------------------------------
_CPP_KERNEL = re.compile(
    r"^(?P<name>\w+) = async_compile\.cpp(?:_pybinding)?\((?:\[.*?\],\s*)?r?'''(?P<src>.*?)'''",
    re.S | re.M)
_TRITON_KERNEL = re.compile(
    r"^(?P<name>\w+) = async_compile\.triton\('(?P<kname>\w+)',\s*r?'''(?P<src>.*?)'''",
    re.S | re.M)
_SOURCE_NODES = re.compile(
    r"#\s*(?:Topologically Sorted )?Source Nodes: \[(?P<nodes>[^\]]*)\]"
    r"(?:, Original ATen: \[(?P<aten>[^\]]*)\])?")
_EXTERN = re.compile(r"\bextern_kernels\.(\w+)\(")
_FUSED_PREFIX = re.compile(r"^(?:cpp|triton)_(?:poi|red|per|tem|for|spl)?_?fused_")


def parse_output_code(code: str, post_grad_nodes: dict[str, str] | None = None
                      ) -> list[dict[str, Any]]:
    """Every kernel an Inductor wrapper defines (C++ or Triton) plus its extern calls.

    FX nodes come from Inductor's own 'Source Nodes' comments where it writes them (Triton,
    extern calls); C++ kernels carry none, so their ops come from the fused name and are
    matched to post-grad nodes by ATen op (`post_grad_nodes`: node name -> user line)."""
    kernels: list[dict[str, Any]] = []
    for backend, pattern in (("cpp", _CPP_KERNEL), ("triton", _TRITON_KERNEL)):
        for m in pattern.finditer(code):
            name = m.group("name")
            src = m.group("src")
            # Comments just above the definition (Triton) or inside the source.
            before = code[max(0, m.start() - 2000):m.start()]
            block = before.rsplit("\n\n\n", 1)[-1] + "\n" + src[:4000]
            nodes, aten = [], []
            sm = None
            for sm in _SOURCE_NODES.finditer(block):
                pass
            if sm:
                nodes = [n.strip() for n in sm.group("nodes").split(",") if n.strip()]
                aten = [a.strip() for a in (sm.group("aten") or "").split(",") if a.strip()]
            fused = _fused_ops(name)
            kernels.append({"name": name, "backend": backend, "source": src.strip("\n"),
                            "fx_nodes": nodes, "fused_ops": fused or aten})
    for call in _call_sites(code, "extern_kernels."):
        kernels.append(call)
    if post_grad_nodes:
        for k in kernels:
            if not k["fx_nodes"]:
                k["fx_nodes"] = [n for n in post_grad_nodes
                                 if _node_op(n) in set(k["fused_ops"])]
            k["user_lines"] = sorted({post_grad_nodes[n] for n in k["fx_nodes"]
                                      if post_grad_nodes.get(n)})
    else:
        for k in kernels:
            k["user_lines"] = []
    return kernels


def _node_op(node: str) -> str:
    return re.sub(r"_\d+$", "", node)


def _fused_ops(name: str) -> list[str]:
    m = _FUSED_PREFIX.match(name)
    if not m:
        return []
    rest = re.sub(r"_\d+$", "", name[m.end():])
    return [p for p in rest.split("_") if p]


def _call_sites(code: str, prefix: str) -> list[dict[str, Any]]:
    out = []
    lines = code.splitlines()
    for i, line in enumerate(lines):
        m = _EXTERN.search(line)
        if not m or prefix not in line:
            continue
        nodes, aten = [], []
        for back in range(i - 1, max(-1, i - 4), -1):
            sm = _SOURCE_NODES.search(lines[back])
            if sm:
                nodes = [n.strip() for n in sm.group("nodes").split(",") if n.strip()]
                aten = [a.strip() for a in (sm.group("aten") or "").split(",") if a.strip()]
                break
        out.append({"name": f"extern_kernels.{m.group(1)}", "backend": "extern",
                    "source": line.strip(), "fx_nodes": nodes, "fused_ops": aten})
    return out


# '# File: f.py:8 in step, code: ...'; torch 2.15 writes a backward node's as '# Backward of
# forward node: File: f.py:8 in step, code: ...'.
_GRAPH_FILE = re.compile(r"#[^#\n]*?\bFile: (?P<file>.+?):(?P<line>\d+) in (?P<fn>[^,]+), "
                         r"code: (?P<code>.*)")
_GRAPH_NODE = re.compile(
    r"^\s*(?P<name>\w+)(?:: \"(?P<meta>[^\"]*)\")? = torch\.ops\.(?P<op>[\w.]+)\(")


def graph_node_lines(graph_text: str | None) -> dict[str, str]:
    """Post-grad graph node -> 'file:line  code' from the '# File:' comments torch writes."""
    return node_lines(graph_nodes(graph_text))


def node_lines(nodes: list[dict[str, Any]]) -> dict[str, str]:
    """graph_nodes' rows as node -> 'file:line  code' ('' for a node torch noted no line for)."""
    return {n["node"]: f"{n['filename']}:{n['lineno']}  {n['line']}" if n["filename"] else ""
            for n in nodes}


# -- artifact-logger lines (live capture only) ------------------------------------------------
_FUSING = re.compile(r"fusing (\S+) with (\S+)")
_CANNOT = re.compile(r"cannot fuse (\S+) with (\S+): (.*)")


def parse_fusion_line(msg: str) -> dict[str, Any] | None:
    m = _CANNOT.search(msg)
    if m:
        return {"node1": m.group(1), "node2": m.group(2), "fused": False,
                "reason": m.group(3).strip()}
    m = _FUSING.search(msg)
    if m and m.group(2).rstrip(":,"):
        return {"node1": m.group(1), "node2": m.group(2).rstrip(":,"), "fused": True,
                "reason": None}
    return None


CID_IN_LINE = re.compile(r"^\s*\[(!?\d+/\d+(?:_\d+)?)\]")
CUDAGRAPH_RECORDING = re.compile(r"Recording function=|Recording function \d+")
_CG_SKIP = re.compile(r"skipping cudagraphs due to (.*)", re.I | re.S)


_PARTITION_OP = re.compile(r"^\s*(\w+): reason=(.+?), ir=\w+, fx=(.+)$")


def parse_partition_skip(msg: str) -> str | None:
    """Graph partitioning (torch >= 2.9) keeps CUDA graphs for the rest of the graph and logs
    each op it leaves out: 'op1: reason=cpu ops, ir=ComputedBuffer, fx=aten.add.Tensor(...)'."""
    m = _PARTITION_OP.match(msg)
    if not m or "when cudagraphs is disabled" in m.group(2):
        # Partitioning also runs without CUDA graphs (mode default) and says so per op: no
        # skip, nothing was asked of CUDA graphs.
        return None
    return f"partition left out of CUDA graphs: {m.group(2)} ({m.group(3).strip()})"


def parse_cudagraph_skip(msg: str) -> str | None:
    m = _CG_SKIP.search(msg)
    return m.group(1).strip() if m else None


# -- CUDA-graph coverage: recordings, partitions (cudagraph_trees and the scheduler log them) ---
_CG_RECORDED = re.compile(r"Recording function=(?P<fn>\w+), cuda_graph_id=(?P<gid>\d+)"
                          r"(?:, inputs: (?P<inputs>.*))?", re.S)
_CG_TENSOR_IN = re.compile(r"Tensor\(size=\[(?P<size>[^\]]*)\]")
_CG_INT_IN = re.compile(r"\]: int\((?P<v>-?\d+)\)")
_CG_PARTITIONS = re.compile(r"Created (\d+) graph partitions: (\d+) cudagraphable, "
                            r"(\d+) non-cudagraphable")
_RUNNER_PARTITIONS = re.compile(r"^runner = Runner\(partitions=\[(?P<names>[^\]]*)\]\)", re.M)


def parse_cudagraph_recording(msg: str) -> dict[str, Any] | None:
    """One CUDA-graph recording (cudagraph_trees, DEBUG): 'Recording function=partition_0,
    cuda_graph_id=2, inputs: [0]: Tensor(size=[1024], ...), [1]: int(1024)'. Each distinct
    set of input sizes records its own graph; the sizes say which."""
    m = _CG_RECORDED.search(msg)
    if not m:
        return None
    inputs = m.group("inputs") or ""
    sizes = [[int(x) for x in t.group("size").replace(" ", "").split(",") if x.lstrip("-").isdigit()]
             for t in _CG_TENSOR_IN.finditer(inputs)]
    return {"function": m.group("fn"), "graph_id": int(m.group("gid")), "sizes": sizes,
            "symints": [int(i.group("v")) for i in _CG_INT_IN.finditer(inputs)]}


def parse_partition_summary(msg: str) -> dict[str, int] | None:
    """The scheduler's 'Created 2 graph partitions: 1 cudagraphable, 1 non-cudagraphable'."""
    m = _CG_PARTITIONS.search(msg)
    if not m:
        return None
    return {"partitions": int(m.group(1)), "cudagraphable": int(m.group(2)),
            "non_cudagraphable": int(m.group(3))}


def parse_partition_op(msg: str) -> dict[str, str] | None:
    """An op a partition keeps out of CUDA graphs ('op0: reason=cpu ops, ir=DeviceCopy,
    fx=prims.device_put.default(arg1_1, cpu)'); its fx part is absent for some ops."""
    m = re.match(r"^\s*(\w+): reason=(.+?), ir=\w+(?:, fx=(.+))?$", msg.strip("\n"))
    if not m or "when cudagraphs is disabled" in m.group(2):
        return None
    return {"node": m.group(1), "reason": m.group(2).strip(), "fx": (m.group(3) or "").strip()}


def output_code_partitions(code: str | None) -> list[str] | None:
    """The CUDA-graphed partitions an Inductor wrapper runs ('runner = Runner(partitions=
    [partition_0, partition_1,])'); None when the graph was not partitioned. A cache hit logs
    no scheduling, so this is all a cached compile tells."""
    m = _RUNNER_PARTITIONS.search(code or "")
    if not m:
        return None
    return [n.strip() for n in m.group("names").split(",") if n.strip()]


_CALL_WORK = re.compile(r"^\s*(?:\w+ = )?(?:(?P<copy>\w+\.copy_)\(|(?P<kernel>(?:cpp|triton)_\w+)"
                        r"(?:\.run)?\(|extern_kernels\.(?P<ext>\w+)\(|torch\.ops\.(?P<op>[\w.]+)\()")


def output_code_splits(code: str | None) -> dict[str, Any] | None:
    """A partitioned wrapper's work outside its CUDA-graphed partitions: in `call`, each run of
    kernels, copies and extern calls between `self.partitions[i](...)` calls is one partition
    that runs without CUDA graphs (what a cache hit tells of the split; no scheduler log)."""
    names = output_code_partitions(code)
    if names is None:
        return None
    body = (code or "").split("    def call(self, args):", 1)
    if len(body) < 2:
        return {"cudagraphable": len(names), "non_cudagraphable": None, "work": []}
    runs, current, work = 0, False, []
    for line in body[1].split("\nrunner = Runner", 1)[0].splitlines():
        if "self.partitions[" in line:
            current = False
            continue
        m = _CALL_WORK.match(line)
        if m:
            what = m.group("copy") or m.group("kernel") or m.group("ext") or m.group("op")
            work.append({"node": what, "reason": "device copy" if m.group("copy") else
                         "cpu kernel" if what.startswith("cpp_") else "outside the partitions",
                         "fx": line.strip()})
            if not current:
                runs, current = runs + 1, True
    return {"cudagraphable": len(names), "non_cudagraphable": runs, "work": work}


# -- missed epilogue fusion: a library mm/conv whose output a separate pointwise kernel reads --
_EPILOGUE_HOSTS = ("mm", "addmm", "bmm", "baddbmm", "convolution")
_EXTERN_OUT = re.compile(r"^\s*(?:(?P<ret>\w+) = )?extern_kernels\.(?P<op>\w+)\((?P<args>.*)\)\s*$")
_REUSE = re.compile(r"^\s*(?P<new>\w+) = (?P<old>\w+); del \w+\s*# reuse")
_TRITON_RUN = re.compile(r"^\s*(?P<kernel>triton_\w+)\.run\((?P<args>.*)\)\s*$")
_OUT_KW = re.compile(r"\bout=(\w+)")


def epilogue_misses(code: str | None) -> list[dict[str, str]]:
    """Where a library matmul/convolution's output is read next by a separate Triton
    pointwise kernel, in the wrapper's `call`: `extern_kernels.mm(a, b, out=buf0)` then
    `triton_poi_fused_add_relu_0.run(buf0, ...)` (through `buf1 = buf0; del buf0  # reuse`).
    A Triton template (max-autotune) could have run that pointwise work in its epilogue."""
    out: list[dict[str, str]] = []
    pending: dict[str, tuple[str, str]] = {}  # buffer -> (op, original buffer)
    for line in (code or "").splitlines():
        m = _EXTERN_OUT.match(line)
        if m and m.group("op") in _EPILOGUE_HOSTS:
            kw = _OUT_KW.search(m.group("args"))
            buf = kw.group(1) if kw else m.group("ret")
            if buf:
                pending[buf] = (m.group("op"), buf)
            continue
        r = _REUSE.match(line)
        if r and r.group("old") in pending:
            pending[r.group("new")] = pending.pop(r.group("old"))
            continue
        t = _TRITON_RUN.match(line)
        if t and pending:
            args = {a.strip() for a in t.group("args").split(",")}
            for buf in [b for b in pending if b in args]:
                op, first = pending.pop(buf)
                if t.group("kernel").startswith("triton_poi"):
                    out.append({"op": f"extern_kernels.{op}", "buffer": first,
                                "kernel": t.group("kernel")})
    return out


# -- warnings torch gives while compiling (warnings.warn, captured in the child) ---------------
TF32_WARNING = "TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled"


# -- facts explain reads (stored at ingest; see store/schema.py, schema 2) ----------------------
_GB_WRAPPER = "Failed to handle graph break gracefully"
_DEBUG_CTX = re.compile(r"Developer debug context:\s*(.*)")


def graph_break_details(payload: str) -> dict[str, Any]:
    """What a dynamo_graph_break_reason payload says beyond type, code and hints: the inner
    graph-break type under Dynamo's 'failed gracefully' wrapper, the developer debug context,
    the user traceback's frames, and whether Dynamo skipped the whole frame."""
    inner = None
    lines = payload.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Graph Break Reason:") and _GB_WRAPPER in line:
            for nxt in lines[i + 1:]:
                if nxt.strip():
                    inner = nxt.strip()
                    break
            break
    m = _DEBUG_CTX.search(payload.split("User code traceback:", 1)[0])
    user_tb = ""
    if "User code traceback:" in payload:
        user_tb = payload.split("User code traceback:", 1)[1]
        user_tb = user_tb.split("Traceback (most recent call last)", 1)[0]
    return {"gb_type_inner": inner, "debug_context": m.group(1).strip() if m else "",
            "user_stack": frames_in(user_tb),
            "frame_skipped": _GB_WRAPPER in payload or "Skipping frame" in payload}


def debug_context(text: str | None) -> str:
    """The 'Developer debug context:' of a graph-break or Unsupported error text."""
    m = _DEBUG_CTX.search(text or "")
    return m.group(1) if m else ""


_EXPECTED = re.compile(r"expected (?P<before>[^,]+?), actual (?P<after>\S+)")
_EQ_GUARD = re.compile(r"^(?P<lhs>.+?)\s*==\s*(?P<value>.+?)\s*(?:#.*)?$")
_GUARD_LOC = re.compile(r"#\s*(?P<code>.*?)\s+#\s*(?P<file>[^#:]+):(?P<line>\d+) in (?P<fn>\S+)\s*$")


def split_recompile(text: str) -> tuple[str, list[dict[str, Any]]]:
    """'0/0: guard  # code  # file:line in fn\\nUser stack trace: ...' -> (guard, frames)."""
    text = _CID_PREFIX.sub("", text).strip()
    head, _, stack = text.partition("User stack trace:")
    return head.strip().splitlines()[0].strip() if head.strip() else text, frames_in(stack)


def guard_location(guard_text: str) -> dict[str, Any] | None:
    """Where the failed guard's value is read: the '# code  # file:line in fn' torch appends."""
    loc = _GUARD_LOC.search(guard_text)
    if not loc:
        return None
    return {"filename": loc.group("file"), "lineno": int(loc.group("line")),
            "line": loc.group("code")}


def classify_guard(text: str) -> dict[str, Any]:
    """A failed guard as {category, source, tensor, before, after}."""
    t = text.strip()
    code_part = t.split("#", 1)[0].strip()
    m = _SIZE_MISMATCH.search(t)
    if m:
        ex = _EXPECTED.search(t)
        return {"category": "size" if m.group(2) == "size" else "stride",
                "source": guard_of(t), "tensor": m.group(1),
                "before": ex.group("before") if ex else None,
                "after": ex.group("after") if ex else None}
    m = re.search(r"tensor '(.+?)' (dtype|device|requires_grad|dispatch key set|rank)"
                  r"(?: mismatch)?", t)
    if m:
        ex = _EXPECTED.search(t)
        before = ex.group("before") if ex else None
        after = ex.group("after") if ex else None
        if m.group(2) == "requires_grad":
            rg = re.search(r"requires_grad=(\d)", t)
            if rg:
                before = "requires_grad=" + ("True" if rg.group(1) == "1" else "False")
                after = "requires_grad=" + ("False" if rg.group(1) == "1" else "True")
        return {"category": m.group(2).replace(" ", "_"), "source": f"L['{m.group(1)}']",
                "tensor": m.group(1), "before": before, "after": after}
    if t.startswith("GLOBAL_STATE"):
        what = t.split(":", 1)[1].strip() if ":" in t else "global state"
        return {"category": "global_state", "source": what, "tensor": None, "before": None,
                "after": None}
    m = _EQ_GUARD.match(code_part)
    if m:
        lhs, value = m.group("lhs").strip(), m.group("value").strip()
        if lhs.endswith(".training"):
            cat = "training"
        elif lhs.startswith("len("):
            cat = "length"
        elif lhs.startswith("G[") or lhs.startswith("___as_tensor(G"):
            cat = "global"
        else:
            cat = "value"
        return {"category": cat, "source": lhs, "tensor": None, "before": value, "after": None}
    if "ID_MATCH" in t or "___check_obj_id" in t or " is " in code_part:
        src = re.search(r"\((.+?),", code_part)
        return {"category": "identity", "source": src.group(1) if src else code_part,
                "tensor": None, "before": None, "after": None}
    if "TYPE_MATCH" in t or "___check_type_id" in t:
        src = re.search(r"\((.+?),", code_part)
        return {"category": "type", "source": src.group(1) if src else code_part,
                "tensor": None, "before": None, "after": None}
    return {"category": "other", "source": code_part[:120], "tensor": None, "before": None,
            "after": None}


_GUARD_TREE = re.compile(r"^[\s|+\-]*(?:[A-Z_]+:\s*)?(?P<lhs>.+?)\s*==\s*(?P<value>.+)$")


def guard_values(guards_text: str | None) -> list[tuple[str, str]]:
    """(expression, value) of every `X == V` guard in a dynamo_cpp_guards_str tree: the value
    a recompiled entry holds for the guard that failed against the previous one."""
    out: list[tuple[str, str]] = []
    for line in (guards_text or "").splitlines():
        if "==" not in line:
            continue  # most of a guard tree; the regex would scan each such line lazily
        body = line.split("  #", 1)[0].rstrip()
        m = _GUARD_TREE.match(body)
        if m and "==" not in m.group("lhs"):
            out.append((m.group("lhs").strip(), m.group("value").strip()))
    return out


def graph_nodes(graph_text: str | None) -> list[dict[str, Any]]:
    """Post-grad graph nodes with their ATen op and the user line torch noted ('# File:')."""
    out: list[dict[str, Any]] = []
    if not graph_text:
        return out
    where: dict[str, Any] | None = None
    for line in graph_text.splitlines():
        fm = _GRAPH_FILE.search(line)
        if fm:
            where = {"filename": fm.group("file"), "lineno": int(fm.group("line")),
                     "line": fm.group("code").strip()}
            continue
        nm = _GRAPH_NODE.match(line)
        if nm:
            out.append({"node": nm.group("name"), "op": _node_op(nm.group("name")),
                        "target": nm.group("op"), "meta": nm.group("meta"),
                        **(where or {"filename": None, "lineno": None, "line": None})})
    return out


_ATEN_CALL = re.compile(r"^\s+\w+ = torch\.ops\.aten\.(\w+)\.\w+\(", re.M)


def fallback_calls(output_code: str | None) -> list[str]:
    """ATen ops the Inductor wrapper calls directly (`buf1 = torch.ops.aten.cumsum.default(`):
    fallback kernels, which the kernels table (generated and extern_kernels.* calls) omits."""
    if not output_code:
        return []
    return list(dict.fromkeys(f"aten.{op}" for op in _ATEN_CALL.findall(output_code)))


def injected_bugs(metrics: dict[str, Any]) -> dict[str, Any]:
    """Inductor's *_TESTING_ONLY bug injectors switched on in a compile's inductor_config
    (compilation_metrics holds that config as a JSON string)."""
    cfg = metrics.get("inductor_config") if isinstance(metrics, dict) else None
    if isinstance(cfg, str):
        try:
            cfg = json.loads(cfg)
        except ValueError:
            cfg = None
    found: dict[str, Any] = {}
    if isinstance(cfg, dict):
        for k, v in cfg.items():
            if "inject_" in k and k.endswith("TESTING_ONLY") and v not in (None, False, ""):
                found[k] = v
    return found


_FALLBACK_HINT = re.compile(r"FallbackKernel:\s*(?:torch\.ops\.)?aten\.(\w+)")


def perf_hint(message: str) -> dict[str, Any]:
    """An Inductor perf_hints line: its first line, the frames it quotes, and the ATen op when
    it reports a fallback kernel."""
    msg = message.strip()
    fb = _FALLBACK_HINT.search(msg)
    return {"message": msg, "head": first_line(msg, 300), "frames": frames_in(msg),
            "fallback_op": fb.group(1) if fb else None}


def call_stack(payload: str) -> dict[str, Any] | None:
    """capture's call_stack record (JSON: frames, objects) as call_stacks columns; None for a
    payload that is not one."""
    try:
        doc = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("frames"), list):
        return None
    frames = [{"filename": f.get("filename"), "lineno": f.get("lineno"),
               "line": f.get("line"), "name": f.get("name")}
              for f in doc["frames"] if isinstance(f, dict)]
    objects = doc.get("objects") if isinstance(doc.get("objects"), dict) else {}
    return {"frames": frames, "objects": {
        str(k): v for k, v in objects.items()
        if isinstance(v, list) and len(v) == 2 and isinstance(v[1], int)}}


_SCHED_NODE = re.compile(r"^\s*\w*SchedulerNode\(name='(?P<name>[\w]+)'\)")
_ORIGINS = re.compile(r"origins=OrderedSet\(\[(?P<names>[^\]]*)\]\)")
_QUOTED_FRAME = re.compile(r"File \"(?P<file>.+?)\", line (?P<line>\d+), in (?P<fn>[^'\"]+)")


def scheduler_node(msg: str) -> dict[str, Any] | None:
    """One entry of the fusion logger's candidate list: a scheduler node ('op3'), the FX nodes
    it came from and the user lines of their stack traces. A fusion decision names scheduler
    nodes only; this is how it reaches the user's code."""
    m = _SCHED_NODE.match(msg)
    if not m:
        return None
    origins: list[str] = []
    for om in _ORIGINS.finditer(msg):
        origins += [n.strip() for n in om.group("names").split(",") if n.strip()]
    frames = []
    # The stack traces are a list repr: 'File "f.py", line 4, in f', '    code', ...
    parts = re.split(r"',\s*'|\",\s*'|',\s*\"", msg)
    for i, part in enumerate(parts):
        fm = _QUOTED_FRAME.search(part)
        if fm:
            code = parts[i + 1].strip() if i + 1 < len(parts) else ""
            frames.append({"filename": fm.group("file"), "lineno": int(fm.group("line")),
                           "line": code if code and not code.startswith(("File ", "^")) else None})
    return {"name": m.group("name"), "origins": list(dict.fromkeys(origins)),
            "frames": frames}


def scheduler_node_names(name: str) -> list[str]:
    """The scheduler nodes a fused node's name joins ('op0_op1_op6' -> op0, op1, op6)."""
    parts = re.findall(r"(?:op|buf)\d+", name)
    return parts or [name]


_GUARD_LINE = re.compile(r"^(?P<indent>(?:\| )*)\+- (?P<body>.*)$")
_GUARD_MANAGER = re.compile(r"^\w*GuardManager: source=(?P<source>.+?)(?:, accessed_by=|, type=|$)")
_LEAF_GUARD = re.compile(r"^[A-Z][A-Z0-9_]+:")


def guard_sources(guards_text: str | None) -> dict[str, int]:
    """Source -> how many leaf guards check it, in a dynamo_cpp_guards_str tree: each guard
    counts for the innermost GuardManager around it ('(global)' for the root's own: global
    state, torch function mode). Where a guard count explodes, the sources with the most
    guards say which inputs or module attributes cause it."""
    counts: dict[str, int] = {}
    managers: list[tuple[int, str]] = []  # (depth, source) of the enclosing managers
    for line in (guards_text or "").splitlines():
        m = _GUARD_LINE.match(line.strip())
        if not m:
            continue
        depth = len(m.group("indent")) // 2
        body = m.group("body")
        while managers and managers[-1][0] >= depth:
            managers.pop()
        manager = _GUARD_MANAGER.match(body)
        if manager:
            managers.append((depth, manager.group("source").strip()))
        elif _LEAF_GUARD.match(body):
            source = managers[-1][1] if managers else "(global)"
            counts[source] = counts.get(source, 0) + 1
    return counts


# An artifact `<cache>_cache_<result>`: fx_graph_cache_hit, aotautograd_cache_bypass, ...
_CACHE_ARTIFACT = re.compile(r"^(?P<cache>\w+?)_cache_(?P<result>hit|miss|bypass|disabled)$")
_KEY_COMPONENT = re.compile(r"^\[(?P<hash>[0-9a-z]+)\] (?P<name>[^:\n]+?): ?(?P<value>.*)$", re.S)
COMPONENT_VALUE_LIMIT = 20000  # a component's text kept (a graph's code, a config value)


def cache_artifact(name: str) -> tuple[str, str] | None:
    """(cache, result) of a cache artifact's name, None for any other artifact."""
    m = _CACHE_ARTIFACT.match(name)
    return (m.group("cache"), m.group("result")) if m else None


def key_component(line: Any) -> dict[str, str] | None:
    """One line of torch's cache key details, '[HASH] NAME: VALUE' (FxGraphCachePickler's
    debug_lines, also logged as 'FX graph cache hash details for key K'), as name, hash and
    value; None for anything else."""
    if not isinstance(line, str):
        return None
    m = _KEY_COMPONENT.match(line)
    if not m:
        return None
    return {"name": m.group("name").strip(), "hash": m.group("hash"),
            "value": m.group("value")[:COMPONENT_VALUE_LIMIT]}


def cache_lookup(payload: str | None) -> dict[str, Any]:
    """The facts of one cache artifact's JSON payload (cache_info): the key, the bypass
    reason, torch's detailed state, the time a hit saved and the key's components. Missing or
    unreadable fields are None (the payload's keys differ between torch versions)."""
    try:
        info = json.loads(payload) if payload else {}
    except ValueError:
        info = {}
    if not isinstance(info, dict):
        info = {}
    key = next((info[k] for k in ("key", "cache_key", "fx_graph_cache_key",
                                  "aot_autograd_cache_key") if isinstance(info.get(k), str)), None)
    saved = None
    if isinstance(info.get("time_saved_ns"), (int, float)):
        saved = info["time_saved_ns"] / 1e9
    elif isinstance(info.get("time_saved_ms"), (int, float)):
        saved = info["time_saved_ms"] / 1e3
    reason = info.get("cache_bypass_reason")
    lines = info.get("components")
    components = [c for c in map(key_component, lines) if c] if isinstance(lines, list) else []
    return {"key": key, "reason": str(reason) if reason else None,
            "detail": info.get("cache_status_detailed") if isinstance(
                info.get("cache_status_detailed"), str) else None,
            "time_saved_s": saved, "components": components}


# compilation_metrics' remote-cache counters: (cache, count field prefix, keys field prefix).
_REMOTE_CACHES = (("fx_graph_remote", "inductor_fx_remote_cache", "inductor_fx_remote_cache"),
                  ("aotautograd_remote", "aotautograd_remote_cache", None))


def remote_cache_lookups(metrics: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(cache, hit|miss, key) of each remote-cache lookup a compile's metrics count (a remote
    cache logs no artifact of its own): one per key where torch lists them (comma-separated),
    else one per count without a key."""
    out: list[tuple[str, str, str | None]] = []
    for cache, counts, keys_field in _REMOTE_CACHES:
        for result in ("hit", "miss"):
            n = metrics.get(f"{counts}_{result}_count")
            if not _is_int(n) or n <= 0:
                continue
            keys = metrics.get(f"{keys_field}_{result}_keys") if keys_field else None
            listed = [k for k in keys.split(",") if k and k != "<unknown>"] \
                if isinstance(keys, str) else []
            if listed:
                out.extend((cache, result, k) for k in listed[:n])
            else:
                out.extend((cache, result, None) for _ in range(min(n, 1000)))
    return out
