"""Recompile reasons in the user's terms, one test per guard category whose torch text misled
(issue 29, holdout set3's misses): each feeds trace-shaped records (torch 2.13's recompile
reason and guard trees) through the Ingestor and fails on main before this branch."""

from __future__ import annotations

from test_explain import Store, _ids

from compdiag.analyses.fixes import graph_break_fix
from compdiag.analyses.diagnoses.graph_breaks import short_context

SHAPE_FIX = ("mark_dynamic", "dynamic=True", "torch.stack")


def _tree(source: str, typ: str, leaf: str) -> str:
    """A dynamo_cpp_guards_str tree guarding one argument or global of type `typ`."""
    return ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
            f"| +- GuardManager: source={source}, accessed_by=FrameLocalsGuardAccessor(key="
            f"'x', framelocals_idx=0), type=<class '{typ}'>, tag_safe=(False, False)\n"
            f"| | +- {leaf}\n")


def _recompile(s: Store, reason: str, trees: tuple[str, str]) -> dict:
    s.compile("0/0")
    s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}}, trees[0])
    s.compile("0/1", recompile_reason=reason)
    s.ing.record({**_ids("0/1"), "dynamo_cpp_guards_str": {}}, trees[1])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    return d


def _no_shape_fix(d: dict) -> None:
    assert not any(w in d["fix"] for w in SHAPE_FIX), d["fix"]


def test_a_parameter_then_a_tensor_says_the_type_changed(tmp_path):
    """set3 param_then_tensor: on main the reason was torch's mangled "expected type of 'x' to
    be a tensor type, ' but found ..." and the fix mark_dynamic."""
    leaf = "TENSOR_MATCH: check_tensor(L['x'], Parameter, ...)  # return x * 2  # a.py:4 in f"
    d = _recompile(Store(tmp_path), "0/0: expected type of 'x' to be a tensor type, ' but "
                   "found <class 'torch.Tensor'>",
                   (_tree("L['x']", "torch.nn.parameter.Parameter", leaf),
                    _tree("L['x']", "torch.Tensor", leaf)))
    assert d["reason"].startswith("type of x changed (nn.Parameter -> torch.Tensor)")
    assert "' but found" not in d["reason"]
    assert ".detach()" in d["fix"]
    _no_shape_fix(d)


def test_an_inference_tensor_then_a_normal_one_names_the_dispatch_keys(tmp_path):
    """set3 inference_tensor_recompile: on main "guard L['x'] failed", fix mark_dynamic."""
    d = _recompile(Store(tmp_path), "0/0: tensor 'x' dispatch key set mismatch. expected "
                   "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView), actual "
                   "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)",
                   ("", ""))
    assert "an inference tensor -> a normal tensor" in d["reason"]
    assert "AutogradCPU added" in d["explanation"] and "dispatch key set" in d["explanation"]
    assert "inference_mode" in d["fix"]
    _no_shape_fix(d)


def test_a_freed_object_guarded_by_identity_was_replaced(tmp_path):
    """set3 autocast_object_recompile: on main "guard Cache line invalidated because G['ctx']
    got deallocated failed" and a fix that offered dynamic shapes."""
    leaf = "ID_MATCH: ___check_obj_id(G['ctx'], 1)  # with ctx:  # a.py:5 in f"
    typ = "torch.amp.autocast_mode.autocast"
    d = _recompile(Store(tmp_path), "0/0: Cache line invalidated because G['ctx'] got "
                   "deallocated", (_tree("G['ctx']", typ, leaf), _tree("G['ctx']", typ, leaf)))
    assert d["reason"] == f"ctx was replaced by a new {typ}"
    assert "identity" in d["explanation"] and "freed" in d["explanation"]
    assert "reuse the same object" in d["fix"] and "autocast" in d["fix"]
    _no_shape_fix(d)


def test_a_function_that_adds_a_key_to_its_input_dict_is_named_with_its_line(tmp_path):
    """set3 dict_setitem_recompile: on main "len(state) changed", fix: stack tensors."""
    line = 'state["loss"] = (state["obs"] ** 2).mean()'
    leaf = "DICT_LENGTH: len(L['state']) == {n}  # " + line + "  # a.py:10 in step"
    d = _recompile(Store(tmp_path), f"0/0: len(state) == 1  # {line}  # a.py:10 in step",
                   (_tree("L['state']", "dict", leaf.format(n=1)),
                    _tree("L['state']", "dict", leaf.format(n=2))))
    assert d["reason"].startswith("f() adds to its input dict state (line 10) (len(state): 1 -> 2 "
                                  "keys)")
    assert line in d["explanation"]
    assert "Don't mutate the input container" in d["fix"]
    _no_shape_fix(d)


def test_a_dict_whose_length_the_caller_changed_is_not_blamed_on_the_function(tmp_path):
    """The same guard, tied to a line that only reads the dict."""
    leaf = "DICT_LENGTH: len(L['state']) == {n}  # y = state['a']  # a.py:4 in f"
    d = _recompile(Store(tmp_path), "0/0: len(state) == 1  # y = state['a']  # a.py:4 in f",
                   (_tree("L['state']", "dict", leaf.format(n=1)),
                    _tree("L['state']", "dict", leaf.format(n=2))))
    assert d["reason"].startswith("the dict state changed length (len(state): 1 -> 2 keys)")
    _no_shape_fix(d)


def test_an_unknown_guard_gets_torch_s_words_and_no_dynamic_shape_fix(tmp_path):
    """FIX_OTHER offered mark_dynamic / dynamic=True for any guard it could not name."""
    d = _recompile(Store(tmp_path), "0/0: ___some_new_guard(L['x'])", ("", ""))
    assert "___some_new_guard(x)" in d["reason"]
    _no_shape_fix(d)


def test_a_torch_generator_graph_break_keeps_its_type_and_its_own_fix():
    """set3 generator_manual_seed: the debug context's `<class 'torch._C.Generator'>` was cut
    away ("(Opaque object type:)") and the fix was the Python-generator one."""
    debug = "Opaque object type: <class 'torch._C.Generator'>."
    assert short_context(debug) == "Opaque object type: torch._C.Generator."
    fix = graph_break_fix("An opaque object was created in the middle of the program.",
                          "Opaque objects cannot be created inside the torch.compile region.",
                          debug, "g = torch.Generator()", [])
    assert "torch.Generator" in fix and "Materialise the generator" not in fix


