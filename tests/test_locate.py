"""Issue 29 §1: one locate() for every kind, with its evidence in a fixed order (torch's own
frames, the FX nodes' stack traces, the call that triggered the compile, the def line last and
said to be a fallback); and §1's and §2's properties over every fixture store (the corpus
runs are checked in tests/test_corpus.py). Fast: trace-shaped records through the Ingestor, no
compile."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compdiag.store.reader import Reader
from compdiag.views.explain import explain_document
from gpu_replay import FIXTURES as GPU_FIXTURES
from gpu_replay import replay as gpu_replay
from locate_check import (consequence_problems, def_line_problems, ended_node_problems,
                          library_line_problems)
from principles_check import principle_problems
from test_ddp import replay as ddp_replay
from test_explain import Store, _call, _ids

SCRIPTS = Path(__file__).resolve().parent / "scripts"
DDP_CASES = [("ddp_compile_sequential", None), ("ddp_compile_wrapper", None),
             ("ddp_split_buckets", None), ("ddp_split_failure", None),
             ("fsdp_hooks_break", None), ("funcol_step", SCRIPTS),
             ("compiled_autograd_steps", SCRIPTS)]
GPU_CASES = sorted(p.name.split(".")[0] for p in GPU_FIXTURES.glob("*.records.jsonl.gz"))


def _recompile(s: Store) -> None:
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: n == 1                # return x + n  "
                                      f"# {s.user}:4 in f")


def test_the_call_ranks_above_the_def_line(tmp_path):
    """A cache bypass names no line of its own: with the call of its compile stored, it points
    at that call (evidence `call`). On main it pointed at the def line, which locate() now
    takes only when nothing else is stored."""
    s = Store(tmp_path)
    s.compile("0/0")
    _call(s, "0/0", [40, 21])
    s.ing.record({**_ids("0/0"), "artifact": {"name": "fx_graph_cache_bypass",
                                              "encoding": "json"}},
                 json.dumps({"cache_bypass_reason": "Unsupported: custom op"}))
    diags = [d for d in s.explain() if d["kind"] == "cache"]
    assert diags, "no cache diagnosis"
    assert diags[0]["user_frame"]["lineno"] == 21
    assert diags[0]["user_frame"]["evidence"] == "call"


def test_the_def_line_is_the_last_resort_and_says_so(tmp_path):
    """Nothing but the compiled function's line (an imported log without stacks): the
    diagnosis points at it with evidence `def`, and the text view says it is a fallback."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.record({**_ids("0/0"), "artifact": {"name": "fx_graph_cache_bypass",
                                              "encoding": "json"}},
                 json.dumps({"cache_bypass_reason": "Unsupported: custom op"}))
    s.done()
    with Reader(s.path) as r:
        doc = explain_document(r, s.run_id)
    (d,) = [d for d in doc["diagnoses"] if d["kind"] == "cache"]
    assert d["user_frame"]["lineno"] == 3 and d["user_frame"]["evidence"] == "def"
    out = subprocess.run([sys.executable, "-m", "compdiag", "explain", "--store", str(s.path)],
                         capture_output=True, text=True, env={"COLUMNS": "200", "PATH": ""})
    assert "(the compiled function; torch named no line)" in out.stdout, out.stdout + out.stderr


def test_torch_named_frame_ranks_above_the_nodes_and_the_call(tmp_path):
    """A CUDA-graph skip's `Found from` frame (stored at ingest) wins over the call."""
    s = Store(tmp_path)
    s.compile("0/0")
    _call(s, "0/0", [40])
    s.ing.cudagraph_line("0/0", "skipping cudagraphs due to mutated inputs (1 instances). "
                         f'Found from : \n   File "{s.user}", line 9, in f\n    buf.add_(x)\n')
    (d,) = s.explain()
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (9, "torch")


def test_a_mutated_input_skip_without_found_from_points_at_the_writing_op(tmp_path):
    """set19/gpu triton_rope_inplace_cg_skip on torch 2.11 (H100): an in-place Triton RoPE
    kernel; torch's "mutated inputs" skip carried no `Found from`, and the diagnosis sat at
    the compiled call. The post-grad node that writes the input (the kernel's mutation
    wrapper, an in-place op) has the user's line."""
    s = Store(tmp_path)
    s.compile("0/0")
    _call(s, "0/0", [40])
    s.post_grad("0/0", f"        # File: {s.user}:12 in f, code: q.mul_(2)\n"
                "        mul_: \"f32[8]\" = torch.ops.aten.mul_.Tensor(arg0_1, 2)\n"
                f"        # File: {s.user}:13 in f, code: y = q.sin()\n"
                "        sin: \"f32[8]\" = torch.ops.aten.sin.default(arg0_1)\n")
    s.ing.cudagraph_line("0/0", "skipping cudagraphs due to mutated inputs (1 instances)")
    (d,) = [d for d in s.explain() if d["kind"] == "cudagraph"]
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (12, "fx_node"), d


