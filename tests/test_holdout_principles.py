"""Principles the held-out repros (benchmarks/explain_holdout) found missing, each tested on
trace-shaped records fed through the Ingestor, never on a holdout script's names or lines."""

from __future__ import annotations

from test_explain import Store, _ids

from compdiag.ingest import parsers as P

# What Inductor's C++ wrapper calls, and how the kernel's bounds check ends a run (the real
# shapes from torch 2.13's CPU backend: an index an op's eager kernel rejects).
KERNEL_SOURCE = (
    "#include <torch/csrc/inductor/cpp_prefix.h>\n"
    'extern "C"  void  kernel(const int64_t* in_ptr0, const float* in_ptr1, float* out_ptr0)\n'
    "{\n"
    "    for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(3L); x0+=1L)\n"
    "    {\n"
    "        auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];\n"
    '        TORCH_CHECK((0 <= tmp0) & (tmp0 < 5L), "index out of bounds: 0 <= tmp0 < 5L");\n'
    "        out_ptr0[x0] = in_ptr1[tmp0];\n"
    "    }\n"
    "}\n")


def embedding_graph(user: object) -> str:
    """The post-grad graph of compile 0/0: one embedding node, traced from USER's line 11."""
    return ("def forward(self, arg0_1, arg1_1):\n"
            f"    # File: {user}:11 in f, code: line_11 = 11\n"
            '    embedding: "f32[3, 2]" = torch.ops.aten.embedding.default(arg1_1, arg0_1)\n'
            "    return (embedding,)\n")


def _output_code(kernel: str) -> str:
    return ("from torch._inductor.async_compile import AsyncCompile\n"
            "async_compile = AsyncCompile()\n\n\n"
            f"{kernel} = async_compile.cpp_pybinding(['const int64_t*', 'const float*', "
            f"'float*'], r'''\n{KERNEL_SOURCE}''')\n\n\n"
            "async_compile.wait(globals())\ndel async_compile\n\n"
            "class Runner:\n"
            "    def call(self, args):\n"
            "        arg0_1, arg1_1 = args\n"
            "        buf0 = empty_strided_cpu((3, 2), (2, 1), torch.float32)\n"
            f"        {kernel}(arg0_1, arg1_1, buf0)\n"
            "        return (buf0, )\n")


def _wrapper_traceback(user: str, wrapper: str, line: int, code: str, error: str) -> str:
    """A traceback from the user's compiled call into Inductor's wrapper, ending at `code` on
    line `line` of the wrapper module with `error`."""
    return ("Traceback (most recent call last):\n"
            f'  File "{user}", line 30, in <module>\n    out = compiled(idx, w)\n'
            f'  File "{user}", line 3, in f\n    def f(i, w):\n'
            '  File "/site/torch/_inductor/output_code.py", line 763, in __call__\n'
            "    return self.current_callable(inputs)\n"
            f'  File "{wrapper}", line {line}, in call\n    {code}\n'
            f"{error}\n")


def _runtime_traceback(user: str, wrapper: str, kernel: str) -> str:
    return _wrapper_traceback(user, wrapper, 86, f"{kernel}(arg0_1, arg1_1, buf0)",
                              "RuntimeError: kernel, /tmp/cache/pj/cpj.main.cpp:7, index out "
                              "of bounds: 0 <= tmp0 < 5L")


