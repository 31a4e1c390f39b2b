"""Ends torch itself is responsible for (issue 29 §3, set5's misses as classes): a
torch.compile() call that refused its argument before compiling anything, and an internal
error of Dynamo. Hand-fed stores through capture's own recording, no compile."""

from __future__ import annotations

from test_explain import Store

from compdiag.capture.failures import record_escaped_exception
from compdiag.store.reader import Reader

TORCH_INIT = "/x/site-packages/torch/__init__.py"
EVAL_FRAME = "/x/site-packages/torch/_dynamo/eval_frame.py"


def _raised_through(user_file: str, user_line: int, chain: list[tuple[str, str]],
                    exc: BaseException) -> BaseException:
    """`exc` raised at the end of a call chain: the user's line (padded so the call sits at
    `user_line` of `user_file`), then each (torch file, function name) in turn."""
    ns: dict = {"exc": exc}
    names = [name for _, name in chain]
    for i, (filename, name) in enumerate(reversed(chain)):
        inner = names[len(chain) - i] if i else None
        body = f"    return {inner}()\n" if inner else "    raise exc\n"
        exec(compile(f"def {name}():\n{body}", filename, "exec"), ns)
    src = "\n" * (user_line - 2) + f"def user():\n    {names[0]}()\n"
    exec(compile(src, user_file, "exec"), ns)
    try:
        ns["user"]()
    except BaseException as e:  # noqa: BLE001
        return e
    raise AssertionError("did not raise")


REFUSED = ("torch.compile does not support compiling a ThingModule directly.\n\n"
           "Workaround: compile the original module instead:\n  compiled = torch.compile(m)\n")


def test_a_refusal_by_torch_compile_itself_is_no_compiled_code_failure(tmp_path):
    """set5's compile_scripted_module, as a class: torch.compile(...) raised while checking its
    argument (its own frame in torch/__init__.py, then eval_frame.py's wrapper), with 0
    compiles. On main capture took the eval_frame.py frame for a compiled function's call:
    a fatal `runtime` failure, "The compiled code failed while running", with bisect and
    minify. It is torch.compile() refusing its argument at the user's call."""
    s = Store(tmp_path, exit_code=1)
    exc = _raised_through(str(s.user), 22, [(TORCH_INIT, "compile"), (EVAL_FRAME, "__call__")],
                          RuntimeError(REFUSED))
    record_escaped_exception(s.ing, exc)
    diags = s.explain()
    with Reader(s.path) as r:
        assert r.failures(s.run_id) == []
        (pe,) = r.program_exceptions(s.run_id)
    assert pe["compiled"] is None
    top = diags[0]
    # a failure of torch.compile with no stage (session 31: blind users expected a failure)
    assert top["kind"] == "failure" and top["stage"] is None and \
        top["user_frame"]["lineno"] == 22
    assert "torch.compile() refused" in top["reason"] and "ThingModule" in top["reason"]
    assert "compile the original module instead" in top["fix"]
    for word in ("compiled code failed", "outside compiled code"):
        assert word not in top["explanation"] + top["reason"]
    assert not [w for w in ("bisect", "minify", "aot_eager") if w in top["fix"]]
    assert [d for d in diags if d["kind"] == "failure"] == [top]


def test_a_compiled_call_through_eval_frame_is_still_compiled_code(tmp_path):
    """The other side of the refusal rule: a compiled function's call (eval_frame.py's
    wrapper, no torch.compile() frame) that raises stays a run-time failure."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    exc = _raised_through(str(s.user), 22, [(EVAL_FRAME, "_fn")], RuntimeError("boom"))
    record_escaped_exception(s.ing, exc)
    top = s.explain()[0]
    assert (top["kind"], top["stage"]) == ("failure", "runtime")


CONVERT_FRAME = "/x/site-packages/torch/_dynamo/convert_frame.py"
INNER = "'int' object has no attribute 'as_subclass'"


def _internal_error() -> type:
    """An exception class named as torch's, in torch's module (capture tells torch's compile
    errors by their module)."""
    return type("InternalTorchDynamoError", (RuntimeError,), {"__module__": "torch._dynamo.exc"})


def test_an_internal_dynamo_error_is_torchs_bug_with_the_way_round_it(tmp_path):
    """set5's torch_function_recursion, as a class: compilation_metrics gives the wrapped
    error's type (AttributeError), the program ends in InternalTorchDynamoError. On main the
    top was the bare AttributeError with "check that the line runs in eager ... a bug in the
    code" and a bisect. An internal error of Dynamo is torch's bug: say so, report it, and
    keep Dynamo off that function (torch.compiler.disable; suppress_errors last)."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", co_name="fn", lineno=17, fail_type="AttributeError", fail_reason=INNER,
              fail_user_frame_filename=str(s.user), fail_user_frame_lineno=18)
    exc = _raised_through(str(s.user), 24, [(EVAL_FRAME, "compile_wrapper"),
                                            (CONVERT_FRAME, "_compile")],
                          _internal_error()(f"AttributeError: {INNER}"))
    record_escaped_exception(s.ing, exc)
    top = s.explain()[0]
    assert (top["kind"], top["stage"]) == ("failure", "dynamo")
    assert top["user_frame"]["lineno"] == 18
    assert "InternalTorchDynamoError" in top["reason"] and INNER in top["reason"]
    assert "bug in torch" in top["explanation"]
    fix = top["fix"]
    assert "torch.compiler.disable" in fix and "`fn`" in fix and "suppress_errors" in fix
    assert "pytorch/pytorch/issues" in fix
    assert not [w for w in ("force_eager", "bisect", "bug in the code") if w in fix]


