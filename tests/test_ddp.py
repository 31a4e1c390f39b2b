"""DDP under torch.compile (issue 31): DDPOptimizer's split, a failure inside it, DDP's own
forward under torch.compile.

The stores are built from real records: tests/fixtures/ddp/*.jsonl are the records (torch's
and capture's own) of `compdiag run` on the corpus scripts of the same names (torch 2.13,
world size 1 on gloo, the script folder's path written {CORPUS}), replayed through the
Ingestor as capture feeds them. No compile here: the corpus test runs the scripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compdiag.analyses.explain import explain, explain_folded
from compdiag.ingest import ddp as D
from compdiag.ingest.ingestor import Ingestor
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ddp"


def replay(tmp_path: Path, name: str, *, exit_code: int = 0, folder: Path = CORPUS
           ) -> tuple[Reader, int]:
    """A store holding one run of FOLDER/NAME.py, from its recorded records."""
    path = tmp_path / f"{name}.db"
    w = Writer(path)
    script = folder / f"{name}.py"
    run_id = w.begin_run(source="run", argv=[str(script)], cwd=str(folder))
    ing = Ingestor(w, run_id)
    feed(ing, f"{name}.jsonl", folder)
    w.end_run(run_id, exit_code=exit_code, status="done")
    w.close()
    return Reader(path), run_id


def feed(ing: Ingestor, fixture: str, folder: Path) -> None:
    """A fixture's recorded records through the Ingestor, as capture fed them."""
    for line in (FIXTURES / fixture).read_text().splitlines():
        rec = json.loads(line.replace("{CORPUS}", str(folder)))
        if rec["kind"].startswith("compdiag:"):
            ing.event(rec["kind"].split(":", 1)[1], rec["compile_id"], {}, rec["payload"])
        else:
            ing.record(rec["metadata"], rec["payload"])
    ing.flush()


def replay_job(tmp_path: Path, name: str, script: Path, cwd: Path, folder: Path,
               exit_codes: tuple[int, int]) -> Path:
    """A store holding a 2-rank job (job id j1) of SCRIPT from NAME.rank{0,1}.jsonl."""
    path = tmp_path / "job.db"
    w = Writer(path)
    for rank in (0, 1):
        run_id = w.begin_run(source="run", argv=[str(script)], cwd=str(cwd))
        w.update_run(run_id, rank=rank, world_size=2, local_rank=rank, job="j1")
        feed(Ingestor(w, run_id), f"{name}.rank{rank}.jsonl", folder)
        w.end_run(run_id, exit_code=exit_codes[rank], status="done")
    w.close()
    return path


def marked_line(name: str) -> int:
    lines = (CORPUS / f"{name}.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# <- diagnosis" in line)


def test_split_child_is_read_from_torchs_graph_text() -> None:
    """A piece's parameters (Dynamo's `_parameters_` placeholders, their bytes from the fake
    tensor annotations), its ops and the user lines of its first op and of the op at the cut."""
    payload = (
        "class GraphModule(torch.nn.Module):\n"
        '    def forward(self, x: "f32[8, 512]", l_self_modules_b_parameters_weight_: '
        '"f32[512, 512]", l_self_modules_b_parameters_bias_: "f32[512]"):\n'
        "        # File: /u/train.py:15 in forward, code: x = torch.relu(self.b(x))\n"
        '        linear: "f32[8, 512]" = torch._C._nn.linear(x, l_self_modules_b_parameters'
        "_weight_, l_self_modules_b_parameters_bias_);  x = None\n"
        '        relu: "f32[8, 512]" = torch.relu(linear);  linear = None\n'
        "        return relu\n")
    row = D.split_child(payload, "submod_1", 0)
    assert row["idx"] == 1 and row["ops"] == 2 and row["last_op"] == "torch.relu"
    assert row["param_names"] == ["l_self_modules_b_parameters_weight_",
                                  "l_self_modules_b_parameters_bias_"]
    assert row["param_bytes"] == (512 * 512 + 512) * 4
    assert (row["last_filename"], row["last_lineno"]) == ("/u/train.py", 15)
    assert D.tensor_bytes("bf16", "s0, 4") is None and D.tensor_bytes("bf16", "2, 4") == 16
    assert D.split_child("no graph here", "submod_0", 0) is None


