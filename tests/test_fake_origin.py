"""Issue 29 §1/§3: who is at fault when an op Dynamo runs on fake tensors raises
(capture/exception_origin.py, ingest's failures.fake_op/origin_exc/origin,
analyses/handlers.py, the failure kind's headline and fix by origin).

Fast: the original exceptions come from ops run under a FakeTensorMode (no compile), the
stores from trace-shaped records through the Ingestor (tests/test_explain.py's Store)."""

from __future__ import annotations

import json
import sqlite3
import textwrap

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from compdiag.analyses.handlers import enclosing_handler
from compdiag.capture.exception_origin import origin_of
from compdiag.ingest import parsers as P
from compdiag.ingest.own_records import FAKE_RUN_KIND
from compdiag.ingest.reindex import reindex
from compdiag.store.reader import Reader
from principles_check import fake_run_problems
from test_explain import Store


def _raised(fn) -> BaseException:
    with FakeTensorMode(allow_fallback_kernels=False) as mode:
        x = mode.from_tensor(torch.empty(10))
        try:
            fn(x)
        except Exception as exc:  # noqa: BLE001 - the exception is the subject
            return exc
    raise AssertionError("nothing raised")


# -- capture: the original exception's origin ---------------------------------------------------
def test_an_assertion_in_torchs_own_fake_kernel_is_torchs():
    """pytorch/pytorch#179883's op: its fake kernel compares a list to a torch.Size and
    asserts. The raising frame is torch's (fake_impls.py), the type no input check's: `torch`,
    and the op is the one whose kernel raised."""
    exc = _raised(lambda x: torch.ops.aten._assert_tensor_metadata.default(x, size=[10]))
    fact = origin_of(exc, None)
    assert fact["origin"] == "torch", fact
    assert fact["op"] == "aten._assert_tensor_metadata.default"
    assert fact["exc_type"] == "AssertionError" and "Tensor sizes mismatch" in fact["message"]


def test_an_input_check_is_a_check():
    """expand's check (pytorch/pytorch#148475's op) and a dim out of range (canonicalize_dim's
    IndexError, the check #184364's softmax meets in its decomposition): the op refusing its
    inputs, as eager's kernel does: `check`, never torch's bug."""
    expand = origin_of(_raised(lambda x: x.expand(3)), None)
    assert expand["origin"] == "check" and expand["exc_type"] == "RuntimeError", expand
    assert expand["op"] == "aten.expand.default"
    dim = origin_of(_raised(lambda x: torch.amax(x, dim=5)), None)
    assert dim["origin"] == "check" and "IndexError" in dim["exc_types"], dim


