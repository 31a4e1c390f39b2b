"""The pure parsers shared by live capture and import: examples in torch 2.13's real formats,
then hypothesis fuzzing (arbitrary input never raises; every well-formed record is kept)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compdiag.importer.trace_log import ImportResult, import_trace, iter_records
from compdiag.ingest import parsers as P
from compdiag.store.reader import Reader

CID = re.compile(r"^(!-?\d+/)?-?\d+/-?\d+(_-?\d+)?$")
FUZZ = settings(max_examples=200, deadline=None)

# -- real formats (torch 2.13, CPU) -----------------------------------------------------------
GRAPH_BREAK = '''Graph break in user code at tests/scripts/scenario.py:10
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['str']. Consider using an equivalent alternative function/method to `print`.
  Hint: Please report an issue to PyTorch.

  Developer debug context: builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html

User code traceback:
  File "<frozen runpy>", line 88, in _run_code
  File "tests/scripts/scenario.py", line 18, in <module>
    torch.compile(f)(torch.randn(8))
  File "tests/scripts/scenario.py", line 10, in f
    print("graph break here")

Traceback (most recent call last):
  File "/x/torch/_dynamo/symbolic_convert.py", line 1076, in wrapper
    return inner_fn(self, inst)
'''

OUTPUT_CODE = """
async_compile = AsyncCompile()


cpp_fused_add_sin_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0)
{
    out_ptr0[0] = std::sin(in_ptr0[0]) + 1;
}
''')


async_compile.wait(globals())
del async_compile

class Runner:
    def call(self, args):
        arg0_1, arg1_1 = args
        buf0 = empty_strided_cpu((8, ), (1, ), torch.float32)
        cpp_fused_add_sin_0(arg0_1, buf0)
        buf1 = empty_strided_cpu((8, 8), (8, 1), torch.float32)
        # Topologically Sorted Source Nodes: [mm], Original ATen: [aten.mm]
        extern_kernels.mm(buf0, arg1_1, out=buf1)
        return (buf1, )
"""

POST_GRAD = '''class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[8][1]cpu"):
        # File: tests/scripts/scenario.py:11 in torch_dynamo_resume_in_f_at_10, code: return torch.sin(y) + 1
        sin: "f32[8][1]cpu" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None
        add: "f32[8][1]cpu" = torch.ops.aten.add.Tensor(sin, 1);  sin = None
        return (add,)
