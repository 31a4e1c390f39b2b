"""The exception that ended the user's program, kept as a fact (program_exceptions: its type,
every line of its message, its frames, and whether it came through compiled code), and, when
compiled code raised it at run time, as a `runtime` failure. Compile failures torch already
reported in compilation_metrics are left to that record.
"""

from __future__ import annotations

import traceback
from typing import Any

from compdiag.formats.compiled_code import (COMPILE_FRAMES, COMPILED_FRAMES,  # noqa: F401
                                            COMPILED_WORDS, compile_api_refusal,
                                            compiled_marker, in_a_compile)
from compdiag.formats.user_code import is_user_file
from compdiag.ingest import parsers as P

# The modules of torch's compile-time exception classes (InductorError, BackendCompilerFailed,
# Unsupported, TorchRuntimeError, ...): the program's own code does not raise them.
_COMPILE_EXC_MODULES = ("torch._dynamo.", "torch._inductor.", "torch._functorch.")
# The frame that runs an Inductor output module: below it, compiled code runs.
_RUNNING_COMPILED = "torch/_inductor/output_code.py"


def _torch_compile_error(exc: BaseException) -> bool:
    module = getattr(type(exc), "__module__", "") or ""
    return module.startswith(_COMPILE_EXC_MODULES)


def _chain_files(exc: BaseException, generated: frozenset[str] = frozenset()) -> list[str]:
    """The files of every frame of the exception and of its causes (a compile's error raised
    `from` the lowering's keeps the lowering's frames on its cause). Not its context: an
    exception torch caught and handled along the way is no part of this one's path.

    Each traceback stops where compiled code started running (an Inductor output module, or
    `CompiledFxGraph.__call__` calling it): what runs below it is the compiled program, not a
    compile, even in a compile module's file (compile_fx.py's CUDA-graph wrapper `run`, the
    CUDA-graph trees recording on a first call). Only a kernel's lazy compile happens there,
    and `classify_stage` tells that from the error itself."""
    files: list[str] = []
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        own = [f.filename for f in traceback.extract_tb(e.__traceback__)]
        running = next((i for i, f in enumerate(own)
                        if f in generated or f.endswith(_RUNNING_COMPILED)), len(own))
        files += own[:running]
        e = e.__cause__
    return files


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
    in_compile = in_a_compile(_chain_files(exc, frozenset(generated)))
    marker = compiled_marker(files, whole, generated)
    if compile_api_refusal([(f.filename, f.name) for f in frames]):
        # torch.compile(...) refused its argument at the user's call: nothing was compiled
        # and nothing compiled ran (its wrapper's eval_frame.py frame is no compiled call)
        in_compile, marker = False, None
    elif marker is None and (in_compile or _torch_compile_error(exc)):
        # torch cut its own frames (`remove_dynamo_frames`) and re-raised a compile's error at
        # the compiled function's call: it came through a compile all the same.
        in_compile, marker = True, "a compile (torch.compile raised it at the compiled call)"
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
                          frames=kept_frames(frames),
                          compiled=marker, stage=stage, in_compile=bool(in_compile),
                          handling=handled_exception(exc, generated))
    if marker is None or (in_compile and ing.counts["failures"]) or \
            not isinstance(exc, Exception):
        # the program's own error, one compilation_metrics already described, or an end the
        # program asked for (SystemExit) or the user (KeyboardInterrupt): not a failure
        return
    ing.escaped_failure(None if in_compile else cid, stage=stage, exc_type=exc_type, message=message,
                filename=frame.filename if frame else None,
                lineno=frame.lineno if frame else None,
                line=(frame.line or None) if frame else None, traceback=text[-20000:],
                torch_message=whole[:20000])


def handled_exception(exc: BaseException, generated: set[str]) -> dict[str, Any] | None:
    """The exception the program was handling when it raised this one (`raise ... from e`, or
    a raise or sys.exit inside an `except` block): the cause of an end the program asked for
    (issue 29 §2, benchmarks/probes37c anomaly_nan_compiled_backward: `except RuntimeError:
    raise SystemExit(3)` after the compiled backward's NaN). Its type, message, frames and
    whether it came through compiled code; None when there is none, or `from None` hid it."""
    inner = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    if inner is None:
        return None
    frames = traceback.extract_tb(inner.__traceback__)
    files = [f.filename for f in frames]
    whole = str(inner)
    return {"exc_type": type(inner).__name__, "message": whole[:4000],
            "frames": kept_frames(frames),
            "compiled": compiled_marker(files, whole, generated)}


def record_exit_call(ing: Any, how: str, status: int, frames: list[Any]) -> None:
    """An exit that raises nothing (os._exit(N)): the status and where it was called."""
    ing.program_end(how=how, exit_code=status, frames=kept_frames(frames))


KEPT_FRAMES = 60


def kept_frames(frames: list[Any]) -> list[dict[str, Any]]:
    """The innermost KEPT_FRAMES frames of a traceback, and every user frame above them: a
    compile's stack alone is deeper than that (a Ctrl-C in Inductor's C++ build is ~60 frames
    below the user's call), and the user's frames are the outermost, the ones a plain cut
    lost. torch's frames that say where the stack went through torch.compile (its API call,
    Dynamo's frames: COMPILE_API_FRAMES, COMPILED_FRAMES) are kept too, and a frame repeated
    more than REPEATS times in a row (a recursion) is kept REPEATS times: probes47b
    detector_getattr_metadata's RecursionError in a `__getattr__` that `torch.compile(head)`
    called was 980 user frames with torch.compile's own call cut away, so it read as the
    program's own error "outside compiled code"."""
    frames = _collapsed(list(frames))
    inner = frames[-KEPT_FRAMES:]
    outer = [f for f in frames[:-KEPT_FRAMES] if is_user_file(f.filename) or _says_compile(f)]
    return [{"filename": f.filename, "lineno": f.lineno, "name": f.name, "line": f.line or None}
            for f in outer + inner]


REPEATS = 3


def _collapsed(frames: list[Any]) -> list[Any]:
    out: list[Any] = []
    for f in frames:
        same = [g for g in out[-REPEATS:] if (g.filename, g.lineno, g.name) == (
            f.filename, f.lineno, f.name)]
        if len(same) < REPEATS:
            out.append(f)
    return out


def _says_compile(f: Any) -> bool:
    path = (f.filename or "").replace("\\", "/")
    return compile_api_refusal([(path, f.name)]) or any(m in path for m, _ in COMPILED_FRAMES)
