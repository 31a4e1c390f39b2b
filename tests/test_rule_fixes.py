"""Known causes said in torch's words, each found blind in a probe (session 41): the rule that
names the cause and a fix that works, for every message of the class, not one script. Fast:
the rules are read on torch's own message text, no compile."""

from __future__ import annotations

import pytest

from compdiag.analyses.decorator_lines import config_patch_fix, context_decorator
from compdiag.analyses.failure_fixes import failure_fix
from compdiag.analyses.fixes import graph_break_fix
from compdiag.analyses.program_words import PROGRAM_FIXES
from compdiag.analyses.rules import first
from compdiag.analyses.runtime_fixes import eager_fails, runtime_why


@pytest.mark.parametrize("kind, made", [("zip", "`zip(...)`"), ("dict_items", "`d.items()`"),
                                        ("map", "`map(...)`"), ("dict_values", "`d.values()`")])
def test_an_iterator_passed_in_is_made_inside(kind: str, made: str) -> None:
    """probes41a multitask_zip_losses, vae_loss_weights_items (torch's test_error_messages):
    `loss(zip(preds, targets))` broke with "missing tp_iter"; the fix said to move the loop
    out or disable it, which kept the break. A zip made inside compiles."""
    fix = graph_break_fix("missing tp_iter", f"tp_iter_impl not implemented for {kind}",
                          "", "for pred, target in pairs:", [])
    assert f"`{kind}` object was made outside" in fix and f"call {made} inside" in fix
    assert "torch.compiler.disable" not in fix


def test_a_while_loop_carry_aliasing_its_closure_is_cloned() -> None:
    """probes41b hop_while_refine_closure_alias (pytorch#191582): the fix was bisect only."""
    one = ("RuntimeError: cond_fn might be aliasing the input or the output! (in op "
           "torch.ops.higher_order.while_loop)")
    fix = failure_fix("aot", "RuntimeError", one, run_id=1, argv=["a.py"])
    assert "b.clone()" in fix and "bisect" not in fix and "minify" not in fix
    assert "alias" in runtime_why(one, "aot")


def test_an_exported_programs_size_guard_is_exported_dynamic() -> None:
    """probes41d export_then_compile_tail_batch (pytorch#130152): said as a bug in torch's
    fake kernel, with a disable fix that failed the same way."""
    one = ("TorchRuntimeError: AssertionError: Guard failed: x.size()[0] == 8 [GB4315]: Dynamo "
           "failed to run FX node with fake tensors\n  File \"<eval_with_key>.3\", line 5, in "
           "forward\n    _guards_fn = self._guards_fn(x)")
    fix = failure_fix("dynamo", "TorchRuntimeError", one, run_id=1, argv=["a.py"])
    assert "dynamic_shapes=" in fix and "torch.compiler.disable" not in fix
    assert eager_fails(one, "dynamo") and "exported" in runtime_why(one, "dynamo")


def test_a_forbidden_callable_names_set_stance_and_disable() -> None:
    """probes41d stance_decorated_debug_helper: `@torch.compiler.set_stance("force_eager")` on
    a helper the compiled forward calls; the fix was register_fake advice."""
    one = "AssertionError: Attempt to trace forbidden callable <function log_activation>"
    fix = failure_fix("dynamo", "AssertionError", one, run_id=1, argv=["a.py"])
    assert fix.startswith("Keep it out of the compiled region") and "register_fake" not in fix
    assert "set_stance" in runtime_why(one, "dynamo")


def test_pickling_a_compiled_function_sends_the_plain_one() -> None:
    """probes41d pool_map_compiled_scorer: `pool.map(torch.compile(score), ...)`."""
    msg = ("Can't pickle <function score_shard at 0x7f81b0ebb920>: it's not the same object as "
           "__main__.score_shard")
    fix = first(PROGRAM_FIXES, msg)
    assert fix and "torch.compile's wrapper" in fix and "compile inside each worker" in fix
    assert first(PROGRAM_FIXES, "Can't pickle local object 'f.<locals>.g'") is None