'''

TRITON_CODE = """
# kernel path: /tmp/x.py
# Topologically Sorted Source Nodes: [cos, sin], Original ATen: [aten.cos, aten.sin]
# Source node to ATen node mapping:
triton_poi_fused_cos_sin_0 = async_compile.triton('triton_poi_fused_cos_sin_0', '''
import triton
@triton.jit
def triton_poi_fused_cos_sin_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    tmp1 = tl_math.cos(tmp0)
''', device_str='cuda')
"""


def test_parse_graph_break_real_payload() -> None:
    gb = P.parse_graph_break(GRAPH_BREAK)
    assert gb["gb_type"] == "Failed to trace builtin operator"
    assert gb["gb_code"] == "GB0059"
    assert gb["explanation"].startswith("Dynamo does not know how to trace builtin operator")
    assert gb["hints"][0].startswith("Avoid calling builtin `print`") and len(gb["hints"]) == 2
    # The innermost frame of the user code traceback, not the torch frames below it.
    assert (gb["filename"], gb["lineno"], gb["line"]) == \
        ("tests/scripts/scenario.py", 10, 'print("graph break here")')


def test_an_explanation_keeps_the_list_under_it() -> None:
    """GB0149 (probes30b flow_jacobian): torch's explanation is a line ending in "one of the
    following reasons:" and an indented list; only the first line was kept, and explain
    printed a sentence that stopped at its colon."""
    text = ("Unsupported functorch tracing attempt\n"
            "  Explanation: dynamo failed for one of the following reasons:\n"
            "    - Calling torch.func.grad(compiled_fn) from eager mode is not supported.\n"
            "    - torch.func.grad(fn) requires the function to be inlined by dynamo\n"
            "\n"
            "  Hint: wrap torch.func.grad in torch.compile\n"
            "  Developer debug context: \n")
    gb = P.parse_graph_break(text)
    assert gb["explanation"].endswith("requires the function to be inlined by dynamo")
    assert "from eager mode is not supported" in gb["explanation"]
    assert gb["hints"] == ["wrap torch.func.grad in torch.compile"]


def test_parse_graph_break_old_style_one_liner() -> None:
    gb = P.parse_graph_break("Graph Break Reason: call_function UserDefinedObjectVariable\n")
    assert gb["gb_type"] == "call_function UserDefinedObjectVariable"
    assert gb["gb_code"] is None and gb["hints"] == [] and gb["filename"] is None


def test_parse_output_code_cpp_and_extern() -> None:
    kernels = P.parse_output_code(OUTPUT_CODE, P.graph_node_lines(POST_GRAD))
    by_name = {k["name"]: k for k in kernels}
    assert set(by_name) == {"cpp_fused_add_sin_0", "extern_kernels.mm"}
    cpp = by_name["cpp_fused_add_sin_0"]
    assert cpp["backend"] == "cpp" and cpp["fused_ops"] == ["add", "sin"]
    assert cpp["source"].startswith("#include") and "kernel(" in cpp["source"]
    assert sorted(cpp["fx_nodes"]) == ["add", "sin"]
    assert cpp["user_lines"] == ["tests/scripts/scenario.py:11  return torch.sin(y) + 1"]
    mm = by_name["extern_kernels.mm"]
    assert mm["backend"] == "extern" and mm["fx_nodes"] == ["mm"]
    assert mm["fused_ops"] == ["aten.mm"]


def test_parse_output_code_triton_source_nodes() -> None:
    [k] = P.parse_output_code(TRITON_CODE)
    assert (k["name"], k["backend"]) == ("triton_poi_fused_cos_sin_0", "triton")
    assert k["fx_nodes"] == ["cos", "sin"] and k["fused_ops"] == ["cos", "sin"]
    assert "@triton.jit" in k["source"] and k["user_lines"] == []


def test_graph_node_lines() -> None:
    assert P.graph_node_lines(POST_GRAD) == {
        "sin": "tests/scripts/scenario.py:11  return torch.sin(y) + 1",
        "add": "tests/scripts/scenario.py:11  return torch.sin(y) + 1"}
    assert P.graph_node_lines(None) == {}


@pytest.mark.parametrize("reason, guard", [
    ("0/0: tensor 'x' size mismatch at index 0. expected 4, actual 6", "L['x'].size()[0]"),
    ("tensor 'L['self'].w' stride mismatch at index 1. expected 1, actual 2",
     "L['self'].w.stride()[1]"),
    ("0/3: L['n'] == 2", "L['n'] == 2"),
])
def test_guard_of(reason: str, guard: str) -> None:
    assert P.guard_of(reason) == guard


def test_parse_recompile_reasons() -> None:
    assert P.parse_recompile_reasons('["0/0: a", "b"]') == ["0/0: a", "b"]
    assert P.parse_recompile_reasons("one\n\ntwo") == ["one", "two"]
    assert P.parse_recompile_reasons('"x"') == ["x"]
    assert P.parse_recompile_reasons(None) == []


# torch 2.13's recompile_reasons payload for one failed guard (BERT for sequence
# classification: it sets config.problem_type on its first call), logged as raw text.
BERT_REASON = (
    "self.config.problem_type is None                         # if self.config.problem_type "
    "is None:  # transformers/models/bert/modeling_bert.py:1115 in forward\n"
    "User stack trace:\n"
    '  File "/venv/site-packages/transformers/utils/generic.py", line 1036, in wrapper\n'
    "    output = func(self, *args, **kwargs)\n"
    '  File "/venv/site-packages/transformers/models/bert/modeling_bert.py", line 1115, in '
    "forward\n"
    "    if self.config.problem_type is None:")


def test_a_recompile_reason_with_its_user_stack_is_one_reason() -> None:
    """Issue 32 (the zoo's BERT): the user stack torch 2.13 appends to a single reason's raw
    text was split into one 'reason' per line, 7 recompiles where torch made 1."""
    (reason,) = P.parse_recompile_reasons(BERT_REASON)
    assert reason == BERT_REASON
    two = P.parse_recompile_reasons(BERT_REASON + "\n\nL['x'].size()[0] == 3")
    assert two == [BERT_REASON, "L['x'].size()[0] == 3"]


def test_an_is_none_guard_is_its_own_category() -> None:
    """Issue 32: `x is None` failing means x was set since the compile, not that "a different
    object was passed" (the identity category's words)."""
    g = P.classify_guard(BERT_REASON.split("\nUser stack trace:")[0])
    assert (g["category"], g["source"]) == ("none", "self.config.problem_type")
    assert P.classify_guard("L['mask'] is not None  # x")["category"] == "none"
    assert P.classify_guard("___check_obj_id(L['m'], 1234)")["category"] == "identity"


@pytest.mark.parametrize("exc_type, message, tb, runtime, stage", [
    ("InductorError", "CppCompileError: C++ compile error", None, False, "kernel_compile"),
    ("BackendCompilerFailed", "LoweringException: x", None, False, "inductor_lowering"),
    ("RuntimeError", "unhandled error", None, True, "runtime"),
    ("Unsupported", "x", 'File "/a/torch/_dynamo/symbolic_convert.py", line 3, in f', False,
     "dynamo"),
    ("RuntimeError", "x", 'File "/a/torch/_functorch/aot_autograd.py", line 3, in f', False,
     "aot"),
    ("AssertionError", "x", 'File "/a/torch/_inductor/codegen/cpp.py", line 3, in f', False,
     "inductor_codegen"),
    ("AssertionError", "x", 'File "/a/torch/_inductor/lowering.py", line 3, in f', False,
     "inductor_lowering"),
    # a helper both stages call, by its caller (probes48c relpos_attn_bias_indexput: a
    # KeyError in loop_body's get_read_expr under the scheduler's codegen)
    ("KeyError", "'buf5'", 'File "/a/torch/_inductor/scheduler.py", line 3, in _codegen\n'
     'File "/a/torch/_inductor/loop_body.py", line 412, in get_read_expr', False,
     "inductor_codegen"),
    ("KeyError", "'x'", 'File "/a/torch/_inductor/graph.py", line 3, in run\n'
     'File "/a/torch/_inductor/loop_body.py", line 412, in get_read_expr', False,
     "inductor_lowering"),
])
def test_classify_stage(exc_type, message, tb, runtime, stage) -> None:
    assert P.classify_stage(exc_type, message, tb, at_runtime=runtime) == stage


# The frames under Inductor's compile_fx when a nested tensor's missing backward raised while
# AOTAutograd traced the joint graph (probes39a njt_jagged_embedding_pool_fail, torch 2.13).
JOINT_TRACE_TB = "\n".join(f'File "/v/torch/{path}", line 1, in {fn}' for path, fn in (
    ("_dynamo/output_graph.py", "_call_user_compiler"), ("_inductor/compile_fx.py", "compile_fx"),
    ("_dynamo/backends/common.py", "__call__"),
    ("_functorch/aot_autograd.py", "aot_module_simplified"),
    ("fx/experimental/proxy_tensor.py", "dispatch_trace"), ("_dynamo/eval_frame.py", "_fn"),
    ("_functorch/_aot_autograd/graph_capture_wrappers.py", "joint_helper"),
    ("autograd/__init__.py", "grad"), ("autograd/graph.py", "_engine_run_backward"),
    ("nested/_internal/nested_tensor.py", "__torch_dispatch__")))


def test_the_deepest_compiler_frame_decides_the_stage_past_torch_code_any_stage_runs() -> None:
    """probes39a, blind: the deepest torch frame was the nested tensor's dispatch, no stage's,
    and `compile_fx` in the text made the failure Inductor's lowering; its fix offered
    backend='aot_eager', which failed the same way. AOTAutograd's frame decides."""
    assert P.classify_stage("BackendCompilerFailed", "backend='inductor' raised:\n"
                            "NotImplementedError: aten._nested_sum_backward.default",
                            JOINT_TRACE_TB) == "aot"


CUSTOM_BACKEND_TB = (
    'File "/v/torch/_dynamo/output_graph.py", line 3119, in _call_user_compiler\n'
    'File "/v/torch/__init__.py", line 2568, in __call__\n'
    'File "/home/u/test/inductor/test_compiled_autograd.py", line 381, in inner_compiler\n')


def test_a_custom_backends_own_exception_is_the_backends() -> None:
    """Regression (session 20's sweep of PyTorch's own tests, test_compiled_autograd.py's
    test_dynamo_boxed; and a script whose `backend=my_backend` asserts): Dynamo wraps the
    exception of the program's own backend in BackendCompilerFailed, and its deepest frame
    is the program's. It was "AOTAutograd failed", or "Inductor failed" where "inductor"
    was only in the test file's own path. Failed on main: 'inductor_lowering'. Inductor's
    name in torch's message or frames still says Inductor; with no frames at all, torch's
    backend name decides."""
    msg = "backend='inner_compiler' raised:\nAssertionError: "
    assert P.classify_stage("BackendCompilerFailed", msg, CUSTOM_BACKEND_TB) == "backend"
    assert P.classify_stage("BackendCompilerFailed", msg,
                            CUSTOM_BACKEND_TB.replace("test/inductor", "tests")) == "backend"
    assert P.classify_stage("BackendCompilerFailed", "backend='inductor' raised:\nX",
                            None) == "inductor_lowering"
    # torch's own debugging backend (test_exc.py's relu_compile_error_TESTING_ONLY): still
    # no compiler stage under it
    assert P.classify_stage("BackendCompilerFailed", msg, CUSTOM_BACKEND_TB +
                            'File "/v/torch/_dynamo/backends/debugging.py", line 551, in r\n'
                            ) == "backend"
    assert P.classify_stage("BackendCompilerFailed", "backend='aot_eager' raised:\nX",
                            None) == "aot"


def test_parse_fusion_and_cudagraph_lines() -> None:
    assert P.parse_fusion_line("fusing op0 with op1") == \
        {"node1": "op0", "node2": "op1", "fused": True, "reason": None}
    assert P.parse_fusion_line("cannot fuse op2 with op3: no shared data ") == \
        {"node1": "op2", "node2": "op3", "fused": False, "reason": "no shared data"}
    assert P.parse_fusion_line("candidates: op0, op1") is None
    assert P.parse_cudagraph_skip("skipping cudagraphs due to mutated inputs (1 instances)") \
        == "mutated inputs (1 instances)"
    assert P.parse_cudagraph_skip("recording") is None


def test_record_kind_and_compile_id() -> None:
    md = {"dynamo_start": {}, "frame_id": 3, "frame_compile_id": 1, "attempt": 2}
    assert P.record_kind(md) == "dynamo_start" and P.compile_id_of(md) == "3/1_2"
    md = {"artifact": {"name": "recompile_reasons", "encoding": "json"}, "frame_id": 0,
          "frame_compile_id": 0, "attempt": 0, "compiled_autograd_id": 1}
    assert P.record_kind(md) == "artifact:recompile_reasons"
    assert P.compile_id_of(md) == "!1/0/0"
    assert P.record_kind({"rank": 0}) == "unknown"
    assert P.compile_id_of({"str": ["x", 0]}) is None


# -- fuzzing ----------------------------------------------------------------------------------
json_scalar = (st.none() | st.booleans() | st.integers() | st.text(max_size=30)
               | st.floats(allow_nan=False))
json_value = st.recursive(json_scalar, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=10), inner, max_size=3),
                          max_leaves=10)
ENVELOPE = sorted(P.ENVELOPE_KEYS)
KINDS = ["dynamo_start", "compilation_metrics", "inductor_output_code", "str", "artifact",
         "dynamo_output_graph", "inductor_post_grad_graph", "guard_added", "chromium_event",
         "dynamo_cpp_guards_str", "optimize_ddp_split_graph", "some_future_kind"]
envelope_values = st.none() | st.booleans() | st.integers(-3, 1 << 70) | st.text(max_size=5) \
    | json_value
metadata = st.dictionaries(st.sampled_from(ENVELOPE + KINDS) | st.text(max_size=12),
                           envelope_values, max_size=6)


@FUZZ
@given(metadata)
@example({"frame_id": True, "frame_compile_id": False})
@example({"frame_id": 0, "frame_compile_id": 1, "attempt": True})
def test_record_kind_and_compile_id_of_never_raise(md: dict) -> None:
    kind = P.record_kind(md)
    assert isinstance(kind, str) and (kind in md or kind == "unknown" or kind.startswith("artifact:"))
    cid = P.compile_id_of(md)
    assert cid is None or CID.match(cid), cid


@FUZZ
@given(st.text(max_size=600) | st.lists(st.sampled_from([
    "Graph break in user code at a.py:3", "Graph Break Reason: Encountered graph break x",
    "", "Failed to trace", "  Hint: do this", "  Explanation: because",
    "User code traceback:", '  File "a.py", line 7, in f', "    x = 1",
    "Traceback (most recent call last)", "gb/gb0012.html", "GB9999", '  File "b.py", line x',
]) | st.text(max_size=40), max_size=20).map("\n".join))
def test_parse_graph_break_never_raises(text: str) -> None:
    gb = P.parse_graph_break(text)
    assert set(gb) >= {"reason", "gb_type", "gb_code", "hints", "filename", "lineno", "line"}
    assert isinstance(gb["hints"], list) and all(isinstance(h, str) for h in gb["hints"])
    assert gb["lineno"] is None or isinstance(gb["lineno"], int)
    assert gb["gb_code"] is None or re.fullmatch(r"GB\d{4}", gb["gb_code"])


_code_piece = st.sampled_from([
    "cpp_fused_add_0 = async_compile.cpp_pybinding(['float*'], r'''", "'''", "''')",
    "triton_poi_fused_sin_0 = async_compile.triton('triton_poi_fused_sin_0', '''",
    "# Topologically Sorted Source Nodes: [a, b], Original ATen: [aten.a]",
    "# Source Nodes: [", "extern_kernels.mm(a, b, out=c)", "extern_kernels.", "\n\n\n",
    "cpp_fused_ = async_compile.cpp('''", "void kernel() {}",
]) | st.text(max_size=30)