def test_aliased_inputs_name_the_aliasing_not_a_shape(tmp_path):
    """NO_TENSOR_ALIASING: on main an 'other' guard whose fix offered mark_dynamic."""
    d = _recompile(Store(tmp_path), "0/0: Duplicate tensor found where not expected! "
                   "L['b']should not alias to anything, but is aliased", ("", ""))
    assert d["reason"].startswith("input aliasing changed (b) (distinct tensors -> the "
                                  "same tensor)")
    assert "clone()" in d["fix"]
    _no_shape_fix(d)
    # torch 2.13's words for the same guard (probes45f sampler_step_out_alias_recompile,
    # blind: `f(x, x)` after `f(x, buf)` was "guard Duplicate tensors found: [...] failed",
    # fix "keep what this guard checks the same")
    (tmp_path / "new").mkdir()
    d = _recompile(Store(tmp_path / "new"), '0/0: Duplicate tensors found: ["x", "out"]',
                   ("", ""))
    assert d["reason"].startswith("input aliasing changed (x and out) (distinct tensors -> "
                                  "the same tensor)"), d["reason"]
    assert "Pass distinct tensors" in d["fix"]


def test_mark_dynamic_between_calls_is_named(tmp_path):
    """A DIMENSION_DYNAMIC_MARKING_GUARD: on main 'Python value hasattr(...) changed' with the
    fix 'pass it as a tensor'."""
    d = _recompile(Store(tmp_path), "0/0: hasattr(L['x'], '_dynamo_dynamic_indices') == False"
                   "  # return x.sin()  # a.py:3 in f", ("", ""))
    assert d["reason"].startswith("x was marked dynamic after the compile")
    assert "before the first call" in d["fix"] and "torch.tensor" not in d["fix"]


HOOKS_WARNING = ("Using `torch.compile(module)` when there are global hooks on modules (e.g., "
                 "from `register_module_forward_hook`); this will cause the hooks to fire an "
                 "extra time for the `OptimizedModule` created by `torch.compile(module)`.")