def test_a_config_patch_decorator_is_set_outside_with_its_own_settings() -> None:
    """probes41d config_patch_decorated_step (pytorch#150586): the break in contextlib's
    `inner` got a library fix at the compiled call."""
    lib = {"filename": "/usr/lib/python3.11/contextlib.py", "lineno": 80, "name": "inner"}
    expl = "Dynamo does not know how to enter a `ConfigPatch` context manager."
    assert context_decorator(lib, expl) == "ConfigPatch"
    assert context_decorator({**lib, "name": "__enter__"}, expl) is None
    line = "@torch._inductor.config.patch(fallback_random=True, max_autotune=False)"
    fix = graph_break_fix("Unsupported context manager", expl, "", line, [], lib_frame=lib)
    assert fix == config_patch_fix(line)
    assert ("`torch._inductor.config.fallback_random = True`; "
            "`torch._inductor.config.max_autotune = False`") in fix


def test_a_package_installed_into_a_folder_of_its_own_is_not_the_users_code(tmp_path) -> None:
    """probes41c: transformers installed with `pip install --target /tmp/p41c/site` was "code
    of yours", so a failure pointed at its sdpa_attention.py. A folder holding `*.dist-info`
    is where pip installs; a project beside an egg-info (`pip install -e .`) stays the user's."""
    from compdiag.formats.user_code import is_user_file

    site = tmp_path / "site"
    (site / "transformers" / "integrations").mkdir(parents=True)
    (site / "transformers-5.25.0.dist-info").mkdir()
    lib = site / "transformers" / "integrations" / "sdpa_attention.py"
    lib.write_text("x = 1\n")
    proj = tmp_path / "proj"
    (proj / "mypkg.egg-info").mkdir(parents=True)
    (proj / "mypkg").mkdir()
    own = proj / "mypkg" / "train.py"
    own.write_text("x = 1\n")
    assert not is_user_file(str(lib)) and is_user_file(str(own))


def test_a_custom_op_without_a_fake_gets_register_fake_and_no_minify() -> None:
    """probes41b cop_relu2_backward_op_no_fake: the custom op's backward calls a second custom
    op with no fake kernel; the fix was bisect and a minify command that refused when pasted
    ("a custom op only the program registers")."""
    from types import SimpleNamespace

    from compdiag.analyses.failure_fixes import minify_unavailable

    one = ("RuntimeError: There was no fake impl registered for <CustomOpDef(ffn_ops::relu2_bwd)>"
           ". This is necessary for torch.compile/export/fx tracing to work. Please use "
           "`relu2_bwd.register_fake` to add an fake impl.")
    ctx = SimpleNamespace(run={"source": "run"})
    why = minify_unavailable(ctx, "0/0", f"backend='inductor' raised:\n{one}")
    assert why and "torch.ops.ffn_ops.relu2_bwd, a custom op only your program registers" in why
    fix = failure_fix("aot", "RuntimeError", one, run_id=1, argv=["a.py"], no_minify=why)
    assert fix.startswith("Register a fake (meta) implementation") and "`compdiag minify" not in fix
    kept = SimpleNamespace(run={"source": "run"}, run_id=1,
                           r=SimpleNamespace(kept_failure_graphs=lambda run_id: ["0/0"]))
    assert minify_unavailable(kept, "0/0", "aten::mm failed") is None  # torch's own op


def test_a_logging_break_inside_a_library_names_that_logger_method() -> None:
    """probes41c hf_gpt2_lmhead_loss_type_break (transformers#34615): transformers'
    `logger.warning_once` in its loss_function broke every compiled step; the fix named
    `logger.info` and moving the user's own call. The helper checked that adding
    `transformers.modeling_utils.logger.warning_once` to ignore_logging_functions removes it."""
    lib = {"filename": "/usr/lib/python3/site-packages/transformers/modeling_utils.py",
           "lineno": 4824, "name": "loss_function", "line": "logger.warning_once("}
    fix = graph_break_fix("logging.Logger method not supported for non-export cases", "", "",
                          "out = cmodel(**batch)", [], lib_frame=lib)
    assert ("ignore_logging_functions.add(transformers.modeling_utils.logger.warning_once)"
            in fix), fix
    assert fix.startswith("Your call `cmodel(...)` breaks inside `loss_function` "
                          "(modeling_utils.py:4824"), fix
    own = graph_break_fix("logging.Logger method not supported for non-export cases", "", "",
                          "    log.info(loss)", [])
    assert "ignore_logging_functions.add(log.info)" in own


