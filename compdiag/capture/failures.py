"""Exceptions that escape the user's program: compile failures torch already reported in
compilation_metrics are left to it; failures of compiled code at run time are ours to record.
"""

from __future__ import annotations

import traceback
from typing import Any

from compdiag.formats.user_code import is_user_file
from compdiag.ingest import parsers as P

_COMPILE_MARKERS = ("torch/_dynamo/convert_frame.py", "torch/_inductor/compile_fx.py")
_RUNTIME_MARKERS = ("torch/_inductor/output_code.py", "torch/_functorch/_aot_autograd/runtime",
                    "torch/_inductor/cudagraph_trees.py", "torchinductor_")
# Errors of compiled code raised with no torch frame on the stack: a CUDA graph's output
# poisoned by a later replay raises from C++ at the user's own line that reads it.
_RUNTIME_MESSAGES = ("overwritten by a subsequent run",)


def record_escaped_exception(ing: Any, exc: BaseException) -> None:
    frames = traceback.extract_tb(exc.__traceback__)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    files = [f.filename for f in frames]
    # Inductor's generated wrapper (output code) lives in its cache dir, which may be anywhere
    # (TORCHINDUCTOR_CACHE_DIR): never the user's frame.
    user = [f for f in frames
            if is_user_file(f.filename) and f.filename not in ing.output_code_files]
    frame = user[-1] if user else None
    exc_type = type(exc).__name__
    message = P.first_line(str(exc), 500) or exc_type
    in_compile = any(any(m in f for m in _COMPILE_MARKERS) for f in files)
    if in_compile:
        if ing.counts["failures"]:
            return  # compilation_metrics already described this failure
        stage = P.classify_stage(exc_type, str(exc), text)
        cid = None
    elif any(any(m in f for m in _RUNTIME_MARKERS) for f in files) or any(
            m in str(exc) for m in _RUNTIME_MESSAGES):
        stage = P.classify_stage(exc_type, str(exc), text, at_runtime=True)
        cid = next((ing.output_code_files[f] for f in reversed(files)
                    if f in ing.output_code_files), None)
    else:
        ing.warn(f"the program raised {exc_type}: {message}")
        return
    ing.failure(cid, stage=stage, exc_type=exc_type, message=message,
                filename=frame.filename if frame else None,
                lineno=frame.lineno if frame else None,
                line=(frame.line or None) if frame else None, traceback=text[-20000:])
