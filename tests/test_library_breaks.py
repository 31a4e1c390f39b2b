"""Issue 29 §1 (set4's gaussian_nll_break): a graph break inside library code is fixed at the
user's line, in terms of what the user wrote. F.gaussian_nll_loss checks `torch.any(var < 0)`
when Dynamo runs it on fake tensors: a data-dependent `_local_scalar_dense` inside torch. On
main the fix said "`.item()` turns a tensor into a Python number. Keep it a tensor", about a
call the user never wrote. Ingest now keeps the library frame the break is inside
(graph_breaks.lib_frame) and the fix names that library call. Fast: trace-shaped records
through the Ingestor, no compile."""

from __future__ import annotations

from compdiag.ingest.parsers import library_frame
from test_explain import Store, _gb_payload, _ids

LIB = "/usr/lib/python3.11/site-packages/torch"
RUN_NODE = (
    "\nTraceback (most recent call last):\n"
    f'  File "{LIB}/_dynamo/utils.py", line 4231, in run_node\n'
    "    return node.target(*args, **kwargs)  # type: ignore[operator]\n"
    f'  File "{LIB}/nn/functional.py", line 3344, in gaussian_nll_loss\n'
    "    elif torch.any(var < 0):\n"
    f'  File "{LIB}/_compile.py", line 54, in inner\n'
    "    return disable_fn(*args, **kwargs)\n"
    "torch._dynamo.exc.Unsupported: Data dependent operator\n")
HINT = ("Enable tracing of data-dependent output operators with "
        "`torch._dynamo.config.capture_scalar_outputs = True`")


def _break(s: Store, line: int, code: str) -> None:
    s.user.write_text(s.user.read_text().replace(f"line_{line} = {line}\n", code + "\n"))
    payload = _gb_payload(str(s.user), line, code, gb_type="Data dependent operator",
                          code_id="GB0033").replace("Hint: do something else", f"Hint: {HINT}")
    payload = payload.replace("Developer debug context: builtin print [] False",
                              "Developer debug context: aten._local_scalar_dense.default")
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}}, payload + RUN_NODE)


def test_a_break_inside_a_library_call_names_the_library_call(tmp_path):
    """The fix names gaussian_nll_loss and its check, offers capture_scalar_outputs and ways
    for a call the user cannot edit, and says nothing of `.item()` (main's fix did)."""
    s = Store(tmp_path)
    s.compile("0/0")
    _break(s, 12, "return F.gaussian_nll_loss(input, target, var)")
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["user_frame"]["lineno"] == 12
    assert "gaussian_nll_loss" in d["fix"] and "torch.any(var < 0)" in d["fix"]
    assert "capture_scalar_outputs" in d["fix"]
    assert ".item()" not in d["fix"], d["fix"]


def test_the_users_own_item_keeps_the_item_fix(tmp_path):
    """The user's line does call `.item()`: the fix about it stands."""
    s = Store(tmp_path)
    s.compile("0/0")
    _break(s, 12, "return F.gaussian_nll_loss(input, target, var.sum().item())")
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert "`.item()` turns a tensor" in d["fix"]


def test_library_frame_is_none_for_the_users_own_code():
    """A break in the user's own line (no library frame after it, no node run) has none."""
    plain = _gb_payload("/home/me/t.py", 5, "y = x.item()", gb_type="Data dependent operator",
                        code_id="GB0033")
    assert library_frame(plain) is None
    lib = library_frame(plain + RUN_NODE)
    assert (lib["name"], lib["lineno"], lib["line"]) == ("gaussian_nll_loss", 3344,
                                                         "elif torch.any(var < 0):")


def test_property_no_library_break_fix_quotes_an_api_the_user_line_lacks(tmp_path):
    """Over library breaks of every fix rule that names a user call: the fix quotes that
    call only when the user's line makes it."""
    from compdiag.analyses.fixes import RULES, graph_break_fix

    lib = library_frame(_gb_payload("/home/me/t.py", 5, "y = f(x)", gb_type="x",
                                    code_id="GB0033") + RUN_NODE)
    for rule in [r for r in RULES if r.user_calls]:
        words = rule.words[0]
        fix = graph_break_fix(words, "", words, "return F.some_loss(a, b)", [HINT], lib)
        # the user's own call is named, never an API of the rule's that the line lacks
        assert "`F.some_loss(...)`" in fix and "gaussian_nll_loss" in fix, (rule.words, fix)
        assert not any(c.strip() in fix for c in rule.user_calls if c.startswith(".")), fix


