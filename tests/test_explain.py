"""`compdiag explain` on hand-built stores: ranking, folding, user frames, fixes.

Every fact reaches the store the way a run's do: trace-shaped records and capture events fed
through the Ingestor (no derived row is written by hand), so these tests cover ingest and
explain together. Fast: no torch compile anywhere in this file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from compdiag.analyses.diagnoses import fusion as FU
from compdiag.analyses.diagnoses import graph_breaks as GB
from compdiag.analyses.diagnoses import recompiles as RC
from compdiag.analyses import fixes as FX
from compdiag.analyses import failure_fixes as FF
from compdiag.analyses.explain import explain
from compdiag.analyses.gb_registry import gb_registry
from compdiag.formats.user_code import is_user_file
from compdiag.ingest.ingestor import Ingestor
from compdiag.ingest.sources import keep_sources
from compdiag.ingest.parsers import classify_guard
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer

TORCH_FILE = "/usr/lib/python3.11/site-packages/torch/_dynamo/variables/builtin.py"


SKIPPED_FRAME = ("Failed to handle graph break gracefully. Skipping the function and falling "
                 "back to eager. Graph break encountered:")


def _gb_payload(user_file: str, user_line: int, code: str, *, gb_type: str, code_id: str,
                extra_frame: str | None = None, skipped: bool = False) -> str:
    frames = f'  File "{user_file}", line {user_line}, in f\n    {code}\n'
    if extra_frame:
        frames += f'  File "{extra_frame}", line 153, in deepcopy\n    y = copier(x, memo)\n'
    why = SKIPPED_FRAME if skipped else "Encountered graph break when attempting to trace CALL:"
    return (f"Graph break in user code at {extra_frame or user_file}:{user_line}\n"
            f"Graph Break Reason: {why}\n\n"
            f"{gb_type}\n  Explanation: it cannot be traced\n  Hint: do something else\n\n"
            "  Developer debug context: builtin print [] False\n\n"
            f" For more details about this graph break, please visit: "
            f"https://meta-pytorch.github.io/compile-graph-break-site/gb/{code_id.lower()}.html"
            f"\n\nUser code traceback:\n{frames}")


def _ids(cid: str) -> dict[str, int]:
    frame, rest = cid.split("/")
    return {"frame_id": int(frame), "frame_compile_id": int(rest.split("_")[0])}


class Store:
    """A hand-built store: one run, fed through the Ingestor as capture feeds it."""

    def __init__(self, tmp_path: Path, *, exit_code: int = 0) -> None:
        self.path = tmp_path / "s.db"
        self.user = tmp_path / "user_script.py"
        self.user.write_text("".join(f"line_{i} = {i}\n" for i in range(1, 60)))
        self.w = Writer(self.path)
        self.run_id = self.w.begin_run(source="run", argv=[str(self.user)], cwd=str(tmp_path))
        self.ing = Ingestor(self.w, self.run_id)
        self.exit_code = exit_code

    def compile(self, cid: str, *, co_name: str = "f", lineno: int = 3, **metrics) -> None:
        self.ing.record({**_ids(cid), "compilation_metrics": {
            "co_name": co_name, "co_filename": str(self.user), "co_firstlineno": lineno,
            **metrics}}, None)

    def graph_break(self, cid: str, line: int, *, gb_type="Failed to trace builtin operator",
                    code="GB0059", extra_frame=None, skipped=False) -> None:
        self.ing.record({**_ids(cid), "artifact": {"name": "dynamo_graph_break_reason",
                                                   "encoding": "string"}},
                        _gb_payload(str(self.user), line, f"line_{line} = {line}",
                                    gb_type=gb_type, code_id=code, extra_frame=extra_frame,
                                    skipped=skipped))

    def failure(self, cid: str | None, **cols) -> None:
        """An exception capture recorded (as capture/failures.py records one)."""
        self.ing.failure(cid, **{"filename": None, "lineno": None, "line": None, **cols})

    def accuracy(self, cid: str, outputs: list[tuple[str, bool, float, float, dict]],
                 node: dict | None = None) -> None:
        self.ing.accuracy(SimpleNamespace(
            compile_id=cid, error=None, nondeterministic=False, divergent_node=node,
            outputs=[SimpleNamespace(output=o, ok=ok, max_abs=a, max_rel=r, detail=d)
                     for o, ok, a, r, d in outputs]))

    def post_grad(self, cid: str, text: str) -> None:
        self.ing.record({**_ids(cid), "inductor_post_grad_graph": {}}, text)

    def done(self) -> Path:
        self.ing.flush()
        keep_sources(self.w, self.run_id)  # as capture does when a run ends
        self.w.end_run(self.run_id, exit_code=self.exit_code, status="done")
        self.w.close()
        return self.path

    def explain(self) -> list[dict]:
        from compdiag.analyses.explain import explain_folded

        self.done()
        with Reader(self.path) as r:
            kept, _, faults = explain_folded(r, self.run_id)
        assert not faults, faults  # a kind that raised fails the test, not only explain
        return [d.to_json() for d in kept]


def test_graph_breaks_dedup_by_location_and_reason_ranked_by_hits(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1")
    s.compile("1/0", co_name="g", lineno=20)
    s.graph_break("0/0", 5)
    s.graph_break("0/1", 5)  # the same break after a recompile: one diagnosis, hit twice
    s.graph_break("1/0", 22, gb_type="Call to `torch._dynamo.graph_break()`", code="GB0025")
    diags = s.explain()
    gbs = [d for d in diags if d["kind"] == "graph_break"]
    assert [(d["user_frame"]["lineno"], d["count"]) for d in gbs] == [(5, 2), (22, 1)]
    top = gbs[0]
    assert top["gb_code"] == "GB0059" and top["compile_ids"] == ["0/0", "0/1"]
    assert top["user_frame"]["line"] == "line_5 = 5"  # read from the user's file
    assert "reorderable_logging_functions" in top["fix"] or "print" in top["fix"]
    assert "remove it" in gbs[1]["fix"]


def test_user_frame_is_never_a_library_frame(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    # The stored row points into copy.py (stdlib); the user's line is one frame up.
    s.graph_break("0/0", 7, gb_type="Attempted to copy.deepcopy a tensor", code="GB4198",
                  extra_frame="/usr/lib/python3.11/copy.py")
    (d,) = s.explain()
    assert d["user_frame"]["filename"] == str(s.user)
    assert d["user_frame"]["lineno"] == 7
    assert "clone()" in d["fix"]
    # the library's statement torch names is in the headline, beside the user's line (set19b
    # timm_mixup_in_step: "Data-dependent operator" alone, the `np.random.rand()` it broke on
    # said only in the fix)
    assert d["reason"].endswith(", at `y = copier(x, memo)` in deepcopy() (copy.py:153)"), \
        d["reason"]


def test_is_user_file():
    assert not is_user_file(TORCH_FILE)
    assert not is_user_file("<frozen runpy>")
    assert not is_user_file("/x/lib/python3.12/copy.py")
    assert not is_user_file(None)
    assert is_user_file("/home/me/project/train.py")


def test_inductors_generated_code_is_never_the_users_in_any_cache_dir():
    """The H200 run of corpus/gpu/cg_rerecord_warned.py put a CUDA-graph recording at line 112
    of Inductor's wrapper (`self.partitions[0](...)`) in a TORCHINDUCTOR_CACHE_DIR outside
    /tmp/torchinductor_*: generated code is known by its name (c<hash>.py in the folder named
    after the hash), wherever the cache is."""
    gen = ("/tmp/pytest-of-root/pytest-0/corpus-gpu0/inductor-cache/mj/"
           "cmj7bllodso4llzpvbj2kks3ydxsadli5wr7riu7ma6gwcxvmnwb.py")
    assert not is_user_file(gen)
    assert is_user_file("/home/me/mj/cmj7.py")  # a short name: the user's own
    assert is_user_file("/home/me/ab/c" + "x" * 51 + ".py")  # folder is not the hash's


def test_registry_is_read_from_the_installed_torch():
    import importlib.util

    spec = importlib.util.find_spec("torch")
    path = Path(list(spec.submodule_search_locations)[0]) / "_dynamo/graph_break_registry.json"
    data = json.loads(path.read_text())
    reg = gb_registry()
    assert set(reg) == {k.upper() for k in data}
    assert reg["GB0059"]["Gb_type"] == data["GB0059"][-1]["Gb_type"]


def break_then_resumed_limit(s: Store) -> None:
    """forward() (line 5) breaks at line 7; its resume function recompiles on the value
    passed across the break until the recompile limit (8), then Dynamo's limit failure."""
    s.compile("0/0", co_name="forward", lineno=5)
    s.graph_break("0/0", 7, gb_type="Data-dependent operator", code="GB0008")
    resume = "torch_dynamo_resume_in_forward_at_7"
    s.compile("1/0", co_name=resume, lineno=7)
    for i in range(1, 9):
        s.compile(f"1/{i}", co_name=resume, lineno=7,
                  recompile_reason=f"1/{i - 1}: ___stack0[0] == {i}")
    s.failure("1/8", stage="dynamo", exc_type="Unsupported",
              message="Dynamo recompile limit exceeded",
              traceback="Dynamo recompile limit exceeded\n  Explanation: too many.\n")


def recompile_to_the_limit(s: Store, frame: int) -> None:
    """pool() (line 30) recompiled 8 times on a size, then Dynamo's recompile-limit failure."""
    s.compile(f"{frame}/0", co_name="pool", lineno=30)
    for i in range(1, 9):
        s.compile(f"{frame}/{i}", co_name="pool", lineno=30,
                  recompile_reason=f"{frame}/{i - 1}: tensor 'x' size mismatch at index 0. "
                                   f"expected {i}, actual {i + 1}")
    s.failure(f"{frame}/8", stage="dynamo", exc_type="Unsupported",
              message="Dynamo recompile limit exceeded",
              traceback="Dynamo recompile limit exceeded\n  Explanation: too many.\n")


def test_a_limit_reached_by_one_unfreeze_per_step_is_one_problem_with_the_optimizer_fix(
        tmp_path):
    """probes30d gradual_unfreeze: one block unfrozen per epoch, each a requires_grad change
    of another parameter, 8 in all, then the recompile limit. Seven single changes read
    "nothing to do" beside the limit, whose fix spoke of inference inputs. The changes fold
    under the limit, and its fix keeps requires_grad and picks what trains with the
    optimizer (what the helper verified: 0 recompiles)."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="inner", lineno=30)
    for i in range(1, 9):
        s.compile(f"0/{i}", co_name="inner", lineno=30,
                  recompile_reason=f"0/{i - 1}: tensor 'fn._modules['0']._modules['{i}']."
                                   "_parameters['bias']' requires_grad mismatch. expected "
                                   "requires_grad=0")
    s.failure("0/8", stage="dynamo", exc_type="Unsupported",
              message="Dynamo recompile limit exceeded",
              traceback="Dynamo recompile limit exceeded\n  Explanation: too many.\n")
    (d,) = [x for x in s.explain() if x["kind"] == "recompile"]
    assert d["details"]["limit_hit"] and "add_param_group" in d["fix"], d["fix"]
    assert len([c for c in d["consequences"] if c["kind"] == "recompile"]) == 7


def test_recompile_limit_is_the_top_diagnosis(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 5)
    s.graph_break("0/0", 6, gb_type="Call to `torch._dynamo.graph_break()`", code="GB0025")
    recompile_to_the_limit(s, 1)
    diags = s.explain()
    top = diags[0]
    assert top["kind"] == "recompile"
    assert top["details"]["limit_hit"] is True
    assert "recompile limit" in top["reason"] and top["count"] == 8
    assert top["details"]["guard"] == "L['x'].size()[0]"
    assert top["details"]["before"] == "1" and top["details"]["after"] == "9"
    assert "mark_dynamic(x, 0)" in top["fix"]
    assert top["user_frame"]["lineno"] == 30
    # the limit failure is not reported again as a separate failure
    assert not [d for d in diags if d["kind"] == "failure"]


def test_single_recompile_ranks_below_a_graph_break(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 5)
    s.compile("0/1", recompile_reason="0/0: tensor 'x' size mismatch at index 0. expected 16, "
                                      "actual 32")
    kinds = [d["kind"] for d in s.explain()]
    assert kinds == ["graph_break", "recompile"]


def test_crash_failure_ranks_first_with_commands_for_this_run(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.graph_break("0/0", 5)
    s.failure("0/0", stage="kernel_compile", exc_type="InductorError",
              message="CppCompileError: C++ compile error", filename=TORCH_FILE, lineno=10,
              traceback=f'  File "{s.user}", line 12, in <module>\n    f(x)\n'
                        f'  File "{TORCH_FILE}", line 10, in compile\n    raise\n')
    # capture kept the failing graph (what `compdiag minify` replays): minify is offered
    s.ing.event("failure_graph", "0/0", {"kind": "compile", "stage": "kernel_compile"}, "{}")
    top = s.explain()[0]
    assert top["kind"] == "failure" and top["stage"] == "kernel_compile"
    assert top["user_frame"]["lineno"] == 12
    assert top["details"]["fatal"] is True
    assert f"compdiag minify --store {s.path} {s.run_id}" in top["fix"]
    # `compdiag bisect RUN` re-runs the run's argv; RUN together with `-- CMD` is refused.
    assert f"`compdiag bisect --store {s.path} {s.run_id}`" in top["fix"]


def test_a_compile_at_interpreter_shutdown_is_said_as_that_with_no_replay(tmp_path):
    """probes40e atexit_final_eval_compile, blind: the first eval-mode call ran in an atexit
    handler; Inductor's pool was shut down ("cannot schedule new futures after interpreter
    shutdown"). It was said as a kernel that failed to compile, with bisect and minify, which
    both refused: the moment failed, not the graph."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.failure("0/0", stage="kernel_compile", exc_type="InductorError",
              message="InductorError: RuntimeError: cannot schedule new futures after "
                      "interpreter shutdown", filename=TORCH_FILE, lineno=10,
              traceback=f'  File "{s.user}", line 24, in final_report\n    out = model(x)\n'
                        f'  File "{TORCH_FILE}", line 10, in submit\n    raise\n')
    s.ing.event("failure_graph", "0/0", {"kind": "compile", "stage": "kernel_compile"}, "{}")
    top = s.explain()[0]
    assert top["kind"] == "failure" and top["user_frame"]["lineno"] == 24
    assert "shutting down" in top["explanation"] and "atexit" in top["fix"]
    assert "failed to compile" not in top["explanation"]
    assert "bisect" not in top["fix"] and "minify" not in top["fix"]


def test_graceful_frame_skip_is_reported_as_the_break_not_a_failure(tmp_path):
    s = Store(tmp_path, exit_code=0)
    s.compile("0/0")
    s.graph_break("0/0", 5, gb_type="Unsupported context manager", code="GB0142", skipped=True)
    s.failure("0/0", stage="dynamo", exc_type="Unsupported",
              message="Unsupported context manager", traceback="")
    diags = s.explain()
    assert [d["kind"] for d in diags] == ["graph_break"]
    assert "with" in diags[0]["fix"]


def test_cudagraph_skip_points_at_the_mutating_line(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.cudagraph_line("0/0", "skipping cudagraphs due to mutated inputs (1 instances). "
                         f'Found from : \n   File "{s.user}", line 9, in f\n    buf.add_(x)\n')
    (d,) = s.explain()
    assert d["kind"] == "cudagraph" and d["user_frame"]["lineno"] == 9
    assert "mutat" in d["fix"]


def test_accuracy_rows_and_injector_config(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", inductor_config=json.dumps({"cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}))
    s.accuracy("0/0", [("out0", False, 1.0, 0.5, {})])
    (d,) = s.explain()
    assert d["kind"] == "accuracy" and "max abs 1" in d["reason"]
    assert "inject_relu_bug_TESTING_ONLY" in d["fix"]