OVERWRITTEN = ("RuntimeError: Error: accessing tensor output of CUDAGraphs that has been "
               "overwritten by a subsequent run. Stack trace: File \"/venv/lib/python3.12/"
               "site-packages/torch/optim/sgd.py\", line 127, in step. To prevent overwriting, "
               "clone the tensor outside of torch.compile() or call "
               "torch.compiler.cudagraph_mark_step_begin() before each model invocation.")


def test_a_known_error_dynamo_wraps_as_internal_keeps_its_own_fix(tmp_path):
    """set28/gpu cg_train_step_backward_break (H100, torch 2.11): a whole train step under
    mode='reduce-overhead'; SGD's momentum buffers, made inside the graphed step, were
    overwritten by its next replay, and Dynamo met one while tracing the step again. torch
    wrapped it as InternalTorchDynamoError, and the panel said "an internal error of torch,
    report it" where torch's own words name a CUDA graph's overwritten output: the known
    error's rule (the optimizer step out of the CUDA-graphed function) is the fix."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", co_name="train_step", lineno=17, fail_type="RuntimeError",
              fail_reason=OVERWRITTEN, fail_user_frame_filename=str(s.user),
              fail_user_frame_lineno=18)
    exc = _raised_through(str(s.user), 24, [(EVAL_FRAME, "compile_wrapper"),
                                            (CONVERT_FRAME, "_compile")],
                          _internal_error()(OVERWRITTEN))
    record_escaped_exception(s.ing, exc)
    top = s.explain()[0]
    assert (top["kind"], top["user_frame"]["lineno"]) == ("failure", 18), top
    assert "InternalTorchDynamoError" not in top["reason"], top["reason"]
    assert "bug in torch" not in top["explanation"] and "momentum" in top["explanation"]
    assert "optimizer step out of the CUDA-graphed function" in top["fix"], top["fix"]


def test_an_ordinary_dynamo_failure_keeps_its_own_fix(tmp_path):
    """The other side: a dynamo-stage failure torch did not call internal keeps the
    run-it-in-eager advice."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", co_name="fn", lineno=17, fail_type="TorchRuntimeError",
              fail_reason="shape mismatch", fail_user_frame_filename=str(s.user),
              fail_user_frame_lineno=18)
    top = s.explain()[0]
    assert top["kind"] == "failure" and "InternalTorchDynamoError" not in top["reason"]
    assert "force_eager" in top["fix"]


def test_an_internal_error_in_a_resume_function_names_the_users_function(tmp_path):
    """set5's subclass_getattr_flatten, as a class: the internal error happened in the code
    Dynamo resumes after a graph break (its code object `torch_dynamo_resume_in_fn_at_18`).
    On main the fix said to decorate `torch_dynamo_resume_in_fn_at_18` with
    `@torch.compiler.disable`, a name that exists only inside Dynamo; the user's function
    is `fn` (principles_check.resume_name_problems holds it over every store)."""
    from principles_check import resume_name_problems

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", co_name="fn", lineno=12)
    s.compile("1/0", co_name="torch_dynamo_resume_in_fn_at_18", lineno=18,
              fail_type="AttributeError", fail_reason=INNER,
              fail_user_frame_filename=str(s.user), fail_user_frame_lineno=19)
    exc = _raised_through(str(s.user), 24, [(EVAL_FRAME, "compile_wrapper"),
                                            (CONVERT_FRAME, "_compile")],
                          _internal_error()(f"AttributeError: {INNER}"))
    record_escaped_exception(s.ing, exc)
    diags = s.explain()
    top = diags[0]
    assert (top["kind"], top["stage"]) == ("failure", "dynamo")
    assert "decorate `fn` with" in top["fix"]
    with Reader(s.path) as r:
        assert resume_name_problems(r, s.run_id, diags) == []