def test_an_op_without_a_fake_tensor_kernel_gets_a_fix_not_torchs_eager_hint() -> None:
    """probes43j qtensor_per_channel_weight_sim, blind: `torch.quantize_per_channel` in a
    compiled forward broke the graph (GB0087, UnsupportedFakeTensorException: quantized nyi
    in meta tensors) and the fix was torch's hint "your code may result in an error when
    running in eager": it ran in eager. Quantized tensors get the float simulation; any
    other op without a fake kernel the way around it."""
    from compdiag.analyses.fixes import NO_FAKE_FIX, QUANTIZED_FAKE_FIX, graph_break_fix

    gb = "NotImplementedError/UnsupportedFakeTensorException when running FX node"
    hint = ["Your code may result in an error when running in eager."]
    quant = graph_break_fix(gb, "got UnsupportedFakeTensorException(reason='quantized nyi in "
                                "meta tensors')", "", "wq = torch.quantize_per_channel(w)", hint)
    assert quant == QUANTIZED_FAKE_FIX and "fake_quantize_per_channel_affine" in quant
    other = graph_break_fix(gb, "got UnsupportedFakeTensorException(reason='nyi')", "",
                            "y = my_op(x)", hint)
    assert other == NO_FAKE_FIX and "register_fake" in other


def test_a_nested_compile_region_reading_a_tensor_from_outside_gets_the_arguments_fix() -> None:
    """probes43h refine_region_global_state (after pytorch#191821), blind: a function under
    torch.compiler.nested_compile_region read tensors from a global; Dynamo raised
    "AssertionError: Freevar has no source" and the fix said to check the line in eager (it
    ran) or register a fake kernel (no custom op). The fix passes them as arguments."""
    from compdiag.analyses.runtime_fixes import runtime_fix

    fix = runtime_fix("AssertionError: Freevar has no source: node.op=call_function "
                      "node.name=hidden -- this likely means a function argument was not "
                      "included in the proxy matching", stage="dynamo")
    assert fix and "as an argument" in fix and "nested_compile_region" in fix


NOGRAD_SRC = """import torch


class Standardizer:
    @torch.no_grad()
    def stats(self, x):
        return x.mean(0), x.std(0)


def forward(x):
    norm = Standardizer()
    mu, sd = norm.stats(x)
    return (x - mu) / sd
"""


def test_a_grad_decorated_method_of_an_object_built_in_compiled_code_names_the_decorator():
    """probes43h calib_nograd_helper_skip (pytorch#194763), blind: GB0116 "Unexpected type in
    sourceless builder (builtins.method)" at `norm.stats(x)`, a `@torch.no_grad()` method of
    an object forward built; the fix was a torch.compiler.disable wrapper (a break left), the
    decorator never named. Now the decorator, its line, and the fixes that leave no break."""
    from compdiag.analyses.decorated_methods import decorated_method_fix

    reason = ("Unexpected type in sourceless builder (builtins.method), calling "
              "`norm.stats(...)`")
    fix = decorated_method_fix(reason, "mu, sd = norm.stats(x)", NOGRAD_SRC)
    assert fix and "`@torch.no_grad()` (line 5)" in fix and "with torch.no_grad():" in fix
    assert decorated_method_fix("Unexpected type in sourceless builder (builtins.method)",
                                "mu, sd = norm.stats(x)", NOGRAD_SRC) == fix
    assert decorated_method_fix(reason, "", NOGRAD_SRC.replace("@torch.no_grad()\n", "")) is None
    assert decorated_method_fix("Failed to trace builtin operator", "", NOGRAD_SRC) is None