def test_injector_without_accuracy_rows_is_reported_from_config(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", inductor_config={"cpp.inject_log1p_bug_TESTING_ONLY": "accuracy"})
    (d,) = s.explain()
    assert d["kind"] == "accuracy" and "log1p" in d["reason"]
    assert "not by comparing outputs" in d["explanation"]


def test_perf_hint_fallback_kernel(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.event("perf_hints", "0/0", {}, "Skip comprehensive padding on CPU")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.cumsum.default")
    s.post_grad("0/0", f"        # File: {s.user}:14 in f, code: c = torch.cumsum(x, 0)\n"
                "        cumsum: \"f32[64]\" = torch.ops.aten.cumsum.default(arg0_1, 0)\n")
    (d,) = s.explain()
    assert d["kind"] == "perf" and "cumsum" in d["reason"]
    assert d["user_frame"]["lineno"] == 14


def test_a_single_ops_fallback_is_information_unless_perf_measured_it(tmp_path):
    """probes30a sampler_settings_ok: a correct top-k sampler got two perf problems, aten.topk
    and aten.multinomial "run as eager fallback kernels": Inductor generates no CPU code for
    sorts, scans and random draws by design, so there was nothing to change. A single op's
    fallback is information now, with a fix that says so; a `compdiag perf` report that
    costed that op's fallback at a tenth of the compiled time or more makes it a problem."""
    import json
    import time

    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.topk.default")
    s.post_grad("0/0", f"        # File: {s.user}:14 in f, code: v, i = logits.topk(5)\n"
                "        topk = torch.ops.aten.topk.default(arg0_1, 5)\n")
    (d,) = s.explain()
    assert (d["kind"], d["severity"], d["user_frame"]["lineno"]) == ("perf", "info", 14)
    assert "topk" in d["reason"] and d["fix"].startswith("Nothing to change")
    report = {"limiters": [{"kind": "fallback", "impact": 0.3, "basis": "structural",
                            "reason": "aten.topk runs as an eager fallback kernel",
                            "compile_ids": ["0/0"]}]}
    w = Writer(s.path)
    w.upsert("perf_reports", run_id=s.run_id, created_at=time.time(),
             document=json.dumps(report))
    w.close()
    with Reader(s.path) as r:
        (d,) = [x for x in explain(r, s.run_id) if x.kind == "perf"]
    assert d.severity == "problem" and "no Inductor lowering" in d.fix


def test_a_cached_graphs_frame_of_a_file_dynamo_never_traced_here_is_not_the_line(tmp_path):
    """probes30a sampler_settings_ok: the FX graph cache served an entry a draft copy of the
    program wrote (still on disk), and the fallback pointed into the draft. A post-grad node's
    file that Dynamo traced nowhere in this run is another program's: the op's line comes
    from this run's Dynamo nodes instead."""
    s = Store(tmp_path)
    draft = tmp_path / "drafts" / "sampler.py"
    draft.parent.mkdir()
    draft.write_text(s.user.read_text())
    s.compile("0/0")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.topk.default")
    s.post_grad("0/0", f"        # File: {draft}:14 in f, code: v, i = logits.topk(5)\n"
                "        topk = torch.ops.aten.topk.default(arg0_1, 5)\n")
    (d,) = s.explain()
    assert d["user_frame"]["filename"] != str(draft), d["user_frame"]


def test_one_fallback_compiled_twice_is_one_diagnosis(tmp_path):
    """probes28a embbag_ctr_ok: a correct program whose function compiled twice (a new
    shape) got the same fallback problem once per compile, two identical diagnoses. One op at
    one line is one diagnosis over both compiles."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1")
    for cid in ("0/0", "0/1"):
        s.ing.event("perf_hints", cid, {}, "Using FallbackKernel: torch.ops.aten.cumsum.default")
    perf = [d for d in s.explain() if d["kind"] == "perf"]
    assert len(perf) == 1 and perf[0]["compile_ids"] == ["0/0", "0/1"]
    assert perf[0]["count"] == 2


def test_a_custom_ops_fallback_hint_is_no_problem(tmp_path):
    """benchmarks/probes23/ctypes_copy_op_segv.py: Inductor's "Using FallbackKernel:
    torch.ops.probes23.fast_copy.default" for the program's own custom op was a perf problem
    ("Replace the op with one Inductor lowers") at the compiled call: Inductor never generates
    code for a custom op, it runs the op's own kernel by design; torch's ops' hints stay."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.mylib.fast_copy.default")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.cumsum.default")
    (d,) = s.explain()
    assert "cumsum" in d["reason"], d


def test_fallbacks_of_one_warned_cause_are_one_diagnosis(tmp_path):
    """Issue 29 section 2 (corpus/perf_complex_fallbacks.py, after pytorch/pytorch#125718):
    torch warns once that Inductor generates no code for complex operators, then falls back
    for every complex op. Before, explain gave one perf diagnosis per op (aten.mul, aten.add,
    aten.pow, ...) and none named the cause; now one names it, with the ops."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.event("warning", "0/0", {}, "Torchinductor does not support code generation for "
                "complex operators. Performance may be worse than eager.")
    for op in ("aten.mul.Tensor", "aten.pow.Tensor_Scalar"):
        s.ing.event("perf_hints", "0/0", {}, f"Using FallbackKernel: torch.ops.{op}")
    s.post_grad("0/0", f"        # File: {s.user}:11 in f, code: z = (x + 1j * y).pow(4)\n"
                "        mul: \"c64[5]\" = torch.ops.aten.mul.Tensor(arg1_1, 1j)\n"
                "        pow_1: \"c64[5]\" = torch.ops.aten.pow.Tensor_Scalar(mul, 4)\n")
    (d,) = s.explain()
    assert d["kind"] == "perf" and "complex" in d["reason"] and "complex" in d["fix"]
    assert "aten.mul" in d["reason"] and "aten.pow" in d["reason"]
    assert d["user_frame"]["lineno"] == 11


def test_a_complex_cause_of_ffts_alone_is_information(tmp_path):
    """probes41h audio_peak_normalize_clamp_ok, blind (a correct rfft, from a cold cache):
    "2 ops run as eager fallback kernels because of complex dtypes: aten._fft_r2c,
    aten.view_as_real" was a problem with a view_as_real fix view_as_real is listed under. An
    FFT is complex by nature and ATen's kernel in eager too; complex arithmetic stays a
    problem (the test above)."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.event("warning", "0/0", {}, "Torchinductor does not support code generation for "
                "complex operators. Performance may be worse than eager.")
    for op in ("aten._fft_r2c.default", "aten.view_as_real.default"):
        s.ing.event("perf_hints", "0/0", {}, f"Using FallbackKernel: torch.ops.{op}")
    (d,) = s.explain()
    assert d["severity"] == "info" and "_fft_r2c" in d["reason"], d
    assert d["fix"].startswith("Nothing to change") and "view_as_real`" not in d["fix"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compdiag", *args], capture_output=True,
                          text=True, env={"COLUMNS": "120", "PATH": ""})


def test_clean_run_says_so_in_one_line(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    path = s.done()
    out = _cli("explain", "--store", str(path))
    assert out.returncode == 0, out.stderr
    assert len([ln for ln in out.stdout.splitlines() if "no problems found" in ln]) == 1
    out = _cli("explain", "--store", str(path), "--json")
    doc = json.loads(out.stdout)
    assert doc["diagnoses"] == [] and doc["run"]["id"] == s.run_id and doc["schema_version"]


def test_terminal_view_shows_the_users_line_and_fix(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 5)
    path = s.done()
    out = _cli("explain", "--store", str(path))
    assert out.returncode == 0, out.stderr
    assert "GB0059" in out.stdout and "line_5 = 5" in out.stdout and "fix:" in out.stdout


@pytest.mark.parametrize("args, msg", [
    (["explain", "--store", "NOPE.db"], "no store at"),
    (["explain", "7"], "no run 7"),
    (["explain", "abc"], "RUN must be a run id"),
])
def test_bad_input_is_one_line_error(tmp_path, args, msg):
    s = Store(tmp_path)
    path = s.done()
    args = [a if a != "NOPE.db" else str(tmp_path / "nope.db") for a in args]
    if "--store" not in args:
        args = args[:1] + ["--store", str(path)] + args[1:]
    out = _cli(*args)
    assert out.returncode == 2
    err = out.stderr.strip()
    assert msg in err and len(err.splitlines()) == 1, err


# -- the fix rules ---------------------------------------------------------------------------
@pytest.mark.parametrize("gb_type, expl, line, want", [
    ("Failed to trace builtin operator", "builtin operator `print` with argument types", "",
     "reorderable_logging_functions"),
    ("Failed to trace builtin operator", "builtin operator `str` with argument types", "",
     "format"),
    ("Data-dependent branching", "", "if x.sum() > 0:", "torch.where"),
    ("Unsupported Tensor.item() call with capture_scalar_outputs=False", "", "",
     "capture_scalar_outputs"),
    ("Dynamic shape operator", "aten.nonzero", "", "capture_dynamic_output_shape_ops"),
    ("Attempted to call function marked as skipped", "module: zlib, qualname: crc32", "",
     "custom op"),
    # a logger's method is not a reorderable function (torch 2.13 broke on `log.info` in that
    # set); ignore_logging_functions is the set torch's hint names (probes35: checked)
    ("logging.Logger method not supported for non-export cases", "", "",
     "ignore_logging_functions.add(logger.info)"),
    ("Unsupported Tensor.backward() call", "", "", "outside the compiled"),
    # torch 2.15's own types for what 2.13 called builtin str and a skipped time function
    ("repr() on tensor", "Tensor repr requires actual runtime values", "label = str(y)",
     "Formatting a tensor"),
    ("Call to a time function", "", "t0 = time.perf_counter()", "time the call from outside"),
    ("Something new", "", "", "do this instead"),
    # probes30a left_pad_positions: a tensor used as a slice bound, no `.item()` on the line;
    # capture_scalar_outputs crashed Inductor there, a mask's cumsum worked
    ("Data-dependent operator", "aten._local_scalar_dense.default",
     "positions[b, n_pad[b]:] = torch.arange(T - n_pad[b])", "torch.cumsum"),
    # probes30a random_topp_sampler: "pass its result in" as a float recompiled to the limit
    ("Attempted to call function marked as skipped",
     "module: <unknown module>, qualname: Random.random", "u = random.random()",
     "torch.rand(())"),
])
def test_graph_break_fix_rules(gb_type, expl, line, want):
    assert want in FX.graph_break_fix(gb_type, expl, "", line, ["do this instead"])


def test_a_fullgraph_failure_for_a_break_no_rule_knows_gives_torchs_hint():
    """probes30d ckpt_feature_hook_fullgraph: GB0067 "HOP: Unsafe side effect" under
    fullgraph=True; torch's hint (`skip_fwd_side_effects_in_bwd_under_checkpoint = True`) was
    the fix that worked, and the panel said to move the statement out, which failed."""
    hint = ("If you are ok with side-effect not replayed in the backward, try setting "
            "`torch._dynamo.config.skip_fwd_side_effects_in_bwd_under_checkpoint = True`")
    fix = FF.failure_fix("dynamo", "Unsupported", "HOP: Unsafe side effect", run_id=1,
                         argv=["prog.py"], gb_type="HOP: Unsafe side effect",
                         torch_message=f"HOP: Unsafe side effect\n  Explanation: Mutating a "
                                       f"variable\n  Hint: {hint}\n")
    assert "skip_fwd_side_effects_in_bwd_under_checkpoint" in fix, fix


@pytest.mark.parametrize("text, category, source, before, after", [
    ("tensor 'x' size mismatch at index 0. expected 16, actual 32", "size", "L['x'].size()[0]",
     "16", "32"),
    ("tensor 'x' stride mismatch at index 0. expected 3, actual 1", "stride",
     "L['x'].stride()[0]", "3", "1"),
    ("tensor 'x' dtype mismatch. expected Float, actual Double", "dtype", "L['x']", "Float",
     "Double"),
    ("tensor 'x' requires_grad mismatch. expected requires_grad=0", "requires_grad", "L['x']",
     "requires_grad=False", "requires_grad=True"),
    ("GLOBAL_STATE changed: grad_mode", "global_state", "grad_mode", None, None),
    ("G['SCALE'] == 2.0     # return x * SCALE  # a.py:3 in f", "global", "G['SCALE']", "2.0",
     None),
    ("n == 2     # return x * n  # a.py:6 in f", "value", "n", "2", None),
    ("fn._modules['1'].training == True  # x  # dropout.py:73 in forward", "training",
     "fn._modules['1'].training", "True", None),
    ("len(xs) == 2   # sum(xs)  # a.py:30 in f", "length", "len(xs)", "2", None),
])
def test_classify_guard(text, category, source, before, after):
    g = classify_guard(text)
    assert (g["category"], g["source"], g["before"], g["after"]) == (
        category, source, before, after)


def test_recompile_fix_names_the_input_and_the_limit():
    fix = RC.recompile_fix("size", "L['seq'].size()[1]", count=3, limit=True, fn="f")
    assert "mark_dynamic(seq, 1)" in fix and "recompile_limit" in fix
    assert "dynamic=False" in fix
    assert "torch.tensor" in RC.recompile_fix("value", "n", count=1, limit=False, fn="f")


def resume_recompile_store(tmp_path) -> Store:
    """f recompiled for a new size of x, and its resume function for a new size of y."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: tensor 'x' size mismatch at index 0. expected 16, "
                                      "actual 32")
    s.compile("1/0", co_name="torch_dynamo_resume_in_f_at_7", lineno=7)
    s.compile("1/1", co_name="torch_dynamo_resume_in_f_at_7", lineno=7,
              recompile_reason="1/0: tensor 'y' size mismatch at index 0. expected 16, actual 32")
    return s


def test_resume_function_recompile_folds_into_its_parent(tmp_path):
    s = resume_recompile_store(tmp_path)
    (d,) = s.explain()
    assert d["kind"] == "recompile" and d["details"]["function"] == "f"
    assert d["reason"] == "size x.shape[0] changed (16 -> 32)"


def test_debug_context_is_shortened_in_the_reason(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 5)  # debug context: "builtin print [] False"
    (d,) = s.explain()
    assert d["reason"] == "Failed to trace builtin operator (builtin print)"


def test_an_empty_debug_context_stays_empty(tmp_path):
    """The torch-tests oracle (test_decorators.py's `step_unsupported()`): torch's
    "Developer debug context: " line was empty, and the pattern's `\\s*` ran over the line end
    to take the next line, torch's "For more details about this graph break, please visit:
    URL", as the context: the headline read "Call to `torch._dynamo.step_unsupported()` (For
    more details ...)". A debug context is the rest of its own line, or nothing."""
    from compdiag.ingest.parsers import debug_context, graph_break_details

    s = Store(tmp_path)
    s.compile("0/0")
    payload = _gb_payload(str(s.user), 5, "line_5 = 5", gb_type="Call to `torch._dynamo."
                          "step_unsupported()`", code_id="GB4636").replace(
        "Developer debug context: builtin print [] False", "Developer debug context: ")
    assert graph_break_details(payload)["debug_context"] == ""
    assert debug_context(payload).strip() == ""
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}}, payload)
    (d,) = s.explain()
    assert d["reason"] == "Call to `torch._dynamo.step_unsupported()`"
    assert "For more details" not in (d["details"].get("debug_context") or "")


def test_accuracy_checker_rows_fold_the_failure_and_point_at_the_divergent_node(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    node = {"node": "relu", "op": "relu", "user_frame": {"filename": str(s.user), "lineno": 9,
                                                         "line": None}}
    # The ingestor files the mismatch as an accuracy failure too; explain folds it.
    s.accuracy("0/0", [("output 0", False, 3.7, 18.3, {"reason": "beyond tolerance"}),
                       ("output 1", True, 3.7, 0.0, {"reason": "beyond tolerance"})], node=node)
    (d,) = s.explain()
    assert d["kind"] == "accuracy" and d["stage"] == "accuracy"
    assert "first divergent node relu" in d["reason"] and "max rel 18.3" in d["reason"]
    assert d["user_frame"]["lineno"] == 9 and d["user_frame"]["line"] == "line_9 = 9"
    assert "compdiag bisect" in d["fix"]


def test_fusion_rows_benign_ones_left_out(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    for reason in ("no shared data", "no shared data",
                   "intermediate nodes between node1 & node2"):
        s.ing.fusion_line("0/0", f"cannot fuse op0 with op5: {reason}")
    s.ing.fusion_line("0/0", "fusing op1 with op2")
    (d,) = s.explain()
    assert d["kind"] == "fusion" and "intermediate nodes" in d["reason"]
    assert d["count"] == 1 and FU.fusion_reason_class("no shared data") is None
    # issue 29 §2: "intermediate nodes between" is torch's other wording of a cycle, refused
    # to protect the schedule: information (on main a `dependency` problem).
    assert d["severity"] == "info" and d["details"]["reason_class"] == "cycle"


def _candidate(name: str, origins: str, user: Path, line: int) -> str:
    """One entry of the fusion logger's candidate list, as torch 2.13 prints it."""
    return (f"  SchedulerNode(name='{name}'), Pointwise(['[64, 128]', "
            f"'origins=OrderedSet([{origins}])', 'stack_traces = {{', "
            f"'  File \"{user}\", line {line}, in f', '    line_{line} = {line}', "
            "'        ^^^^^^^^^^^^^^^^^^', '', '}'])")


def test_a_missed_fusion_points_at_its_own_nodes_lines(tmp_path):
    """The diagnosis is at the refused pair's lines (the scheduler nodes' FX origins), not at
    whatever kernel the compile made first; each compile's fusion at its own nodes."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("1/0", co_name="g", lineno=40)
    for cid, (a, b) in (("0/0", (20, 25)), ("1/0", (44, 47))):
        s.ing.scheduler_node_line(cid, _candidate("op0", "sin", s.user, 5))
        s.ing.scheduler_node_line(cid, _candidate("op1", "add, unsqueeze", s.user, a))
        s.ing.scheduler_node_line(cid, _candidate("op3", "mul", s.user, b))
        s.ing.fusion_line(cid, "cannot fuse op1 with op3: intermediate nodes between node1 "
                               "& node2")
    # a fused node's name joins its parts: op0_op1 is op0 (line 5) and op1
    s.ing.fusion_line("0/0", "cannot fuse op0_op1 with op3: exceeds max fusion size")
    diags = s.explain()
    lines = {(d["compile_id"], d["details"]["reason_class"]): d["user_frame"]["lineno"]
             for d in diags}
    assert lines == {("0/0", "cycle"): 20, ("1/0", "cycle"): 44,
                     ("0/0", "size_limit"): 5}
    assert all(d["user_frame"]["line"] == f"line_{d['user_frame']['lineno']} = "
               f"{d['user_frame']['lineno']}" for d in diags)


def _guards(value: str) -> str:
    """A dynamo_cpp_guards_str tree as torch 2.13 writes it, guarding L['kind'] == value."""
    return ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
            "| +- GuardManager: source=L['kind'], accessed_by=FrameLocalsGuardAccessor(key="
            "'kind', framelocals_idx=1), type=<class 'str'>, tag_safe=(True, False)\n"
            f"| | +- EQUALS_MATCH: L['kind'] == {value}                # y = act(x)  "
            "# a.py:6 in f\n")


def test_the_new_value_is_read_from_the_recompiled_entrys_own_guards(tmp_path):
    """The reason names the local bare (`kind == 'relu'`), the guard tree as L['kind']."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}}, _guards("'relu'"))
    s.compile("0/1", recompile_reason="0/0: kind == 'relu'                # y = act(x)  "
                                      "# a.py:6 in f")
    s.ing.record({**_ids("0/1"), "dynamo_cpp_guards_str": {}}, _guards("'gelu'"))
    (d,) = s.explain()
    assert d["reason"] == "Python value kind changed ('relu' -> 'gelu')"
    assert d["details"]["after"] == "'gelu'"
    # probes35f charlm_generate_str_index: a string once with another value was a problem
    # whose fix said to pass the string as a tensor; one graph per string is by design
    assert d["severity"] == "info" and "Python string" in d["fix"], d
    assert "tensor" not in d["fix"].split("no tensor")[0], d["fix"]


def _tree(source: str, value: str) -> str:
    """A dynamo_cpp_guards_str tree guarding `source == value` (torch 2.13's form)."""
    return ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
            f"| +- GuardManager: source={source}, accessed_by=DictGetItemGuardAccessor(lr)\n"
            f"| | +- EQUALS_MATCH: {source} == {value}                # opt.step()  "
            "# a.py:6 in f\n")


def test_a_skipped_guard_on_a_value_the_program_changes_is_a_stale_graph(tmp_path):
    """probes40f stance_skip_guards_temperature, blind: under
    `set_stance(skip_guard_eval_unsafe=True)` the graph that baked in `self.temperature == 1.0`
    ran for 1.5 and 2.0 (compiled 0.1338, eager 0.1218) and explain said "0 problems". A guarded
    value the program never assigns after the stance is no finding."""
    def run(tmp: Path, body: str) -> list[dict]:
        tmp.mkdir()
        s = Store(tmp)
        s.user.write_text("import torch\n\n\nwith torch.compiler.set_stance("
                          "skip_guard_eval_unsafe=True):\n    for t in (1.0, 1.5):\n"
                          f"        {body}\n        out = cmodel(x)\n")
        s.compile("0/0")
        s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}},
                     _tree("L['self'].temperature", "1.0"))
        s.ing.event("stance_set", None, {
            "module": "torch.compiler", "key": "set_stance",
            "value": "skip_guard_eval_unsafe=True",
            "call": {"filename": str(s.user), "lineno": 4,
                     "line": "with torch.compiler.set_stance(skip_guard_eval_unsafe=True):"}},
            None)
        return s.explain()

    (d,) = [d for d in run(tmp_path / "a", "model.temperature = t") if d["kind"] == "stance"]
    assert d["severity"] == "problem" and d["user_frame"]["lineno"] == 4, d
    assert "`self.temperature == 1.0`" in d["reason"] and "line 6 changes" in d["reason"]
    assert "skip_guard_eval_unsafe" in d["fix"] and "register_buffer" in d["fix"]
    assert not [d for d in run(tmp_path / "b", "y = t") if d["kind"] == "stance"]


def test_an_attribute_made_dynamic_after_one_change_is_information(tmp_path):
    """probes28b opt_step_cosine_lr, PyTorch's compiled-optimizer recipe: the scheduler's new
    lr recompiled the step once, then automatic dynamic made it symbolic (no `lr ==` guard in
    the new entry) and nothing recompiled again in twelve epochs; it was a problem whose fix
    said to pass a tensor. Made dynamic after one change is torch's design for an attribute as
    for an argument."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="step")
    lr = "L['self'].param_groups[0]['lr']"
    s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}}, _tree(lr, "0.01"))
    s.compile("0/1", co_name="step", recompile_reason="0/0: self.param_groups[0]['lr'] == 0.01"
                                                      "                # opt.step()  # a.py:6 in f")
    s.ing.record({**_ids("0/1"), "dynamo_cpp_guards_str": {}},
                 _tree("L['self'].param_groups[0]['weight_decay']", "0"))
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["severity"] == "info" and d["fix"].startswith("Nothing to do")


def test_torchs_own_deliberate_breaks_are_information(tmp_path):
    """probes28b opt_step_cosine_lr: the optimizer's `_use_grad` calls
    `torch._dynamo.graph_break()` on purpose before every step, and Dynamo skips `Adam.step`
    at the LR scheduler's wrapper and compiles it as its own frame: both were problems, the
    top with a fix to keep the call outside the compiled function (undoing the recipe)."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("1/0", co_name="step", lineno=70)
    opt = "/usr/lib/python3.11/site-packages/torch/optim/optimizer.py"
    s.graph_break("1/0", 5, gb_type="Call to `torch._dynamo.graph_break()`", code="GB0025",
                  extra_frame=opt)
    s.graph_break("0/0", 5, gb_type="Attempted to call function marked as skipped",
                  code="GB0007")
    s.graph_break("0/0", 9)  # the user's own print: still a problem
    diags = s.explain()
    by_line = {(d["user_frame"]["lineno"], d["gb_code"]): d["severity"] for d in diags}
    assert by_line[(5, "GB0025")] == "info" and by_line[(9, "GB0059")] == "problem"


def test_a_generator_not_rebuilt_after_a_break_folds_under_that_break(tmp_path):
    """probes28b clip_nonfinite_step: `clip_grad_norm_(..., error_if_nonfinite=True)` broke
    on its data-dependent check, and Dynamo, resuming, could not rebuild the parameters'
    generator ("Generator reconstruction with mutations"); that follow-on ranked first."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 7, gb_type="Data-dependent branching", code="GB0170")
    s.graph_break("0/0", 7, gb_type="Generator reconstruction with mutations", code="GB8335")
    top = s.explain()[0]
    assert top["gb_code"] == "GB0170"
    assert [c["reason"][:23] for c in top["consequences"]] == ["Generator reconstructio"]


def test_a_break_in_a_frame_an_earlier_break_at_its_line_sent_to_eager_folds_under_it(
        tmp_path):
    """probes29a meters_subclass_path: a `__torch_function__` subclass broke the compiled
    helper at `seg.norm(...)` (frame 0); the call then ran in eager, Dynamo traced the
    subclass's own frame from there (frame 1) and hit a TypeError inside torch's overrides at
    the same user line. That later break ranked first, with a fix claiming eager would raise
    too (the program never raised). The first break is the cause, the later one folded."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 16, gb_type="Unsupported tensor subclass overridden attribute access",
                  code="GB0164")
    s.compile("1/0")
    s.graph_break("1/0", 16, gb_type="Observed exception", code="GB0088")
    top = s.explain()[0]
    assert top["gb_code"] == "GB0164" and "as_subclass(torch.Tensor)" in top["fix"], top
    assert [c["reason"][:18] for c in top["consequences"]] == ["Observed exception"]
    # a break at another line of a later frame stays a diagnosis of its own
    (tmp_path / "two").mkdir()
    s2 = Store(tmp_path / "two")
    s2.compile("0/0")
    s2.graph_break("0/0", 16, gb_type="Unsupported tensor subclass overridden attribute "
                   "access", code="GB0164")
    s2.compile("1/0")
    s2.graph_break("1/0", 30, gb_type="Observed exception", code="GB0088")
    assert len([d for d in s2.explain() if d["kind"] == "graph_break"]) == 2


def test_an_error_the_compiled_wrapper_set_up_is_not_sent_to_force_eager(tmp_path):
    """probes28b resume_from_checkpoint: `load_state_dict` of a plain model from a compiled
    one's checkpoint (`_orig_mod.` keys). The fix also said to check the error without
    torch.compile via `set_stance("force_eager")`, which keeps the wrapper and its keys: the
    error stays, and the user concludes torch.compile is not involved."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.ing.program_exception(None, exc_type="RuntimeError",
                            message='Error(s) in loading state_dict for Sequential: Unexpected '
                                    'key(s) in state_dict: "_orig_mod.0.weight".',
                            frames=_frames(s.user, ("/usr/lib/python3.11/site-packages/torch/"
                                                    "nn/modules/module.py", 2620,
                                                    "load_state_dict")),
                            compiled=None, stage=None)
    (prog,) = [d for d in s.explain() if d["kind"] == "program"]
    assert "_orig_mod.state_dict()" in prog["fix"] and "force_eager" not in prog["fix"]


def test_a_module_backward_hook_break_names_the_users_registration(tmp_path):
    """probes28b grad_norm_monitor: "Module-level backwards hooks require compiled autograd"
    named torch's module machinery, and the fix was torch's hint (`compiled_autograd = True`),
    which fails where backward() runs outside compiled code. The headline names the user's
    `register_full_backward_hook` line; the fix reads the gradients after backward."""
    s = Store(tmp_path)
    s.user.write_text("import torch\n" + "x = 1\n" * 5
                      + "model[0].register_full_backward_hook(monitor)\n" + "y = 2\n" * 30)
    s.compile("0/0")
    s.graph_break("0/0", 20, gb_type="Module-level backwards hooks require compiled autograd.",
                  code="GB0083", extra_frame="/usr/lib/python3.11/site-packages/torch/nn/"
                                             "modules/module.py")
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert "from the backward hook registered at line 7" in d["reason"]
    assert "module.weight.grad" in d["fix"] and not d["fix"].startswith("Enable compiled")


@pytest.mark.parametrize("source, tree", [
    ("kind", "L['kind']"), ("len(xs)", "len(L['xs'])"),
    ("fn._modules['1'].training", "L['fn']._modules['1'].training"),
    ("G['SCALE']", "G['SCALE']"), ("L['x'].size()[0]", "L['x'].size()[0]"),
])
def test_tree_spelling(source, tree):
    assert RC.tree_spelling(source) == tree


def test_the_limit_is_the_guard_that_kept_failing(tmp_path):
    """torchdynamo#330's shape: one truthiness guard first, then the length every step. The
    truthiness guard of the same list is that finding's first step (the list's first item),
    not a recompile of its own (probes26: "guard not history failed", a second panel with a
    generic fix)."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="attend")
    s.compile("0/1", co_name="attend", recompile_reason="0/0: not xs  # for a in xs:  "
                                                        "# a.py:9 in attend")
    for i in range(2, 9):
        s.compile(f"0/{i}", co_name="attend",
                  recompile_reason=f"0/{i - 1}: len(xs) == {i - 1}  # for a in xs:  "
                                   "# a.py:9 in attend")
    s.failure("0/8", stage="dynamo", exc_type="Unsupported",
              message="Dynamo recompile limit exceeded", traceback="recompile_limit")
    (top,) = s.explain()
    assert top["details"]["limit_hit"] and top["details"]["guard"] == "len(xs)"
    assert top["reason"] == ("recompile limit hit: attend() recompiled 8 times, 7 of them on "
                             "len(xs), and now runs in eager; last guard that failed: "
                             "len(xs) == 7")