def _compiled_embedding(tmp_path) -> tuple[Store, str]:
    """A store whose compile 0/0 (def at line 3) has embedding_graph's post-grad graph and
    _output_code's wrapper (kernel cpp_fused_embedding_0), and that wrapper's file."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    s.post_grad("0/0", embedding_graph(s.user))
    wrapper = str(tmp_path / "cq6.py")
    s.ing.record({"frame_id": 0, "frame_compile_id": 0,
                  "inductor_output_code": {"filename": wrapper}},
                 _output_code("cpp_fused_embedding_0"))
    return s, wrapper


def test_the_running_kernel_is_named_by_the_wrapper_line_that_called_it():
    """A kernel's own check (Inductor's bounds check) names only its hashed .cpp file; the
    traceback's innermost call of a known kernel in the wrapper names the kernel. Fails on
    the code before this change (kernel_of_error returned None: no line of the kernel's
    source is quoted, and no `async_compile` load line is on the stack)."""
    kernels = [("cpp_fused_sin_0", "auto tmp0 = std::sin(in_ptr0[x0]);"),
               ("cpp_fused_embedding_1", KERNEL_SOURCE)]
    tb = _runtime_traceback("/u/prog.py", "/tmp/cache/q6/cq6.py", "cpp_fused_embedding_1")
    assert P.kernel_of_error(tb, kernels) == "cpp_fused_embedding_1"
    # A call the traceback passes through that is no kernel of this compile names nothing.
    assert P.kernel_of_error(tb, kernels[:1]) is None
    triton = tb.replace("cpp_fused_embedding_1(arg0_1", "triton_poi_fused_1.run(arg0_1")
    assert P.kernel_of_error(triton, [("triton_poi_fused_1", "tl.device_assert(x)")]) == \
        "triton_poi_fused_1"


def test_a_kernels_runtime_error_points_at_the_op_line_not_the_def(tmp_path):
    """issue 29 §1, evidence 2: a failure raised while a generated kernel ran is at the user
    line of the ops that kernel computes (its post-grad nodes' stack traces), not at the
    compiled function's `def` the Python traceback shows. Before this change the failure
    kept the `def` line (3)."""
    s, wrapper = _compiled_embedding(tmp_path)
    tb = _runtime_traceback(str(s.user), wrapper, "cpp_fused_embedding_0")
    s.failure("0/0", stage="runtime", exc_type="RuntimeError",
              message="kernel, /tmp/cache/pj/cpj.main.cpp:7, index out of bounds: "
                      "0 <= tmp0 < 5L", filename=str(s.user), lineno=3, traceback=tb)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 11
    assert "cpp_fused_embedding_0" in d["reason"]


def _drawing_store(tmp_path) -> Store:
    """A store whose compile 0/0's forward draws Inductor's own random numbers at line 11."""
    s = Store(tmp_path)
    s.compile("0/0", lineno=3)
    s.post_grad("0/0", "def forward(self, arg0_1):\n"
                       f"    # File: {s.user}:11 in f, code: line_11 = 11\n"
                       '    inductor_random_default: "f32[16, 32]" = torch.ops.prims.'
                       "inductor_random.default([16, 32], seed, 'rand')\n"
                       "    return (inductor_random_default,)\n")
    return s


def _allocation_traceback(user: str, wrapper: str, message: str) -> str:
    """A traceback that ends at _output_code's allocation of buf0 (its line, as Python
    numbers the wrapper module's lines)."""
    code = "buf0 = empty_strided_cpu((3, 2), (2, 1), torch.float32)"
    line = _output_code("k").splitlines().index(f"        {code}") + 1
    return _wrapper_traceback(user, wrapper, line, code, f"RuntimeError: {message}")


def test_an_allocation_that_fails_in_the_wrapper_is_at_the_ops_of_its_buffer(tmp_path):
    """issue 29 §1, evidence 2 (the node a buffer came from): an out-of-memory error raised at
    the generated wrapper's allocation of a kernel's output buffer (`buf0 =
    empty_strided_cpu(...)`, no kernel on the stack) is at the user line of the ops of the
    kernel that writes that buffer, and says which kernel. Before this change it was at the
    compiled call: the wrapper line called no kernel. Found by a probe (a size-driven
    `new_zeros` in compiled code, DefaultCPUAllocator's "can't allocate memory")."""
    s, wrapper = _compiled_embedding(tmp_path)
    oom = ("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
           "memory: you tried to allocate 4000000000000000 bytes.")
    s.failure("0/0", stage="runtime", exc_type="RuntimeError", message=oom,
              filename=str(s.user), lineno=3,
              traceback=_allocation_traceback(str(s.user), wrapper, oom))
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 11
    assert "cpp_fused_embedding_0" in d["reason"]
    assert "allocate" in d["fix"]


def test_an_asynchronous_device_error_at_an_allocation_names_no_buffer(tmp_path):
    """The same line in an asynchronous CUDA error's traceback says only where it surfaced
    (an earlier kernel failed): no buffer, no kernel of that line is blamed."""
    s, wrapper = _compiled_embedding(tmp_path)
    msg = "CUDA error: device-side assert triggered"
    s.failure("0/0", stage="runtime", exc_type="RuntimeError", message=msg,
              filename=str(s.user), lineno=3,
              traceback=_allocation_traceback(str(s.user), wrapper, msg))
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert "cpp_fused_embedding_0" not in d["reason"]


def test_an_allocation_line_maps_to_the_first_kernel_that_takes_its_buffer():
    """parse_inductor.wrapper_kernel_calls: each buffer's allocation line maps to the first
    kernel call whose arguments name it (with `alloc`), whatever the kernel's backend; a
    later use of the buffer does not move it."""
    code = ("    def call(self, args):\n"
            "        buf0 = empty_strided_cuda((3, ), (1, ), torch.float32)\n"
            "        buf1 = empty_strided_cuda((3, ), (1, ), torch.float32)\n"
            "        triton_poi_fused_a_0.run(arg0_1, buf1, 3, stream=stream0)\n"
            "        extern_kernels.mm(buf1, arg1_1, out=buf0)\n")
    kernels = [{"name": "triton_poi_fused_a_0", "backend": "triton",
                "user_lines": ["/u/prog.py:7  a = x.exp()"]},
               {"name": "extern_kernels.mm", "backend": "extern",
                "user_lines": ["/u/prog.py:8  b = a @ w"]}]
    calls = P.wrapper_kernel_calls(code, kernels, "0/0")
    assert calls[3]["alloc"] == "buf1" and calls[3]["kernel"] == "triton_poi_fused_a_0"
    assert [f["lineno"] for f in calls[3]["kernel_frames"]] == [7]
    assert calls[2]["alloc"] == "buf0" and calls[2]["kernel"] == "extern_kernels.mm"
    assert calls[4]["kernel_frames"] == []  # the launch itself: a Triton kernel's, no op line
    assert "alloc" not in calls[5]


def test_a_kernels_source_nodes_named_as_dynamos_nodes_get_their_lines(tmp_path):
    """torch 2.11's CUDA output code names a Triton kernel's 'Source Nodes' by the Dynamo
    graph's node names (`sim`, not the post-grad `mm`), and a cache miss logs no post-grad
    graph before the output code: every kernel had no user line, so an out-of-memory error
    at its buffer's allocation fell back to the compiled call. The Dynamo graph's nodes name
    them. Found on the H200 (a probe: a pairwise-similarity matrix too big for the GPU)."""
    from test_backend_nodes import _dynamo_graph

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}}, _dynamo_graph(str(s.user)))
    wrapper = str(tmp_path / "cab.py")
    code = ("# kernel path: /cache/ab/cab.py\n"
            "# Topologically Sorted Source Nodes: [sum_1], Original ATen: [aten.sum]\n"
            "triton_poi_fused_sum_0 = async_compile.triton('triton_poi_fused_sum_0', \'\'\'\n"
            "@triton.jit\ndef triton_poi_fused_sum_0(in_ptr0, out_ptr0):\n    pass\n"
            "\'\'\', device_str='cuda')\n\n\n"
            "class Runner:\n"
            "    def call(self, args):\n"
            "        arg0_1, = args\n"
            "        buf0 = empty_strided_cuda((3, 2), (2, 1), torch.float32)\n"
            "        triton_poi_fused_sum_0.run(arg0_1, buf0, 6, stream=stream0)\n"
            "        return (buf0, )\n")
    s.ing.record({"frame_id": 0, "frame_compile_id": 0,
                  "inductor_output_code": {"filename": wrapper}}, code)
    line = code.splitlines().index("        buf0 = empty_strided_cuda((3, 2), (2, 1), "
                                   "torch.float32)") + 1
    oom = "CUDA out of memory. Tried to allocate 180.30 GiB."
    tb = ("Traceback (most recent call last):\n"
          f'  File "{s.user}", line 30, in <module>\n    out = compiled(x)\n'
          f'  File "{wrapper}", line {line}, in call\n'
          "    buf0 = empty_strided_cuda((3, 2), (2, 1), torch.float32)\n"
          f"torch.OutOfMemoryError: {oom}\n")
    s.failure("0/0", stage="runtime", exc_type="OutOfMemoryError", message=oom,
              filename=str(s.user), lineno=3, traceback=tb)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 6, d["user_frame"]
    assert "triton_poi_fused_sum_0" in d["reason"]