def test_split_is_one_ddp_diagnosis_at_the_ddp_line(tmp_path: Path) -> None:
    """DDPOptimizer's split of the compiled forward: one `ddp` diagnosis at the DDP(...) line,
    with the buckets, the cuts' user lines, the graphs and kernels, torch's knobs."""
    r, run = replay(tmp_path, "ddp_split_buckets")
    wraps = r.ddp_wraps(run)
    assert wraps and wraps[0]["module"] == "ToyModel" and wraps[0]["compiled"]
    assert wraps[0]["bucket_cap_mb"] == 1.0
    top = explain(r, run)[0]
    assert top.kind == "ddp" and top.details.facet == "split"
    assert top.user_frame.lineno == marked_line("ddp_split_buckets")
    assert "DDP(" in top.user_frame.line
    assert top.details.graphs == 3 and len(top.details.bucket_bytes) == 3
    assert [s["cut"]["lineno"] for s in top.details.subgraphs] == [25, 26, 27]
    assert "cuts after ddp_split_buckets.py:25, ddp_split_buckets.py:26" in top.reason
    assert "bucket_cap_mb" in top.fix and "python_reducer" in top.fix


def test_compiling_the_ddp_module_names_ddps_own_breaks(tmp_path: Path) -> None:
    """torch.compile(DDP(model)): DDP's own forward graph-breaks; the breaks are one `ddp`
    diagnosis at the torch.compile(ddp) line naming the call into DDP and the DDP line, and
    their graph_break diagnoses fold into it (they said "graph break in torch/nn/parallel"
    only)."""
    r, run = replay(tmp_path, "ddp_compile_wrapper")
    kept, dropped, _ = explain_folded(r, run)
    top = kept[0]
    assert top.kind == "ddp" and top.details.facet == "wrapper"
    assert top.user_frame.lineno == marked_line("ddp_compile_wrapper")
    assert "called at ddp_compile_wrapper.py:34, DDP built at ddp_compile_wrapper.py:30" \
        in top.reason
    assert top.details.compiled_at["lineno"] == 31 and top.details.wrapped_at["lineno"] == 30
    assert top.details.model_compiles, top.reason
    assert "before `DDP(model, ...)`" in top.fix
    assert not [d for d in kept if d.kind == "graph_break"]
    assert {d.kind for d, _ in dropped} == {"graph_break"}


def test_nothing_of_the_model_compiled_is_said(tmp_path: Path) -> None:
    """torch.compile(DDP(nn.Sequential)): no frame of the model compiled at all."""
    r, run = replay(tmp_path, "ddp_compile_sequential")
    top = explain(r, run)[0]
    assert top.kind == "ddp" and top.details.facet == "wrapper"
    assert "nothing of the model was compiled" in top.reason
    assert not top.details.model_compiles
    assert top.user_frame.lineno == marked_line("ddp_compile_sequential")


def test_failure_inside_the_split_points_at_the_cut(tmp_path: Path) -> None:
    """A backend failure while compiling one piece: the piece, the op at its cut, and
    optimize_ddp=False as the bisecting step; the failure diagnosis folds into it."""
    r, run = replay(tmp_path, "ddp_split_failure", exit_code=1)
    kept, dropped, _ = explain_folded(r, run)
    top = kept[0]
    assert top.kind == "ddp" and top.details.facet == "split_failure"
    assert "piece 2 of 3" in top.reason
    assert top.user_frame.lineno == marked_line("ddp_split_failure")
    assert "optimize_ddp = False" in top.fix
    assert top.torch_message
    assert "failure" in {d.kind for d, _ in dropped}


@pytest.mark.parametrize("name", ["ddp_split_buckets"])
def test_ddp_facts_are_reindexed(tmp_path: Path, name: str) -> None:
    """The ddp tables derive from records alone: `compdiag reindex` rebuilds them."""
    from compdiag.ingest.reindex import reindex

    r, run = replay(tmp_path, name)
    before = (r.ddp_wraps(run), r.ddp_buckets(run), r.ddp_splits(run))
    r.close()
    reindex(tmp_path / f"{name}.db")
    with Reader(tmp_path / f"{name}.db") as again:
        after = (again.ddp_wraps(run), again.ddp_buckets(run), again.ddp_splits(run))
    assert all(before) and before == after