def test_torch_s_warning_at_a_user_line_is_shown_with_the_failed_check(tmp_path):
    """set3 global_pre_hook: torch warned (at the torch.compile(m) line) that global module
    hooks fire twice; on main the capture dropped a warning attributed to the user's file,
    ingest kept no line for it, and the failed check never said it."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 18 + "torch.testing.assert_close(compiled, eager)\n")
    s.compile("0/0")
    s.ing.event("warning", None, {"category": "UserWarning", "filename": str(s.user),
                                  "lineno": 17}, HOOKS_WARNING)
    s.ing.program_exception(None, exc_type="AssertionError", message="Tensor-likes are not "
                            "close!", frames=[{"filename": str(s.user), "lineno": 19,
                                               "name": "<module>", "line": None}],
                            compiled=None, stage=None)
    (d,) = [d for d in s.explain() if d["kind"] == "program"]
    assert d["user_frame"]["lineno"] == 19
    assert "torch warned at line 17" in d["explanation"] and "global hooks" in d["explanation"]


def test_capture_keeps_a_warning_torch_attributes_to_the_user_s_line():
    """warnings.warn(..., stacklevel=2) from torch names the user's file: still torch's."""
    import warnings

    from compdiag.capture import hooks

    seen = []
    original = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        seen.append(hooks._warned_by_torch())

    warnings.showwarning = show
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = show
            warnings.warn("mine", UserWarning, stacklevel=1)
            import torch.nn.modules.module as mod  # torch's own warn site, called from torch
            code = compile("import warnings\ndef w():\n    warnings.warn('t', UserWarning, "
                           "stacklevel=2)\n", mod.__file__, "exec")
            ns: dict = {}
            exec(code, ns)
            ns["w"]()
    finally:
        warnings.showwarning = original
    assert seen == [False, True]


def test_a_limit_on_a_type_guard_says_the_type_changed_and_no_shape_fix(tmp_path):
    """The recompile limit names its guard in plain words too (on main: torch's
    `___check_type_id(...)` alone, and FIX_OTHER's mark_dynamic)."""
    s = Store(tmp_path)
    s.compile("0/0")
    for i in range(1, 9):
        s.compile(f"0/{i}", recompile_reason=f"0/{i - 1}: ___check_type_id(L['x'], {i})  "
                                             "# return x  # a.py:3 in f")
    s.failure("0/8", stage="dynamo", exc_type="Unsupported",
              message="Dynamo recompile limit exceeded", traceback="recompile_limit")
    top = s.explain()[0]
    assert top["details"]["limit_hit"]
    assert "recompiled 8 times on x (type of x changed) and now" in top["reason"]
    _no_shape_fix(top)


def test_a_rank_change_is_named_with_old_and_new(tmp_path):
    """TENSOR_MATCH's rank check: on main 'guard L['x'] failed' with a mark_dynamic fix."""
    d = _recompile(Store(tmp_path), "0/0: tensor 'x' rank mismatch. expected 2, actual 3",
                   ("", ""))
    assert d["reason"].startswith("number of dimensions of x changed (2 -> 3)")
    _no_shape_fix(d)


def test_a_guard_whose_lookup_failed_is_a_replaced_attribute(tmp_path):
    """corpus/rc_replaced_adapter (after pytorch/pytorch#120958): a module assigned where None
    was moves the attribute from __dict__ to _modules, and torch reports the guard's failed
    lookup as the failed guard, `KeyError on self.lora_layer`. On main that was category
    `other`: "guard KeyError on self.lora_layer failed", fix "keep what this guard checks
    the same"."""
    from compdiag.ingest.parse_dynamo import classify_guard
    from test_explain import Store

    assert classify_guard("KeyError on self.lora_layer")["category"] == "replaced"
    assert classify_guard("KeyError on self.lora_layer")["source"] == "self.lora_layer"
    assert classify_guard("x == KeyError on y")["category"] != "replaced"
    s = Store(tmp_path)
    s.compile("0/0", co_name="forward", lineno=3)
    s.compile("0/1", co_name="forward", lineno=3,
              recompile_reason="0/0: KeyError on self.lora_layer")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["reason"].startswith("self.lora_layer was replaced or removed"), d["reason"]
    assert "Set self.lora_layer before the first compiled call" in d["fix"]


def test_a_compiled_modules_wrapper_is_named_by_the_module_called(tmp_path) -> None:
    """torch 2.13 compiles `torch.compile(module)` as torch's own wrapper
    (`torch/_dynamo/external_utils.py` `inner`); a diagnosis that names the function says
    the class of the module the user called, as capture recorded it at the call (seen:
    "Global torch state (grad_mode) differs from when inner() was compiled")."""
    import json as _json
    from test_explain import Store, _ids
    from compdiag.analyses.context import RunContext
    from compdiag.store.reader import Reader
    s = Store(tmp_path)
    wrapper = "/usr/lib/python3/site-packages/torch/_dynamo/external_utils.py"
    s.ing.record({**_ids("0/0"), "compilation_metrics": {
        "co_name": "inner", "co_filename": wrapper, "co_firstlineno": 67}}, None)
    s.ing.event("call_stack", "0/0", {}, _json.dumps({
        "frames": [{"filename": str(s.user), "lineno": 8, "line": None, "name": "<module>"}],
        "objects": {"fn": ["torch.nn.modules.container.Sequential", 1]}}))
    s.done()
    with Reader(s.path) as r:
        assert RunContext(r, s.run_id).fn_name("0/0") == "Sequential.forward"
        # and every view that lists compiles names it so, at the user's call (probes24: show
        # listed `inner` at torch/_dynamo/external_utils.py:67)
        from compdiag.views.show import show_document
        (c,) = show_document(r, s.run_id)["compiles"]
        assert (c["co_name"], c["function"]) == ("inner", "Sequential.forward")
        assert c["called_at"] == {"filename": str(s.user), "lineno": 8}
    from tui.model import StoreModel
    (info,) = StoreModel(s.path).compile_index(s.run_id)
    assert (info.co_name, info.filename, info.lineno) == ("Sequential.forward", str(s.user), 8)


def test_a_scalar_read_is_fixed_as_the_call_the_line_makes() -> None:
    """A data-dependent break on aten._local_scalar_dense is the user's `.item()` or
    `.tolist()`: the fix names the one their line calls (seen: `.tolist()` fixed with
    "`.item()` turns a tensor into a Python number")."""
    from compdiag.analyses.fixes import graph_break_fix
    expl = ("Operator `aten._local_scalar_dense.default` has a non-Tensor output whose value "
            "is dependent on the data of Tensor inputs.")
    gb = "Data-dependent operator"
    assert graph_break_fix(gb, expl, "", "idx = logits.argmax(-1).tolist()", []).startswith(
        "`.tolist()`")
    assert graph_break_fix(gb, expl, "", "k = n.item()", []).startswith("`.item()`")


def test_an_optional_argument_passed_none_then_a_value_once_is_information(tmp_path):
    """A function called once with mask=None and once with a mask: one graph per call
    pattern, both cached (as train()/eval() is): information, not a problem to fix by
    "giving mask its final value before the first call" (what main said, as for a module
    attribute set lazily). An attribute that changes stays a problem (below)."""
    leaf = "___check_obj_id(L['mask'], 1)  # if mask is not None:  # a.py:7 in attend"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    d = _recompile(Store(tmp_path / "a"), "0/0: mask is not None",
                   (_tree("L['mask']", "NoneType", leaf), _tree("L['mask']", "torch.Tensor",
                                                                 leaf)))
    assert d["severity"] == "info" and d["fix"].startswith("Nothing to do"), d
    d = _recompile(Store(tmp_path / "b"), "0/0: self.cache is not None",
                   (_tree("L['self'].cache", "NoneType", leaf),
                    _tree("L['self'].cache", "torch.Tensor", leaf)))
    assert d["severity"] == "problem", d


def test_a_function_torch_skips_by_design_is_named_in_the_headline_and_the_fix():
    """set11's gradscaler_step_breaks (pytorch#138412, #120814): "Attempted to inline function
    marked as skipped" with a debug context that names `GradScaler.scale` and its file in full
    (over 160 characters). Before: no name in the headline, and the fix called `this
    function` a builtin or C extension."""
    from compdiag.analyses.fixes import graph_break_fix

    debug = ("qualname: GradScaler.scale, name: scale, filename: `/venv/lib/python3.11/"
             "site-packages/torch/amp/grad_scaler.py`, skip reason: file matches MOD_SKIPLIST "
             "(/venv/lib/python3.11/site-packages/torch/amp)")
    assert short_context(debug) == "qualname: GradScaler.scale"
    fix = graph_break_fix("Attempted to inline function marked as skipped",
                          "Dynamo developers have intentionally marked that the function "
                          "`GradScaler.scale` should not be traced.", debug,
                          "scaler.scale(loss).backward()", [])
    assert "`GradScaler.scale` is torch code Dynamo skips on purpose" in fix
    assert "C-extension" not in fix and "wrapper" not in fix


def test_a_skipped_torch_function_with_a_module_named_is_not_called_a_builtin():
    """The lead's probe (a training step compiled whole, AdamW with a CosineAnnealingLR):
    "Attempted to call function marked as skipped (module: torch.optim.adam, qualname:
    Adam.step)", torch saying "intentionally marked ... in file .../torch/optim/
    lr_scheduler.py". With a module named, the fix called it "a builtin or C-extension
    function" and offered a custom op; it is torch code skipped on purpose, and the file
    torch names is the scheduler's wrapper of the optimizer's step."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix("Attempted to call function marked as skipped",
                          "Dynamo developers have intentionally marked that the function "
                          "`Adam.step` in file `/venv/lib/python3.11/site-packages/torch/optim/"
                          "lr_scheduler.py` should not be traced.",
                          "module: torch.optim.adam, qualname: Adam.step, skip reason: <missing "
                          "reason>", "opt.step()", [])
    assert "`Adam.step` is torch code Dynamo skips on purpose" in fix
    assert "a wrapper torch's `lr_scheduler.py` put around it" in fix
    assert "C-extension" not in fix and "custom op" not in fix


def test_a_range_guard_on_a_dynamic_size_is_said_as_a_range_at_the_line_that_bounded_it(
        tmp_path) -> None:
    """A dynamic size torch bounded (`2 <= L['x'].size()[2] <= 320`: a Python `if` on the
    size) fails its range, not a value: the reason says the range, the diagnosis points at
    the line torch's guard names, and the fix is about the bound, not "keep what this guard
    checks the same" (benchmarks/probes24 diff_automatic_dynamic_off, run A: "guard 2 <=
    args[0].size()[2] <= 320 failed", the generic words)."""
    from compdiag.ingest.parse_dynamo import classify_guard
    from test_explain import Store

    assert classify_guard("2 <= L['x'].size()[2] <= 320")["before"] == "2..320"
    assert classify_guard("L['x'].size()[0] < 64")["before"] == "<= 63"
    assert classify_guard("L['x'].size()[0] == 3")["category"] == "value"
    assert classify_guard("(L['x'].size()[0] % 2) == 0")["category"] == "size_branch"
    s = Store(tmp_path)
    s.user.write_text("import torch\n" * 5 + "    if x.shape[2] > 320:\n" + "y = 1\n" * 5)
    s.compile("0/0", co_name="f", lineno=3)
    s.compile("0/1", co_name="f", lineno=3,
              recompile_reason=f"0/0: 2 <= L['x'].size()[2] <= 320  # if x.shape[2] > 320:  "
                               f"# {s.user}:6 in f")
    (d,) = s.explain()
    assert d["reason"].startswith("size x.shape[2] left the range its dynamic graph holds for "
                                  "(2..320 -> "), d["reason"]
    assert d["user_frame"]["lineno"] == 6 and d["details"]["category"] == "size_range"
    assert "mark_dynamic(x, 2, min=..., max=...)" in d["fix"] and "Keep what" not in d["fix"]


def test_a_range_guard_failed_by_a_size_of_one_is_said_as_0_1_specialisation(tmp_path) -> None:
    """set20's uneven_last_batch_size_one (first run): a marked-dynamic batch dimension's range
    guard `2 <= L['x'].size()[0] <= 4096` failed on the last, uneven batch of one, and explain
    said the size "left the range (2..4096 -> another value)" with the fix about a Python bound.
    The recompiled entry's guard tree holds the static size (TENSOR_MATCH size=[1, 16]): the
    size became 1, which torch specialises even for a dynamic dimension; the fix keeps it at 2
    or makes the dimension unbacked."""
    from compdiag.ingest.parse_guard_tree import guard_values
    from test_explain import Store

    match = ("| +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), "
             "torch.float32, device=None, requires_grad=False, size=[1, 16], stride=[16, 1])")
    assert ("L['x'].size()[0]", "1") in guard_values(match)
    assert ("L['x'].size()[1]", "16") in guard_values(match)
    assert not [g for g in guard_values(match.replace("size=[1, 16]", "size=[None, 16]"))
                if g[0].endswith("[0]")]
    s = Store(tmp_path)
    s.user.write_text("import torch\n" * 5 + "    loss = model(x)\n" + "y = 1\n" * 5)
    s.compile("0/0", co_name="f", lineno=3)
    s.compile("0/1", co_name="f", lineno=3,
              recompile_reason="0/0: 2 <= L['x'].size()[0] <= 4096")
    s.ing.record({**_ids("0/1"), "dynamo_cpp_guards_str": {}}, "TREE_GUARD_MANAGER:\n" + match)
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["reason"].startswith("size x.shape[0] became 1, below its dynamic graph's range "
                                  "2..4096"), d["reason"]
    assert "mark_unbacked(x, 0)" in d["fix"] and "drop_last=True" in d["fix"], d["fix"]


def test_a_tensor_subclass_metadata_guard_is_said_as_the_subclass_argument(tmp_path) -> None:
    """Issue 29 §1/§2 (set19 subclass_scale_recompile, test_subclasses.py's ctx guards): a
    traceable subclass whose flatten context holds a new Python float each step fails
    `___check_metadata_<id>_c0/k`, a name new at every compile that says nothing of the input.
    The guard tree hangs it under the input's GuardManager (L['wq']): one recompile diagnosis
    for the input, in the subclass's words, at the call. On main: eight diagnoses, one per
    guard name, the limit's "1 of them on ___check_metadata_...", at the guard's line."""
    from test_explain import Store, _ids

    s = Store(tmp_path)
    s.user.write_text("x = 1\n" * 60)

    def tree(k: int) -> str:
        return ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                "| +- GuardManager: source=L['wq'], accessed_by=FrameLocalsGuardAccessor("
                "key='wq', framelocals_idx=1), type=<class '__main__.Int8Weight'>, "
                "tag_safe=(False, False)\n"
                f"| | +- LAMBDA_GUARD: ___check_metadata_1400{k}_c0/{k}        # x = 1  "
                f"# {s.user}:42 in layer\n"
                "| | +- GuardManager: source=L['wq'].qdata, accessed_by=GetAttrGuardAccessor("
                "qdata), type=<class 'torch.Tensor'>, tag_safe=(False, False)\n")

    for k in range(4):
        s.compile(f"0/{k}", co_name="layer", lineno=40, **({} if k == 0 else {
            "recompile_reason": f"0/{k - 1}: ___check_metadata_1400{k - 1}_c0/{k - 1}        "
                                f"# x = 1  # {s.user}:42 in layer"}))
        s.ing.record({**_ids(f"0/{k}"), "dynamo_cpp_guards_str": {}}, tree(k))
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["details"]["category"] == "subclass_metadata" and d["count"] == 3, d
    assert "the flatten context (metadata) of tensor subclass wq changed" in d["reason"]
    assert "__tensor_flatten__" in d["fix"] and "inner tensors" in d["fix"]