def test_a_branch_inside_a_library_call_is_not_the_users_if(tmp_path):
    """corpus/gb_library_data_dependent's class (pytorch/pytorch#60691): a data-dependent
    `if` inside clip_grad_norm_. On main the fix said "The `if` depends on a tensor's value
    ... select with torch.where", about an `if` the user's line does not have; now it names
    the library function and what works for a call the user cannot edit. A user's own `if`
    keeps the branching fix."""
    inner = RUN_NODE.replace("nn/functional.py\", line 3344, in gaussian_nll_loss",
                             "nn/utils/clip_grad.py\", line 109, in _get_total_norm").replace(
        "elif torch.any(var < 0):", "if error_if_nonfinite and torch.logical_or(n.isnan(), "
        "n.isinf()):").replace("Data dependent operator", "Data-dependent branching")
    for code, library in (("return clip_grad_norm_(params, m, error_if_nonfinite=True)", True),
                          ("if x.sum() > 0: return clip_grad_norm_(params, m)", False)):
        (tmp_path / str(library)).mkdir()
        s = Store(tmp_path / str(library))
        s.compile("0/0")
        s.user.write_text(s.user.read_text().replace("line_12 = 12\n", code + "\n"))
        payload = _gb_payload(str(s.user), 12, code, gb_type="Data-dependent branching",
                              code_id="GB0170")
        s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                                  "encoding": "string"}}, payload + inner)
        (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
        assert ("_get_total_norm" in d["fix"]) is library, d["fix"]
        assert ("The `if` depends on a tensor's value" in d["fix"]) is not library, d["fix"]


def test_a_logging_break_inside_a_library_gets_the_library_fix_not_a_logger_snippet():
    """benchmarks/probes25 hf_gpt2_grad_ckpt_train: transformers' own `logger.warning_once`
    broke the graph under the user's `loss = model(...)`, and the fix said
    `reorderable_logging_functions.add(logger.info)` for a logger the program does not have.
    The logging rule is the user's only where their line logs."""
    from compdiag.analyses.fixes import graph_break_fix

    lib = {"filename": "/x/site-packages/transformers/utils/generic.py", "lineno": 1189,
           "name": "wrapper", "line": "logger.warning_once(msg)"}
    gb = "logging.Logger method not supported for non-export cases"
    fix = graph_break_fix(gb, "", "", "logits = model(input_ids=ids, labels=ids).logits", [],
                          lib_frame=lib)
    assert fix.startswith("Your call `model(...)` breaks inside `wrapper` (generic.py:1189"), fix
    assert "reorderable_logging_functions.add(logger.info)" not in fix
    mine = graph_break_fix(gb, "", "", "logger.info('step %d', step)", [], lib_frame=None)
    assert "ignore_logging_functions.add(logger.info)" in mine


def test_an_untraceable_builtin_inside_a_library_names_the_users_call(tmp_path):
    """probes32a vae_kl_dist: `kl_divergence(q, prior)` broke on the builtin `min` over a
    generator inside torch.distributions' `_dispatch_kl`; the reason named only `min` and
    kl.py, and the fix told the user to "compute `min` outside the compiled function", a call
    their code never makes. The reason names their call, the fix is the library's; a `min`
    on the user's own line keeps the builtin's fix."""
    from compdiag.analyses.fixes import graph_break_fix

    lib = {"filename": "/x/site-packages/torch/distributions/kl.py", "lineno": 127,
           "name": "_dispatch_kl", "line": "left_p, left_q = min(_Match(*m) for m in matches).types"}
    expl = "Dynamo does not know how to trace builtin operator `min` with argument types ['generator']"
    hints = ["Avoid calling builtin `min` with argument types ['generator']. Consider using an "
             "equivalent alternative function/method to `min`."]
    fix = graph_break_fix("Failed to trace builtin operator", expl, "builtin min",
                          "kl = kl_divergence(q, prior).sum(-1).mean()", hints, lib_frame=lib)
    assert fix.startswith("Your call `kl_divergence(...)` breaks inside `_dispatch_kl`"), fix
    assert "Avoid calling builtin" not in fix and "closed form" in fix
    mine = graph_break_fix("Failed to trace builtin operator", expl, "builtin min",
                           "best = min(scores_gen)", hints, lib_frame=lib)
    assert mine.startswith("Dynamo cannot trace `min`"), mine

    s = Store(tmp_path)
    s.compile("0/0")
    s.user.write_text(s.user.read_text().replace(
        "line_21 = 21\n", "kl = kl_divergence(q, prior).sum(-1).mean()\n"))
    # the innermost frame of torch's "User code traceback" is the library's
    inner = (f'  File "{LIB}/distributions/kl.py", line 127, in _dispatch_kl\n'
             f"    {lib['line']}\n")
    payload = _gb_payload(str(s.user), 21, "kl = kl_divergence(q, prior).sum(-1).mean()",
                          gb_type="Failed to trace builtin operator", code_id="GB0059"
                          ).replace("builtin print [] False", "builtin min [generator] False")
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}}, payload + inner)
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["user_frame"]["lineno"] == 21
    assert "calling `kl_divergence(...)`, at `left_p" in d["reason"], d["reason"]