# -- the line that caused it (issue 16, class 3) ----------------------------------------------
def _start(s: Store, cid: str, frames: list[tuple[int, str]], co_name: str = "f",
           lineno: int = 3) -> None:
    """dynamo_start as torch 2.13 writes it (its stack lacks the innermost caller)."""
    s.ing.record({**_ids(cid), "str": [str(s.user), 1]}, None)
    stack = [{"line": ln, "name": name, "filename": 1} for ln, name in frames]
    s.ing.record({**_ids(cid), "dynamo_start": {"stack": stack + [
        {"line": lineno, "name": co_name, "filename": 1}]}}, None)


def _call(s: Store, cid: str, lines: list[int], objects: dict | None = None) -> None:
    """capture's call_stack record: the live stack's user frames at dynamo_start."""
    s.ing.event("call_stack", cid, {}, payload=json.dumps({
        "frames": [{"filename": str(s.user), "lineno": ln, "name": "g"} for ln in lines],
        "objects": objects or {}}))


def test_a_recompile_points_at_the_line_torch_ties_the_guard_to_with_the_call_beside(tmp_path):
    """Issue 29 §1: the line torch names in its own message (the guard's `# file:4`) comes
    before the call that triggered the compile; the call stays in the details (probes31: six
    blind users put a recompile on a value read inside the function at that line)."""
    s = Store(tmp_path)
    s.compile("0/0")
    _call(s, "0/0", [40, 30, 20])
    s.compile("0/1", recompile_reason="0/0: n == 1                # return x + n  "
                                      f"# {s.user}:4 in f")
    _call(s, "0/1", [40, 30, 21])
    (d,) = s.explain()
    assert d["user_frame"]["lineno"] == 4 and d["user_frame"]["evidence"] == "torch", d
    assert d["details"]["def_line"]["lineno"] == 3
    assert d["details"]["guard_line"]["lineno"] == 4
    assert [c.rsplit(":", 1)[1] for c in d["details"]["call_stack"]] == ["40", "30", "21"]


def test_without_capture_the_dynamo_start_stack_gives_the_caller(tmp_path):
    """An imported log has only torch's stack: its innermost user frame above the function."""
    s = Store(tmp_path)
    s.compile("0/0")
    _start(s, "0/0", [(50, "<module>")])
    s.compile("0/1", recompile_reason="0/0: n == 1                # return x + n  "
                                      f"# {s.user}:4 in f")
    _start(s, "0/1", [(50, "<module>"), (44, "train")])
    (d,) = s.explain()
    assert d["user_frame"]["lineno"] == 4  # torch's guard line, the call beside it
    assert d["details"]["call_stack"][-1].rsplit(":", 1)[1] == "44", d["details"]


def _specialised(s: Store, cid: str, line: int, source: str = "L['x'].size()[0]",
                 loc: str | None = None) -> None:
    s.ing.record({**_ids(cid), "str": [str(s.user), 1]}, None)
    s.ing.record({**_ids(cid), "symbolic_shape_specialization": {
        "symbol": "s77", "sources": [source], "value": "3", "reason":
        "range_refined_to_singleton", "stack": [], "user_stack": [
            {"line": line, "name": "f", "filename": 1,
             "loc": loc or f"line_{line} = {line}"}]}}, None)


def test_a_specialised_size_points_at_the_line_that_specialised_it(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: tensor 'x' size mismatch at index 0. expected 2, "
                                      "actual 3")
    _specialised(s, "0/1", 7)
    s.compile("0/2", recompile_reason="0/1: tensor 'x' size mismatch at index 0. expected 3, "
                                      "actual 4")
    _call(s, "0/2", [30])
    (d,) = s.explain()
    assert d["user_frame"]["lineno"] == 7 and "line 7 specialises it" in d["reason"]
    assert d["details"]["specialized"]["reason"] == "range_refined_to_singleton"
    assert "does not help" in d["fix"] and "mark_dynamic(x" not in d["fix"]


def test_a_number_a_line_needs_concrete_is_not_told_to_become_a_tensor(tmp_path):
    """probes34d markov_kstep_power: `torch.linalg.matrix_power(transition, horizon)` in a
    compiled function called with horizon 1..14; automatic dynamic made horizon symbolic and
    the line specialised it back every time, to the recompile limit. The fix said to wrap
    horizon in `torch.tensor(value)`, which matrix_power cannot take (applied, Inductor gave
    up on the function). The number's specialising line is the cause, with a fix that keeps
    that use out of the compiled function."""
    s = Store(tmp_path)
    s.compile("0/0")
    for k in range(1, 4):
        s.compile(f"0/{k}", recompile_reason=f"0/{k - 1}: n == {k}")
        _specialised(s, f"0/{k}", 7, source="L['n']")
    _call(s, "0/3", [30])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 7 and "line 7 specialises it" in d["reason"], d
    assert "needs it as a concrete number" in d["explanation"]
    assert "before the call" in d["fix"] and "closed form" in d["fix"], d["fix"]
    assert "Wrapping Constants" not in d["fix"]
    # probes36f quantile_clip_anneal: the words said a tensor "does not help", where
    # `torch.quantile(x, clip_q)` takes q as a tensor (the fix's tensor half worked)
    assert "does not help" not in d["explanation"] and "quantile" in d["explanation"]


def test_a_number_only_an_op_takes_as_a_python_number_gets_no_tensor_fix(tmp_path):
    """probes37e tta_scale_factor_recompile: `F.interpolate(img, scale_factor=scale)` with a
    scale per test-time augmentation; the fix's "pass `torch.tensor(value)`" half cannot
    apply (interpolate takes scale_factor only as a Python number), and the explanation said
    torch's "(trivial_lhs)"."""
    s = Store(tmp_path)
    s.compile("0/0")
    for k in range(1, 4):
        s.compile(f"0/{k}", recompile_reason=f"0/{k - 1}: n == {k}")
        _specialised(s, f"0/{k}", 7, source="L['n']",
                     loc="x = F.interpolate(img, scale_factor=n)")
    _call(s, "0/3", [30])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "`interpolate` takes it only as a Python number" in d["fix"], d["fix"]
    assert "torch.tensor(" not in d["fix"]


def test_a_loop_over_a_number_gets_a_fixed_trip_count_not_a_tensor(tmp_path):
    """probes35e gru_unroll_batch_maxlen: `for t in range(n_steps)` over a recurrent cell, the
    batch's longest length; the number fix ("compute what depends on it before the call")
    was applied as a sliced input looped over its width and still recompiled each count."""
    s = Store(tmp_path)
    s.compile("0/0")
    for k in range(1, 4):
        s.compile(f"0/{k}", recompile_reason=f"0/{k - 1}: n == {k}")
        _specialised(s, f"0/{k}", 7, source="L['n']", loc="for t in range(n):")
    _call(s, "0/3", [30])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 7, d
    assert "unrolls a Python loop" in d["fix"] and "fixed number of times" in d["fix"], d["fix"]


def test_one_recompile_from_a_size_of_one_is_information(tmp_path):
    """probes30a beam_search_ok: a beam search starts with one beam, then keeps four; the
    one recompile 1 -> 4 (a line specialising the size too) was a problem. torch gives size 1
    a graph of its own (0/1 specialisation): once is by design. A specialised size that keeps
    changing (test_a_specialised_size_points_at_the_line_that_specialised_it) stays one."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: tensor 'x' size mismatch at index 0. expected 1, "
                                      "actual 4")
    _specialised(s, "0/1", 7)
    _call(s, "0/1", [30])
    (d,) = s.explain()
    assert (d["kind"], d["severity"]) == ("recompile", "info"), d
    assert "0/1 specialisation" in d["explanation"] and d["fix"].startswith("Nothing to do")


def test_zero_one_bounded_allows_one_recompile_per_zero_or_one_value_plus_one():
    """The rule as a property: a size that took 0 or 1 may recompile once per such value plus
    one when its last graph is dynamic (probes30a static_cache_ok: prefill 7, decode 1, prefill
    11: two recompiles, "a new value every call"); never a size that took neither, nor more."""
    from hypothesis import given, strategies as st

    from compdiag.analyses.zero_one import zero_one_bounded

    assert zero_one_bounded([7, 1, 11], 2, specialised_by_line=False, made_dynamic=True)
    assert not zero_one_bounded([7, 1, 11], 2, specialised_by_line=False, made_dynamic=False)
    assert not zero_one_bounded([2, 3, 4, 5], 3, specialised_by_line=True, made_dynamic=False)

    @given(st.lists(st.integers(0, 50), min_size=2, max_size=12), st.integers(1, 12),
           st.booleans(), st.booleans())
    def prop(values, count, by_line, dynamic):
        ones = len({v for v in values if v in (0, 1)})
        ok = zero_one_bounded(values, count, specialised_by_line=by_line, made_dynamic=dynamic)
        if ok:
            assert ones and (count == 1 or count <= ones + 1)
        if ones == 0:
            assert not ok
    prop()


def test_mode_combinations_and_one_freeze_are_information(tmp_path):
    """probes30d prune_finetune_ok and ema_teacher_ok: train under grad, evaluate under
    no_grad, a frozen EMA teacher beside its student: 3-4 graphs, one per combination of
    grad mode, train/eval and requires_grad, each compiled once. Two grad-mode recompiles
    were "more than modes", a problem; one requires_grad change a problem too. Cached
    entries are reused, so only the recompile limit makes a mode switch a problem."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: GLOBAL_STATE changed: grad_mode")
    s.compile("0/2", recompile_reason="0/1: GLOBAL_STATE changed: grad_mode")
    s.compile("0/3", recompile_reason="0/2: tensor 'x' requires_grad mismatch. expected "
                                      "requires_grad=1")
    found = [d for d in s.explain() if d["kind"] == "recompile"]
    assert found and all(d["severity"] == "info" for d in found), found
    assert any("combination of modes" in d["fix"] for d in found)


def test_a_string_guard_gets_no_tensor_fix():
    """probes30d act_stats_hook_item: a hook's closure string `name == 'relu3'` changing per
    layer got "name is a Python number ... wrap it in a tensor", and `torch.tensor('relu1')`
    raises TypeError."""
    fix = RC.recompile_fix("value", "name", count=8, limit=True, fn="hook",
                           recurring_text="name == 'relu3'", guard_text="name == 'relu3'")
    assert "Python string" in fix and "torch.tensor(" not in fix, fix


def test_a_size_torchs_own_code_specialised_is_said_so_with_a_fix_that_works(tmp_path):
    """probes29c audio_unet_varlen: automatic dynamic shapes made the clip length dynamic and
    Inductor's convolution_backward lowering specialised it back (`Eq(s86, 3616)`, no user
    frame), so every length recompiled; the diagnosis said automatic dynamic shapes were off
    and printed `mark_dynamic`, which failed with ConstraintViolationError."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: tensor 'x' size mismatch at index 0. expected 2, "
                                      "actual 3")
    s.ing.record({**_ids("0/1"), "symbolic_shape_specialization": {
        "symbol": "s86", "sources": ["L['x'].size()[0]"], "value": "3",
        "reason": "range_refined_to_singleton", "stack": [], "user_stack": []}}, None)
    s.compile("0/2", recompile_reason="0/1: tensor 'x' size mismatch at index 0. expected 3, "
                                      "actual 4")
    _call(s, "0/2", [30])
    (d,) = s.explain()
    assert "torch's own code specialises it" in d["reason"], d["reason"]
    assert d["fix"].startswith("Pad or bucket") and "mark_dynamic(x" not in d["fix"]
    assert "automatic dynamic shapes were off" not in d["fix"]


def test_a_data_dependent_guard_failure_is_at_the_value_read_behind_it(tmp_path):
    """probes30a static_cache_fullgraph: `start = int(cache_position[0])` (line 23) bounded
    slices of a static KV cache (u5 made at line 28 from it), and SDPA (line 29) could not
    decide `Eq(u5, 0)`: the failure sat at line 29 with "check it runs in eager", which it
    did. torch's create_unbacked_symbol records say where each symbol was made and by which
    op: the reason names the read of a tensor's value behind the expression (line 23), and the
    fix is about it. The line is the one torch names (29, issue 29 §1's first evidence):
    probes35c trim_pad_mha_encoder and probes35e ohem_zero_pos_fullgraph, judged blind, wanted
    torch's line, and static_cache_fullgraph's sidecar accepts 29 with the read named."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.ing.record({**_ids("0/0"), "str": [str(s.user), 1]}, None)
    for sym, line, op in (("u0", 23, "local_scalar_dense"), ("u5", 28, "slice_forward")):
        s.ing.record({**_ids("0/0"), "create_unbacked_symbol": {
            "symbol": sym, "vr": "[-int_oo, int_oo]",
            "user_stack": [{"line": line, "name": "forward", "filename": 1,
                            "loc": f"line_{line} = {line}"}],
            "stack": [{"line": 1, "name": "dispatch_to_op_implementations_dict", "filename": 2},
                      {"line": 2, "name": op, "filename": 2}]}}, None)
    message = ("Could not guard on data-dependent expression Eq(u5, 0) (unhinted: Eq(u5, 0)).  "
               "(Size-like symbols: none)")
    s.failure("0/0", stage="dynamo", exc_type="UserError", message=message,
              filename=str(s.user), lineno=29, line="line_29 = 29", torch_message=message,
              traceback=f'  File "{s.user}", line 29, in forward\n    line_29 = 29\n')
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 29, d["user_frame"]
    assert "line 23" in d["reason"] and "line 29" in d["explanation"], d
    assert "register_fake" not in d["fix"] and "pass it in as an int" in d["fix"]


def test_a_function_compiled_apart_because_of_its_break_folds_under_the_break(tmp_path):
    """probes30d act_stats_hook_item: a forward hook's `.item()` (line 27) broke `forward`
    (frame 0); Dynamo then compiled the hook on its own (frame 2), once per closure, and hit
    the recompile limit on its `name`, which ranked first with a wrong fix. The hook's
    recompiles are the break's consequence: the break ranks first, the recompile under it."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 27, gb_type="Unsupported Tensor.item() call with "
                  "capture_scalar_outputs=False", code="GB0124")
    s.compile("2/0", co_name="hook", lineno=26)
    s.graph_break("2/0", 27, gb_type="Unsupported Tensor.item() call with "
                  "capture_scalar_outputs=False", code="GB0124")
    for i in range(1, 4):
        s.compile(f"2/{i}", co_name="hook", lineno=26,
                  recompile_reason=f"2/{i - 1}: name == 'relu{i}'")
    diags = s.explain()
    assert diags[0]["kind"] == "graph_break" and diags[0]["user_frame"]["lineno"] == 27, diags
    assert not [d for d in diags if d["kind"] == "recompile"], diags
    assert [c["kind"] for c in diags[0]["consequences"]] == ["recompile"]


def test_an_unsupported_torch_caught_is_a_skipped_frame_not_a_fullgraph_failure(tmp_path):
    """probes30b flow_jacobian and probes30d per_sample_grads_vmap: a compiled function called
    inside `vmap(jacrev(...))` raised "Unsupported functorch tracing attempt" as its compile
    started; torch caught it and ran the function in eager, and the program exited 0. explain
    said failure, with a fix about `fullgraph=True`, which neither program used. Now: a graph
    break that skipped the frame, at the transform's line, the failure folded under it."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="velocity_field", lineno=5)
    message = "Unsupported functorch tracing attempt"
    s.failure("0/0", stage="dynamo", exc_type="Unsupported", message=message,
              filename=str(s.user), lineno=14, line="J = vmap(jacrev(velocity_field))(points)",
              traceback=("torch._dynamo.exc.Unsupported: Unsupported functorch tracing attempt\n"
                         "  Explanation: dynamo failed for one of the following reasons:\n"
                         "    - Calling torch.func.grad(compiled_fn) from eager mode is not "
                         "supported.\n\n  Developer debug context: \n\n For more details, see "
                         "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0149.html"
                         "\n"))
    (d,) = s.explain()
    assert (d["kind"], d["user_frame"]["lineno"]) == ("graph_break", 14), d
    assert "skipped the frame" in d["reason"] and "vmap(jacrev(...))" in d["reason"]
    assert "fullgraph" not in d["fix"] and "torch.compile(vmap(" in d["fix"]
    assert [c["kind"] for c in d["consequences"]] == ["failure"]


def test_a_double_backward_through_compiled_code_points_at_the_create_graph_line(tmp_path):
    """probes29c wgan_gradient_penalty: a compiled critic loss took a gradient penalty with
    `torch.autograd.grad(..., create_graph=True)`; `loss.backward()` then failed ("does not
    currently support double backward") and the diagnosis sat at backward() with bisect
    advice. The line that made the second backward is the gradient's, and the fix keeps it
    out of compiled code."""
    s = Store(tmp_path, exit_code=1)
    lines = ["line_%d = %d" % (i, i) for i in range(1, 40)]
    lines[19] = "    grads = torch.autograd.grad(out.sum(), mixed, create_graph=True)[0]"
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0", lineno=16)
    s.failure(None, stage="runtime", exc_type="RuntimeError",
              message="torch.compile with aot_autograd does not currently support double "
                      "backward", filename=str(s.user), lineno=31)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 20, d["user_frame"]
    assert d["fix"].startswith("Keep the double backward out of compiled code"), d["fix"]
    # probes32a r1_penalty_gan: the uncompiled module for the pass differentiated twice
    assert "_orig_mod" in d["fix"], d["fix"]


def test_dynamos_internal_error_on_values_read_out_of_tensors_names_the_read(tmp_path):
    """probes29c random_crop_tolist: `top, left = torch.randint(...).tolist()` as slice
    bounds under fullgraph=True; Dynamo raised InternalTorchDynamoError
    (PendingUnbackedSymbolNotFound) and the diagnosis said only to report it. The line torch
    names (where the values are used, here 30) stays the diagnosis's line, and the read is named
    (probes46a cutmix_capture_scalar_paste: put at the `.item()` line, torch said the paste)."""
    s = Store(tmp_path, exit_code=1)
    lines = ["line_%d = %d" % (i, i) for i in range(1, 40)]
    lines[12] = "    top, left = torch.randint(0, 9, (2,)).tolist()"
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0", lineno=11)
    s.failure("0/0", stage="dynamo", exc_type="InternalTorchDynamoError",
              message="PendingUnbackedSymbolNotFound: Pending unbacked symbols (data-dependent "
                      "values) {u3} not in returned outputs", filename=str(s.user), lineno=30)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 30 and "`.tolist()` at line 13" in d["reason"], d
    assert "random.randint" in d["fix"] and "line 13" in d["fix"], d["fix"]


def test_mark_dynamic_constraint_violation_points_at_the_specialising_line(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    _specialised(s, "0/0", 9)
    s.failure("0/0", stage="dynamo", exc_type="ConstraintViolationError",
              message="Constraints violated (L['x'].size()[0])! For more information, run with "
                      "TORCH_LOGS=\"+dynamic\".", filename=str(s.user), lineno=3)
    (d,) = s.explain()
    assert d["kind"] == "failure" and d["user_frame"]["lineno"] == 9
    assert "maybe_mark_dynamic" in d["fix"] and "specialised it to the constant 3" in \
        d["explanation"]


def test_a_marked_dimension_given_a_size_of_one_is_torchs_0_1_specialisation(tmp_path):
    """probes29b batcher_min_batch_one: `mark_dynamic(ids, 0, min=1)` and a batch of one:
    "specialized it to be a constant (1)", with no line of the program specialising it. The
    fix was the generic fake-tensor advice; it is torch's own (maybe_mark_dynamic), with why."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    _call(s, "0/0", [26])
    s.failure("0/0", stage="dynamo", exc_type="ConstraintViolationError",
              message="Constraints violated (L['ids'].size()[0])! For more information, run "
                      "with TORCH_LOGS=\"+dynamic\".", filename=str(s.user), lineno=26,
              torch_message="Constraints violated (L['ids'].size()[0])!\n  - You marked "
                            "L['ids'].size()[0] as dynamic but your code specialized it to be "
                            "a constant (1). If you're using mark_dynamic, either remove it or "
                            "use maybe_mark_dynamic.")
    (d,) = s.explain()
    assert d["kind"] == "failure" and d["user_frame"]["lineno"] == 26
    assert d["fix"].startswith("Use `torch._dynamo.maybe_mark_dynamic`"), d["fix"]
    assert "sizes 0 and 1" in d["explanation"] and "register_fake" not in d["fix"]


def test_a_recompile_whose_compile_failed_folds_under_the_failure(tmp_path):
    """probes29b rerank_candidates_abort: `scores.view(-1, 8)` on a size not divisible by 8
    recompiled (the divisibility guard) and that compile failed on fake tensors. The
    recompile came third as "a branch on (size % 8) took the other way" with `torch.where`
    advice, for a program with no branch: it is the failure's compile, one event."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    s.compile("0/1", lineno=3, recompile_reason="0/0: (L['x'].size()[0] % 8) == 0  "
                                                "# return y.view(-1, 8)  # a.py:21 in f")
    _call(s, "0/1", [32])
    s.failure("0/1", stage="dynamo", exc_type="TorchRuntimeError",
              message="RuntimeError: shape '[-1, 8]' is invalid for input of size s14",
              filename=str(s.user), lineno=21)
    diags = s.explain()
    assert [d["kind"] for d in diags if d["severity"] == "problem"] == ["failure"], diags
    assert [c["kind"] for c in diags[0]["consequences"]] == ["recompile"]


def _method_recompile(tmp_path: Path, first_id: int, second_id: int,
                      module: bool | None = None) -> dict:
    """forward() recompiled on self.scale, called first with one `self`, then another
    (`module`: whether capture saw an nn.Module; None: a store from before it said)."""
    tmp_path.mkdir(exist_ok=True)
    s = Store(tmp_path)
    for cid, line, obj in (("0/0", 20, first_id), ("0/1", 21, second_id)):
        reason = (f"0/0: self.scale == 1.0  # y = x * self.scale  # {s.user}:5 in forward"
                  if cid == "0/1" else None)
        s.compile(cid, co_name="forward", **({"recompile_reason": reason} if reason else {}))
        _call(s, cid, [line], {"self": ["__main__.Net", obj] + ([] if module is None
                                                                 else [module])})
    (d,) = s.explain()
    return d


def test_instances_called_from_one_line_are_at_the_attribute_torch_guards(tmp_path):
    """probes34a swa_window_per_layer and probes34c regional_tcn_dilation: one compiled block
    class, instances with their own `self.window` called in turn by `for block in blocks: x =
    block(x)`; the recompile limit was put at that call (line 45), which is every instance's.
    One call line for all: the line reading the guarded attribute (26) is the cause."""
    s = Store(tmp_path)
    for k in range(3):
        reason = (f"0/{k - 1}: self.window == {4 * k}  # allowed = dist < self.window  "
                  f"# {s.user}:5 in forward") if k else None
        s.compile(f"0/{k}", co_name="forward", **({"recompile_reason": reason} if k else {}))
        _call(s, f"0/{k}", [45], {"self": ["__main__.Block", 1000 + k, True]})
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["details"]["instances"] == "Block" and d["user_frame"]["lineno"] == 5, d


def test_instances_whose_value_keeps_changing_are_a_problem_and_two_configurations_are_not(
        tmp_path):
    """Instances' own graphs are the design while the guarded value takes few values (probes46a
    vit_droppath_regional_rand_ok: drop_prob 0.0 or not, a false positive); a value new at
    every instance (a drop rate per block, a window per layer) is a recompile at each one."""
    def severity(n: int) -> str:
        (tmp_path / str(n)).mkdir()
        s = Store(tmp_path / str(n))
        for k in range(n):
            reason = (f"0/{k - 1}: self.window == {4 * k}  # allowed = dist < self.window  "
                      f"# {s.user}:5 in forward") if k else None
            s.compile(f"0/{k}", co_name="forward", **({"recompile_reason": reason} if k else {}))
            _call(s, f"0/{k}", [45], {"self": ["__main__.Block", 1000 + k, True]})
        (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
        assert d["details"]["instances"] == "Block", d
        return d["severity"]
    assert severity(2) == "info" and severity(5) == "problem"



def test_two_instances_of_one_class_say_so_and_do_not_advise_mark_dynamic(tmp_path):
    d = _method_recompile(tmp_path / "two", 1111, 2222)
    assert d["reason"].startswith("another instance of Net") and d["details"]["instances"] == "Net"
    # a second instance compiled once is the design, information (probes46a
    # vit_droppath_regional_rand_ok was a false positive); three or more: the test above
    assert d["severity"] == "info", d
    assert d["user_frame"]["lineno"] == 21 and "mark_dynamic" not in d["fix"]
    # The same instance whose attribute changed is a value recompile, as before.
    e = _method_recompile(tmp_path / "one", 1111, 1111)
    assert "instances" not in e["details"] and "torch.tensor" in e["fix"]
    # Two modules: instances, as before; a plain object built anew for each call (a
    # dataclass of settings whose value changes every step) is a value that changed, never
    # "one graph per instance configuration". Found by a probe (a sampling config whose
    # temperature decays each step).
    m = _method_recompile(tmp_path / "modules", 1111, 2222, module=True)
    assert m["details"]["instances"] == "Net"
    v = _method_recompile(tmp_path / "values", 1111, 2222, module=False)
    assert "instances" not in v["details"] and not v["reason"].startswith("another instance")


def test_two_compiled_modules_of_one_class_are_two_instances_not_a_specialisation(tmp_path):
    """probes30d sn_critic_two_passes: `torch.compile(critic)` and `torch.compile(generator)`,
    two nn.Sequential, share torch's wrapper code (`inner(*args)`, the module as `fn`); the
    second one's recompile on `args[0].shape[1]` (8 -> 2) read "torch's own code specialises
    it ... pad or bucket the inputs". It is another instance, compiled once each."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: tensor 'args[0]' size mismatch at index 1. "
                                      "expected 8, actual 2")
    s.ing.record({**_ids("0/1"), "symbolic_shape_specialization": {
        "symbol": "s1", "sources": ["L['args'][0].size()[1]"], "value": "2",
        "reason": "range_refined_to_singleton", "stack": [], "user_stack": []}}, None)
    _call(s, "0/0", [26], {"fn": ["torch.nn.modules.container.Sequential", 1111, True]})
    _call(s, "0/1", [27], {"fn": ["torch.nn.modules.container.Sequential", 2222, True]})
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["reason"].startswith("another instance of Sequential"), d["reason"]
    assert "Pad or bucket" not in d["fix"]


# -- accuracy verdicts against float64 (issue 16, class 4) --------------------------------------
@pytest.mark.parametrize("ok, detail, words", [
    (True, {"verdict": "ill_conditioned", "amplification": 8.4e6, "dtype": "torch.float32",
            "fp64": {"eager_rel": 1.0, "compiled_rel": 1.0}}, "ill-conditioned, not a compiler"),
    (False, {"verdict": "dtype_promotion", "eager_dtype": "torch.int8",
             "compiled_dtype": "torch.int64", "values_equal": True},
     "torch.int8 in eager, torch.int64 compiled"),
    (False, {"verdict": "inf_nan", "matches_fp64": "compiled", "nonfinite_positions": 40,
             "dtype": "torch.float16"}, "only inf/nan positions differ"),
])
def test_a_negative_verdict_is_not_worded_as_a_compiler_difference(tmp_path, ok, detail, words):
    s = Store(tmp_path)
    s.compile("0/0")
    s.post_grad("0/0", "def forward(self, x):\n"
                       f"    # File: {s.user}:12 in f, code: line_12 = 12\n"
                       "    inverse: \"f32[4, 4]\" = torch.ops.aten.linalg_inv.default(x)\n"
                       "    return (inverse,)\n")
    # The checker found no user line for the op (its stack is torch's): the graph's node has one.
    node = {"node": "inverse", "op": "inverse", "user_frame": {
        "filename": "/usr/lib/python3.11/site-packages/torch/functional.py", "lineno": 3}}
    s.accuracy("0/0", [("output 0", ok, 1.0, 1.0, detail)], node=node)
    (d,) = [x for x in s.explain() if x["kind"] == "accuracy"]
    assert words in d["reason"] and "differs from eager" not in d["reason"]
    assert d["user_frame"]["lineno"] == 12
    assert d["details"]["verdict"] == detail["verdict"]


def test_a_miscompile_verdict_says_how_much_further_from_float64(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    node = {"node": "var", "op": "var", "user_frame": {"filename": str(s.user), "lineno": 9}}
    s.accuracy("0/0", [("output 0", False, 3e-3, 3e-3, {
        "verdict": "miscompile", "fp64": {"eager_rel": 2.8e-8, "compiled_rel": 1.2e-3}})],
        node=node)
    (d,) = s.explain()
    assert "compiled output 0 differs from eager: compiled is 4.29e+04x further" in d["reason"]
    assert d["user_frame"]["lineno"] == 9 and "compdiag bisect" in d["fix"]


def test_other_guarded_values_that_changed_are_named_too(tmp_path):
    """torch names the first guard that failed (grad_mode); the entries' guard trees show the
    module's `training` flipped as well."""
    def tree(training: str) -> str:
        return ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                "| +- GuardManager: source=L['fn']._modules['1'].training, accessed_by="
                "DictGetItemGuardAccessor('training')\n"
                f"| | +- ID_MATCH: L['fn']._modules['1'].training == {training}  # x  # a.py:3"
                "\n")
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}}, tree("True"))
    s.compile("0/1", recompile_reason="0/0: GLOBAL_STATE changed: grad_mode ")
    s.ing.record({**_ids("0/1"), "dynamo_cpp_guards_str": {}}, tree("False"))
    (d,) = s.explain()
    assert d["details"]["also_changed"] == ["L['fn']._modules['1'].training True -> False"]
    assert "also changed: fn[1].training True -> False" in d["reason"]


