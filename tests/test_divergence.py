"""The `divergence` kind and the job plumbing on hand-built stores: each rank's records fed
through the Ingestor as capture feeds them (no derived row is written by hand), one run per
rank in one job. Fast: no torch compile, no process group."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compdiag.analyses.explain import explain_job
from compdiag.ingest.ingestor import Ingestor
from compdiag.ingest.sources import keep_sources
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer

GRAPH = ('        # File: {user}:{line} in step, code: dist.all_reduce(h)\n'
         '        {op}: "{meta}" = torch.ops._c10d_functional.{op}.default(relu, \'sum\', \'0\')\n'
         '        wait_tensor: "{meta}" = torch.ops._c10d_functional.wait_tensor.default({op})\n')


class Job:
    """A store with one run per rank of one job."""

    def __init__(self, tmp_path: Path, world: int = 2) -> None:
        self.path = tmp_path / "job.db"
        self.user = tmp_path / "train.py"
        self.user.write_text("".join(f"line_{i} = {i}\n" for i in range(1, 60)))
        self.w = Writer(self.path)
        self.ing: dict[int, Ingestor] = {}
        for rank in range(world):
            run_id = self.w.begin_run(source="run", argv=[str(self.user)], cwd=str(tmp_path))
            self.w.update_run(run_id, rank=rank, world_size=world, local_rank=rank, job="j1")
            self.ing[rank] = Ingestor(self.w, run_id)

    def compile(self, ranks, cid: str, *, co_name="step", lineno=3, seconds=1.0, **metrics):
        frame, rest = cid.split("/")
        for r in ranks:
            self.ing[r].record({"frame_id": int(frame), "frame_compile_id": int(rest),
                                "compilation_metrics": {
                                    "co_name": co_name, "co_filename": str(self.user),
                                    "co_firstlineno": lineno, "entire_frame_compile_time_s":
                                    seconds, **metrics}}, None)

    def artifact(self, ranks, cid: str, name: str, payload: str = "{}"):
        frame, rest = cid.split("/")
        for r in ranks:
            self.ing[r].record({"frame_id": int(frame), "frame_compile_id": int(rest),
                                "artifact": {"name": name, "encoding": "string"}}, payload)

    def collective(self, ranks, cid: str, op: str = "all_reduce_", meta="f32[8, 32][32, 1]cpu"):
        frame, rest = cid.split("/")
        text = GRAPH.format(user=self.user, line=7, op=op, meta=meta)
        for r in ranks:
            self.ing[r].record({"frame_id": int(frame), "frame_compile_id": int(rest),
                                "inductor_post_grad_graph": {}}, text)

    def issued(self, ranks, cid: str, lineno: int, op: str = "all_reduce"):
        """capture's record of the collectives of one compiled graph, with the user's line
        (capture/collectives.py reads it off the Dynamo graph)."""
        nodes = [{"node": "tensor", "target": f"_c10d_functional.{op}", "meta": "float32[8, 32]",
                  "filename": str(self.user), "lineno": lineno, "line": f"line_{lineno} = 1"}]
        for r in ranks:
            self.ing[r].event("collective_nodes", cid, {}, json.dumps(nodes))

    def divergences(self) -> list[dict]:
        for ing in self.ing.values():
            ing.flush()
            keep_sources(self.w, ing.run_id)  # as a rank's capture does when it ends
        self.w.close()
        with Reader(self.path) as r:
            return [{**d.to_json(), "ranks": list(ranks)} for d, ranks in explain_job(r, "j1")
                    if d.kind == "divergence"]


def _facets(divs: list[dict]) -> list[str]:
    return [d["details"]["facet"] for d in divs]


def test_identical_ranks_do_not_diverge(tmp_path):
    job = Job(tmp_path, world=4)
    job.compile(range(4), "0/0")
    job.collective(range(4), "0/0")
    job.artifact(range(4), "0/0", "fx_graph_cache_hit")
    assert job.divergences() == []


def test_a_collective_of_another_shape_on_one_rank_names_it(tmp_path):
    job = Job(tmp_path, world=4)
    job.compile(range(4), "0/0")
    job.collective([0, 1, 3], "0/0")
    job.collective([2], "0/0", meta="f32[16, 32][32, 1]cpu")
    (d,) = job.divergences()
    assert d["details"]["facet"] == "collective"
    assert d["details"]["ranks"] == [2] and d["details"]["agreeing_ranks"] == [0, 1, 3]
    assert "f32[16, 32]" in d["details"]["facts"]["2"]
    assert d["user_frame"]["lineno"] == 3  # the compiled function (the node's line is torch's)
    # the same collective with another shape: the fix is the shape (pad), not the path
    # (benchmarks/probes24 funcol_uneven_eval_gather got "no rank-dependent branches")
    assert d["fix"].startswith("Give the collective the same shape on every rank: pad")


def test_a_collective_divergence_points_at_the_line_that_issued_it(tmp_path):
    """Issue 31: with capture's record of the Dynamo graph, the divergence names the user's
    line of the collective, not the compiled function's def (the post-grad node's line is
    torch's own _functional_collectives.py)."""
    job = Job(tmp_path, world=2)
    job.compile(range(2), "0/0")
    job.collective([0], "0/0")
    job.collective([1], "0/0", meta="f32[16, 32][32, 1]cpu")
    job.issued(range(2), "0/0", lineno=12)
    (d,) = job.divergences()
    assert d["details"]["facet"] == "collective"
    assert d["user_frame"]["lineno"] == 12