def test_two_library_statements_under_one_user_line_are_two_breaks(tmp_path):
    """benchmarks/probes25 hf_gpt2_grad_ckpt_train: two transformers logging sites (a
    loss_type warning every step, a gradient-checkpointing warning from step 4) broke under
    the one user line `loss = model(...)` and were one panel quoting one of them. A break
    inside library code is keyed by the library statement too; the same statement hit again
    stays one diagnosis."""
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    gb = dict(gb_type="Attempted to copy.deepcopy a tensor", code="GB4198")
    s.graph_break("0/0", 7, extra_frame="/usr/lib/python3.11/copy.py", **gb)
    s.graph_break("0/0", 7, extra_frame="/usr/lib/python3.11/copy.py", **gb)
    s.graph_break("0/0", 7, extra_frame="/usr/lib/python3.11/copyreg.py", **gb)
    breaks = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert sorted((d["count"], d["reason"].rsplit("(", 1)[-1]) for d in breaks) == \
        [(1, "copyreg.py:153)"), (2, "copy.py:153)")], breaks
    assert {d["user_frame"]["lineno"] for d in breaks} == {7}


def test_a_break_in_dynamos_stand_in_is_at_the_library_call_that_reached_it():
    """Dynamo traces `cls(...)` through its own polyfill (torch/_dynamo/polyfills), so a
    skipped pybind11 constructor breaks there; the library statement is the frame that
    called into it, c10d's `opts = BroadcastOptions()` in broadcast(), and the fix names the
    functional collective that traces (set20 broadcast_in_compiled_helper, first run: the
    polyfill's `cls.__new__` and "`this function` is a builtin")."""
    from compdiag.analyses.fixes import graph_break_fix

    text = ("Graph break in user code\nUser code traceback:\n"
            '  File "/home/me/train.py", line 25, in helper\n'
            "    dist.broadcast(mask, src=0)\n"
            f'  File "{LIB}/distributed/c10d_logger.py", line 83, in wrapper\n'
            "    return func(*args, **kwargs)\n"
            f'  File "{LIB}/distributed/distributed_c10d.py", line 3133, in broadcast\n'
            "    opts = BroadcastOptions()\n"
            f'  File "{LIB}/_dynamo/polyfills/__init__.py", line 505, in '
            "instantiate_user_defined_class_object\n"
            "    obj = cls.__new__(cls, *args, **kwargs)\n")
    lib = library_frame(text)
    assert (lib["name"], lib["lineno"]) == ("broadcast", 3133), lib
    fix = graph_break_fix("Attempted to call function marked as skipped", "",
                          "module: <unknown module>, qualname: pybind11_object.__new__",
                          "dist.broadcast(mask, src=0)", [], lib)
    assert fix.startswith("`dist.broadcast` is c10d's in-place collective"), fix
    assert "_functional_collectives.broadcast(" in fix
    # without a c10d frame, a pybind11 function is named by its qualname, not "this function"
    plain = graph_break_fix("Attempted to call function marked as skipped", "",
                            "module: <unknown module>, qualname: pybind11_object.__new__",
                            "x = Thing()", [], None)
    assert plain.startswith("`pybind11_object.__new__` is a builtin"), plain


def test_a_graph_break_call_in_library_code_is_not_for_the_user_to_remove():
    """probes26: torch's optimizer breaks on purpose (`torch._dynamo.graph_break()` in
    optimizer.py's `_use_grad`); the fix said "remove it (it is a debugging aid)" and quoted
    torch's hint "Remove the call", about code the user does not own."""
    from compdiag.analyses.fixes import graph_break_fix

    lib = {"filename": f"{LIB}/optim/optimizer.py", "lineno": 79, "name": "_use_grad",
           "line": "torch._dynamo.graph_break()"}
    fix = graph_break_fix("Call to `torch._dynamo.graph_break()`", "", "", "opt.step()",
                          ["Remove the `torch._dynamo.graph_break()` call."], lib)
    assert fix.startswith("Your call `opt.step(...)` breaks inside `_use_grad`"), fix
    assert "Remove the" not in fix and "debugging aid" not in fix
    own = graph_break_fix("Call to `torch._dynamo.graph_break()`", "", "",
                          "torch._dynamo.graph_break()", [], None)
    assert "debugging aid" in own


def test_a_break_in_an_eager_mode_quantized_layer_gets_the_quantization_fix():
    """probes29b qdyn_ranker_serve: `quantize_dynamic(model)` then torch.compile broke at
    `torch.ops.quantized.linear_dynamic(...)` on the packed weight (a ScriptObject); the fix
    told the user to implement `__tensor_flatten__` on it. The layer is torch's quantized
    Linear: compile the float model, or quantize the PT2 way."""
    from compdiag.analyses.fixes import graph_break_fix

    lib = {"filename": "/x/site-packages/torch/ao/nn/quantized/dynamic/modules/linear.py",
           "lineno": 58, "name": "forward", "line": "Y = torch.ops.quantized.linear_dynamic("}
    fix = graph_break_fix("Failed to convert args/kwargs to proxy", "Missing `as_proxy()`",
                          "UserDefinedObjectVariable(ScriptObject)", "scores = ranker(q, d)",
                          [], lib_frame=lib)
    assert "compile the float model" in fix and "torchao" in fix
    assert "__tensor_flatten__" not in fix


