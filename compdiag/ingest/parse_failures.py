"""Parsers of a compile failure's text: which stage it escaped from (classify_stage), the
user's line of the op that failed (a node's stack trace in the error), the generated kernel
an error points into, the import error behind a failed load. Pure text (re-exported by
ingest/parsers.py)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats import lazy_re
from compdiag.formats.first_nonblank import first_nonblank
from compdiag.formats.user_code import frames_in, is_user_file
from compdiag.ingest.endings import device_asserts
from compdiag.ingest.parse_dynamo import parse_graph_break
from compdiag.ingest.parse_inductor import node_op
from compdiag.ingest.parse_text import TB_FRAME, names_codegen_frame
from compdiag.ingest.refused_recompiles import failed_guards




# -- the op a compile failure names -------------------------------------------------------------
# Inductor's LoweringException appends the failing FX node's stack trace after "Found from :";
# an FX Interpreter error (extra_traceback) appends it after "Original traceback:"; Dynamo's own
# errors end with the user frames it was tracing after "from user code:" (innermost last); a
# backend compiler's exception (GB0219) names them in its developer context, after an indented
# "Traceback:" line (not Python's "Traceback (most recent call last):"). Each is the user's
# line of the op that failed, where Dynamo's own frame is only the function (or its caller).
# A CUDA-graph skip raised as an error (`cudagraph_or_error`) says "Found from   File ..." on the
# same line: the trace begins right after the marker.
_NODE_TRACE_MARKERS = ("Found from", "Original traceback:", "from user code:",
                       "    Traceback:\n")


# Anomaly mode (AOTAutograd traces the joint graph under it) warns, before a backward fails:
# "Error detected in StdBackward0. Traceback of forward call that caused the error:" and the
# forward frames of the op whose backward failed.
_ANOMALY_MARKERS = ("Traceback of forward call that caused the error:",)


def node_trace_frames(text: str | None, markers: tuple[str, ...] = _NODE_TRACE_MARKERS
                      ) -> list[dict[str, Any]]:
    """The frames (filename, lineno, line) of the first node stack trace in an error text (or
    of the user code Dynamo was tracing)."""
    if not text:
        return []
    found = [(i, m) for i, m in ((text.find(m), m) for m in markers) if i >= 0]
    if not found:
        return []
    at, marker = min(found)
    frames: list[dict[str, Any]] = []
    lines = text[at + len(marker):].splitlines()
    for k, line in enumerate(lines):
        m = TB_FRAME.match(line)
        if m:
            nxt = lines[k + 1].strip() if k + 1 < len(lines) else ""
            frames.append({"filename": m.group(1), "lineno": int(m.group(2)),
                           "line": nxt if nxt and not nxt.startswith("File ") else None})
        elif frames and not line.strip():
            break  # the trace ends at the first blank line after it began
    return frames


_CODEGEN_FRAME = lazy_re.compile(r'^\s*File "[^"]*[/\\]_inductor[/\\]codegen[/\\][^"]*", line \d+, '
                            r'in (\w+)\s*$', re.M)


def codegen_ops(traceback: str | None) -> list[str]:
    """Function names of the traceback's frames inside Inductor's codegen, innermost first.
    A codegen error raised while emitting one op is raised from the op handler's method named
    after it (`cpp.py ... in log1p`), so one of them is the op's name; which one is for the
    caller to check against the graph's nodes."""
    return list(reversed(_CODEGEN_FRAME.findall(traceback or "")))


_QUOTED = lazy_re.compile(r"^\s*(?:\d+\s*\|)?\s*(.*?)\s*$")


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
    checked = kernel_of_check(text, kernels)
    if checked:
        return checked
    # A Triton kernel is Python: its SyntaxError names only the kernel's hashed file, but the
    # traceback passes through the wrapper's line that loads it, `NAME = async_compile.triton(
    # 'NAME', ...`; the innermost such line of a known kernel names it.
    names = {name for name, _ in kernels}
    loaded = [n for n in _ASYNC_LOAD.findall(text) if n in names]
    if loaded:
        return loaded[-1]
    # An error a kernel raised while it ran (the CPU kernel's bounds check, `kernel, FILE.cpp:N,
    # index out of bounds: ...`) names only its hashed source file, but the traceback passes
    # through the wrapper's line that calls it (`NAME(buf0, ...)`, a Triton `NAME.run(...)`):
    # the innermost such call of a known kernel is the kernel that was running.
    called = [n for n in _KERNEL_CALL.findall(text) if n in names]
    return called[-1] if called else None


