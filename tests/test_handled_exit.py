"""An exit the program made while it handled an exception: the handled exception is the cause
and ranks first, the exit is said after it (issue 29 §2). Caught by benchmarks/probes37c
anomaly_nan_compiled_backward: `except RuntimeError: raise SystemExit(3)` after anomaly mode
found NaN in the compiled backward gave only "exited with status 3 via sys.exit at line 29 ...
see why it did", and anomaly mode's `CompiledFunctionBackward` was never traced to an op."""

from __future__ import annotations

from pathlib import Path

from compdiag.capture.failures import handled_exception, record_escaped_exception
from test_explain import Store
from test_program_ends import TORCH, _through

NAN = "Function 'CompiledFunctionBackward' returned nan values in its 0th output."


def _exit_handling(user: str, inner: BaseException, status: int = 3) -> BaseException:
    """SystemExit(status) raised at the user's line inside an `except` block handling
    `inner`, as `except RuntimeError: sys.exit(3)` makes it."""
    try:
        raise inner
    except BaseException:  # noqa: BLE001
        return _through([(user, "main"), (user, "bail")], SystemExit(status))


def test_the_exception_a_handler_was_handling_is_kept_beside_the_exit() -> None:
    inner = _through([("/home/u/train.py", "main")], ValueError("bad batch"))
    exc = _exit_handling("/home/u/train.py", inner)
    kept = handled_exception(exc, set())
    assert kept["exc_type"] == "ValueError" and kept["message"] == "bad batch"
    assert kept["frames"][-1]["filename"] == "/home/u/train.py"
    hidden = SystemExit(1)
    hidden.__context__, hidden.__suppress_context__ = inner, True  # `raise ... from None`
    assert handled_exception(hidden, set()) is None
    assert handled_exception(_through([("/home/u/train.py", "main")], SystemExit(2)),
                             set()) is None


def test_an_exit_after_anomaly_modes_nan_names_the_singular_op_at_its_line(
        tmp_path: Path) -> None:
    s = Store(tmp_path, exit_code=3)
    s.compile("0/0")
    s.post_grad("0/0", f"        # File: {s.user}:14 in f, code: d = (x - y).sum(-1).sqrt()\n"
                "        sqrt: \"f32[5]\" = torch.ops.aten.sqrt.default(sum_1)\n")
    inner = _through([(str(s.user), "main"), (f"{TORCH}/_tensor.py", "backward")],
                     RuntimeError(NAN))
    record_escaped_exception(s.ing, _exit_handling(str(s.user), inner))
    top = s.explain()[0]
    assert (top["kind"], top["severity"], top["user_frame"]["lineno"]) == ("program", "problem",
                                                                           14)
    assert top["reason"].startswith("anomaly mode: CompiledFunctionBackward returned NaN, from "
                                    "sqrt at line 14")
    assert "then ended with sys.exit" in top["reason"] and "status 3" in top["reason"]
    assert "clamp_min" in top["fix"] and "force_eager" in top["fix"]


def test_an_exit_after_the_programs_own_error_says_that_error_first(tmp_path: Path) -> None:
    s = Store(tmp_path, exit_code=2)
    inner = _through([(str(s.user), "main"), (str(s.user), "load")],
                     KeyError("weights.bin"))
    record_escaped_exception(s.ing, _exit_handling(str(s.user), inner, status=2))
    top = s.explain()[0]
    assert top["kind"] == "program" and "KeyError" in top["reason"]
    assert "outside compiled code" in top["reason"] and "status 2" in top["reason"]
    assert "via sys.exit" not in top["reason"]


def test_an_exit_with_nothing_handled_is_still_the_programs_own_end(tmp_path: Path) -> None:
    s = Store(tmp_path, exit_code=3)
    record_escaped_exception(s.ing, _through([(str(s.user), "main")], SystemExit(3)))
    top = s.explain()[0]
    assert top["reason"].startswith("exited with status 3 via sys.exit")
