"""GPU facts from real H200 runs (torch 2.11.0+cu130), checked on the CPU: the records those
runs stored are replayed through the Ingestor (tests/gpu_replay.py), then coverage, explain,
perf limiters and `check --require-cudagraphs` read the store. No GPU and no compile here; the
same scripts run for real in tests/gpu/ and corpus/gpu/."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_replay import FIXTURES, feed_lines, log_lines, replay  # noqa: E402

from compdiag.ingest.sources import keep_sources  # noqa: E402
from compdiag.analyses.cudagraph_coverage import coverage, summary_line  # noqa: E402
from compdiag.analyses import failure_fixes as FA  # noqa: E402
from compdiag.analyses.explain import explain  # noqa: E402
from compdiag.analyses.library_calls import is_library_call  # noqa: E402
from compdiag.analyses.perf import limiters  # noqa: E402
from compdiag.ingest import parsers as P  # noqa: E402
from compdiag.ingest.ingestor import Ingestor  # noqa: E402
from compdiag.store.reader import Reader  # noqa: E402
from compdiag.store.writer import Writer  # noqa: E402


def _store(tmp_path: Path, case: str) -> tuple[Path, int]:
    path = tmp_path / f"{case}.db"
    return path, replay(case, path)


def _diags(path: Path, run_id: int) -> list[dict]:
    with Reader(path) as r:
        return [d.to_json() for d in explain(r, run_id)]


def test_three_input_sizes_are_three_recordings(tmp_path):
    path, rid = _store(tmp_path, "cg_three_sizes")
    with Reader(path) as r:
        cov = coverage(r, rid)
    assert cov["recordings"] == 3 and cov["skipped"] == 0
    sizes = [s for g in cov["graphs"] for s in g["recorded_sizes"]]
    assert sizes == [[[256]], [[512]], [[1024]]]
    top = _diags(path, rid)[0]
    assert top["kind"] == "cudagraph" and "3 recordings for 3 input sizes" in top["reason"]
    assert "[256], [512], [1024]" in top["reason"]
    assert "mark_dynamic" in top["fix"] and "cudagraph_mark_step_begin" in top["fix"]
    assert "pad" in top["fix"]
    assert top["user_frame"]["filename"].endswith("cg_three_sizes.py")


def test_one_size_is_not_a_rerecord(tmp_path):
    path, rid = _store(tmp_path, "cg_overwritten")
    with Reader(path) as r:
        cov = coverage(r, rid)
    assert (cov["graphed"], cov["recordings"], cov["skipped"]) == (1, 1, 0)
    assert not [d for d in _diags(path, rid) if d["kind"] == "cudagraph"]


def test_cached_partitioned_graph_reports_partitions_and_no_skip(tmp_path):
    # The store's compile was an FX-graph-cache hit: no scheduler log, only the wrapper.
    path, rid = _store(tmp_path, "cg_partition")
    with Reader(path) as r:
        cov = coverage(r, rid)
        assert not [c for c in r.cudagraphs(rid) if not c["applied"]]
    g = cov["graphs"][0]
    assert (g["status"], cov["skipped"]) == ("partitioned", 0)
    assert g["partitions"]["cudagraphable"] == 1 and g["partitions"]["non_cudagraphable"] == 1
    assert {"device copy", "cpu kernel"} <= {s["reason"] for s in g["splits"]}
    assert "1 partitioned, 0 skipped" in summary_line(cov)
    top = _diags(path, rid)[0]
    assert top["kind"] == "cudagraph" and "partitioned" in top["reason"]
    assert "skipped" not in top["reason"]
    assert top["user_frame"]["lineno"] == 6  # c = y.cpu() * 2


def _lines_store(tmp_path: Path, lines: list[tuple[str | None, str]], script: str = "x.py"
                 ) -> tuple[Path, int]:
    """A run whose only facts are these log lines (compile id, message), fed as capture does."""
    path = tmp_path / "s.db"
    w = Writer(path)
    rid = w.begin_run(source="run", argv=[script])
    feed_lines(Ingestor(w, rid), lines)
    keep_sources(w, rid)  # as capture does when a run ends
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    return path, rid


def _partition_lines() -> list[tuple[str | None, str]]:
    """cg_partition's scheduler lines: the summary and the three ops it left out."""
    return [(cid, m) for cid, m in log_lines()
            if "Created 2 graph partitions" in m or m.strip().startswith(("op0:", "op1:", "op2:"))]


def test_scheduler_partition_lines_are_splits_not_skips(tmp_path):
    """A fresh compile logs 'Created 2 graph partitions: 1 cudagraphable, 1 non-cudagraphable'
    and the ops left out (the plain H200 run's lines)."""
    path, rid = _lines_store(tmp_path, _partition_lines(), "cg_partition.py")
    with Reader(path) as r:
        assert not [c for c in r.cudagraphs(rid) if not c["applied"]]
        splits = r.cudagraph_splits(rid, "0/0")
        parts = r.cudagraph_partitions(rid, "0/0")
    assert [s["node"] for s in splits] == ["op0", "op1", "op2"]
    assert splits[0]["fx"] == "prims.device_put.default(arg1_1, cpu)"
    assert (parts[0]["partitions"], parts[0]["cudagraphable"], parts[0]["source"]) == \
        (2, 1, "scheduler")


def test_partition_with_nothing_graphed_stays_a_skip(tmp_path):
    path, rid = _lines_store(tmp_path, [
        ("0/0", "Created 1 graph partitions: 0 cudagraphable, 1 non-cudagraphable"),
        ("0/0", "    op0: reason=cpu ops, ir=ComputedBuffer, fx=aten.add.Tensor(a, b)")])
    with Reader(path) as r:
        skips = [c for c in r.cudagraphs(rid) if not c["applied"]]
        assert skips and "cpu ops" in skips[0]["reason"]
        assert coverage(r, rid)["skipped"] == 1


def test_default_mode_partition_line_is_not_cudagraph_coverage(tmp_path):
    """With graph_partition on, the scheduler logs its partitions in the default mode too, all
    'non-cudagraphable' (mm_epilogue and BERT on the H200): nothing asked for CUDA graphs, so
    there is no coverage and no cudagraph diagnosis."""
    path, rid = _lines_store(tmp_path, [
        ("0/0", "Created 1 graph partitions: 0 cudagraphable, 1 non-cudagraphable"),
        ("0/0", "  Partition 0: 2 nodes, non-cudagraphable, inputs=3, outputs=1")])
    with Reader(path) as r:
        assert coverage(r, rid) is None
    assert not [d for d in _diags(path, rid) if d["kind"] == "cudagraph"]


