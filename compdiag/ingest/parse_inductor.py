"""Parsers of Inductor's records: the output code (kernels, their FX nodes and user lines,
extern calls, missed epilogue fusions, ATen fallbacks), post-grad graphs' nodes, the fusion
and scheduler loggers' lines, perf hints, the bug injectors in a compile's config. Pure text
(re-exported by ingest/parsers.py)."""

from __future__ import annotations

import json
import re
from typing import Any

from compdiag.formats import lazy_re
from compdiag.formats.user_code import frames_in, is_user_file
from compdiag.ingest.graph_calls import NO_STACK
from compdiag.ingest.parse_text import first_line


# -- a kernel's user line --------------------------------------------------------------------
def user_line_frame(text: str | None) -> dict[str, Any] | None:
    """A kernel's user line as stored ('file:line  code', graph_node_lines) as a frame."""
    m = re.match(r"^(?P<file>.+?):(?P<line>\d+)(?:  (?P<code>.*))?$", text or "")
    if not m:
        return None
    return {"filename": m.group("file"), "lineno": int(m.group("line")),
            "line": (m.group("code") or "").strip() or None}


def user_frames(lines: Any) -> list[dict[str, Any]]:
    """The user frames of graph nodes' or a kernel's 'file:line  code' lines."""
    return [f for f in map(user_line_frame, lines) if f and is_user_file(f.get("filename"))]


# -- Inductor output code ---------------------------------------------------------------------
_CPP_KERNEL = lazy_re.compile(
    r"^(?P<name>\w+) = async_compile\.cpp(?:_pybinding)?\((?:\[.*?\],\s*)?r?'''(?P<src>.*?)'''",
    re.S | re.M)
_TRITON_KERNEL = lazy_re.compile(
    r"^(?P<name>\w+) = async_compile\.triton\('(?P<kname>\w+)',\s*r?'''(?P<src>.*?)'''",
    re.S | re.M)
_SOURCE_NODES = lazy_re.compile(
    r"#\s*(?:Topologically Sorted )?Source Nodes: \[(?P<nodes>[^\]]*)\]"
    r"(?:, Original ATen: \[(?P<aten>[^\]]*)\])?")
_EXTERN = lazy_re.compile(r"\bextern_kernels\.(\w+)\(")
_FUSED_PREFIX = lazy_re.compile(r"^(?:cpp|triton)_(?:poi|red|per|tem|for|spl)?_?fused_")