def test_a_numpy_scalar_read_is_named_and_fixed_with_torch():
    """probes29a numpy_gain_jitter: `gain_db = np.random.uniform(-6.0, 6.0)` in a compiled
    forward broke on aten._local_scalar_dense; the reason never said NumPy and the fix was
    `.item()` advice with `capture_scalar_outputs`, which left the break and a recompile."""
    from compdiag.analyses.diagnoses.graph_breaks import scalar_read
    from compdiag.analyses.fixes import graph_break_fix

    line = "gain_db = np.random.uniform(-6.0, 6.0)"
    assert scalar_read("aten._local_scalar_dense.default", line) == "np.random.uniform(...)"
    assert scalar_read("aten._local_scalar_dense.default", "n = int(x.sum())") == "int(...)"
    fix = graph_break_fix("Data dependent operator", "Operator `aten._local_scalar_dense."
                          "default` has a non-Tensor output", "aten._local_scalar_dense.default",
                          line, [])
    assert "torch.empty(()).uniform_(low, high)" in fix and ".item()" not in fix, fix
    assert "`.item()`" in graph_break_fix("Data dependent operator", "", "_local_scalar_dense",
                                          "v = t.item()", [])


def test_a_sparse_tensor_break_is_not_told_to_move_a_creation_it_does_not_make():
    """probes29a gcn_sparse_adj: the adjacency was made outside and passed in; torch's hint
    ("move sparse tensor creation outside the compiled region") was the fix and changed
    nothing. A dense tensor (or the sparse op behind a disable helper) is what works."""
    from compdiag.analyses.fixes import graph_break_fix

    hint = ("Sparse tensor operations are not yet fully supported in torch.compile with "
            "fullgraph=True. Consider using fullgraph=False to allow graph breaks, or move "
            "sparse tensor creation outside the compiled region.")
    fix = graph_break_fix("Attempted to wrap sparse Tensor", "torch.compile does not support "
                          "sparse Tensors", "", "h = torch.sparse.mm(adj, h)", [hint])
    assert "to_dense()" in fix and "creation outside" not in fix, fix


def test_a_break_inside_a_custom_ops_fake_implementation_points_at_its_line(tmp_path):
    """probes29a dedup_ids_fake: `torch.unique(ids).numel()` in the op's register_fake broke
    the graph; torch's words name its own CustomOpDef.__call__ and the user's call of the op,
    and the diagnosis stayed at the call with a mask fix that does not apply to a dedup."""
    from compdiag.analyses.context import RunContext
    from compdiag.analyses.custom_op_fakes import fake_line
    from compdiag.store.reader import Reader
    from test_explain import Store

    from cdtest import REPO

    s = Store(tmp_path)  # the probe's program, as the run kept it
    s.user.write_text((REPO / "benchmarks/probes29a/dedup_ids_fake.py").read_text())
    s.compile("0/0", lineno=23)
    s.done()
    lib = {"filename": "/x/site-packages/torch/_library/custom_ops.py", "lineno": 863,
           "name": "__call__", "line": "return self._opoverload(*args, **kwargs)"}
    with Reader(s.path) as r:
        ctx = RunContext(r, s.run_id)
        frame, op = fake_line(ctx, "0/0", lib, "uniq = dedup_ids(ids)", "aten._unique2.default")
        assert (frame.lineno, op, frame.evidence) == (12, "dedup_ids", "source"), frame
        # a break elsewhere in torch, or a call of another function, is not one
        assert fake_line(ctx, "0/0", {**lib, "filename": "/x/torch/nn/functional.py"},
                         "uniq = dedup_ids(ids)", "aten._unique2.default") is None
        assert fake_line(ctx, "0/0", lib, "y = other(ids)", "aten._unique2.default") is None
    # probes36c cop_fake_boolmask_break, blind: `scores[scores > thresh]` in the fake is
    # aten.nonzero, an op name the line never spells; it was put at the registration
    (tmp_path / "mask").mkdir()
    s = Store(tmp_path / "mask")
    s.user.write_text((REPO / "benchmarks/probes36c/cop_fake_boolmask_break.py").read_text())
    s.compile("0/0", co_name="forward", lineno=21)
    s.done()
    with Reader(s.path) as r:
        frame, op = fake_line(RunContext(r, s.run_id), "0/0", lib,
                              "kept = keep_confident(scores, 0.5)", "aten.nonzero.default")
        assert (frame.lineno, op) == (13, "keep_confident"), frame


