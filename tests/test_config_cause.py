"""Issue 29 §1 (set20's compiler_collectives_gloo, first run: the failure at the compiled
call, line 46): an exception raised in torch code that runs only because the program turned a
setting on is at the line that turned it on, with the setting named, when the raising torch
function and the config share their words. Fast: a hand-fed store, no compile."""

from __future__ import annotations

from test_explain import TORCH_FILE, Store


def _traceback(user: str, fn: str) -> str:
    return ("Traceback (most recent call last):\n"
            f'  File "{user}", line 46, in <module>\n    loss = ddp(x).pow(2).mean()\n'
            f'  File "{TORCH_FILE}", line 2729, in compile_and_call_fx_graph\n'
            "    self.run_compiler_collective()\n"
            f'  File "{TORCH_FILE}", line 2577, in {fn}\n    "+".join(device_types)\n'
            "TypeError: sequence item 0: expected str instance, torch.device found\n")


def _store(tmp_path, fn: str, setting: str) -> Store:
    s = Store(tmp_path, exit_code=1)
    s.user.write_text(s.user.read_text().replace("line_23 = 23\n", setting + "\n"))
    s.compile("0/0")
    s.failure("0/0", stage="dynamo", exc_type="InternalTorchDynamoError",
              message="TypeError: sequence item 0: expected str instance, torch.device found",
              filename=str(s.user), lineno=46, line="loss = ddp(x).pow(2).mean()",
              traceback=_traceback(str(s.user), fn))
    return s


def test_a_failure_in_torchs_code_for_a_setting_is_at_the_settings_line(tmp_path) -> None:
    s = _store(tmp_path, "run_compiler_collective",
               "torch._dynamo.config.enable_compiler_collectives = True")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 23, d
    assert "config.enable_compiler_collectives, set at line 23" in d["reason"]
    assert d["fix"].startswith("Run once without `enable_compiler_collectives` (line 23)")
    assert "while tracing line 46" in d["explanation"]


def test_a_setting_the_raising_function_is_not_about_is_left_alone(tmp_path) -> None:
    """One shared word is not enough (`compiler`): the failure stays at the call."""
    s = _store(tmp_path, "run_compiler_collective",
               "torch._dynamo.config.compiler_threads = 1")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] != 23 and "set at line" not in d["reason"], d


def test_a_setting_torchs_message_names_is_at_the_options_dict_that_gives_it(tmp_path):
    """probes36d cpu_autotune_triton_options, blind: `options={"max_autotune_gemm_backends":
    "TRITON"}` on a CPU; Inductor's NoValidChoicesError says "please consider adding ATEN
    into max_autotune_gemm_backends config", and the failure stayed at the compiled call
    (line 46) with the generic Inductor fix. The setting torch's message names is found where
    the program gives it: a key of the options dict (line 23)."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text(s.user.read_text().replace(
        "line_23 = 23\n", 'OPTIONS = {"max_autotune": True, "max_autotune_gemm_backends": '
        '"TRITON"}\n').replace("line_24 = 24\n", "fn = torch.compile(f, options=OPTIONS)\n")
        .replace("line_25 = 25\n", 'cfg = {"batch_size": 32}\n'))
    s.compile("0/0")
    msg = ("LoweringException: NoValidChoicesError: No choices to select. Provided reason: No "
           "choices exist for backend. please consider adding ATEN into "
           "max_autotune_gemm_backends config (defined in torch/_inductor/config.py)")
    s.failure("0/0", stage="inductor_lowering", exc_type="InductorError", message=msg,
              filename=str(s.user), lineno=46, line="out = fn(x)",
              traceback=_traceback(str(s.user), "_select_algorithm").replace(
                  "TypeError: sequence item 0: expected str instance, torch.device found",
                  msg))
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 23, d
    assert "`max_autotune_gemm_backends` is set at line 23" in d["reason"]
    assert d["fix"].startswith("Run once without `max_autotune_gemm_backends` (line 23)")
    # a dict key of the program's own that torch's words happen to name is no setting
    from compdiag.analyses.config_cause import _named_in
    from compdiag.analyses.context import RunContext
    from compdiag.store.reader import Reader

    with Reader(s.path) as r:
        ctx = RunContext(r, s.run_id)
        assert _named_in(ctx, "0/0", "Expected input batch_size (3) to match target "
                                     "batch_size (4)") is None


def test_an_error_reporting_a_graph_break_says_the_break_and_its_fix(tmp_path) -> None:
    """set21b cond_branch_print (first run): torch.cond's UncapturedHigherOrderOpError ends
    "Got graph break/error:" and the break (a `print` in the branch) followed on other lines;
    the reason said only "[GB0059]" and the fix was about fake tensors. The break's own
    explanation is in the reason, and its fix, for code that must trace whole."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    msg = ("This higher order operator doesn't work unless it is captured completely with "
           "torch.compile. Got graph break/error:")
    whole = (msg + "\n\nFailed to trace builtin operator\n  Explanation: Dynamo does not know "
             "how to trace builtin operator `print` with argument types ['str'] (has_kwargs "
             "False)\n  Hint: Avoid calling builtin `print`\n\n  Developer debug context: "
             "builtin print [<class 'ConstantVariable'>] False\n\n For more details about this "
             "graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-"
             "site/gb/gb0059.html")
    s.failure("0/0", stage="dynamo", exc_type="UncapturedHigherOrderOpError", message=msg,
              torch_message=whole, filename=str(s.user), lineno=19,
              line='print("gate open")', traceback=whole)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "trace builtin operator `print`" in d["reason"], d["reason"]
    assert d["fix"].startswith("The code must be traced whole here"), d["fix"]
    assert "print" in d["fix"] and "fake tensors" not in d["fix"]
    # probes29a cond_early_exit: a disable helper or eager both fail inside a cond branch
    assert "neither a `torch.compiler.disable` helper nor running it uncompiled" in d["fix"]