# -- the exception that ended the program (program_exceptions), torch's message, cost ---------
AOT_FILE = "/usr/lib/python3.11/site-packages/torch/_functorch/_aot_autograd/runtime_wrappers.py"
BACKWARD_TWICE = ("Trying to backward through the graph a second time (or directly access saved "
                  "tensors after they have already been freed).\nSpecify retain_graph=True if "
                  "you need to backward through the graph a second time.")


def _frames(user: Path, *rest: tuple[str, int, str]) -> list[dict]:
    return [{"filename": str(user), "lineno": 20, "name": "<module>", "line": "b.backward()"},
            *({"filename": f, "lineno": n, "name": name, "line": None} for f, n, name in rest)]


def test_a_runtime_failure_through_compiled_code_is_one_fatal_failure(tmp_path):
    """Capture writes a failure row and the program exception for the same error: explain
    reports it once (a relation in program's SPEC), fatal, at the user's line, with the
    frame it was raised in and torch's whole message."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.graph_break("0/0", 5)
    s.failure(None, stage="runtime", exc_type="RuntimeError",
              message=BACKWARD_TWICE.splitlines()[0], filename=str(s.user), lineno=20,
              torch_message=BACKWARD_TWICE)
    s.ing.program_exception(None, exc_type="RuntimeError", message=BACKWARD_TWICE,
                            frames=_frames(s.user, (AOT_FILE, 3473, "backward")),
                            compiled="AOTAutograd's runtime wrappers", stage="runtime")
    diags = s.explain()
    failures = [d for d in diags if d["kind"] == "failure"]
    assert len(failures) == 1 and diags[0] is failures[0]
    top = diags[0]
    assert (top["stage"], top["user_frame"]["lineno"]) == ("runtime", 20)
    assert top["details"]["fatal"] and top["details"]["raised_in"]["filename"] == AOT_FILE
    assert top["details"]["surfaced_at"]["lineno"] == 20
    assert top["details"]["torch_message"] == BACKWARD_TWICE
    assert "retain_graph=True" in top["fix"]  # RUNTIME_FIXES' row for it


def test_a_compiled_code_exception_without_a_failure_row_is_still_a_failure(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.ing.program_exception(None, exc_type="RuntimeError", message="Output 0 of CompiledFunction "
                            "is a view and is being modified inplace.",
                            frames=_frames(s.user), compiled="AOTAutograd's CompiledFunction",
                            stage="runtime")
    (d,) = s.explain()
    assert (d["kind"], d["stage"], d["user_frame"]["lineno"]) == ("failure", "runtime", 20)
    assert "clone" in d["fix"]


def test_an_exception_outside_compiled_code_is_a_program_diagnosis_ranked_first(tmp_path):
    """Not "no problems found", and not a compile failure: a suppressed compile failure
    earlier in the run is no longer the fatal one. How the run ended ranks above the
    failure and the break that did not cause it (issue 29 §2; it ranked last before)."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.graph_break("0/0", 5)
    s.failure("0/0", stage="inductor_lowering", exc_type="LoweringException",
              message="LoweringException: boom", filename=str(s.user), lineno=7)
    s.ing.program_exception(None, exc_type="KeyError", message="'weight'",
                            frames=_frames(s.user, ("/usr/lib/python3.11/json/x.py", 3, "get")),
                            compiled=None, stage=None)
    diags = s.explain()
    assert [d["kind"] for d in diags] == ["program", "failure", "graph_break"]
    assert diags[1]["details"]["fatal"] is False
    prog = diags[0]
    assert prog["reason"].startswith("the program raised KeyError at line 20, outside "
                                     "compiled code")
    assert prog["details"]["raised_in"]["name"] == "get" and prog["severity"] == "problem"


def test_a_compile_a_ctrl_c_stopped_is_interrupted_not_ok(tmp_path):
    """torch's `except Exception` lets a KeyboardInterrupt pass, so its metrics of the compile
    it stopped carry no fail_type: show listed that compile `ok` (benchmarks/probes24
    ctrl_c_during_compile). The compile last started is "interrupted"; an earlier one that
    finished, and a run interrupted outside a compile, keep theirs."""
    from compdiag.views.show import show_document

    for in_compile, want in ((True, "interrupted"), (False, "ok")):
        (tmp_path / str(in_compile)).mkdir()
        s = Store(tmp_path / str(in_compile), exit_code=130)
        s.compile("0/0", graph_op_count=2, has_guarded_code=True)
        s.compile("1/0", co_name="g", lineno=20, graph_op_count=2, has_guarded_code=True)
        s.ing.program_exception(None, exc_type="KeyboardInterrupt", message="",
                                frames=[{"filename": str(s.user), "lineno": 12,
                                         "name": "<module>", "line": None}],
                                compiled="inside Inductor's compile_fx (a compile)"
                                if in_compile else None, stage=None, in_compile=in_compile)
        top = s.explain()[0]
        assert top["reason"].startswith("interrupted (Ctrl-C) at line 12")
        with Reader(s.path) as r:
            status = {c["compile_id"]: c["status"] for c in show_document(r, s.run_id)["compiles"]}
        assert status["1/0"] == want and status["0/0"] != "interrupted", status