def test_an_ill_conditioned_verdict_on_inductors_own_random_numbers_is_not_a_problem(tmp_path):
    """probes30b langevin_anneal_ok: a Langevin step adds its own `randn_like` noise; the
    float64 replay draws other numbers too, so eager and compiled were both "far from the
    float64 reference" and the check called it ill-conditioned, a problem on a correct
    program. A difference the graph's own random draw can explain is not comparable, whatever
    verdict the measurement reached."""
    s = _drawing_store(tmp_path)
    s.accuracy("0/0", [("output 0", True, 0.37, 311.9, {
        "verdict": "ill_conditioned", "amplification": 7.5e5, "dtype": "torch.float32",
        "fp64": {"eager_rel": 0.09, "compiled_rel": 0.09}})])
    (d,) = [x for x in s.explain() if x["kind"] == "accuracy"]
    assert d["severity"] == "info" and d["reason"].startswith("not comparable"), d


def test_a_gradient_through_inductors_own_random_numbers_is_not_a_mismatch(tmp_path):
    """issue 29 §4 without false alarms: a training step with dropout compiles its forward with
    Inductor's own random draws (prims.inductor_random), so the compiled gradients never equal
    eager's, seed or no seed. `--check-accuracy` measured that as "compiled grad differs ...
    the difference is the compiler's" (a problem, first in the list) and `compdiag check`
    failed the gate. Now it is information (not comparable, with fallback_random as the way to
    compare), the gate passes with the graph skipped in JUnit. The random node is the
    forward's: the compile's last post-grad graph (its backward) has none. Found by a probe
    (SDPA with dropout_p and nn.Dropout in train mode)."""
    from compdiag.analyses.accuracy import junit_xml, report
    from compdiag.store.reader import Reader

    s = _drawing_store(tmp_path)
    s.post_grad("0/0", "def forward(self, tangents_1):\n"
                       f"    # File: {s.user}:12 in f, code: line_12 = 12\n"
                       '    mul: "f32[16, 32]" = torch.ops.aten.mul.Tensor(tangents_1, 2)\n'
                       "    return (mul,)\n")
    s.accuracy("0/0", [("grad of w", False, 3.0, 0.41, {"backward": True,
                                                        "reason": "beyond tolerance"})])
    (d,) = [x for x in s.explain() if x["kind"] == "accuracy"]
    assert d["severity"] == "info", d
    assert d["reason"].startswith("not comparable with eager"), d["reason"]
    assert d["user_frame"]["lineno"] == 11
    assert "fallback_random" in d["fix"]
    with Reader(s.path) as r:
        rep = report(r, 1)
        assert rep.verdict == 0
        xml = junit_xml(rep, "x")
    assert "<skipped" in xml and 'failures="0"' in xml