def test_a_long_guard_is_cut_at_a_word_in_the_explanation() -> None:
    """benchmarks/probes25 hf_vit_progressive_resize: the explanation quoted torch's guard
    line cut mid-word ("(_prims_common/__init__.py:511 i"); it is cut at a word, marked."""
    from compdiag.analyses.recompile_rules import recompile_explanation

    guard = "16 <= x.size()[2] <= 40  # y = f(x)  # " + "modeling_vit.py:118 in interp " * 8
    said = recompile_explanation("other", "x", "f", 1, guard)
    assert said.endswith(" …") and len(said) < len("A guard failed: ") + 205
    assert said.rsplit(" ", 2)[-2] in guard.split()


_LIBRARY_DECORATOR = '''
import functools

def deprecate_kwarg(old):
    def deco(func):
        @functools.wraps(func)
        def wrapped_func(*args, **kwargs):
            kwargs.pop(old, None)
            return func(*args, **kwargs)
        return wrapped_func
    return deco
'''


def test_a_library_decorators_wrapper_is_named_by_the_function_it_wraps(tmp_path) -> None:
    """`torch.compile(model.forward)` where the library decorates `forward`
    (transformers' `deprecate_kwarg`) compiles the decorator's `wrapped_func`: capture records
    the one function the wrapper closes over, and every diagnosis and listing names that one
    (probes25: "recompile limit hit: wrapped_func() recompiled 8 times"). Capture's half runs
    in a real Dynamo compile (the record taken inside the backend, as at dynamo_start)."""
    import json as _json
    import torch
    from compdiag.capture.call_sites import call_record
    from test_explain import Store, _ids
    from compdiag.analyses.context import RunContext
    from compdiag.store.reader import Reader

    lib = "/usr/lib/python3/site-packages/somelib/deprecation.py"
    space: dict = {}
    exec(compile(_LIBRARY_DECORATOR, lib, "exec"), space)

    class Block(torch.nn.Module):
        @space["deprecate_kwarg"]("old")
        def forward(self, x):
            return x + 1

    seen: list = []

    def backend(gm, example_inputs):
        seen.append(call_record())
        return gm.forward

    torch._dynamo.reset()
    block = Block()
    torch.compile(block.forward, backend=backend)(torch.ones(2), old=1)
    assert seen and seen[0]["wraps"].endswith("Block.forward"), seen
    # a user's own decorator is the user's code, which the user knows by its name: none
    user_space: dict = {}
    exec(compile(_LIBRARY_DECORATOR, __file__, "exec"), user_space)
    torch._dynamo.reset()
    torch.compile(user_space["deprecate_kwarg"]("old")(lambda x: x * 2),
                  backend=backend)(torch.ones(2))
    torch._dynamo.reset()
    assert len(seen) == 2 and "wraps" not in seen[1], seen

    s = Store(tmp_path)
    s.ing.record({**_ids("0/0"), "compilation_metrics": {
        "co_name": "wrapped_func", "co_filename": lib, "co_firstlineno": 6}}, None)
    s.ing.event("call_stack", "0/0", {}, _json.dumps({
        "frames": [{"filename": str(s.user), "lineno": 9, "line": None, "name": "<module>"}],
        "objects": {}, "wraps": "LlamaForCausalLM.forward"}))
    s.done()
    with Reader(s.path) as r:
        assert RunContext(r, s.run_id).fn_name("0/0") == "LlamaForCausalLM.forward"
        from compdiag.views.show import show_document
        (c,) = show_document(r, s.run_id)["compiles"]
        assert (c["co_name"], c["function"]) == ("wrapped_func", "LlamaForCausalLM.forward")
        assert c["called_at"] == {"filename": str(s.user), "lineno": 9}