def test_a_users_own_check_when_the_accuracy_check_found_the_graphs_equal(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 9 + "assert torch.equal(eager, compiled)\n")
    s.compile("0/0")
    s.graph_break("0/0", 5)
    s.accuracy("0/0", [("out0", True, 1e-7, 1e-7, {})])
    s.ing.program_exception(None, exc_type="AssertionError", message="",
                            frames=[{"filename": str(s.user), "lineno": 10, "name": "<module>",
                                     "line": None}], compiled=None, stage=None)
    top = s.explain()[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 10
    assert "found the compiled graphs equal to eager" in top["reason"]
    assert top["details"]["check"] == "assert torch.equal(eager, compiled)"
    assert top["details"]["accuracy"] == "equal" and "assert_close" in top["fix"]


def test_a_raise_after_a_comparison_is_a_check_too(tmp_path):
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("x = 1\n" * 8 + "if not torch.allclose(a, b, rtol=1e-3):\n"
                      "    raise ValueError('diff value')\n")
    s.compile("0/0")
    s.ing.program_exception(None, exc_type="ValueError", message="diff value",
                            frames=[{"filename": str(s.user), "lineno": 10, "name": "<module>",
                                     "line": None}], compiled=None, stage=None)
    (d,) = s.explain()
    assert d["details"]["check"].startswith("if not torch.allclose(a, b, rtol=1e-3):")
    assert d["details"]["accuracy"] == "not run" and "--check-accuracy" in d["fix"]
    # the command runs as pasted: the run's store and script (benchmarks/probes25: a bare
    # `compdiag run --check-accuracy` exited 2, "run needs SCRIPT or -m MODULE")
    assert f"`compdiag run --store {s.path} --check-accuracy {s.user}`" in d["fix"], d["fix"]


def test_any_assert_helper_is_a_check_of_the_programs_own(tmp_path):
    """The session-20 oracle sweep: a failed `self.assertExpectedInline(...)` in PyTorch's own
    tests read "the program raised AssertionError ..., outside compiled code" where a failed
    `self.assertEqual(...)` read "your own check ... failed": only some assert helpers were
    known by name. Any `assert*(` call is a check now."""
    for i, call in enumerate(("self.assertExpectedInline(str(out), 'x')",
                              "self.assertAlmostEqual(a, b)", "np.testing.assert_allclose(a, b)")):
        (tmp_path / str(i)).mkdir()
        s = Store(tmp_path / str(i), exit_code=1)
        s.user.write_text("import torch\n" * 9 + call + "\n")
        s.compile("0/0")
        s.ing.program_exception(None, exc_type="AssertionError", message="",
                                frames=[{"filename": str(s.user), "lineno": 10,
                                         "name": "<module>", "line": None}],
                                compiled=None, stage=None)
        (d,) = s.explain()
        assert d["reason"].startswith("your own check at line 10 failed"), (call, d["reason"])


def test_every_kind_carries_torchs_message_whole(tmp_path):
    s = Store(tmp_path, exit_code=0)
    s.compile("0/0")
    s.graph_break("0/0", 5)
    s.compile("0/1", recompile_reason="0/0: tensor 'x' dtype mismatch. expected Float, "
                                      "actual Double")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.cumsum.default")
    s.ing.fusion_line("0/0", "cannot fuse op1 with op2: exceeds max fusion")
    diags = s.explain()
    assert {d["kind"] for d in diags} == {"graph_break", "recompile", "perf", "fusion"}
    by = {d["kind"]: d["details"]["torch_message"] for d in diags}
    assert by["graph_break"].startswith("Graph break in user code at") and \
        "gb0059.html" in by["graph_break"]
    assert by["recompile"] == "tensor 'x' dtype mismatch. expected Float, actual Double"
    assert by["perf"] == "Using FallbackKernel: torch.ops.aten.cumsum.default"
    assert by["fusion"] == "cannot fuse op1 with op2: exceeds max fusion"


@pytest.mark.parametrize("message,exc_type,keeps", [
    ("Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: 'a.py'\n"
     "    triggered by the following guard failure(s):\n"
     "    - 0/0: tensor 'x' dtype mismatch. expected Float, actual Double",
     "RuntimeError", "tensor 'x' dtype mismatch. expected Float, actual Double"),
    ("Tensor-likes are not close!\n\nMismatched elements: 3 / 4 (75.0%)\nGreatest absolute "
     "difference: 0.5 at index (1,) (up to 1e-05 allowed)", "AssertionError",
     "Mismatched elements: 3 / 4"),
    ("backend='inductor' raised:\nRuntimeError: expected size 3==4, stride 1==1 at dim=0\n\n"
     "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information",
     "BackendCompilerFailed", "RuntimeError: expected size 3==4, stride 1==1 at dim=0"),
    ("Data-dependent branching\n  Explanation: Detected data-dependent branching.\n  Hint: use "
     "torch.cond\n\n For more details about this graph break, please visit: "
     "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html",
     "Unsupported", "[GB0170]"),
    ("Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"weight\".",
     "RuntimeError", "Error(s) in loading state_dict for Linear: — Missing key(s)"),
])
def test_the_summary_keeps_the_decisive_part(message, exc_type, keeps):
    from compdiag.analyses.summary import summarise

    out = summarise(message, exc_type)
    assert keeps in out and "\n" not in out and len(out) <= 400
    assert "Hint:" not in out and "TORCH_LOGS" not in out


def test_a_summary_never_drops_the_decisive_line_for_a_long_first_line():
    from compdiag.analyses.summary import summarise

    out = summarise("x" * 1000 + "\n  - 0/0: L['lr'] == 0.01", "RuntimeError")
    assert out.endswith("L['lr'] == 0.01") and len(out) <= 400


def test_a_recompile_every_step_outranks_a_one_off_graph_break(tmp_path):
    """The cost model: a guard failing with a new value each call is a compile per step."""
    s = Store(tmp_path)
    s.compile("1/0", co_name="snapshot", lineno=40)
    s.graph_break("1/0", 42, gb_type="Attempted to copy.deepcopy a tensor", code="GB4198")
    s.compile("0/0", co_name="forward")
    for i in range(1, 6):
        s.compile(f"0/{i}", co_name="forward",
                  recompile_reason=f"0/{i - 1}: self.step == {i - 1}  # self.step += 1  # "
                                   "m.py:9 in forward (HINT: torch.compile considers integer "
                                   "attributes of the nn.Module to be static.)")
    top, second = s.explain()
    assert top["kind"] == "recompile" and second["kind"] == "graph_break"
    assert "each on a new value" in top["reason"]
    assert "allow_unspec_int_on_nn_module" in top["fix"]


def test_an_exit_the_program_chose_ranks_below_the_recompile_every_step(tmp_path):
    """Issue 29 §2: a step-time watchdog's sys.exit(3) is what the recompile every step (a
    new lr each step) made it do; the program printed why it exited, the recompile is the
    news. The exit still says how the run ended, above a one-off graph break. Caught by
    benchmarks/probes24 watchdog_lr_sys_exit: on main the exit ranked first (`ending`)."""
    from principles_check import ending_rank_problems

    s = Store(tmp_path, exit_code=3)
    s.compile("1/0", co_name="snapshot", lineno=40)
    s.graph_break("1/0", 42, gb_type="Attempted to copy.deepcopy a tensor", code="GB4198")
    s.compile("0/0", co_name="apply_update")
    for i in range(1, 5):
        s.compile(f"0/{i}", co_name="apply_update",
                  recompile_reason=f"0/{i - 1}: L['lr'] == 0.0{9 - i}")
    s.ing.program_exception(None, exc_type="SystemExit", message="3",
                            frames=[{"filename": str(s.user), "lineno": 22,
                                     "name": "on_step_end", "line": None}],
                            compiled=None, stage=None)
    diags = s.explain()
    assert [d["kind"] for d in diags] == ["recompile", "program", "graph_break"]
    assert diags[0]["details"]["recurring"] is True
    assert diags[1]["reason"].startswith("exited with status 3 via sys.exit at line 22")
    with Reader(s.path) as r:
        assert ending_rank_problems(r, s.run_id, diags) == []
        # the property still holds an exit above a recompile that is not every step
        assert ending_rank_problems(r, s.run_id, [diags[1], diags[0], diags[2]]) == []
        assert ending_rank_problems(r, s.run_id, [diags[2], diags[1]]) != []


def test_one_automatic_dynamic_size_recompile_is_information(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: tensor 'x' size mismatch at index 0. expected 16, "
                                      "actual 32")
    s.compile("1/0", co_name="g", lineno=20, dynamo_config=json.dumps(
        {"automatic_dynamic_shapes": False}))
    s.compile("1/1", co_name="g", lineno=20, dynamo_config=json.dumps(
        {"automatic_dynamic_shapes": False}),
        recompile_reason="1/0: tensor 'y' size mismatch at index 0. expected 4, actual 8")
    diags = s.explain()
    by_fn = {d["details"]["function"]: d for d in diags}
    assert by_fn["f"]["severity"] == "info" and "Nothing to do" in by_fn["f"]["fix"]
    assert by_fn["g"]["severity"] == "problem"  # dynamic=False: each new size recompiles
    assert diags[-1] is by_fn["f"]


def test_benign_fusion_refusals_are_information(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    # set13/gpu flex_backward_nan_1025 on the H200: "prologue fusion only supported for
    # pointwise nodes" (a limit of the code generator) was a problem on top of a clean run
    for reason in ("will create cycle", "Nodes are too far away. Fusing them may increase "
                   "peak memory.", "score_fusion_memory_threshold",
                   "prologue fusion only supported for pointwise nodes",
                   "prologue fusion not implemented for kernel for these inputs",
                   # set26/gpu bf16_accum_autotune_ok (max-autotune), a problem before
                   "template prologue can only fuse nodes with a single use into template",
                   # set28/gpu autotune_small_gemm_sdpa_ok (max-autotune, H100): both were
                   # problems on a correct program, one advising max-autotune
                   "prologue fusion will not increase amount of bytes read in kernel",
                   "template epilogue not satisfied"):
        s.ing.fusion_line("0/0", f"cannot fuse op1 with op2: {reason}")
    s.ing.fusion_line("0/0", "cannot fuse op3 with op4: exceeds max fusion")
    diags = s.explain()
    assert [d["details"]["reason_class"] for d in diags if d["severity"] == "problem"] == [
        "size_limit"]
    assert {d["details"]["reason_class"] for d in diags if d["severity"] == "info"} == {
        "cycle", "distance", "peak_memory", "unsupported", "no_benefit"}


def test_compiled_code_markers():
    from compdiag.capture.failures import compiled_marker

    torch_dir = "/x/site-packages/torch"
    assert compiled_marker(["/u/train.py", f"{torch_dir}/_dynamo/eval_frame.py",
                            f"{torch_dir}/_ops.py"], "", set()).startswith("Dynamo's eval")
    assert "AOTAutograd" in compiled_marker(
        ["/u/train.py", f"{torch_dir}/_functorch/_aot_autograd/runtime_wrappers.py"], "", set())
    assert compiled_marker(["/u/train.py", "/cache/ab/cabc.py"], "", {"/cache/ab/cabc.py"}) == \
        "an Inductor output module"
    assert "CompiledFunction" in compiled_marker(
        ["/u/train.py"], "Output 0 of CompiledFunction is a view", set())
    # The user's own raise inside a compiled function's call is the program's.
    assert compiled_marker(["/u/train.py", f"{torch_dir}/_dynamo/eval_frame.py",
                            "/u/model.py"], "bad input", set()) is None
    assert compiled_marker(["/u/train.py", f"{torch_dir}/nn/modules/module.py"], "", set()) \
        is None


def test_information_is_listed_apart_not_as_a_problem_with_a_fix(tmp_path):
    """issue #24: one automatic-dynamic recompile is what torch does on purpose."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: tensor 'x' size mismatch at index 0. expected 16, "
                                      "actual 32")
    path = s.done()
    out = _cli("explain", "--store", str(path))
    assert out.returncode == 0, out.stderr
    assert "no problems found" in out.stdout and "info (1, nothing to fix):" in out.stdout
    assert "fix:" not in out.stdout and "#1" not in out.stdout
    assert "size x.shape[0] changed (16 -> 32)" in out.stdout


def _raise_from(filename: str, exc: BaseException) -> BaseException:
    """`exc` raised by a function whose code lives in `filename` (a torch file, say)."""
    ns: dict = {"exc": exc}
    exec(compile("def compile_wrapper():\n    raise exc\n", filename, "exec"), ns)
    try:
        ns["compile_wrapper"]()
    except BaseException as e:  # noqa: BLE001
        return e
    raise AssertionError("did not raise")


def test_a_compile_failure_reraised_at_the_call_is_reported_once_at_its_stage(tmp_path):
    """fullgraph=True's Unsupported escapes from the compiled function's wrapper (eval_frame)
    with the compile's frames cut: it is the dynamo failure torch reported, not a run-time
    one."""
    from compdiag.capture.failures import record_escaped_exception

    class Unsupported(Exception):
        pass

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="Unsupported",
              fail_reason="Failed to trace builtin operator\n  Explanation: print.")
    exc = _raise_from("/x/site-packages/torch/_dynamo/eval_frame.py",
                      Unsupported("Failed to trace builtin operator\n  Explanation: print."))
    record_escaped_exception(s.ing, exc)
    (d,) = s.explain()
    assert (d["kind"], d["stage"]) == ("failure", "dynamo") and d["details"]["fatal"]
    with Reader(s.path) as r:
        (pe,) = r.program_exceptions(s.run_id)
    assert pe["stage"] == "dynamo" and pe["compiled"].startswith("Dynamo's eval frame")
    assert pe["frames"][-1]["name"] == "compile_wrapper"


def test_a_compiled_code_error_at_run_time_gets_a_failure_row_and_the_fact(tmp_path):
    from compdiag.capture.failures import record_escaped_exception

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    exc = _raise_from(AOT_FILE, RuntimeError(BACKWARD_TWICE))
    record_escaped_exception(s.ing, exc)
    (d,) = s.explain()
    assert (d["kind"], d["stage"]) == ("failure", "runtime")
    assert d["details"]["torch_message"] == BACKWARD_TWICE


def test_one_recompile_with_a_user_stack_is_one_recompile_and_says_none_changed(tmp_path):
    """Issue 32 (the zoo's BERT classifier): torch 2.13 logs a single recompile reason as raw
    text with its 'User stack trace:' lines; compdiag stored each line as a recompile (7 where
    torch made 1) and called `config.problem_type is None` an identity guard ("a different
    object was passed")."""
    from test_parsers import BERT_REASON

    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.record({**_ids("0/1"), "artifact": {"name": "recompile_reasons",
                                              "encoding": "json"}}, BERT_REASON)
    s.compile("0/1", recompile_reason=BERT_REASON)
    diags = s.explain()
    with Reader(s.path) as r:
        assert len(r.recompiles(s.run_id)) == 1
    (d,) = [d for d in diags if d["kind"] == "recompile"]
    assert d["count"] == 1
    assert "self.config.problem_type" in d["reason"] and "None" in d["reason"]
    assert "different object" not in d["explanation"]
    assert "before the first call" in d["fix"]


def test_a_size_fix_names_the_tensor_and_torch_s_own_hint_wins():
    """corpus/fail_recompile_limit_params.py: the size source `xs[0].size()[1]` was spelled
    into `mark_dynamic(xs[0].size()[1], 1)` (not a tensor), and torch's own advice in the
    failed guard (force_parameter_static_shapes for a parameter) was not the fix."""
    assert RC.tensor_and_dim("xs[0].size()[1]") == ("xs[0]", "1")
    assert RC.tensor_and_dim("L['x'].size()[0]") == ("x", "0")
    guard = ("tensor 'xs[0]' size mismatch at index 1. expected 9, actual 10. Guard failed on "
             "a parameter, consider using torch._dynamo.config.force_parameter_static_shapes "
             "= False to allow dynamism on parameters.")
    fix = RC.recompile_fix("size", "xs[0].size()[1]", count=8, limit=True, fn="f",
                           guard_text=guard)
    assert "force_parameter_static_shapes = False" in fix and "mark_dynamic" not in fix
    assert "mark_dynamic(x, 0)" in RC.recompile_fix("size", "L['x'].size()[0]", count=1,
                                                   limit=False, fn="f")


def test_torch_s_shape_hint_is_not_the_fix_for_a_requires_grad_change():
    """torch.compile(nn.Sequential(...)) on torch 2.13, then `m[0].weight.requires_grad_(False)`:
    torch appends "consider using force_parameter_static_shapes = False" to every failed guard
    on a parameter, and the fix said it for a requires_grad change, which that setting does not
    touch (the module kept recompiling). A shape hint answers a size or stride guard only."""
    guard = ("tensor 'fn._modules['0']._parameters['weight']' requires_grad mismatch. expected "
             "requires_grad=1. Guard failed on a parameter, consider using "
             "torch._dynamo.config.force_parameter_static_shapes = False to allow dynamism "
             "on parameters.")
    fix = RC.recompile_fix("requires_grad", "L['fn']._modules['0']._parameters['weight']",
                           count=1, limit=False, fn="inner", guard_text=guard)
    assert "force_parameter_static_shapes" not in fix and "requires_grad" in fix
    assert "force_parameter_static_shapes" in RC.recompile_fix(
        "size", "L['w'].size()[0]", count=1, limit=False, fn="f",
        guard_text=guard.replace("requires_grad mismatch", "size mismatch at index 0"))


def test_a_tensor_source_with_a_path_is_rooted_at_its_local_only():
    """The same run: torch 2.13 names the tensor `fn._modules['0']._parameters['weight']` bare;
    ingest wrapped the whole path as one local (`L['fn._modules['0']._parameters['weight']']`),
    which no user spelling can undo, so the headline printed that. Only the root is a local."""
    from compdiag.formats.guard_source import in_user_spelling
    from compdiag.ingest.parse_dynamo import classify_guard, guard_of

    got = classify_guard("tensor 'fn._modules['0']._parameters['weight']' requires_grad "
                         "mismatch. expected requires_grad=1.")
    assert got["source"] == "L['fn']._modules['0']._parameters['weight']"
    assert in_user_spelling(got["source"]) == "fn[0].weight"
    assert classify_guard("tensor 'x' dtype mismatch. expected Float, actual Half")[
        "source"] == "L['x']"
    assert guard_of("tensor 'args[0]' size mismatch at index 0. expected 2, actual 3") == \
        "L['args'][0].size()[0]"
    assert guard_of("tensor 'L['x']' size mismatch at index 1. expected 2, actual 3") == \
        "L['x'].size()[1]"


def test_a_bare_source_with_module_steps_is_spelled_as_the_code_does():
    """torch's recompile reasons name a module attribute from a bare local,
    `self._modules['drop'].p` (benchmarks/probes25 trace_dropout_anneal: the limit's headline
    kept it, where the program writes `model.drop.p`); only a local followed by a module
    step is rewritten, never `torch._dynamo` or `a._b`."""
    from compdiag.formats.guard_source import in_user_spelling

    assert in_user_spelling("recompiled 8 times on self._modules['drop'].p and") == \
        "recompiled 8 times on self.drop.p and"
    assert in_user_spelling("fn._modules['0']._parameters['weight'].size()[1]") == \
        "fn[0].weight.shape[1]"
    for kept in ("torch._dynamo.config", "a._b", "self._modules['my-mod'].p"):
        assert in_user_spelling(kept) == kept


def _bypass(s: Store, cid: str, reason: str) -> None:
    s.ing.record({**_ids(cid), "artifact": {"name": "aotautograd_cache_bypass",
                                            "encoding": "json"}},
                 json.dumps({"cache_bypass_reason": reason,
                             "cache_bypass_exception_type": "BypassAOTAutogradCache"}))


def test_a_bypass_of_torchs_own_function_is_information_not_a_fix_to_make(tmp_path):
    """A DDP step under compiled autograd (optimize_ddp="python_reducer", torch 2.13 CPU):
    the only diagnosis was the compiled-autograd graph's AOTAutograd bypass on torch's own
    `validate_outputs`, ranked as a problem with the fix "register it as a custom op", which a
    user cannot do. The function's module is torch's: information, with no fix to make; a
    bypass on the user's own function keeps its fix."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("1/0")
    _bypass(s, "0/0", "Unsupported call_function target torch._dynamo.compiled_autograd.ops."
                      "validate_outputs. \n Function module: torch._dynamo.compiled_autograd."
                      "ops, \nFunction name: validate_outputs")
    _bypass(s, "1/0", "Unsupported call_function target mylib.scale. \n Function module: "
                      "mylib, \nFunction name: scale")
    diags = {d["reason"].split("target ")[1].split(".")[0]: d for d in s.explain()
             if d["kind"] == "cache"}
    assert diags["torch"]["severity"] == "info" and "Nothing to change" in diags["torch"]["fix"]
    assert diags["mylib"]["severity"] == "problem" and "custom_op" in diags["mylib"]["fix"]


def test_an_amplified_difference_within_the_tolerance_is_a_verdict_not_no_problems(tmp_path,
                                                                                   capsys):
    """Issue 29 §4: a --check-accuracy run whose outputs were within the tolerance, but where
    eager and compiled differ and float rounding is amplified ~500x, printed "no problems
    found" (main at d728d29: capture recorded the amplification, no verdict). It is an
    ill-conditioned verdict with the amplification, ranked below every other problem, and
    information: the check passed, so a correct program gets no problem from it (the blind
    correct programs probes26 acc_bf16_weights_upcast, probes33a dense_top2_moe_ok and
    probes34d gp_regression_chol_ok had it as their top problem), while the header says the
    check's differences are within its tolerance, not "no problems found"."""
    import torch

    from compdiag.capture.accuracy_compare import numeric_verdict

    errs = {"eager_rel": 6e-5, "compiled_rel": 4e-5, "eager_rmse": 6e-5, "compiled_rmse": 4e-5,
            "scale": 1.0}
    v = numeric_verdict(True, True, errs, 1e-3, torch.float32)
    assert v["verdict"] == "ill_conditioned" and v["within_tolerance"] and v["amplification"] > 100
    same = {**errs, "compiled_rel": 6e-5}  # bitwise-equal results: nothing to say
    assert "verdict" not in numeric_verdict(True, True, same, 1e-3, torch.float32)
    quiet = {**errs, "eager_rel": 2e-6, "compiled_rel": 1e-6}  # fp32 noise
    assert "verdict" not in numeric_verdict(True, True, quiet, 1e-3, torch.float32)

    s = Store(tmp_path)
    s.compile("0/0")
    s.accuracy("0/0", [("out0", True, 1e-6, 1e-4, {**v, "dtype": "torch.float32"})])
    s.graph_break("0/0", 7)
    diags = s.explain()
    acc = [d for d in diags if d["kind"] == "accuracy"]
    assert acc and acc[0]["severity"] == "info" and diags[-1] is acc[0]
    assert acc[0]["reason"].startswith("within the tolerance, but ill-conditioned")
    assert "amplified" in acc[0]["reason"]
    (tmp_path / "quiet").mkdir()
    quiet_run = Store(tmp_path / "quiet")
    quiet_run.compile("0/0")
    quiet_run.accuracy("0/0", [("out0", True, 1e-6, 1e-4, {**v, "dtype": "torch.float32"})])
    from compdiag.cli import main

    path = quiet_run.done()
    capsys.readouterr()
    assert main(["explain", "--store", str(path)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "no compiler problems found" in printed and "within its tolerance" in printed
    assert "no problems found" not in printed, printed


def test_a_kernel_that_fails_to_compile_unlogged_is_at_the_graphs_only_user_line(tmp_path):
    """benchmarks/explain_holdout/gpu/float8_int_cast.py on the H200 (torch 2.11): Triton
    refuses the int -> float8 cast ("CompilationError: at 8:11:"), before any output code is
    logged, so no kernel source names the failing kernel; the failure pointed at the call.
    Every node of the graph comes from the one conversion line: that is the line. A graph of
    several user lines keeps no such guess."""
    s = Store(tmp_path)
    s.compile("0/0", lineno=7)
    u = s.user
    s.post_grad("0/0", "class <lambda>(torch.nn.Module):\n"
                "    def forward(self, arg0_1: \"i32[16]\"):\n"
                f"        # File: {u}:8 in fn, code: line_8 = 8\n"
                "        convert_element_type: \"f8e5m2[16]\" = torch.ops.prims."
                "convert_element_type.default(arg0_1, torch.float8_e5m2);  arg0_1 = None\n"
                "        return (convert_element_type,)\n")
    s.failure("0/0", stage="kernel_compile", exc_type="CompilationError",
              message="CompilationError: at 8:11:", traceback="CompilationError: at 8:11:\n"
              "    tmp1 = tmp0.to(tl.float8e5)\n           ^")
    top = [d for d in s.explain() if d["kind"] == "failure"][0]
    assert top["user_frame"]["lineno"] == 8, top["user_frame"]


def test_a_skipped_frame_names_its_own_function_not_the_groups_first(tmp_path):
    """Regression (issue 32, torchvision's Faster R-CNN on torch 2.14): one user line broke
    in forward(), which resumed, and in filter_proposals(), which Dynamo skipped; explain
    said "the whole function in forward() ran in eager", the group's first compile's
    function. It names the skipped frames' functions, and how many of the breaks they are."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="forward")
    s.compile("1/0", co_name="filter_proposals", lineno=20)
    s.graph_break("0/0", 5, gb_type="Dynamic shape operator", code="GB0036")
    s.graph_break("1/0", 5, gb_type="Dynamic shape operator", code="GB0036", skipped=True)
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["count"] == 2 and d["compile_ids"] == ["0/0", "1/0"]
    assert "1 of these 2 breaks" in d["explanation"]
    assert "filter_proposals()" in d["explanation"] and "forward()" not in d["explanation"]


def test_a_fusion_illegal_for_its_reads_is_information_not_a_problem(tmp_path):
    """"memory deps did not match" is Inductor's legality check (the consumer reads other
    positions of the buffer than the producer writes: x + 1, a gather, a mutation), not a
    judgement of profit: it fell to the generic "memory" row and ranked as a problem,
    "fusion judged unprofitable", on top of a run with nothing else wrong (the second unseen
    set's index_put_dynamic_double, pytorch/pytorch#138908, on torch 2.13)."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.fusion_line("0/0", "cannot fuse op0 with op3: memory deps did not match")
    (d,) = s.explain()
    assert d["severity"] == "info" and d["details"]["reason_class"] == "other_positions"
    assert "other positions" in d["reason"]


def test_show_names_a_skipped_frames_break_by_its_own_type(tmp_path, capsys):
    """Where Dynamo gave up on the whole frame, torch's reason is its wrapper ("Failed to handle
    graph break gracefully. Skipping the function ..."): show listed that for the break's type
    and reason (the zoo's Faster R-CNN and SegFormer), though the store has the type under it.
    It now says the break's own type and that the function ran in eager."""
    import json

    from compdiag.cli import main

    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 7, gb_type="Unsupported context manager", code="GB0142", skipped=True)
    s.graph_break("0/0", 9)
    path = s.done()
    assert main(["show", "--store", str(path), "--json"]) == 0
    gbs = json.loads(capsys.readouterr().out)["graph_breaks"]
    assert gbs[0]["gb_type"] == "Unsupported context manager" and gbs[0]["frame_skipped"]
    assert gbs[0]["reason"].startswith("Unsupported context manager (torch skipped")
    assert gbs[1]["gb_type"] == "Failed to trace builtin operator"
    assert not gbs[1]["frame_skipped"]
    assert main(["show", "--store", str(path)]) == 0
    text = capsys.readouterr().out
    assert "GB0142 Unsupported context manager" in text and "Failed to handle" not in text


def test_a_users_failed_check_on_a_measured_mismatch_folds_under_the_mismatch(tmp_path):
    """Issue 29 §2: the program's own check failed and --check-accuracy measured the compiled
    graph to differ from eager: the measured mismatch (at the op) is the cause, the failed
    check its consequence, folded under it. Since the failed check ranks as how the run ended
    (940), it ranked above the mismatch that caused it (the oracle sweep's ranking change)."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 9 + "assert torch.allclose(eager, compiled)\n")
    s.compile("0/0")
    s.accuracy("0/0", [("out0", False, 0.5, 0.5, {"verdict": "miscompile"})])
    s.ing.program_exception(None, exc_type="AssertionError", message="",
                            frames=[{"filename": str(s.user), "lineno": 10, "name": "<module>",
                                     "line": None}], compiled=None, stage=None)
    top = s.explain()[0]
    assert top["kind"] == "accuracy", top
    assert "program" in [c["kind"] for c in top["consequences"]]


def test_a_failed_check_of_values_inductor_drew_in_library_code_names_the_generator(tmp_path):
    """set11's dropout_seed_mismatch (pytorch#158643): nn.Dropout inside a compiled
    nn.Sequential, seeded eager vs compiled compared by assert_close. The post-grad graph's
    prims.inductor_random has no user frame (the dropout is torch's code), and before this
    test the cause was named only where the node had the user's line."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\n" * 18 + "torch.testing.assert_close(actual, expected)\n")
    s.compile("0/0")
    s.post_grad("0/0", "        inductor_random_default: \"f32[16, 32]\" = torch.ops.prims."
                       "inductor_random.default([16, 32], seed, 'rand')\n")
    s.ing.program_exception(None, exc_type="AssertionError", message="Tensor-likes are not "
                            "close!", frames=[{"filename": str(s.user), "lineno": 19,
                                               "name": "<module>", "line": None}],
                            compiled=None, stage=None)
    top = s.explain()[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 19, top
    assert "random numbers with Inductor's own generator" in top["reason"], top
    assert "library code" in top["fix"] and "fallback_random = True" in top["fix"]


def test_a_failed_check_after_an_assumed_constant_changed_names_it(tmp_path):
    """set11's stale_constant_phase_switch (after TransformerEngine PR #3130): a compiled loss
    reads a setting through a function marked `torch.compiler.assume_constant_result`; the
    setting changes, the compiled graph keeps the old constant (no guard), and the program's
    assert_close fails. Before, the headline said only "your own check failed"."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\nS = {'on': True}\n\n\n"
                      "@torch.compiler.assume_constant_result\n"
                      "def enabled():\n    return S['on']\n\n\n"
                      "def f(x):\n    if enabled():\n        x = x * 2\n    return x\n\n\n"
                      "torch.testing.assert_close(a, b)\n")
    s.compile("0/0", co_name="f", lineno=10)
    s.ing.program_exception(None, exc_type="AssertionError", message="Scalars are not close!",
                            frames=[{"filename": str(s.user), "lineno": 16, "name": "<module>",
                                     "line": None}], compiled=None, stage=None)
    top = s.explain()[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 16, top
    assert "`enabled()` (line 11, assume_constant_result)" in top["reason"], top
    assert "torch.compiler.reset()" in top["fix"]


def _failed_check_top(tmp_path, source: str, co_name: str, lineno: int, at: int) -> dict:
    """The top diagnosis of a run whose compiled `co_name` (at `lineno` of `source`) ran and
    whose own check at line `at` then failed."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text(source)
    s.compile("0/0", co_name=co_name, lineno=lineno)
    s.ing.program_exception(None, exc_type="AssertionError", message="Tensor-likes are not close!",
                            frames=[{"filename": str(s.user), "lineno": at, "name": "<module>",
                                     "line": None}], compiled=None, stage=None)
    return s.explain()[0]


def test_a_failed_check_after_python_random_numbers_in_a_compiled_function_names_them(tmp_path):
    """set13 stale_python_rng (pytorch#196437): a compiled augmentation draws its shift from a
    seeded random.Random; a later call that reuses the graph replays the shift drawn when it
    compiled, and the program's check against eager fails. On main the headline said only
    "your own check at line 27 failed". torch's own generator (`torch.randint`) and a
    Distribution's `sample` are not Python random numbers."""
    top = _failed_check_top(tmp_path, "import random\nimport torch\n\n\n"
                            "def augment(x, rng, dist):\n"
                            "    n = torch.randint(0, 2, ()) + dist.sample()\n"
                            "    shift = rng.randint(0, 3)\n    return torch.roll(x, shift) + n\n"
                            "\n\ntorch.testing.assert_close(a, b)\n", "augment", 5, 11)
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 11, top
    assert "Python random numbers (`rng.randint`, line 7)" in top["reason"], top["reason"]
    assert "torch.randint(0, 3, ())" in top["fix"]


def test_the_compiled_functions_source_is_the_def_at_its_line_not_the_first_of_its_name(tmp_path):
    """Review of check_causes: with an uncompiled augmentation's `forward` that calls
    random.random() above the compiled model's `forward`, the first `def forward` of the file
    was read, and the failed check named a Python-random cause the compiled code never had."""
    top = _failed_check_top(tmp_path, "import random\nimport torch\n\n\nclass Aug:\n"
                            "    def forward(self, x):\n        return x * random.random()\n\n\n"
                            "class Model:\n    def forward(self, x):\n        return x + 1\n\n\n"
                            "torch.testing.assert_close(a, b)\n", "forward", 11, 15)
    assert top["kind"] == "program" and "Python random" not in top["reason"], top["reason"]


def test_a_wrapped_error_of_any_class_name_heads_the_failure_with_the_op_being_executed():
    """set14 searchsorted_item_boundary (pytorch#150613), first run: the headline was
    "BackendCompilerFailed: backend='inductor' raised:" and nothing after it. The wrapped
    error's class (`GuardOnDataDependentSymNode`) does not end in Error/Exception, so neither
    the wrapper's inner-exception pattern nor summary's "wrapped error" rule took it: the line
    after a wrapper's "raised:" is the wrapped error whatever its name. And torch named the
    FX node Inductor was executing ("While executing %searchsorted : ... target=
    torch.searchsorted"): that op is the failure's op."""
    from compdiag.analyses.diagnoses.failures import one_line
    from compdiag.analyses.summary import summarise
    from compdiag.ingest.parse_failures import named_op

    tb = ("  File \"x.py\", line 3, in f\n    raise err\n"
          "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
          "GuardOnDataDependentSymNode: Could not guard on data-dependent expression zuf0\n\n"
          "While executing %searchsorted : [num_users=1] = call_function[target=torch."
          "searchsorted](args = (%l_m_, %item), kwargs = {right: True})\n")
    assert one_line("BackendCompilerFailed", "backend='inductor' raised:", tb).startswith(
        "GuardOnDataDependentSymNode: Could not guard on data-dependent expression zuf0")
    message = tb.split("BackendCompilerFailed: ", 1)[1]
    assert summarise(message, "BackendCompilerFailed").startswith(
        "GuardOnDataDependentSymNode: Could not guard")
    assert named_op(None, "backend='inductor' raised:", tb) == "torch.searchsorted"


def test_a_wrapped_bare_assertion_heads_the_failure_with_its_assert_statement(tmp_path):
    """The torch-tests oracle (test_backends.py's Inductor `_raise_error_for_testing`): a
    bare `assert` in torch's code under "backend='inductor' raised:" leaves the wrapped error
    with no message ("AssertionError: "). The inner-exception patterns let `\\s*` run over
    the line end, so the headline spliced the wrapper's own line onto the class name
    ("AssertionError: backend='inductor' raised:"), a message nobody wrote. An exception's
    message is on its own line; a bare assertion's words are its `assert` statement, the
    innermost frame's source line, with where it is."""
    from compdiag.analyses.diagnoses.failures import one_line
    from compdiag.ingest.parsers import bare_assertion

    tb = ('Traceback (most recent call last):\n'
          '  File "/v/site-packages/torch/_dynamo/output_graph.py", line 3119, in _call\n'
          '    compiled_fn = compiler_fn(gm, example_inputs)\n'
          '                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
          '  File "/v/site-packages/torch/_inductor/compile_fx.py", line 2905, in _main\n'
          '    assert not config._raise_error_for_testing\n'
          "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
          "AssertionError: \n\nbackend='inductor' raised:\nAssertionError: ")
    message = "backend='inductor' raised:"
    assert bare_assertion(tb) == ("assert not config._raise_error_for_testing",
                                  "torch/_inductor/compile_fx.py", 2905)
    one = one_line("BackendCompilerFailed", message, tb,
                   "backend='inductor' raised:\nAssertionError: ")
    assert "raised:" not in one and one.startswith("AssertionError")
    assert "`assert not config._raise_error_for_testing` failed" in one
    assert "torch/_inductor/compile_fx.py:2905" in one
    # a wrapped error with a message keeps it; nor does a message run onto the next line
    tb2 = tb.replace("AssertionError: ", "AssertionError: sizes differ")
    assert one_line("BackendCompilerFailed", message, tb2) == "AssertionError: sizes differ"
    assert bare_assertion(tb2) is None
    s = Store(tmp_path)
    s.compile("0/0")
    s.failure("0/0", stage="inductor_lowering", exc_type="BackendCompilerFailed",
              message=message, traceback=tb,
              torch_message="backend='inductor' raised:\nAssertionError: ")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["reason"].startswith("AssertionError: `assert not config._raise_error_for_testing`")


def _failure_of(tmp_path, source: str, compiled: tuple[str, int], **failure) -> dict:
    """The failure diagnosis of a one-compile store: `source` the program, `compiled` its
    compiled function (name, def line), `failure` the row capture wrote (its line in it)."""
    s = Store(tmp_path)
    s.user.write_text(source)
    s.compile("0/0", co_name=compiled[0], lineno=compiled[1])
    s.failure("0/0", filename=str(s.user), **failure)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    return d


def test_a_torch_func_wrapper_met_outside_its_transform_is_at_the_transform_call(tmp_path):
    """set14 vjp_fn_escapes_compile (pytorch#172026), first run: "NotImplementedError: Cannot
    access storage of TensorWrapper" at the compiled call, naming no transform: the
    `vjp_fn` torch.func.vjp returned escaped the compiled function. torch's words name
    functorch's wrapper; the compiled function's source names the transform: that call."""
    d = _failure_of(tmp_path, "import torch\n\ndef energy(q):\n    return q.pow(2).sum()\n\n"
                    "def energy_and_vjp(q):\n    return torch.func.vjp(energy, q)\n\n"
                    "e, f = torch.compile(energy_and_vjp)(torch.ones(3))\n",
                    ("energy_and_vjp", 6), stage="aot", exc_type="NotImplementedError",
                    message="Cannot access storage of TensorWrapper", lineno=9,
                    line="e, f = torch.compile(energy_and_vjp)(q)")
    assert d["user_frame"]["lineno"] == 7, d
    assert "a tensor of torch.func.vjp escaped the transform" in d["reason"]
    assert "return plain tensors" in d["fix"]


def test_a_torch_internal_assert_under_a_transform_is_torchs_bug_not_an_escape(tmp_path):
    """probes30b hessian_potential: `vmap(hessian(potential))` in a compiled function; Dynamo's
    fake-tensor run of a node tripped torch's own "INTERNAL ASSERT FAILED ... please report a
    bug to PyTorch". The node's arguments print as `GradTrackingTensor(lvl=4, ...)`, which read
    as a torch.func wrapper escaping its transform, with a fix about returning plain tensors.
    A wrapper's repr is not an escape; an internal assert is torch's bug, with a workaround."""
    d = _failure_of(tmp_path, "import torch\nfrom torch.func import hessian, vmap\n\n"
                    "def potential(x):\n    return x.norm() ** 2\n\n"
                    "def curvature(p):\n    return vmap(hessian(potential))(p)\n",
                    ("curvature", 7), stage="dynamo", exc_type="TorchRuntimeError",
                    message="RuntimeError: InferenceMode::is_enabled() && self.is_inference() "
                            "INTERNAL ASSERT FAILED at \"VariableMethodStubs.cpp\":66, please "
                            "report a bug to PyTorch. Dynamo failed to run FX node with fake "
                            "tensors: call_function <built-in function mul>(*(0.5, "
                            "GradTrackingTensor(lvl=4, value=\n BatchedTensor(lvl=1, bdim=0, "
                            "value=FakeTensor(...)))))", lineno=8,
                    line="return vmap(hessian(potential))(p)")
    assert "escaped the transform" not in d["reason"], d["reason"]
    assert "return plain tensors" not in d["fix"] and "bug in torch" in d["fix"], d["fix"]


def test_a_size_outside_a_mark_dynamic_range_is_at_the_mark(tmp_path):
    """The lead's probe: `mark_dynamic(x, 0, min=2, max=4)` then a call with 5 rows: Dynamo
    raised "ConstraintViolationError: 5 not in range [2, 4]" at the first line that read the
    size, and the fix said the traced code raised on fake tensors. The range the program
    declared is the cause: at its line, with the sizes."""
    d = _failure_of(tmp_path, "import torch\n\n@torch.compile\ndef f(x):\n    return x[: x.shape[0]]"
                    "\n\nx = torch.randn(5)\ntorch._dynamo.mark_dynamic(x, 0, min=2, max=4)\n"
                    "f(x)\n", ("f", 4), stage="dynamo", exc_type="ConstraintViolationError",
                    message="5 not in range [2, 4]", lineno=5, line="return x[: x.shape[0]]")
    assert d["user_frame"]["lineno"] == 8, d
    assert "size 5 outside the range [2, 4] declared by mark_dynamic at line 8" in d["reason"]
    assert "widen min/max at line 8" in d["fix"]


def test_a_failed_check_after_torch_compile_turned_off_distribution_checks_names_it(tmp_path):
    """set16 compile_disables_validation (PR #185438): an eager helper relies on D.Normal
    raising for a negative scale; after `torch.compile(net)` it no longer does (Dynamo turns
    torch.distributions' validation off for the whole process), and the program's own
    finiteness check fails. On main the headline said only "your own check at line 8
    failed", with the validation note apart as information."""
    s = Store(tmp_path, exit_code=1)
    s.user.write_text("import torch\nimport torch.distributions as D\n\n\n"
                      "def nll(mu, sigma, y):\n    return -D.Normal(mu, sigma).log_prob(y)\n\n"
                      "assert torch.isfinite(nll(a, b, c))\n")
    s.compile("0/0")
    s.ing.program_exception(None, exc_type="AssertionError", message="",
                            frames=[{"filename": str(s.user), "lineno": 8,
                                     "name": "<module>", "line": None}],
                            compiled=None, stage=None)
    top = s.explain()[0]
    assert top["reason"].startswith("your own check at line 8 failed; torch.compile turned off "
                                    "torch.distributions' argument validation"), top["reason"]
    assert "Normal(...) at line 6" in top["reason"]
    assert "validate_args=True" in top["fix"]
    # the information note of the same setting is that cause, folded under it
    assert [d["kind"] for d in s.explain()] == ["program"], s.explain()
    assert [c["kind"] for c in top["consequences"]] == ["accuracy"]


def test_a_workers_failure_the_program_reraised_is_one_failure_with_the_inner_error(tmp_path):
    """probes24 loader_worker_rgba: a compiled transform failed inside a DataLoader worker
    (recorded there as compile 0/1's failure, with torch's inner error) and DataLoader
    re-raised it in the main process ("Caught TorchRuntimeError in DataLoader worker process
    1.", the worker's traceback in its text), which capture recorded again as an escaped
    failure. Two panels for one error, the re-raise's wrapper words first. The re-raise is the
    worker's failure: one diagnosis, the inner error's words, the re-raise said."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/1")
    inner = ("RuntimeError when making fake tensor call\nRuntimeError: The size of tensor a "
             "(4) must match the size of tensor b (3) at non-singleton dimension 0")
    s.failure("0/1", stage="dynamo", exc_type="TorchRuntimeError",
              message="RuntimeError when making fake tensor call", torch_message=inner,
              filename=str(s.user), lineno=16, line="line_16 = 16")
    s.failure(None, stage="dynamo", exc_type="TorchRuntimeError",
              message="Caught TorchRuntimeError in DataLoader worker process 1.",
              torch_message="Caught TorchRuntimeError in DataLoader worker process 1.\n"
                            "Original Traceback (most recent call last):\n" + inner,
              filename=str(s.user), lineno=16, line="line_16 = 16")
    failures = [d for d in s.explain() if d["kind"] == "failure"]
    assert len(failures) == 1, [d["reason"] for d in failures]
    (top,) = failures
    assert "must match" in top["reason"] and top["details"]["fatal"] is True
    assert "DataLoader worker process 1" in top["explanation"]


def test_size_recompiles_with_automatic_dynamic_turned_off_name_the_line_that_did(tmp_path):
    """probes24 diff_automatic_dynamic_off: the program set
    `torch._dynamo.config.automatic_dynamic_shapes = False`, and each new clip length
    compiled again. The diagnosis guessed "(dynamic=False or automatic_dynamic_shapes=False)"
    and never named the line; the fix offered mark_dynamic. The program's own setting is the
    cause: named with its line, and removing it is the fix. A docstring quoting the setting is
    not the line."""
    s = Store(tmp_path)
    s.user.write_text('"""Notes: automatic_dynamic_shapes = False avoids dynamic shapes."""\n'
                      "import torch\ntorch._dynamo.config.automatic_dynamic_shapes = False\n"
                      "def g(y):\n    return y * 2\n" + "x = 1\n" * 20)
    off = json.dumps({"automatic_dynamic_shapes": False})
    s.compile("0/0", co_name="g", lineno=4, dynamo_config=off)
    for i, (a, b) in enumerate([(4, 8), (8, 12), (12, 16)], 1):
        s.compile(f"0/{i}", co_name="g", lineno=4, dynamo_config=off,
                  recompile_reason=f"0/{i - 1}: tensor 'y' size mismatch at index 0. "
                                   f"expected {a}, actual {b}")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "automatic dynamic shapes off at line 3" in d["reason"], d["reason"]
    assert d["fix"].startswith("Remove `torch._dynamo.config.automatic_dynamic_shapes = False`")


def test_size_recompiles_under_dynamic_false_name_it_and_never_offer_mark_dynamic(tmp_path):
    """probes28a bert_static_varlen: `torch.compile(model, dynamic=False)` and a new padded
    length every batch. The headline said "size ids.shape[1] changed (36 -> 35)", the first
    and last of six lengths, and the first fix, `mark_dynamic(ids, 1)`, exits 1 under
    dynamic=False (ConstraintViolationError). The setting is named with its line, every value
    is listed, and dropping it is the fix."""
    s = Store(tmp_path)
    s.user.write_text("import torch\ndef g(y):\n    return y * 2\n"
                      "cg = torch.compile(g, dynamic=False)\n" + "x = 1\n" * 20)
    off = json.dumps({"automatic_dynamic_shapes": False})
    s.compile("0/0", co_name="g", lineno=2, dynamo_config=off)
    for i, (a, b) in enumerate([(4, 8), (8, 5), (5, 16)], 1):
        s.compile(f"0/{i}", co_name="g", lineno=2, dynamo_config=off,
                  recompile_reason=f"0/{i - 1}: tensor 'y' size mismatch at index 0. "
                                   f"expected {a}, actual {b}")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "(4, 8, 5, 16)" in d["reason"], d["reason"]
    assert "automatic dynamic shapes off at line 4" in d["reason"]
    assert d["fix"].startswith("Drop `dynamic=False`") and "mark_dynamic(" not in d["fix"]


def test_a_mark_dynamic_on_a_tensor_the_call_only_transforms_is_at_the_mark(tmp_path):
    """probes34c camera_batch_mark_dynamic: `torch._dynamo.mark_dynamic(frames, 0)` at 29,
    then `serve(preprocess(frames))` at 30 under dynamic=False: the compiled function gets a
    new tensor without the mark and every batch size recompiled to the limit. The panel put it
    at the call, said the setting, and claimed mark_dynamic fails under dynamic=False (the
    mark on the tensor passed gave 0 recompiles). The mark that missed is the cause."""
    s = Store(tmp_path)
    lines = [f"x_{i} = {i}" for i in range(1, 40)]
    lines[3] = "cg = torch.compile(g, dynamic=False)"
    lines[28] = "    torch._dynamo.mark_dynamic(frames, 0)"
    lines[29] = "    out = cg(prep(frames))"
    s.user.write_text("\n".join(lines) + "\n")
    off = json.dumps({"automatic_dynamic_shapes": False})
    s.compile("0/0", co_name="g", lineno=2, dynamo_config=off)
    _call(s, "0/0", [30])
    for i, (a, b) in enumerate([(4, 8), (8, 5), (5, 16)], 1):
        s.compile(f"0/{i}", co_name="g", lineno=2, dynamo_config=off,
                  recompile_reason=f"0/{i - 1}: tensor 'y' size mismatch at index 0. "
                                   f"expected {a}, actual {b}")
        _call(s, f"0/{i}", [30])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 29, d["user_frame"]
    assert "marks frames, but the compiled call passes `prep(frames)`" in d["reason"], d
    assert "torch._dynamo.mark_dynamic(x, 0)" in d["fix"] and "fails" not in d["fix"]


def test_a_scalar_read_break_names_the_users_call():
    """probes24 perf_topk_tolist_rerank: `.topk(k).indices.tolist()` in a compiled re-ranker
    broke the graph as "Data-dependent operator (aten._local_scalar_dense.default)", torch's
    name for reading a value into Python; `.tolist()` appeared only in the fix. The headline
    names the user's call."""
    from compdiag.analyses.diagnoses.graph_breaks import scalar_read

    dense = "aten._local_scalar_dense.default"
    assert scalar_read(dense, "keep = scores.topk(4).indices.tolist()") == ".tolist()"
    assert scalar_read(dense, "n = int(mask.sum())") == "int(...)"
    assert scalar_read(dense, "if loss.item() > 3:") == ".item()"
    assert scalar_read("aten.nonzero.default", "idx = x.tolist()") is None
    assert scalar_read(dense, "y = x + 1") is None


def test_a_guard_on_the_compiled_modules_varargs_is_spelled_as_the_users_argument():
    """probes24 diff_automatic_dynamic_off: a compiled nn.Sequential (`forward(*input)`)
    recompiled on `args[0].size()[2]` and the fix said `torch._dynamo.mark_dynamic(args, 2)`,
    a name the user's code does not have: the call was `encode(mel)`. A guard on the compiled
    function's varargs is spelled as the argument at the user's call."""
    from compdiag.analyses.call_arguments import passed_as

    assert passed_as("L['args'][0].size()[2]", "out = encode(mel)") == "L['mel'].size()[2]"
    assert passed_as("args[1]", "y = f(a, b.float())") == "b.float()"
    assert passed_as("L['args'][2]", "y = f(a, b)") == "L['args'][2]"   # no such argument
    assert passed_as("L['args'][0]", "y = f(*xs)") == "L['args'][0]"    # unpacked: unknown
    assert passed_as("L['args'][0]", "y = f(g(x))") == "L['args'][0]"   # two calls: which?
    assert passed_as("args[0]", "loss = compiled(x).pow(2).mean()") == "L['x']"
    assert passed_as("L['x'].size()[0]", "y = f(a)") == "L['x'].size()[0]"


def test_a_guard_on_the_compiled_functions_kwargs_is_spelled_as_the_users_keyword():
    """benchmarks/probes25 hf_llama_decode_dynamic_false: `torch.compile(model.forward)`
    called as `forward(input_ids=tok, past_key_values=past)` guards
    `kwargs['past_key_values'].layers[0].keys.size()[2]`, and the fix said
    `torch._dynamo.mark_dynamic(kwargs, 2)` (no `kwargs` at the user's line, and the root only,
    not the tensor's path: `mark_dynamic(self, 1)` for a weight). The keyword's value is the
    user's name, and a fix names the tensor's whole path."""
    from compdiag.analyses.call_arguments import passed_as
    from compdiag.analyses.recompile_rules import tensor_and_dim

    src = passed_as("L['kwargs']['past_key_values'].layers[0].keys.size()[2]",
                    "out = forward(input_ids=tok, past_key_values=past)")
    assert src == "L['past'].layers[0].keys.size()[2]"
    assert tensor_and_dim(src) == ("past.layers[0].keys", "2")

    assert passed_as("kwargs['x'].size()[0]", "f(x=a + b)") == "(a + b).size()[0]"
    assert passed_as("kwargs['y'].size()[0]", "f(x=a)") == "kwargs['y'].size()[0]"
    assert tensor_and_dim("L['self']._modules['fc']._parameters['weight'].size()[1]") == \
        ("self.fc.weight", "1")


def test_a_keyword_passed_as_an_expression_is_named_by_its_keyword_too():
    """probes36b bert_eval_bool_mask: `cmodel(input_ids=ids, attention_mask=ids != PAD)`
    recompiled on the mask's dtype and the reason said "dtype of (ids != PAD) changed",
    never `attention_mask`, the name the model and the user know the input by. A keyword whose
    value is an expression is named by both; a plain name stays the user's own."""
    from compdiag.analyses.diagnoses.recompiles import keyword_named, passed_as

    guard, call = "L['kwargs']['attention_mask']", "y = m(input_ids=ids, attention_mask=ids != 0)"
    assert keyword_named(guard, passed_as(guard, call)) == "attention_mask (ids != 0)"
    plain = "y = m(attention_mask=mask)"
    assert keyword_named(guard, passed_as(guard, plain)) == "L['mask']"
    assert keyword_named("L['args'][0]", "(a + b)") == "(a + b)"  # no keyword to name


def test_dynamos_machinery_words_name_the_users_call():
    """set18 broadcast_object_list_step and multi_grad_hook_compiled, first run: right kind
    and line, but the headlines were torch's words about its own machinery ("Attempted to
    access unregistered member on an OpaqueObject", "Failed to convert args/kwargs to proxy
    (a nested_user_function value)") and never named the call the user's line made
    (`dist.broadcast_object_list`, `register_multi_grad_hook`). The function the line calls,
    as it spells it."""
    from compdiag.formats.code_text import called

    assert called("dist.broadcast_object_list(flag, src=0)") == "dist.broadcast_object_list"
    assert called("torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: "
                  "seen.append(len(g)))") == "torch.autograd.graph.register_multi_grad_hook"
    assert called("loss = compiled(x).pow(2)") == "compiled"
    assert called("y = x + 1") is None and called("if x:") is None and called(None) is None


def test_a_cached_compiles_fallback_is_one_diagnosis_though_forward_and_backward_hit(tmp_path):
    """probes27's parametrize_ok: a training compile served from the FX graph cache hits twice
    (its forward graph and its backward graph), and the eager fallback its cached output code
    calls was reported once per hit: two identical perf problems."""
    s = Store(tmp_path)
    for key in ("fwdkey", "bwdkey"):
        s.ing.record({"frame_id": 0, "frame_compile_id": 0, "artifact": {
            "name": "fx_graph_cache_hit", "encoding": "json"}}, json.dumps(
            {"key": key, "cache_state": "hit", "components": []}))
    s.ing.record({**_ids("0/0"), "inductor_output_code": {"filename": "c.py"}},
                 "    def call(self, args):\n"
                 "        buf1 = torch.ops.aten.cumsum.default(buf0, dim=1, dtype=None)\n")
    s.compile("0/0")
    perf = [d for d in s.explain() if d["kind"] == "perf" and "cumsum" in d["reason"]]
    assert len(perf) == 1, [d["reason"] for d in perf]


def test_a_guard_torch_gave_no_line_is_read_where_it_tied_another_guard_on_the_object(tmp_path):
    """probes31a hetero_edge_types, probes31b ctr_optional_features: a dict argument whose keys
    change. torch writes `len(batch) != 2` with no line but ties `list(dict.keys(batch))[0]`
    to the loop that reads it (`# file:16`); the recompile was at the call (two blind users
    put it at 16, where the dict is read), now at 16 with the call beside it."""
    import json

    s = Store(tmp_path)
    s.compile("0/0")
    _call(s, "0/0", [40])
    s.compile("0/1", recompile_reason="0/0: len(batch) != 2")
    _call(s, "0/1", [40])
    s.compile("0/2", recompile_reason=f"0/0: list(dict.keys(batch))[0] == 'a'  # line_16 = 16"
                                      f"  # {s.user}:16 in f")
    _call(s, "0/2", [40])
    diags = [d for d in s.explain() if d["kind"] == "recompile"]
    (d,) = [d for d in diags if d["details"]["guard"] == "len(batch)"]
    assert d["user_frame"]["lineno"] == 16 and d["user_frame"]["evidence"] == "torch", d


def test_sizes_that_changed_together_are_at_the_line_that_specialised_one_first(tmp_path):
    """probes31d gae_rollout_lengths: `for t in reversed(range(n_steps))` (line 14) made
    rewards' size a constant first, and `advantages + values[:-1]` (19) values' after it;
    torch's guard names values. The recompile was at 19 with a second panel for `dones`
    blaming automatic dynamic shapes; it is at 14, `dones` counted under it."""
    def tree(n: int) -> str:
        rows = "".join(f"| | +- TENSOR_MATCH: check_tensor(L['{name}'], Tensor, DispatchKeySet("
                       f"CPU), torch.float32, device=None, requires_grad=False, size=[{size}, 4], "
                       "stride=[4, 1])  # x  # a.py:3\n"
                       for name, size in (("rewards", n), ("values", n + 1), ("dones", n)))
        return "TREE_GUARD_MANAGER:\n+- RootGuardManager\n" + rows

    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}}, tree(16))
    for i, n in ((1, 13), (2, 11)):
        s.compile(f"0/{i}", recompile_reason=f"0/{i - 1}: tensor 'values' size mismatch at "
                                             f"index 0. expected {n + 4}, actual {n + 1}")
        s.ing.record({**_ids(f"0/{i}"), "dynamo_cpp_guards_str": {}}, tree(n))
        _specialised(s, f"0/{i}", 14, "L['rewards'].size()[0]")
        _specialised(s, f"0/{i}", 19, "L['values'].size()[0]")
    for i, n in ((3, 9), (4, 7)):
        s.compile(f"0/{i}", recompile_reason=f"0/{i - 1}: tensor 'dones' size mismatch at "
                                             f"index 0. expected {n + 2}, actual {n}")
        s.ing.record({**_ids(f"0/{i}"), "dynamo_cpp_guards_str": {}}, tree(n))
    problems = [d for d in s.explain() if d["kind"] == "recompile" and
                d["severity"] == "problem"]
    (d,) = problems
    assert d["user_frame"]["lineno"] == 14, d["reason"]
    assert "line 14 specialises rewards.shape[0]" in d["reason"], d["reason"]
    assert "dones.shape[0]" in d["explanation"] and d["count"] == 4, d


_TIED = {
    # probes31b bucket_lengths_list: `lengths` arrives as a Python list, `torch.tensor(lengths)`
    # inside forward is a tensor of fixed size, and the batch size broadcast against it is
    # specialised to len(lengths) at every new length (torch's record names line 21, the
    # division). The fix said to rewrite line 21 or pad; the cause is the list, read at 18.
    "list": ("LENGTH_CHECK: len(L['lengths'])", "tokens", "def forward(self, tokens, lengths):",
             "lengths = torch.tensor(lengths)", "length of the Python list lengths (16)",
             "torch.tensor(lengths)` outside the compiled function"),
    # probes31a gnn_num_nodes_attr: `torch.zeros(self.num_nodes, ...)` (line 18) meets the
    # input's node count, so x.shape[0] is specialised to the attribute's value at every
    # graph; explain named x.shape[0] at 21 with a mark_dynamic fix that left 8 recompiles.
    "int": ("EQUALS_MATCH: L['self'].num_nodes", "x", "def forward(self, x, src, dst):",
            "summed = torch.zeros(self.num_nodes, x.shape[1])",
            "the Python number self.num_nodes (16)", "x.shape[0] where the code uses"),
}


@pytest.mark.parametrize("what", sorted(_TIED))
def test_a_size_tied_to_a_python_value_is_at_its_read_with_a_tensor_fix(tmp_path, what):
    guard, tensor, def_line, read_line, said, fix = _TIED[what]

    def tree(n: int) -> str:
        return ("TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
                f"| | +- {guard} == {n}  # x  # a.py:3\n"
                f"| | +- TENSOR_MATCH: check_tensor(L['{tensor}'], Tensor, DispatchKeySet(CPU), "
                f"torch.float32, device=None, requires_grad=False, size=[{n}, 9], "
                "stride=[9, 1])  # x  # a.py:3\n")

    s = Store(tmp_path)
    lines = [f"line_{i} = {i}" for i in range(1, 60)]
    lines[16], lines[17] = f"    {def_line}", f"        {read_line}"
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0", lineno=17)
    s.ing.record({**_ids("0/0"), "dynamo_cpp_guards_str": {}}, tree(21))
    s.compile("0/1", lineno=17, recompile_reason=f"0/0: tensor '{tensor}' size mismatch at "
                                                 "index 0. expected 21, actual 16")
    s.ing.record({**_ids("0/1"), "dynamo_cpp_guards_str": {}}, tree(16))
    s.ing.record({**_ids("0/1"), "str": [str(s.user), 1]}, None)
    s.ing.record({**_ids("0/1"), "symbolic_shape_specialization": {
        "symbol": "s53", "sources": [f"L['{tensor}'].size()[0]"], "value": "16",
        "reason": "range_refined_to_singleton", "stack": [], "user_stack": [
            {"line": 21, "name": "forward", "filename": 1, "loc": "line_21 = 21"}]}}, None)
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert said in d["reason"], d["reason"]
    assert d["user_frame"]["lineno"] == 18, d["user_frame"]
    assert fix in d["fix"], d["fix"]


def test_a_dynamo_failure_at_a_line_dynamo_broke_at_names_the_break_as_its_cause(tmp_path):
    """probes31b request_bytes_decode: `np.frombuffer(body, ...)` broke the graph (GB0294)
    and Dynamo then failed on the array it got back, at the same line ("Expected np.nditer
    base, got <class 'bytes'>"); the failure's fix spoke of fake tensors and bisect. The
    break is its cause: named in the headline, its fix the failure's."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.graph_break("0/0", 13, gb_type="attempted to trace numpy function unsupported by "
                                     "PyTorch", code="GB0294")
    s.compile("1/0")
    s.failure("1/0", stage="dynamo", exc_type="AssertionError",
              message="Expected np.nditer base, got <class 'bytes'>", filename=str(s.user),
              lineno=13, line="line_13 = 13")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 13
    assert "after Dynamo's graph break at this line: attempted to trace numpy" in d["reason"]
    assert "bisect" not in d["fix"] and "register_fake" not in d["fix"], d["fix"]


def test_np_random_traced_into_torchs_generator_is_an_accuracy_problem_where_numpy_is_seeded(
        tmp_path):
    """probes31d noisy_pendulum_seeded: `np.random.normal` in a compiled step is traced into
    torch's generator (Dynamo's `wrapped_normal`), so `np.random.seed` never reaches it and
    the compiled rollout differs from eager's with every seed set; explain said "no problems
    found" (--check-accuracy replays with torch's generator on both sides)."""
    s = Store(tmp_path)
    lines = [f"line_{i} = {i}" for i in range(1, 60)]
    lines[9] = "    noise = np.random.normal(0.0, 0.02, size=theta.shape)"
    lines[16] = "    np.random.seed(seed)"
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0", lineno=9)
    s.ing.record({**_ids("0/0"), "dynamo_output_graph": {}},
                 "class GraphModule(torch.nn.Module):\n    def forward(self):\n"
                 f"        # File: {s.user}:10 in dynamics, code: {lines[9].strip()}\n"
                 "        noise = torch__dynamo_utils_wrapped_normal(0.0, 0.02, size = (16,))\n")
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert d["severity"] == "problem" and d["user_frame"]["lineno"] == 10, d
    assert "np.random.seed (line 17) does not reach it" in d["reason"], d["reason"]
    assert "use_numpy_random_stream = True" in d["fix"]


def test_a_checked_runs_rerun_line_checks_again(tmp_path):
    """probes31d: the caches-off re-run printed for a `--check-accuracy` run dropped the flag,
    so the re-run had no accuracy verdicts to compare."""
    from compdiag.analyses.context import RunContext

    s = Store(tmp_path)
    s.compile("0/0")
    s.accuracy("0/0", [("output 0", True, 0.0, 0.0, {})])
    s.done()
    with Reader(s.path) as r:
        line = RunContext(r, s.run_id).rerun_command(
            env={"TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"})
    assert "--check-accuracy" in line and line.count("--check-accuracy") == 1, line
    with Reader(s.path) as r:
        assert RunContext(r, s.run_id).rerun_command("--check-accuracy").count(
            "--check-accuracy") == 1


def test_a_run_counts_its_recompiles_not_torchs_reasons(tmp_path):
    """probes31a/b/d: the run's summary said "36 recompiles" where torch made 8 (torch lists
    one failed guard per cache entry: the k-th recompile of a function brings k reasons)."""
    s = Store(tmp_path)
    s.compile("0/0")
    for i in range(1, 4):
        reasons = [f"0/{j}: n == {j}  # y = x + n  # a.py:3 in f" for j in range(i)]
        s.ing.record({**_ids(f"0/{i}"), "artifact": {"name": "recompile_reasons",
                                                    "encoding": "json"}}, json.dumps(reasons))
        s.compile(f"0/{i}", recompile_reason=reasons[0])
    s.done()
    with Reader(s.path) as r:
        c = r.counts(s.run_id)
    assert (c["recompiles"], c["recompile_reasons"]) == (3, 6), c


def test_a_break_on_a_value_drawn_with_pythons_random_names_the_draw(tmp_path):
    """probes31b random_crop_offsets: `top = random.randint(...)` (13), `left = ...` (14),
    then `images[:, :, top:top + CROP, left:left + CROP]` (15) broke on "unimplemented
    builtin op on tensor arguments" (`add`); nothing said the operands were random draws."""
    s = Store(tmp_path)
    lines = [f"line_{i} = {i}" for i in range(1, 60)]
    lines[11] = "def augment(images):"
    lines[12] = "    top = random.randint(0, images.shape[2] - CROP)"
    lines[13] = "    left = random.randint(0, images.shape[3] - CROP)"
    lines[14] = "    crop = images[:, :, top:top + CROP, left:left + CROP]"
    s.user.write_text("\n".join(lines) + "\n")
    s.compile("0/0", co_name="augment", lineno=12)
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _gb_payload(str(s.user), 15, lines[14].strip(), code_id="GB0213",
                             gb_type="unimplemented builtin op on tensor arguments"))
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert "with top and left from `random.randint(...)` at lines 13, 14" in d["reason"], d
    assert d["user_frame"]["lineno"] == 15 and "outside the compiled function" in d["fix"]


def test_a_proxy_failure_names_the_call_and_the_generator_it_was_passed(tmp_path):
    """probes31d vec_env_seeded_reset: under fullgraph=True `torch.rand(..., generator=
    self.gen)` failed with torch's "Failed to convert args/kwargs to proxy" alone; the
    Generator was named only in the fix."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.failure("0/0", stage="dynamo", exc_type="Unsupported",
              message="Failed to convert args/kwargs to proxy", filename=str(s.user),
              lineno=20, line="fresh = torch.rand(self.n_envs, 2, generator=self.gen) * 0.2")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "calling `torch.rand(...)` with generator= (a torch.Generator)" in d["reason"], d


def test_torchs_own_guard_bug_on_a_numpy_value_says_so_with_a_float_fix(tmp_path):
    """probes31b sensor_numpy_inference: NumPy float64 `mean`, `std` passed to a compiled
    model under torch.inference_mode(): "Guard failed on the same frame it was created. This
    is a bug ... tensor '___from_numpy(std)' dispatch key set mismatch"; the fix spoke of fake
    tensors, register_fake and bisect. `float(std)` is the way round it (the probe's check)."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.failure("0/0", stage="dynamo", exc_type="AssertionError", filename=str(s.user),
              lineno=39, line="pred = model(x, mean, std)",
              message="Guard failed on the same frame it was created. This is a bug - please "
                      "create an issue.Guard fail reason: 0/0: tensor '___from_numpy(std)' "
                      "dispatch key set mismatch. expected DispatchKeySet(CPU, BackendSelect, "
                      "ADInplaceOrView), actual DispatchKeySet(CPU, BackendSelect)")
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "the NumPy value std it converted to a tensor under torch.inference_mode()" in \
        d["reason"], d["reason"]
    assert "float(std)" in d["fix"] and "register_fake" not in d["fix"], d["fix"]


def test_a_data_dependent_size_gets_the_mask_fix_only_for_a_masking_op():
    """probes31a: `torch.unique` and `repeat_interleave` breaks got "keep shapes static with a
    mask", which no mask can do for them (the capture setting worked); nonzero keeps it."""
    from compdiag.analyses.fixes import graph_break_fix

    def fix(op: str) -> str:
        return graph_break_fix("Dynamic shape operator", "", f"aten.{op}.default",
                               "y = f(x)", [])

    assert "torch.where(mask" in fix("nonzero")
    for op in ("_unique2", "repeat_interleave", "bincount"):
        assert "torch.where(mask" not in fix(op) and \
            "capture_dynamic_output_shape_ops" in fix(op), fix(op)
    # probes32b knn_monitor_vote: a fixed number of bins counts into a fixed size
    assert "scatter_add_" in fix("bincount") and "scatter_add_" not in fix("_unique2")
    # probes32d ctc_keyword_asr: an op with no dynamic-output meta kernel: the setting fails
    # too, so it is not offered
    ctc = fix("_ctc_loss.Tensor")
    assert "fails on it too" in ctc and "= True` to trace" not in ctc, ctc


def test_a_tensor_attribute_set_names_the_attribute_and_builds_the_tensor(tmp_path):
    """probes34d iq_modem_setreal: `iq = torch.empty(..., dtype=torch.complex64); iq.real =
    i_up` inside a compiled function; the headline was torch's "Failed to set tensor
    attribute" alone, and the fix torch's "move the mutation out". The attribute is named,
    and a complex tensor is built in one op (torch.complex gave 0 breaks)."""
    s = Store(tmp_path)
    s.compile("0/0")
    payload = _gb_payload(str(s.user), 7, "line_7 = 7",
                          gb_type="Failed to set tensor attribute", code_id="GB0058").replace(
        "Developer debug context: builtin print [] False",
        "Developer debug context: setattr(TensorVariable(), real, TensorVariable())")
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}}, payload)
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["reason"] == "Failed to set tensor attribute (setting a tensor's `.real`)", d
    assert "torch.complex(real, imag)" in d["fix"]