def test_an_async_collective_break_is_fixed_by_dropping_async_op():
    """probes29d allreduce_async_metric: `dist.all_reduce(t, async_op=True)` then
    `work.wait()` in a compiled function; the fix was the generic "move it out / disable".
    Without async_op the call traces (one graph, no break, same numbers)."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix("async_op=True for distributed collectives",
                          "`torch.compile` doesn't support `async_op=True for all_reduce", "",
                          "work = dist.all_reduce(stats, async_op=True)", [])
    assert fix.startswith("Call the collective without `async_op=True`"), fix


def test_a_call_torch_marks_untraceable_is_named_in_the_fix():
    """probes33b tangent_linearize_sensitivity: `torch.func.linearize` calls
    `torch._dynamo.disallow_in_graph` on itself; the fix told the user to keep
    `disallow_in_graph` out of the compiled function. It names the user's call."""
    from compdiag.analyses.fixes import graph_break_fix

    ctx = ("Skip calling `disallow_in_graph` (module: torch._dynamo.decorators, qualname: "
           "disallow_in_graph)")
    expl = ("Dynamo developers have intentionally marked that the function `disallow_in_graph` "
            "in file `/x/torch/_dynamo/decorators.py` should not be traced.")
    fix = graph_break_fix("Attempted to call function marked as skipped", expl, ctx,
                          "recon, push = linearize(decode, z)", [])
    assert fix.startswith("torch marks `linearize` as not supported"), fix
    assert "torch.func.jvp" in fix


def test_a_sort_by_tensor_keys_gets_a_torch_ranking_fix():
    """probes33d beam_search_sorted: torch's hint "Use something else as the key" was the fix;
    the next try, `key=lambda c: float(c[0])`, still broke."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix("sort with non-constant keys", "Cannot perform sort with non-constant "
                          "key.", "", "best = sorted(candidates, key=lambda c: c[0])",
                          ["Use something else as the key."])
    assert "torch.topk" in fix and "Use something else" not in fix, fix


def test_a_sparse_constructor_gets_the_sparse_fix_not_move_it_out():
    """probes33g bow_sparse_docs: `torch.sparse_coo_tensor(...)` inside the compiled function
    broke as a skipped builtin, whose fix (build it outside and pass it in) left two breaks:
    Dynamo traces no sparse tensor, made inside or passed in."""
    from compdiag.analyses.fixes import graph_break_fix

    expl = ("Dynamo does not know how to trace the builtin "
            "`torch._VariableFunctionsClass.sparse_coo_tensor.` This function is either a "
            "Python builtin (e.g. _warnings.warn) or a third-party C/C++ Python extension")
    ctx = ("module: torch._VariableFunctionsClass, qualname: sparse_coo_tensor, skip reason: "
           "<missing reason>")
    fix = graph_break_fix("Attempted to call function marked as skipped", expl, ctx,
                          "bow = torch.sparse_coo_tensor(idx, vals, size)", [])
    assert fix.startswith("Dynamo does not trace sparse tensors"), fix


def test_a_break_in_distribution_validation_gets_validate_args_false():
    """probes33e hetero_nll_validate: `Normal(mu, sigma, validate_args=True)` broke inside
    torch.distributions' argument checks; the fix told the user to keep `is_dependent`, a
    function of torch's they never call, out of the compiled function."""
    from compdiag.analyses.fixes import graph_break_fix

    lib = {"filename": "/x/site-packages/torch/distributions/distribution.py", "lineno": 68,
           "name": "__init__", "line": "if constraints.is_dependent(constraint):"}
    fix = graph_break_fix("Attempted to call function marked as skipped", "", "",
                          "dist = Normal(mu, sigma, validate_args=True)", [], lib_frame=lib)
    assert "validate_args=False" in fix and "is_dependent" not in fix, fix


def test_eager_mode_qat_gets_a_fix_the_user_can_apply():
    """probes33f qat_prepare_compiled_train: prepare_qat's observer hook broke the graph, and
    the fix told the user to keep `_observer_forward_hook` (which prepare_qat registered, not
    the user) out of the compiled function."""
    from compdiag.analyses.fixes import graph_break_fix

    lib = {"filename": "/x/site-packages/torch/nn/modules/module.py", "lineno": 1845,
           "name": "inner", "line": "hook_result = hook(self, args, result)"}
    ctx = ("module: torch.ao.quantization.quantize, qualname: _observer_forward_hook, skip "
           "reason: file matches MOD_SKIPLIST (/x/site-packages/torch/ao)")
    fix = graph_break_fix("Attempted to call function marked as skipped", "", ctx,
                          "logits = model(x)", [], lib_frame=lib)
    assert "prepare_qat_pt2e" in fix and "_observer_forward_hook" not in fix, fix
    qlib = {"filename": "/x/site-packages/torch/ao/nn/quantized/dynamic/modules/linear.py",
            "lineno": 58, "name": "forward", "line": "Y = torch.ops.quantized.linear_dynamic("}
    assert "torchao" in graph_break_fix("Failed to convert args/kwargs to proxy", "", "",
                                        "y = self.fc1(h)", [], lib_frame=qlib)