def test_a_bool_flag_that_picks_a_branch_is_information_not_pass_it_as_a_tensor(tmp_path):
    """probes26's acc_nested_kwargs_returns: a keyword-only `residual` flag, True at one call
    and False at another. Its recompile was a problem whose fix said "Pass residual as a
    tensor", which turns the `if` into a data-dependent break. One graph per value of a bool
    is what Dynamo does by design: information, both graphs cached."""
    leaf = ("EQUALS_MATCH: L['residual'] == True  # return x + y if residual else y  "
            "# a.py:18 in block")
    d = _recompile(Store(tmp_path), "0/0: residual == True",
                   (_tree("L['residual']", "bool", leaf),
                    _tree("L['residual']", "bool", leaf.replace("True", "False"))))
    assert d["severity"] == "info", d
    assert d["fix"].startswith("Nothing to do") and "as a tensor" not in d["fix"].split(
        "Passing it")[0], d["fix"]


def test_one_recompile_for_an_evaluation_pass_is_information(tmp_path):
    """probes27's train_amp_bf16_ok: a correct training loop with one evaluation pass (under
    no_grad, after eval()) got a recompile *problem*, whose fix the program already follows.
    One graph per grad mode and train/eval, once, is what Dynamo does by design."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="forward")
    s.compile("0/1", co_name="forward", recompile_reason="0/0: GLOBAL_STATE changed: grad_mode ")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["severity"] == "info" and d["fix"].startswith("Nothing to do"), d


def test_a_gradient_under_autocast_is_judged_at_the_autocast_dtypes_step() -> None:
    """probes27's train_amp_bf16_ok: the backward hook runs outside the program's autocast,
    so a gradient computed through bfloat16 convolutions was judged at float32's step
    ("ill-conditioned ... amplified ~1.15e+05x" on equal eager and compiled errors)."""
    import torch

    from compdiag.capture.grad_accuracy import Modes

    assert Modes(autocast=(("cpu", "bfloat16"),)).coarsest() == torch.bfloat16
    assert Modes(autocast=(("cpu", "float16"), ("cuda", "bfloat16"))).coarsest() == torch.bfloat16
    assert Modes().coarsest() is None


def test_a_value_that_slices_a_module_list_gets_no_tensor_fix():
    """probes28b layer_drop_depth (stochastic depth, `for block in self.blocks[:n_blocks]`):
    the recurring recompile's fix said to wrap n_blocks in a tensor, and with a tensor Dynamo
    skipped the whole frame. A value that slices a container (torch's guard sits in
    nn/modules/container.py's __getitem__, the user's line slices) is structure."""
    from compdiag.analyses.recompile_rules import recurring_fix

    guard = ("n_blocks == 5   # return self.__class__(list(self._modules.values())[idx])  "
             "# nn/modules/container.py:384 in __getitem__")
    for text in (guard, "n_blocks == 5 for block in self.blocks[:n_blocks]:"):
        fix = recurring_fix("n_blocks", text)
        assert fix.startswith("n_blocks slices a Python container") and "torch.tensor(" not in fix
    assert "torch.tensor(value)" in recurring_fix("scale", "scale == 0.5  # y = x * scale")


def test_a_value_that_picks_a_module_by_key_is_a_lookup_not_a_slice():
    """probes29a multitask_heads (`self.heads[task]` of a ModuleDict, a task string per
    call): the fix called the lookup a slice (`[:...]`). A value that picks a module is said
    to pick it, with the fix that works there (compile the shared part)."""
    from compdiag.analyses.recompile_rules import recurring_fix

    guard = ("task == 'spam'   # return self._modules[key]  "
             "# nn/modules/container.py:560 in __getitem__ return self.heads[task](h)")
    fix = recurring_fix("task", guard)
    assert fix.startswith("task picks which module runs") and "[:" not in fix, fix
    assert "torch.tensor(" not in fix


def test_a_changing_interpolate_scale_gets_a_size_fix_not_a_tensor():
    """probes29c scale_jitter_aug: multi-scale training passed a random float as
    `F.interpolate(..., scale_factor=scale)`; the fix said `torch.tensor(value)`, and the
    copy with it raised TypeError (scale_factor takes a float)."""
    from compdiag.analyses.recompile_rules import recurring_fix

    fix = recurring_fix("scale", "scale == 1.17  # images = F.interpolate(images, "
                                 "scale_factor=scale, mode='bilinear')")
    assert "size=(h, w)" in fix and "torch.tensor(" not in fix, fix



def test_a_math_call_on_a_dynamic_number_names_the_call_and_the_number(tmp_path):
    """probes31d dqn_epsilon_step: `math.exp(-global_step / 500)` guards on the expression
    `(((-1)*global_step) / 500)`; explain said "Python value (((-1)*global_step) / 500)
    changed" with a fix that wrapped the expression in a tensor (a graph break at the line)."""
    s = Store(tmp_path)
    s.compile("0/0")
    for i in range(1, 4):
        s.compile(f"0/{i}", recompile_reason=f"0/{i - 1}: (((-1)*global_step) / 500) == "
                                             f"(-0.00{i})  # eps = math.exp(-global_step / "
                                             f"500)  # {s.user}:16 in act")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "math.exp() at line 16 needs a concrete number, so global_step" in d["reason"], d
    assert "outside the compiled function" in d["fix"] and "torch.tensor" not in d["fix"], d
    # probes38a edm_precond_float_sigma: the float passed in was specialised again by the
    # function's other math calls (8 recompiles); the fix says when that happens
    assert "specialises it again" in d["fix"], d["fix"]