def parse_output_code(code: str, post_grad_nodes: dict[str, str] | None = None,
                      other_nodes: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Every kernel an Inductor wrapper defines (C++ or Triton) plus its extern calls.

    FX nodes come from Inductor's own 'Source Nodes' comments where it writes them (Triton,
    extern calls); C++ kernels carry none, so their ops come from the fused name and are
    matched to post-grad nodes by ATen op (`post_grad_nodes`: node name -> user line).
    `other_nodes` (the Dynamo graph's, name -> user line) give the lines of Source Nodes that
    name those (torch 2.11's CUDA kernels), never a kernel's nodes of their own."""
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
                                 if node_op(n) in set(k["fused_ops"])]
            k["user_lines"] = sorted({post_grad_nodes[n] for n in k["fx_nodes"]
                                      if post_grad_nodes.get(n)})
    else:
        for k in kernels:
            k["user_lines"] = []
    for k in kernels if other_nodes else ():
        # only a kernel whose nodes the post-grad graph does not name and the Dynamo graph
        # names every one of: a post-grad `add` is no Dynamo `add` of another line
        names = k["fx_nodes"]
        if not k["user_lines"] and names and all(n in other_nodes for n in names) and \
                not any(n in (post_grad_nodes or {}) for n in names):
            k["user_lines"] = sorted({other_nodes[n] for n in names if other_nodes.get(n)})
    return kernels


_WRAPPER_CALL = lazy_re.compile(r"^\s*(?:[\w, ]+=\s*)?(?P<name>[\w.]+?)(?:\.run)?\(")


# A wrapper line that allocates a kernel's buffer (`buf1 = empty_strided_cpu((s0, s0), ...)`,
# `_cuda`, `_xpu`, `_mps`, or torch.empty_strided): an exception there (out of memory) is about
# the buffer of the first kernel that takes it, whose ops' lines ask for that memory.
_WRAPPER_ALLOC = lazy_re.compile(r"^\s*(?P<buf>buf\d+) = (?:torch\.)?empty_strided(?:_\w+)?\(")
_BUFFER = lazy_re.compile(r"\bbuf\d+\b")


def wrapper_kernel_calls(code: str, kernels: list[dict[str, Any]], compile_id: str | None
                         ) -> dict[int, dict[str, Any]]:
    """The wrapper lines (1-based, as a traceback or faulthandler's dump numbers the output
    code's module) that call one of `kernels` (kernels rows or parse_output_code's:
    `cpp_fused_x_0(buf0, ...)`, `triton_poi_fused_x_0.run(...)`, `extern_kernels.mm(...)`), each
    as {kernel, kernel_compile_id, kernel_frames (the user lines of its ops)}. A kernel's
    definition line (`NAME = async_compile...`) is not a call. A line that allocates a buffer
    maps to the first kernel call that takes the buffer, with `alloc` (the buffer's name) and
    that kernel's op lines whatever its backend: an allocation fails on the host, before any
    launch (an out-of-memory error is about the memory those ops' output asks for).

    A Triton kernel runs on the GPU, launched asynchronously: a host crash (SIGSEGV) on its
    launch line is in the launcher or the driver, with the arguments the program passed, never
    in the kernel's ops, so its call carries no op lines (the user's call is the line)."""
    names = {k["name"]: k for k in kernels}
    out: dict[int, dict[str, Any]] = {}
    pending: dict[str, int] = {}  # buffer -> the line that allocated it, until a kernel takes it
    for i, line in enumerate(code.splitlines(), 1):
        a = _WRAPPER_ALLOC.match(line)
        if a:
            pending[a.group("buf")] = i
            continue
        m = _WRAPPER_CALL.match(line)
        k = names.get(m.group("name")) if m else None
        if k is not None:
            on_host = k.get("backend") != "triton"
            out[i] = {"kernel": k["name"], "kernel_compile_id": compile_id,
                      "kernel_frames": user_frames(k.get("user_lines") or []) if on_host
                      else []}
            args = set(_BUFFER.findall(line[m.end():]))
            for buf in [b for b in pending if b in args]:
                out[pending.pop(buf)] = {"kernel": k["name"], "kernel_compile_id": compile_id,
                                         "kernel_frames": user_frames(k.get("user_lines")
                                                                      or []),
                                         "alloc": buf}
    return out


def node_op(node: str) -> str:
    """A graph node's op by its name: `index_put_1` -> `index_put`."""
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
_GRAPH_FILE = lazy_re.compile(r"#[^#\n]*?\bFile: (?P<file>.+?):(?P<line>\d+) in (?P<fn>[^,]+), "
                         r"code: (?P<code>.*)")
_GRAPH_NODE = lazy_re.compile(
    r"^\s*(?P<name>\w+)(?:: \"(?P<meta>[^\"]*)\")? = torch\.ops\.(?P<op>[\w.]+)\(")
_GRAPH_ITEM = lazy_re.compile(r"^\s*\w+(?:: \"[^\"]*\")? = (?P<of>\w+)\[\d+\]")


_STRING_ARG = lazy_re.compile(r"""\(\s*\w+,\s*(?P<q>["'])(?P<msg>.+?)(?P=q)\s*\)""")


def assertion_frames(graph_text: str | None) -> dict[str, dict[str, Any]]:
    """The runtime assertions a traced graph (Dynamo's output graph, AOTAutograd's) checks,
    as {the message it raises: the user frame of its node ('# File:')}: a deferred
    `torch._check` or a size check becomes `aten._assert_scalar(cond, "Runtime assertion
    failed for expression ... on node 'le'")`, and that message is all the failure says."""
    out: dict[str, dict[str, Any]] = {}
    frame = None
    for line in (graph_text or "").splitlines():
        m = _GRAPH_FILE.search(line)
        if m:
            frame = {"filename": m.group("file"), "lineno": int(m.group("line")),
                     "line": m.group("code").strip() or None}
            continue
        if frame is not None and "_assert" in line:
            a = _STRING_ARG.search(line)
            if a:
                out.setdefault(a.group("msg"), frame)
    return out


def graph_node_lines(graph_text: str | None) -> dict[str, str]:
    """Post-grad graph node -> 'file:line  code' from the '# File:' comments torch writes."""
    return node_lines(graph_nodes(graph_text))


def node_lines(nodes: list[dict[str, Any]]) -> dict[str, str]:
    """graph_nodes' rows as node -> 'file:line  code' ('' for a node torch noted no line for)."""
    return {n["node"]: f"{n['filename']}:{n['lineno']}  {n['line']}" if n["filename"] else ""
            for n in nodes}


# -- the fusion logger's lines (live capture only) ---------------------------------------------
_FUSING = lazy_re.compile(r"fusing (\S+) with (\S+)")
_CANNOT = lazy_re.compile(r"cannot fuse (\S+) with (\S+): (.*)")


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


# -- missed epilogue fusion: a library mm/conv whose output a separate pointwise kernel reads --
_EPILOGUE_HOSTS = ("mm", "addmm", "bmm", "baddbmm", "convolution")
_EXTERN_OUT = lazy_re.compile(
    r"^\s*(?:(?P<ret>\w+) = )?extern_kernels\.(?P<op>\w+)\((?P<args>.*)\)\s*$")
_REUSE = lazy_re.compile(r"^\s*(?P<new>\w+) = (?P<old>\w+); del \w+\s*# reuse")
_TRITON_RUN = lazy_re.compile(r"^\s*(?P<kernel>triton_\w+)\.run\((?P<args>.*)\)\s*$")
_OUT_KW = lazy_re.compile(r"\bout=(\w+)")


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


def graph_nodes(graph_text: str | None) -> list[dict[str, Any]]:
    """Post-grad graph nodes with their ATen op and the user line torch noted ('# File:')."""
    out: list[dict[str, Any]] = []
    if not graph_text:
        return out
    where: dict[str, Any] | None = None
    unplaced: dict[str, dict[str, Any]] = {}   # nodes torch noted no line for, by name
    for line in graph_text.splitlines():
        fm = _GRAPH_FILE.search(line)
        if fm:
            where = {"filename": fm.group("file"), "lineno": int(fm.group("line")),
                     "line": fm.group("code").strip()}
            continue
        if NO_STACK.match(line):
            where = None   # not the section before's line: these nodes have none of their own
            continue
        nm = _GRAPH_NODE.match(line)
        if nm:
            out.append({"node": nm.group("name"), "op": node_op(nm.group("name")),
                        "target": nm.group("op"), "meta": nm.group("meta"),
                        **(where or {"filename": None, "lineno": None, "line": None})})
            if where is None:
                unplaced[nm.group("name")] = out[-1]
            continue
        im = _GRAPH_ITEM.match(line)
        if im and where is not None and im.group("of") in unplaced:
            # A multi-output op torch noted no line for (a checkpointed dropout's
            # run_and_save_rng_state) is the line of the first of its items that has one.
            unplaced.pop(im.group("of")).update(where)
    return out


# -- the user's part of a node's stack (capture/node_stacks.py) -------------------------------
_PACKAGE_ROOT = lazy_re.compile(r"^.*/(?:site-packages|dist-packages)/")


def frame_key(filename: str | None, lineno: Any) -> tuple[str, int] | None:
    """A frame as the same line of the same file, wherever the library is installed: a cached
    post-grad graph names the paths of the process that compiled it (another checkout's venv)."""
    if not filename or not lineno:
        return None
    path = filename.replace("\\", "/")
    return _PACKAGE_ROOT.sub("", path), int(lineno)


def node_stacks(payload: str | None) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """capture's node_stacks record: innermost frame (frame_key) -> the frames from the first
    user frame (first) to that innermost library frame (last). The first stack of a key wins
    (two user lines calling the same library line: the earlier node's)."""
    try:
        value = json.loads(payload or "")
    except ValueError:
        return {}
    out: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for entry in value if isinstance(value, list) else []:
        frames = frames_in(entry.get("stack")) if isinstance(entry, dict) else []
        key = frame_key(frames[-1]["filename"], frames[-1]["lineno"]) if frames else None
        if key and is_user_file(frames[0]["filename"]):
            out.setdefault(key, [{k: f[k] for k in ("filename", "lineno", "line")}
                                 for f in frames])
    return out


_ATEN_CALL = lazy_re.compile(r"^\s+\w+ = torch\.ops\.aten\.(\w+)\.\w+\(", re.M)


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


_FALLBACK_HINT = lazy_re.compile(r"FallbackKernel:\s*(?:torch\.ops\.)?aten\.(\w+)")


def perf_hint(message: str) -> dict[str, Any]:
    """An Inductor perf_hints line: its first line, the frames it quotes, and the ATen op when
    it reports a fallback kernel."""
    msg = message.strip()
    fb = _FALLBACK_HINT.search(msg)
    return {"message": msg, "head": first_line(msg, 300), "frames": frames_in(msg),
            "fallback_op": fb.group(1) if fb else None}


_SCHED_NODE = lazy_re.compile(r"^\s*\w*SchedulerNode\(name='(?P<name>[\w]+)'\)")
_ORIGINS = lazy_re.compile(r"origins=OrderedSet\(\[(?P<names>[^\]]*)\]\)")
_QUOTED_FRAME = lazy_re.compile(r"File \"(?P<file>.+?)\", line (?P<line>\d+), in (?P<fn>[^'\"]+)")


def scheduler_node_name(msg: str) -> str | None:
    """The scheduler node a fusion-candidate entry is about ('op3'), without parsing the rest
    (each round of fusion lists every node again, mostly unchanged)."""
    m = _SCHED_NODE.match(msg)
    return m.group("name") if m else None


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