def test_partition_split_by_several_reasons_takes_the_first_rule(tmp_path):
    """nonzero under reduce-overhead is split as 'cpu ops' and 'unbacked binding ops' (the H200
    run of corpus/gpu/cg_incompatible_op.py): the data-dependent op's fix wins (RULES order)."""
    from compdiag.analyses.diagnoses.cudagraphs import cudagraph_fix

    assert "torch.where" in cudagraph_fix("cpu ops unbacked binding ops")


def test_recording_lines_parse_sizes_and_symints():
    lines = log_lines("Recording function=")
    recs = [P.parse_cudagraph_recording(m) for _, m in lines]
    assert [(r["graph_id"], r["sizes"], r["symints"]) for r in recs] == [
        (0, [[256]], []), (1, [[512]], [512]), (2, [[1024]], [1024])]
    assert P.parse_cudagraph_recording("Recording cudagraph tree for symint key 512") is None


def _tf32_warning() -> str:
    line = next(x for x in (FIXTURES / "plain_err_lines.txt").read_text().splitlines()
                if "TensorFloat32" in x)
    return line.split("UserWarning: ", 1)[1]


def test_bert_fp32_names_tf32_with_the_fix(tmp_path):
    path = tmp_path / "bert.db"
    rid = replay("bert1", path)
    w = Writer(path)
    Ingestor(w, rid).event("warning", "0/0", {"category": "UserWarning"}, _tf32_warning())
    w.close()
    diags = _diags(path, rid)
    top = diags[0]
    assert top["kind"] == "perf" and "TF32" in top["reason"]
    assert "torch.set_float32_matmul_precision('high')" in top["fix"]
    # Costed from BERT's real timed graph (perf.json of the same H200 session).
    graphs = json.loads((FIXTURES / "bert1_perf.json").read_text())["runs"][0]["graphs"]
    with Reader(path) as r:
        objs = explain(r, rid)
    found = limiters(graphs, objs, [])
    assert found[0]["kind"] == "tf32_off", [(f["kind"], f["impact"]) for f in found]


def test_bert_epilogue_and_mm_epilogue_are_missed_epilogue_fusions(tmp_path):
    path, rid = _store(tmp_path, "mm_epilogue")
    top = _diags(path, rid)[0]
    assert top["kind"] == "fusion" and "missed epilogue fusion" in top["reason"]
    assert "extern_kernels.mm" in top["reason"] and "triton_poi_fused_add_mul_relu_0" in \
        top["reason"]
    assert top["user_frame"]["lineno"] == 4 and "max-autotune" in top["fix"]
    # default mode calls cuBLAS by design: information unless perf measured the graph's
    # fusions to matter (set23/gpu: it was the top problem of two correct programs)
    assert top["severity"] == "info"


@pytest.mark.parametrize("model", ["bert1", "r50"])
def test_no_library_call_is_a_fallback_limiter(model):
    doc = json.loads((FIXTURES / f"{model}_perf.json").read_text())
    graphs = doc["runs"][0]["graphs"]
    calls = {c for g in graphs for c in g["library_calls"]}
    assert calls and all(is_library_call(c) for c in calls), calls
    found = limiters(graphs, [], [])
    assert not [f for f in found if f["kind"] == "fallback"]
    for op in ("aten._scaled_dot_product_efficient_attention",
               "aten._scaled_dot_product_flash_attention", "aten._scaled_dot_product_cudnn_attention",
               "aten.convolution", "_c10d_functional.all_reduce", "extern_kernels.bmm"):
        assert is_library_call(op), op
    for op in ("aten.cumsum", "aten.sort", "aten.nonzero", "aten._embedding_bag"):
        assert not is_library_call(op), op


def test_sdpa_fallback_hint_is_not_a_diagnosis(tmp_path):
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    ing = Ingestor(w, rid)
    ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: aten._scaled_dot_product_efficient_attention")
    ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: aten.cumsum")
    keep_sources(w, rid)  # as capture does when a run ends
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    reasons = [d["reason"] for d in _diags(tmp_path / "s.db", rid) if d["kind"] == "perf"]
    assert any("aten.cumsum" in r for r in reasons)
    assert not any("scaled_dot_product" in r for r in reasons)


# torch's own text (c10/core/StorageImpl: set_storage_access_error_msg, cudagraph_trees.py)
OVERWRITTEN = ("Error: accessing tensor output of CUDAGraphs that has been overwritten by a "
               "subsequent run. Stack trace: File \"x.py\", line 4, in fn. To prevent "
               "overwriting, clone the tensor outside of torch.compile() or call "
               "torch.compiler.cudagraph_mark_step_begin() before each model invocation.")