def test_compiled_collectives_are_listed_per_graph_at_the_users_line(tmp_path: Path) -> None:
    """A functional all_reduce inside a compiled region: `show --json` lists it under
    `collectives` with its graph and the user's line that issued it (the post-grad graph
    names only torch's own _functional_collectives.py line; capture reads the Dynamo graph's
    stack traces)."""
    from compdiag.views.show import show_document

    scripts = Path(__file__).resolve().parent / "scripts"
    r, run = replay(tmp_path, "funcol_step", folder=scripts)
    doc = show_document(r, run)
    (c,) = doc["collectives"]
    assert c["target"] == "_c10d_functional.all_reduce" and c["compile_id"] == "0/0"
    assert c["meta"] == "float32[8, 16]"
    lines = (scripts / "funcol_step.py").read_text().splitlines()
    assert c["user_frame"]["lineno"] == next(
        i for i, line in enumerate(lines, 1) if "# <- collective" in line)
    assert "funcol.all_reduce" in c["user_frame"]["line"]
    post_grad = [n for n in r.graph_nodes(run, "0/0") if n["op"] == "all_reduce"]
    assert all("_functional_collectives.py" in n["filename"] for n in post_grad)


def test_collective_mismatch_ending_in_a_timeout_is_one_diagnosis(tmp_path: Path) -> None:
    """Two gloo ranks under torchrun: rank 0's compiled step all-reduces, rank 1's does not,
    and rank 0 ends in gloo's timeout. One diagnosis: the divergence as the cause, at the line
    that issued the collective, the timeout as its consequence, each rank's sequence side by
    side and the first position where they part; rank 0's own crash diagnosis folds into it
    (before, it outranked the divergence as a separate crash)."""
    from compdiag.analyses.explain import explain_job

    scripts = Path(__file__).resolve().parent / "scripts"
    script = scripts / "ranks_collective_timeout.py"
    path = replay_job(tmp_path, "ranks_collective_timeout", script, scripts, scripts, (1, 143))
    with Reader(path) as r:
        found = explain_job(r, "j1")
    top, ranks = found[0]
    assert top.kind == "divergence" and top.details.facet == "collective" and ranks == (0,)
    assert "Timed out waiting" in top.reason and "then rank 0" in top.reason
    assert top.details.position == 1
    assert top.details.sequences == {"0": ["all_reduce_ f32[8, 32][32, 1]cpu"], "1": []}
    assert list(top.details.consequence) == ["0"]
    lines = script.read_text().splitlines()
    assert top.user_frame.lineno == next(
        i for i, line in enumerate(lines, 1) if "<- only rank 0 issues it" in line)
    assert not [d for d, _ in found[1:] if d.kind in ("failure", "program")
                and "Timed out" in (d.reason + (d.torch_message or ""))]


def test_explain_job_prints_each_ranks_collectives_side_by_side() -> None:
    """The terminal view of a collective divergence: a column per rank, the first differing
    position in bold, '-' where a rank's sequence has ended."""
    from rich.console import Console

    from compdiag.views.job import collective_table

    console = Console(record=True, width=100, color_system=None)
    console.print(collective_table({"0": ["all_reduce_ f32[8]", "all_gather f32[4]"],
                                    "1": ["all_reduce_ f32[8]"]}, 2))
    text = console.export_text()
    assert "rank 0" in text and "rank 1" in text
    row = next(line for line in text.splitlines() if "all_gather" in line)
    assert row.split("│")[1].strip() == "2" and row.split("│")[3].strip() == "-"


def test_a_job_header_calls_ranks_alike_only_where_every_row_is() -> None:
    """probes29d rank0_logit_histogram: rank 0's compile failed and rank 1 never traced that
    branch, and `explain --job` still opened with "the 2 ranks compiled alike — same compiles,
    graph breaks, guards" above a table whose failures row differed. The header now names the
    rows that differ (compile time aside) and says alike only where none does."""
    from rich.console import Console

    from compdiag.views.job import alike_line, print_explain_job

    def rank(n: int, failures: int, status: str = "ok") -> dict:
        counts = {"compiles": 2, "graph_breaks": 1, "recompiles": 0, "failures": failures,
                  "kernels": 3}
        return {"rank": n, "run": n + 1, "status": status, "exit_code": 0 if status == "ok" else 1,
                "counts": counts, "compile_s": 1.0 + n}

    same = {"id": "j1", "ranks": [rank(0, 0), rank(1, 0)]}
    assert "compiled alike" in alike_line(same)
    failed = {"id": "j1", "ranks": [rank(0, 1, "failed"), rank(1, 0)]}
    line = alike_line(failed)
    assert "alike" not in line and "status, exit, failures" in line, line
    console = Console(record=True, width=120, color_system=None)
    print_explain_job({"job": failed, "diagnoses": []}, console)
    text = console.export_text()
    assert "compiled alike" not in text and "differ in status, exit, failures" in text
    # probes43d pipeline_stage_send_recv_break: one break each, at other lines (rank 0's
    # dist.send, rank 1's dist.recv), was "compiled alike — same ... graph breaks"
    apart = {"id": "j1", "ranks": [{**rank(0, 0), "break_lines": ["line 30"]},
                                   {**rank(1, 0), "break_lines": ["line 33"]}]}
    line = alike_line(apart)
    assert "alike" not in line and "graph breaks at" in line, line
    # probes45d ddp_fullgraph_truncate_warn_rank1: rank 0 killed (SIGTERM) after rank 1
    # failed, and the header said "no divergence found" as if their compiles were compared
    cut = {"id": "j1", "ranks": [rank(0, 0, "killed"), rank(1, 1, "done")]}
    line = alike_line(cut)
    assert line.startswith("rank 0 killed while the job ran") and "unknown" in line, line