@FUZZ
@given(st.lists(_code_piece, max_size=25).map("\n".join),
       st.none() | st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=4))
def test_parse_output_code_never_raises(code: str, nodes) -> None:
    for k in P.parse_output_code(code, nodes):
        assert k["backend"] in {"cpp", "triton", "extern"}
        assert isinstance(k["name"], str) and isinstance(k["source"], str)
        assert all(isinstance(n, str) for n in k["fx_nodes"] + k["fused_ops"])
        assert isinstance(k["user_lines"], list)


@FUZZ
@given(st.none() | st.text(max_size=60), st.none() | st.text(max_size=300),
       st.none() | st.text(max_size=300) | st.lists(st.sampled_from([
           'File "/x/torch/_inductor/codegen/cpp.py", line 1, in f',
           'File "/x/torch/_functorch/aot_autograd.py", line 2, in g',
           'File "/x/torch/_inductor/codecache.py", line 3, in h',
           'File "/x/torch/_dynamo/convert_frame.py", line 4, in i', "BackendCompilerFailed",
       ]), max_size=5).map("\n".join), st.booleans())
def test_classify_stage_never_raises(exc_type, message, tb, at_runtime) -> None:
    assert P.classify_stage(exc_type, message, tb, at_runtime=at_runtime) in P.STAGES


@FUZZ
@given(st.text(max_size=200) | st.builds(
    lambda a, b, c, d: f"{a}cannot fuse {b} with {c}: {d}" if a else f"fusing {b} with {c}{d}",
    st.text(max_size=5), st.text(max_size=8), st.text(max_size=8), st.text(max_size=20)))
def test_parse_fusion_line_never_raises(msg: str) -> None:
    row = P.parse_fusion_line(msg)
    assert row is None or (isinstance(row["fused"], bool) and row["node1"] and row["node2"])
    assert P.parse_cudagraph_skip(msg) is None or isinstance(P.parse_cudagraph_skip(msg), str)
    assert isinstance(P.guard_of(msg), str)
    assert all(isinstance(r, str) for r in P.parse_recompile_reasons(msg))
    assert all(isinstance(v, str) for v in P.graph_node_lines(msg).values())


# -- the TORCH_TRACE line parser ---------------------------------------------------------------
def _envelope_line(md: dict, *, rank: int | None, ascii_json: bool) -> str:
    prefix = f"[rank{rank}]:" if rank is not None else ""
    return (f"{prefix}V1130 02:17:30.020000 1797 torch/_dynamo/convert_frame.py:123] "
            + json.dumps(md, ensure_ascii=ascii_json))


line_chars = st.characters(exclude_characters="\n", codec="utf-8")
payload_text = st.lists(st.text(alphabet=line_chars, max_size=40), min_size=1, max_size=4)
well_formed = st.tuples(
    st.dictionaries(st.sampled_from(KINDS) | st.text(max_size=8), json_value, min_size=1,
                    max_size=3),
    st.none() | payload_text,
    st.none() | st.integers(0, 7),
    st.booleans(),
)
garbage = st.text(alphabet=line_chars, max_size=80).filter(
    lambda s: not s.startswith("\t")) | st.sampled_from([
        "V1130 02:17:30.020000 1797 x.py:1] {truncated json", "[rank0]:V1130 broken",
        "I1130 02:17:30.020000 1 a.py:1] [0/0] not json", "V1130 02:17:30.020000 1 a.py:1] []",
    ])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(well_formed, st.lists(garbage, max_size=2)), max_size=8))
def test_iter_records_keeps_every_well_formed_record(items) -> None:
    lines: list[str] = []
    expected: list[tuple[dict, str | None]] = []
    for (md, payload, rank, ascii_json), junk in items:
        md = {k: v for k, v in md.items() if k != "has_payload"}
        if payload is not None:
            md["has_payload"] = hashlib.md5("\n".join(payload).encode("utf-8", "surrogatepass")
                                            ).hexdigest()
        lines.append(_envelope_line(md, rank=rank, ascii_json=ascii_json) + "\n")
        lines.extend("\t" + p + "\n" for p in payload or [])
        lines.extend(j + "\n" for j in junk)
        want = dict(md)
        if rank is not None and "rank" not in want:
            want["rank"] = rank
        expected.append((want, None if payload is None else "\n".join(payload)))
    result = ImportResult(run_id=0, path="fuzz")
    got = list(iter_records(iter(lines), result))
    # Every well-formed record comes out, in order, with its payload; junk lines may add
    # records of their own only if they happen to be well-formed themselves.
    it = iter(got)
    for want in expected:
        assert any(have == want for have in it), (want, got)
    assert result.bad_payloads == 0


@FUZZ
@given(st.lists(st.text(alphabet=line_chars, max_size=120) | garbage, max_size=30))
def test_iter_records_never_raises_on_arbitrary_lines(lines: list[str]) -> None:
    # A file yields lines, each ending at its first newline: an element with a newline inside
    # (hypothesis found "\n0") is two lines, never one a log reader can be handed.
    result = ImportResult(run_id=0, path="fuzz")
    got = list(iter_records(iter(line + "\n" for line in lines), result))
    for md, payload in got:
        assert isinstance(md, dict) and (payload is None or isinstance(payload, str))
    # Every line that is neither a payload line (tab) nor blank is accounted for: it began a
    # record or was counted as skipped, never both, never lost.
    headers = sum(1 for line in lines if not line.startswith("\t") and line.strip())
    assert len(got) + result.skipped == headers


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-import")


_counter = iter(range(10 ** 9))


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(metadata, st.none() | payload_text), min_size=1, max_size=8))
@example([({"dynamo_start": {"stack": [{"line": 1 << 70, "filename": 1 << 65}]},
            "frame_id": 1 << 70, "frame_compile_id": 0, "attempt": 0}, None),
          ({"compilation_metrics": {"co_firstlineno": -(1 << 80), "fail_type": "X",
                                    "fail_user_frame_filename": "a.py",
                                    "fail_user_frame_lineno": "seven"}}, None),
          ({"str": ["a.py", 1 << 64]}, ["payload"])])
def test_import_of_arbitrary_records_never_raises(fuzz_dir: Path, records) -> None:
    """Whole-file import of envelopes with real kinds and arbitrary values: the ingestor may
    not understand them, but the import never raises and keeps every record raw."""
    n = next(_counter)
    log = fuzz_dir / f"{n}.log"
    with log.open("w", encoding="utf-8") as f:
        for md, payload in records:
            f.write(_envelope_line(md, rank=None, ascii_json=True) + "\n")
            for p in payload or []:
                f.write("\t" + p + "\n")
    store = fuzz_dir / f"{n}.db"
    [result] = import_trace(store, log)
    assert result.records == len(records)
    with Reader(store) as r:
        assert r.counts(result.run_id)["records"] == len(records)
        assert [rec["metadata"] for rec in r.records(result.run_id)] == \
            [json.loads(json.dumps(md)) for md, _ in records]


def test_partition_lines_are_skips_only_when_cuda_graphs_were_asked_for():
    from compdiag.ingest.parsers import parse_partition_skip

    # Seen on an H200 (torch 2.11): reduce-overhead leaving a CPU op out, and mode default,
    # where partitioning logs every op although nothing asked for CUDA graphs.
    skip = parse_partition_skip("op3: reason=cpu ops, ir=ComputedBuffer, fx=aten.add.Tensor(a, b)")
    assert skip == "partition left out of CUDA graphs: cpu ops (aten.add.Tensor(a, b))"
    assert parse_partition_skip(
        "op0: reason=partition includes all ops when cudagraphs is disabled, "
        "ir=ExternKernelOut, fx=aten.addmm.default(arg10_1, view, permute)") is None


# -- the failing op's line (node stack traces in compile errors) -------------------------------
def test_node_trace_frames_from_torchs_own_lowering_exception():
    """The text comes from torch's LoweringException itself, with a node stack trace as FX
    records it; an argument's own stack_traces (before the marker) are not the failing op."""
    import traceback

    import torch
    from torch._inductor.exc import LoweringException

    stack = ('  File "/u/model.py", line 17, in block\n    y = x.abs() * 2\n'
             '  File "/u/model.py", line 18, in block\n    z = torch.log1p(y)\n')
    arg = 'stack_traces = {,\n  File "/u/model.py", line 9, in other,\n    q = 1,\n}'
    exc = LoweringException(RuntimeError("boom"), torch.ops.aten.log1p.default, [arg], {},
                            stack_trace=stack)
    text = ("Traceback ...\n" + "".join(traceback.format_exception_only(type(exc), exc))
            + "\nThe above exception was the direct cause of ...\n")
    assert P.lowering_target(text) == "aten.log1p.default"
    frames = P.node_trace_frames(text)
    assert [(f["filename"], f["lineno"]) for f in frames] == [("/u/model.py", 17),
                                                              ("/u/model.py", 18)]
    assert frames[-1]["line"] == "z = torch.log1p(y)"


