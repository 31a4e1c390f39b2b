"""The recompile fix names what the program must change (analyses/tied_sizes.py and the dtype
a graph was compiled for). The size fix names every input of the size that changed: probes36a
fail_on_recompile_last_shard, blind: the last shard's batch of 3 rows was refused under the
`fail_on_recompile` stance, and the fix said `torch._dynamo.mark_dynamic(x, 0)`; applied as
written, both ranks failed at the first step with ConstraintViolationError, since
`F.mse_loss(model(x), y)` ties x's rows to y's, still static. Marking both, or
`dynamic=True`, worked."""

from __future__ import annotations

from types import SimpleNamespace

from compdiag.analyses.recompile_rules import recompile_fix
from compdiag.analyses.tied_sizes import tied_sizes, tied_words

GUARDS = {"0/0": {"L['x'].size()[0]": "8", "L['x'].size()[1]": "6", "L['y'].size()[0]": "8",
                  "L['y'].size()[1]": "1", "L['mask'].size()[1]": "8", "L['w'].size()[0]": "1",
                  "G['model']._modules['0']._parameters['bias'].size()[0]": "8"}}


def _ctx() -> SimpleNamespace:
    r = SimpleNamespace(guard_values=lambda run_id, cid: GUARDS.get(cid, {}))
    return SimpleNamespace(run_id=1, compiles={"0/0": {}, "0/1": {}}, r=r)


def test_the_inputs_of_the_same_size_are_marked_with_the_one_that_changed() -> None:
    tied = tied_sizes(_ctx(), "0/1", "L['x'].size()[0]", "8")
    # y's and mask's dimensions of size 8, not a parameter's (G[...]) nor x's own
    assert tied == [("y", 0), ("mask", 1)]
    fix = recompile_fix("size", "L['x'].size()[0]", count=1, limit=False, fn="f",
                        tied=tied_words("x", 0, tied, "8"))
    assert "`torch._dynamo.mark_dynamic(x, 0)` and `torch._dynamo.mark_dynamic(y, 0)` and " \
           "`torch._dynamo.mark_dynamic(mask, 1)`" in fix
    assert "dynamic=True" in fix
    # the refused call has no compile id of its own: every compile is read
    assert tied_sizes(_ctx(), None, "L['x'].size()[0]", "8") == tied


def test_a_size_of_one_or_a_guard_on_no_input_ties_nothing() -> None:
    assert tied_sizes(_ctx(), "0/1", "L['w'].size()[0]", "1") == []
    assert tied_sizes(_ctx(), "0/1", "G['n']", "8") == []
    fix = recompile_fix("size", "L['x'].size()[0]", count=1, limit=False, fn="f", tied=None)
    assert fix.startswith("Mark the varying dimension dynamic before the first call, "
                          "`torch._dynamo.mark_dynamic(x, 0)`")


def test_a_dtype_fix_converts_to_the_dtype_it_was_compiled_for() -> None:
    """probes36b bert_eval_bool_mask, blind: a Long attention mask, then a Bool one
    (`ids != PAD`); the fix said `.to(torch.float32)`, which recompiled once more (torch:
    expected Long, actual Float). The dtype the graph was compiled for is the one to keep."""
    fix = recompile_fix("dtype", "L['mask']", count=1, limit=False, fn="f", before="Long")
    assert "`mask.to(torch.int64)`, the dtype it was compiled for" in fix
    # the dtype it was compiled for unknown: no dtype is named as if it were
    unknown = recompile_fix("dtype", "L['mask']", count=1, limit=False, fn="f", before=None)
    assert "`mask.to(...)` with the dtype of its first call" in unknown
    assert "compiled for" not in unknown


def test_an_input_of_the_same_size_by_chance_is_not_tied() -> None:
    """Review of session 36: batch 8 and a hidden size of 8 are not the same dimension. In the
    compile that changed x's rows to 3, an input still of size 8 was not tied to them."""
    guards = {**GUARDS, "0/1": {"L['x'].size()[0]": "3", "L['y'].size()[0]": "3",
                                "L['mask'].size()[1]": "8"}}
    r = SimpleNamespace(guard_values=lambda run_id, cid: guards.get(cid, {}))
    ctx = SimpleNamespace(run_id=1, compiles={"0/0": {}, "0/1": {}}, r=r)
    assert tied_sizes(ctx, "0/1", "L['x'].size()[0]", "8", "3") == [("y", 0)]