def test_compiled_autograd_graphs_are_compiles_of_their_own_with_why(tmp_path: Path) -> None:
    """Compiled autograd: each graph it made is listed in `show` with Dynamo's compiles of it
    (`!N/...`) and why it was made, read off what differs from the graph before (torch names
    the reason only in its C++ verbose log)."""
    from compdiag.views.show import show_document

    scripts = Path(__file__).resolve().parent / "scripts"
    r, run = replay(tmp_path, "compiled_autograd_steps", folder=scripts)
    ca = show_document(r, run)["compiled_autograd"]
    assert [g["ca_id"] for g in ca] == [0, 1, 2]
    assert all(g["compile_ids"] and g["compile_ids"][0].startswith(f"!{g['ca_id']}/")
               for g in ca)
    assert ca[0]["reason"] == "the first backward compiled autograd saw"
    assert "changed tensor shapes (1 size now dynamic)" in ca[2]["reason"]
    assert "different autograd nodes" in ca[2]["reason"]


def test_breaks_at_fsdp2_hooks_are_named_as_fsdps(tmp_path: Path) -> None:
    """Compiling the model that holds fully_shard'ed blocks: the breaks at FSDP's hooks are one
    `ddp` diagnosis at the line that calls the blocks, with the per-block compile as the fix;
    the graph_break diagnoses ("marked as skipped ... disable") fold into it."""
    r, run = replay(tmp_path, "fsdp_hooks_break")
    kept, dropped, _ = explain_folded(r, run)
    top = kept[0]
    assert top.kind == "ddp" and top.details.facet == "fsdp_hooks"
    assert top.user_frame.lineno == marked_line("fsdp_hooks_break")
    assert top.count == 2 and "block.compile()" in top.fix
    assert not [d for d in kept if d.kind == "graph_break"]
    assert {d.kind for d, _ in dropped} == {"graph_break"}


def test_fsdp2_per_block_compile_at_two_ranks_recompiles_once_on_requires_grad(
        tmp_path: Path) -> None:
    """FSDP2 at 2 gloo ranks under torchrun, each block compiled on its own
    (corpus/ranks/fsdp2_block_compile.py, the records of its real run): the blocks share one
    `forward`, so the second block's activation (requires grad) fails the first block's guard
    (the batch does not). One recompile diagnosis for both ranks, at the step's call, whose fix
    says a compiled block stack's one extra graph is expected; the ranks compiled alike."""
    from compdiag.analyses.explain import explain_job

    folder = CORPUS / "ranks"
    path = replay_job(tmp_path, "fsdp2_block_compile", folder / "fsdp2_block_compile.py", ROOT,
                      folder, (0, 0))
    with Reader(path) as r:
        found = explain_job(r, "j1")
    top, ranks = found[0]
    assert top.kind == "recompile" and ranks == (0, 1), (top.reason, ranks)
    assert "requires_grad of x changed" in top.reason
    assert "block.compile()" in top.fix and "expected" in top.fix
    lines = (folder / "fsdp2_block_compile.py").read_text().splitlines()
    assert top.user_frame.lineno == next(
        i for i, line in enumerate(lines, 1) if "# <- diagnosis" in line)
    assert not [d for d, _ in found if d.kind == "divergence"]


def _traced_torch_compile_breaks_nothing(torch) -> None:
    """A function Dynamo traces that calls torch.compile (transformers' models do): a no-op
    to Dynamo while torch.compile is torch's own, so no graph break."""

    def inner(x):
        return x.sin()

    def outer(x):
        return torch.compile(inner, dynamic=False)(x) + 1

    torch._dynamo.reset()
    seen = torch._dynamo.explain(outer)(torch.randn(3))
    assert seen.graph_break_count == 0, seen.break_reasons