def test_a_raising_fake_implementation_of_a_custom_op_is_the_programs():
    """A fake implementation registered for a custom op raises: the raising frame is the
    program's, below torch/_library's dispatch to it: `fake_kernel`, at that frame."""
    lib = "fakeorigin_t1"

    @torch.library.custom_op(f"{lib}::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @twice.register_fake
    def _(x):
        raise ValueError("the fake refuses")

    fact = origin_of(_raised(lambda x: twice(x)), None)
    assert fact["origin"] == "fake_kernel", fact
    assert fact["raised_in"]["filename"] == __file__ and fact["op"] == f"{lib}.twice.default"
    # the line to change (probes39d cop_fake_numpy_impl: said at the op's call)
    assert fact["user_frame"]["line"] == 'raise ValueError("the fake refuses")'


def test_a_failure_raised_in_the_programs_fake_is_at_the_fakes_line(tmp_path):
    """probes39d cop_fake_numpy_impl, blind: `x.numpy()` in a custom op's fake implementation
    (line 18) failed the compile; the failure was put on the op's call (line 27), the line
    torch's traceback names, though capture had recorded the fake's own raising line."""
    s = Store(tmp_path, exit_code=1)
    _fake_run_failure(s, 27, target="ns.softsign.default",
                      exc="RuntimeError('.numpy() is not supported for tensor subclasses.')",
                      fact={"op": "ns.softsign.default", "exc_type": "RuntimeError",
                            "message": ".numpy() is not supported for tensor subclasses.",
                            "origin": "fake_kernel",
                            "user_frame": {"filename": str(s.user), "lineno": 18,
                                           "line": "line_18 = 18"}})
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 18, d


def test_dynamos_own_graph_break_is_no_origin():
    """An Unsupported Dynamo raises on purpose (a graph break) is not an op's exception."""
    from torch._dynamo.exc import Unsupported

    assert origin_of(Unsupported("x"), None) is None


# -- the handler around a line ------------------------------------------------------------------
SOURCE = textwrap.dedent("""\
    import torch

    def f(t):
        try:
            try:
                t.expand_as(t)
            except ValueError:
                pass
        except (KeyError, RuntimeError) as e:
            return t.sin()
        try:
            t[5]
        except Exception:
            pass
        try:
            t.sum()
        except:  # noqa: E722
            t.cos()
        try:
            t.mean()
        except torch.linalg.LinAlgError:
            pass
        return t
    """)


@pytest.mark.parametrize("lineno,classes,want", [
    (6, ["RuntimeError", "Exception", "BaseException"], (9, "RuntimeError")),
    (6, ["ValueError", "Exception", "BaseException"], (7, "ValueError")),
    (6, ["IndexError", "LookupError", "Exception", "BaseException"], None),
    (12, ["IndexError", "LookupError", "Exception", "BaseException"], (13, "Exception")),
    (16, ["ZeroDivisionError"], (17, "")),
    (18, ["RuntimeError"], None),            # in the handler itself: nothing catches it
    (20, ["LinAlgError", "RuntimeError"], (21, "LinAlgError")),
    (3, ["RuntimeError"], None),
])
def test_the_innermost_try_whose_handler_catches_the_type(lineno, classes, want):
    h = enclosing_handler(SOURCE, lineno, classes)
    assert (None if h is None else (h.lineno, h.caught)) == want, h


def test_no_handler_without_the_source():
    assert enclosing_handler(None, 6, ["RuntimeError"]) is None
    assert enclosing_handler("def f(:\n", 1, ["RuntimeError"]) is None


# -- ingest and explain -------------------------------------------------------------------------
GB4315 = ("RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to run FX node "
          "with fake tensors: call_function {target}(*(FakeTensor(..., size=(10,)),), **{{}}): "
          "got {exc}\n  Hint: Your code may result in an error when running in eager.\n\n"
          "  Developer debug context: \n\n For more details about this graph break, please "
          "visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb4315.html")


def _fake_run_failure(s: Store, line: int, *, target: str, exc: str, fact: dict | None):
    """A Dynamo failure of the fake run of `target` at the user's `line`, as compilation_metrics
    reports it, after capture's record of the original exception (`fact`, or none)."""
    if fact is not None:
        s.ing.event(FAKE_RUN_KIND, "0/0", {"origin": fact.get("origin")}, json.dumps(fact))
    s.compile("0/0", fail_type="TorchRuntimeError", fail_reason=GB4315.format(target=target,
                                                                              exc=exc),
              fail_user_frame_filename=str(s.user), fail_user_frame_lineno=line)


def test_torchs_kernel_is_named_and_its_fix_is_a_workaround_and_a_report(tmp_path):
    """assert_tensor_metadata's class: on main the headline did not name the op and the fix
    said "check that the line runs in eager ... a bug in the code" (the property rejects
    that); now the headline names the op whose fake kernel failed, the fix is
    torch.compiler.disable and `compdiag report`, no minify and no eager check."""
    s = Store(tmp_path, exit_code=1)
    _fake_run_failure(s, 8, target="aten._assert_tensor_metadata.default",
                      exc="AssertionError('Tensor sizes mismatch! Expected: [10], Got: "
                          "torch.Size([10])')",
                      fact={"op": "aten._assert_tensor_metadata.default", "origin": "torch",
                            "exc_type": "AssertionError", "message": "Tensor sizes mismatch! "
                            "Expected: [10], Got: torch.Size([10])"})
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "aten._assert_tensor_metadata.default" in d["reason"] and "torch" in d["reason"]
    assert "torch.compiler.disable" in d["fix"] and "compdiag report" in d["fix"], d["fix"]
    with Reader(s.path) as r:
        (f,) = r.failures(s.run_id)
        assert (f["origin"], f["fake_op"]) == ("torch", "aten._assert_tensor_metadata.default")
        assert fake_run_problems(r, s.run_id, [d]) == []
        main = {**d, "reason": "TorchRuntimeError: AssertionError: Tensor sizes mismatch!",
                "fix": "The traced code raised while Dynamo ran it on fake tensors: check that "
                       "the line runs in eager"}
        assert len(fake_run_problems(r, s.run_id, [main])) == 2


def test_a_handler_around_the_line_is_named_and_moved_out(tmp_path):
    """pytorch/pytorch#148475's class: the fake run's RuntimeError at a line inside the
    program's `try ... except RuntimeError`. On main: "check that the line runs in eager"
    (the property rejects that); now the headline names the handler and its line, the fix
    moves the try/except out of the traced code. Without capture's record (an older store)
    torch's text alone (`got RuntimeError(...)`) says the type."""
    for fact in ({"op": "aten.expand.default", "origin": "check", "exc_type": "RuntimeError",
                  "message": "expand: the requested shape has too few dimensions!"}, None):
        (tmp_path / str(bool(fact))).mkdir()
        s = Store(tmp_path / str(bool(fact)), exit_code=1)
        s.user.write_text("import torch\n\ndef fn(t):\n    try:\n        t.expand_as(t)\n"
                          "    except RuntimeError:\n        return t.sin()\n    return t\n")
        _fake_run_failure(s, 5, target="expand_as", fact=fact,
                          exc="RuntimeError('expand: the requested shape has too few "
                              "dimensions!')")
        (d,) = [d for d in s.explain() if d["kind"] == "failure"]
        assert "except RuntimeError" in d["reason"] and "(line 6)" in d["reason"], d["reason"]
        assert "try/except out of the compiled region" in d["fix"], d["fix"]
        with Reader(s.path) as r:
            (f,) = r.failures(s.run_id)
            assert f["origin_exc"].startswith("RuntimeError: expand"), f
            assert fake_run_problems(r, s.run_id, [d]) == []
            main = {**d, "reason": "TorchRuntimeError: RuntimeError: expand",
                    "fix": "check that the line runs in eager"}
            assert len(fake_run_problems(r, s.run_id, [main])) == 2


def test_an_input_check_outside_any_handler_is_still_the_programs(tmp_path):
    """The same check with no try around it: the line raises in eager too, so the fix still
    says to check it there (nothing of torch's bug, nothing of a handler)."""
    s = Store(tmp_path, exit_code=1)
    _fake_run_failure(s, 5, target="expand_as", exc="RuntimeError('expand: too few')",
                      fact={"op": "aten.expand.default", "origin": "check",
                            "exc_type": "RuntimeError", "message": "expand: too few"})
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "except" not in d["reason"] and "runs in eager" in d["fix"], d


def test_capture_record_of_another_exception_is_not_joined(tmp_path):
    """A fake run that raised a graph break Dynamo handled, then a failure of another
    exception in the same compile: the record is not that failure's (its message is not in
    the failure's text)."""
    s = Store(tmp_path, exit_code=1)
    _fake_run_failure(s, 5, target="aten.mm.default", exc="RuntimeError('shapes differ')",
                      fact={"op": "aten.nonzero.default", "origin": "torch",
                            "exc_type": "AssertionError", "message": "something else"})
    s.done()
    with Reader(s.path) as r:
        (f,) = r.failures(s.run_id)
        assert (f["origin"], f["fake_op"], f["origin_exc"]) == \
            (None, "aten.mm.default", "RuntimeError: shapes differ"), f


def test_reindex_keeps_captures_origin_and_fills_an_older_stores(tmp_path):
    """Reindex re-derives the failures' text facts: capture's origin (not in the text) is
    kept, and a row with none (a store older than the columns) gets the text's op and
    exception."""
    s = Store(tmp_path, exit_code=1)
    _fake_run_failure(s, 8, target="aten._assert_tensor_metadata.default",
                      exc="AssertionError('mismatch')",
                      fact={"op": "aten._assert_tensor_metadata.default", "origin": "torch",
                            "exc_type": "AssertionError", "message": "mismatch"})
    s.done()
    reindex(s.path)
    with Reader(s.path) as r:
        (f,) = r.failures(s.run_id)
        assert (f["origin"], f["origin_exc"]) == ("torch", "AssertionError: mismatch"), f
    conn = sqlite3.connect(s.path)
    conn.execute("UPDATE failures SET fake_op = NULL, origin_exc = NULL, origin = NULL")
    conn.commit()
    conn.close()
    reindex(s.path)
    with Reader(s.path) as r:
        (f,) = r.failures(s.run_id)
        assert (f["origin"], f["fake_op"], f["origin_exc"]) == \
            (None, "aten._assert_tensor_metadata.default", "AssertionError: mismatch"), f


def test_the_runtime_size_check_of_a_custom_op_blames_its_fake_in_the_headline(tmp_path):
    """pytorch/pytorch#143579's class: torch says the custom op's fake kernel is the likely
    cause; on main only the fix said so, the headline was the size assertion alone."""
    msg = ("expected size 8==8, stride 1==16 at dim=0\nError in op: torch.ops.ns.swap.default\n"
           "This error most often comes from a incorrect fake (aka meta) kernel for a custom op.")
    facts = P.failure_facts("AssertionError", msg, None, msg)
    assert (facts["origin"], facts["fake_op"]) == ("fake_kernel", "ns.swap.default")
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.failure("0/0", stage="runtime", exc_type="AssertionError", message=msg, traceback=msg,
              torch_message=msg)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "fake implementation" in d["reason"] and "ns.swap.default" in d["reason"], d
    assert "register_fake" in d["fix"]


def test_a_handler_around_the_compiled_call_catches_it_as_in_eager(tmp_path):
    """probes38k fail_caught_compiled_error: a wrong input width, and the program's `except
    RuntimeError` around the compiled call catches Dynamo's TorchRuntimeError (a RuntimeError)
    and goes on. The "caught" verdict said the handler cannot see the error and to move the
    try/except around the compiled call, where it already was; it is information now, with
    the program's handler named."""
    s = Store(tmp_path)
    s.user.write_text("import torch\n\ndef fn(t):\n    return t.expand_as(t)\n\n"
                      "cfn = torch.compile(fn)\ntry:\n    cfn(torch.ones(3))\n"
                      "except RuntimeError as e:\n    print(type(e).__name__)\n")
    _fake_run_failure(s, 8, target="expand_as", exc="RuntimeError('expand: too few')",
                      fact={"op": "aten.expand.default", "origin": "check",
                            "exc_type": "RuntimeError", "message": "expand: too few"})
    s.ing.event("call_stack", "0/0", {}, payload=json.dumps({
        "frames": [{"filename": str(s.user), "lineno": 8, "name": "<module>"}],
        "objects": {}}))
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["severity"] == "info" and d["user_frame"]["lineno"] == 8, d
    assert "`except RuntimeError as e` (line 9) around the compiled call caught it" \
        in d["reason"], d["reason"]
    assert d["fix"].startswith("Nothing to fix") and "isinstance" in d["fix"], d["fix"]