def test_a_functional_collective_failing_at_run_time_gets_the_collective_fix_not_aot_eager():
    """probes36a allgather_scalar_metric, blind: `dist.all_gather(per_rank, loss)` of a 0-d
    loss in a compiled eval step failed in gloo ("invalid size of output tensor at index 0"),
    in op _c10d_functional.all_gather_into_tensor; eager ran it. The fix said to try
    backend='aot_eager', which failed the same way (the rewrite is Dynamo's)."""
    from compdiag.analyses.failure_fixes import failure_fix

    one = ("RuntimeError: ProcessGroupGloo::allgather_coalesced: invalid size of output tensor "
           "at index 0 (expected length (), got (1)) (in op "
           "_c10d_functional.all_gather_into_tensor.default)")
    fix = failure_fix("runtime", "RuntimeError", one, run_id=1, argv=["a.py"])
    assert fix.startswith("Run the collective outside the compiled function")
    assert "reshape(1)" in fix and "Check whether backend='aot_eager'" not in fix


def test_a_fallback_with_a_compiled_replacement_is_a_problem_with_that_fix(tmp_path):
    """probes38g readout_segment_reduce_max, blind: `torch.segment_reduce(h, "max",
    lengths=...)` ran as an ATen fallback at ~80% of the graph's time (14.8 ms against 2.66 ms
    with an index_reduce_ readout), said as information with "Nothing to change"; a reduce
    over a segment index is what Inductor compiles."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.event("perf_hints", "0/0", {},
                "Using FallbackKernel: torch.ops.aten.segment_reduce.default")
    s.post_grad("0/0", f"        # File: {s.user}:25 in f, code: pooled = torch.segment_reduce("
                "h, 'max', lengths=lengths)\n"
                "        segment_reduce = torch.ops.aten.segment_reduce.default(relu, 'max')\n")
    (d,) = s.explain()
    assert (d["kind"], d["severity"], d["user_frame"]["lineno"]) == ("perf", "problem", 25), d
    assert "scatter_reduce" in d["fix"] and "include_self=False" in d["fix"], d["fix"]


def test_the_values_seen_end_with_the_one_that_failed_the_last_guard():
    """probes38e kmeans_elbow_onehot_k: "Python value k changed (2 -> 4)" over "guard k: values
    seen 2, 3": torch's guards said only their expected sides, and the 4 that failed the last
    one was left out."""
    from compdiag.analyses.guard_events import values_seen as _seen

    evs = [{"before": 2, "after": None}, {"before": 3, "after": None}]
    assert _seen(evs, 4) == [2, 3, 4]
    assert _seen(evs, 3) == [2, 3] and _seen(evs) == [2, 3]
    assert _seen([{"before": 5, "after": 6}, {"before": 6, "after": 4}], 4) == [5, 6, 4]


def test_an_inf_nan_verdict_says_the_low_precision_dtype():
    """probes38f db_fp16_clamp_floor: eager's float16 `clamp(min=1e-10)` underflowed to 0 and
    log10 gave -inf; the headline said only "eager does not" match float64."""
    from compdiag.analyses.diagnoses.accuracy import verdict_text

    reason, _ = verdict_text("inf_nan", {"dtype": "torch.float16", "matches_fp64": "compiled",
                                         "nonfinite_positions": 464}, "output 0")
    assert "eager in float16 does not" in reason, reason
    reason, _ = verdict_text("inf_nan", {"dtype": "torch.float32", "matches_fp64": "compiled",
                                         "nonfinite_positions": 3}, "output 0")
    assert "eager does not" in reason, reason


def test_a_break_in_a_function_entered_from_an_earlier_breaks_line_folds_under_it(tmp_path):
    """probes39d afn_inplace_mark_dirty_break, blind: `Function.apply(...)` at line 29 broke
    (GB2464, the dirty input not returned), so the call ran in eager and Dynamo compiled the
    Function's `forward` on its own (frame 1), where `ctx.mark_dirty` outside `apply` broke
    (GB2019, line 9). That second break ranked first, with a fix that did not apply. Capture's
    call stack of frame 1 ends at line 29: the break there is the cause."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="forward", lineno=28)
    s.graph_break("0/0", 29, gb_type="autograd.Function.apply: mark_dirty input not returned",
                  code="GB2464")
    s.compile("1/0", co_name="forward", lineno=8)
    s.ing.event_facts("call_stack", "1/0", json.dumps({"frames": [
        {"filename": str(s.user), "lineno": 39, "name": "<module>"},
        {"filename": str(s.user), "lineno": 29, "name": "forward"}]}))
    s.graph_break("1/0", 9, gb_type="Unsupported autograd.Function context `mark_dirty`",
                  code="GB2019")
    diags = [d for d in s.explain() if d["severity"] == "problem"]
    assert [d["user_frame"]["lineno"] for d in diags] == [29], diags
    assert [c["user_frame"]["lineno"] for c in diags[0]["consequences"]] == [9]
    assert "`return x`" in diags[0]["fix"]