def test_node_trace_frames_from_an_fx_interpreter_error():
    text = ('boom\n\nWhile executing %mul : [num_users=1] = call_function[target=operator.mul]'
            '\nOriginal traceback:\n  File "/u/m.py", line 4, in f\n    return x * y\n\n'
            '  File "/lib/later.py", line 99, in g\n    other()\n')
    assert [(f["filename"], f["lineno"]) for f in P.node_trace_frames(text)] == [("/u/m.py", 4)]


@given(st.text(max_size=300))
def test_node_trace_frames_never_raises(text):
    frames = P.node_trace_frames(text)
    assert all(isinstance(f["lineno"], int) for f in frames)
    if not any(m in text for m in ("Found from :", "Original traceback:", "from user code:")):
        assert frames == []
    assert P.lowering_target(text) is None or "LoweringException" in text


# -- the failing op's line for codegen and kernel-compile errors --------------------------------
GXX_ERROR = """torch._inductor.exc.InductorError: CppCompileError: C++ compile error

Command:
g++ /tmp/torchinductor_root/qy/cqy7nno.main.cpp -O3 -shared -fPIC -o /tmp/x.so

Output:
/tmp/torchinductor_root/qy/cqy7nno.main.cpp: In function 'void kernel(const float*, float*)':
/tmp/torchinductor_root/qy/cqy7nno.main.cpp:15:33: error: 'compile' was not declared in this scope
   15 |                     auto tmp1 = compile error!;
      |                                 ^~~~~~~
"""


def test_kernel_of_a_gxx_error_is_the_one_holding_the_quoted_line():
    ok = ("cpp_fused_abs_0", "{\n    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0);\n}")
    bad = ("cpp_fused_add_relu_1",
           "{\n    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0);\n"
           "                    auto tmp1 = compile error!;\n}")
    assert P.kernel_of_error(GXX_ERROR, [ok, bad]) == "cpp_fused_add_relu_1"
    assert P.kernel_of_error(GXX_ERROR, [ok]) is None
    assert P.kernel_of_error(None, [bad]) is None


def test_codegen_ops_are_the_codegen_frames_innermost_first():
    tb = ('  File "/site/torch/_inductor/scheduler.py", line 5, in codegen\n    x()\n'
          '  File "/site/torch/_inductor/codegen/common.py", line 2671, in _default\n    y()\n'
          '  File "/site/torch/_inductor/codegen/cpp.py", line 761, in log1p\n    raise X\n')
    assert P.codegen_ops(tb) == ["log1p", "_default"]
    assert P.user_line_frame("/u/m.py:9  return torch.log1p(x)") == {
        "filename": "/u/m.py", "lineno": 9, "line": "return torch.log1p(x)"}


@given(st.text(max_size=300), st.lists(st.tuples(st.text(max_size=10), st.text(max_size=80)),
                                       max_size=3))
def test_generated_code_parsers_never_raise(text, kernels):
    assert P.kernel_of_error(text, kernels) in {None, *(n for n, _ in kernels)}
    assert all(isinstance(op, str) for op in P.codegen_ops(text))
    frame = P.user_line_frame(text)
    assert frame is None or isinstance(frame["lineno"], int)


def test_node_trace_frames_from_dynamos_user_code_section():
    """Dynamo ends its errors with the user frames it was tracing; compilation_metrics keeps
    only the innermost frame, here torch's own custom-op wrapper."""
    text = ("RuntimeError when making fake tensor call\n  Explanation: ...\n\n"
            "from user code:\n"
            '   File "/u/prog.py", line 11, in f\n    return clamp_abs(x) * 2\n'
            "           ^^^^^^^^^^^^^^^^\n"
            '  File "/site/torch/_library/custom_ops.py", line 863, in __call__\n'
            "    return self._opoverload(*args, **kwargs)\n\n"
            "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace\n")
    frames = P.node_trace_frames(text)
    assert [(f["filename"], f["lineno"]) for f in frames] == [
        ("/u/prog.py", 11), ("/site/torch/_library/custom_ops.py", 863)]
    assert frames[0]["line"] == "return clamp_abs(x) * 2"


# A Triton kernel's SyntaxError (triton.inject_relu_bug_TESTING_ONLY='compile_error'), as recorded
# on an H200: the error names only the kernel's hashed file; the wrapper line loading it names it.
TRITON_IMPORT_ERROR = (Path(__file__).parent / "fixtures" / "triton_syntax_error.txt").read_text()


def test_a_triton_kernels_syntax_error_is_a_kernel_compile_failure_of_that_kernel():
    message = TRITON_IMPORT_ERROR.strip().splitlines()[-2].split(": ", 1)[1]
    assert P.classify_stage("InductorError", message, TRITON_IMPORT_ERROR) == "kernel_compile"
    ok = ("triton_poi_fused_abs_0", "def triton_poi_fused_abs_0(in_ptr0, xnumel):\n    pass\n")
    bad = ("triton_poi_fused_add_relu_0", "    tmp1 = compile error!\n")
    assert P.kernel_of_error(TRITON_IMPORT_ERROR, [ok, bad]) == "triton_poi_fused_add_relu_0"
    assert P.kernel_of_error(TRITON_IMPORT_ERROR, [ok]) is None  # never a kernel not loaded


def test_a_generated_wrapper_that_does_not_import_is_a_codegen_failure():
    tb = ('Traceback (most recent call last):\n'
          '  File "/site/torch/_inductor/graph.py", line 2584, in _compile_to_module_lines\n'
          '    mod = PyCodeCache.load_by_key_path(\n'
          '  File "/site/torch/_inductor/runtime/compile_tasks.py", line 29, in '
          '_reload_python_module\n    raise RuntimeError(\n'
          'RuntimeError: Failed to import /tmp/c/cw.py\n')
    assert P.classify_stage("InductorError", "RuntimeError: Failed to import /tmp/c/cw.py",
                            tb) == "inductor_codegen"


def test_a_failed_import_says_why_in_its_one_line_message():
    from compdiag.ingest.ingestor import _failure_message

    reason = TRITON_IMPORT_ERROR[TRITON_IMPORT_ERROR.index("RuntimeError: Failed"):]
    message = _failure_message("InductorError", reason)
    assert message.startswith("RuntimeError: Failed to import ")
    assert message.endswith(": SyntaxError: invalid syntax "
                            "(cklkljf5fnyzrepkofzripnvrxvsmsf4f3jfeioeyptbfgodpvm7.py, line 25)")


# -- facts stored at ingest (schema 2), on payloads recorded from torch 2.13 CPU runs ---------
FIXTURES = Path(__file__).parent / "fixtures"


def test_graph_break_details_of_a_break_that_skipped_the_frame() -> None:
    text = (FIXTURES / "gb_skipped_frame.txt").read_text()
    d = P.graph_break_details(text)
    assert d["frame_skipped"] is True
    assert d["gb_type_inner"] == "Unsupported context manager"
    assert d["debug_context"].startswith("Attempted SETUP_WITH/BEFORE_WITH")
    user = d["user_stack"][-1]
    assert (user["filename"].endswith("corpus/gb_context_manager.py"), user["lineno"],
            user["line"]) == (True, 9, 'with open(os.devnull, "w") as fh:  # <- diagnosis')
    # torch's own traceback after the user's is not part of the user stack
    assert not any("site-packages" in f["filename"] for f in d["user_stack"])


def test_guard_values_and_recompile_event_of_a_train_eval_switch() -> None:
    values = dict(P.guard_values((FIXTURES / "guards_train_eval.txt").read_text()))
    assert values["L['fn']._modules['1'].training"] == "False"
    reason = ("0/0: fn._modules['1'].training == True  # return F.dropout(input, self.p, "
              "self.training, self.inplace)  # nn/modules/dropout.py:73 in forward\n"
              "User stack trace:\n  File \"/home/u/train.py\", line 12, in <module>\n"
              "    fn(x)\n")
    text, frames = P.split_recompile(reason)
    assert text.startswith("fn._modules['1'].training == True")
    assert frames == [{"filename": "/home/u/train.py", "lineno": 12, "line": "fn(x)",
                       "name": "<module>"}]
    assert P.classify_guard(text)["category"] == "training"
    assert P.guard_location(text) == {"filename": "nn/modules/dropout.py", "lineno": 73,
                                      "line": "return F.dropout(input, self.p, self.training, "
                                              "self.inplace)"}