@pytest.mark.parametrize("kind, spelled", [("dict", "`dict(d)`"), ("list", "`list(x)`"),
                                           ("set", "`set(s)`")])
def test_a_container_copied_through_copy_copy_gets_a_spelling_dynamo_traces(
        kind: str, spelled: str) -> None:
    """probes45a copy_loss_weights_curriculum (PR pytorch#196456): `copy.copy(weights)` in a
    compiled loss broke at dict.copy, "marked as skipped"; the fix told the user to call it
    outside or wrap it as a custom op, where `dict(weights)` compiles without a break."""
    fix = graph_break_fix("Attempted to call function marked as skipped",
                          f"Attempted to call function marked as skipped (module: <unknown "
                          f"module>, qualname: {kind}.copy)", "", "w = copy.copy(weights)", [])
    assert spelled in fix and "custom op" not in fix


def test_a_simple_namespace_gets_a_container_dynamo_traces() -> None:
    """probes45a namespace_output_heads (PR pytorch#193719): the fix repeated torch's hint,
    "Avoid calling `<class 'types.SimpleNamespace'>` in your code", naming nothing to use."""
    hint = "Avoid calling `<class 'types.SimpleNamespace'>` in your code."
    fix = graph_break_fix("Unsupported function call", "Dynamo does not know how to trace the "
                          "function `<class 'types.SimpleNamespace'>`", "",
                          "out = types.SimpleNamespace(a=x)", [hint])
    assert "NamedTuple" in fix and "dict" in fix and fix != hint


def test_a_break_at_a_submodule_call_is_not_library_code_the_line_calls() -> None:
    """probes45b bert_lora_tenant_idx_scalar_getitem: `self.A[self.idx]` with a 0-d index
    tensor inside a LoRA layer's forward; the break's frame was nn.Module's `_call_impl`, and
    the fix said "the break is inside `_call_impl` ... library code your line calls": keep
    that call out of the compiled region, which would leave every adapter uncompiled."""
    lib = {"filename": "/site/torch/nn/modules/module.py", "lineno": 1789,
           "name": "_call_impl", "line": "return forward_call(*args, **kwargs)"}
    fix = graph_break_fix("Backend compiler exception", "Backend compiler `inductor` failed "
                          "with aten._local_scalar_dense.default", "",
                          "a, b = self.A[self.idx], self.B[self.idx]", [], lib)
    assert "_call_impl" not in fix and "index_select" in fix, fix


@pytest.mark.parametrize("gb_type, line", [
    ("Failed to trace builtin operator", 'with open(os.devnull, "w") as fh:'),
    ("torch.* op returned non-Tensor", "with torch.backends.mkldnn.flags(enabled=False):")])
def test_a_break_on_the_call_a_with_line_makes_moves_the_with_block(gb_type, line) -> None:
    """corpus gb_context_manager, probes45a mkldnn_flags_conv_eval: the `with` line's call
    breaks first, and the resumed code cannot enter the object made in eager (that second
    break folds under the first, analyses/built_in_eager.py): the fix moves the block."""
    fix = graph_break_fix(gb_type, "Dynamo does not know how to trace it", "", line, [])
    assert "move the `with` block" in fix, fix


def test_a_cond_stride_check_under_dynamic_shapes_drops_dynamic() -> None:
    """probes45g cond_dynamic_int_attn_bias (pytorch#188151), blind: torch.cond under
    dynamic=True whose branches make a fresh tensor of symbolic sizes failed cond's stride
    check; the fix was the fake-kernel one ("check that the line runs in eager"), which it
    did. Without dynamic=True it compiles."""
    one = ("TorchRuntimeError: RuntimeError: It seems one of cond's output stride is not a "
           "simple accumulative multiplication of sizes. ... True branch has size "
           "torch.Size([s71, s33]), stride (Max(1, s33), 1)")
    fix = failure_fix("dynamo", "TorchRuntimeError", one, run_id=1, argv=["a.py"])
    assert fix.startswith("Compile this function without `dynamic=True`"), fix