def test_a_masked_tensor_break_gets_the_boolean_mask_fix():
    """probes33g masked_tensor_pool: the fix moved `masked_tensor(...)` out of the compiled
    function, and MaskedTensor's `.mean` and `.to_tensor` broke in its place."""
    from compdiag.analyses.fixes import graph_break_fix

    ctx = ("module: torch.masked.maskedtensor.creation, qualname: masked_tensor, skip reason: "
           "<missing reason>")
    expl = ("Dynamo developers have intentionally marked that the function `masked_tensor` in "
            "file `/x/torch/masked/maskedtensor/creation.py` should not be traced.")
    fix = graph_break_fix("Attempted to call function marked as skipped", expl, ctx,
                          "mt = masked_tensor(h, valid)", [])
    assert "boolean mask" in fix and "keep the call outside" not in fix, fix


NJT_DISPATCH = (
    "\nTraceback (most recent call last):\n"
    f'  File "{LIB}/_dynamo/utils.py", line 4231, in run_node\n'
    "    return node.target(*args, **kwargs)  # type: ignore[operator]\n"
    f'  File "{LIB}/nested/_internal/nested_tensor.py", line 460, in __torch_function__\n'
    "    return func(*args, **kwargs)\n"
    f'  File "{LIB}/nested/_internal/nested_tensor.py", line 400, in __torch_dispatch__\n'
    "    return fn(*args, **kwargs)\n"
    f'  File "{LIB}/nested/_internal/ops.py", line 1167, in unbind_int\n'
    "    lengths_scalars = offsets.diff().tolist()\n"
    f'  File "{LIB}/_subclasses/fake_tensor.py", line 1231, in tolist\n'
    "    return [elem.item() for elem in self]\n"
    "torch._dynamo.exc.Unsupported: Data dependent operator\n")


def test_a_break_behind_a_subclass_dispatch_names_the_statement_and_the_users_call(tmp_path):
    """probes33g njt_unbind_pool: `torch.stack([c.max(0).values for c in frames.unbind()])`
    on a jagged tensor; the break's library frame was nested_tensor.py's generic
    `__torch_function__` (`return func(*args, **kwargs)`) and the call named was the line's
    outermost, `torch.stack(...)`. The library statement is the innermost one before fake
    tensors (`unbind_int`: `offsets.diff().tolist()`), and the call is the line's that names
    it, `frames.unbind(...)`, in the reason and the fix."""
    lib = library_frame(_gb_payload("/home/me/t.py", 5, "y = f(x)", gb_type="x",
                                    code_id="GB0033") + NJT_DISPATCH)
    assert (lib["name"], lib["line"]) == ("unbind_int",
                                          "lengths_scalars = offsets.diff().tolist()")
    s = Store(tmp_path)
    s.compile("0/0")
    code = "pooled = torch.stack([clip.max(dim=0).values for clip in frames.unbind()])"
    s.user.write_text(s.user.read_text().replace("line_12 = 12\n", code + "\n"))
    payload = _gb_payload(str(s.user), 12, code, gb_type="Data dependent operator",
                          code_id="GB0033").replace(
        "Developer debug context: builtin print [] False",
        "Developer debug context: aten._local_scalar_dense.default")
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}}, payload + NJT_DISPATCH)
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert "calling `frames.unbind(...)`, at `lengths_scalars = offsets.diff().tolist()` in " \
        "unbind_int()" in d["reason"], d["reason"]
    assert d["fix"].startswith("Your call `frames.unbind(...)` breaks inside `unbind_int`")


def test_an_internal_error_names_the_call_its_fake_run_entered():
    """The failure of the same program (the resumed frame fake-tensorising unbind's views):
    `library_call` finds `unbind_int` below Dynamo, fake tensors and the subclass dispatch,
    and `called` picks the line's call that names it."""
    from compdiag.formats.code_text import called
    from compdiag.formats.user_code import library_call

    frames = [{"filename": f"{LIB}/nn/modules/module.py", "name": "_call_impl"},
              {"filename": f"{LIB}/_dynamo/eval_frame.py", "name": "_fn"},
              {"filename": f"{LIB}/_subclasses/fake_tensor.py", "name": "from_tensor"},
              {"filename": f"{LIB}/_subclasses/meta_utils.py", "name": "view_from_base"},
              {"filename": f"{LIB}/nested/_internal/nested_tensor.py",
               "name": "__torch_dispatch__"},
              {"filename": f"{LIB}/nested/_internal/ops.py", "name": "unbind_int"},
              {"filename": f"{LIB}/_subclasses/fake_tensor.py", "name": "tolist"}]
    assert library_call(frames)["name"] == "unbind_int"
    assert library_call(frames[:3]) is None
    line = "pooled = torch.stack([clip.max(dim=0).values for clip in frames.unbind()])"
    assert called(line, "unbind_int") == "frames.unbind" and called(line) == "torch.stack"
    assert called(line, "layer_norm") == "torch.stack"