def test_overwritten_output_is_a_runtime_failure_with_both_fixes(tmp_path):
    from compdiag.capture.failures import record_escaped_exception

    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    ing = Ingestor(w, rid)
    try:
        raise RuntimeError(OVERWRITTEN)
    except RuntimeError as exc:
        record_escaped_exception(ing, exc)
    keep_sources(w, rid)  # as capture does when a run ends
    w.end_run(rid, exit_code=1, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        f = r.failures(rid)
    assert f and f[0]["stage"] == "runtime"
    top = _diags(tmp_path / "s.db", rid)[0]
    assert top["kind"] == "failure" and top["stage"] == "runtime"
    assert "clone" in top["fix"] and "cudagraph_mark_step_begin" in top["fix"]


def test_an_error_raised_below_running_compiled_code_is_runtime_not_a_compile(tmp_path):
    """set5's cg_rerecord_output_slots on the H200 (torch 2.11): the overwritten-output error
    came up from the CUDA-graph trees under compile_fx.py's runtime wrapper `run`, which the
    output module's `call` ran; the compile_fx.py frame made it a compile failure
    ("Inductor failed while lowering"). Below the frame that runs
    an output module, code runs, whatever file it is in."""
    from compdiag.capture.failures import record_escaped_exception

    fake = tmp_path / "site" / "torch" / "_inductor"
    fake.mkdir(parents=True)
    files = {"output_code.py": "def __call__(f):\n    return f()\n",
             "compile_fx.py": "def run():\n    raise RuntimeError(MSG)\n"}
    spaces: dict[str, dict] = {}
    for name, src in files.items():
        (fake / name).write_text(src)
        spaces[name] = {"MSG": OVERWRITTEN}
        exec(compile(src, str(fake / name), "exec"), spaces[name])
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    ing = Ingestor(w, rid)
    try:
        spaces["output_code.py"]["__call__"](spaces["compile_fx.py"]["run"])
    except RuntimeError as exc:
        record_escaped_exception(ing, exc)
    keep_sources(w, rid)  # as capture does when a run ends
    w.end_run(rid, exit_code=1, status="done")
    w.close()
    with Reader(tmp_path / "s.db") as r:
        assert [f["stage"] for f in r.failures(rid)] == ["runtime"]
    top = _diags(tmp_path / "s.db", rid)[0]
    assert top["kind"] == "failure" and top["stage"] == "runtime", top
    assert "lowering" not in top["explanation"] and "clone" in top["fix"], top


# triton/runtime/errors.py and triton's compiler, as Inductor wraps them.
KERNEL_ERRORS = {
    "OutOfResources": ("InductorError", "OutOfResources: out of resource: shared memory, "
                       "Required: 262144, Hardware limit: 232448. Reducing block sizes or "
                       "`num_stages` may help.", "shared memory"),
    "PTXAS": ("InductorError", "PTXASError: PTXAS error: Internal Triton PTX codegen error\n"
              "`ptxas` stderr:\nptxas fatal   : Unresolved extern function 'foo'", "ptxas"),
    "MLIR": ("RuntimeError", "PassManager::run failed", "MLIR"),
    "registers": ("RuntimeError", "Triton Error [CUDA]: too many resources requested for "
                  "launch", "registers"),
}


@pytest.mark.parametrize("name", sorted(KERNEL_ERRORS))
def test_triton_toolchain_errors_are_kernel_compile(name):
    exc_type, msg, word = KERNEL_ERRORS[name]
    assert P.classify_stage(exc_type, msg, None) == "kernel_compile"
    fix = FA.kernel_compile_fix(msg)
    assert fix and word.lower() in fix.lower(), fix


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compdiag", *args], capture_output=True,
                          text=True, timeout=120)


def test_check_require_cudagraphs_on_stored_runs(tmp_path):
    clean, rid = _store(tmp_path, "cg_three_sizes")
    junit = tmp_path / "ok.xml"
    ok = _cli("check", "--store", str(clean), "--require-cudagraphs", "--junit", str(junit),
              str(rid))
    assert ok.returncode == 0, ok.stderr
    assert 'failures="0"' in junit.read_text()
    # the same run with one graph skipped (torch's perf_hints line)
    skipped = tmp_path / "skip.db"
    rid = replay("cg_overwritten", skipped)
    w = Writer(skipped)
    ing = Ingestor(w, rid)
    ing.cudagraph_line("1/0", "skipping cudagraphs due to mutated inputs (1 instances)")
    w.close()
    junit = tmp_path / "bad.xml"
    bad = _cli("check", "--store", str(skipped), "--require-cudagraphs", "--junit", str(junit),
               "--json", str(rid))
    assert bad.returncode == 1, bad.stderr
    doc = json.loads(bad.stdout)
    assert [c["status"] for c in doc["cudagraphs"]] == ["graphed", "skipped"]
    assert 'failures="1"' in junit.read_text() and "mutated inputs" in junit.read_text()


def test_try_chooses_settings_from_the_top_limiters():
    from compdiag.analyses.perf_try import MAX_TRIES, choose

    lims = [{"kind": "tf32_off", "fix": "torch.set_float32_matmul_precision('high')"},
            {"kind": "fusion_miss", "fix": "Compile with mode='max-autotune' ..."},
            {"kind": "fusion_miss", "fix": "Usually inherent to the graph"},
            {"kind": "cudagraph_rerecord", "fix": "pad ... mark_dynamic"},
            {"kind": "graph_break", "fix": "torch._dynamo.config.capture_scalar_outputs = True"}]
    tries, skipped = choose(lims, "NVIDIA H200", "default")
    assert [t["setting"] for t in tries] == ["tf32", "max-autotune", "dynamic"][:MAX_TRIES]
    assert {s["setting"] for s in skipped} == {"cudagraph_mark_step_begin"}
    cpu, cpu_skipped = choose(lims, "cpu", "default")
    assert [t["setting"] for t in cpu] == ["dynamic", "capture_scalar_outputs"]
    assert {"tf32", "max-autotune"} <= {s["setting"] for s in cpu_skipped}
    only, _ = choose(lims, "NVIDIA H200", "default", {"tf32"})
    assert [t["setting"] for t in only] == ["tf32"]


def test_scheduler_partition_diagnosis_takes_torchs_split_reason(tmp_path):
    """The fresh-compile path: split ops from the scheduler log, their user line from the
    post-grad graph (the cached run's nodes), the fix of the reason torch gave (cpu ops)."""
    path = tmp_path / "p.db"
    rid = replay("cg_partition", path)
    with Reader(path) as r:
        nodes = r.graph_nodes(rid, "0/0")
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["cg_partition.py"])
    ing = Ingestor(w, rid)
    ing.record({"frame_id": 0, "frame_compile_id": 0, "compilation_metrics": {
        "co_name": "fn", "co_filename": nodes[0]["filename"], "co_firstlineno": 4}}, None)
    for n in nodes:
        w.insert("graph_nodes", run_id=rid, compile_id="0/0", seq=1, **n)
    feed_lines(ing, _partition_lines())
    keep_sources(w, rid)  # as capture does when a run ends
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    top = _diags(tmp_path / "s.db", rid)[0]
    assert top["kind"] == "cudagraph" and "partitioned" in top["reason"], top
    assert "cpu ops" in top["reason"] and "CUDA" in top["fix"], top
    assert top["user_frame"]["lineno"] == 6, top


def test_child_keeps_torchs_warnings_and_still_shows_them(tmp_path, monkeypatch):
    import warnings

    from compdiag.capture.hooks import Capture

    shown = []
    monkeypatch.setattr(warnings, "showwarning", lambda msg, *a, **k: shown.append(str(msg)))
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    Capture(Ingestor(w, rid))._install_warnings()
    warnings.showwarning(_tf32_warning(), UserWarning,
                         "/site-packages/torch/_inductor/compile_fx.py", 322)
    warnings.showwarning("the user's own", UserWarning, "/home/u/train.py", 3)
    w.close()
    with Reader(tmp_path / "s.db") as r:
        kept = [x["message"] for x in r.torch_warnings(rid)]
    assert kept == [_tf32_warning()]
    assert shown == [_tf32_warning(), "the user's own"]  # shown as before, both


