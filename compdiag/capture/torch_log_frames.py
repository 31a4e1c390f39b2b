"""A user line torch names in a warning of its own logged while compiling (issue 29 §1,
evidence 1: a user frame torch names in its own message).

Some of torch's failures say where in the user's code they are only in a log line printed just
before the exception: guard building that raises logs "Failing guard allocated at <code>  #
<file>:<line> in <fn> (<torch file>:<line> in <torch fn>)" (symbolic_shapes, torch's source
location format), while the exception itself names no frame (pytorch#183369: an IndexError
from issue_guard). Capture keeps such a line: a handler on the `torch` logger (records still
reach torch's own handlers and stderr exactly as before) that, for a WARNING or worse logged
during a compile whose text names a user file in that format, records the frame and the
line's first 300 characters; ingest hands them to that compile's failure when it names no
user line of its own. Where the line torch names is its own (`return F.layer_norm(  #
nn/modules/normalization.py:228 in forward (nested/_internal/ops.py:1806 in
native_layer_norm_default)`: probes33g packed_jagged_encoder, a jagged tensor built inside the
compiled forward), its code is kept, and ingest puts the failure at the user line of the graph's
node that calls the same function. Cheap: a substring test per warning torch logs."""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from compdiag.capture.compile_context import current_compile_id
from compdiag.formats import lazy_re
from compdiag.formats.user_code import is_user_file
from compdiag.ingest.own_records import LOWERING_NODE

# torch's source location (torch/utils/_traceback.py's format, SLoc's str): "  # FILE:LINE in FN"
_SLOC = lazy_re.compile(r"#\s+(?P<file>[^\s#:]+\.py):(?P<line>\d+) in (?P<fn>[\w<>.]+)")


def install(capture: Any) -> None:
    capture_ref = capture

    class TorchLogFrames(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno < logging.WARNING or ".py:" not in str(record.args or
                                                                   record.msg):
                return  # the common case, before any lock: nothing of the user's named
            capture_ref.guarded("torch log frame", _record, capture_ref, record)

    capture.torch_log_handler = TorchLogFrames(level=logging.WARNING)
    attach(capture)


def attach(capture: Any) -> None:
    """(Again) on the `torch` logger and each log torch registers (`torch._dynamo`,
    `torch.fx.experimental.symbolic_shapes`, ...: torch gives those their own stderr handler
    and stops their propagation); torch's _init_logs (set_logs, TORCH_LOGS) clears their
    handlers, so the trace hook calls this again after it."""
    handler = getattr(capture, "torch_log_handler", None)
    if handler is None:
        return
    names = {"torch"}
    try:
        import torch._logging._internal as internal

        names.update(internal.log_registry.get_log_qnames())
    except Exception:  # noqa: BLE001 - fail open: the `torch` logger alone
        pass
    for name in sorted(names):
        log = logging.getLogger(name)
        # only beside a handler of torch's own: on a logger with none, a handler of ours would
        # stop Python's last-resort handler from printing its warnings (fail open: the
        # program's stderr stays exactly as without compdiag)
        others = [h for h in log.handlers if h is not handler]
        if others and handler not in log.handlers:
            log.addHandler(handler)


def _record(capture: Any, record: logging.LogRecord) -> None:
    text = record.getMessage()
    if ".py:" not in text:
        return
    cid = current_compile_id()
    if cid is None:
        return
    first = text.strip().splitlines()[0][:300]
    library = None
    for m in _SLOC.finditer(text):
        path = _resolve(m.group("file"))
        if path and is_user_file(path):
            frame = {"filename": path, "lineno": int(m.group("line")), "name": m.group("fn"),
                     "line": None}
            capture.ing.event(LOWERING_NODE, cid, {"from": "torch_log", "message": first},
                              payload=json.dumps([frame]))
            return
        if library is None:  # torch's own line (`return F.layer_norm(` in torch.nn): the
            # code before its location, which ingest finds among the graph's calls
            code = text[:m.start()].splitlines()[-1].rsplit(" at ", 1)[-1].strip() \
                if text[:m.start()].strip() else ""
            library = {"filename": path or m.group("file"), "lineno": int(m.group("line")),
                       "name": m.group("fn"), "line": None, "code": code[:200]}
    if library is not None and library["code"]:
        capture.ing.event(LOWERING_NODE, cid, {"from": "torch_log", "message": first,
                                               "library": True},
                          payload=json.dumps([library]))


def _resolve(short: str) -> str | None:
    """The file torch shortened to `short`: torch cuts the path it shares with its own
    package's folder (torch/utils/_traceback.shorten_filename), so it is `short` under one of
    that folder's ancestors (else under the working directory)."""
    if os.path.isabs(short):
        return short if os.path.exists(short) else None
    # a file the program runs that ends with it (the script, its modules): torch cuts one
    # more character where the shared path is only "/" (a script outside torch's tree)
    import sys

    for module in list(sys.modules.values()):
        f = getattr(module, "__file__", None)
        if isinstance(f, str) and f.endswith(short) and os.path.exists(f):
            return f
    import torch

    cur = os.path.dirname(os.path.abspath(torch.__file__))
    while True:
        candidate = os.path.join(cur, short)
        if os.path.exists(candidate):
            return candidate
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        cur = parent
    candidate = os.path.join(os.getcwd(), short)
    return candidate if os.path.exists(candidate) else None