def test_a_tf32_warning_points_at_its_matmul(tmp_path):
    """torch's TF32 warning is about the matmuls: the first mm node's stack trace (evidence
    `fx_node`), not the compiled function's def line as on main."""
    s = Store(tmp_path)
    s.compile("0/0")
    _call(s, "0/0", [40])
    s.post_grad("0/0", f"        # File: {s.user}:12 in f, code: y = x @ w\n"
                "        mm: \"f32[8, 8]\" = torch.ops.aten.mm.default(arg0_1, arg1_1)\n")
    s.ing.event("warning", "0/0", {},
                "TensorFloat32 tensor cores for float32 matrix multiplication available but "
                "not enabled. Consider setting `torch.set_float32_matmul_precision('high')` "
                "for better performance.")
    tf32 = [d for d in s.explain() if d["kind"] == "perf"]
    assert tf32, "no TF32 diagnosis"
    assert (tf32[0]["user_frame"]["lineno"], tf32[0]["user_frame"]["evidence"]) == \
        (12, "fx_node")


def test_a_frame_of_another_programs_file_is_not_this_runs_line(tmp_path):
    """A compile served from the FX graph cache carries the graph of the program that wrote
    the entry, with that program's file in its nodes' stack traces (probes28a's encoder
    fallback pointed at a file of a worktree long gone). A user file the run never saw is
    not evidence: the call of this run is its line."""
    s = Store(tmp_path)
    s.compile("0/0")
    _call(s, "0/0", [40])
    other = tmp_path / "gone" / "someone_elses.py"
    s.post_grad("0/0", f"        # File: {other}:12 in f, code: y = x @ w\n"
                "        mm: \"f32[8, 8]\" = torch.ops.aten.mm.default(arg0_1, arg1_1)\n")
    s.ing.event("warning", "0/0", {},
                "TensorFloat32 tensor cores for float32 matrix multiplication available but "
                "not enabled. Consider setting `torch.set_float32_matmul_precision('high')` "
                "for better performance.")
    (d,) = [d for d in s.explain() if d["kind"] == "perf"]
    assert (d["user_frame"]["filename"], d["user_frame"]["lineno"],
            d["user_frame"]["evidence"]) == (str(s.user), 40, "call")


def test_a_recompile_points_at_torchs_guard_line_with_its_call_kept(tmp_path):
    """Issue 29 §1's order: the guard's line torch names (`# file:4`) before the call."""
    s = Store(tmp_path)
    _recompile(s)
    _call(s, "0/1", [40, 22])
    (d,) = s.explain()
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (4, "torch")
    assert d["details"]["call_stack"][-1].endswith(":22")


@pytest.mark.parametrize("case", GPU_CASES)
def test_no_fixture_diagnosis_points_at_a_def_line_over_a_deeper_frame_gpu(case, tmp_path):
    """§1's property over the H200 fixture stores (replayed records), and §2 to §6's
    (tests/principles_check.py)."""
    path = tmp_path / f"{case}.db"
    run_id = gpu_replay(case, path)
    with Reader(path) as r:
        doc = explain_document(r, run_id)
        assert not def_line_problems(r, run_id, doc["diagnoses"])
        assert not library_line_problems(r, run_id, doc["diagnoses"])
        assert not ended_node_problems(r, run_id, doc["diagnoses"])
        assert not consequence_problems(r, run_id)
        assert not principle_problems(r, run_id, doc["diagnoses"])


@pytest.mark.parametrize("case,folder", DDP_CASES, ids=[c for c, _ in DDP_CASES])
def test_no_fixture_diagnosis_points_at_a_def_line_over_a_deeper_frame_ddp(case, folder,
                                                                           tmp_path):
    """§1's property over the DDP fixture stores (real records of the corpus scripts), and
    §2 to §6's (tests/principles_check.py)."""
    kw = {"folder": folder} if folder else {}
    r, run_id = ddp_replay(tmp_path, case, **kw)
    with r:
        doc = explain_document(r, run_id)
        assert not def_line_problems(r, run_id, doc["diagnoses"])
        assert not library_line_problems(r, run_id, doc["diagnoses"])
        assert not ended_node_problems(r, run_id, doc["diagnoses"])
        assert not consequence_problems(r, run_id)
        assert not principle_problems(r, run_id, doc["diagnoses"])