def test_a_device_assert_shared_by_two_kernels_names_the_one_at_its_line():
    """Two Triton kernels hold the same bounds message ("index out of bounds: 0 <= tmp4 <
    500": a gather and a scatter of one index); Triton's assert names the function "unknown"
    but gives the kernel's file and line, where only one kernel has its device_assert (the
    stored source lacks the file's first, empty line). Before this change neither was named,
    and the run's end fell back to where CUDA reported the error. Found by set15's CUDA case
    gnn_index_add_assert (a scatter's out-of-range index, reported at a synchronize)."""
    def kernel(at: int) -> str:
        body = ["import triton"] + [f"    x{i} = {i}" for i in range(1, at - 2)]
        body.append('    tl.device_assert((0 <= tmp4) & (tmp4 < 500), '
                    '"index out of bounds: 0 <= tmp4 < 500")')
        return "\n".join(body + ["    tl.store(out_ptr0, tmp4)"])

    kernels = [("triton_poi_fused_index_0", kernel(34)),
               ("triton_poi_fused_index_add_2", kernel(35))]
    tail = ("/cache/yv/cyv.py:35: unknown: block: [51,0,0], thread: [61,0,0] Assertion "
            "`index out of bounds: 0 <= tmp4 < 500` failed.\n")
    from compdiag.ingest.parse_failures import kernel_of_check

    assert kernel_of_check(tail, kernels) == "triton_poi_fused_index_add_2"
    assert kernel_of_check(tail.replace(":35:", ":34:"), kernels) == \
        "triton_poi_fused_index_0"