def _lowering_failure(tmp_path, setting: str, stage: str, message: str, torch_message: str):
    tmp_path.mkdir(exist_ok=True)
    s = Store(tmp_path, exit_code=1)
    s.user.write_text(s.user.read_text().replace("line_17 = 17\n", setting + "\n"))
    s.compile("0/0")
    user = str(s.user)
    s.failure("0/0", stage=stage, exc_type="InductorError", message=message,
              torch_message=torch_message, filename=user, lineno=46, line="line_46 = 46",
              traceback=("Traceback (most recent call last):\n"
                         f'  File "{user}", line 46, in <module>\n    line_46 = 46\n'
                         f'  File "{TORCH_FILE}", line 10, in run\n    x()\n'
                         f"torch._inductor.exc.InductorError: {message}\n"
                         # a lowering error quotes the IR's user stack traces last
                         f'  File "{user}", line 28, in forward,\n    line_28 = 28,\n'))
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    return d


def test_a_failure_torch_raises_for_a_known_setting_is_at_the_settings_line(tmp_path):
    """probes45c, blind: `inductor_config.implicit_fallbacks = False` then "missing lowering"
    for grid_sampler_3d, and `inductor_config.cpp.march = "znver5"` then a C++ compile error
    whose compiler said "bad value 'znver5' for '-march='" (in no view): both were at the
    compiled call, with aot_eager, bisect and minify as the fix. Torch's words name no config
    the program assigns, so the failure's words name the setting (config_cause's
    SETTINGS_BEHIND)."""
    d = _lowering_failure(tmp_path / "a", "inductor_config.implicit_fallbacks = False",
                          "inductor_lowering", "MissingOperatorWithoutDecomp: missing lowering",
                          "MissingOperatorWithoutDecomp: missing lowering\n  target: "
                          "aten.grid_sampler_3d.default\n")
    assert d["user_frame"]["lineno"] == 17, d
    assert "`implicit_fallbacks` is set at line 17" in d["reason"]
    assert d["fix"].startswith("Run once without `implicit_fallbacks` (line 17)")
    d = _lowering_failure(tmp_path / "b", 'torch._inductor.config.cpp.march = "znver5"',
                          "kernel_compile", "CppCompileError: C++ compile error",
                          "CppCompileError: C++ compile error\n\nCommand:\ng++ x.cpp "
                          "-march=znver5 -o x.so\n\nOutput:\ncc1plus: error: bad value "
                          "'znver5' for '-march=' switch\n")
    assert d["user_frame"]["lineno"] == 17, d
    assert "cc1plus: error: bad value 'znver5' for '-march=' switch" in d["reason"], d
    assert "`cpp.march` is set at line 17" in d["reason"]


def test_a_missing_cxx_set_in_the_environment_is_at_that_line_with_its_fix(tmp_path):
    """probes45c sampler_cxx_clang_fallback_eager, blind: `os.environ.setdefault("CXX",
    "clang++")` on a machine without clang++; said as a kernel that failed to compile at the
    first op, with aot_eager, bisect and minify."""
    d = _lowering_failure(tmp_path / "a", 'os.environ.setdefault("CXX", "clang++")',
                          "kernel_compile", "InvalidCxxCompiler: No working C++ compiler "
                          "found in torch._inductor.config.cpp.cxx: (None, 'clang++')", "")
    assert d["user_frame"]["lineno"] == 17, d
    assert "`CXX` is set at line 17" in d["reason"]
    assert "unset CXX or set it to an installed one" in d["fix"]
    assert "bisect" not in d["fix"] and "report the failure" not in d["fix"], d["fix"]