def test_data_dependent_split_owns_its_rerecordings(tmp_path):
    """The H200 run of corpus/gpu/cg_incompatible_op.py (nonzero under reduce-overhead, the
    same [16] input on every call): torch split the graph at the unbacked binding, and the
    partition after it recorded again for each nonzero count the random data brought. Those
    recordings are the split's consequence: one diagnosis, the split's, at nonzero's line, with
    its torch.where fix; never "re-recorded ... for 2 input sizes" ranked above it (what main
    ranked first at 3711016)."""
    shape = "Tensor(size={}, stride=(1,), dtype=torch.int64, data_ptr=0x7F0000000000)"
    path, rid = _lines_store(tmp_path, [
        ("0/0", "Created 2 graph partitions: 1 cudagraphable, 1 non-cudagraphable"),
        ("0/0", "  Partition 0: 4 nodes, non-cudagraphable, inputs=1, outputs=2"),
        ("0/0", "    op0: reason=unbacked binding ops, ir=FallbackKernel, "
                "fx=aten.nonzero.default(gt)"),
        ("0/0", "  Partition 1: 2 nodes, cudagraphable, inputs=2, outputs=1"),
        (None, "[0/0] Recording function=partition_1, cuda_graph_id=0, inputs: [0]: "
               + shape.format("[9, 1]")),
        (None, "[0/0] Recording function=partition_1, cuda_graph_id=1, inputs: [0]: "
               + shape.format("[6, 1]"))], "cg_incompatible_op.py")
    cg = [d for d in _diags(path, rid) if d["kind"] == "cudagraph"]
    assert len(cg) == 1, [d["reason"] for d in cg]
    assert "unbacked binding" in cg[0]["reason"] and "torch.where" in cg[0]["fix"]
    assert "recorded 2 times for 2 data-dependent sizes" in cg[0]["reason"]


def _tree_lines(keys: list[int], observed: int | None = None) -> list[tuple[str | None, str]]:
    """cudagraph_trees' INFO lines for a function recorded for each int key (torch 2.11
    names no compile in them), and its warning once past the warn limit."""
    lines: list[tuple[str | None, str]] = [(None, f"Recording cudagraph tree for symint key {k}")
                                           for k in keys]
    if observed:
        lines.append((None, "CUDAGraph supports dynamic shapes by recording a new graph for "
                            "each distinct input size. Recording too many CUDAGraphs may lead "
                            f"to extra overhead. We have observed {observed} distinct sizes. "
                            "Please consider the following options for better performance: "
                            "a) padding inputs to a few fixed number of shapes; or b) set "
                            "torch._inductor.config.triton.cudagraph_skip_dynamic_graphs=True."))
    return lines


def test_rerecordings_counted_from_torchs_own_warning(tmp_path):
    """Issue 29 §6: a program that turned the cudagraphs log on itself at INFO keeps no DEBUG
    'Recording function=' lines; cudagraph_trees' tree lines and its warning ('We have observed
    9 distinct sizes') still say the graph re-recorded. main at 3711016 said nothing."""
    lines = [("0/1", "Recording cudagraph tree for graph without symints")]
    path, rid = _lines_store(tmp_path, lines + _tree_lines(list(range(2, 10)), observed=9))
    cg = [d for d in _diags(path, rid) if d["kind"] == "cudagraph"]
    assert len(cg) == 1 and cg[0]["reason"].startswith("CUDA graphs re-recorded: 9 recordings "
                                                         "for 9 input sizes")
    assert "torch warned it observed 9 distinct sizes" in cg[0]["reason"]
    assert "pad" in cg[0]["fix"]


def test_rerecordings_of_a_partition_counted_from_torchs_own_warning(tmp_path):
    """Issue 29 §6 in a partitioned graph (graph_partition, torch 2.11's default on CUDA: the
    H200 run of corpus/gpu/cg_rerecord_warned recorded `partition_0` through the wrapper's
    `self.partitions[0](...)`): the one cudagraphable partition recorded once per int key,
    at INFO only (no DEBUG 'Recording function=' lines), and torch's warning. The count is
    torch's, the diagnosis one, and no partition split is taken for a re-recording."""
    lines = [("0/0", "Created 1 graph partitions: 1 cudagraphable, 0 non-cudagraphable"),
             ("0/0", "  Partition 0: 3 nodes, cudagraphable, inputs=2, outputs=1")]
    path, rid = _lines_store(tmp_path, lines + _tree_lines(list(range(16, 25)), observed=9))
    cg = [d for d in _diags(path, rid) if d["kind"] == "cudagraph"]
    assert len(cg) == 1, [d["reason"] for d in cg]
    assert cg[0]["reason"].startswith("CUDA graphs re-recorded: 9 recordings")
    assert "torch warned it observed 9 distinct sizes" in cg[0]["reason"]


def test_two_partitions_recorded_once_are_not_a_rerecording(tmp_path):
    """A graph of two CUDA-graphed partitions records two functions for one input size, each
    with its own inputs: one size, not two (main at 3711016 counted 'partition_0' and
    'partition_1' inputs as two sizes and reported a re-recording)."""
    t = "Tensor(size=[{}], stride=(1,), dtype=torch.float32, data_ptr=0x7F0000000000)"
    path, rid = _lines_store(tmp_path, [
        ("0/0", "Created 3 graph partitions: 2 cudagraphable, 1 non-cudagraphable"),
        (None, "[0/0] Recording function=partition_0, cuda_graph_id=0, inputs: [0]: "
               + t.format(128) + ", [1]: " + t.format(128)),
        (None, "[0/0] Recording function=partition_1, cuda_graph_id=1, inputs: [0]: "
               + t.format(64))])
    assert not [d for d in _diags(path, rid) if "re-recorded" in d["reason"]]