_ASYNC_LOAD = lazy_re.compile(r"=\s*async_compile\.\w+\(\s*'(\w+)'")
# A traceback frame whose code line calls a function (or its `.run`) as a statement.
_KERNEL_CALL = lazy_re.compile(r'^\s*File "[^"\n]+", line \d+, in \w+\n\s+(\w+)(?:\.run)?\(',
                          re.MULTILINE)

# A check in generated C++ that failed at run time: c10's message is "FUNCTION, FILE:LINE,
# MESSAGE" (Inductor's kernels: `TORCH_CHECK(cond, "index out of bounds: tmp1 < 2L")`, or a
# helper of its C++ prefix the kernel calls, `inductor_cpu_throw_if_integer_div_error`).
_CPP_CHECK = lazy_re.compile(r"(\w+), \S+\.(?:cpp|h|hpp|cc):\d+, ([^\n]+)")


def kernel_of_check(text: str | None, kernels: list[tuple[str, str]]) -> str | None:
    """The kernel that raised a check at run time (a C++ kernel's TORCH_CHECK, a GPU kernel's
    device-side assert): the one kernel whose source holds the check's message as a string
    literal, or else calls the function a C++ error names."""
    checks = [(f'"{message.strip()}"', f"{func}(") for func, message in
              _CPP_CHECK.findall(text or "")]
    # a GPU kernel's device-side assert (Triton's tl.device_assert: Inductor's bounds checks)
    checks += [(f'"{message}"',) for message in (what.split("`")[1] for what in device_asserts(text))
               if message]
    # the line of its file each device assert names (`FILE.py:35: unknown: block: [...]`):
    # several kernels may hold the same bounds message, one holds the assert at that line
    at = [int(n) for n in _ASSERT_AT.findall(text or "")]
    for needles in checks:
        for needle in needles:
            hits = [(name, source) for name, source in kernels if needle in (source or "")]
            if len(hits) == 1:
                return hits[0][0]
            placed = [name for name, source in hits if _asserts_at(source, at)]
            if len(set(placed)) == 1:
                return placed[0]
    return None


# An index check Inductor puts in a kernel (C++ TORCH_CHECK, Triton device assert): "index out
# of bounds: 0 <= tmp7 < 16L". Only an op that indexes with a tensor gets one.
_BOUNDS_CHECK = lazy_re.compile(r"index out of bounds")
INDEXING_OPS = frozenset((
    "index", "_unsafe_index", "index_put", "_unsafe_index_put", "index_put_", "index_select",
    "index_add", "index_copy", "index_fill", "index_reduce", "gather", "scatter", "scatter_add",
    "scatter_reduce", "embedding", "embedding_bag", "_embedding_bag", "take", "take_along_dim",
    "masked_scatter", "put"))


def bounds_check_lines(text: str | None, kernel: str | None, nodes: dict[str, str]
                       ) -> list[str]:
    """The lines of the ops a kernel's failed index check is about: where `text` (the error)
    is Inductor's bounds check, the graph's nodes (name -> 'file:line  code', ingest's
    post-grad lines) that index with a tensor: those whose op, or whose user line's code,
    holds an indexing op the kernel's name lists (its name lists its ops' original names,
    `..._index_copy_...`, and an index_copy_ is an index_put node after decomposition), else
    every one. A kernel fuses many ops; the check is about one of these, not its first op."""
    if not kernel or not _BOUNDS_CHECK.search(text or ""):
        return []
    indexing = [(node_op(n), line) for n, line in nodes.items()
                if line and node_op(n) in INDEXING_OPS]
    # the indexing ops the kernel's name holds, and nodes of those ops or written with them
    # in the user's code (an index_copy_ is an index_put node after decomposition)
    words = [w for w in INDEXING_OPS if f"_{w}_" in f"_{kernel}_"]
    named = [line for op, line in indexing
             if op in words or any(w in line.split("  ", 1)[-1] for w in words)]
    return named or [line for _, line in indexing]