def test_a_missing_collective_is_the_first_place_the_sequences_part(tmp_path):
    job = Job(tmp_path)
    job.compile([0, 1], "0/0")
    job.collective([0], "0/0", op="all_gather_into_tensor")
    job.compile([0], "1/0", co_name="g", lineno=20)
    job.collective([0], "1/0")
    div = job.divergences()
    coll = [d for d in div if d["details"]["facet"] == "collective"]
    assert len(coll) == 1 and coll[0]["details"]["ranks"] == [0]
    assert coll[0]["details"]["facts"]["1"] == "no collective there"
    assert "all_gather_into_tensor" in coll[0]["reason"]
    assert coll[0]["fix"].startswith("Make the compiled region take the same path")


def test_symbolic_sizes_compare_equal_across_ranks(tmp_path):
    job = Job(tmp_path)
    job.compile([0, 1], "0/0")
    job.collective([0], "0/0", meta="f32[s77, 32][32, 1]cpu")
    job.collective([1], "0/0", meta="f32[s52, 32][32, 1]cpu")
    assert job.divergences() == []


def test_a_guard_failing_on_one_rank_only(tmp_path):
    job = Job(tmp_path, world=3)
    job.compile(range(3), "0/0")
    job.compile([1], "0/1", recompile_reason=["0/0: tensor 'x' size mismatch at index 0. "
                                              "expected 8, actual 16"])
    div = job.divergences()
    # the function's compile count differs on rank 1 because of that guard: its consequence,
    # folded (before, a second divergence of its own)
    assert _facets(div) == ["guard"]
    guard = div[0]
    assert guard["details"]["ranks"] == [1] and guard["compile_id"] == "0/1"
    # in the words of the rank's own recompile diagnosis, the user's spelling (probes26:
    # torch's "tensor 'x' size mismatch at index 0. expected 8, actual 16")
    assert "size x.shape[0] changed (8 -> 16)" in guard["reason"]
    # rank 1's own recompile diagnosis is the same finding: folded under the divergence
    (under,) = guard["consequences"]
    assert under["kind"] == "recompile" and under["same_finding"]