def test_a_backward_whose_gradients_miss_traced_inputs_names_the_defaults() -> None:
    """probes45g cop_default_args_backward (pytorch#162687), blind: a custom op called with
    values equal to its schema's defaults; the traced call dropped them and the backward's
    gradients no longer matched. The fix was bisect, then minify."""
    one = ("RuntimeError: Expected the return from backward to be of the same structure as "
           "the inputs. Got: TreeSpec(tuple, None, [*,")
    fix = failure_fix("aot", "BackendCompilerFailed", one, run_id=1, argv=["a.py"])
    assert fix.startswith("Return one gradient per input") and "default" in fix, fix


def test_torchs_own_advice_is_the_fix_where_no_rule_knows_the_error():
    """probes46d mtl_gradnorm_probe_retain_graph: torch's runtime error said "Please keep
    backward(create_graph=False, retain_graph=False) ..., or set
    torch._functorch.config.donated_buffer=False", and the fix sent the user to aot_eager and
    bisect. Its standing lines about debugging are no advice."""
    from compdiag.analyses.failure_fixes import failure_fix, torch_advice

    msg = ("This backward function was compiled with non-empty donated buffers which requires "
           "create_graph=False and retain_graph=False. Please keep backward(create_graph=False, "
           "retain_graph=False) across all backward() function calls, or set "
           "torch._functorch.config.donated_buffer=False to disable donated buffer.")
    fix = failure_fix("runtime", "RuntimeError", msg[:60], run_id=1, argv=["compdiag"],
                      torch_message=msg)
    assert fix.startswith("torch's advice: Please keep backward(") and "bisect" not in fix
    assert torch_advice("Boom. Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace.") is None
    assert torch_advice("It failed. Please report an issue to PyTorch.") is None


def test_an_input_eager_rejects_leads_with_eagers_own_advice():
    """probes46d attn_pool_expand_bias_inplace: eager refused an in-place write through
    `expand()` ("Please clone() the tensor before performing the operation") that compiled
    code applied; the fix said "drop or mask such entries"."""
    from compdiag.analyses.function_verdicts import known_fix

    said = known_fix("RuntimeError: unsupported operation: more than one element of the "
                     "written-to tensor refers to a single memory location. Please clone() the "
                     "tensor before performing the operation.")
    assert said == ("Eager's error says what to do: Please clone() the tensor before "
                    "performing the operation. ")
    assert known_fix("RuntimeError: index 7 is out of bounds") == ""


def test_a_library_path_the_callers_argument_chooses_is_the_fix():
    """probes46a: a break inside torch's `_detect_is_causal_mask` (the fix: pass
    `is_causal=`) and inside BatchNorm's cumulative average (`momentum=None`); the generic
    `capture_scalar_outputs` hint moved the first break and left the second."""
    from compdiag.analyses.library_fixes import library_fix

    t = "/v/site-packages/torch/nn/modules/"
    fix = library_fix({"filename": t + "transformer.py", "lineno": 1245,
                       "name": "_detect_is_causal_mask",
                       "line": "make_causal = bool((mask == causal_comparison).all())"},
                      ["Set `torch._dynamo.config.capture_scalar_outputs = True`"],
                      "h = self.encoder(h, mask=mask)")
    assert "pass `is_causal=True`" in fix and "capture_scalar_outputs" not in fix
    bn = library_fix({"filename": t + "batchnorm.py", "lineno": 192, "name": "forward",
                      "line": "exponential_average_factor = 1.0 / "
                              "float(self.num_batches_tracked)"}, [], "x = self.layers(x)")
    assert "momentum=0.1" in bn
    other = library_fix({"filename": t + "batchnorm.py", "lineno": 170, "name": "forward",
                         "line": "self._check_input_dim(input)"}, [], "x = self.layers(x)")
    assert "momentum" not in other