def test_an_error_raised_by_cuda_graphs_replay_says_so_with_its_fix(tmp_path):
    """A runtime error raised inside torch's own runtime names it in the headline (where in
    torch it came from: CUDA graphs' cudagraph_trees, AOTAutograd's runtime wrapper), and a
    size mismatch while replay copies the inputs into a graph recorded for other sizes says
    what it means. Before, the headline was only "The size of tensor a (16) must match the
    size of tensor b (32)". Found by set15's CUDA case cg_backend_dynamic_batch
    (backend="cudagraphs" with a batch of a new size, pytorch#131009)."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    msg = "The size of tensor a (16) must match the size of tensor b (32) at non-singleton dimension 0"
    trees = "/site/torch/_inductor/cudagraph_trees.py"
    tb = ("Traceback (most recent call last):\n"
          f'  File "{s.user}", line 40, in <module>\n    out = compiled(x)\n'
          f'  File "{trees}", line 1148, in run\n'
          "    self._copy_inputs_and_remove_from_src(self.reconstructed_inputs, new_inputs)\n"
          f'  File "{trees}", line 1111, in _copy_inputs_and_remove_from_src\n'
          "    torch._foreach_copy_(dst_tensors, src_tensors)\n"
          f"RuntimeError: {msg}\n")
    s.failure("0/0", stage="runtime", exc_type="RuntimeError", message=msg,
              filename=str(s.user), lineno=3, traceback=tb)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert "raised by CUDA graphs' runtime (cudagraph_trees), in " \
           "_copy_inputs_and_remove_from_src" in d["reason"], d["reason"]
    assert "recorded for other input sizes" in d["explanation"]
    assert "reduce-overhead" in d["fix"]
    assert d["user_frame"]["lineno"] == 40


def test_a_difference_first_seen_before_the_random_draw_stays_a_mismatch(tmp_path):
    """The random draw excuses only what can come from it: a first divergent node on an
    earlier line of the same file (it computes without the random numbers) is a real
    difference, a problem as before. Found by review (`return F.dropout(x), buggy(y)`)."""
    s = _drawing_store(tmp_path)
    node = {"node": "mul", "op": "mul",
            "user_frame": {"filename": str(s.user), "lineno": 5, "line": "line_5 = 5"}}
    s.accuracy("0/0", [("output 1", False, 3.0, 0.41, {"reason": "beyond tolerance"})],
               node=node)
    (d,) = [x for x in s.explain() if x["kind"] == "accuracy"]
    assert d["severity"] == "problem" and not d["reason"].startswith("not comparable")


def test_ill_conditioned_needs_both_sides_far_from_float64():
    """issue 29 §4: a gradient where compiled equals the float64 reference and eager (rounding
    in bfloat16 at a clamp's boundary) is 0.5 off a zero reference is compiled being more
    accurate, not ill-conditioning. Before this change the verdict was `ill_conditioned` with
    "both far from the float64 reference (relative RMSE eager 5e+299, compiled 0)"."""
    import torch

    from compdiag.capture.accuracy_compare import numeric_verdict

    errs = {"eager_rmse": 0.5, "compiled_rmse": 0.0, "scale": 1e-300, "eager_rel": 5e299,
            "compiled_rel": 0.0}
    assert numeric_verdict(False, False, errs, 1e-2, torch.bfloat16)["verdict"] == \
        "compiled_more_accurate"
    both = {"eager_rmse": 0.5, "compiled_rmse": 0.9, "scale": 1.0, "eager_rel": 0.5,
            "compiled_rel": 0.9}
    assert numeric_verdict(False, False, both, 1e-2, torch.float32)["verdict"] == \
        "ill_conditioned"


def test_compiled_more_accurate_is_worded_as_eagers_rounding(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.post_grad("0/0", "def forward(self, x):\n"
                       f"    # File: {s.user}:14 in f, code: line_14 = 14\n"
                       '    relu: "bf16[2]" = torch.ops.aten.relu.default(x)\n'
                       "    return (relu,)\n")
    detail = {"verdict": "compiled_more_accurate", "dtype": "torch.bfloat16", "backward": True,
              "fp64": {"eager_rel": 5e299, "compiled_rel": 0.0}}
    # same() passes (compiled is the closer to float64), yet eager and compiled differ by 0.5:
    # reported, not "no problems found" (before this change: no diagnosis at all).
    s.accuracy("0/0", [("grad of x", True, 0.5, 1.0, detail)],
               node={"node": "relu", "op": "relu", "backward": True})
    (d,) = [x for x in s.explain() if x["kind"] == "accuracy"]
    assert "closer to the float64 reference than eager" in d["reason"]
    assert "differs from eager: max abs" not in d["reason"]
    assert "emulate_precision_casts" in d["fix"]


def test_a_recompile_limit_failure_is_known_by_its_type_and_folds_under_its_guard(tmp_path):
    """issue 29 §2: FailOnRecompileLimitHit ends a fullgraph=True run whose message on torch
    2.13 names no limit ("Hard failure due to fullgraph=True"); it is the consequence of the
    guard that kept failing, so the recompile ranks first at the call and the failure is not
    reported on its own. Before this change the failure ranked first, at the `def` line."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=9)
    for i in range(1, 9):
        s.compile(f"0/{i}", lineno=9,
                  recompile_reason=f"0/{i - 1}: tensor 'X' size mismatch at index 1. expected "
                                   f"{8 * i}, actual {8 * i + 8}. Guard failed on a parameter, "
                                   "consider using torch._dynamo.config."
                                   "force_parameter_static_shapes = False to allow dynamism "
                                   "on parameters.")
    s.failure("0/8", stage="dynamo", exc_type="FailOnRecompileLimitHit",
              message="Hard failure due to fullgraph=True")
    diags = s.explain()
    assert diags[0]["kind"] == "recompile" and diags[0]["details"]["limit_hit"] is True
    assert "parameter" in diags[0]["reason"]
    assert not [d for d in diags if d["kind"] == "failure"]


def test_a_rerecording_is_at_the_call_that_brought_the_sizes_not_the_def(tmp_path):
    """issue 29 §6: a reduce-overhead function called with a new batch size every step records
    a CUDA graph per size; the diagnosis is at the user's call (capture's call stack of the
    call that started the compile), not at the compiled function's `def`. Before this change
    it was at the def (line 3)."""
    import json

    s = Store(tmp_path)
    s.compile("0/0", lineno=3)
    s.ing.event("call_stack", "0/0", {}, payload=json.dumps({
        "frames": [{"filename": str(s.user), "lineno": 14, "name": "<module>"}],
        "objects": {}}))
    for gid, n in enumerate((2, 3, 4)):
        msg = (f"[0/0] Recording function=partition_0, cuda_graph_id={gid}, inputs: [0]: "
               f"Tensor(size=[{n}, 32], stride=(32, 1), dtype=torch.float32, "
               f"data_ptr=0x7FB64FE00000), [1]: int({n})")
        s.ing.cudagraph_line("0/0", msg)
        s.ing.event("cudagraphs", "0/0", {}, msg)
    (d,) = [x for x in s.explain() if x["kind"] == "cudagraph"]
    assert "re-recorded" in d["reason"] and d["user_frame"]["lineno"] == 14


def test_the_tf32_warning_is_at_the_float32_matmul_it_is_about(tmp_path):
    """issue 29 §1: torch's TF32 warning concerns float32 matmuls; the diagnosis points at the
    matmul's line (its post-grad node's stack trace), not the compiled function's `def`.
    Before this change it was at the def (line 3)."""
    s = Store(tmp_path)
    s.compile("0/0", lineno=3)
    s.post_grad("0/0", "def forward(self, arg0_1, arg1_1):\n"
                       f"    # File: {s.user}:5 in f, code: line_5 = 5\n"
                       '    sin: "bf16[64, 64]" = torch.ops.aten.sin.default(arg0_1)\n'
                       f"    # File: {s.user}:8 in f, code: line_8 = 8\n"
                       '    mm: "f32[64, 64]" = torch.ops.aten.mm.default(arg0_1, arg1_1)\n'
                       "    return (mm, sin)\n")
    s.ing.event("warning", "0/0", {"category": "UserWarning"},
                "TensorFloat32 tensor cores for float32 matrix multiplication available but "
                "not enabled. Consider setting `torch.set_float32_matmul_precision('high')` "
                "for better performance.")
    (d,) = [x for x in s.explain() if x["kind"] == "perf"]
    assert "TF32" in d["reason"] and d["user_frame"]["lineno"] == 8


def _resumed_recompiles(s: Store) -> None:
    """f breaks at line 11 (`int()` of a tensor); the resume function torch made there starts
    at line 11 and breaks at line 12 too; it is passed line 11's int as ___stack0 and
    recompiles when it changes, re-tracing line 12's break (torch 2.13's records, as
    capture feeds them)."""
    resume = "torch_dynamo_resume_in_f_at_11"
    s.compile("0/0", co_name="f", lineno=10)
    s.graph_break("0/0", 11, gb_type="Unsupported Tensor.item() call with "
                  "capture_scalar_outputs=False", code="GB0124")
    s.compile("1/0", co_name=resume, lineno=11)
    s.graph_break("1/0", 12, gb_type="Unsupported Tensor.item() call with "
                  "capture_scalar_outputs=False", code="GB0124")
    s.compile("1/1", co_name=resume, lineno=11, recompile_reason=(
        f"1/0: ___stack0 == 10977    # h = line_12  # {s.user}:12 in {resume}"))
    s.graph_break("1/1", 12, gb_type="Unsupported Tensor.item() call with "
                  "capture_scalar_outputs=False", code="GB0124")


def test_a_recompile_on_a_value_passed_across_a_break_ranks_under_that_break(tmp_path):
    """issue 29 §2 (held out: pytorch/pytorch#93457's `int()` of box coordinates): the resume
    function's recompile on `___stack0` is the consequence of the break that made the resume
    function, and the later break it re-traced is not hit again on its own account. Before
    this change the later break (line 12) counted its re-trace and ranked first, and the
    recompile stood alone, worded as the bytecode slot `___stack0`."""
    s = Store(tmp_path)
    _resumed_recompiles(s)
    diags = s.explain()
    assert [(d["kind"], d["user_frame"]["lineno"]) for d in diags] == [
        ("graph_break", 11), ("graph_break", 12)]
    (folded,) = diags[0]["consequences"]
    assert folded["kind"] == "recompile"
    assert "computed at line 11 before its graph break" in folded["reason"]
    assert diags[1]["count"] == 1 and diags[1]["compile_ids"] == ["1/0", "1/1"]


def test_a_recompile_on_the_size_of_a_value_passed_across_a_break_ranks_under_it(tmp_path):
    """benchmarks/probes23/masked_token_loss.py: `per_tok[valid]` breaks (nonzero) and the
    resume function recompiles when the selected count changes: torch's guard is on the size
    of the value passed across the break (`tensor '___stack0' size mismatch`, source
    `L['___stack0'].size()[0]`). On main only a bare `___stack0` counted as such a value, so
    that recompile was listed apart, in torch's spelling."""
    s = Store(tmp_path)
    resume = "torch_dynamo_resume_in_f_at_11"
    s.compile("0/0", co_name="f", lineno=10)
    s.graph_break("0/0", 11)
    s.compile("1/0", co_name=resume, lineno=11)
    s.compile("1/1", co_name=resume, lineno=11, recompile_reason=(
        "1/0: tensor '___stack0' size mismatch at index 0. expected 48, actual 65"))
    diags = s.explain()
    assert [(d["kind"], d["user_frame"]["lineno"]) for d in diags] == [("graph_break", 11)]
    (folded,) = diags[0]["consequences"]
    assert folded["kind"] == "recompile" and "___stack0" in folded["reason"], folded


def test_a_resume_functions_recompile_on_its_own_input_is_no_breaks_consequence(tmp_path):
    """The relation needs a value passed across the break: a resume function recompiling on
    an input of the function (L['x']) stays a recompile of its own, and re-traced breaks
    count."""
    s = Store(tmp_path)
    resume = "torch_dynamo_resume_in_f_at_11"
    s.compile("0/0", co_name="f", lineno=10)
    s.graph_break("0/0", 11)
    s.compile("1/0", co_name=resume, lineno=11)
    s.graph_break("1/0", 12)
    s.compile("1/1", co_name=resume, lineno=11, recompile_reason=(
        f"1/0: L['n'] == 3    # h = line_12  # {s.user}:12 in {resume}"))
    s.graph_break("1/1", 12)
    diags = s.explain()
    assert [(d["kind"], d["user_frame"]["lineno"], d["count"]) for d in diags] == [
        ("graph_break", 12, 2), ("graph_break", 11, 1), ("recompile", 12, 1)]
    assert not any(d.get("consequences") for d in diags)


def test_a_runtime_assertion_points_at_the_check_its_graph_node_came_from(tmp_path):
    """issue 29 §1, evidence 2 (corpus/fail_runtime_assert_check.py, pytorch/pytorch#151127):
    a deferred `torch._check` becomes `aten._assert_scalar(le, "Runtime assertion failed for
    expression u0 <= 5 on node 'le'")` in the traced graph, and at run time the message is
    all the failure says (no compile id, no post-grad graph under aot_eager). The traced
    graph's '# File:' comment of that node is the user's check. Before this change the
    failure fell back to the decorator line the traceback shows (3)."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    msg = "Runtime assertion failed for expression u0 <= 5 on node 'le'"
    s.ing.record({"frame_id": 0, "frame_compile_id": 0, "aot_inference_graph": {}}, (
        "class <lambda>(torch.nn.Module):\n"
        "    def forward(self, arg0_1: \"i64[1][1]cpu\", arg1_1: \"f32[4][1]cpu\"):\n"
        f"        # File: {s.user}:13 in f, code: k = n.item()\n"
        "        _local_scalar_dense: \"Sym(u0)\" = torch.ops.aten._local_scalar_dense.default("
        "arg0_1);  arg0_1 = None\n\n"
        f"        # File: {s.user}:14 in f, code: torch._check(k <= 5)\n"
        "        le: \"Sym(u0 <= 5)\" = _local_scalar_dense <= 5\n"
        f"        _assert_scalar = torch.ops.aten._assert_scalar.default(le, \"{msg}\");  "
        "le = _assert_scalar = None\n"))
    s.failure(None, stage="runtime", exc_type="RuntimeError", message=msg,
              filename=str(s.user), lineno=3, torch_message=msg)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert (d["user_frame"]["lineno"], d["user_frame"]["line"]) == (14, "torch._check(k <= 5)")


def test_a_backward_that_fails_while_tracing_is_at_the_forward_line_anomaly_mode_names(
        tmp_path):
    """issue 29 §1, evidence 1 (set8's std_attr_index_put class): AOTAutograd traces the
    joint graph under anomaly mode, so before a backward fails torch warns "Error detected in
    StdBackward0. Traceback of forward call that caused the error:" with the forward op's
    frames. The failure is at that op's line (18), not at the `.backward()` call the
    exception surfaced from (30). Before this change: line 30."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=16)
    user = str(s.user)
    s.ing.event("warning", "0/0", {"category": "UserWarning", "lineno": 979,
                                   "filename": "/site/torch/autograd/graph.py"},
                payload="Error detected in StdBackward0. Traceback of forward call that "
                        f'caused the error:\n  File "{user}", line 18, in forward\n'
                        "    line_18 = 18\n               ^^^^^^^\n (Triggered internally "
                        "at /pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)")
    s.failure("0/0", stage="aot", exc_type="BackendCompilerFailed",
              message="backend='aot_eager' raised:\nRuntimeError: one of the variables needed "
                      "for gradient computation has been modified by an inplace operation",
              filename=user, lineno=30)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 18
    assert d["user_frame"]["line"] == "line_18 = 18"


def test_an_anomaly_warning_names_nothing_for_another_compile(tmp_path):
    """The forward call anomaly mode named belongs to its compile's backward: a failure of
    another compile keeps its own line."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=16)
    s.compile("1/0", co_name="g", lineno=40)
    user = str(s.user)
    s.ing.event("warning", "0/0", {}, payload="Error detected in MulBackward0. Traceback of "
                f'forward call that caused the error:\n  File "{user}", line 18, in forward\n'
                "    line_18 = 18\n")
    s.failure("1/0", stage="aot", exc_type="RuntimeError", message="boom", filename=user,
              lineno=42)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 42


def test_an_integer_mismatch_says_what_was_measured_and_nothing_else(tmp_path):
    """set9's int8_min_reduction: an integer output has no relative error, and the headline
    read "compiled output output 0 differs from eager: max abs 1, max rel ? ..." (the output's
    name doubled, an unmeasured value printed as "?")."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.accuracy("0/0", [("output 0", False, 1, None, {"reason": "integer/bool values differ",
                                                      "dtype": "torch.uint8"})],
               node={"node": "min_1", "op": "min"})
    (d,) = [x for x in s.explain() if x["kind"] == "accuracy"]
    assert d["reason"].startswith("compiled output 0 differs from eager: max abs 1 (")
    assert "?" not in d["reason"] and "output output" not in d["reason"]