def test_a_recompile_on_one_rank_is_not_also_a_cache_divergence(tmp_path):
    """set20's uneven_last_batch_size_one: rank 1 recompiled (0/1) on its last batch and
    looked that compile up in the caches, which rank 0, never compiling it, did not: "compile
    0/1 hit the compile caches differently: rank 0: no cache lookup" ranked as a second
    divergence. A compile only some ranks made is the guard's consequence, not the cache's."""
    job = Job(tmp_path, world=2)
    job.compile(range(2), "0/0")
    job.compile([1], "0/1", recompile_reason=["0/0: 2 <= L['x'].size()[0] <= 4096"])
    job.artifact([1], "0/1", "fx_graph_cache_miss")
    assert _facets(job.divergences()) == ["guard"]


def test_compile_counts_that_differ_without_a_guard_are_a_divergence(tmp_path):
    """The compiles facet where nothing else explains it (a second graph on one rank)."""
    job = Job(tmp_path, world=3)
    job.compile(range(3), "0/0")
    job.compile([1], "1/0", co_name="step")
    div = job.divergences()
    comp = next(d for d in div if d["details"]["facet"] == "compiles")
    assert comp["details"]["ranks"] == [1]
    assert comp["details"]["facts"] == {"0": "1 compiles, 1 graphs", "1": "2 compiles, 2 graphs",
                                        "2": "1 compiles, 1 graphs"}


def test_one_finding_on_every_rank_with_other_numbers_is_listed_once(tmp_path):
    """A rank's own diagnosis that every rank has, with other numbers in its words on each
    (the same size guard, a last batch of 5 rows on one rank and 6 on another; a break hit
    three times on one and four on another), is one diagnosis naming both ranks (before:
    one per rank, as their reasons differed). Found by a probe (DDP's own breaks, ×3 and
    ×4)."""
    job = Job(tmp_path)
    job.compile([0, 1], "0/0")
    job.compile([0], "0/1", recompile_reason=["0/0: tensor 'x' size mismatch at index 0. "
                                              "expected 8, actual 5"])
    job.compile([1], "0/1", recompile_reason=["0/0: tensor 'x' size mismatch at index 0. "
                                              "expected 8, actual 6"])
    for ing in job.ing.values():
        ing.flush()
        keep_sources(job.w, ing.run_id)
    job.w.close()
    with Reader(job.path) as r:
        found = [(d, ranks) for d, ranks in explain_job(r, "j1") if d.kind == "recompile"]
    assert [ranks for _, ranks in found] == [(0, 1)], [d.reason for d, _ in found]


def test_a_break_every_rank_hits_more_often_on_a_recompiling_rank_is_no_divergence(tmp_path):
    """Cause above consequence (issue 29 §2): a graph break every rank hits, hit once more on
    the rank that recompiled (its new graph is traced again through the same break), is not
    "a graph break on some ranks only" ranked above the guard that failed there; the guard
    is the divergence. Before this change the break's count was the compared value and the
    break ranked first. Found by a probe (DDP, one rank's short last batch)."""
    from test_explain import _gb_payload

    job = Job(tmp_path)
    job.compile([0, 1], "0/0")
    job.compile([1], "0/1", recompile_reason=["0/0: tensor 'x' size mismatch at index 0. "
                                              "expected 8, actual 5"])
    payload = _gb_payload(str(job.user), 9, "line_9 = 9", gb_type="Unsupported method call",
                          code_id="GB0156")
    job.artifact([0, 1], "0/0", "dynamo_graph_break_reason", payload)
    job.artifact([1], "0/1", "dynamo_graph_break_reason", payload)
    div = job.divergences()
    assert "graph_break" not in _facets(div), div
    assert _facets(div)[0] == "guard"


def test_cache_results_that_differ_and_compile_time_skew(tmp_path):
    job = Job(tmp_path, world=3)
    job.compile([0, 1], "0/0", seconds=2.0)
    job.compile([2], "0/0", seconds=40.0)
    job.artifact([0, 1], "0/0", "fx_graph_cache_hit")
    job.artifact([2], "0/0", "fx_graph_cache_miss")
    div = job.divergences()
    assert _facets(div) == ["compile_time", "cache"]  # ranked: the stall first
    skew, cache = div
    assert skew["details"]["ranks"] == [2] and "20.0× the median" in skew["reason"]
    assert cache["details"]["ranks"] == [2]
    assert cache["details"]["facts"] == {"0": "fx_graph hit", "1": "fx_graph hit",
                                         "2": "fx_graph miss"}
    assert all("compdiag diff" in d["fix"] for d in div)