# A device assert's place: the kernel's own file and line, before Triton's "unknown: block:"
_ASSERT_AT = lazy_re.compile(r"^\S+\.py:(\d+): \S+: block: \[", re.M)


def _asserts_at(source: str | None, lines: list[int]) -> bool:
    """Whether `source` (a Triton kernel's, stored without its file's first, empty line) has
    its device assert at one of those lines of its file."""
    body = (source or "").splitlines()
    return any(0 < n - 1 <= len(body) and "device_assert" in body[n - 2] for n in lines)


_IMPORT_CAUSE = lazy_re.compile(r"Failed to import [^\n]*\n\s*(\w+Error: [^\n]{1,200})")


def import_failure_cause(text: str | None) -> str | None:
    """Why generated code did not import: Inductor's "Failed to import FILE" puts the error (a
    SyntaxError in a Triton kernel) on the next line."""
    m = _IMPORT_CAUSE.search(text or "")
    return m.group(1) if m else None


# An AssertionError with no message: a bare `assert` (after a wrapper's "raised:", or alone)
_BARE_ASSERTION = lazy_re.compile(r"^(?:[\w.]+\.)?AssertionError:?[ \t]*$", re.M)
_ASSERT_FRAME = lazy_re.compile(r'File "([^"\n]+)", line (\d+), in [^\n]*\n[ \t]+(\S[^\n]*)')


def bare_assertion(traceback: str | None) -> tuple[str, str, int] | None:
    """The `assert` statement behind an AssertionError that has no message (a bare `assert`
    in torch's code, under "backend='inductor' raised:"): the innermost frame's source line,
    its file from `torch/` on, its line; None when the error has words of its own or the
    innermost line is no `assert`."""
    text = traceback or ""
    if not _BARE_ASSERTION.search(text):
        return None
    frames = list(_ASSERT_FRAME.finditer(text))
    if not frames or not frames[-1].group(3).startswith("assert"):
        return None
    path, lineno, line = frames[-1].groups()
    short = path[path.rindex("torch/"):] if "torch/" in path else path
    return line.strip(), short, int(lineno)


_LOWERING_TARGET = lazy_re.compile(r"LoweringException: [^\n]*\n\s*target: (\S+)")


def lowering_target(text: str | None) -> str | None:
    """The op Inductor was lowering when it failed (LoweringException's `target:` line): the
    message alone is often a bare assertion that names nothing."""
    m = _LOWERING_TARGET.search(text or "")
    return m.group(1) if m else None


# -- failures ---------------------------------------------------------------------------------
STAGES = ("dynamo", "aot", "inductor_lowering", "inductor_codegen", "kernel_compile", "runtime",
          "accuracy", "backend")

# Errors of the kernel toolchain or the GPU's limits, named in the exception's type or message
# head (triton.runtime.errors.OutOfResources: 'out of resource: shared memory, Required: ...';
# PTXASError; MLIR's 'PassManager::run failed'; the CUDA launch limit on registers).
KERNEL_TOOLCHAIN_ERRORS = ("CppCompileError", "CompilationError", "PTXASError", "OutOfResources",
                           "out of resource:", "ptxas", "PassManager::run failed",
                           "MLIRCompilationError", "too many resources requested for launch")
_KERNEL_COMPILE = ("CppCompileError", "CompilationError", "triton.compiler", "ptxas",
                   "torch/_inductor/codecache.py", "torch/_inductor/cpp_builder.py",
                   "torch/_inductor/async_compile.py", "torch/_inductor/runtime/triton_heuristics")
_AOT = ("torch/_functorch/", "torch/_subclasses/", "torch/fx/experimental/proxy_tensor.py")


