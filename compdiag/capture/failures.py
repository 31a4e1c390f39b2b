"""The exception that ended the user's program, kept as a fact (program_exceptions: its type,
every line of its message, its frames, and whether it came through compiled code), and, when
compiled code raised it at run time, as a `runtime` failure. Compile failures torch already
reported in compilation_metrics are left to that record.
"""

from __future__ import annotations

import traceback
from typing import Any

from compdiag.formats.user_code import is_user_file
from compdiag.ingest import parsers as P

_COMPILE_MARKERS = ("torch/_dynamo/convert_frame.py", "torch/_inductor/compile_fx.py")
# A frame of one of these files means the exception came through compiled code (its name is
# what explain says it came through). Inductor's output modules live in its cache dir
# (TORCHINDUCTOR_CACHE_DIR, default /tmp/torchinductor_USER): the trace names them, the
# 'torchinductor_' prefix finds them in a store without that record.
COMPILED_FRAMES: tuple[tuple[str, str], ...] = (
    ("torch/_inductor/cudagraph_trees.py", "cudagraph trees"),
    ("torch/_inductor/output_code.py", "an Inductor compiled module"),
    ("torchinductor_", "an Inductor output module"),
    ("torch/_functorch/_aot_autograd/", "AOTAutograd's runtime wrappers (CompiledFunction)"),
    ("torch/_dynamo/convert_frame.py", "Dynamo's convert_frame (a compile)"),
    ("torch/_inductor/compile_fx.py", "Inductor's compile_fx (a compile)"),
    ("torch/_dynamo/eval_frame.py", "Dynamo's eval frame (a compiled function's call)"),
)
# Errors of compiled code raised in C++ with no Python frame of torch's: autograd's checks on
# compiled outputs name the compiled autograd node, cudagraph trees the CUDA graph.
COMPILED_WORDS: tuple[tuple[str, str], ...] = (
    ("CompiledFunction", "AOTAutograd's CompiledFunction (autograd on a compiled output)"),
    # A CUDA graph's output poisoned by a later replay raises from C++ at the user's own line.
    ("overwritten by a subsequent run", "cudagraph trees (a CUDA graph's reused output)"),
    ("CUDAGraphs", "cudagraph trees"),
)


def compiled_marker(files: list[str], message: str, generated: set[str]) -> str | None:
    """What compiled code the exception came through (None: none of it), innermost first.
    An exception the user's own code raised (its innermost frame is the user's `raise` or
    `assert`) is the program's, even inside a compiled function's call."""
    raised_by_user = bool(files) and is_user_file(files[-1]) and files[-1] not in generated
    for f in reversed(files if not raised_by_user else []):
        if f in generated:
            return "an Inductor output module"
        for marker, what in COMPILED_FRAMES:
            if marker in f:
                return what
    return next((what for word, what in COMPILED_WORDS if word in message), None)


def record_escaped_exception(ing: Any, exc: BaseException) -> None:
    frames = traceback.extract_tb(exc.__traceback__)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    files = [f.filename for f in frames]
    generated = set(ing.output_code_files)
    # Inductor's generated wrapper (output code) lives in its cache dir, which may be anywhere
    # (TORCHINDUCTOR_CACHE_DIR): never the user's frame.
    user = [f for f in frames if is_user_file(f.filename) and f.filename not in generated]
    frame = user[-1] if user else None
    exc_type = type(exc).__name__
    whole = str(exc)
    message = P.first_line(whole, 500) or exc_type
    in_compile = any(any(m in f for m in _COMPILE_MARKERS) for f in files)
    marker = compiled_marker(files, whole, generated)
    # A compile failure torch reported, re-raised at the compiled function's call (Dynamo cuts
    # the compile's own frames, e.g. fullgraph=True's Unsupported): that compile stage's.
    known = next((stage for t, stage, first in ing.compile_failures
                  if t.rsplit(".", 1)[-1] == exc_type and first and first in whole), None)
    if known is not None and marker is not None:
        in_compile = True
    cid = next((ing.output_code_files[f] for f in reversed(files)
                if f in ing.output_code_files), None)
    stage = known if in_compile and known else (
             P.classify_stage(exc_type, whole, text) if in_compile else
             P.classify_stage(exc_type, whole, text, at_runtime=True) if marker else None)
    ing.program_exception(cid, exc_type=exc_type, message=whole[:20000] or exc_type,
                          frames=[{"filename": f.filename, "lineno": f.lineno, "name": f.name,
                                   "line": f.line or None} for f in frames][-60:],
                          compiled=marker, stage=stage)
    if marker is None or (in_compile and ing.counts["failures"]):
        return  # the program's own error, or one compilation_metrics already described
    ing.failure(None if in_compile else cid, stage=stage, exc_type=exc_type, message=message,
                filename=frame.filename if frame else None,
                lineno=frame.lineno if frame else None,
                line=(frame.line or None) if frame else None, traceback=text[-20000:],
                torch_message=whole[:20000])