def _trace(rank: int, records: list[dict]) -> str:
    lines = []
    for md in records:
        lines.append(f"V1201 14:48:31.419000 3270{rank} torch/_dynamo/utils.py:1] "
                     + json.dumps({**md, "rank": rank}))
    return "\n".join(lines) + "\n"


def test_import_of_per_rank_logs_makes_one_job(tmp_path):
    d = tmp_path / "trace"
    d.mkdir()
    for rank, seconds in ((0, 1.0), (1, 30.0)):
        metrics = {"co_name": "step", "co_filename": "/u/train.py", "co_firstlineno": 3,
                   "entire_frame_compile_time_s": seconds}
        (d / f"dedicated_log_torch_trace_rank_{rank}_x1y2.log").write_text(_trace(rank, [
            {"frame_id": 0, "frame_compile_id": 0, "compilation_metrics": metrics}]))
    store = tmp_path / "s.db"
    cli = [sys.executable, "-m", "compdiag"]
    p = subprocess.run([*cli, "import", "--store", str(store), str(d)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    runs = json.loads(subprocess.run([*cli, "runs", "--store", str(store), "--json"],
                                     capture_output=True, text=True, timeout=120).stdout)["runs"]
    assert [(r["rank"], r["world_size"]) for r in runs] == [(0, 2), (1, 2)]
    assert len({r["job"] for r in runs}) == 1 and runs[0]["job"]
    p = subprocess.run([*cli, "explain", "--store", str(store), "--job", "--json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    (div,) = [x for x in json.loads(p.stdout)["diagnoses"] if x["kind"] == "divergence"]
    assert div["details"]["facet"] == "compile_time" and div["ranks"] == [1]
    text = subprocess.run([*cli, "runs", "--store", str(store)], capture_output=True, text=True,
                          timeout=120, env={"COLUMNS": "200", "PATH": ""}).stdout
    assert f"job {runs[0]['job']}: ranks 0,1" in text


@pytest.mark.parametrize("args, msg", [
    (["explain", "--job"], "holds no multi-rank job"),
    (["show", "--job", "nope"], "no job 'nope'"),
])
def test_job_errors_are_one_line(tmp_path, args, msg):
    store = tmp_path / "s.db"
    w = Writer(store)
    w.begin_run(source="run", argv=["x.py"])
    w.close()
    p = subprocess.run([sys.executable, "-m", "compdiag", *args, "--store", str(store)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and msg in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_tui_job_view_has_a_column_per_rank_and_highlights_the_divergence(tmp_path):
    import asyncio

    from compdiag_tui import CompdiagApp
    from compdiag_tui.screens import JobScreen, RunsScreen
    from compdiag_tui.widgets import JobTable

    job = Job(tmp_path, world=3)
    job.compile(range(3), "0/0")
    job.collective([0, 2], "0/0")
    job.collective([1], "0/0", meta="f32[4, 32][32, 1]cpu")
    job.divergences()

    async def drive() -> None:
        app = CompdiagApp(job.path, open_latest=False)
        async with app.run_test(size=(140, 30)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, RunsScreen)
            await pilot.press("j")
            for _ in range(100):
                await pilot.pause(0.05)
                table = app.screen.query(JobTable)
                if table and table.first().row_count > 8:
                    break
            assert isinstance(app.screen, JobScreen)
            table = app.screen.query_one(JobTable)
            assert [c.label.plain for c in table.columns.values()][1:] == [
                "rank 0 · run 1", "rank 1 · run 2", "rank 2 · run 3"]
            row = table.get_row("div0")
            assert row[0].plain == "≠ collective"
            assert [cell.style for cell in row[1:]] == ["", "bold black on yellow", ""]
            assert "f32[4, 32]" in row[2].plain
            table.move_cursor(row=table.get_row_index("div0"))
            await pilot.press("enter")
            await pilot.pause()
            assert type(app.screen).__name__ == "SourceScreen"

    asyncio.run(drive())


def test_ranks_writing_one_store_at_once_lose_nothing(tmp_path):
    """A directory's rank logs are imported by parallel processes into one store, as live
    ranks write it: every record of every rank arrives."""
    from compdiag.importer.trace_log import import_trace

    d = tmp_path / "trace"
    d.mkdir()
    per_rank = 1500
    for rank in range(4):
        records = [{"frame_id": i // 3, "frame_compile_id": 0, "artifact": {
            "name": "fx_graph_cache_miss", "encoding": "json"}} for i in range(per_rank)]
        (d / f"dedicated_log_torch_trace_rank_{rank}_ab.log").write_text(_trace(rank, records))
    store = tmp_path / "s.db"
    results = import_trace(store, d, workers=4)
    assert [r.records for r in results] == [per_rank] * 4
    with Reader(store) as r:
        runs = r.job_runs(r.resolve_job(None))
        assert [run["rank"] for run in runs] == [0, 1, 2, 3]
        assert [r.counts(run["id"])["records"] for run in runs] == [per_rank] * 4
        assert [len(r.compiles(run["id"])) for run in runs] == [per_rank // 3] * 4


def test_the_merge_key_drops_counts_and_keeps_names():
    """What one finding's words may differ by across ranks (a repeat mark a count of one
    lacks, a count, a measured number), and what they may not (a dtype, a layer, an output)."""
    from compdiag.analyses.explain import _COUNT, _counted

    def key(text: str) -> str:
        return _COUNT.sub(_counted, text)

    assert key("4 graph breaks in DDP (_pre_forward: call ×2; skipped ×2)") == \
        key("3 graph breaks in DDP (_pre_forward: call; skipped ×2)")
    assert key("batch of 5 rows, max rel 0.002") == key("batch of 6 rows, max rel 150.0")
    for a, b in (("float16", "float32"), ("conv1", "conv2"), ("output 0", "output 1"),
                 ("args[0]", "args[1]")):
        assert key(a) != key(b)


def test_a_guard_of_some_ranks_heads_the_counts_its_recompiles_repeat():
    """probes24 fsdp2_task_scale_recompile: rank 1 recompiled an FSDP block on a Python float
    (aux_weight == 0.5) that rank 0 kept constant. Each recompile lists one failed guard per
    cache entry, so rank 1's recompiles listed the requires_grad entry again (×3 against rank
    0's ×1), and the guard facet, reading only the first reason of each recompile, reported
    that count as the divergence and never named aux_weight. Every stored reason is read
    (Reader.recompile_guards), and a guard failing on every rank a different number of times
    gives way to a guard of the same function failing on some ranks only."""
    from compdiag.analyses.diagnoses.divergence import Fact, _guards_of_some_ranks_first

    fwd = ("train.py", "forward", 23)
    grad, aux, other = (fwd, "L['x']"), (fwd, "aux_weight"), (("train.py", "g", 40), "L['y']")
    facts = {0: {grad: Fact(1, "×1"), other: Fact(1, "×1")},
             1: {grad: Fact(3, "×3"), aux: Fact(2, "×2"), other: Fact(2, "×2")}}
    kept = _guards_of_some_ranks_first(facts, [grad, aux, other])
    assert kept == [aux, other]  # another function's count difference is a finding of its own


def test_a_timeout_after_a_guard_of_one_rank_is_that_guards_consequence(tmp_path):
    """set21's fsdp2_rank0_eval_timeout: rank 0 alone ran an extra forward under no_grad
    (its compiled block recompiled on grad_mode), its collectives then paired with the wrong
    calls of rank 1, and both ranks ended in gloo's timeout. The compiled graphs hold no
    collective (FSDP2's all-gathers run in eager), so no collective facet differs: before, each
    rank's timeout ranked as a crash above the guard divergence, and on a two-rank tie the
    compile count named rank 1 as the odd one. Now the guard divergence takes both ends as its
    consequence and ranks first; the compile count it explains is folded."""
    job = Job(tmp_path, world=2)
    job.compile(range(2), "0/0")
    job.compile([0], "0/1", recompile_reason=["0/0: GLOBAL_STATE changed: grad_mode "])
    for rank, op in ((0, "send"), (1, "recv")):
        job.ing[rank].program_exception(None, exc_type="RuntimeError", message=(
            f"[gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for {op} "
            "operation to complete"), frames=[{"filename": str(job.user), "lineno": 50,
                                              "line": "line_50 = 50"}], compiled=None)
    div = job.divergences()
    assert _facets(div) == ["guard"]
    (top,) = div
    assert top["details"]["ranks"] == [0]
    assert set(top["details"]["consequence"]) == {"0", "1"}
    assert "then rank 0: RuntimeError" in top["reason"] and "Timed out" in top["reason"]
    path = job.path
    with Reader(path) as r:
        ranked = explain_job(r, "j1")
    assert ranked[0][0].kind == "divergence"
    # neither rank's timeout stands as a diagnosis of its own
    assert not [d for d, _ in ranked[1:] if "Timed out" in d.reason]


def test_a_ranks_closed_connection_after_another_ranks_crash_folds_under_the_crash(tmp_path):
    """probes26's rank_label_out_of_range: rank 1 crashed on its own error and rank 0, waiting
    in an all_reduce, ended in gloo's "Connection closed by peer ... typically caused by a
    remote worker crashing", shown before as an error of its own. The crash is the cause, the
    other rank's end its consequence; a rank the launcher stopped (SIGTERM) is no cause."""
    job = Job(tmp_path, world=2)
    job.compile(range(2), "0/0")
    frames = [{"filename": str(job.user), "lineno": 30, "line": "line_30 = 30"}]
    job.ing[1].program_exception(None, exc_type="ValueError", message="label 12 is not below 10",
                                 frames=frames, compiled=None)
    job.ing[0].program_exception(None, exc_type="RuntimeError", message=(
        "[gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:9651. This "
        "is typically caused by a remote worker crashing."), frames=frames, compiled=None)
    for ing in job.ing.values():
        job.w.end_run(ing.run_id, exit_code=1, status="done")
    job.divergences()
    with Reader(job.path) as r:
        ranked = explain_job(r, "j1")
    top, ranks = ranked[0]
    assert "label 12" in top.reason and ranks == (1,)
    (under,) = [c for c in top.consequences if "Connection closed" in c.diagnosis.reason]
    assert "crashed rank" in under.why
    assert not [d for d, _ in ranked[1:] if "Connection closed" in d.reason]


def test_report_job_bundles_every_rank_and_imports_back_as_the_job(tmp_path, monkeypatch):
    """probes26: no `report --job`, so a multi-rank issue got one rank's archive. Now one
    archive holds the job's diagnoses with their ranks and each rank's records as a
    TORCH_TRACE log, which `compdiag import` reads back as the same job with the same top
    diagnosis; report.md names the rank's own `compdiag report` for a repro."""
    import zipfile

    from compdiag import cli as compdiag_cli

    job = Job(tmp_path, world=2)
    job.compile(range(2), "0/0")
    job.compile([1], "0/1", recompile_reason=["0/0: tensor 'x' size mismatch at index 0. "
                                              "expected 8, actual 16"])
    before = job.divergences()
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "job report.zip"
    assert compdiag_cli.main(["report", "--store", str(job.path), "--job", "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        md = z.read("job report/report.md").decode()
        logs = tmp_path / "unzipped"
        z.extractall(logs)
    assert sorted(n.split("/", 1)[1] for n in names if "/ranks/" in n) == [
        "ranks/dedicated_log_torch_trace_rank_0_run1.log",
        "ranks/dedicated_log_torch_trace_rank_1_run2.log"]
    assert "job j1 (2 ranks)" in md and "ranks: 1" in md
    assert f"`compdiag report --store {job.path} 2`" in md
    again = tmp_path / "again.db"
    assert compdiag_cli.main(["import", "--store", str(again),
                              str(logs / "job report" / "ranks")]) == 0
    with Reader(again) as r:
        (imported,) = {run["job"] for run in r.runs() if run.get("job")}
        top = [d for d, _ in explain_job(r, imported) if d.kind == "divergence"]
    assert top and top[0].reason == before[0]["reason"]
    # one rank's repro is `report RUN`'s: --job takes no --repro
    assert compdiag_cli.main(["report", "--store", str(job.path), "--job", "--repro",
                              str(out)]) == 2


def test_a_rank_the_launcher_stopped_after_another_failed_says_so(tmp_path):
    """probes29d rank0_logit_histogram: rank 0 failed (exit 1) and torchrun stopped rank 1
    with SIGTERM (exit 143, no end recorded in the process): rank 1's diagnosis said "exited
    with status 143; nothing recorded says how" and "native code called exit()"."""
    from compdiag.analyses.explain import explain

    job = Job(tmp_path)
    job.compile([0, 1], "0/0")
    for ing in job.ing.values():
        ing.flush()
        keep_sources(job.w, ing.run_id)
    job.w.end_run(job.ing[0].run_id, exit_code=1, status="done")
    job.w.end_run(job.ing[1].run_id, exit_code=143, status="killed")
    job.w.close()
    with Reader(job.path) as r:
        (d,) = [d for d in explain(r, job.ing[1].run_id) if d.kind == "program"]
    assert d.reason == "killed by SIGTERM after rank 0 ended with status 1", d.reason
    assert f"explain --store {job.path} {job.ing[0].run_id}" in d.fix


def test_uneven_all_to_all_splits_are_no_divergence(tmp_path):
    """probes41e moe_a2a_split_sizes_tolist, blind: an MoE's all_to_all_single with per-rank
    split sizes gave rank 0 f32[22, 16] and rank 1 f32[26, 16], by design; it was the top
    "ranks diverged" with a fix to pad. Its dtype still counts."""
    job = Job(tmp_path, world=2)
    job.compile(range(2), "0/0")
    job.collective([0], "0/0", op="all_to_all_single", meta="f32[22, 16][16, 1]cpu")
    job.collective([1], "0/0", op="all_to_all_single", meta="f32[26, 16][16, 1]cpu")
    assert job.divergences() == []


def test_a_guard_divergence_whose_recompile_failed_folds_under_the_failure(tmp_path):
    """probes41e ddp_padded_shard_mask_fullgraph, blind: a guard on `keep` failed on rank 1
    only, and that recompile failed (fullgraph=True, data-dependent branching); "ranks
    diverged" ranked first with a fix that made both ranks fail alike."""
    job = Job(tmp_path, world=2)
    job.compile(range(2), "0/0")
    job.compile([1], "0/1", recompile_reason=["0/0: L['keep'] is None"])
    job.ing[1].failure("0/1", stage="dynamo", exc_type="Unsupported",
                       message="Data-dependent branching", filename=str(job.user), lineno=27,
                       line="line_27 = 27", traceback="")
    for r, ing in job.ing.items():
        job.w.end_run(ing.run_id, exit_code=r, status="done")
    job.divergences()
    with Reader(job.path) as r:
        ranked = explain_job(r, "j1")
    top, ranks = ranked[0]
    assert top.kind == "failure" and ranks == (1,), [(d.kind, d.reason) for d, _ in ranked]
    assert "divergence" in [c.diagnosis.kind for c in top.consequences]
    assert not [d for d, _ in ranked if d.kind == "divergence"]