def _stage_frame(path: str) -> bool:  # one stage alone runs it (not fake tensors, make_fx)
    return not path.endswith(("torch/_dynamo/eval_frame.py", "torch/_compile.py")) and any(
        k in path for k in (*_KERNEL_COMPILE, "torch/_functorch/", "torch/_inductor/",
                            "torch/_dynamo/"))


def classify_stage(exc_type: str | None, message: str | None, traceback: str | None,
                   *, at_runtime: bool = False) -> str:
    """Which compile stage an exception escaped from, from its type, message and frames: the
    deepest torch frame decides (a helper both Inductor stages call, by its caller: probes48c
    get_read_expr under _codegen), not a wrapper's type (InductorError says little)."""
    text = "\n".join(x for x in (exc_type, message, traceback) if x)
    head = (exc_type or "") + " " + (message or "")[:400]
    if any(k in head for k in KERNEL_TOOLCHAIN_ERRORS):
        return "kernel_compile"
    if "LoweringException" in head or "MissingOperatorWith" in head:
        return "inductor_lowering"
    if at_runtime:
        return "runtime"
    frames = [m.group(1) for m in re.finditer(r'File "(.+?)", line \d+', text)]
    torch_frames = [f for f in reversed(frames) if "/torch/" in f] or [""]
    deepest = torch_frames[0]
    if any(k in deepest for k in _KERNEL_COMPILE):
        return "kernel_compile"
    if deepest.endswith("torch/_inductor/runtime/compile_tasks.py"):
        # Importing generated code failed: a kernel when async_compile was loading it (a
        # Triton kernel's SyntaxError), else the wrapper module Inductor generated.
        loading = any(f.endswith("torch/_inductor/async_compile.py") for f in frames)
        return "kernel_compile" if loading else "inductor_codegen"
    if "torch/_inductor/codegen/" in deepest or deepest.endswith("torch/_inductor/scheduler.py"):
        return "inductor_codegen"
    if "torch/_inductor/" in deepest:  # a helper both stages call: the caller decides
        return "inductor_codegen" if any("torch/_inductor/codegen/" in f or f.endswith(
            "torch/_inductor/scheduler.py") for f in torch_frames) else "inductor_lowering"
    if any(k in deepest for k in _AOT):
        return "aot"
    wrapped = "BackendCompilerFailed" in head or "InductorError" in head
    if wrapped and "torch/_functorch/" in next((f for f in torch_frames if _stage_frame(f)), ""):
        return "aot"  # the deepest stage's own frame (probes39a njt: AOTAutograd's)
    if wrapped:
        # The wrapped error text often names the inner stage even when frames are cut: in
        # torch's message or frames (a failing node's frame: probes46c), never a path of the
        # program's (PyTorch's test/inductor/ made a custom backend's assert Inductor's).
        torch_text = head + "\n" + "\n".join(f for f in frames if "/torch/" in f)
        if "compile_fx" in text or "inductor" in torch_text.lower():
            return "inductor_codegen" if names_codegen_frame(text) else "inductor_lowering"
        if "BackendCompilerFailed" in head and (frames or "backend='aot" not in head):
            # torch names the backend that raised (`backend='my_backend' raised`), and no
            # frame of AOTAutograd or Inductor ran under it (those returned above): the
            # program's own, or a debugging backend of torch's, not a compiler stage.
            return "backend"
        return "aot"
    return "dynamo"


# -- the facts analyses read of a failure (stored with it: store.schema.BACKFILLED_COLUMNS) --
_GB_URL = lazy_re.compile(r"/gb/(gb\d{4})\.html", re.I)
# A failure of this kind is Dynamo refusing a function that recompiled too often.
# The exceptions Dynamo raises at the recompile limit, whatever their message says (with
# fullgraph=True, torch 2.13's FailOnRecompileLimitHit reads "Hard failure due to fullgraph=True").
_LIMIT_TYPES = ("FailOnRecompileLimitHit", "RecompileLimitExceeded", "CacheLimitExceeded")
_LIMIT_MARKERS = ("recompile limit exceeded", "recompile_limit", "cache_size_limit",
                  "accumulated_recompile_limit")