def test_rerecording_points_at_the_call_that_brought_the_new_size(tmp_path):
    """Issue 29 §6: capture keeps the user line that called the compiled function when
    cudagraph_trees recorded (Capture._on_artifact_line); the re-recording is diagnosed at
    the call that brought the second size, not at the compiled function's def line."""
    script = tmp_path / "loop.py"
    script.write_text("import torch\nf = torch.compile(lambda x: x * 2, mode='reduce-overhead')\n"
                      "f(torch.ones(8, device='cuda'))\nf(torch.ones(16, device='cuda'))\n")
    path = tmp_path / "s.db"
    w = Writer(path)
    rid = w.begin_run(source="run", argv=[str(script)])
    ing = Ingestor(w, rid)
    for lineno, (key, n) in enumerate(((8, 8), (16, 16)), start=3):
        call = {"filename": str(script), "lineno": lineno, "name": "<module>", "line": None}
        for msg in (f"[0/0] Recording cudagraph tree for symint key {key}",
                    f"[0/0] Recording function=partition_0, cuda_graph_id={n}, inputs: [0]: "
                    f"Tensor(size=[{n}], stride=(1,), dtype=torch.float32, data_ptr=0x7F00), "
                    f"[1]: int({n})"):
            ing.cudagraph_line(None, msg)
            ing.event("cudagraphs", None, {"call": call}, msg)
    keep_sources(w, rid)  # as capture does when a run ends
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    cg = [d for d in _diags(path, rid) if "re-recorded" in d["reason"]]
    assert len(cg) == 1 and "2 recordings for 2 input sizes" in cg[0]["reason"]
    assert cg[0]["user_frame"]["lineno"] == 4, cg[0]["user_frame"]
    # ... and the fact survives reindex (the call is in the record's own metadata)
    from compdiag.ingest.reindex import reindex
    reindex(path)
    cg2 = [d for d in _diags(path, rid) if "re-recorded" in d["reason"]]
    assert cg2 == cg


def test_tree_lines_and_the_warning_parse():
    assert P.parse_cudagraph_tree("[0/1] Recording cudagraph tree for symint key 512") == \
        {"key": "512", "observed": None}
    assert P.parse_cudagraph_tree("Recording cudagraph tree for graph without symints") == \
        {"key": "", "observed": None}
    assert P.parse_cudagraph_tree(_tree_lines([], observed=9)[0][1]) == \
        {"key": None, "observed": 9}
    assert P.parse_cudagraph_tree("[0/0] Recording function=partition_0, cuda_graph_id=0") \
        is None


def test_a_partition_split_by_a_custom_op_is_at_the_custom_ops_line(tmp_path):
    """benchmarks/explain_holdout/gpu/cg_partition_unsafe_op.py on the H200: a cudagraph_unsafe
    custom op (`holdout.host_scale`) splits the graph; the split's op was looked up only for
    the aten/prims namespaces, so the diagnosis fell back to the call. Any namespace's op
    names its post-grad node and so the op's line."""
    script = tmp_path / "unsafe.py"
    script.write_text("".join(f"line_{i} = {i}\n" for i in range(1, 30)))
    path = tmp_path / "s.db"
    w = Writer(path)
    rid = w.begin_run(source="run", argv=[str(script)])
    ing = Ingestor(w, rid)
    ing.record({"frame_id": 0, "frame_compile_id": 0, "inductor_post_grad_graph": {}},
               "class <lambda>(torch.nn.Module):\n    def forward(self, arg0_1: \"f32[128]\"):\n"
               f"        # File: {script}:22 in f, code: line_22 = 22\n"
               "        host_scale: \"f32[128]\" = torch.ops.holdout.host_scale.default(add)\n"
               "        return (host_scale,)\n")
    feed_lines(ing, [
        ("0/0", "Created 3 graph partitions: 2 cudagraphable, 1 non-cudagraphable"),
        ("0/0", "    op1: reason=CUDAGraph-unsafe custom ops, ir=FallbackKernel, "
                "fx=holdout.host_scale.default(add)")])
    keep_sources(w, rid)  # as capture does when a run ends
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    cg = [d for d in _diags(path, rid) if d["kind"] == "cudagraph"]
    assert cg and "partitioned" in cg[0]["reason"] and cg[0]["user_frame"]["lineno"] == 22, cg


def test_rerecordings_of_one_size_are_counted_with_torchs_reason(tmp_path):
    """Issue 29 §6, however torch reports them: a parameter replaced by a new nn.Parameter
    each step (the H200 run of set5's cg_param_swap_rerecord, recorded after its first run was
    scored) made cudagraph_trees log 29 'Re-recording function=partition_0, reason=static
    input data pointer changed' lines for one input size. Only size changes were counted, so
    explain said nothing about CUDA graphs and a TF32 hint came first."""
    assert P.parse_cudagraph_rerecord(
        "[0/0] Re-recording function=partition_0, mode=FunctionID, reason=static input data "
        "pointer changed.\ninput name: arg0_1. data pointer changed from 1 to 2.") == {
        "function": "partition_0", "reason": "static input data pointer changed",
        "input": "arg0_1", "frames": []}
    path, rid = _store(tmp_path, "cg_param_swap")
    with Reader(path) as r:
        again = r.cudagraph_rerecords(rid)
    assert len(again) == 29 and {a["input"] for a in again} == {"arg0_1"}
    top = _diags(path, rid)[0]
    assert top["kind"] == "cudagraph" and top["count"] == 29, top
    assert "static input data pointer changed" in top["reason"]
    assert "copy_" in top["fix"] and "mark_dynamic" not in top["fix"]


def test_rerecord_points_at_the_input_torch_names(tmp_path):
    """set34/gpu cg_session_kv_static_rerecord (H100, torch 2.11): KV caches marked with
    mark_static_address and allocated afresh per chat session. torch's re-record line names
    the changed input's first use ('input stack trace: File ..., line 25 ... index_copy_');
    explain pointed at the decode call instead, and counted torch's 120 failed checks (one per
    earlier recording tried at each call) as 120 re-recordings where 6 graphs were recorded."""
    path, rid = _store(tmp_path, "cg_kv_session_rerecord")
    top = _diags(path, rid)[0]
    assert top["kind"] == "cudagraph", top
    assert top["user_frame"]["lineno"] == 25, top["user_frame"]
    assert top["user_frame"]["evidence"] == "torch", top["user_frame"]
    assert "120 failed checks" in top["reason"] and "6 recordings" in top["reason"], top