JIT_ANNOTATIONS = "/x/site-packages/torch/jit/annotations.py"


def _bound_then_exported(s: Store, export: str, line: int) -> None:
    """The program's source: `model = torch.compile(model)` at line 5, `export` at `line`,
    and capture's record of that torch.compile call."""
    lines = [f"line_{i} = {i}" for i in range(1, 40)]
    lines[4] = "model = torch.compile(model)"
    lines[line - 1] = export
    s.user.write_text("\n".join(lines) + "\n")
    s.ing.event("compile_call", None, {"module": "torch", "key": "compile", "value": "Net()",
                                       "call": {"filename": str(s.user), "lineno": 5,
                                                "line": lines[4]}})


def test_an_exporter_given_the_compiled_wrapper_names_the_line_that_bound_it(tmp_path):
    """probes34b gru_export_script: `model = torch.compile(model)` at 25, then
    `torch.jit.script(model)` at 38 raised "Unknown type annotation: 'Callable[..., Any]'",
    said as "the program's own error, not torch.compile's" with a force_eager check (under
    which the wrapper stays and it raises alike). The cause is the rebinding: the exporter
    got the OptimizedModule; export `model._orig_mod`."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    _bound_then_exported(s, "scripted = torch.jit.script(model)", 22)
    exc = _raised_through(str(s.user), 22, [(JIT_ANNOTATIONS, "ann_to_type")],
                          ValueError("Unknown type annotation: 'Callable[..., Any]' at"))
    record_escaped_exception(s.ing, exc)
    top = s.explain()[0]
    assert (top["kind"], top["user_frame"]["lineno"]) == ("program", 22), top
    assert "torch.jit.script(model) was given torch.compile's wrapper: `model = " \
        "torch.compile(model)` (line 5) made model an OptimizedModule" in top["reason"]
    assert "torch.jit.script(model._orig_mod, ...)" in top["fix"]
    assert "force_eager" not in top["fix"]


def test_a_trace_of_the_compiled_wrapper_is_no_compiled_code_failure(tmp_path):
    """probes34c tabular_torchscript_export: `torch.jit.trace(model, example)` on the
    wrapper raised torch's "Detected that you are using FX to torch.jit.trace a
    dynamo-optimized function", said as compiled code failing, with aot_eager and a bisect
    (whose culprit was "eager")."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    _bound_then_exported(s, "scripted = torch.jit.trace(model, example)", 27)
    s.failure("0/0", stage="runtime", exc_type="RuntimeError",
              message="Detected that you are using FX to torch.jit.trace a dynamo-optimized "
                      "function. This is not supported at the moment.",
              filename=str(s.user), lineno=27)
    (top,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "torch.jit.trace(model) was given torch.compile's wrapper" in top["reason"], top
    assert "compiled code failed" not in top["explanation"]
    assert "torch.jit.trace(model._orig_mod, ...)" in top["fix"]
    assert not [w for w in ("bisect", "aot_eager") if w in top["fix"]], top["fix"]


REUSE = ("invoke_subgraph: exceeded maximum reuse entries (8) for function code <code object "
         "mixer_block>. This most likely means a guard keeps failing on every invocation, "
         "preventing subgraph reuse.")


def test_a_nested_region_traced_at_every_call_names_the_argument(tmp_path):
    """probes34c deepnorm_nested_region: `mixer_block(x, w_in[i], w_out[i], 1.0 /
    math.sqrt(2 * (i + 1)))` under torch.compiler.nested_compile_region; torch gave up after 8
    subgraphs, said as "an internal error of torch" with a disable fix that compiled none of
    the model. The per-call Python number is named, with the tensor fix (0 breaks, 0
    recompiles when applied)."""
    s = Store(tmp_path, exit_code=1)
    lines = [f"x_{i} = {i}" for i in range(1, 30)]
    lines[8:12] = ["@torch.compiler.nested_compile_region",
                   "def mixer_block(x, w_in, w_out, residual_scale):",
                   "    return x + residual_scale * (x @ w_in @ w_out)", ""]
    lines[22:25] = ["def forward(self, x):", "    for i in range(3):",
                    "        x = mixer_block(x, self.w_in[i], self.w_out[i], 1.0 / math.sqrt(i + 1))"]
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0", co_name="forward", lineno=23)
    s.failure("0/0", stage="dynamo", exc_type="InternalTorchDynamoError",
              message=f"RuntimeError: {REUSE}", filename=str(s.user), lineno=25)
    (top,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "residual_scale (`1.0 / math.sqrt(i + 1)`) is a Python number" in top["reason"], top
    assert "bug in torch" not in top["explanation"]
    assert top["fix"].startswith("Pass residual_scale as a tensor"), top["fix"]