def anomaly_frames(text: str | None) -> list[dict[str, Any]]:
    """The forward call anomaly mode's warning names for a backward that failed (its frames,
    outermost first): the op whose gradient could not be computed, where torch points."""
    return node_trace_frames(text, _ANOMALY_MARKERS)


_CONSTRAINED = lazy_re.compile(r"Constraints violated \((?P<src>.+?)\)!")
_USER_STACK = lazy_re.compile(r"^User stack:\s*$", re.M)
# torch naming a frame inside its own message, e.g. cudagraph_trees' overwritten output:
# 'Stack trace: File "x.py", line 13, in parent\n    return x + 1. To prevent ...'
_STACK_TRACE = lazy_re.compile(r"Stack trace:\s*(?P<body>File .*?)(?:\.\s+[A-Z][^\n]*)?\Z", re.S)
_MSG_FRAME = lazy_re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>[\w<>.]+)'
                             r'(?:[ \t]*\n[ \t]+(?P<code>[^\n]+))?')


def pointed_frames(message: str | None) -> list[dict[str, Any]]:
    """The frames torch's own message points at ("Stack trace: File ..., line N, in fn"),
    outermost first: torch saying which line the fact is about, evidence before the line that
    happened to raise (issue 29 §1 step 1). Empty where torch found none ("[Could not find
    stack trace]") or says no such thing."""
    m = _STACK_TRACE.search(message or "")
    if not m:
        return []
    return [{"filename": f.group("file"), "lineno": int(f.group("line")),
             "line": _code(f.group("code")), "name": f.group("fn")}
            for f in _MSG_FRAME.finditer(m.group("body"))]


def _code(code: str | None) -> str | None:
    """A quoted code line, less the sentence torch ran on after it ("x + 4. To prevent")."""
    if not code:
        return None
    return re.split(r"\.\s+(?=[A-Z])", code.strip(), maxsplit=1)[0] or None


def gb_code_of(torch_message: str | None, traceback: str | None) -> str | None:
    """The GB code of the failure's own exception: the first in torch's message for it (a
    break torch hit "while handling this graph break" comes after it, its consequence), else
    the last in the traceback. A traceback chains the exceptions it was raised while handling
    ("During handling of the above exception, another exception occurred") before the
    failure's own, so its first code may be another break's (step_unsupported's GB4636 under
    the "cannot resume" GB0284 raised while handling it)."""
    own = _GB_URL.search(torch_message or "")
    if own:
        return own.group(1).upper()
    chained = _GB_URL.findall(traceback or "")
    return chained[-1].upper() if chained else None


# The op a failure is about, as torch names it: `Error in op: torch.ops.NS.NAME.OVERLOAD` (the
# size/stride check of a custom op's output, torch 2.6+), or the op the generated check
# itself names (`assert_size_stride(buf2, (4, 8), (8, 1), 'torch.ops.NS.NAME.OVERLOAD')`).
_NAMED_OP = lazy_re.compile(r"Error in op: torch\.ops\.([\w.]+)|"
                            r"assert_(?:size_stride|alignment)\([^\n]*'torch\.ops\.([\w.]+)'\)")


# A generated wrapper's line that calls an op itself (an ATen fallback, a custom op, torch's own
# `streams.record_event`): a traceback through Inductor's output code (c<hash>.py) shows it.
_WRAPPER_OP_CALL = lazy_re.compile(r'File "[^"\n]*/c[a-z0-9]{40,64}\.py", line \d+, in \w+\n'
                                   r'\s*(?:[^\n=(]*=\s*)?torch\.ops\.([\w.]+)\(')


# The FX node an interpreter (Inductor's lowering, a fake-tensor run) was executing when it
# raised: "While executing %searchsorted : [num_users=1] = call_function[target=torch.searchsorted]"
_WHILE_EXECUTING = lazy_re.compile(r"While executing %\w+ : \[[^\]\n]*\] = "
                                   r"call_function\[target=([\w.]+)\]")