def test_a_rerecord_on_a_replaced_parameter_points_at_the_rebinding(tmp_path):
    """set5 cg_param_swap_rerecord's class (PR #129349): a parameter replaced by a new
    nn.Parameter each step re-records the CUDA graph; the fix (copy_ in place) changes the
    assignment, so the diagnosis points at it (evidence `source`), not at the call after it.
    On main it was the call (line 17; fails on main). The graph input `arg0_1` is Dynamo's
    first placeholder, `L_fn_parameters_weight_`: the attribute `weight`, whatever the
    program's names."""
    from types import SimpleNamespace

    from compdiag.analyses.diagnosis import UserFrame
    from compdiag.analyses.rebinding import input_attribute, rebinding_frame

    script = tmp_path / "swap.py"
    script.write_text("import torch\nm = torch.nn.Linear(2, 2)\nfor i in range(3):\n"
                      "    m.bias = torch.nn.Parameter(torch.zeros(2))\n    setattr(m, 'w', 1)\n"
                      "    y = m(torch.ones(2))\n")
    ctx = SimpleNamespace(
        frame=lambda f, n, line=None, evidence=None: UserFrame(f, n, line, evidence),
        # the run's kept copy of the script (store 4), as RunContext.source_text gives it
        source_text=lambda f: script.read_text() if f == str(script) else None,
        dynamo_nodes=lambda cid: [{"call": "L_m_parameters_weight_"},
                                  {"call": "L_m_parameters_bias_"}, {"call": "L_x_"},
                                  {"call": "torch._C._nn.linear(l_x_)", "lineno": 6}])
    assert input_attribute(ctx, "0/0", "arg1_1") == "bias"
    assert input_attribute(ctx, "0/0", "arg2_1") is None  # a user input, no attribute
    call = UserFrame(str(script), 6, "y = m(torch.ones(2))", "call")
    assert rebinding_frame(ctx, call, "bias").lineno == 4
    assert rebinding_frame(ctx, call, "w").lineno == 5
    assert rebinding_frame(ctx, call, "weight") is None  # not rebound: the call stays
    path, rid = _store(tmp_path, "cg_param_swap")
    top = _diags(path, rid)[0]
    if not Path(top["user_frame"]["filename"]).exists():
        pytest.skip("the recorded script is not at its recorded path on this machine")
    assert top["user_frame"]["lineno"] == 16 and top["user_frame"]["evidence"] == "source"