def test_an_error_in_aots_mutation_epilogue_is_at_the_in_place_write_on_an_input(tmp_path):
    """issue 29 §1, evidence 2 (probes44j dann_grad_reverse_data_noise, pytorch PR #194534):
    the compiled code wrote in place through `.data` to a tensor a custom autograd.Function
    returned as is; the error surfaced in AOTAutograd's generated mutation epilogue, after
    the graph ran. Before this change it pointed at the call of the compiled module (line 30)
    with "check aot_eager ... the bug is in Inductor"; the write (line 5) is the line to
    change, and torch's own words (clone the Function's output) are the fix."""
    s = Store(tmp_path, exit_code=1)
    user = str(s.user)
    s.compile("0/0", lineno=4)
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}},
                 "class GraphModule(torch.nn.Module):\n    def forward(self, L_feat_):\n"
                 "        l_feat_ = L_feat_\n"
                 f"        # File: {user}:5 in forward, code: line_5 = 5\n"
                 "        _get_data_attr = torch._C._autograd._get_data_attr(l_feat_)\n"
                 "        add_ = _get_data_attr.add_(1.0);  _get_data_attr = add_ = None\n"
                 f"        # File: {user}:6 in forward, code: line_6 = 6\n"
                 "        mul = l_feat_ * 2;  l_feat_ = None\n        return (mul,)\n")
    message = ("Output 0 of GradReverse is a view and is being modified inplace. This view "
               "was created inside a custom Function (or because an input was returned "
               "as-is) and the autograd logic to handle view+inplace would override the "
               "custom backward associated with the custom Function, leading to incorrect "
               "gradients. This behavior is forbidden. You can fix this by cloning the output "
               "of the custom Function.")
    site = "/site/torch/_functorch/_aot_autograd"
    traceback = (
        "Traceback (most recent call last):\n"
        f'  File "{user}", line 30, in <module>\n    line_30 = 30\n'
        '  File "/site/torch/_dynamo/eval_frame.py", line 1166, in compile_wrapper\n'
        "    result = fn(*args, **kwargs)\n"
        f'  File "{user}", line 4, in forward\n    line_4 = 4\n'
        '  File "/site/torch/_functorch/aot_autograd.py", line 1277, in forward\n'
        "    return compiled_fn(full_args)\n"
        f'  File "{site}/runtime_wrappers.py", line 1080, in <lambda>\n'
        "    lambda self, orig_inputs, updated_inputs: codegen_apply_mutations(\n"
        f'  File "{site}/subclass_codegen.py:codegen(mutation_epilogue)", line 2, in '
        f"_apply_mutations\nRuntimeError: {message}\n")
    s.failure(None, stage="runtime", exc_type="RuntimeError", message=message,
              filename=user, lineno=4, line="line_4 = 4", traceback=traceback)
    (d,) = [x for x in s.explain() if x["kind"] == "failure"]
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (5, "fx_node"), d
    assert "return x.clone()" in d["fix"] and "out of place" in d["fix"], d["fix"]
    assert "bug is in Inductor" not in d["fix"]