def test_capture_leaves_torch_compile_itself_alone() -> None:
    """set18b gemma_flex_cpu_training, first run: transformers calls torch.compile on
    flex_attention inside a model's forward, which Dynamo traces as a no-op; capture's wrapper
    of torch.compile (to see `torch.compile(ddp)`) was traced instead and broke the graph in
    compdiag/capture/ddp.py ("Failed to convert args/kwargs to proxy"), a break plain python
    does not have. Capture now hears a compiled DDP where torch.compile builds its module and
    leaves torch.compile as it is."""
    from types import SimpleNamespace

    import torch
    from torch._dynamo.eval_frame import OptimizedModule

    from compdiag.capture import ddp

    from compdiag.capture import compiled_modules

    before, init = torch.compile, OptimizedModule.__init__
    listening = len(compiled_modules._listeners)
    events: list = []
    fake = SimpleNamespace(guarded=lambda name, fn, *a: fn(*a),
                           ing=SimpleNamespace(event=lambda *a, **k: events.append(a)))
    try:
        ddp.install(fake)
        assert torch.compile is before
        assert OptimizedModule.__init__ is not init  # the compiled-module hook is in place
        # set18 ca_retain_grad_skipped: compiled autograd builds an OptimizedModule in code
        # Dynamo traces; the wrapper's file is one Dynamo skips, as torch's own, so the
        # break lands at the caller and never in compdiag's file
        from torch._dynamo import trace_rules

        assert trace_rules.SKIP_DIRS_RE.match(compiled_modules.__file__.replace("\\", "/"))
        assert not trace_rules.SKIP_DIRS_RE.match(ddp.__file__.replace("\\", "/"))

        _traced_torch_compile_breaks_nothing(torch)
        torch.compile(torch.nn.Linear(2, 2))  # not a DDP module: nothing heard
        assert events == []
    finally:
        torch.compile, OptimizedModule.__init__ = before, init
        del compiled_modules._listeners[listening:]


def test_a_backend_abort_and_the_launchers_teardown_are_a_collective_divergences_ends() -> None:
    """probes24 funcol_uneven_eval_gather: the ranks' compiled all_gather had other shapes;
    rank 1 died by SIGABRT in gloo ("terminate called after throwing an instance of
    'gloo::EnforceNotMet' ... Is there a distributed collective mismatch"), and torchrun then
    stopped rank 0 by SIGTERM. The divergence (the cause) ranked third under both ends: only
    an exception's timeout words were read. A native abort naming the backend, and the stop
    signal that then ended the other ranks, are the divergence's consequences."""
    from types import SimpleNamespace

    from compdiag.analyses.diagnoses.divergence import hang_line, teardown_line

    def rank(*ends: dict) -> SimpleNamespace:
        return SimpleNamespace(program_exceptions=[], failures=[], run_id=1,
                               r=SimpleNamespace(program_ends=lambda run_id: list(ends)))

    aborted = rank({"how": "signal", "signal": 6, "native_message":
                    "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
                    "  what():  [enforce fail at pair.cc:456] 60 vs 54."})
    stopped = rank({"how": "signal", "signal": 15, "native_message": None})
    crashed = rank({"how": "signal", "signal": 11, "native_message": "Fatal Python error"})
    assert hang_line(aborted) == ("terminate called after throwing an instance of "
                                  "'gloo::EnforceNotMet'")
    assert hang_line(stopped) is None and teardown_line(stopped) == "killed by SIGTERM"
    assert hang_line(crashed) is None and teardown_line(crashed) is None


def test_run_mode_leaves_torch_compile_itself_alone() -> None:
    """`compdiag run --mode M` replaced torch.compile with a wrapper that set the mode, which
    Dynamo traces where a model's forward calls torch.compile (transformers), breaking the
    graph in compdiag's file (benchmarks/probes24, left in session 24). The mode is now set
    where torch.compile builds its Inductor backend, so torch.compile stays torch's: no break,
    and every Inductor compile gets the mode, the user's options dropped (torch refuses both),
    kept under `--mode default`."""
    import torch

    from compdiag.capture.child import _force_mode

    wrapper = torch._TorchCompileInductorWrapper
    before, init = torch.compile, wrapper.__init__
    try:
        _force_mode(torch, "max-autotune")
        assert torch.compile is before

        _traced_torch_compile_breaks_nothing(torch)
        want = object.__new__(wrapper)
        init(want, "max-autotune", None, None)
        assert want.config.get("max_autotune") is True
        assert wrapper("reduce-overhead", None, None).config == want.config
        assert wrapper(None, {"max_autotune": False}, None).config == want.config
        wrapper.__init__ = init
        _force_mode(torch, "default")
        assert wrapper(None, {"epilogue_fusion": False}, None).config == {
            "epilogue_fusion": False}
        assert wrapper("reduce-overhead", None, None).config == {}
    finally:
        wrapper.__init__ = init
        torch._dynamo.reset()