def test_an_iterator_the_compiled_code_advances_is_advanced_outside() -> None:
    """probes36e count_noise_level and schedule_generator_fullgraph, blind: `next(counter)` of
    an itertools.count and a schedule's iterator inside the compiled function recompiled every
    call; "wrap it in a tensor" and "pass a list" kept recompiling (Dynamo guards on the
    iterator's position). Advancing it outside and passing the value as a tensor worked."""
    for source in ("___normalize_count_iter(G['_calls'])", "___tuple_iterator_len(L['sched'])"):
        fix = recompile_fix("value", source, count=3, limit=False, fn="f")
        assert fix.startswith("Advance the iterator outside the compiled function"), fix


def test_a_cached_property_read_in_compiled_code_gets_its_own_fix() -> None:
    """probes36e cached_property_attn_cfg, blind: the break was at functools' `with
    self.lock:` in `__get__`, and the fix said to move that `with` block."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix("Unsupported context manager", "", "", "w = k * self.cfg.scale", [],
                          {"filename": "/usr/lib/python3.11/functools.py", "lineno": 997,
                           "name": "__get__", "line": "with self.lock:"})
    assert fix.startswith("The attribute read here is a `functools.cached_property`")


def test_an_inputs_field_none_then_a_tensor_is_passed_in_one_form():
    """probes38d collate_optional_mask_recompile: a collate sets `batch.mask` to None when
    nothing is padded; the fix said to give it "its final value before the first call",
    words for a module attribute set on first use. A module attribute keeps them."""
    for src in ("batch.mask", "L['batch'].mask", "inputs['mask']"):
        fix = recompile_fix("none", src, count=1, limit=False, fn="forward")
        assert fix.startswith(f"Pass {src} in one form at every call"), fix
    for src in ("self.cache", "L['self'].cache", "G['state'].x"):
        fix = recompile_fix("none", src, count=1, limit=False, fn="forward")
        assert fix.startswith(f"Give {src} its final value"), fix


def test_a_scale_factor_beside_a_slice_is_the_ops_argument():
    """probes38f resample_sr_scale_recompile: `F.interpolate(wave[:, None],
    scale_factor=TARGET_SR / sr)`; the fix said the value "slices a Python container", from
    the `[:` of `wave[:, None]` on the same line."""
    from compdiag.analyses.recompile_rules import recurring_fix

    fix = recurring_fix("(16000 / sr)", "(16000 / sr) == 0.7256  # res = F.interpolate("
                                        "wave[:, None], scale_factor=TARGET_SR / sr, mode=")
    assert "size=(h, w)" in fix and "slices" not in fix, fix
    sliced = recurring_fix("n_blocks", "n_blocks == 3  # for blk in self.blocks[:n_blocks]:")
    assert "slices a Python container" in sliced, sliced


def test_a_global_modules_int_attribute_is_passed_in_not_flagged():
    """probes38j triplet_num_hard_curriculum: a compiled lambda reads `crit.num_hard` of a
    global module; torch's hint `allow_unspec_int_on_nn_module = True`, applied, left every
    recompile (it covers a compiled module). Passing the value in worked."""
    from compdiag.analyses.recompile_rules import recurring_fix

    hint = ("HINT: torch.compile considers integer attributes of the nn.Module to be static. "
            "If you are observing recompilation, you might want to make this integer dynamic "
            "using torch._dynamo.config.allow_unspec_int_on_nn_module = True")
    fix = recurring_fix("crit.num_hard", f"G['crit'].num_hard == 1  # {hint}")
    assert "as an argument" in fix and "reads as a global" in fix, fix
    own = recurring_fix("self.step", f"L['self'].step == 1  # {hint}")
    assert own.startswith("torch.compile treats int attributes"), own


def test_a_type_deep_in_a_nested_argument_keeps_the_structure_out():
    """probes38i rvnn_tree_leaf_ids: a parse tree of ints and tuples passed in; the fix said
    "call the function with the same argument types", which a tree cannot do."""
    fix = recompile_fix("type", "tree[0][0]", count=2, limit=False, fn="forward")
    assert "nested Python structure" in fix and "per-node" in fix, fix
    assert recompile_fix("type", "x", count=1, limit=False, fn="f").startswith("Call the")


def test_a_parameters_grad_none_then_a_tensor_keeps_every_grad_a_tensor():
    """probes42d multitask_heads_compiled_adamw, blind: a compiled AdamW step over task heads
    a step did not use, whose .grad stays None after zero_grad(); the fix said to set the
    value "up front", which zero_grad() undid at every step (8 recompiles, the limit)."""
    src = "self.param_groups[0]['params'][18].grad"
    fix = recompile_fix("none", src, count=1, limit=True, fn="step")
    assert "set_to_none=False" in fix and "torch.zeros_like(p)" in fix, fix
    other = recompile_fix("none", "self.cache", count=1, limit=False, fn="f")
    assert "set_to_none" not in other


def test_a_torch_layers_number_the_program_changes_is_kept_few_not_a_tensor():
    """probes42b bn_momentum_schedule_recompile, blind: a BatchNorm momentum schedule wrote a
    new float into `.momentum` every epoch; the recompile was at forward's first line with
    "wrap it in a tensor", which broke the graph at every BatchNorm (F.batch_norm takes a
    number). The fix keeps the number constant or few; the line is the program's write."""
    from compdiag.analyses.layer_numbers import layer_number

    source = ["def set_momentum(value):", "    def fn(m):", "        m.momentum = value",
              "    return fn"]
    files = {"/work/x/model.py": ["y = 1"], "/work/x/train.py": source}
    ctx = SimpleNamespace(
        resolve=lambda f: f, code_lines=files.get, source_lines=files.get,
        code_row=lambda cid: {"filename": "/work/x/model.py"},
        start_stack=lambda cid: [{"filename": "/work/x/train.py"}],
        frame=lambda f, n, line, evidence: SimpleNamespace(filename=f, lineno=n,
                                                           evidence=evidence))
    read = {"loc_filename": "nn/modules/batchnorm.py", "loc_lineno": 182}
    found = layer_number(ctx, read, "self.bn1.momentum", "0/1")
    assert found is not None and found["frame"].lineno == 3, found
    assert "cannot become a tensor" in found["fix"] and "torch.tensor" not in found["fix"]
    # read in the program's own code: the usual fix stands
    assert layer_number(ctx, {"loc_filename": "/work/x/train.py"}, "self.scale",
                        "0/1") is None