def test_one_math_call_recompile_is_no_recompile_by_design(tmp_path):
    """The same class once: automatic dynamic's "nothing to do, it is made symbolic" was
    wrong for it (math.exp specialises the number at every value)."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: (((-1)*global_step) / 500) == (-0.002)  # eps = "
                                      f"math.exp(-global_step / 500)  # {s.user}:16 in act")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["severity"] == "problem" and "Nothing to do" not in d["fix"], d



def test_a_number_that_looks_an_item_up_in_a_container_is_said_as_the_lookup(tmp_path):
    """probes32a ddim_alpha_list: `a_t = ALPHAS_CUMPROD[t]` (a Python list) made each timestep
    a constant of the graph; explain said "t is a Python number that changes every call:
    wrap it in a tensor", and that fix gave a graph break at every call (a list indexed by a
    tensor reads its value). The reason names the lookup; the fix does it outside, or keeps a
    tensor table. A string key or a module picked from a ModuleList keeps its own words."""
    from compdiag.formats.code_text import indexed_by

    assert indexed_by("a_t = ALPHAS_CUMPROD[t]", {"t"}) == ("ALPHAS_CUMPROD", "ALPHAS_CUMPROD[t]")
    assert indexed_by("x = self.ts[self.i - 1] * 2", {"self.i"}) == ("self.ts", "self.ts[self.i - 1]")
    # the guard's `scheduler.step_index` read as `self.step_index` inside the method
    assert indexed_by("t = self.ts[self.step_index]", {".step_index"})[0] == "self.ts"
    assert indexed_by("h = self.blocks[:n](x)", {"n"}) is None
    assert indexed_by("y = x * t", {"t"}) is None
    s = Store(tmp_path)
    s.compile("0/0")
    for i in range(1, 4):
        s.compile(f"0/{i}", recompile_reason=f"0/{i - 1}: t == {1000 - 50 * i}  # a_t = "
                                             f"ALPHAS_CUMPROD[t]  # {s.user}:31 in ddim_step")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 31 and d["severity"] == "problem", d
    assert "looks up `ALPHAS_CUMPROD[...]` at line 31" in d["reason"], d["reason"]
    assert "outside the compiled function" in d["fix"] and "Wrapping Constants" not in d["fix"]


def test_a_tensor_indexed_by_the_number_is_no_python_container(tmp_path):
    """probes37f kv_cache_int_pos: `self.k_cache[:, self.pos] = k` on a registered buffer
    recompiled on `self.pos` and was said as a Python list's lookup ("while `self.k_cache` is
    a Python list"), ruling out the tensor position that fixed it. The graph indexes the
    buffer at that line (aten.select, aten.copy): the value's own words apply."""
    s = Store(tmp_path)
    s.compile("0/0")
    for i in range(1, 4):
        cid = f"0/{i}"
        s.compile(cid, recompile_reason=f"0/{i - 1}: self.pos == {i - 1}  # self.k_cache[:, "
                                        f"self.pos] = k  # {s.user}:22 in forward")
        for seq, target in enumerate(("aten.select.int", "aten.copy.default")):
            s.w.insert("graph_nodes", run_id=s.run_id, compile_id=cid, seq=seq, node=f"n{seq}",
                       op="call_function", target=target, meta=None, filename=str(s.user),
                       lineno=22, line="self.k_cache[:, self.pos] = k", stack=None)
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "looks up" not in d["reason"] and "Python list" not in d["fix"], d


def test_a_value_that_went_there_and_back_is_said_in_order(tmp_path):
    """probes32a r1_penalty_gan: requires_grad False, then True, then False again was said
    "(requires_grad=False -> requires_grad=False)", a change that reads as none."""
    s = Store(tmp_path)
    s.compile("0/0")
    for i, was in enumerate((0, 1), 1):
        s.compile(f"0/{i}", recompile_reason=f"0/{i - 1}: tensor 'x' requires_grad mismatch. "
                                             f"expected requires_grad={was}")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "False -> requires_grad=True -> requires_grad=False" in d["reason"], d["reason"]


def test_a_bool_attribute_that_picks_a_branch_is_information_too(tmp_path):
    """probes32f lora_adapter_toggle_ok: a LoRA adapter's `self.q.enabled` flag switched off
    for evaluation was a problem ("pass it as a tensor": 6 graph breaks and 5 recompiles when
    applied). An attribute's bool is the same one graph per value as an argument's."""
    leaf = ("EQUALS_MATCH: L['self'].q.enabled == False  # if self.enabled:  # a.py:22 in f")
    d = _recompile(Store(tmp_path), "0/0: self.q.enabled == False",
                   (_tree("L['self'].q.enabled", "bool", leaf),
                    _tree("L['self'].q.enabled", "bool", leaf.replace("False", "True"))))
    assert d["severity"] == "info" and d["fix"].startswith("Nothing to do"), d


def test_a_list_the_function_loops_over_gets_no_tensor_fix(tmp_path):
    """probes33a moe_active_experts_list: `for e in active:` over a list whose length changed
    each call; the fix "pass it as one tensor" made Dynamo read each item (a break per item).
    The words say the loop, and the fix loops over a fixed set with a mask."""
    leaf = "LENGTH_CHECK: len(L['active']) == {n}  # for e in active:  # a.py:18 in f"
    d = _recompile(Store(tmp_path), "0/0: len(active) == 3  # for e in active:  # a.py:18 in f",
                   (_tree("L['active']", "list", leaf.format(n=3)),
                    _tree("L['active']", "list", leaf.format(n=5))))
    assert "loops over active in Python" in d["explanation"], d["explanation"]
    assert "mask" in d["fix"] and "torch.tensor(items)" not in d["fix"], d["fix"]
    _no_shape_fix(d)