@pytest.mark.parametrize("gb_type, line, words", [
    ("Unsupported Tensor.item() call", "lr = base * 0.5 * (1 + math.cos(math.pi * p))",
     "`torch.cos(...)`"),
    ("Failed to convert args/kwargs to proxy",
     "J = torch.autograd.functional.jacobian(lambda v: v - y, z)", "torch.func.jacrev"),
])
def test_a_break_on_a_call_with_a_torch_equivalent_names_it(gb_type, line, words):
    """probes39c cosine_lr_math_cos_step_break and probes39b implicit_euler_functional_jacobian,
    blind: `math.cos` of a tensor got the fix for slice bounds and masks; torch.autograd.
    functional.jacobian got torch's hint about an earlier break that did not exist. The fix
    that worked each time was torch's own function (torch.cos, torch.func.jacrev)."""
    from compdiag.analyses.fixes import graph_break_fix

    context = "aten._local_scalar_dense.default" if "item" in gb_type else ""
    assert words in graph_break_fix(gb_type, "", context, line, ())


_REPLACED = ("class M:\n    def __init__(self):\n        self.ste = make()\n\n"
             "    def forward(self, x):\n        return self.ste(x)\n\n\n"
             "for i in range(3):\n    model.ste = make()\n    out = cm(x)\n"
             "    opt.load_state_dict(saved)\n    opt_step()\n")


