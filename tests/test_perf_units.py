"""`compdiag perf` without compiling: the statistics (median, bootstrap interval, noise
verdict, payback), the limiter ranking on hand-built stores (Writer API), the timer on a plain
callable, the CLI's one-line errors and the report filed in the store. Fast."""

from __future__ import annotations

import json
import random
import zlib
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compdiag.analyses import perf_stats as S
from compdiag.analyses.perf import compare_modes, recommend, report
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer
from compdiag.views.perf import compile_text


# -- statistics --------------------------------------------------------------------------------
def test_median_and_quantiles():
    assert S.median([3.0, 1.0, 2.0]) == 2.0
    assert S.median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert S.quantile([1.0, 2.0, 3.0, 4.0, 5.0], 0.25) == 2.0
    assert S.quantile([0.0, 10.0], 0.5) == 5.0
    with pytest.raises(ValueError):
        S.median([])


@given(st.lists(st.floats(min_value=1e-6, max_value=10.0), min_size=1, max_size=50))
def test_median_lies_between_min_and_max(xs):
    m = S.median(xs)
    assert min(xs) <= m <= max(xs)
    s = S.summarize(xs)
    assert s.q1 <= s.median <= s.q3 and s.rel_spread >= 0


def test_a_single_timing_never_gives_a_speedup():
    sp = S.speedup([1.0], [0.1])
    assert sp.ratio is None and sp.verdict == "too few samples"
    sp = S.speedup([1.0] * (S.MIN_SAMPLES - 1), [0.1] * (S.MIN_SAMPLES - 1))
    assert sp.verdict == "too few samples"


def test_clear_speedup_is_faster_with_an_interval_around_it():
    rng = random.Random(1)
    eager = [1.0 + rng.uniform(-0.05, 0.05) for _ in range(20)]
    comp = [0.25 + rng.uniform(-0.01, 0.01) for _ in range(20)]
    sp = S.speedup(eager, comp)
    assert sp.verdict == "faster" and sp.paired
    assert sp.lo <= sp.ratio <= sp.hi
    assert 3.5 < sp.lo and sp.hi < 4.6


def test_slower_is_slower():
    rng = random.Random(2)
    sp = S.speedup([0.1 + rng.uniform(0, 0.005) for _ in range(15)],
                   [0.2 + rng.uniform(0, 0.005) for _ in range(15)])
    assert sp.verdict == "slower" and sp.hi < 1.0


def test_difference_smaller_than_noise_is_within_noise():
    """3% apart with 40% noise on both sides: no speed-up may be claimed."""
    rng = random.Random(3)
    eager = [1.03 * rng.uniform(0.6, 1.4) for _ in range(12)]
    comp = [1.00 * rng.uniform(0.6, 1.4) for _ in range(12)]
    sp = S.speedup(eager, comp)
    assert sp.verdict == "within noise"
    assert sp.lo < 1.0 < sp.hi
    assert sp.noise > 0.05


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(min_value=0.5, max_value=2.0), min_size=S.MIN_SAMPLES, max_size=30))
def test_same_samples_on_both_sides_are_never_a_speedup(xs):
    sp = S.speedup(xs, list(xs))
    assert sp.ratio == pytest.approx(1.0)
    assert sp.verdict == "within noise"


def test_bootstrap_depends_on_the_samples_not_on_global_random_state():
    """The interval is a function of the samples: the program's own use of `random` (or a
    second report of the same store) must not move it, and other samples must."""
    rng = random.Random(4)
    e = [rng.uniform(1, 2) for _ in range(10)]
    c = [rng.uniform(0.5, 1.5) for _ in range(10)]
    random.seed(1)
    first = S.speedup(e, c).as_dict()
    random.seed(2)
    random.random()
    assert S.speedup(e, c).as_dict() == first
    other = S.speedup(e, [x * 1.1 for x in c]).as_dict()
    assert (other["lo"], other["hi"]) != (first["lo"], first["hi"])


def test_payback_calls():
    assert S.payback_calls(10.0, 0.003, 0.001) == 5000
    assert S.payback_calls(10.0, 0.001, 0.002) is None  # slower: never pays back
    assert S.payback_calls(None, 0.003, 0.001) is None


def test_fmt_time():
    assert S.fmt_time(1.4412) == "1.44 s"
    assert S.fmt_time(0.678) == "678 ms"
    assert S.fmt_time(62.8e-6) == "62.8 us"
    assert S.fmt_time(None) == "-"


# -- the timer on plain callables ----------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_timing_copies_keep_the_inputs_strides(sizes, data):
    """The timing loops' copies keep every input's strides: a compiled graph asserts them, and
    a contiguous copy of an expanded (stride-0) or sliced input failed that assertion, so perf
    could not time the graph at all (probes46e heat_jacobi: "stride 9216==0")."""
    import torch

    from compdiag.capture.perf_timing import _clone_inputs

    base = torch.randn(*[n + 2 for n in sizes])
    view = base[tuple(slice(1, 1 + n) for n in sizes)]  # sliced: not dense
    if data.draw(st.booleans()):
        view = view.unsqueeze(0).expand(3, *sizes)  # a stride-0 dimension
    if data.draw(st.booleans()):
        view = view.transpose(0, -1)
    view.requires_grad_(data.draw(st.booleans()))
    (copy,) = _clone_inputs([view])
    assert copy.stride() == view.stride() and copy.shape == view.shape
    assert torch.equal(copy.detach(), view.detach())
    assert copy.untyped_storage().data_ptr() != view.untyped_storage().data_ptr()
    assert copy.requires_grad == view.requires_grad