def test_a_fake_quantize_scale_gets_the_tensor_overload_fix():
    """probes33f act_quant_float_scale: the scale of `torch.fake_quantize_per_tensor_affine(x,
    self.scale, 0, ...)` changed every step; "wrap it in a tensor" kept the Python int zero
    point, whose overload reads the scale back (a break every call)."""
    from compdiag.analyses.recompile_rules import recompile_fix

    fix = recompile_fix("value", "self.scale", count=5, limit=False, fn="forward",
                        recurring_text="self.scale == 0.0078  return "
                        "torch.fake_quantize_per_tensor_affine(x, self.scale, 0, -128, 127)")
    assert "int32 zero point" in fix and "torch.tensor(value)" not in fix, fix


def test_a_number_a_math_call_takes_is_read_where_most_failures_were(tmp_path):
    """probes33e iwae_k_sweep: `k == 1` was tied to distributions/utils.py (a size of 1),
    `k == 2, 5, 10, ...` to `math.log(k)` at line 22; the recompile sat at `rsample((k,))`
    (line 18) with "wrap k in a tensor", which crashed rsample."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="iwae_bound", lineno=15)
    lib = ("k == 1  # return torch.empty(shape).normal_()  # distributions/utils.py:73 in "
           "_standard_normal (_subclasses/fake_impls.py:1961 in infer_size)")
    user = ("k == {v}  # return (lw - math.log(k)).mean()  # {f}:22 in iwae_bound "
            "(_dynamo/utils.py:4231 in run_node)")
    for i, text in enumerate([lib] + [user.format(v=v, f=s.user) for v in (2, 5, 10)], 1):
        s.compile(f"0/{i}", co_name="iwae_bound", lineno=15,
                  recompile_reason=f"0/{i - 1}: {text}")
    s.user.write_text("".join(f"line_{i} = {i}\n" for i in range(1, 22))
                      + "    return (lw - math.log(k)).mean()\n" + "x = 1\n" * 20)
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 22, d["user_frame"]
    assert "math.log() at line 22 needs a concrete number" in d["reason"], d["reason"]
    assert "torch.tensor(value)" not in d["fix"], d["fix"]


def test_a_deterministic_algorithms_switch_is_said_at_the_line_that_switched_it(tmp_path):
    """probes36d determinism_check_recompile, blind: `torch.use_deterministic_algorithms(True)`
    for a reproducibility pass recompiled the scorer; the recompile was said as "global state
    deterministic_algorithms changed" at the compiled call (line 25), with the grad-mode fix
    that never names determinism. Now the setting and the line that changed it (32, between
    the two calls at 31 and 33, not the one at 34 that changes it back), information still
    (one graph per setting, each kept)."""
    from test_explain import _call

    s = Store(tmp_path)
    lines = s.user.read_text().splitlines()
    lines[31] = "torch.use_deterministic_algorithms(True)"
    lines[33] = "torch.use_deterministic_algorithms(False)"
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0")
    _call(s, "0/0", [31, 25])
    s.compile("0/1", recompile_reason="0/0: GLOBAL_STATE changed: deterministic_algorithms")
    _call(s, "0/1", [33, 25])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 32, d["user_frame"]
    assert d["reason"].startswith("deterministic algorithms changed "
                                  "(`torch.use_deterministic_algorithms`, line 32)")
    assert "use_deterministic_algorithms(...)` once before the first compiled call" in d["fix"]
    assert d["severity"] == "info"


def test_a_submodule_swapped_after_compiling_names_both_classes_and_the_swap(tmp_path):
    """probes41c timm_frozen_bn_after_warmup, blind: timm's freeze_batch_norm_2d swapped
    BatchNorm2d for FrozenBatchNorm2d mid-training; the recompile read "compiled for
    self.conv1[1] of type one type and is now called with another type", with a fix to convert
    at the call site. The tree's TYPE_MATCH under a nested source names each class."""
    src = "L['self']._modules['conv1']._modules['1']"

    def tree(cls: str) -> str:
        return ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                f"| +- GuardManager: source={src}, type=<class '{cls}'>\n"
                f"| | +- TYPE_MATCH: ___check_type_id({src}, 93903721188000), type=<class "
                f"'{cls}'>  # input = module(input)  # nn/modules/container.py:253 in forward\n")

    d = _recompile(Store(tmp_path), "0/0: ___check_type_id(self._modules['conv1']._modules['1'],"
                   " 93903721188000)  # input = module(input)  # container.py:253 in forward",
                   (tree("torch.nn.modules.batchnorm.BatchNorm2d"),
                    tree("torchvision.ops.misc.FrozenBatchNorm2d")))
    assert "(torch.nn.modules.batchnorm.BatchNorm2d -> torchvision.ops.misc.FrozenBatchNorm2d)" \
        in d["reason"], d["reason"]
    assert "one type" not in d["explanation"] and "also changed" not in d["reason"]
    assert "before `torch.compile`" in d["fix"] and "call site" not in d["fix"]


def test_an_attribute_set_lazily_is_the_hasattr_guard_at_its_line(tmp_path):
    """probes41h lazy_running_mean_hasattr, blind: `if not hasattr(self, "running_mean")` set
    running stats on the first call; the recompile was at the call with "Keep what this guard
    checks the same between calls". torch names the hasattr line (19)."""
    s = Store(tmp_path)
    d = _recompile(s, "0/0: not hasattr(self.norm, 'running_mean')       # if not hasattr(self"
                      f", \"running_mean\"):  # {s.user}:19 in forward", ("", ""))
    assert d["reason"].startswith("self.norm gained the attribute running_mean"), d["reason"]
    assert d["user_frame"]["lineno"] == 19, d["user_frame"]
    assert "register_buffer(\"running_mean\"" in d["fix"] and "Keep what" not in d["fix"]


def test_a_branch_on_a_dynamic_numbers_expression_is_a_branch_at_its_if(tmp_path):
    """probes41h ema_checkpoint_inside_compiled: `if step % SAVE_EVERY == 0` on a step made
    dynamic read "Python value (step % 4) changed (0 -> 0)", with a fix to pass the
    expression as a tensor."""
    s = Store(tmp_path)
    d = _recompile(s, f"0/0: (step % 4) == 0       # if step % SAVE_EVERY == 0:  # {s.user}:43 "
                      "in after_step", ("", ""))
    assert d["reason"].startswith("a branch on the expression (step % 4) took the other way")
    assert d["user_frame"]["lineno"] == 43 and "as a tensor" not in d["fix"], d


