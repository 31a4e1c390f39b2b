"""Issue 29 §1: where torch says a failing tensor was made. torch's overwritten-output error
names, in its own message ("Stack trace: File ..., line N"), the line that made the output;
the failure stays at the line that read it (4c613f7), and explain shows torch's line beside it
as details.made_at, in the JSON and the terminal. The store is built by hand (the CUDA case,
corpus/gpu/cg_output_overwritten.py, runs on the GPU)."""

from __future__ import annotations

import io

from rich.console import Console

from compdiag.store.reader import Reader
from compdiag.views.explain import explain_document, print_panels
from principles_check import made_at_problems
from test_explain import Store

MSG = ("Error: accessing tensor output of CUDAGraphs that has been overwritten by a "
       'subsequent run. Stack trace: File "{user}", line 4, in fn\n    line_4 = 4. To '
       "prevent overwriting, clone the tensor outside of torch.compile() or call "
       "torch.compiler.cudagraph_mark_step_begin() before each model invocation.")


def _overwritten(tmp_path, trace: str | None = None):
    """A failure raised at line 10 whose torch message says the tensor was made at line 4 (or
    `trace` in place of torch's stack trace)."""
    from compdiag.capture.failures import record_escaped_exception

    s = Store(tmp_path)
    s.compile("0/0")
    msg = MSG.format(user=s.user)
    if trace is not None:
        msg = msg.replace(msg[msg.index("File"):msg.index("To prevent")], trace + " ")
    try:
        exec(compile("\n" * 9 + "raise RuntimeError(msg)", str(s.user), "exec"), {"msg": msg})
    except RuntimeError as exc:
        record_escaped_exception(s.ing, exc)
    s.exit_code = 1
    s.done()
    return s


def test_a_failure_says_where_torch_says_its_tensor_was_made(tmp_path):
    """On main the frame was stored (torch_frames) but the document had no made_at: the
    property rejected main's document, and this assertion failed."""
    s = _overwritten(tmp_path)
    r = Reader(s.path)
    with r:
        doc = explain_document(r, s.run_id)
        (d,) = [d for d in doc["diagnoses"] if d["kind"] == "failure"]
        assert d["user_frame"]["lineno"] == 10  # where it was read, unchanged
        made = d["details"]["made_at"]
        assert made["lineno"] == 4 and made["filename"] == d["user_frame"]["filename"], made
        assert made_at_problems(r, s.run_id, doc["diagnoses"]) == []
        # main's document (no made_at) is what the property rejects
        d["details"].pop("made_at")
        (problem,) = made_at_problems(r, s.run_id, doc["diagnoses"])
        assert "made at line 4" in problem


def test_the_terminal_says_it_beside_the_failures_line(tmp_path):
    """The words sit in the failure's panel: on main the panel named line 10 only."""
    s = _overwritten(tmp_path)
    r = Reader(s.path)
    with r:
        doc = explain_document(r, s.run_id)
    out = io.StringIO()
    print_panels([d for d in doc["diagnoses"] if d["kind"] == "failure"],
                 Console(file=out, width=200, color_system=None))
    assert "torch says the tensor was made at line 4" in out.getvalue()


def test_no_made_at_where_torch_named_nothing(tmp_path):
    """torch found no stack trace: the document stays as it was (no made_at key)."""
    s = _overwritten(tmp_path, "[Could not find stack trace]")
    r = Reader(s.path)
    with r:
        doc = explain_document(r, s.run_id)
        (d,) = [d for d in doc["diagnoses"] if d["kind"] == "failure"]
        assert "made_at" not in d["details"]
        assert made_at_problems(r, s.run_id, doc["diagnoses"]) == []