def test_time_pair_alternates_and_takes_enough_samples():
    import time

    import torch

    from compdiag.capture.perf_timing import GraphTiming, Settings, time_pair

    calls: list[str] = []

    def slow(x):
        calls.append("e")
        time.sleep(0.002)
        return x + 1

    def fast(x):
        calls.append("c")
        return x + 1

    t = time_pair(slow, fast, [torch.ones(3)], Settings(warmup=1, min_reps=6, max_reps=6,
                                                         budget_s=0.0, sample_s=0.0),
                  GraphTiming("0/0"))
    assert len(t.eager_s) == len(t.compiled_s) == 6
    assert t.output_bytes == 3 * 4
    assert S.speedup(t.eager_s, t.compiled_s).verdict == "faster"
    timed = calls[3:]  # one output probe and one warm-up pair first
    assert timed[:4] == ["e", "c", "c", "e"]  # the order flips every pair


# -- limiters on hand-built stores ---------------------------------------------------------------
class Store:
    def __init__(self, tmp_path: Path) -> None:
        self.path = tmp_path / "s.db"
        self.user = tmp_path / "user.py"
        self.user.write_text("".join(f"line_{i} = {i}\n" for i in range(1, 40)))
        self.w = Writer(self.path)
        self.run_id = self.w.begin_run(source="run", argv=[str(self.user)], cwd=str(tmp_path))
        # Compiles, breaks, hints and output code go through ingest, as a run's do; the
        # timings and kernels are written as the capture's timing hooks write them.
        self.ing = Ingestor(self.w, self.run_id)

    @staticmethod
    def _ids(cid: str) -> dict[str, int]:
        frame, rest = cid.split("/")
        return {"frame_id": int(frame), "frame_compile_id": int(rest.split("_")[0])}

    def compile(self, cid: str, co_name: str, total: float = 10.0) -> None:
        self.ing.record({**self._ids(cid), "compilation_metrics": {
            "co_name": co_name, "co_filename": str(self.user), "co_firstlineno": 3,
            "entire_frame_compile_time_s": total, "inductor_compile_time_s": total / 2}}, None)

    def timing(self, cid: str, eager: float, compiled: float, *, calls: int = 10,
               n: int = 10, noise: float = 0.02) -> None:
        # A seed of the id that is the same in every process (str hash is salted per process,
        # so PYTHONHASHSEED once decided whether a noisy case came out 'within noise').
        rng = random.Random(zlib.crc32(cid.encode()))
        self.w.upsert("perf_graphs", run_id=self.run_id, compile_id=cid,
                      eager_s=[eager * (1 + rng.uniform(-noise, noise)) for _ in range(n)],
                      compiled_s=[compiled * (1 + rng.uniform(-noise, noise)) for _ in range(n)],
                      inner=1, warmup=3, timer="perf_counter", device="cpu", grad_enabled=0,
                      n_inputs=1, input_bytes=4096, output_bytes=4096, calls=calls, error=None)

    def kernel(self, cid: str, name: str, backend: str) -> None:
        self.w.insert("kernels", run_id=self.run_id, compile_id=cid, name=name, backend=backend,
                      source="", fx_nodes=[], fused_ops=[], user_lines=[])

    def graph_break(self, cid: str, line: int) -> None:
        self.ing.record({**self._ids(cid), "artifact": {"name": "dynamo_graph_break_reason"}},
                        f"Graph break in user code at {self.user}:{line}\n"
                        "Graph Break Reason: Call to `torch._dynamo.graph_break()`\n"
                        "  For more details about this graph break, please visit: https://"
                        "meta-pytorch.github.io/compile-graph-break-site/gb/gb0025.html\n")

    def hint(self, cid: str, text: str) -> None:
        self.ing.event("perf_hints", cid, {}, text)

    def output_code(self, cid: str, code: str) -> None:
        self.ing.record({**self._ids(cid), "inductor_output_code": {}}, code)

    def report(self) -> dict:
        self.ing.flush()
        self.w.upsert("perf_runs", run_id=self.run_id, mode="default", peak_rss_bytes=1 << 28,
                      device="cpu", program_s=1.0, settings={})
        self.w.end_run(self.run_id, exit_code=0, status="done")
        self.w.close()
        with Reader(self.path) as r:
            return report(r, self.run_id)