def test_a_device_assert_reported_later_is_at_the_kernels_line(tmp_path):
    """A Triton kernel's device-side assert (Inductor's bounds check on an indirect load)
    surfaces as `AcceleratorError: CUDA error: device-side assert triggered` at the program's
    next torch.cuda.synchronize() (set10/gpu/triton_index_assert.py, pytorch#141560). On main
    before this test the top diagnosis was "the program raised AcceleratorError at line 33,
    outside compiled code": the line CUDA reported it at, not the lookup the kernel computes."""
    path, rid = _store(tmp_path, "triton_index_assert")
    top = _diags(path, rid)[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 22, top
    assert "index out of bounds: 0 <= tmp4 < 1000" in top["reason"]
    assert "at line 33" in top["reason"] and "outside compiled code" not in top["reason"]
    assert "/root/" not in top["reason"]  # the kernel file's hashed path is not kept
    assert "compdiag bisect" in top["fix"]


def test_a_device_assert_names_the_kernel_that_holds_its_message():
    text = ("/tmp/c/oi/coi6g.py:40: unknown: block: [0,0,0], thread: [39,0,0] Assertion "
            "`index out of bounds: 0 <= tmp4 < 1000` failed.\n" * 3
            + "RuntimeError: CUDA error: device-side assert triggered\n")
    kernels = [("k_other", 'tl.device_assert(x, "index out of bounds: 0 <= tmp2 < 8")'),
               ("k_lookup", 'tl.device_assert(m, "index out of bounds: 0 <= tmp4 < 1000")')]
    assert P.kernel_of_error(text, kernels) == "k_lookup"
    from compdiag.ingest.endings import native_message
    assert native_message(text) == ("device-side Assertion `index out of bounds: "
                                    "0 <= tmp4 < 1000` failed.")


def test_a_warning_torch_raises_keeps_the_users_call_running_then(tmp_path, monkeypatch):
    """cudagraph_trees warns from inside a compiled call ("Unable to hit fast path of
    CUDAGraphs ..."): what it is about is the user's call running then, which capture keeps
    beside the warning (before: only torch's own file and line were kept)."""
    import inspect
    import warnings

    from compdiag.capture.hooks import Capture

    monkeypatch.setattr(warnings, "showwarning", lambda *a, **k: None)
    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    Capture(Ingestor(w, rid))._install_warnings()
    line = inspect.currentframe().f_lineno + 1
    warnings.showwarning("Unable to hit fast path", UserWarning,
                         "/site-packages/torch/_inductor/cudagraph_trees.py", 2582)
    w.close()
    with Reader(tmp_path / "s.db") as r:
        (kept,) = r.torch_warnings(rid)
    assert kept["call"]["filename"] == __file__ and kept["call"]["lineno"] == line, kept


def test_calls_that_cannot_replay_their_cuda_graph_are_a_problem_at_the_call(tmp_path):
    """set10/gpu/cg_pending_backward_warn.py (pytorch#176846) on the H200: torch.func's
    gradients computed inside a reduce-overhead function leave each step's outputs waiting for
    a backward, and cudagraph_trees warns it cannot take its fast path. On main before this
    test, no diagnosis read that warning: the top was the TF32 perf hint."""
    path, rid = _store(tmp_path, "cg_pending_backward_warn")
    top = _diags(path, rid)[0]
    assert top["kind"] == "cudagraph" and "not replayed" in top["reason"], top
    assert "backward" in top["reason"] and top["user_frame"]["lineno"] == 41, top
    assert "cudagraph_mark_step_begin" in top["fix"] and "detach" in top["fix"]


def test_a_failed_check_of_random_values_names_inductors_generator(tmp_path):
    """set10/gpu/rand_like_seeded_mismatch.py (pytorch#172206): eager and compiled outputs of a
    model that draws rand_like/randn_like, compared after the same manual_seed, differ by
    design (Inductor's own generator, fallback_random=False). On main before this test the top
    diagnosis said only "your own check at line 45 failed", without the cause."""
    path, rid = _store(tmp_path, "rand_like_seeded_mismatch")
    top = _diags(path, rid)[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 45, top
    assert "random numbers (line 32)" in top["reason"], top
    assert "fallback_random = True" in top["fix"]


def test_a_failed_check_against_float64_names_tf32_measured_on_the_h200(tmp_path):
    """set10/gpu/conv_tf32_fp64_reference.py (pytorch#158530) under --check-accuracy on the
    H200: eager's distance from the float64 reference fell 675x with TF32 off (2.96e-4 to
    4.38e-7), so the program's failed assert_close is TF32's, in eager and compiled alike. On
    main before this change the check called it ill-conditioned (rounding judged against
    float32's) and the failed check's headline named no cause."""
    path, rid = _store(tmp_path, "conv_tf32_fp64_reference")
    diags = _diags(path, rid)
    top = diags[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 41, top
    assert "TF32" in top["reason"] and "allow_tf32 = False" in top["fix"]
    assert "ill-conditioned" not in top["fix"]
    acc = next(d for d in diags if d["kind"] == "accuracy")
    assert acc["reason"].startswith("TF32, not a compiler bug") and "4.38e-07" in acc["reason"]
    assert acc["user_frame"]["lineno"] == 28  # the convolution


def test_recordings_keyed_by_an_int_argument_name_it(tmp_path):
    """set11/gpu/cg_int_arg_rerecord.py (pytorch#119579) on the H200: a decode step's int
    `token_pos` became dynamic after one recompile, and cudagraph_trees recorded a graph per
    value. Before, the headline said "12 recordings for 12 input sizes", naming no input, and
    the fix was about padding sizes."""
    path, rid = _store(tmp_path, "cg_int_arg_rerecord")
    top = _diags(path, rid)[0]
    assert top["kind"] == "cudagraph" and top["user_frame"]["lineno"] == 25, top
    assert "12 values of `token_pos`" in top["reason"], top
    assert "0-d tensor" in top["fix"] and "pad" not in top["fix"]


def test_a_failed_check_names_the_seed_call_the_graph_dropped(tmp_path):
    """set12/gpu/cuda_manual_seed_dropped.py (pytorch#149621) on the H200: torch 2.11 traced
    torch.cuda.manual_seed into the Dynamo graph and AOTAutograd/Inductor dropped it, so two
    compiled calls drew different noise and the program's reproducibility check failed. On main
    the headline named Inductor's random numbers only, never the seed call that had no effect."""
    path, rid = _store(tmp_path, "cuda_manual_seed_dropped")
    top = _diags(path, rid)[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 28, top
    assert "seed call at line 19 (`torch.cuda.manual_seed(1234)`)" in top["reason"], top
    assert top["fix"].startswith("Seed outside the compiled function"), top["fix"]


def test_a_failed_check_names_the_attention_inductor_rewrote(tmp_path):
    """set12/gpu/sfdp_attention_replaced.py (pytorch#179578) on the H200: Inductor's pattern
    matcher replaced a hand-written fp16 attention (matmul, softmax, matmul) with a fused
    scaled_dot_product_attention kernel, and the program's exact check failed. On main the
    headline said only "your own check at line 46 failed"."""
    path, rid = _store(tmp_path, "sfdp_attention_replaced")
    top = _diags(path, rid)[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 46, top
    assert "replaced the attention written by hand at line 35" in top["reason"], top
    assert "scaled_dot_product_attention" in top["reason"]
    assert "pattern_matcher = False" in top["fix"]


def test_an_error_of_cudagraph_trees_own_check_is_at_the_call_with_the_allocator_fix(tmp_path):
    """set12/gpu/cg_uncached_allocator.py (PR #183780) on the H200: with
    PYTORCH_NO_CUDA_MEMORY_CACHING=1, cudagraph_trees' memory-pool check raised "These storage
    data ptrs are not allocated in pool" (its message blames inductor). It was raised by torch's
    CUDA-graph runtime, not by an op, so it is at the compiled call (32); on main it was at the
    function's only op line (24), with the generic bisect/minify fix."""
    path, rid = _store(tmp_path, "cg_uncached_allocator")
    top = _diags(path, rid)[0]
    assert top["kind"] == "failure" and top["user_frame"]["lineno"] == 32, top["user_frame"]
    assert top["user_frame"]["evidence"] == "call"
    assert "PYTORCH_NO_CUDA_MEMORY_CACHING" in top["fix"], top["fix"]
    # torch's message blames inductor; the explanation says what it means
    assert "caching allocator was bypassed" in top["explanation"], top["explanation"]


def test_a_compile_inside_a_users_cuda_graph_capture_says_to_warm_up_first(tmp_path):
    """set12/gpu/cg_compile_during_capture.py (pytorch#167639, #131782) on the H200: the
    compiled model's first call, inside the program's own torch.cuda.graph capture, compiled
    there and failed ("Cannot copy between CPU and CUDA tensors during CUDA graph capture").
    On main the fix was the generic bisect/minify one; now it says to call the function once
    before capturing."""
    path, rid = _store(tmp_path, "cg_compile_during_capture")
    top = _diags(path, rid)[0]
    assert top["kind"] == "failure" and top["user_frame"]["lineno"] == 24, top
    assert "once before capturing" in top["fix"], top["fix"]
    assert "inside a CUDA graph capture" in top["explanation"], top["explanation"]


def test_a_host_crash_on_a_triton_kernels_launch_is_at_the_call_that_ran_it(tmp_path):
    """set5/gpu/cg_state_buffer_segv.py (pytorch#192748) on the H200: SIGSEGV on the second
    call of a reduce-overhead module whose state buffer was allocated inside the compiled
    region; faulthandler's stack ends on the wrapper line that launches a Triton kernel. A
    Triton kernel runs on the GPU (launched asynchronously), so a host crash there is the
    launcher's with the program's arguments: the call (31), the kernel still named. On main it
    was at the kernel's op line (22), as a C++ kernel's crash is."""
    path, rid = _store(tmp_path, "cg_state_buffer_segv")
    top = _diags(path, rid)[0]
    assert top["kind"] == "program" and "SIGSEGV" in top["reason"], top
    assert top["user_frame"]["lineno"] == 31 and top["user_frame"]["evidence"] == "call", top
    assert "triton_poi_fused_add_addmm_copy__0" in top["reason"]


def test_a_cudagraph_skip_raised_as_an_error_is_at_the_line_found_from_names(tmp_path):
    """set13/gpu/cg_or_error_item.py (cudagraph_or_error, PRs #161862/#163220) on the H200:
    the CUDA-graph skip raised as an error ends "Found from   File ..., line 28" on the same
    line, which the trace parser skipped (it read the lines after a "Found from :" line), so on
    main the failure was at the compiled call (35), not at the `.item()` torch named."""
    path, rid = _store(tmp_path, "cg_or_error_item")
    top = _diags(path, rid)[0]
    assert top["kind"] == "failure" and top["user_frame"]["lineno"] == 28, top["user_frame"]
    assert "incompatible op" in top["reason"]


def test_a_runtime_error_in_an_op_the_wrapper_calls_is_at_that_ops_line(tmp_path):
    """set13/gpu/cuda_event_record_device.py (pytorch#176486) on the H200: Dynamo turned
    `event.record()` into torch.ops.streams.record_event, which raised when the compiled
    wrapper called it (`torch.ops.streams.record_event.default(0, 1)` in the output code). On
    main the failure was at the compiled call (26); the wrapper line names the op, whose node
    is the user's line 22."""
    path, rid = _store(tmp_path, "cuda_event_record_device")
    top = _diags(path, rid)[0]
    assert top["kind"] == "failure" and top["user_frame"]["lineno"] == 22, top["user_frame"]
    assert "streams.record_event" in top["reason"]


def test_a_cudagraph_skip_for_an_op_torch_noted_no_line_for_is_at_its_items_line(tmp_path):
    """set16/gpu/cg_checkpoint_dropout_rng.py (PR #146878) on the H200: a checkpointed dropout
    under fallback_random is wrapped in run_and_save_rng_state, which CUDA graphs refuse
    ("incompatible op run_and_save_rng_state", no "Found from"). The post-grad graph notes no
    line for that node ("# No stacktrace found"), its item's the dropout's (38). On main the
    skip was at the compiled call (51): the reason's bare op name was not read as an op, the
    node took the line of the section before it (37), and only the backward graph was
    searched."""
    path, rid = _store(tmp_path, "cg_checkpoint_rng_skip")
    top = _diags(path, rid)[0]
    assert top["kind"] == "cudagraph" and "run_and_save_rng_state" in top["reason"], top
    assert top["user_frame"]["lineno"] == 38, top["user_frame"]


def test_a_node_torch_noted_no_line_for_has_none_but_its_items():
    """A post-grad node under '# No stacktrace found' is no longer at the line of the section
    before it; a multi-output one takes the line of its first item that has one."""
    text = """
        # File: /u/m.py:37 in inner, code: h = gelu(x)
        mul_2: "f32[4]" = torch.ops.aten.mul.Tensor(a, b)

        # No stacktrace found for following nodes
        rng = torch.ops.higher_order.run_and_save_rng_state(torch.ops.aten.native_dropout.default, mul_2)
        getitem_2: "u8[16][1]cpu" = rng[0]
        copy_: "f32[4]" = torch.ops.aten.copy_.default(a, mul_2)

        # File: /u/m.py:38 in inner, code: h = self.drop(h)
        getitem_3 = rng[1]
        relu: "f32[4]" = torch.ops.aten.relu.default(getitem_3)
"""
    nodes = {n["node"]: n for n in P.graph_nodes(text)}
    assert nodes["mul_2"]["lineno"] == 37
    assert nodes["rng"]["lineno"] == 38 and nodes["rng"]["line"] == "h = self.drop(h)"
    assert nodes["copy_"]["lineno"] is None
    assert nodes["relu"]["lineno"] == 38


def test_an_incompatible_op_is_one_of_the_ops_a_skip_names():
    assert P.cudagraph_skip_facts(
        "disabling cudagraphs due to incompatible op run_and_save_rng_state")["ops"] == \
        ["run_and_save_rng_state"]
    facts = P.cudagraph_skip_facts(
        "disabling cudagraphs due to incompatible op aten._fused_moving_avg_obs_fq_helper_"
        "functional.default Found from \n   File \"/u/q.py\", line 40, in f\n    x = fq(x)\n")
    assert facts["ops"] == ["_fused_moving_avg_obs_fq_helper_functional"]
    assert facts["frames"][0]["lineno"] == 40


def test_a_forward_and_its_backward_recorded_once_each_are_no_re_recording(tmp_path):
    """set17/gpu/hf_bert_problem_type_recompile.py on the H200 (transformers 5.17): BERT's
    classification forward sets `config.problem_type` on its first labelled call, so the
    step recompiles once (torch: `object.__getattribute__(self.config, 'problem_type') is
    None`). On main the top was "CUDA graphs re-recorded: 2 recordings for 2 input sizes":
    the recompiled graph's forward and backward, both `partition_0`, recorded once each; and
    the recompile read "self.config is another object" (the attribute read spelled as a call
    was taken for an identity guard)."""
    path, rid = _store(tmp_path, "hf_bert_problem_type")
    diags = _diags(path, rid)
    assert not [d for d in diags if d["kind"] == "cudagraph"], diags[0]["reason"]
    top = diags[0]
    assert top["kind"] == "recompile" and "self.config.problem_type" in top["reason"], top
    assert top["user_frame"]["lineno"] == 53


def test_an_attribute_read_spelled_as_a_call_is_the_attribute():
    g = P.classify_guard("object.__getattribute__(self.config, 'problem_type') is None  # if "
                         "self.config.problem_type is None:  # modeling_bert.py:1123 in forward")
    assert (g["category"], g["source"]) == ("none", "self.config.problem_type"), g
    assert P.classify_guard("getattr(object.__getattribute__(L['m'], 'cfg'), 'k') == 3")[
        "source"] == "L['m'].cfg.k"


def test_a_rerecording_headline_shows_the_sizes_that_changed():
    """set18/gpu tv_resnet_last_batch_rerecord (a hit): the headline listed one recording's
    every input shape, the weights' included ("([64,3,64,64] [64,3,7,7] [64] [64] ...)"), as
    if they were the sizes recorded for. Only the inputs whose size differs between the
    recordings are shown, and none where one size set was seen."""
    from compdiag.analyses.diagnoses.cudagraphs import _varying

    weights = [[64, 3, 7, 7], [64]]
    assert _varying([[[64, 3, 32, 32], *weights], [[13, 3, 32, 32], *weights]]) == [0]
    assert _varying([[[64, 3, 32, 32], *weights]]) == []
    assert _varying([[[8]], [[8], [2]]]) == [1]  # an input only one recording had