# The submodule an FX interpreter was running when it raised: DDPOptimizer compiles each piece
# of its split as `call_module[target=submod_N]` ("While executing %submod_0 : ...").
_EXECUTING_MODULE = lazy_re.compile(r"While executing %\w+ : \[[^\]\n]*\] = "
                                    r"call_module\[target=([\w.]+)\]")


def executing_module(*texts: str | None) -> str | None:
    """The submodule torch says it was executing when the failure was raised (the last one
    named in the first text that names one), None when none does."""
    for text in texts:
        found = _EXECUTING_MODULE.findall(text or "")
        if found:
            return found[-1]
    return None


def named_op(*texts: str | None) -> str | None:
    """The op (`ns.name.overload`, as a post-grad graph node's target) torch names in a
    failure's texts, the first found; else the op the innermost generated wrapper line of a
    traceback was calling when it raised; else the function the FX node being executed
    called ("While executing %n : ... call_function[target=torch.searchsorted]"); None when
    none names one."""
    for text in texts:
        m = _NAMED_OP.search(text or "")
        if m:
            return (m.group(1) or m.group(2)).rstrip(".")
    for text in texts:
        calls = _WRAPPER_OP_CALL.findall(text or "")
        if calls:
            return calls[-1].rstrip(".")
    for text in texts:
        executing = _WHILE_EXECUTING.findall(text or "")
        if executing:
            return executing[-1].rstrip(".")
    return None


# Dynamo's GB4315 ("RuntimeError when making fake tensor call") and its kin name the FX node
# whose fake run raised and, as `got TYPE('message')`, the exception it raised.
_FAKE_RUN = lazy_re.compile(r"with fake tensors: call_(?P<kind>function|method|module) "
                            r"(?P<target>.+?)\(\*\(")
_FAKE_GOT = lazy_re.compile(r"""got (?P<type>\w+)\((?P<q>['"])(?P<msg>.*?)(?P=q)\)\s*$""", re.M)
_OVERLOAD = lazy_re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*\.[A-Za-z_]\w*$")
_BUILTIN = lazy_re.compile(r"^<built-in (?:function|method) (?P<name>\w+)")
# torch saying, of a size/stride check on a custom op's output at run time, that the op's
# fake implementation is the likely culprit (torch 2.6+'s assert_size_stride message).
_FAKE_KERNEL_WORDS = ("incorrect fake (aka meta) kernel", "incorrect fake kernel")


# -- who raised a traced run's exception (issue 29) ---------------------------------------------
# torch's own frames that run a kernel the program registered for a custom op (its fake
# implementation): below them, the raising frame is the program's code.
REGISTERED_KERNEL_FILES = ("torch/_library/", "torch/library.py")
# torch's input checks: `torch._check*` (torch/__init__.py) and the dimension and shape checks
# of the prims' common helpers. An exception of a validating type raised there, or by a C++
# kernel (no Python frame below the dispatch), is an op refusing its inputs, which eager's
# kernel refuses alike.
CHECK_FUNCTIONS = ("_check", "_check_with", "_check_is_size", "_check_index", "_check_value",
                   "_check_type", "_check_not_implemented")
CHECK_FILES = ("torch/__init__.py", "torch/_prims_common/")
VALIDATION_TYPES = ("RuntimeError", "IndexError", "ValueError")
DISPATCH_FILES = ("torch/_ops.py", "torch/_subclasses/fake_tensor.py")
# Anything else escaping torch's own Python kernels (an `assert`, a TypeError, an
# AttributeError inside a meta kernel or a decomposition) is that kernel failing: torch's bug.
TORCH_FILES = ("/torch/",)
# The dispatch of a traced run: an exception raised below one of these was raised while torch
# ran the ops on fake tensors (Dynamo's fake run, AOTAutograd's tracing).
TRACED_RUN_FILES = ("torch/_subclasses/fake_tensor.py", "torch/fx/experimental/proxy_tensor.py")