def test_a_process_group_per_call_is_named_as_one(tmp_path):
    """probes41e bucket_groups_allreduce_recompile, blind: `dist.all_reduce(flat, group=g)` with
    a new group per gradient bucket recompiled on `group.group_name` to the limit; said as a
    Python string to use in eager code."""
    d = _recompile(Store(tmp_path), "0/0: group.group_name == '1'       # dist.all_reduce(flat, "
                   "group=group)  # a.py:25 in average_bucket", ("", ""))
    assert d["reason"].startswith("another process group was passed as group"), d["reason"]
    assert d["fix"].startswith("Pass one process group for every call")


def test_an_attributes_manager_named_by_its_objects_source_is_not_the_objects_type() -> None:
    """probes43c hf_gpt2_grammar_mask_table_ok, blind: torch 2.13 names the manager of
    `cache.is_compileable` by the cache's own source (`source=L['past_key_values'],
    accessed_by=GetAttrGuardAccessor(is_compileable), type=<class 'bool'>`), and the
    recompile's info line said "type(past_key_values) NoneType -> bool"."""
    from compdiag.ingest.parse_guard_tree import guard_values

    tree = "\n".join([
        "| +- GuardManager: source=L['past_key_values'], accessed_by=FrameLocalsGuardAccessor"
        "(key='past_key_values', framelocals_idx=1), type=<class 'transformers.cache_utils."
        "DynamicCache'>, tag_safe=(False, False)",
        "| | +- GuardManager: source=L['past_key_values'], accessed_by=GetAttrGuardAccessor"
        "(is_compileable), type=<class 'bool'>, tag_safe=(False, False)"])
    assert dict(guard_values(tree))["type(L['past_key_values'])"] == \
        "transformers.cache_utils.DynamicCache"


def test_a_recompile_a_stance_refused_on_an_inference_tensor_gets_the_inference_fix() -> None:
    """probes43i warmup_no_grad_serve_inference_mode, blind: warm-up under no_grad, serving
    under inference_mode with set_stance("fail_on_recompile"); the failure said "keep what this
    guard checks the same". It now says an inference tensor came where a normal one compiled,
    with the recompile's own fix (warm up under inference_mode too)."""
    from types import SimpleNamespace

    from compdiag.analyses.refused_recompile import refused

    guard = {"guard": "tensor 'ids' dispatch key set mismatch. expected DispatchKeySet(CPU, "
                      "BackendSelect, ADInplaceOrView, AutogradCPU), actual DispatchKeySet(CPU,"
                      " BackendSelect)", "function": "forward", "category": "dispatch_key_set",
             "source": "L['ids']", "before": "DispatchKeySet(CPU, BackendSelect, "
             "ADInplaceOrView, AutogradCPU)", "after": "DispatchKeySet(CPU, BackendSelect)"}
    ctx = SimpleNamespace(fn_name=lambda cid: "forward")
    said = refused(ctx, {"failed_guards": [guard], "exc_type": "RuntimeError",
                         "message": "fail_on_recompile", "compile_id": None}, True)
    assert "a normal tensor -> an inference tensor" in said.reason, said.reason
    assert "(ADInplaceOrView, AutogradCPU removed)" in said.explanation, said.explanation
    assert "warm-up included, under torch.inference_mode()" in said.fix, said.fix


def test_a_default_dtype_set_inside_the_callers_function_is_the_line(tmp_path):
    """probes43j calib_ece_default_dtype, blind: `torch.set_default_dtype(torch.float64)` at
    line 23 inside a report function, then the compiled call at 26 recompiled; the
    recompile named line 31 (the reset to float32, after the call), the last setter above
    main's call of the report. The setter nearest above the call in its own function is."""
    from test_explain import _call

    s = Store(tmp_path)
    lines = [f"x{i} = {i}" for i in range(1, 60)]
    lines[17] = "def predict(x):"
    lines[18] = "    return x"
    lines[21] = "def report():"
    lines[22] = "    torch.set_default_dtype(torch.float64)"
    lines[23:31] = ["    y = 1"] * 8
    lines[25] = "    predict(y)"
    lines[30] = "    torch.set_default_dtype(torch.float32)"
    lines[31] = "    return y"
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0", co_name="predict", lineno=18)
    _call(s, "0/0", [47, 19])
    s.compile("0/1", co_name="predict", lineno=18,
              recompile_reason="0/0: GLOBAL_STATE changed: default_dtype")
    _call(s, "0/1", [48, 26, 19])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 23, (d["user_frame"], d["reason"])


MEMO_SRC = """import torch


class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.user_cache = {}

    def user_vector(self, user_id):
        if user_id not in self.user_cache:
            self.user_cache[user_id] = torch.ones(4) * user_id
        return self.user_cache[user_id]

    def forward(self, user_id, x):
        return x @ self.user_vector(user_id)
"""


def test_a_memo_dict_the_compiled_code_fills_is_said_as_its_write(tmp_path):
    """probes43i user_tower_memo_dict, blind: a dict memo keyed by an int, filled inside
    the compiled forward; said as "the list self.user_cache changed length", fix "fill
    every item before the first call", which kept recompiling (the key is guarded too). Now
    the dict, the helper that writes it (line 11), and the fix that keeps it out."""
    s = Store(tmp_path)
    s.user.write_text(MEMO_SRC)
    guard = (f"len(L['self'].user_cache) == {{v}}  # if user_id not in self.user_cache:  "
             f"# {s.user}:10 in user_vector")
    from test_explain import _ids

    for i in range(3):
        if i:
            s.compile(f"0/{i}", co_name="forward", lineno=14,
                      recompile_reason=f"0/{i - 1}: " + guard.format(v=i))
        else:
            s.compile("0/0", co_name="forward", lineno=14)
        tree = "".join(  # the items guarded by their int keys, as torch's tree shows them
            f"| +- TENSOR_MATCH: check_tensor(L['self'].user_cache[{k}], Tensor, DispatchKeySet"
            f"(CPU), torch.float32, device=None, requires_grad=False, size=[4], stride=[1])\n"
            for k in range(1, i + 2))
        s.ing.record({**_ids(f"0/{i}"), "dynamo_cpp_guards_str": {}},
                     "TREE_GUARD_MANAGER:\n+- RootGuardManager\n" + tree)
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "dict self.user_cache" in d["reason"] and "(line 11)" in d["reason"], d["reason"]
    assert "user_vector() out of the compiled code" in d["fix"], d["fix"]