def test_a_fullgraph_failure_inside_a_librarys_with_block_is_the_library_call(tmp_path):
    """probes36b gpt2_attn_entropy_fullgraph, blind: `model(..., output_attentions=True)`
    under fullgraph=True failed on "Unsupported context manager" at transformers'
    `with _hook_installation_lock:`; the fix told the user to move that `with` block, which is
    library code. The failure names the library statement and gets the library fix."""
    from compdiag.analyses.fixes import graph_break_fix
    from test_explain import Store

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    lib = "/x/site-packages/transformers/utils/output_capturing.py"
    tb = ("Traceback (most recent call last):\n"
          f'  File "{s.user}", line 40, in <module>\n    analyze(ids)\n'
          "torch._dynamo.exc.Unsupported: Unsupported context manager\n"
          "  Explanation: Dynamo does not know how to enter a `lock` context manager.\n"
          "  Hint: Avoid using the unsupported context manager.\n\n"
          "from user code:\n"
          f'   File "{s.user}", line 15, in analyze\n    out = model(ids)\n'
          f'  File "{lib}", line 239, in maybe_install_capturing_hooks\n'
          "    with _hook_installation_lock:\n")
    s.failure("0/0", stage="dynamo", exc_type="Unsupported",
              message="Unsupported context manager", torch_message=tb.split("from user")[0],
              filename=str(s.user), lineno=15, line="out = model(ids)", traceback=tb)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "at `with _hook_installation_lock:` in maybe_install_capturing_hooks() " \
           "(output_capturing.py:239)" in d["reason"], d["reason"]
    assert "Your call `model(...)` breaks inside `maybe_install_capturing_hooks`" in d["fix"]
    assert "move the `with` block" not in d["fix"] and "Avoid using" not in d["fix"]
    # the user's own `with` line keeps the rule's fix
    own = graph_break_fix("Unsupported context manager", "", "", "with open(p) as f:", [],
                          {"filename": lib, "lineno": 239, "name": "g"})
    assert own.startswith("Dynamo cannot enter this context manager")


def test_a_function_torch_disables_on_purpose_gets_what_to_change_instead():
    """probes37a adamw_fused_compiled_step: `AdamW(fused=True)` stepped inside a compiled
    function broke at torch's own `torch.compiler.disable` of `_fused_adam` ("reason: don't
    trace into fused optimizer"), and the fix said to remove the disable, which is torch's.
    A disable with a reason is whoever wrote it's; a fused optimizer's has its own fix."""
    from compdiag.analyses.fixes import graph_break_fix

    gb = "Skip calling `torch.compiler.disable()`d function"
    fused = ("Skip calling function `<function _fused_adam>` since it was wrapped with "
             "`torch.compiler.disable` (reason: don't trace into fused optimizer)")
    fix = graph_break_fix(gb, fused, "", "opt.step()", [])
    assert "fused=True" in fix and "Remove the disable" not in fix, fix
    other = fused.replace("don't trace into fused optimizer", "keeps the hook in eager")
    fix = graph_break_fix(gb, other, "", "hooks.run()", [])
    assert "on purpose" in fix and "(reason: keeps the hook in eager)" in fix, fix
    own = ("Skip calling function `<function helper>` since it was wrapped with "
           "`torch.compiler.disable` (reason: None)")  # torch 2.13's words for a plain disable
    assert "Remove the disable if" in graph_break_fix(gb, own, "", "helper(x)", [])


def test_a_skipped_function_is_named_by_whose_code_it_is():
    """probes38a ddpm_tqdm_sample_loop and probes38b replay_random_sample_break: tqdm's and
    CPython's random.py's functions were "torch code Dynamo skips on purpose"; torch skips
    them because their files are under a skip directory. checkpoint_sequential (probes38c)
    has a traced alternative, `checkpoint` per segment, and the fix to call it in eager
    compiled nothing."""
    from compdiag.analyses.fixes import graph_break_fix

    gb = "Attempted to call function marked as skipped"

    def fix_for(module: str, qualname: str, path: str) -> str:
        expl = (f"Dynamo developers have intentionally marked that the function `{qualname}` "
                f"in file `{path}` should not be traced.")
        ctx = (f"module: {module}, qualname: {qualname}, skip reason: file is under skip "
               f"directory ({path.rsplit('/', 1)[0]}/)")
        return graph_break_fix(gb, expl, ctx, "for t in tqdm(range(10)):", [])

    assert "`tqdm`'s code (a third-party package)" in fix_for(
        "tqdm.std", "tqdm.__new__", "/v/lib/python3.11/site-packages/tqdm/std.py")
    assert "Python's standard library code (`random.py`)" in fix_for(
        "random", "Random.sample", "/usr/lib/python3.11/random.py")
    assert "is torch code" in fix_for(
        "torch.optim.sgd", "SGD.step", "/v/lib/python3.11/site-packages/torch/optim/sgd.py")
    seq = fix_for("torch.utils.checkpoint", "checkpoint_sequential",
                  "/v/lib/python3.11/site-packages/torch/utils/checkpoint.py")
    assert "checkpoint(segment, h, use_reentrant=False)" in seq, seq