def test_a_python_number_a_piece_returns_is_read_at_its_line() -> None:
    """A piece of DDPOptimizer's split that returns a Python number (a SymFloat or SymInt:
    `sub: "Sym(1.0 - zf7)" = 1.0 - item`) to the next piece: AOTAutograd compiles a piece's
    outputs as tensors, so this number is the cause of the piece's failure (set20's
    ddp_drop_path_float: the diagnosis pointed at the cut, not at the number's line); and
    the piece torch says it was executing when it raised ("While executing %submod_2")."""
    from compdiag.ingest.parse_failures import failure_facts

    payload = (
        "class GraphModule(torch.nn.Module):\n"
        '    def forward(self, x: "f32[8, 512]", w: "f32[512, 512]", s: "f64[]"):\n'
        "        # File: /u/train.py:20 in forward, code: h = x @ w\n"
        '        mm: "f32[8, 512]" = torch.mm(x, w);  x = None\n'
        "        # File: /u/train.py:21 in forward, code: rate = s.item()\n"
        '        item: "Sym(zf0)" = s.item();  s = None\n'
        "        # File: /u/train.py:22 in forward, code: keep = 1.0 - rate\n"
        '        sub: "Sym(1.0 - zf0)" = 1.0 - item\n'
        "        return (mm, sub)\n")
    row = D.split_child(payload, "submod_0", 0)
    assert row["number_outputs"] == [{"name": "sub", "filename": "/u/train.py", "lineno": 22,
                                      "line": "keep = 1.0 - rate"}]
    tensors_only = payload.replace("return (mm, sub)", "return mm")
    assert D.split_child(tensors_only, "submod_0", 0)["number_outputs"] == []
    message = ("backend='compile_fn' raised:\nAssertionError: Node mm was invalid\n\n"
               "While executing %submod_2 : [num_users=1] = call_module[target=submod_2]"
               "(args = (%submod_1,), kwargs = {})\nOriginal traceback:\nNone")
    assert failure_facts("BackendCompilerFailed", message, None, message)["submodule"] == \
        "submod_2"
    assert failure_facts("RuntimeError", "boom", None)["submodule"] is None


def test_fullgraph_at_fsdp2s_hook_is_said_as_fsdps_with_a_fix_that_works(tmp_path: Path) -> None:
    """probes43d fsdp2_fullgraph_train_step, blind: `torch.compile(fullgraph=True)` around a
    call of a fully_shard'ed model failed at FSDP's hook (GB0007, `disable` marked as
    skipped); said as "`disable` is torch code Dynamo skips" with a fix to call `disable`
    outside, which the program never calls. Now FSDP's hook is named, with the fixes that
    work (drop fullgraph, or compile each unit), and the failure folded under it."""
    from test_explain import Store

    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", co_name="loss_fn", lineno=11)
    fsdp = "/usr/lib/python3.11/site-packages/torch/distributed/fsdp/_fully_shard/_fsdp_common.py"
    tb = ("torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped\n\n"
          "from user code:\n"
          f'  File "{s.user}", line 12, in loss_fn\n    line_12 = 12\n'
          '  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1811, '
          'in inner\n    args_kwargs_result = hook(self, args, kwargs)\n'
          f'  File "{fsdp}", line 30, in wrapper\n    return torch._dynamo.disable(\n')
    s.failure("0/0", stage="dynamo", exc_type="Unsupported",
              message="Attempted to call function marked as skipped", filename=str(s.user),
              lineno=12, traceback=tb)
    top = s.explain()[0]
    assert top["kind"] == "ddp" and "fullgraph=True turned the graph break at FSDP2's hook" \
        in top["reason"] and top["user_frame"]["lineno"] == 12, top
    assert top["fix"].startswith("Drop fullgraph=True") and "block.compile()" in top["fix"]
    assert [c["kind"] for c in top["consequences"]] == ["failure"]