@pytest.mark.parametrize("fn, guard, line", [
    ("forward", "___check_obj_id(L['self'].ste, 140)", 10),
    ("step", "___check_obj_id(self.state[list(dict.keys(self.state))[0]]['exp_avg'], 140)",
     12),
])
def test_an_identity_recompile_is_at_the_line_that_replaces_the_object(tmp_path, fn, guard,
                                                                      line):
    """probes39d afn_ste_factory_recompile and probes39c opt_step_resume_state_recompile,
    blind: an identity guard on `self.ste` (which `model.ste = make_ste(...)` rebuilt every
    step) and on an optimizer's state (which `opt.load_state_dict` rebuilt at each resume)
    were put on the compiled call, whose line changes nothing. The line that puts the new
    object there is the one to change."""
    s = Store(tmp_path)
    s.user.write_text(_REPLACED)
    s.compile("0/0", co_name=fn, lineno=5)
    for i in (1, 2):
        s.ing.event_facts("call_stack", f"0/{i}", json.dumps({"frames": [
            {"filename": str(s.user), "lineno": 11 if fn == "forward" else 13,
             "name": "<module>"}]}))
        s.compile(f"0/{i}", co_name=fn, lineno=5, recompile_reason=f"0/{i - 1}: {guard}")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == line, d
    assert "list(dict.keys" not in d["reason"] + d["explanation"]
    assert f"line {line}" in d["explanation"].lower()


def test_an_inf_nan_only_eager_has_is_not_said_as_compiled_overflowing(tmp_path):
    """probes39b point_sources_zero_strength, blind: `q * (1.0 / r)` with q = 0 at r = 0 gave
    NaN in eager and float64 and 0 compiled (the product by 0 folded); the fix said "the
    compiled code overflows or produces NaN where eager does not", the other way round."""
    import torch

    from compdiag.capture.accuracy_compare import Tolerance, compare_output

    eager = torch.tensor([float("nan"), 1.0], dtype=torch.float64)
    check = compare_output("output 0", eager, torch.tensor([0.0, 1.0], dtype=torch.float64),
                           eager.clone(), Tolerance())
    assert check.detail["nonfinite_side"] == "eager" and check.detail["verdict"] == "inf_nan"
    s = Store(tmp_path)
    s.compile("0/0")
    s.accuracy("0/0", [("output 0", False, None, None, check.detail)],
               node={"node": "mul_2", "op": "mul", "user_frame": {
                   "filename": str(s.user), "lineno": 18, "line": "line_18 = 18"}})
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert "finite number" in d["fix"] and "compiled code overflows" not in d["fix"], d


def test_a_recompiling_size_argument_is_not_said_as_a_loops_trip_count():
    """probes39b spectral_poisson_rfftfreq_sizes, blind: `N == 16  # x = torch.arange(N, ...)`
    matched the loop rule's `range(` inside `arange(`, and the fix spoke of a loop the
    function does not have; the guard that kept failing was at `torch.fft.rfftfreq(N, ...)`."""
    text = ("N == 16  # x = torch.arange(N, dtype=torch.float64) * (L / N)  # f.py:11 "
            "k = torch.fft.rfftfreq(N, d=L / N, dtype=torch.float64) * 2 * math.pi")
    fix = RC.recompile_fix("value", "N", count=5, limit=False, fn="f", recurring_text=text)
    assert "loop" not in fix and "torch.arange(N // 2 + 1)" in fix, fix
    looped = RC.recompile_fix("value", "n", count=5, limit=False, fn="f",
                              recurring_text="n == 3  # for i in range(n):")
    assert "trip count" in looped


def test_a_while_loop_on_a_tensor_gets_the_loops_fix_not_the_ifs():
    """probes39b kepler_newton_while_tol, blind: `while dE.abs().max() > tol:` got "compute
    both branches"; a fixed number of steps freezing the converged values compiled whole."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix("Data-dependent branching", "", "", "    while err.max() > tol:", ())
    assert "fixed number of iterations" in fix and "both branches" not in fix


def test_a_generator_context_manager_gets_the_context_manager_fix_not_the_generators():
    """probes39f ctc_cudnn_flags_skip, blind: `with torch.backends.cudnn.flags(...)` inside
    forward broke on a _GeneratorContextManager, and the fix said to call `next(gen)`."""
    from compdiag.analyses.fixes import graph_break_fix

    fix = graph_break_fix("torch.* op returned non-Tensor", "torch.* op returned non-Tensor "
                          "_GeneratorContextManager call_function <function flags>", "",
                          "        with torch.backends.cudnn.flags(enabled=False):", ())
    assert "context manager" in fix and "next(gen)" not in fix, fix


def test_another_function_in_a_list_passed_in_is_said_as_a_function_not_an_object(tmp_path):
    """probes39e aug_random_op_list_recompile, blind: a random subset of augmentation
    functions passed as a list; the identity guard on `ops[1].__code__` was worded "create
    ops[1].__code__ once and reuse it", about an object the program never builds."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="train_step", lineno=28)
    s.compile("0/1", co_name="train_step", lineno=28,
              recompile_reason="0/0: ___check_obj_id(L['ops'][1].__code__, 1398)")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert "ops[1] is another function" in d["reason"], d
    assert "mask" in d["fix"] and "__code__ once" not in d["fix"], d


def test_a_dicts_key_order_is_one_recompile_with_its_fix(tmp_path):
    """probes40a multitask_loss_dict_order (pytorch#124779), blind: a batch dict of the same
    four task keys in a shuffled order; torch guards each position
    (`list(dict.keys(targets))[0] == 'edge'`). Two panels said "<key 0> is a Python string
    that differs between calls" and "pass <key 1> as a tensor"; the same keys in another
    order are one finding, with the fix that iterates a fixed order."""
    s = Store(tmp_path)
    s.compile("0/0")
    for n, (pos, key) in enumerate([(0, "edge"), (1, "attr"), (0, "depth")], start=1):
        s.compile(f"0/{n}", recompile_reason=f"0/{n - 1}: list(dict.keys(targets))[{pos}] == "
                                              f"'{key}'  # for t in targets.items():  # "
                                              f"{s.user}:16 in f")
    diags = [d for d in s.explain() if d["kind"] == "recompile"]
    assert len(diags) == 1, [d["reason"] for d in diags]
    (d,) = diags
    assert "the order of targets's keys changed" in d["reason"], d["reason"]
    assert "fixed order of keys" in d["fix"] and "tensor" not in d["fix"], d["fix"]
    assert d["details"]["values"] == [], d["details"]


def test_a_cached_graphs_line_that_moved_since_is_read_where_its_code_is_now(tmp_path):
    """probes40b ranking_margin_bf16_grad, blind: the FX graph cache served a graph whose
    nodes carry the lines of an earlier draft of the same file; the diagnosis pointed at line
    26, blank by then. A node's code found once elsewhere in the kept file is there; a node
    at a blank line has no line of its own (the call stands)."""
    s = Store(tmp_path)
    s.user.write_text("".join(f"line_{i} = {i}\n" if i != 26 else "\n" for i in range(1, 60))
                      .replace("line_20 = 20", "v, i = logits.topk(5)"))
    s.compile("0/0")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.topk.default")
    s.post_grad("0/0", f"        # File: {s.user}:14 in f, code: v, i = logits.topk(5)\n"
                "        topk = torch.ops.aten.topk.default(arg0_1, 5)\n")
    (d,) = s.explain()
    assert d["user_frame"]["lineno"] == 20, d["user_frame"]


def test_a_cached_graphs_line_now_blank_is_not_the_line(tmp_path):
    s = Store(tmp_path)
    s.user.write_text("".join(f"line_{i} = {i}\n" if i != 26 else "\n" for i in range(1, 60)))
    s.compile("0/0")
    s.ing.event("perf_hints", "0/0", {}, "Using FallbackKernel: torch.ops.aten.topk.default")
    s.post_grad("0/0", f"        # File: {s.user}:26 in f, code: v, i = logits.topk(5)\n"
                "        topk = torch.ops.aten.topk.default(arg0_1, 5)\n")
    (d,) = s.explain()
    assert d["user_frame"]["lineno"] != 26, d["user_frame"]


def test_a_break_on_the_value_an_earlier_break_put_off_is_its_consequence(tmp_path):
    """set33/gpu decode_len_item_range_break (blind, on an H100): `for t in range(n)` with a
    data-dependent n broke (0/0), and its resume function broke at the same line on
    `DelayGraphBreakVariable`, the value Dynamo left there ("Unsupported next() call",
    python_type() on torch 2.13), skipping the function: that follow-on ranked first."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 24, gb_type="Could not extract specialized integer from "
                  "data-dependent expression u0", code="GB9999")
    s.compile("1/1", co_name="torch_dynamo_resume_in_f_at_24")
    s.ing.record({**_ids("1/1"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _gb_payload(str(s.user), 24, "line_24 = 24", gb_type="Unsupported next() call",
                             code_id="GB0160", skipped=True).replace(
                     "builtin print [] False", "next(DelayGraphBreakVariable())"))
    diags = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert len(diags) == 1 and "data-dependent" in diags[0]["reason"], \
        [d["reason"] for d in diags]
    assert any("next()" in c["reason"] for c in diags[0]["consequences"])


def test_a_config_patch_decorator_break_is_at_the_decorator_and_its_wrapper_skipped(tmp_path):
    """probes41d config_patch_decorated_step (pytorch#150586): `@torch._dynamo.config.patch(
    capture_scalar_outputs=True)` on the compiled train step breaks in contextlib's `inner`
    (ContextDecorator's wrapper); it was said at the compiled call, as "train_step() ran in
    eager" (it compiled, as its own frame), with a fix for library code."""
    s = Store(tmp_path)
    s.user.write_text("import torch\n\n\n@torch._dynamo.config.patch(capture_scalar_outputs="
                      "True)\ndef train_step(x):\n    return x.sum().item()\n\n\n"
                      "step = torch.compile(train_step)\nout = step(x)\n")
    lib = "/usr/lib/python3.11/contextlib.py"
    s.ing.record({**_ids("0/0"), "compilation_metrics": {
        "co_name": "inner", "co_filename": lib, "co_firstlineno": 78}}, None)
    s.compile("1/0", co_name="train_step", lineno=5)
    payload = (
        f"Graph break in user code at {lib}:80\nGraph Break Reason: Failed to handle graph "
        "break gracefully. Skipping the function and falling back to eager. Graph break "
        "encountered:\n\nUnsupported context manager\n  Explanation: Dynamo does not know how "
        "to enter a `ConfigPatch` context manager.\n  Hint: Avoid using the unsupported context "
        "manager.\n\n  Developer debug context: Attempted SETUP_WITH/BEFORE_WITH/LOAD_SPECIAL "
        "on UserDefinedObjectVariable(ConfigPatch)\n\n For more details about this graph "
        "break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/"
        f"gb0142.html\n\nUser code traceback:\n  File \"{s.user}\", line 10, in <module>\n"
        f"    out = step(x)\n  File \"{lib}\", line 80, in inner\n"
        "    with self._recreate_cm():\n")
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}}, payload)
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["user_frame"]["lineno"] == 4, d["user_frame"]
    assert "`torch._dynamo.config.capture_scalar_outputs = True`" in d["fix"]
    assert "skipped the whole function train_step()" not in d["explanation"]


def test_a_float_recompile_the_programs_specialize_float_made_is_at_that_setting(tmp_path):
    """probes41d specialize_float_temperature_sweep (fairchem#2109's setting): recompiles on a
    float argument were blamed on "Dynamo specialises on Python scalars", its default; the
    program's own `specialize_float = True` made it, and the line to change is that one."""
    def run(tmp: Path, setting: str) -> dict:
        tmp.mkdir()
        s = Store(tmp)
        s.user.write_text(f"import torch\n{setting}\n\n\ndef f(x, t):\n    return x / t\n")
        for i, (old, new) in enumerate((("1.5", "1.4"), ("1.4", "1.3")), start=1):
            s.compile(f"0/{i - 1}")
            s.ing.record({**_ids(f"0/{i - 1}"), "dynamo_cpp_guards_str": {}},
                         _tree("L['t']", old))
            s.compile(f"0/{i}", recompile_reason=f"0/{i - 1}: t == {old}                # "
                                                 "return x / t  # a.py:6 in f")
            s.ing.record({**_ids(f"0/{i}"), "dynamo_cpp_guards_str": {}}, _tree("L['t']", new))
        return [d for d in s.explain() if d["kind"] == "recompile"][0]

    d = run(tmp_path / "on", "torch._dynamo.config.specialize_float = True")
    assert d["user_frame"]["lineno"] == 2 and "specialize_float = True` set at line 2" in \
        d["reason"], d
    assert d["fix"].startswith("The program sets `torch._dynamo.config.specialize_float = True`")
    d = run(tmp_path / "off", "x = 1")
    assert "specialize_float" not in d["reason"] + d["fix"]


def test_a_marked_dimension_library_code_specialised_names_the_other_inputs(tmp_path):
    """probes41c hf_bert_mark_dynamic_ids_only, blind: `mark_dynamic(batch["input_ids"], 1)`
    alone; transformers' SDPA call pinned the length to the unmarked attention mask's, and the
    diagnosis sat at the library's line with "rewrite line 183"."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    _call(s, "0/0", [39])
    lib = "/usr/lib/python3.11/site-packages/transformers/integrations/sdpa_attention.py"
    s.ing.record({**_ids("0/0"), "str": [lib, 2]}, None)
    s.ing.record({**_ids("0/0"), "symbolic_shape_specialization": {
        "symbol": "s27", "sources": ["L['kwargs']['input_ids'].size()[1]"], "value": "11",
        "reason": "range_refined_to_singleton", "stack": [], "user_stack": [
            {"line": 183, "name": "sdpa_attention_forward", "filename": 2,
             "loc": "attn_output = torch.nn.functional.scaled_dot_product_attention("}]}}, None)
    s.failure("0/0", stage="dynamo", exc_type="ConstraintViolationError",
              message="Constraints violated (L['kwargs']['input_ids'].size()[1])!",
              filename=str(s.user), lineno=39)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == 39, d["user_frame"]
    assert "library code the call runs specialised it to the constant 11" in d["explanation"]
    assert "sdpa_attention.py:183" in d["explanation"]
    assert "mark_dynamic(batch[\"attention_mask\"], 1)" in d["fix"] and "rewrite" not in d["fix"]


def test_the_values_seen_are_each_compiles_own_not_the_failed_entries(tmp_path):
    """probes41h mc_dropout_num_samples_attr: num_samples 8, 16, 32, 12, ... was "values seen
    8, 16, 8, 12": a recompile's failed guard is one cache entry's (the first, 8, again), so
    its expected side is no history. Each compile's own tree holds the value it was for."""
    s = Store(tmp_path)
    values = ["8", "16", "32", "12"]
    for i, v in enumerate(values):
        s.compile(f"0/{i}", **({} if i == 0 else {"recompile_reason": (
            f"0/{0 if i == 2 else i - 1}: self.k == {'8' if i == 2 else values[i - 1]}     "
            "# y = f(x)  # a.py:6 in f")}))
        s.ing.record({**_ids(f"0/{i}"), "dynamo_cpp_guards_str": {}}, _tree("L['self'].k", v))
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert list(d["details"]["values"]) == values, d["details"]


def test_a_skipped_resume_function_is_the_rest_of_the_function_not_all_of_it(tmp_path):
    """probes41a tta_fork_rng_noise: a `with torch.random.fork_rng()` broke twice at line 29,
    the second time in the resume function, which Dynamo skipped; explain said "skipped the
    whole function tta_predict(), which ran in eager", though the part before compiled."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="f")
    s.compile("1/0", co_name="torch_dynamo_resume_in_f_at_5", lineno=5)
    s.graph_break("1/0", 5, gb_type="Unsupported context manager", code="GB0142", skipped=True)
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert "skipped the rest of f() after line 5 (its resume function)" in d["explanation"], d
    assert "whole function" not in d["explanation"]


def test_an_input_eager_rejects_gets_fix_the_data_and_no_minify(tmp_path):
    """probes41f index_add_ignore_label, int_boxes_inplace_rescale, blind: eager refused the
    program's inputs (index -1; Float into Long) and the compiled graph returned values; the fix
    was bisect and a minify that refused when pasted ("the error is the graph's own")."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.accuracy("0/0", [("output 0", False, 1.0, 1.0, {
        "verdict": "eager_rejects", "dtype": "torch.float32",
        "eager_error": "RuntimeError: index -1 is out of bounds for dimension 0 with size 4"})])
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert d["fix"].startswith("Fix the data before this op"), d["fix"]
    assert "compdiag minify" not in d["fix"] and "compdiag bisect" in d["fix"]


def test_nan_only_compiled_in_low_precision_gets_emulate_precision_casts(tmp_path):
    """probes41f bf16_setpool_amax_grad_nan (pytorch#186799), blind: NaN in a bf16 gradient
    only compiled; the fix "check the op's inputs' range" did not help, and bisect found
    emulate_precision_casts, which did."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.accuracy("0/0", [("grad of w", False, 0.0, 0.0, {
        "verdict": "inf_nan", "dtype": "torch.bfloat16", "backward": True,
        "divergent_node": {"node": "feat_1", "op": "add", "dtype": "torch.bfloat16"}})])
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert "emulate_precision_casts = True" in d["fix"] and "inputs' range" not in d["fix"]


def test_inf_only_compiled_in_float32_offers_the_op_in_eager(tmp_path):
    """probes45e lorentz_hierarchy_acosh_far (pytorch#183768), blind: a vectorised acosh
    overflowed to inf on valid, finite inputs; the fix said "check the op's inputs' range",
    which left the user nothing to change, while the op in eager (a disabled helper) matched."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.accuracy("0/0", [("output 0", False, float("inf"), float("inf"), {
        "verdict": "inf_nan", "dtype": "torch.float32", "nonfinite_side": "compiled",
        "matches_fp64": "eager", "divergent_node": {"node": "acosh", "op": "acosh",
                                                    "dtype": "torch.float32"}})])
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert "torch.compiler.disable" in d["fix"] and "inputs' range" not in d["fix"], d["fix"]


FAKE_COUNT_SRC = '''import torch


@torch.library.custom_op("prune_ops::keep_above", mutates_args=())
def keep_above(x: torch.Tensor, thr: float) -> tuple[torch.Tensor, int]:
    mask = x.abs() > thr
    return x * mask, int(mask.sum())


@keep_above.register_fake
def _(x, thr):
    return torch.empty_like(x), x.numel()


@torch.compile
def pooled(h):
    kept, n_kept = keep_above(h, 0.5)
    return kept.sum() / max(n_kept, 1)
'''


def test_a_fake_that_returns_a_size_for_a_data_count_is_the_cause(tmp_path):
    """probes41b cop_fake_int_count_const, blind: the fake returned `x.numel()` for the
    op's data-dependent count; the compiled division used 768 every call, said as "a silent
    bug of torch.compile's tracing ... report it to PyTorch". The fake's line is the cause."""
    s = Store(tmp_path)
    s.user.write_text(FAKE_COUNT_SRC)
    s.compile("0/0", co_name="pooled", lineno=16)
    s.post_grad("0/0", f"        # File: {s.user}:18 in pooled, code: kept, n_kept = "
                "keep_above(h, 0.5)\n        keep_above = torch.ops.prune_ops.keep_above."
                "default(arg0_1, 0.5)\n")
    s.accuracy("0/0", [("result 0", False, 0.07, 0.6, {"verdict": "traced_wrong",
                                                       "function": "pooled"})])
    (d,) = [d for d in s.explain() if d["kind"] == "accuracy"]
    assert d["user_frame"]["lineno"] == 12, d["user_frame"]
    assert "fake implementation (line 12) returns `x.numel()`" in d["reason"]
    assert "new_dynamic_size()" in d["fix"] and "Report it" not in d["fix"]


def test_a_branch_on_a_sizes_expression_is_at_its_if(tmp_path):
    """probes42b tf_same_pad_parity_recompile, blind: TF "SAME" padding branches on `in_width
    % stride_width == 0` (a size made dynamic); torch's guard names that line, and the
    recompile was put at the model's call, the `if` only "read at line 4". The branch is
    the line the fix changes (torch.where, or inputs padded to one parity)."""
    s = Store(tmp_path)
    s.compile("0/0")
    _call(s, "0/0", [40, 62])
    s.compile("0/1", recompile_reason="0/0: (L['x'].size()[3] % 2) == 0  # if in_width % "
                                      f"stride_width == 0:  # {s.user}:4 in f")
    _call(s, "0/1", [40, 62])
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["reason"].startswith("a branch on the expression"), d["reason"]
    assert (d["user_frame"]["lineno"], d["user_frame"]["evidence"]) == (4, "torch"), d


def test_a_marked_dimension_a_library_checks_against_the_models_own_size(tmp_path):
    """probes42b hf_vit_mark_dynamic_hw, blind: H and W of a ViT's pixel_values marked
    dynamic; transformers' `if height != self.image_size[0] ...:` pinned them. The diagnosis
    blamed an unmarked input of the same length and offered maybe_mark_dynamic, which moved
    the end to the model's ValueError at the next size (eager raises it too)."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", lineno=3)
    _call(s, "0/0", [26])
    lib = "/usr/lib/python3.11/site-packages/transformers/models/vit/modeling_vit.py"
    s.ing.record({**_ids("0/0"), "str": [lib, 2]}, None)
    s.ing.record({**_ids("0/0"), "symbolic_shape_specialization": {
        "symbol": "s27", "sources": ["L['kwargs']['pixel_values'].size()[2]"], "value": "64",
        "reason": "range_refined_to_singleton", "stack": [], "user_stack": [
            {"line": 152, "name": "forward", "filename": 2,
             "loc": "if height != self.image_size[0] or width != self.image_size[1]:"}]}},
        None)
    s.failure("0/0", stage="dynamo", exc_type="ConstraintViolationError",
              message="Constraints violated (L['kwargs']['pixel_values'].size()[2])!",
              filename=str(s.user), lineno=26)
    (d,) = [d for d in s.explain() if d["kind"] == "failure"]
    assert "checks it against a value of the model's own" in d["explanation"], d
    assert "attention_mask" not in d["fix"] and "interpolate_pos_encoding" in d["fix"]
