"""Issue 29 §1 (set4's misses bare_subclass_mm, zerotensor_index_segv): a failure raised, or a
native crash, while compiled code RAN is at the line of the op inside the compiled function,
not at the call that ran it nor at the `def` Dynamo shows for the compiled frame. locate's
order: a user frame inside the compiled code, then the FX nodes that ran (the kernel the end
names, else the compile's nodes when they are one user line), then the call. Fast:
trace-shaped records through the Ingestor, no compile."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import torch.fx

from compdiag.capture import node_stacks
from test_explain import Store
from test_program_ends import EVAL_FRAME, OUTPUT_MODULE, _dump

LIB = "/usr/lib/python3.11/site-packages/torch"
AOT = f"{LIB}/_functorch/aot_autograd.py"


def _op_graph(user: object, line: int = 11) -> str:
    """A post-grad graph of compile 0/0: two nodes of one user line."""
    return ("def forward(self, arg0_1):\n"
            f"    # File: {user}:{line} in f, code: line_{line} = {line}\n"
            '    select: "f32[]" = torch.ops.aten.select.int(arg0_1, 0, -1)\n'
            '    add: "f32[]" = torch.ops.aten.add.Tensor(select, 10)\n'
            "    return (add,)\n")


def _store(tmp_path: Path, exit_code: int) -> Store:
    s = Store(tmp_path, exit_code=exit_code)
    s.user.write_text(s.user.read_text().replace("line_3 = 3\n", "def f(t):\n"))
    s.compile("0/0", lineno=3)
    return s


def test_a_segfault_in_compiled_code_points_at_the_op_that_ran(tmp_path: Path) -> None:
    """zerotensor_index_segv's class: SIGSEGV inside an Inductor module, no kernel named by
    the C++ runtime; the compiled function's ops are one user line (11): the diagnosis is
    there, evidence fx_node. On main it was the call (line 20), evidence call."""
    s = _store(tmp_path, 139)
    s.post_grad("0/0", _op_graph(s.user))
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=139, signal=11, stderr_tail="", fault=_dump([
        (user, 20, "<module>"), (EVAL_FRAME, 655, "_fn"), (user, 3, "f"),
        (OUTPUT_MODULE, 80, "call")]))
    top = s.explain()[0]
    assert top["kind"] == "program" and "SIGSEGV at line 11" in top["reason"], top["reason"]
    assert (top["user_frame"]["lineno"], top["user_frame"]["evidence"]) == (11, "fx_node")


def test_a_crash_of_several_op_lines_stays_at_the_call(tmp_path: Path) -> None:
    """Nothing stored says which of two op lines crashed: the call, never a guess."""
    s = _store(tmp_path, 139)
    s.post_grad("0/0", _op_graph(s.user) + _op_graph(s.user, 12).split("\n", 1)[1])
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=139, signal=11, stderr_tail="", fault=_dump([
        (user, 20, "<module>"), (EVAL_FRAME, 655, "_fn"), (user, 3, "f"),
        (OUTPUT_MODULE, 80, "call")]))
    top = s.explain()[0]
    assert (top["user_frame"]["lineno"], top["user_frame"]["evidence"]) == (20, "call")


def _two_kernels() -> str:
    """An output code module of two C++ kernels, one per user line (wrapper lines 22 and 23
    call them)."""
    def kernel(name: str) -> str:
        return (f"{name} = async_compile.cpp_pybinding(['float*'], r\'\'\'\n"
                'extern "C"  void  kernel(float* out_ptr0)\n{\n    out_ptr0[0] = 1;\n}\n'
                "\'\'\')\n\n\n")
    code = ("import torch\n\n\n" + kernel("cpp_fused_add_select_0")
            + kernel("cpp_fused_mul_sin_1")
            + "def call(args):\n    buf0 = empty(())\n    cpp_fused_add_select_0(buf0)\n"
              "    cpp_fused_mul_sin_1(buf0)\n    return (buf0, )\n")
    assert code.splitlines()[21:23] == ["    cpp_fused_add_select_0(buf0)",
                                        "    cpp_fused_mul_sin_1(buf0)"]
    return code


def test_a_crash_inside_a_kernel_is_at_the_line_of_that_kernels_ops(tmp_path: Path) -> None:
    """set8's jacfwd2_trace_segv class: SIGSEGV inside a generated C++ kernel, the compiled
    function's ops several user lines; faulthandler's innermost frame is the output code's
    wrapper line that called the kernel, and that kernel's ops are one line (12). The
    diagnosis is there, naming the kernel and the call. Before this change: the call (20)."""
    s = _store(tmp_path, 139)
    s.post_grad("0/0", _op_graph(s.user) + (
        f"    # File: {s.user}:12 in f, code: line_12 = 12\n"
        '    mul: "f32[]" = torch.ops.aten.mul.Tensor(add, 2)\n'
        '    sin: "f32[]" = torch.ops.aten.sin.default(mul)\n'))
    s.ing.record({"frame_id": 0, "frame_compile_id": 0,
                  "inductor_output_code": {"filename": OUTPUT_MODULE}}, _two_kernels())
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=139, signal=11, stderr_tail="", fault=_dump([
        (user, 20, "<module>"), (EVAL_FRAME, 655, "_fn"), (user, 3, "f"),
        (OUTPUT_MODULE, 23, "call")]))
    top = s.explain()[0]
    assert top["kind"] == "program" and "SIGSEGV at line 12" in top["reason"], top["reason"]
    assert "kernel cpp_fused_mul_sin_1, called at line 20" in top["reason"]
    assert (top["user_frame"]["lineno"], top["user_frame"]["evidence"]) == (12, "fx_node")


def test_an_exception_raised_by_compiled_code_is_at_its_op_line(tmp_path: Path) -> None:
    """bare_subclass_mm's class: the generated code's extern mm raises TypeError while the
    compiled function runs; torch's traceback passes the call (20), the compiled frame at its
    def (3) and the generated module. The failure is at the matmul's line (11), reached
    through a subclass's __torch_function__ (library code; capture's node stacks give the
    user line). On main: the call, line 20."""
    s = _store(tmp_path, 1)
    user = str(s.user)
    lib = f"{LIB}/_tensor.py"
    s.ing.event("node_stacks", "0/0", {}, payload=json.dumps([{"stack": (
        f'  File "{user}", line 11, in f\n    line_11 = 11\n'
        f'  File "{lib}", line 1530, in __torch_function__\n    ret = func(*args, **kwargs)\n'),
        "nodes": ["ret_1"]}]))
    s.post_grad("0/0", "def forward(self, arg0_1):\n"
                f"    # File: {lib}:1530 in __torch_function__, code: ret = func(*args)\n"
                '    mm: "f32[4, 4]" = torch.ops.aten.mm.default(arg0_1, arg0_1)\n'
                "    return (mm,)\n")
    frames = [{"filename": user, "lineno": 20, "name": "<module>", "line": "print(g(s))"},
              {"filename": EVAL_FRAME, "lineno": 1166, "name": "compile_wrapper", "line": None},
              {"filename": user, "lineno": 3, "name": "f", "line": "def f(t):"},
              {"filename": AOT, "lineno": 1277, "name": "forward", "line": None},
              {"filename": OUTPUT_MODULE, "lineno": 52, "name": "call",
               "line": "extern_kernels.mm(arg0_1, arg0_1, out=buf0)"}]
    tb = "Traceback (most recent call last):\n" + "".join(
        f'  File "{f["filename"]}", line {f["lineno"]}, in {f["name"]}\n'
        + (f'    {f["line"]}\n' if f["line"] else "") for f in frames) + "TypeError: boom\n"
    s.failure("0/0", stage="runtime", exc_type="TypeError", message="Multiple dispatch failed",
              filename=user, lineno=3, line="def f(t):", traceback=tb)
    s.ing.program_exception("0/0", exc_type="TypeError", message="Multiple dispatch failed",
                            frames=frames, compiled="an Inductor output module",
                            stage="runtime")
    top = s.explain()[0]
    assert top["kind"] == "failure" and top["stage"] == "runtime"
    assert (top["user_frame"]["lineno"], top["user_frame"]["evidence"]) == (11, "fx_node")


def test_capture_keeps_the_stacks_of_tensor_method_nodes() -> None:
    """`t @ t.t()` on a tensor subclass: Dynamo's graph has call_method nodes (l_t_.t(),
    l_t_.matmul(ret)) whose stacks end in torch/_tensor.py's __torch_function__. On main
    capture kept only call_function nodes' stacks, so the user line was lost."""
    user = "/home/me/proj/train.py"
    g = torch.fx.Graph()
    x = g.placeholder("x")
    t = g.call_method("t", (x,))
    g.output(t)
    t.meta["stack_trace"] = (f'  File "{user}", line 16, in fn\n    return t @ t.t()\n'
                             f'  File "{LIB}/_tensor.py", line 1530, in __torch_function__\n'
                             "    ret = func(*args, **kwargs)\n")
    events = []
    ing = SimpleNamespace(event=lambda *a, **k: events.append((a, k)))
    node_stacks._record(SimpleNamespace(ing=ing), torch.fx.GraphModule({}, g))
    ((args, kw),) = events
    (entry,) = json.loads(kw["payload"])
    assert entry["nodes"] == [t.name]
    assert entry["stack"].lstrip().startswith(f'File "{user}", line 16')