def test_a_parameters_stride_recompile_is_its_layout_not_torchs_size_hint():
    """probes42f assign_transposed_ckpt_recompile, blind: `load_state_dict(sd, assign=True)`
    with transposed weights recompiled on a parameter's stride, and the fix was torch's own
    hint `force_parameter_static_shapes = False`, which is about sizes: applied, the same
    stride guard failed again. Loading without assign=True held."""
    src = "self._modules['fc']._parameters['weight'].stride()[0]"
    guard = ("___check_metadata ... consider using "
             "torch._dynamo.config.force_parameter_static_shapes = False")
    fix = recompile_fix("stride", src, count=1, limit=False, fn="forward", guard_text=guard)
    assert "force_parameter_static_shapes" not in fix and "assign=True" in fix, fix


EMA_SRC = """import torch


@torch.compile
def ema_update(ema, params, decay):
    torch._foreach_lerp_(ema, params, weight=1.0 - decay)
"""


def test_a_number_an_op_takes_only_as_a_number_is_not_told_to_become_a_tensor(tmp_path):
    """probes43g ema_foreach_lerp_warmup_recompile and gradual_prune_kthvalue_sparsity_
    recompile, blind: a float recompiling at each value, read by `_foreach_lerp_(...,
    weight=1.0 - decay)` and `int(sparsity * n)`; the fix "wrap it in a tensor", applied, broke
    the graph on `_local_scalar_dense`. Where a call takes the number only as a number, the fix
    keeps that use out of the compiled code, with a tensor alternative where one is known."""
    from compdiag.analyses.number_uses import _number_only_call
    from test_explain import Store

    assert _number_only_call("torch._foreach_lerp_(ema, p, weight=1.0 - decay)",
                             "decay") == "_foreach_lerp_"
    assert _number_only_call("k = max(1, int(sparsity * w.numel()))", "sparsity") == "max"
    assert _number_only_call("y = torch.zeros(3) * decay", "decay") is None
    assert _number_only_call("y = x * decay", "decay") is None
    s = Store(tmp_path)
    s.user.write_text(EMA_SRC)
    s.compile("0/0", co_name="ema_update", lineno=5)
    s.compile("0/1", co_name="ema_update", lineno=5,
              recompile_reason="0/0: L['decay'] == 0.99")
    top = s.explain()[0]
    assert top["kind"] == "recompile" and top["user_frame"]["lineno"] == 6, top
    assert "takes it only as a Python number" in top["reason"], top["reason"]
    assert "torch.tensor(value)" not in top["fix"] and "_foreach_mul_" in top["fix"], top["fix"]