def test_graph_nodes_fallback_calls_and_injected_bugs() -> None:
    graph = ('        # File: /u/a.py:8 in running_mean, code: c = torch.cumsum(x, 0)\n'
             '        cumsum: "f32[64][1]cpu" = torch.ops.aten.cumsum.default(arg0_1, 0)\n'
             '        cumsum_1: "f32[64][1]cpu" = torch.ops.aten.cumsum.default(cumsum, 0)\n')
    assert P.graph_nodes(graph) == [
        {"node": n, "op": "cumsum", "target": "aten.cumsum.default", "meta": "f32[64][1]cpu",
         "filename": "/u/a.py", "lineno": 8, "line": "c = torch.cumsum(x, 0)"}
        for n in ("cumsum", "cumsum_1")]
    code = "        buf0 = torch.ops.aten.cumsum.default(arg0_1, 0)\n" * 2
    assert P.fallback_calls(code) == ["aten.cumsum"]
    cfg = json.dumps({"cpp.inject_relu_bug_TESTING_ONLY": "accuracy",
                      "triton.inject_relu_bug_TESTING_ONLY": None, "max_fusion_size": 64})
    assert P.injected_bugs({"inductor_config": cfg}) == {
        "cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}
    assert P.injected_bugs({"inductor_config": "not json"}) == {}


def test_scheduler_node_of_a_fusion_candidate_line() -> None:
    """The fusion logger's candidate entry (torch 2.13 CPU, pytorch#93718's outer softmax)."""
    msg = ("  SchedulerNode(name='op4'), Reduction(['[33, 7]', 'sum', 'origins=OrderedSet([mean, "
           "mul, relu])', 'stack_traces = {', '  File \"/tmp/fz/fz.py\", line 7, in f', '    "
           "return c.cumsum(0), b.mean()', '                        ^^^^^^^^', '', '}', "
           "'stack_traces = {', '  File \"/tmp/fz/fz.py\", line 5, in f', '    b = torch.relu(y)"
           " * 2', '        ^^^^^^^^^^^^^^^^^', '', '}'])")
    node = P.scheduler_node(msg)
    assert node == {"name": "op4", "origins": ["mean", "mul", "relu"], "frames": [
        {"filename": "/tmp/fz/fz.py", "lineno": 7, "line": "return c.cumsum(0), b.mean()"},
        {"filename": "/tmp/fz/fz.py", "lineno": 5, "line": "b = torch.relu(y) * 2"}]}
    assert P.scheduler_node("  ExternKernelSchedulerNode(name='op2')") == {
        "name": "op2", "origins": [], "frames": []}
    assert P.scheduler_node("fusing op1 with op2") is None
    assert P.scheduler_node_names("op0_op1_op6") == ["op0", "op1", "op6"]


@FUZZ
@given(st.text(max_size=400))
def test_the_fact_parsers_never_raise(text: str) -> None:
    for parse in (P.graph_break_details, P.split_recompile, P.guard_location, P.classify_guard,
                  P.guard_values, P.graph_nodes, P.fallback_calls, P.perf_hint,
                  P.scheduler_node, P.scheduler_node_names, P.debug_context,
                  P.guard_sources, P.cache_lookup, P.key_component, P.cache_artifact,
                  lambda t: P.remote_cache_lookups({"inductor_fx_remote_cache_hit_count": 3,
                                                    "inductor_fx_remote_cache_hit_keys": t})):
        parse(text)


def test_graph_nodes_of_a_torch_2_15_backward_graph() -> None:
    """torch 2.15 notes a backward node's line as '# Backward of forward node: File: ...'."""
    graph = ("        # Backward of forward node: File: /u/a.py:8 in step, code: return "
             "(torch.relu(x) * y).sum()\n"
             '        expand: "f32[16][0]cpu" = torch.ops.aten.expand.default(tangents_1, [16])\n'
             '        relu: "f32[16][1]cpu" = torch.ops.aten.relu.default(primals_1)\n')
    assert {n["node"]: (n["lineno"], n["line"]) for n in P.graph_nodes(graph)} == {
        "expand": (8, "return (torch.relu(x) * y).sum()"),
        "relu": (8, "return (torch.relu(x) * y).sum()")}
    assert P.graph_node_lines(graph)["relu"] == "/u/a.py:8  return (torch.relu(x) * y).sum()"


@FUZZ
@given(st.lists(st.tuples(well_formed, st.lists(garbage, max_size=2)), max_size=8),
       st.integers(min_value=1, max_value=64))
def test_a_log_read_in_blocks_gives_what_its_lines_give(items, chunk) -> None:
    """import reads a file in blocks split by the regex engine (trace_log._file_blocks); any
    block size gives the records and counts the line-by-line reader gives."""
    import io

    from compdiag.importer import trace_log

    lines: list[str] = []
    for (md, payload, rank, ascii_json), junk in items:
        lines.append(_envelope_line(md, rank=rank, ascii_json=ascii_json) + "\n")
        lines.extend("\t" + p + "\n" for p in payload or [])
        lines.extend(j + "\n" for j in junk)
    if lines and chunk % 2:
        lines[-1] = lines[-1].rstrip("\n")  # a log cut off mid-line
    by_line = ImportResult(run_id=0, path="lines")
    want = list(iter_records(iter(lines), by_line))
    by_block = ImportResult(run_id=0, path="blocks")
    old = trace_log._CHUNK
    trace_log._CHUNK = chunk
    try:
        got = [(md, payload) for md, payload, _ in
               trace_log.iter_file_records(io.StringIO("".join(lines)), by_block)]
    finally:
        trace_log._CHUNK = old
    assert got == want
    assert (by_block.skipped, by_block.bad_payloads) == (by_line.skipped, by_line.bad_payloads)


def test_a_cpp_check_out_of_a_kernel_names_that_kernel() -> None:
    """corpus/fail_oob_index_kernel.py (pytorch/pytorch#111952) and fail_int_div_zero.py
    (#143649): a C++ check a generated kernel made at run time ("kernel, FILE.main.cpp:13,
    index out of bounds: tmp1 < 2L", or a prefix helper the kernel calls) names the kernel by
    its message or the helper. Before, no kernel was found and the failure pointed at the
    compiled function's def line instead of the op's."""
    kernels = [("cpp_fused_add_index_0",
                'TORCH_CHECK(tmp1 < 2L, "index out of bounds: tmp1 < 2L");\n'
                "inductor_cpu_integer_div_error{0};"),
               ("cpp_fused_floor_divide_1",
                "inductor_cpu_integer_div_error{0};\n"
                "inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);")]
    oob = ("RuntimeError: kernel, /tmp/c/zt/cztu6.main.cpp:13, index out of bounds: tmp1 < 2L")
    div = ("RuntimeError: inductor_cpu_throw_if_integer_div_error, /v/torch/include/torch/csrc/"
           "inductor/cpp_prefix.h:827, ZeroDivisionError")
    assert P.kernel_of_error(oob, kernels) == "cpp_fused_add_index_0"
    assert P.kernel_of_error(div, kernels) == "cpp_fused_floor_divide_1"
    assert P.kernel_of_error("RuntimeError: f, /x/a.cpp:3, nothing like it", kernels) is None


def test_fail_on_recompile_limit_hit_is_the_recompile_limit() -> None:
    """corpus/fail_recompile_limit_params.py (microsoft/dion#23): under fullgraph=True the
    recompile limit raises FailOnRecompileLimitHit, whose torch 2.13 message ("Hard failure
    due to fullgraph=True") names no limit. Before, it was filed as a Dynamo failure of its
    own, at the def line, with the fake-tensor fix."""
    facts = P.failure_facts("FailOnRecompileLimitHit", "Hard failure due to fullgraph=True", "")
    assert facts["recompile_limit"]
    assert not P.failure_facts("Unsupported", "Tensor.item", "")["recompile_limit"]


def test_a_backend_match_failure_is_a_backend_change_with_both_backends():
    """torch 2.13 names a recompile for a changed backend ("BACKEND_MATCH failure ... Cached
    backend: ...(compiler='eager') ... New backend: ...(compiler='aot_eager')"); it was read as
    an identity guard on "compiler='eager'" and explained as "a different object was passed"
    (pytorch/pytorch#154707, the second unseen set's backend_change_recompile)."""
    from compdiag.ingest.parse_dynamo import classify_guard

    text = ("BACKEND_MATCH failure: torch.compile detected different backend callables. "
            "Cached backend: _TorchCompileWrapper(compiler='eager', dynamic=None) "
            "(id=0x7f9ac1ca18d0). New backend: _TorchCompileWrapper(compiler='aot_eager', "
            "dynamic=None) (id=0x7f9ac241dd90). If this is unexpected, wrap your backend in "
            "functools.partial (or reuse the same cached backend) to avoid creating a new "
            "backend function each time. More details: "
            "https://github.com/pytorch/pytorch/issues/168373")
    got = classify_guard(text)
    assert (got["category"], got["before"], got["after"]) == ("backend", "eager", "aot_eager")
    custom = classify_guard("BACKEND_MATCH failure: torch.compile detected different backend "
                            "callables. Cached backend: <function my_backend at 0x7f01> "
                            "(id=0x7f01). New backend: <function my_backend at 0x7f02> "
                            "(id=0x7f02).")
    assert custom["category"] == "backend"
    assert custom["before"] == "<function my_backend at 0x7f01>" != custom["after"]
    assert classify_guard("___check_current_backend(140)")["category"] == "backend"


def test_a_graph_breaks_root_cause_is_the_innermost_chained_exception() -> None:
    """Issue 29 (set5's data_ptr_pack_tensor, pytorch/pytorch#136271): torch raised 'Failed to
    convert args/kwargs to proxy' from `NotImplementedError: DataPtrVariable()`, the value it
    had no graph form for; the break's row keeps that innermost exception (ingest), and no
    root for a message that chains none. Caught: main kept only the outer type."""
    text = ("Graph break in user code at /u/a.py:12\nGraph Break Reason: Encountered graph "
            "break when attempting to trace CALL\n\nFailed to convert args/kwargs to proxy\n"
            "  Explanation: Missing `as_proxy()` implementation for some arg/kwarg.\n\n"
            "User code traceback:\n  File \"/u/a.py\", line 12, in f\n    torch.tensor(p)\n\n"
            "Traceback (most recent call last):\n  File \"/t/utils.py\", line 1528, in p\n"
            "    raise NotImplementedError(str(self))\nNotImplementedError: DataPtrVariable()\n"
            "\nThe above exception was the direct cause of the following exception:\n\n"
            "Traceback (most recent call last):\n  File \"/t/exc.py\", line 723, in u\n"
            "torch._dynamo.exc.Unsupported: Failed to convert args/kwargs to proxy\n")
    d = P.graph_break_details(text)
    assert (d["root_cause"], d["root_value"]) == ("NotImplementedError: DataPtrVariable()",
                                                  "data_ptr")
    assert P.graph_break_details((FIXTURES / "gb_skipped_frame.txt").read_text()
                                 )["root_cause"] is None


def test_the_root_causes_words_name_the_value_or_the_error() -> None:
    """What a graph break's headline adds from its root cause: a VariableTracker as the kind
    of value (snake case, parsed at ingest), another exception with a message as itself,
    nothing for a bare type or a root that repeats the break's type."""
    from compdiag.analyses.value_writes import root_words
    value = P.root_cause("NotImplementedError: UserDefinedObjectVariable(Foo)\n\n"
                         "The above exception was the direct cause of the following "
                         "exception:\n")["root_value"]
    # a user-defined object is its class (probes23/noise_aug_generator.py: "a
    # user_defined_object value" was a torch.Generator passed as `generator=`)
    assert value == "Foo"
    assert root_words("NotImplementedError: X()", value, "Failed to convert") == "a Foo value"
    assert root_words("RuntimeError: shape '[3]' is invalid", None, "x") == \
        "RuntimeError: shape '[3]' is invalid"
    assert root_words("AssertionError", None, "x") == ""
    assert root_words("Unsupported: Failed to convert", None, "Failed to convert") == ""
    assert root_words(None, None, "x") == ""


def test_the_op_a_failure_names_is_a_fact_of_it() -> None:
    """Issue 29 §1 (corpus/fail_custom_op_fake_strides.py, pytorch/pytorch#143579): a custom
    op's output failing Inductor's size/stride check names the op, in torch's message or in
    the generated check itself; stored with the failure (a post-grad node's target), so the
    diagnosis finds the op's line. Caught: main had no such fact and pointed at the call."""
    msg = ("expected size 4==4, stride 1==8 at dim=0\nError in op: "
           "torch.ops.demo.col_major_scale.default\nThis error most often comes from ...")
    assert P.failure_facts("AssertionError", "expected size", None, msg)["op"] == \
        "demo.col_major_scale.default"
    tb = ("  File \"/tmp/torchinductor_u/pa/cpa.py\", line 117, in call\n"
          "    assert_size_stride(buf2, (4, 8), (8, 1), 'torch.ops.mylib.op.default')\n"
          "AssertionError: expected size 4==4, stride 1==8 at dim=0\n")
    assert P.failure_facts("AssertionError", "expected size", tb)["op"] == "mylib.op.default"
    assert P.failure_facts("RuntimeError", "boom", "no op here")["op"] is None


def test_a_guard_worded_as_what_failed_is_classified_like_its_equality() -> None:
    """torch 2.13 words a failed length check as `len(feats) != 1` (the guard was
    `len(feats) == 1`): one category and source for every length the program passed, so a
    dict whose key set grows each call is one recompile diagnosis, at the call, not one
    'other' diagnosis per length at the def line (found on a program of a growing dict that
    hit the recompile limit: eight diagnoses, the limit's at the def)."""
    for text, value in (("len(feats) != 1", "1"), ("len(feats) == 3", "3"),
                        ("len(L['feats']) != 8  # for k in feats", "8")):
        g = P.classify_guard(text)
        assert g["category"] == "length" and g["before"] == value, (text, g)
        assert g["source"].startswith("len(") and "!" not in g["source"], g


def test_a_backends_own_failure_is_not_sent_to_minify_or_bisect() -> None:
    """The `backend` stage's fix: the backend is at fault, and `compdiag minify`/`bisect`
    replay the graph through Inductor and AOTAutograd, which did not raise; before this
    stage existed such a failure was told to run both."""
    from compdiag.analyses.failure_fixes import failure_fix

    fix = failure_fix("backend", "AssertionError", "AssertionError: no", run_id=1,
                      argv=["x.py"])
    assert "backend" in fix and "minify" not in fix and "bisect" not in fix


def test_a_guard_on_a_branch_over_a_dynamic_size_is_located_and_named():
    """The lead's probe (`dynamic=True`, `if n % 2 == 0:` on n = x.shape[0]): torch 2.13 wrote
    the failed guard as "(x.size()[0] % 2) == 0  # if n % 2 == 0:  # mp/probe/d2.py:6 in f
    (_dynamo/variables/tensor.py:2606 in evaluate_expr)". The trailing frame of torch's own kept
    the location from parsing (no "guarded value read at line 6"), and the guard was a
    "Python value" with the fix "pass it as a tensor"; it is a branch on a size expression."""
    from compdiag.ingest.parse_dynamo import classify_guard, guard_location

    text = ("(x.size()[0] % 2) == 0  # if n % 2 == 0:  # mp/probe/d2.py:6 in f "
            "(_dynamo/variables/tensor.py:2606 in evaluate_expr)")
    assert guard_location(text) == {"filename": "mp/probe/d2.py", "lineno": 6,
                                    "line": "if n % 2 == 0:"}
    assert classify_guard(text)["category"] == "size_branch"
    assert classify_guard("L['n'] == 3")["category"] == "value"
    assert classify_guard("L['x'].size()[0] == 3")["category"] != "size_branch"


def test_a_path_torch_shortened_resolves_to_the_kept_file_it_ends(tmp_path):
    """torch shortens a guard location's path by a fixed count of characters
    (`mp/probe/d2.py` for /tmp/probe/d2.py): the kept source it is the end of."""
    from compdiag.analyses.context import RunContext
    from compdiag.store.reader import Reader
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0")
    s.done()
    with Reader(s.path) as r:
        ctx = RunContext(r, s.run_id)
        tail = str(s.user)[3:]
        assert ctx.resolve(tail) == str(s.user)
        assert ctx.resolve("elsewhere/other.py") == "elsewhere/other.py"


def test_a_kernels_bounds_check_is_at_its_indexing_op_not_its_first_op():
    """benchmarks/probes23/static_kv_cache_overflow.py: a static KV cache's `index_copy_` past
    its length fails Inductor's C++ bounds check in a kernel that fuses the qkv split, the
    cache writes and the attention; on main the failure was at the kernel's first op (the
    `chunk`, line 23), not at the `index_copy_` (24) the check is about. The index_copy_ is an
    index_put node after decomposition; an embedding elsewhere in the graph is not it."""
    nodes = {"embedding": "/u/m.py:22  h = self.emb(token)",
             "split": "/u/m.py:23  q, k, v = self.qkv(h).chunk(3, dim=-1)",
             "index_put": "/u/m.py:24  self.k_cache.index_copy_(1, pos, k)",
             "index_put_1": "/u/m.py:25  self.v_cache.index_copy_(1, pos, v)", "gt": ""}
    kernel = "cpp_fused__softmax_arange_bmm_div_gt_index_copy_masked_fill_split_transpose_view_1"
    err = "RuntimeError: kernel, /tmp/x.main.cpp:30, index out of bounds: 0 <= tmp7 < 16L"
    assert P.bounds_check_lines(err, kernel, nodes) == [nodes["index_put"], nodes["index_put_1"]]
    assert P.bounds_check_lines("RuntimeError: boom", kernel, nodes) == []
    # a kernel named after its gather: that op's node, not every indexing node
    assert P.bounds_check_lines(err, "triton_poi_fused_gather_0",
                                {**nodes, "gather": "/u/m.py:30  y = x.gather(1, i)"}) == \
        ["/u/m.py:30  y = x.gather(1, i)"]


def test_an_index_out_of_its_bounds_is_the_datas_error_with_no_minify_or_bisect():
    """The same probe and probes23/onehot_label_noise.py: the fix told the user to try
    aot_eager, bisect and minify, as for a miscompilation, though eager raises on the same
    values (Inductor keeps eager's index checks); the printed minify then refused ("the
    failing graph does not run eagerly") and bisect blamed a lowering."""
    from compdiag.analyses.failure_fixes import failure_fix
    from compdiag.analyses.fixes import runtime_why

    for msg in ("RuntimeError: kernel, /tmp/x.main.cpp:30, index out of bounds: 0 <= tmp7 < 16L",
                "RuntimeError: one_hot: Class values must be smaller than num_classes."):
        fix = failure_fix("runtime", "RuntimeError", msg, run_id=1, argv=["x.py"])
        assert "without torch.compile" in fix, fix
        assert "minify" not in fix and "bisect" not in fix and "aot_eager" not in fix, fix
        assert "eager rejects alike" in runtime_why(msg)
    # a miscompilation's runtime error keeps both commands
    fix = failure_fix("runtime", "RuntimeError", "RuntimeError: boom", run_id=1, argv=["x.py"])
    assert "compdiag bisect" in fix and "compdiag minify" in fix


def test_a_torch_generator_passed_to_an_op_gets_its_own_fix_not_a_python_generators():
    """benchmarks/probes23/noise_aug_generator.py: `torch.randn(..., generator=self.gen)` in a
    compiled step breaks with "Failed to convert args/kwargs to proxy" on
    UserDefinedObjectVariable(Generator); on main the fix was the Python generator's
    ("Materialise the generator ... pass a list/tuple in")."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix("Failed to convert args/kwargs to proxy",
                          "Missing `as_proxy()` implementation for some arg/kwarg.",
                          "call_function args: SizeVariable(length=3) LazyVariableTracker("
                          "realized: UserDefinedObjectVariable(Generator))",
                          "noise = torch.randn(x.shape, generator=self.gen)", [])
    assert fix.startswith("A torch.Generator passed to an op"), fix
    assert "list/tuple" not in fix


def test_a_data_dependent_branch_names_what_the_if_tested():
    """set16/numpy_temperature_branch.py (test_unspec's expectedFailure
    test_specializing_numpy_float_in_control_flow): an `if` on a NumPy float32 scalar is
    "Data-dependent branching" to Dynamo (a 0-d ndarray); on main the headline said only
    that, and the fix spoke of a tensor's value. Dynamo's debug context names the value."""
    from compdiag.analyses.value_writes import root_words
    from compdiag.analyses.fixes import graph_break_fix

    payload = ("Graph break in user code at /u/t.py:14\nGraph Break Reason: Data-dependent "
               "branching\n  Explanation: Detected data-dependent branching.\n  Developer "
               "debug context: attempted to jump with NumpyNdarrayVariable()\n")
    d = P.graph_break_details(payload)
    assert d["root_value"] == "numpy_ndarray", d
    assert root_words(d["root_cause"], d["root_value"], "Data-dependent branching") == \
        "on a NumPy value"
    fix = graph_break_fix("Data-dependent branching", "", "attempted to jump with "
                          "NumpyNdarrayVariable()", "if temperature > 1.0:", [])
    assert "Python number" in fix and "float(" in fix
    assert "torch.where" in graph_break_fix("Data-dependent branching", "", "attempted to "
                                            "jump with TensorVariable()", "if x.sum() > 0:", [])


_WORDLESS_TB = '''Traceback (most recent call last):
  File "/venv/site-packages/torch/_dynamo/variables/torch.py", line 1831, in handle_constant_processgroup_functions
    invocation_result = self.value(*args_as_value, **kwargs_as_value)
  File "/venv/site-packages/torch/distributed/distributed_c10d.py", line 1211, in _resolve_group_name_by_ranks_and_tag
    raise ValueError("")
ValueError



from user code:
   File "/work/train.py", line 29, in row_parallel_linear
    return funcol.all_reduce(partial, "sum", TP_RANKS)

Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace'''


def test_an_exception_with_no_words_keeps_its_raise_site_and_no_trailer_as_message():
    """set21's funcol_group_ranks_missing: `raise ValueError("")` in a torch.distributed
    helper that Dynamo ran while tracing. The stored message was "from user code:" (the first
    line of what Dynamo appended) and nothing named the helper; now the message has no
    trailer and the raise site (the raising frame and its caller) is a fact of the failure."""
    from compdiag.analyses.raised_by import raised_by, wordless

    assert P.first_line(P.without_trailer("\n\nfrom user code:\n  File ...")) == ""
    assert P.first_line(P.without_trailer("bad size\nfrom user code:\n  File ...")) == "bad size"
    site = P.failure_facts("ValueError", "ValueError", _WORDLESS_TB)["raise_site"]
    assert [f["name"] for f in site] == ["handle_constant_processgroup_functions",
                                        "_resolve_group_name_by_ranks_and_tag"]
    by = raised_by(site)
    assert by.called_by_dynamo and not by.machinery
    assert by.where == "torch/distributed/distributed_c10d.py:1211"
    assert wordless("ValueError", "ValueError") and wordless("ValueError:", "ValueError")
    assert not wordless("ValueError: bad size", "ValueError")
    # with words, the block that ends in them; a frame of Dynamo's own is machinery
    tb = _WORDLESS_TB.replace("ValueError\n", "KeyError: 'x'\n").replace(
        "/torch/distributed/distributed_c10d.py", "/torch/_dynamo/utils.py")
    own = raised_by(P.failure_facts("KeyError", "'x'", tb)["raise_site"])
    assert own.machinery and own.function == "_resolve_group_name_by_ranks_and_tag"


def test_a_python_generator_argument_is_not_a_torch_generator():
    """probes26's acc_nested_kwargs_returns: `total_energy(c for c in chunks)` breaks with
    "Dynamo does not know how to iterate over `UserDefinedObjectVariable(generator)`", and the
    fix spoke of a torch.Generator passed to an op (the rule's words matched without case)."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix(
        "Failed to handle graph break gracefully.",
        "Dynamo does not know how to iterate over `UserDefinedObjectVariable(generator)`.",
        "tp_iter_impl not implemented for generator", "total = total_energy(c for c in xs)",
        [])
    assert "torch.Generator" not in fix and "generator" in fix.lower()
    torch_gen = graph_break_fix(
        "Unsupported", "call to `UserDefinedObjectVariable(Generator)`", "", "", [])
    assert "torch.Generator" in torch_gen


def test_the_logging_breaks_fix_names_the_programs_own_logger():
    """probes26: the fix said `reorderable_logging_functions.add(logger.info)` to a program
    whose logger is `log` (a NameError as pasted)."""
    from compdiag.analyses.fixes import graph_break_fix

    gb = "logging.Logger method not supported for non-export cases"
    fix = graph_break_fix(gb, "", "", 'log.info("loss on a batch of %d", x.shape[0])', [])
    assert "ignore_logging_functions.add(log.info)" in fix
    fix = graph_break_fix(gb, "", "", "self.logger.warning('x')", [])
    assert "add(self.logger.warning)" in fix


def test_an_opaque_argument_breaks_fix_names_its_class_and_a_traceable_subclass():
    """probes27's subclass_no_flatten: a `__torch_dispatch__` wrapper without
    `__tensor_flatten__` broke "Failed to convert args/kwargs to proxy", and the fix said to
    move the line out of the compiled function."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix("Failed to convert args/kwargs to proxy",
                          "Missing `as_proxy()` implementation for some arg/kwarg.",
                          "call_function args: LazyVariableTracker(realized: "
                          "UserDefinedObjectVariable(ScaledTensor))",
                          "return F.linear(x, self.w)", [])
    assert "`ScaledTensor`" in fix and "__tensor_flatten__" in fix


def test_a_refused_recompile_keeps_its_failed_guards_classified():
    """probes35c strict_recompile_val_pass: error_on_recompile's RecompileError lists the
    guards that failed ("GLOBAL_STATE changed: grad_mode"), as does the fail_on_recompile
    stance's RuntimeError; they were kept only as torch's text, and the failure was explained
    as a trace that failed. Stored classified, as a recompile's guards are."""
    from compdiag.ingest.parse_failures import failure_facts

    error = ("Recompiling function forward in /x/train.py:16\n"
             "    triggered by the following guard failure(s):\n"
             "    - 0/0: GLOBAL_STATE changed: grad_mode")
    (g,) = failure_facts("RecompileError", error.splitlines()[0], "", error)["failed_guards"]
    assert (g["category"], g["source"], g["function"]) == ("global_state", "grad_mode",
                                                           "forward")
    stance = ("Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: "
              "'/x/a.py', function name: 'scale', line number: 9\n"
              "    triggered by the following guard failure(s):\n"
              "    - 0/0: tensor 'x' dtype mismatch. expected Float, actual Double\n"
              "Failed on the following precompiled guards: ")
    (g,) = failure_facts("RuntimeError", stance.splitlines()[0], "", stance)["failed_guards"]
    assert (g["category"], g["function"]) == ("dtype", "scale")
    assert failure_facts("RuntimeError", "boom", "", "boom")["failed_guards"] is None


def test_a_print_in_a_called_function_gets_no_reorderable_fix():
    """probes34e focal_debug_print: the break's print was in a loss module's forward that the
    compiled step called; `reorderable_logging_functions.add(print)`, as printed, removed the
    break and the print with it (torch 2.13 drops a reordered print in an inlined function).
    Offered only where the print is in the compiled frame itself."""
    from compdiag.analyses.fixes import graph_break_fix

    gb, expl = "Failed to trace builtin operator", "builtin operator `print` with argument types"
    own = graph_break_fix(gb, expl, "", "print(loss)", [])
    assert "reorderable_logging_functions.add(print)" in own
    called = graph_break_fix(gb, expl, "", "print(loss)", [], called=True)
    assert "does not help here" in called and "return the value" in called
    # probes37d ckpt_block_debug_print: inside a checkpoint region torch cannot reorder it at
    # all (it breaks, "can't actually be reordered"), and the print was not dropped there
    assert "checkpoint" in called and "without printing it" not in called


def test_a_failure_inside_inductors_pattern_matcher_offers_turning_it_off():
    """probes35b mixup_randperm_pairs: `x[torch.randperm(n)]` crashed Inductor's
    randperm_index_pattern in joint_graph_passes; the fix only said to bisect and minify,
    while `torch._inductor.config.pattern_matcher = False` compiled it."""
    from compdiag.analyses.failure_fixes import failure_fix
    from compdiag.analyses.runtime_fixes import runtime_why

    tb = ('  File "/x/torch/_inductor/pattern_matcher.py", line 1522, in '
          '_unflatten_match_kwargs\n    raise RuntimeError(\nRuntimeError: Not all inputs to '
          'pattern found in match.kwargs.')
    fix = failure_fix("inductor_lowering", "RuntimeError", "RuntimeError: Not all inputs to "
                      "pattern found in match.kwargs.", run_id=1, argv=["x.py"], message=tb)
    assert "`torch._inductor.config.pattern_matcher = False`" in fix, fix
    assert "pattern matcher" in runtime_why(tb, "inductor_lowering")


def test_a_momentum_a_scheduler_cycles_gets_cycle_momentum_not_a_tensor():
    """probes35a onecycle_betas_recompile: OneCycleLR writes a new float into `betas` every
    step; "wrap it in a tensor" (tensor betas) still recompiled 8 times, and
    `cycle_momentum=False` gave none."""
    from compdiag.analyses.recompile_rules import recurring_fix

    fix = recurring_fix("self.param_groups[0]['betas'][0]",
                        "self.param_groups[0]['betas'][0] == 0.9037365046793212")
    assert "cycle_momentum=False" in fix and "torch.tensor(value)" not in fix, fix
    lr = recurring_fix("self.param_groups[0]['lr']", "self.param_groups[0]['lr'] == 0.01")
    assert "lr=torch.tensor(0.01)" in lr


def test_a_numpy_random_draw_is_named_and_gets_a_torch_draw():
    """probes35b mixup_numpy_beta_fullgraph: `np.random.beta(a, a)` in a compiled mixup; the
    reason named no function (the debug context holds Dynamo's variable dumps) and the fix
    offered torch.save/torch.fft as the torch functions to use."""
    from compdiag.analyses.debug_context import short_context
    from compdiag.analyses.fixes import graph_break_fix

    ctx = ("numpy function: <bound method RandomState.beta of RandomState(MT19937) at 0x7F>, "
           "args: [LazyVariableTracker(unrealized: <class 'float'>)], kwargs: {}")
    assert short_context(ctx) == "numpy function RandomState.beta"
    fix = graph_break_fix("attempted to trace numpy function unsupported by PyTorch", "", ctx,
                          "lam = float(np.random.beta(alpha, alpha))", [])
    assert "torch.distributions" in fix and "torch.fft" not in fix, fix


def test_an_undecided_comparison_of_a_read_number_offers_the_check_that_decides_it():
    """probes35c trim_pad_mha_encoder: `n = lengths.max().item()` then attention on `x[:, :n]`;
    Inductor could not decide `Eq(u1, 1)` in the bmm, and the fix only said to pass n in as an
    int, while `torch._check(n >= 2)` after the read compiled and matched eager."""
    from compdiag.analyses.unbacked_origin import _check_hint

    read = {"symbol": "u0", "lineno": 19, "line": "    n = lengths.max().item()"}
    text = "Could not guard on data-dependent expression Eq(u1, 1) (unhinted: Eq(u1, 1))"
    assert "`torch._check(n > 1)`" in _check_hint(text, read)
    assert "`torch._check(k != 7)`" in _check_hint(
        "data-dependent expression Eq(u0, 7)", {**read, "line": "k = t.item()"})
    assert _check_hint("data-dependent expression Eq(u0, 7)", {**read, "line": "f(t.item())"}) \
        == ""
    # probes42e multicrop_unflatten_item_fullgraph: `unflatten(0, (n, -1))` could not decide
    # Ne(u0, 0); the check printed was `n == 0`, the opposite, and the run still failed
    assert "`torch._check(n > 0)`" in _check_hint(
        "Could not guard on data-dependent expression Ne(u0, 0)", read)
    assert "`torch._check(k != 7)`" in _check_hint(
        "data-dependent expression Ne(u0, 7)", {**read, "line": "k = t.item()"})


def test_a_recompile_on_a_resumed_functions_stack_slot_never_prints_it_as_a_name():
    """probes35e pointcloud_range_filter: perf listed "size L['___stack0'].size()[0] changed"
    with `torch._dynamo.mark_dynamic(L['___stack0'], 0)`, a name the program does not have."""
    from compdiag.analyses.recompile_rules import recompile_fix

    fix = recompile_fix("size", "L['___stack0'].size()[0]", count=1, limit=False, fn="f")
    assert "mark_dynamic" not in fix and "graph break" in fix, fix


def test_the_values_a_recompile_saw_are_the_calls_in_order():
    """probes35f char_rnn_name_lengths: "values seen 5, 5, 6, 7, 8, 8" were the guards'
    expected sides; the lengths the calls brought were 5, 6, 4, 7, 8, 2."""
    from compdiag.analyses.guard_events import values_seen as _seen

    evs = [{"before": b, "after": a} for b, a in ((5, 6), (5, 4), (6, 7), (7, 8), (8, 2))]
    assert _seen(evs) == [5, 6, 4, 7, 8, 2]
    assert _seen([{"before": 1, "after": None}, {"before": 2, "after": 3}]) == [1, 2]


def test_a_disable_helper_offered_under_fullgraph_says_it_needs_fullgraph_off():
    """probes38g sgc_sparse_propagate_fullgraph: the sparse break's fix offered a
    `@torch.compiler.disable` helper, applied with fullgraph=True kept: "Skip calling
    torch.compiler.disable()d function", exit 1."""
    from compdiag.analyses.failure_fixes import failure_fix

    msg = ("Attempted to call function marked as skipped\n  Explanation: Dynamo does not know "
           "how to trace the builtin `torch._VariableFunctionsClass.sparse_coo_tensor.`\n")
    fix = failure_fix("dynamo", "Unsupported", "Unsupported: Attempted to call function marked "
                      "as skipped", run_id=1, argv=["p.py"],
                      gb_type="Attempted to call function marked as skipped",
                      debug="module: torch, qualname: sparse_coo_tensor",
                      line="adj = torch.sparse_coo_tensor(idx, w, (n, n))",
                      torch_message=msg)
    assert "torch.compiler.disable" in fix and "needs fullgraph off" in fix, fix


def test_a_breaks_cause_names_the_user_code_torch_ran_under_it() -> None:
    """probes39d cop_backward_item_fallback, blind: a custom op's registered backward read
    `.item()` while AOTAutograd traced it; the break (GB0219) was said at the compiled call's
    line, while the cause's traceback in torch's message named the backward's line 22."""
    cause = ("Traceback (most recent call last):\n"
             '  File "/v/torch/_functorch/_aot_autograd/graph_capture.py", line 130, in f\n'
             "    fx_g = make_fx(\n"
             '  File "/home/u/train.py", line 22, in backward\n'
             "    gnorm = g.norm().item()\n"
             '  File "/v/torch/_subclasses/fake_impls.py", line 1229, in local_scalar_dense\n'
             "    raise DataDependentOutputException(func)\n"
             "torch._subclasses.fake_tensor.DataDependentOutputException: aten._local_scalar_"
             "dense.default\n\nThe above exception was the direct cause of the following "
             "exception:\n\nTraceback (most recent call last):\n"
             '  File "/home/u/train.py", line 43, in <module>\n'
             "    loss = train_step(x, y)\n")
    frame = P.cause_user_frame(cause)
    assert (frame["lineno"], frame["line"]) == (22, "gnorm = g.norm().item()")
    assert P.cause_user_frame(cause.split("The above")[1]) is None