def _torch_file(filename: str) -> bool:
    return any(p in filename.replace("\\", "/") for p in TORCH_FILES) and \
        not is_user_file(filename)


def exception_origin(type_names: list[str] | tuple[str, ...], frames: list[dict[str, Any]]
                     ) -> tuple[str | None, dict[str, Any] | None]:
    """(origin, the frame that decided it) of an exception a traced run raised, from its
    classes' names and its traceback's frames (outermost first): `fake_kernel` when the raising
    code is the program's own below a kernel it registered (a custom op's fake
    implementation), `check` when a torch input check or a C++ kernel refused the inputs with
    a validating type, `torch` when torch's own Python kernel failed otherwise, None when the
    frames do not say."""
    names = set(type_names)
    files = [str(f.get("filename") or "").replace("\\", "/") for f in frames]
    registered = next((i for i, f in enumerate(files)
                       if any(p in f for p in REGISTERED_KERNEL_FILES)), None)
    if registered is not None:
        user = [f for f, name in zip(frames[registered:], files[registered:])
                if is_user_file(name)]
        if user:
            return "fake_kernel", _plain(user[-1])
    if not frames:
        return None, None
    last, file = frames[-1], files[-1]
    validating = bool(names & set(VALIDATION_TYPES))
    if validating and (last.get("name") in CHECK_FUNCTIONS or any(p in file for p in CHECK_FILES)
                       or any(p in file for p in DISPATCH_FILES)):
        return "check", _plain(last)  # a torch check, or the C++ kernel the dispatch called
    if _torch_file(file):
        return ("check" if validating else "torch"), _plain(last)
    return None, _plain(last)


def _plain(frame: dict[str, Any]) -> dict[str, Any]:
    return {k: frame.get(k) for k in ("filename", "lineno", "name")}


def builtin_classes(name: str | None) -> list[str]:
    """The names of a builtin exception class and its bases (IndexError, LookupError,
    Exception, BaseException); the name alone for any other."""
    import builtins

    cls = getattr(builtins, name or "", None)
    if isinstance(cls, type) and issubclass(cls, BaseException):
        return [c.__name__ for c in cls.__mro__ if c is not object]
    return [name] if name else []


def _raised_frames(exc_type: str, message: str | None, traceback: str) -> list[dict[str, Any]]:
    """The frames of the traceback block that ends in `exc_type: message` (the exception
    itself, not one chained before or after it), outermost first."""
    first = first_nonblank(message)
    end = traceback.find(f"\n{exc_type}: {first}") if first else -1
    if end < 0:
        return []
    block = traceback[:end]
    start = block.rfind("Traceback (most recent call last):")
    return frames_in(block[start:] if start >= 0 else block)


def raise_site(exc_type: str | None, message: str | None, traceback: str | None
               ) -> list[dict[str, Any]] | None:
    """The frame that raised the exception and its caller (caller first), from the traceback
    block that ends in it: `Type: message`, or the bare `Type` of one raised with no words
    (`raise ValueError("")`), whose only name is the function that raised it."""
    if not exc_type or not traceback:
        return None
    name = exc_type.rsplit(".", 1)[-1]
    first = first_nonblank(message)
    if first in (exc_type, name):  # the summary of an exception with no words is its type
        first = ""
    ends = [m.start() for m in re.finditer(
        rf"^(?:[\w.]+\.)?{re.escape(name)}(?::[ \t]*{re.escape(first)}|[ \t]*$)"
        if first else rf"^(?:[\w.]+\.)?{re.escape(name)}(?::[ \t]*)?$", traceback, re.M)]
    if not ends:
        return None
    block = traceback[:ends[0]]
    start = block.rfind("Traceback (most recent call last):")
    frames = frames_in(block[start:] if start >= 0 else block)
    return frames[-2:] or None