def test_a_dicts_items_sorted_as_pairs_sorts_the_keys():
    """probes38d feats_sorted_items_break: `sorted(z.items())` over a dict of tensors broke
    (the pair is the sort key); the fix said to `torch.stack` scores and `topk` them, for a
    program with no scores. A ranking by tensor values keeps that fix."""
    from compdiag.analyses.fixes import graph_break_fix

    expl = ("Cannot perform sort with non-constant key. First non-constant key type: <class "
            "'tuple'>. Most notably, we cannot sort with Tensor or SymInt keys, but we can sort "
            "ints.")
    line = "fused = torch.cat([v for _, v in sorted(z.items())], dim=-1)"
    fix = graph_break_fix("sort with non-constant keys", expl, "TupleVariable(length=2)", line,
                          [])
    assert "[d[k] for k in sorted(d)]" in fix and "topk" not in fix, fix
    ranked = graph_break_fix("sort with non-constant keys", expl.replace("tuple", "torch.Tensor"),
                             "TensorVariable()", "best = sorted(beams, key=lambda b: b[0])", [])
    assert "topk" in ranked, ranked


def test_a_deepcopy_made_by_dataclasses_asdict_names_asdict():
    """probes38d eval_output_asdict_fullgraph: `return dataclasses.asdict(out)` broke on
    copy.deepcopy of a tensor, and the fix said to use `x.clone()` instead of a deepcopy the
    program never wrote."""
    from compdiag.analyses.fixes import graph_break_fix

    gb = "Attempted to copy.deepcopy a tensor"
    fix = graph_break_fix(gb, "Dynamo does not support copy.deepcopy() on tensors.", "",
                          "return dataclasses.asdict(out)  # plain dict", [])
    assert "dataclasses.fields(out)" in fix and "instead of copy.deepcopy" not in fix, fix
    mine = graph_break_fix(gb, "Dynamo does not support copy.deepcopy() on tensors.", "",
                           "snapshot = copy.deepcopy(state)", [])
    assert "instead of copy.deepcopy" in mine, mine


def test_a_torch_context_manager_entered_through_an_exit_stack_names_the_exit_stack():
    """probes40a exitstack_frozen_backbone (pytorch#109309), blind: `stack.enter_context(
    torch.no_grad())` inside a compiled forward broke on `set_grad_enabled.__enter__`, and the
    fix said to keep that call outside the compiled function, where a plain `with
    torch.no_grad():` inside it gives no break. The ExitStack is what Dynamo does not trace."""
    from compdiag.analyses.fixes import graph_break_fix

    gb = "Attempted to call function marked as skipped"
    expl = ("Dynamo developers have intentionally marked that the function "
            "`set_grad_enabled.__enter__` in file `/x/torch/autograd/grad_mode.py` should not "
            "be traced.")
    ctx = ("module: torch.autograd.grad_mode, qualname: set_grad_enabled.__enter__, skip "
           "reason: file matches MOD_SKIPLIST (/x/torch/autograd)")
    fix = graph_break_fix(gb, expl, ctx, "stack.enter_context(torch.no_grad())", [])
    assert "`torch.no_grad()` is entered through contextlib.ExitStack" in fix, fix
    assert "keep the call outside" not in fix
    plain = graph_break_fix(gb, expl, ctx, "torch.set_grad_enabled(False).__enter__()", [])
    assert "ExitStack" not in plain, plain


def test_an_import_that_fails_inside_compiled_code_is_probed_once_at_module_level():
    """probes40a rmsnorm_optional_fused_import (sgl-project/sglang#39054), blind: an optional
    extension probed with try/import inside the forward; the fix was torch's hint, "your code
    may result in an error when running in eager", where eager runs fine."""
    from compdiag.analyses.fixes import graph_break_fix

    hint = ("Your code may result in an error when running in eager. Please double check that "
            "your code doesn't contain a similar error when actually running eager/uncompiled.")
    fix = graph_break_fix("Import failure", "Failure when attempting to import.",
                          "module_name: fused_ext, fromlist: None, level=0",
                          "import fused_ext  # optional", [hint])
    assert "module level" in fix and "double check" not in fix, fix


def test_a_point_to_point_op_is_not_called_a_collective_dynamo_rewrites():
    """probes40d pp_stage_send_recv, blind: a pipeline stage's `dist.send` inside a compiled
    function; the fix called it "c10d's in-place collective" and said Dynamo rewrites only
    three collectives, where send/recv trace only behind TORCHDYNAMO_ENABLE_P2P_COMPILATION."""
    from compdiag.analyses.library_fixes import c10d_fix

    fix = c10d_fix({"name": "send", "filename": "/x/torch/distributed/distributed_c10d.py"})
    assert "point-to-point" in fix and "TORCHDYNAMO_ENABLE_P2P_COMPILATION" in fix, fix
    assert "collective" not in c10d_fix({"name": "recv"}).split("(experimental)")[0]
    assert "functional_collectives.all_reduce" in c10d_fix({"name": "all_reduce"})