def test_graph_break_splitting_the_hot_function_ranks_first(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", "hot")
    s.compile("1/0", "torch_dynamo_resume_in_hot_at_9")
    s.compile("2/0", "cold")
    s.timing("0/0", 0.010, 0.002)
    s.timing("1/0", 0.010, 0.002)
    s.timing("2/0", 0.001, 0.0009, calls=1)
    for cid in ("0/0", "1/0", "2/0"):
        s.kernel(cid, "cpp_fused_sin_0", "cpp")
    s.kernel("2/0", "extern_kernels.mm", "extern")  # a library call, not a limiter
    s.graph_break("0/0", 9)
    rep = s.report()
    top = rep["limiters"][0]
    assert top["kind"] == "graph_break"
    assert top["user_frame"]["lineno"] == 9
    assert set(top["compile_ids"]) == {"0/0", "1/0"}
    assert 0.45 < top["impact"] <= 0.5  # two halves hold ~99.8% of the compiled time
    assert not any(lim["kind"] == "fallback" for lim in rep["limiters"])
    g = {g["compile_id"]: g for g in rep["graphs"]}
    assert g["0/0"]["speedup"]["verdict"] == "faster"
    assert 1200 <= g["0/0"]["payback_calls"] <= 1300  # 10 s / ~8 ms saved per call
    assert rep["totals"]["speedup"]["verdict"] == "faster"


def test_fallback_from_perf_hint_and_from_extern_kernel(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", "f")
    s.compile("1/0", "g")
    s.timing("0/0", 0.010, 0.004)
    s.timing("1/0", 0.010, 0.004)
    s.kernel("0/0", "cpp_fused_add_0", "cpp")
    s.kernel("0/0", "aten.cumsum", "extern")
    s.kernel("1/0", "cpp_fused_add_0", "cpp")
    s.kernel("1/0", "extern_kernels.kthvalue", "extern")
    s.hint("0/0", "Using FallbackKernel: torch.ops.aten.cumsum.default")
    rep = s.report()
    kinds = [(lim["kind"], lim["compile_ids"]) for lim in rep["limiters"]]
    assert ("fallback", ["0/0"]) in kinds and ("fallback", ["1/0"]) in kinds
    cumsum = [lim for lim in rep["limiters"] if "cumsum" in lim["reason"]]
    assert len(cumsum) == 1  # the hint and the kernel row are one limiter


def test_many_tiny_kernels_are_launch_overhead(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", "f")
    s.timing("0/0", 60e-6, 50e-6)
    for i in range(10):
        s.kernel("0/0", f"cpp_fused_{i}", "cpp")
    rep = s.report()
    lim = rep["limiters"][0]
    assert lim["kind"] == "launch_overhead" and lim["basis"] == "measured"
    assert "10 kernels" in lim["reason"]
    # Replayed as a CUDA graph (reduce-overhead), the graph launches once: no such limiter.
    (tmp_path / "cg").mkdir()
    s = Store(tmp_path / "cg")
    s.compile("0/0", "f")
    s.timing("0/0", 60e-6, 50e-6)
    for i in range(10):
        s.kernel("0/0", f"triton_poi_fused_{i}", "triton")
    s.w.insert("cudagraphs", run_id=s.run_id, compile_id="0/0", applied=True, reason=None)
    assert not any(x["kind"] == "launch_overhead" for x in s.report()["limiters"])


def test_noise_larger_than_difference_is_said(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", "f")
    s.timing("0/0", 0.0102, 0.0100, noise=0.4)
    rep = s.report()
    assert rep["graphs"][0]["speedup"]["verdict"] == "within noise"
    assert rep["graphs"][0]["payback_calls"] is None
    assert any("within noise" in n for n in rep["notes"])


def test_older_store_without_perf_tables_reads_empty(tmp_path):
    import sqlite3

    s = Store(tmp_path)
    s.w.close()
    conn = sqlite3.connect(s.path)
    for t in ("perf_graphs", "perf_runs", "perf_reports"):
        conn.execute(f"DROP TABLE {t}")
    conn.commit()
    conn.close()
    with Reader(s.path) as r:
        assert r.perf_graphs(s.run_id) == [] and r.perf_run(s.run_id) is None
    Writer(s.path).close()  # opening for writing adds them back
    with Reader(s.path) as r:
        assert r.perf_graphs(s.run_id) == []
        assert r._has_table("perf_reports")


# -- modes -------------------------------------------------------------------------------------
def _row(mode, ratio, lo, hi, compile_s):
    return {"mode": mode, "speedup": ratio, "speedup_lo": lo, "speedup_hi": hi,
            "compile_s": compile_s, "exit_code": 0}


def test_recommendation_needs_a_gain_beyond_the_noise():
    rec = recommend([_row("default", 2.0, 1.8, 2.2, 30), _row("max-autotune", 2.1, 1.9, 2.3, 180)])
    assert rec["mode"] == "default"
    assert any("no gain beyond the noise" in r and "6.0x the compile time" in r
               for r in rec["reasons"])
    rec = recommend([_row("default", 1.2, 1.1, 1.3, 30), _row("reduce-overhead", 2.5, 2.3, 2.7, 40)])
    assert rec["mode"] == "reduce-overhead"
    assert any("+108%" in r for r in rec["reasons"])
    # resnet50 on the H200: max-autotune's kernels lost to default's end to end.
    rec = recommend([_row("default", 1.93, 1.93, 1.95, 10.6),
                     _row("max-autotune", 1.02, 1.01, 1.02, 995)])
    assert rec["mode"] == "default"
    (why,) = [r for r in rec["reasons"] if r.startswith("max-autotune")]
    assert "-47%, slower beyond the noise" in why and "no gain" not in why


def test_autotuning_share_of_a_compile_is_named():
    # Inductor's compile_time_autotune_time_us, per compile, summed over the run's compiles;
    # None (not 0) when no compile reports it, as on the CPU without autotuning.
    from compdiag.analyses.perf import _totals

    compiles = [{"stage_times": {"total": 70.0, "autotune": 50.0}},
                {"stage_times": {"total": 3.0}}]
    assert _totals([], {}, compiles)["autotune_s"] == 50.0
    assert _totals([], {}, [{"stage_times": {"total": 3.0}}])["autotune_s"] is None
    slow = dict(_row("max-autotune", 2.1, 1.9, 2.3, 73.6), autotune_s=52.0)
    assert compile_text(slow) == "73.6 s (52.0 s autotuning)"
    # A tenth of the compile or less is not worth a mention.
    assert compile_text(dict(slow, autotune_s=7.0)) == "73.6 s"
    rec = recommend([_row("default", 2.0, 1.8, 2.2, 12.0), slow])
    assert any("6.1x the compile time (52.0 s of its 73.6 s is autotuning)" in r
               for r in rec["reasons"]), rec["reasons"]
    rec = recommend([_row("default", 1.2, 1.1, 1.3, 12.0), dict(slow, speedup=2.5,
                                                               speedup_lo=2.4, speedup_hi=2.6)])
    assert rec["mode"] == "max-autotune"
    assert any("(+108%) for 6.1x the compile time (52.0 s" in r for r in rec["reasons"])


def test_compare_modes_rows():
    rep = {"run": 1, "totals": {"compile_s": 3.0, "compiled_s": 1.0, "eager_s": 2.0,
                                "speedup": {"ratio": 2.0, "lo": 1.9, "hi": 2.1,
                                            "verdict": "faster"}},
           "graphs": [{"compile_id": "0/0"}], "exit_code": 0, "peak_rss_bytes": 10}
    out = compare_modes({"default": rep})
    assert out["rows"][0]["speedup"] == 2.0 and out["recommendation"]["mode"] == "default"


def _proc(run, ratio, lo, hi, basis="whole calls", eager_s=None):
    return {"run": run, "exit_code": 0, "basis": basis, "speedup": ratio, "speedup_lo": lo,
            "speedup_hi": hi, "eager_s": eager_s}


def _mode_report(run, ratio, lo, hi, repeats=(), eager_s=None):
    sp = {"ratio": ratio, "lo": lo, "hi": hi, "verdict": "faster"}
    return {"run": run, "exit_code": 0, "graphs": [{"compile_id": "0/0"}],
            "totals": {"compile_s": 10.0, "speedup": sp},
            "module_totals": {"speedup": sp, "eager_s": eager_s}, "repeats": list(repeats)}


def test_repeated_processes_widen_a_modes_range():
    """resnet50 on the H200: the first default process ran slow throughout (1.57x), the next
    one did not (1.93x). From the first alone reduce-overhead wins; across both processes its
    gain is inside the noise between processes."""
    alone = compare_modes({"default": _mode_report(1, 1.57, 1.53, 1.60),
                           "reduce-overhead": _mode_report(3, 1.96, 1.95, 1.97)})
    assert alone["recommendation"]["mode"] == "reduce-overhead"
    out = compare_modes({
        "default": _mode_report(1, 1.57, 1.53, 1.60, [_proc(2, 1.93, 1.91, 1.95)]),
        "reduce-overhead": _mode_report(3, 1.96, 1.95, 1.97, [_proc(4, 2.02, 2.00, 2.04)])})
    default, ro = out["rows"]
    assert default["processes"] == [1.57, 1.93]
    assert default["speedup"] == pytest.approx(1.75)
    assert (default["speedup_lo"], default["speedup_hi"]) == (1.53, 1.95)
    assert ro["processes"] == [1.96, 2.02] and ro["speedup_lo"] == 1.95
    assert out["recommendation"]["mode"] == "default"
    # The slow process' eager was 5.94 ms a call against 5.25 ms: said as the machine's noise.
    slow = compare_modes({"default": _mode_report(1, 1.57, 1.53, 1.60,
                                                  [_proc(2, 1.93, 1.91, 1.95, eager_s=0.2625)],
                                                  eager_s=0.297),
                          "reduce-overhead": _mode_report(3, 1.96, 1.95, 1.97)})
    assert slow["rows"][0]["eager_spread"] == pytest.approx(0.131, abs=0.001)
    (note,) = [c for c in slow["recommendation"]["caveats"] if "eager itself" in c]
    assert "13% longer in one of default's processes" in note
    assert not any("eager itself" in c for c in out["recommendation"]["caveats"])
    # A repeat measured on another basis (no whole-call timing there) is not mixed in.
    other = compare_modes({"default": _mode_report(1, 1.5, 1.4, 1.6,
                                                   [_proc(2, 3.0, 2.9, 3.1, "compiled graphs")]),
                           "max-autotune": _mode_report(3, 1.5, 1.4, 1.6)})
    assert "processes" not in other["rows"][0] and other["rows"][0]["speedup"] == 1.5


def test_a_slower_mode_names_its_other_kernels_and_new_limiter():
    """resnet50 on the H200 (its stored reports, trimmed): max-autotune ran 1x1 convolutions
    as mm and had a template-fusion limiter default did not."""
    cycle = {"kind": "fusion_miss", "impact": 0.06, "reason": "fusion would create a cycle: "
             "cannot fuse op13 with op20: intermediate nodes between node1 & node2"}

    def graph(kernels, calls):
        return {"compile_id": "0/0", "kernels": kernels,
                "library_calls": [f"extern_kernels.{c}" for c, n in calls.items()
                                  for _ in range(n)]}

    default = _mode_report(1, 1.93, 1.93, 1.95)
    default.update(graphs=[graph({"triton": 24, "extern": 54},
                                 {"convolution": 53, "addmm": 1})], limiters=[cycle])
    tuned = _mode_report(3, 1.02, 1.01, 1.02)
    tuned.update(graphs=[graph({"triton": 28, "extern": 53},
                               {"mm": 32, "convolution": 20, "addmm": 1})],
                 limiters=[{"kind": "fusion_miss", "impact": 0.28,
                            "reason": "template/epilogue not fused: cannot fuse op0 with op2: "
                                      "prologue fusion not implemented"},
                           dict(cycle, reason=cycle["reason"].replace("op13", "op12"))])
    out = compare_modes({"default": default, "max-autotune": tuned})
    assert out["rows"][1]["library_calls"] == {"mm": 32, "convolution": 20, "addmm": 1}
    reasons = out["recommendation"]["reasons"]
    (kernels,) = [r for r in reasons if "runs other kernels" in r]
    assert kernels == ("max-autotune runs other kernels than default: convolution 53 -> 20, "
                       "mm 0 -> 32, extern kernels 54 -> 53, triton kernels 24 -> 28")
    (lim,) = [r for r in reasons if "top limiter" in r]
    assert "fusion_miss (28%) template/epilogue not fused" in lim
    # The same top limiter in both modes (op numbers aside) is not news.
    tuned["limiters"] = tuned["limiters"][1:]
    out = compare_modes({"default": default, "max-autotune": tuned})
    assert not [r for r in out["recommendation"]["reasons"] if "top limiter" in r]


# -- the CLI -----------------------------------------------------------------------------------
def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compdiag", *args], capture_output=True,
                          text=True, cwd=cwd)


@pytest.mark.parametrize("args, message", [
    (["--modes", "fast", "x.py"], "--modes takes"),
    (["missing.py"], "no such file"),
    (["banana"], "neither a script nor a run id"),
    (["--modes", "default,max-autotune", "1"], "a stored RUN has one mode"),
    (["--keep-caches", "caches", "1"], "--keep-caches goes with a SCRIPT"),
    (["--keep-caches", "full", "prog.py"], "not a new or empty directory"),
    (["--repeat", "2", "1"], "a stored RUN is re-read as recorded"),
    (["--repeat", "0", "prog.py"], "--repeat must be between 1 and 20"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    store = tmp_path / "s.db"
    Writer(store).close()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "old-entry").write_text("x")  # a warm cache would hide the compile
    (tmp_path / "prog.py").write_text("print('never run')\n")
    p = _cli("perf", "--store", str(store), *args, cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and message in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_run_without_timings_is_one_line(tmp_path):
    s = Store(tmp_path)
    s.w.end_run(s.run_id, exit_code=0, status="done")
    s.w.close()
    p = _cli("perf", "--store", str(s.path), str(s.run_id))
    assert p.returncode == 2 and "has no perf timings" in p.stderr
    assert p.stderr.count("\n") == 1


def test_perf_run_json_is_filed_in_the_store(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", "hot")
    s.timing("0/0", 0.010, 0.002)
    s.kernel("0/0", "cpp_fused_sin_0", "cpp")
    s.report()
    p = _cli("perf", "--store", str(s.path), "--json", "latest")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["schema_version"] >= 1 and doc["modes"] is None
    (rep,) = doc["runs"]
    assert rep["graphs"][0]["speedup"]["verdict"] == "faster"
    with Reader(s.path) as r:
        assert r.perf_report(s.run_id)["runs"][0]["run"] == s.run_id
    text = _cli("perf", "--store", str(s.path), str(s.run_id))
    assert text.returncode == 0
    assert "faster" in text.stdout and "█" in text.stdout and "compiled" in text.stdout


def test_fallback_calls_in_the_wrapper_code():
    from compdiag.ingest.parsers import fallback_calls

    code = ("    def call(self, args):\n"
            "        buf0 = empty_strided_cpu((256, 1024), (1024, 1), torch.float32)\n"
            "        buf1 = torch.ops.aten.cumsum.default(buf0, dim=1, dtype=None)\n"
            "        assert_size_stride(buf2, (256, 1024), (1024, 1), 'torch.ops.aten.cumsum.default')\n"
            "        buf3 = extern_kernels.mm(buf1, arg1_1)\n")
    assert fallback_calls(code) == ["aten.cumsum"]
    assert fallback_calls(None) == []


def test_fallback_found_in_output_code_without_a_hint(tmp_path):
    """A cached compile emits no perf hint; the wrapper code still shows the ATen call."""
    s = Store(tmp_path)
    s.compile("0/0", "f")
    s.timing("0/0", 0.010, 0.004)
    s.kernel("0/0", "cpp_fused_add_0", "cpp")
    s.output_code("0/0", "        buf1 = torch.ops.aten.kthvalue.default(buf0, 3)\n")
    rep = s.report()
    assert rep["graphs"][0]["fallbacks"] == ["aten.kthvalue"]
    assert rep["limiters"][0]["kind"] == "fallback" and "kthvalue" in rep["limiters"][0]["reason"]


def test_graph_break_cost_from_the_measured_copy(tmp_path):
    """The break's cost: the outputs of the graph before it, written and read back (a timed
    copy), over the function's compiled time."""
    s = Store(tmp_path)
    s.compile("0/0", "hot")
    s.compile("1/0", "torch_dynamo_resume_in_hot_at_15")
    s.timing("0/0", 0.010, 0.002)
    s.timing("1/0", 0.010, 0.002)
    s.w.upsert("perf_graphs", run_id=s.run_id, compile_id="0/0", eager_s=[0.01] * 8,
               compiled_s=[0.002] * 8, inner=1, warmup=3, timer="perf_counter", device="cpu",
               grad_enabled=0, n_inputs=1, input_bytes=4096, output_bytes=32_000_000,
               output_copy_s=0.001, calls=10, error=None)
    s.graph_break("0/0", 15)
    rep = s.report()
    (lim,) = [lim for lim in rep["limiters"] if lim["kind"] == "graph_break"]
    assert lim["basis"] == "measured"
    assert lim["impact"] == pytest.approx(0.25, abs=0.02)  # 1 ms copy / 4 ms compiled
    assert "32.0 MB crossing the break" in lim["evidence"]


def test_timing_copies_share_parameters_and_keep_requires_grad():
    import torch

    from compdiag.capture.perf_timing import _clone_inputs

    w = torch.nn.Parameter(torch.ones(3))
    x = torch.ones(3, requires_grad=True)
    buf = torch.zeros(3)
    cw, cx, cb = _clone_inputs([w, x, buf])
    assert cw is w  # weights are not copied
    assert cx is not x and cx.requires_grad and cx.is_leaf
    cb.add_(1)
    assert buf.sum() == 0  # a mutated buffer copy leaves the user's tensor alone


def test_timing_shares_static_inputs_and_puts_their_values_back():
    """A tensor Dynamo marked static (an inlined module's buffer) is passed as itself: a copy in
    its place would make CUDA-graph trees record the graph once more for the copy. What the
    timing loops write into it is undone."""
    import torch

    from compdiag.capture.perf_timing import _clone_inputs, _restored_statics

    w = torch.nn.Parameter(torch.ones(3))
    running = torch.zeros(3)
    torch._dynamo.mark_static_address(running, guard=False)
    x = torch.ones(3)
    cw, cr, cx = _clone_inputs([w, running, x])
    assert cw is w and cr is running and cx is not x
    with _restored_statics([w, [running], x]):
        running.add_(5)
        w.data.add_(1)  # parameters are shared and not snapshotted: a forward never writes them
    assert running.sum() == 0
    assert w.sum() == 6


# -- whole module calls (ModuleTimer) ------------------------------------------------------------
def test_module_timer_times_whole_calls_and_leaves_the_program_unchanged():
    """Training-mode BatchNorm (buffers change every call), dropout (RNG), a second instance of
    the same class: the timed program's outputs and state must equal an untimed run's."""
    import torch

    from compdiag.capture.perf_timing import ModuleTimer, PerfTimer, Settings

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin, self.bn = torch.nn.Linear(8, 8), torch.nn.BatchNorm1d(8)

        def forward(self, x):
            return torch.nn.functional.dropout(self.bn(self.lin(x)), 0.5)

    def program():
        torch.manual_seed(0)
        a, b = Net(), Net()
        ca, cb = torch.compile(a, backend="eager"), torch.compile(b, backend="eager")
        x = torch.randn(4, 8)
        outs = [ca(x) for _ in range(3)] + [cb(x)]
        return outs, a.bn.running_mean.clone(), int(a.bn.num_batches_tracked), torch.rand(1)

    torch._dynamo.reset()
    plain = program()
    from torch._dynamo.eval_frame import OptimizedModule

    before = OptimizedModule.__dict__.get("__call__")
    graphs, calls = [], []
    settings = Settings(min_reps=5, max_reps=5, budget_s=0.05, warmup=1)
    gt = PerfTimer(graphs.append, settings=settings)
    undo_graphs = gt.install()
    mt = ModuleTimer(gt, calls.append)
    undo = mt.install()
    try:
        torch._dynamo.reset()
        timed = program()
        mt.finish()
    finally:
        undo()
        undo_graphs()
        torch._dynamo.reset()
    assert OptimizedModule.__dict__.get("__call__") is before
    for p_out, t_out in zip(plain[0], timed[0]):
        assert torch.equal(p_out, t_out)
    assert torch.equal(plain[1], timed[1]) and plain[2] == timed[2] == 3
    assert torch.equal(plain[3], timed[3])  # the RNG stream continues as without timing
    by_target = {t.target: t for t in mt.timings}
    assert set(by_target) == {"Net", "Net#2"}
    net = by_target["Net"]
    assert net.calls == 3 and net.at_call == 2 and net.error is None
    assert len(net.eager_s) == len(net.compiled_s) == 5 and net.timer == "perf_counter"
    assert by_target["Net#2"].calls == 1 and not by_target["Net#2"].eager_s  # called once
    # The timing loops' calls are not counted as the program's calls of its graphs: the two
    # instances share one graph (parameters are its inputs), called 3 + 1 times.
    assert sum(g.calls for g in gt.timings) == 4, [(g.compile_id, g.calls) for g in gt.timings]


def test_modes_compare_whole_calls_when_they_were_timed():
    from compdiag.analyses.perf import compare_modes

    def rep(mode, graph_ratio, call_ratio, lo, hi):
        return {"run": 1, "mode": mode, "exit_code": 0, "graphs": [{"compile_id": "0/0"}],
                "totals": {"compile_s": 10.0, "compiled_s": 1.0, "eager_s": graph_ratio,
                           "speedup": {"ratio": graph_ratio, "lo": graph_ratio - 0.01,
                                       "hi": graph_ratio + 0.01, "verdict": "faster"}},
                "module_totals": None if call_ratio is None else
                {"compiled_s": 2.0, "eager_s": 2.0 * call_ratio,
                 "speedup": {"ratio": call_ratio, "lo": lo, "hi": hi, "verdict": "faster"}}}

    # Graphs alone would pick max-autotune; the whole calls (what the program sees) say
    # reduce-overhead, whose gain is the Python around the graph.
    out = compare_modes({"default": rep("default", 1.4, 1.6, 1.55, 1.65),
                         "reduce-overhead": rep("reduce-overhead", 1.9, 2.9, 2.8, 3.0),
                         "max-autotune": rep("max-autotune", 2.7, 2.6, 2.5, 2.7)})
    rows = {r["mode"]: r for r in out["rows"]}
    assert rows["reduce-overhead"]["basis"] == "whole calls"
    assert rows["max-autotune"]["graphs_speedup"] == 2.7 and rows["max-autotune"]["speedup"] == 2.6
    assert out["recommendation"]["mode"] == "reduce-overhead"
    # Without whole-call timings the graphs are the basis, and said so.
    out = compare_modes({"default": rep("default", 1.4, None, 0, 0)})
    assert out["rows"][0]["basis"] == "compiled graphs" and out["rows"][0]["speedup"] == 1.4


def test_time_outside_the_graphs_is_a_measured_limiter():
    from compdiag.analyses.perf import _outside_graphs, limiters

    def stats(median):
        return {"median": median}

    graphs = [{"compile_id": "0/0", "calls": 10, "compiled": stats(1e-3), "eager": stats(2e-3),
               "kernels": {}, "fallbacks": [], "device": "cuda:0"}]
    modules = [{"target": "Net", "calls": 10, "compiled": stats(2e-3), "eager": stats(4e-3)}]
    o = _outside_graphs(modules, graphs)
    assert o["outside_frac"] == pytest.approx(0.5) and o["graphs_compiled_s"] == pytest.approx(1e-3)
    (lim,) = [x for x in limiters(graphs, [], [], o) if x["kind"] == "outside_graphs"]
    assert lim["basis"] == "measured" and lim["impact"] == pytest.approx(0.5)
    assert "Net" in lim["reason"] and "reduce-overhead" in lim["fix"]
    # Already under CUDA graphs: reduce-overhead is not the advice.
    (lim,) = [x for x in limiters(graphs, [], [], {**o, "cudagraphs_applied": 1})
              if x["kind"] == "outside_graphs"]
    assert "reduce-overhead" not in lim["fix"] and "guard" in lim["fix"]
    # Two compiled modules: their graphs cannot be told apart, so no estimate.
    assert _outside_graphs(modules * 2, graphs) is None


def test_time_outside_the_graphs_names_graph_breaks_only_when_there_are_some():
    """Issue 30 item 11: perf's top limiter advised "remove graph breaks" for a program with
    none. Fails on main (the advice and the reason name graph breaks whatever the compiles)."""
    from compdiag.analyses.perf import _outside_graphs, limiters

    graphs = [{"compile_id": "0/0", "calls": 10, "compiled": {"median": 1e-3},
               "eager": {"median": 2e-3}, "kernels": {}, "fallbacks": [], "device": "cpu"}]
    modules = [{"target": "Net", "calls": 10, "compiled": {"median": 2e-3},
                "eager": {"median": 4e-3}}]
    o = _outside_graphs(modules, graphs)
    (none,) = [x for x in limiters(graphs, [], [{"compile_id": "0/0", "status": "ok"}], o)
               if x["kind"] == "outside_graphs"]
    assert "graph break" not in none["fix"] and "graph break" not in none["reason"], none
    two = [{"compile_id": cid, "status": "graph_break"} for cid in ("0/0", "1/0")]
    (some,) = [x for x in limiters(graphs, [], two, o) if x["kind"] == "outside_graphs"]
    assert some["fix"].startswith("remove the 2 graph breaks so more of the call runs")


def test_time_outside_the_graphs_that_eager_spends_too_is_not_compiles_overhead():
    """probes42c: a CPU run's top limiter said 61.6 ms of each call was "Dynamo's guard
    checks, the compiled wrappers' own work" and advised mode='reduce-overhead' (CUDA only),
    while eager's call spent as long outside the same ops. Only the part beyond eager's is
    torch.compile's; on the CPU the advice is the C++ wrapper, never CUDA graphs."""
    from compdiag.analyses.perf import _outside_graphs, limiters

    def run(call_c, call_e, device="cpu"):
        graphs = [{"compile_id": "0/0", "calls": 10, "compiled": {"median": 3.3e-3},
                   "eager": {"median": 3.3e-3}, "kernels": {}, "fallbacks": [],
                   "device": device}]
        modules = [{"target": "Net", "calls": 10, "compiled": {"median": call_c},
                    "eager": {"median": call_e}}]
        o = _outside_graphs(modules, graphs)
        (lim,) = [x for x in limiters(graphs, [], [], o) if x["kind"] == "outside_graphs"]
        return lim

    shared = run(65e-3, 65.4e-3)
    assert "not torch.compile's overhead" in shared["evidence"], shared
    assert "guard" not in shared["evidence"] and "reduce-overhead" not in shared["fix"]
    assert "profile" in shared["fix"]
    own = run(65e-3, 4e-3)  # eager's call barely leaves its ops: the gap is compile's
    assert "guard checks" in own["evidence"] and "reduce-overhead" not in own["fix"]
    assert "cpp_wrapper" in own["fix"]
    assert own["impact"] == pytest.approx(round((65e-3 - 3.3e-3 - 0.7e-3) / 65e-3, 4))
    assert "reduce-overhead" in run(65e-3, 4e-3, "cuda:0")["fix"]


def test_module_timer_leaves_a_recompile_to_the_live_capture():
    """Call 2 with a new shape recompiles. The recompile must happen in the module timer's
    first, unpaused call (the capture records it as the user's call would have), never inside
    the paused timing loops; the new graph is timed and its calls are the user's alone."""
    import contextlib

    import torch

    from compdiag.capture.perf_timing import ModuleTimer, PerfTimer, Settings

    state = {"paused": False}

    @contextlib.contextmanager
    def paused():
        state["paused"] = True
        try:
            yield
        finally:
            state["paused"] = False

    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.sin(x) * 2

    settings = Settings(min_reps=5, max_reps=5, budget_s=0.05, warmup=1)
    gt = PerfTimer(lambda t: None, settings=settings, paused=paused,
                   compile_id=lambda: "compiled while paused" if state["paused"] else "live")
    undo_graphs = gt.install()
    mt = ModuleTimer(gt, lambda t: None)
    undo = mt.install()
    try:
        torch._dynamo.reset()
        net = torch.compile(Net(), backend="eager", dynamic=False)
        outs = [net(torch.ones(3)), net(torch.ones(5)), net(torch.ones(5))]
    finally:
        undo()
        undo_graphs()
        torch._dynamo.reset()
    assert [o.shape[0] for o in outs] == [3, 5, 5]
    assert [t.compile_id for t in gt.timings] == ["live", "live"]
    assert [t.calls for t in gt.timings] == [1, 2]
    assert all(t.eager_s for t in gt.timings)
    (m,) = mt.timings
    assert m.calls == 3 and m.at_call == 2 and len(m.eager_s) == 5


def test_timed_compiled_graph_gets_the_modules_own_buffers():
    """In a real compile, the buffers Dynamo lifts into graph inputs reach the compiled side of
    the timing loops as the module's own tensors (what CUDA graphs were recorded against), and
    what a training-mode BatchNorm writes into them during timing is undone."""
    import torch

    from compdiag.capture.perf_timing import PerfTimer, Settings

    bn = torch.nn.BatchNorm1d(4)
    seen: list[set[int]] = []

    def backend(gm, example_inputs):
        def run(*args):
            seen.append({id(a) for a in args if isinstance(a, torch.Tensor)})
            return gm(*args)
        return run

    gt = PerfTimer(lambda t: None, settings=Settings(min_reps=2, max_reps=2, budget_s=0.0,
                                                     warmup=1))
    undo = gt.install()
    try:
        torch._dynamo.reset()
        x = torch.randn(8, 4)
        torch.compile(bn, backend=backend)(x)
    finally:
        undo()
        torch._dynamo.reset()
    assert len(seen) > 3  # the timing loops' calls, then the user's one
    for ids in seen:
        assert id(bn.running_mean) in ids and id(bn.running_var) in ids
    assert int(bn.num_batches_tracked) == 1  # only the user's call counted
    ref = torch.nn.BatchNorm1d(4)
    ref(x)
    assert torch.allclose(bn.running_mean, ref.running_mean)


def test_the_report_and_its_view_carry_the_compile_time(tmp_path):
    """Compiles with no timed regions (hand-fed metrics): compilation_metrics' nested timers
    give the stages, and the terminal view prints them under the timing table."""
    from rich.console import Console

    from compdiag.views.perf import print_document

    s = Store(tmp_path)
    s.compile("0/0", "f", total=10.0)
    s.timing("0/0", 0.010, 0.002)
    rep = s.report()
    ct = rep["compile_time"]
    assert ct["total_s"] == 10.0 and ct["stages"] == {"dynamo": 5.0, "inductor": 5.0}
    assert sum(ct["stages"].values()) + ct["unaccounted_s"] == ct["total_s"]
    assert "compilation_metrics' coarser timers" in ct["note"]
    console = Console(record=True, width=100)
    print_document({"runs": [rep]}, console)
    out = console.export_text()
    assert "compile time 10.00 s of the run's" in out and "dynamo" in out, out


def test_a_recompile_limit_folded_under_a_break_is_still_a_limiter(tmp_path):
    """explain folds the resumed code's recompile limit under the graph break that made the
    resume function (its cause); perf costed only the top-level diagnoses, so no limiter said
    that the resumed code runs in eager from the limit on, and an eager fallback kernel of
    the graph headed the list (benchmarks/probes24 perf_topk_tolist_rerank). Fails on main:
    no `recompile` limiter."""
    from compdiag.analyses.explain import explain
    from compdiag.analyses.perf import limiters
    from compdiag.store.reader import Reader
    from test_explain import Store, break_then_resumed_limit

    s = Store(tmp_path)
    break_then_resumed_limit(s)
    s.done()
    with Reader(s.path) as r:
        diags = explain(r, s.run_id)
    (top,) = diags
    assert [c.diagnosis.kind for c in top.consequences] == ["recompile", "failure"]
    graphs = [{"compile_id": "0/0", "calls": 20, "compiled": {"median": 1e-3},
               "eager": {"median": 1e-3}, "kernels": {"cpp": 2, "extern": 1},
               "fallbacks": ["aten.topk"], "device": "cpu", "function": "forward"}]
    found = limiters(graphs, diags, [{"compile_id": "0/0", "status": "graph_break"}])
    kinds = [f["kind"] for f in found]
    assert "recompile" in kinds and kinds.index("recompile") < kinds.index("fallback"), found


def test_timing_clones_keep_whether_a_tensor_is_an_inference_tensor() -> None:
    """probes29b aot_eager_deploy: the program calls its compiled model inside
    `torch.inference_mode()` on a tensor made outside it. perf's clone of it, made inside,
    was an inference tensor, another kind of tensor to Dynamo's guards: `compdiag perf`
    recompiled where the program never does, and the program printed 40x for its 0.88x."""
    import torch

    from compdiag.capture.perf_timing import _clone_inputs

    outside = torch.randn(4)
    with torch.inference_mode():
        inside = torch.randn(4)
        (a, b) = _clone_inputs([outside, inside])
    assert not a.is_inference() and b.is_inference()
    (c,) = _clone_inputs([inside])  # outside the mode: still an inference tensor
    assert c.is_inference()


def test_try_measures_the_cpu_advice_for_time_outside_the_graphs(monkeypatch):
    """perf --try runs what outside_graphs advises on the CPU (the C++ wrapper), applied in
    the child from outside the script: chosen on a CPU run, and set in torch's config."""
    import torch._inductor.config as inductor_config

    import torch
    from compdiag.analyses.perf_try import choose
    from compdiag.capture.try_settings import ENV_TRY, apply_from_env

    lim = {"kind": "outside_graphs", "fix": "on the CPU, `torch._inductor.config.cpp_wrapper "
                                            "= True` runs each graph's wrapper in C++"}
    tries, skipped = choose([lim], "cpu", "default")
    assert [t["setting"] for t in tries] == ["cpp_wrapper"] and not skipped
    monkeypatch.setattr(inductor_config, "cpp_wrapper", False)
    monkeypatch.setenv(ENV_TRY, "cpp_wrapper")
    assert apply_from_env(torch) == ["cpp_wrapper"] and inductor_config.cpp_wrapper is True


SEEN: list = []


def test_a_module_whose_call_has_side_effects_is_not_timed_whole():
    """probes44i se_hooks_activation_store_ok: under `perf` an activation-storing forward
    hook ran 672 times where the program ran it 18 (the whole-call timing loop)."""
    import torch

    from compdiag.capture.perf_timing import _repeated_effect

    class Plain(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2)  # __init__ stores: never run by a call

        def forward(self, x):
            return self.lin(x)

    class Logs(Plain):
        def forward(self, x):
            SEEN.append(x.shape[0])
            return self.lin(x)

    x = torch.ones(1, 2)
    assert _repeated_effect(Plain(), (x,), {}) is None
    assert "changes Python state" in _repeated_effect(Logs(), (x,), {})
    hooked = Plain()
    hooked.lin.register_forward_hook(lambda m, i, o: SEEN.append(o))
    assert "forward hook" in _repeated_effect(hooked, (x,), {})


def test_launch_overhead_is_said_at_the_call_into_the_graph():
    """probes46e cartpole_policy_per_env_calls: one compiled call per environment, each too
    small; the limiter's fix was "batch more work per call" with no line. The call into the
    graph is where the work is batched."""
    from compdiag.analyses.diagnosis import UserFrame
    from compdiag.analyses.perf import limiters

    at = UserFrame("/p/rl.py", 70, "a = policy(obs[i])", "call")
    graphs = [{"compile_id": "0/0", "calls": 2400, "compiled": {"median": 22e-6},
               "eager": {"median": 20e-6}, "kernels": {"cpp": 5}, "fallbacks": [],
               "device": "cpu", "call_frame": at}]
    (lim,) = [x for x in limiters(graphs, [], []) if x["kind"] == "launch_overhead"]
    assert lim["user_frame"]["lineno"] == 70 and "batch more work" in lim["fix"]