def fake_run_facts(exc_type: str | None, message: str | None, traceback: str | None,
                   torch_message: str | None, op: str | None) -> dict[str, Any]:
    """The fake-tensor run a failure's text reports: the op Dynamo names (`fake_op`), the
    exception it raised (`origin_exc`, "Type: message") and, where torch's words say it, who
    raised it (`origin`: `fake_kernel` for a custom op's fake implementation torch blames).
    Capture's record of the original exception says more (capture/exception_origin.py); these
    are what the text alone holds, for any store."""
    text = "\n".join(x for x in (torch_message, message, traceback) if x)
    facts: dict[str, Any] = {"fake_op": None, "origin_exc": None, "origin": None}
    run = _FAKE_RUN.search(text)
    if run:
        target = run.group("target").strip()
        builtin = _BUILTIN.match(target)
        facts["fake_op"] = (target if _OVERLOAD.match(target) else
                            builtin.group("name") if builtin else
                            f"Tensor.{target}" if run.group("kind") == "method" else target)
        got = _FAKE_GOT.search(text, run.end())
        if got:
            facts["origin_exc"] = f"{got.group('type')}: {got.group('msg')}"[:4000]
    elif exc_type and traceback and "." not in exc_type:
        # the failure is the traced run's own exception (not Dynamo's wrapper of it): its
        # frames say who raised it, when they pass through a traced run's dispatch
        frames = _raised_frames(exc_type, message, traceback)
        if any(any(p in str(f.get("filename")) for p in TRACED_RUN_FILES) for f in frames):
            facts["origin_exc"] = f"{exc_type}: {(message or '').strip()}"[:4000]
            facts["origin"] = exception_origin(builtin_classes(exc_type), frames)[0]
    # Imported here, not with the module: the capture child imports this module before the
    # program, and failure_graph imported then changed whether torch 2.13 aborts on
    # pytorch#193288's repro (tests/test_capture_transparency.py; why is not known yet).
    from compdiag.formats.failure_graph import TORCH_NAMESPACES

    if op and op.split(".", 1)[0] not in TORCH_NAMESPACES and \
            any(w in text for w in _FAKE_KERNEL_WORDS):
        facts.update(fake_op=op, origin="fake_kernel")
    return facts


def failure_facts(exc_type: str | None, message: str | None, traceback: str | None,
                  torch_message: str | None = None) -> dict[str, Any]:
    """What explain reads of a failure's text, parsed once: the graph break it reports (GB
    code, torch's explanation), whether it is Dynamo giving up at the recompile limit, and for
    a ConstraintViolationError (mark_dynamic) the sources violated and its "User stack:"
    frames; the frames torch's message points at ("Stack trace: File ..."), the op it
    names ("Error in op: ...") and the submodule it was executing (a DDP piece)."""
    tb = traceback or ""
    text = " ".join(x for x in (message, traceback) if x)
    facts: dict[str, Any] = {
        "gb_code": gb_code_of(torch_message, tb),
        "gb_explanation": parse_graph_break(tb)["explanation"] if tb else None,
        # fullgraph=True turns the limit into FailOnRecompileLimitHit, whose message (torch
        # 2.13: "Hard failure due to fullgraph=True") names no limit.
        "recompile_limit": (exc_type or "").rsplit(".", 1)[-1] in _LIMIT_TYPES or (
            exc_type == "Unsupported" and any(m in text for m in _LIMIT_MARKERS)),
        "constraint_sources": None, "constraint_frames": None,
        "torch_frames": pointed_frames(torch_message or message) or None,
        "op": named_op(torch_message, message, traceback),
        "submodule": executing_module(torch_message, message, traceback),
        "raise_site": raise_site(exc_type, message, traceback),
        "failed_guards": failed_guards(torch_message, message)}
    facts.update(fake_run_facts(exc_type, message, traceback, torch_message, facts["op"]))
    if exc_type == "ConstraintViolationError" or _CONSTRAINED.search(message or ""):  # export's
        both = "\n".join(x for x in (message, traceback) if x)
        m = _CONSTRAINED.search(both)
        facts["constraint_sources"] = [x.strip() for x in m.group("src").split(",")] if m else []
        stack = _USER_STACK.split(both)
        facts["constraint_frames"] = frames_in(stack[-1]) if len(stack) > 1 else []
    return facts
