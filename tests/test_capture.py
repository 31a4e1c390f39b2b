"""Live capture end to end: `compdiag run` on small scripts, asserted through the JSON
contract of `compdiag show --json` (DESIGN.md) and through the Reader API."""

from __future__ import annotations

import re
import sqlite3
from importlib.metadata import version
from pathlib import Path

import pytest

from cdtest import SCRIPTS, Proc, Session
from compdiag.store.reader import Reader

pytestmark = pytest.mark.slow

STAGES = {"dynamo", "aot", "inductor_lowering", "inductor_codegen", "kernel_compile", "runtime",
          "accuracy", "backend"}
SHOW_KEYS = {"schema_version", "run", "compiles", "graph_breaks", "recompiles", "failures",
             "kernels", "fusion", "cudagraphs", "accuracy"}
ITEM_KEYS = {
    "run": {"id", "argv", "exit_code", "torch_version", "device", "started_at", "wall_s",
            "warnings"},
    "compiles": {"compile_id", "frame", "attempt", "co_name", "filename", "lineno", "status",
                 "stage_times"},
    "graph_breaks": {"compile_id", "reason", "gb_type", "gb_code", "user_frame", "hints"},
    "recompiles": {"compile_id", "reason", "guard"},
    "failures": {"compile_id", "stage", "exc_type", "message", "user_frame"},
    "kernels": {"compile_id", "name", "backend", "source", "fx_nodes", "fused_ops"},
    "fusion": {"compile_id", "node1", "node2", "fused", "reason"},
    "cudagraphs": {"compile_id", "applied", "reason"},
    "accuracy": {"compile_id", "output", "max_abs", "max_rel", "ok"},
}
CID = re.compile(r"^(!\d+/)?\d+/\d+(_\d+)?$")


def line_of(script: Path, text: str) -> int:
    """1-based line number of the one line of `script` containing `text`."""
    hits = [i for i, line in enumerate(script.read_text().splitlines(), 1) if text in line]
    assert len(hits) == 1, (script, text, hits)
    return hits[0]


def check_contract(doc: dict) -> None:
    """The keys and value types DESIGN.md fixes for `compdiag show --json`."""
    assert SHOW_KEYS <= set(doc), SHOW_KEYS - set(doc)
    assert isinstance(doc["schema_version"], int)
    assert ITEM_KEYS["run"] <= set(doc["run"])
    assert isinstance(doc["run"]["argv"], list) and isinstance(doc["run"]["warnings"], list)
    for section, keys in ITEM_KEYS.items():
        if section == "run":
            continue
        assert isinstance(doc[section], list), section
        for item in doc[section]:
            assert keys <= set(item), (section, keys - set(item))
            if "compile_id" in item and item["compile_id"] is not None:
                assert CID.match(item["compile_id"]), item["compile_id"]
            if "user_frame" in item:
                assert set(item["user_frame"]) >= {"filename", "lineno", "line"}
    for c in doc["compiles"]:
        assert isinstance(c["stage_times"], dict)
        assert all(isinstance(v, float) for v in c["stage_times"].values())
        assert isinstance(c["attempt"], int)
    for g in doc["graph_breaks"]:
        assert isinstance(g["hints"], list)
    for f in doc["failures"]:
        assert f["stage"] in STAGES
    for k in doc["kernels"]:
        assert k["backend"] in {"triton", "cpp", "extern"}
        assert isinstance(k["fx_nodes"], list) and isinstance(k["fused_ops"], list)
    for f in doc["fusion"]:
        assert isinstance(f["fused"], bool)
    for c in doc["cudagraphs"]:
        assert isinstance(c["applied"], bool)


def compiles_of(doc: dict, co_name: str) -> list[dict]:
    return [c for c in doc["compiles"] if c["co_name"] == co_name]


# -- the scenario: a graph break, a recompile, C++ kernels ------------------------------------
def test_scenario_program_output_untouched(scenario: Proc) -> None:
    assert scenario.stdout == "graph break here\nscenario done\n"
    # Capture turns torch's artifact loggers on; none of it may reach the user's stderr.
    program_stderr = scenario.stderr.splitlines()[:-1]
    assert program_stderr == [], program_stderr
    summary = scenario.stderr.splitlines()[-1]
    assert re.match(r"compdiag: \d+ compiles, 1 graph break, 1 recompile, 0 failures, "
                    r"\d+ kernels, 0 cudagraph skips, 0 warnings \| run \d+ in ", summary), summary


def test_scenario_contract_and_run(scenario: Proc) -> None:
    doc = scenario.extra["show"]
    check_contract(doc)
    run = doc["run"]
    assert run["id"] == scenario.run_id
    assert run["exit_code"] == 0 and run["status"] == "done"
    assert run["argv"] == [str(SCRIPTS / "scenario.py")]
    assert run["torch_version"].startswith(version("torch").split("+")[0])
    assert run["device"] == "cpu"
    assert run["wall_s"] > 0 and run["started_at"] > 1.6e9
    assert run["warnings"] == []


def test_scenario_capture_time_and_store_size_are_recorded(scenario: Proc,
                                                             session: Session) -> None:
    """Issue 34: the run says what capture cost inside the program (compdiag's hooks and
    store writes, torch's trace records for it) and what its records take in the store."""
    cost, size = scenario.extra["show"]["capture"], scenario.extra["show"]["store_size"]
    assert cost is not None, "the child wrote no capture time at exit"
    assert 0 < cost["compdiag_cpu_s"] <= cost["seconds"] < cost["run_cpu_s"]
    assert cost["torch_trace_s"] >= 0 and 0 < cost["share"] < 1
    assert 0 < size["records_stored_bytes"] < size["records_raw_bytes"]
    # The raw bytes are the log's own records (TORCH_TRACE wrote the same run beside it).
    assert size["records_raw_bytes"] < scenario.extra["trace_log"].stat().st_size * 1.5
    text = session.compdiag("show", str(scenario.run_id), "--store", session.store).stdout
    assert re.search(r"capture\s+\d+\.\d\d\s+s\s+=\s+\d+\.\d%\s+of\s+the\s+program's",
                     text), text
    assert re.search(r"MB\s+stored\s+of", text), text


def test_graph_break(scenario: Proc) -> None:
    doc = scenario.extra["show"]
    script = SCRIPTS / "scenario.py"
    assert len(doc["graph_breaks"]) == 1, doc["graph_breaks"]
    gb = doc["graph_breaks"][0]
    assert gb["compile_id"] in {c["compile_id"] for c in compiles_of(doc, "f")}
    assert re.fullmatch(r"GB\d{4}", gb["gb_code"]), gb
    assert gb["gb_type"] and gb["reason"]
    assert gb["hints"] and all(isinstance(h, str) and h for h in gb["hints"])
    assert any("print" in h for h in gb["hints"]), gb["hints"]
    uf = gb["user_frame"]
    assert uf["filename"].endswith("tests/scripts/scenario.py")
    assert uf["lineno"] == line_of(script, 'print("graph break here")')
    assert uf["line"] == 'print("graph break here")'
    statuses = {c["compile_id"]: c["status"] for c in doc["compiles"]}
    assert statuses[gb["compile_id"]] == "graph_break"
    # Dynamo resumes after the break in a function of its own.
    resume = [c for c in doc["compiles"] if (c["co_name"] or "").startswith("torch_dynamo_resume")]
    assert resume and all(c["status"] == "ok" for c in resume)


def test_recompile(scenario: Proc) -> None:
    doc = scenario.extra["show"]
    g = compiles_of(doc, "g")
    assert len(g) == 2, g
    assert len({c["frame"] for c in g}) == 1  # one frame, compiled twice
    assert all(c["filename"].endswith("scenario.py") and c["status"] == "ok" for c in g)
    assert g[0]["lineno"] == line_of(SCRIPTS / "scenario.py", "def g(x):")
    assert len(doc["recompiles"]) == 1, doc["recompiles"]
    rc = doc["recompiles"][0]
    assert rc["compile_id"] == g[1]["compile_id"]
    assert "size mismatch at index 0" in rc["reason"] and "expected 4, actual 6" in rc["reason"]
    assert rc["guard"] == "L['x'].size()[0]"


def test_cpp_kernels_with_source_and_fx_nodes(scenario: Proc) -> None:
    doc = scenario.extra["show"]
    kernels = [k for k in doc["kernels"] if k["backend"] == "cpp"]
    assert len(kernels) == 2, [k["name"] for k in doc["kernels"]]
    script = SCRIPTS / "scenario.py"
    by_ops = {frozenset(k["fx_nodes"]): k for k in kernels}
    first = by_ops[frozenset({"cos", "mul"})]
    second = by_ops[frozenset({"sin", "add"})]
    for k, ops, text in ((first, {"cos", "mul"}, "y = torch.cos(x) * 2"),
                         (second, {"sin", "add"}, "return torch.sin(y) + 1")):
        assert k["name"].startswith("cpp_fused_")
        assert set(k["fused_ops"]) == ops
        assert re.search(r'extern "C"\s+void\s+kernel\(', k["source"]), k["source"][:300]
        assert k["user_lines"] == [f"{script}:{line_of(script, text)}  {text}"]
    # Each graph of f has its own kernel, attributed to that graph's compile id.
    f_ids = {c["compile_id"] for c in compiles_of(doc, "f")}
    resume_ids = {c["compile_id"] for c in doc["compiles"]
                  if (c["co_name"] or "").startswith("torch_dynamo_resume")}
    assert first["compile_id"] in f_ids and second["compile_id"] in resume_ids


def test_stage_times_and_reader_api(scenario: Proc, session: Session) -> None:
    doc = scenario.extra["show"]
    kernel_cids = {k["compile_id"] for k in doc["kernels"]}
    for c in doc["compiles"]:
        if c["compile_id"] in kernel_cids:
            st = c["stage_times"]
            assert {"dynamo", "aot", "inductor", "total"} <= set(st), st
            assert st["total"] >= st["inductor"] > 0
    with Reader(session.store) as r:
        kinds = {k["kind"]: k["n"] for k in r.record_kinds(scenario.run_id)}
        for kind in ("dynamo_start", "compilation_metrics", "dynamo_output_graph",
                     "inductor_output_code", "artifact:dynamo_graph_break_reason",
                     "compdiag:bytecode_original", "compdiag:bytecode_transformed",
                     "compdiag:transformed_source", "compdiag:call_stack"):
            assert kinds.get(kind, 0) >= 1, (kind, sorted(kinds))
        # The live stack at each compile's start holds the user's call torch's own
        # dynamo_start stack lacks: its innermost frame is the script's, not the def.
        calls = r.call_stacks(scenario.run_id)
        assert calls and all(c["frames"] for c in calls.values())
        assert all(c["frames"][-1]["filename"].endswith(".py") for c in calls.values())
        # One dynamo_start per compile; a restart attempt (0/0_1) reuses its first try's.
        first_tries = {c["compile_id"].split("_")[0] for c in doc["compiles"]}
        assert kinds["dynamo_start"] == len(first_tries)
        graph = r.artifact(scenario.run_id, doc["kernels"][0]["compile_id"],
                           "dynamo_output_graph")
        assert graph and "torch.cos" in graph
        # Original and transformed bytecode (and its decompiled source) of every compile
        # that produced code, filed under that attempt or (restarts) under its first try.
        done = [c["compile_id"] for c in doc["compiles"] if c["status"] == "ok"]
        assert len(done) == 4, doc["compiles"]
        for compile_id in done:
            def artifact(kind: str, compile_id: str = compile_id) -> str | None:
                return (r.artifact(scenario.run_id, compile_id, "compdiag:" + kind)
                        or r.artifact(scenario.run_id, compile_id.split("_")[0],
                                      "compdiag:" + kind))
            for kind in ("bytecode_original", "bytecode_transformed"):
                dis_text = artifact(kind)
                assert dis_text and re.search(r"\b(RESUME|LOAD_FAST|RETURN_VALUE)\b", dis_text)
            source = artifact("transformed_source")
            assert source and "def " in source, (compile_id, source)
        assert r.counts(scenario.run_id)["graph_breaks"] == 1
        # Kernels without source (the TUI's cheap first screen) carry no source column.
        light = r.kernels(scenario.run_id, with_source=False)
        assert light and all("source" not in k for k in light)


def test_show_text_renders(scenario: Proc, session: Session) -> None:
    p = session.compdiag("show", "--store", session.store, str(scenario.run_id))
    assert p.returncode == 0, p.stderr
    assert "graph break" in p.stdout and "recompile" in p.stdout
    assert "cpp_fused_" in p.stdout
    runs = session.compdiag("runs", "--store", session.store, "--json")
    assert runs.returncode == 0, runs.stderr
    import json

    listed = {r["id"]: r for r in json.loads(runs.stdout)["runs"]}
    assert listed[scenario.run_id]["counts"]["graph_breaks"] == 1


# -- compile failures from the bug injectors ------------------------------------------------
def test_kernel_compile_failure_and_runtime_failure(fail_kernel: Proc) -> None:
    doc = fail_kernel.extra["show"]
    check_contract(doc)
    script = SCRIPTS / "fail_kernel.py"
    assert fail_kernel.returncode == 1
    assert fail_kernel.stdout.startswith("compile failed: ")
    assert "not reached" not in fail_kernel.stdout
    r1, r2 = compiles_of(doc, "r1"), compiles_of(doc, "r2")
    assert len(r1) == 1 and len(r2) == 1
    assert r1[0]["status"] == "failed"
    by_stage = {f["stage"]: f for f in doc["failures"]}
    assert set(by_stage) == {"kernel_compile", "runtime"}, doc["failures"]

    compile_err = by_stage["kernel_compile"]
    assert compile_err["compile_id"] == r1[0]["compile_id"]
    assert "CppCompileError" in compile_err["exc_type"] + compile_err["message"]
    assert compile_err["user_frame"]["filename"].endswith("tests/scripts/fail_kernel.py"), \
        compile_err["user_frame"]
    # The compiler quoted a line of one kernel; that kernel's ops give the line, not `def r1`.
    assert compile_err["user_frame"]["lineno"] == line_of(script, "return torch.relu(x) + 1")
    assert "(kernel cpp_fused_" in compile_err["message"], compile_err["message"]

    runtime_err = by_stage["runtime"]
    assert runtime_err["compile_id"] == r2[0]["compile_id"]
    assert runtime_err["exc_type"] == "RuntimeError"
    uf = runtime_err["user_frame"]
    assert uf["filename"].endswith("tests/scripts/fail_kernel.py"), uf
    # The op of the kernel that threw (the kernel the traceback's wrapper call names, its
    # FX nodes' line: issue 29 §1's second evidence, before the call and the def).
    assert uf["lineno"] == line_of(script, "return torch.relu(x) - 1"), uf
    # The injected bug is visible in the captured kernel source of each graph.
    src = {k["compile_id"]: k["source"] for k in doc["kernels"] if k["backend"] == "cpp"}
    assert "compile error!" in src[r1[0]["compile_id"]]
    assert "throw 1" in src[r2[0]["compile_id"]]


# -- SIGKILL: what was captured before the kill survives ------------------------------------
def test_store_after_sigkill(killed: Proc, session: Session) -> None:
    doc = killed.extra["show"]
    check_contract(doc)
    assert doc["run"]["status"] == "killed"
    assert doc["run"]["exit_code"] == 137
    assert any("SIGKILL" in w for w in doc["run"]["warnings"]), doc["run"]["warnings"]
    h = compiles_of(doc, "h")
    assert len(h) == 1 and h[0]["status"] == "ok", doc["compiles"]
    assert h[0]["filename"].endswith("kill_self.py")
    with Reader(session.store) as r:
        metrics = list(r.records(killed.run_id, kind="compilation_metrics"))
        assert metrics and metrics[0]["metadata"]["compilation_metrics"]["co_name"] == "h"
    conn = sqlite3.connect(session.store)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


# -- fail-open: a fault inside compdiag's hooks becomes a run warning -----------------------
def test_hook_fault_becomes_a_run_warning(hook_fault: Proc) -> None:
    p = hook_fault
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout == "between graphs\nresult [3.0, 3.0, 3.0]\n"
    assert p.stderr.splitlines()[:-1] == [], p.stderr
    doc = p.extra["show"]
    warnings = doc["run"]["warnings"]
    assert len(warnings) == 1, warnings
    assert "injected fault in parse_graph_break" in warnings[0]
    assert warnings[0].startswith("compdiag hook ")
    # The faulty handler lost its graph break; everything else was still captured.
    assert doc["graph_breaks"] == []
    assert len(compiles_of(doc, "f")) >= 1
    assert ", 1 warning |" in p.stderr.splitlines()[-1]


def test_call_line_skips_the_code_dynamo_made():
    """The user line that called a compiled function (what a CUDA-graph recording is
    diagnosed at, issue 29 §6): frames running code Dynamo transformed are inside the
    compiled call, so the line is their caller's."""
    import weakref

    from compdiag.capture.hooks import _call_line

    transformed: "weakref.WeakSet" = weakref.WeakSet()

    def compiled_fn():
        return _call_line(transformed)

    transformed.add(compiled_fn.__code__)
    line = compiled_fn()  # <- the call
    assert line["name"] == "test_call_line_skips_the_code_dynamo_made"
    assert line["line"] == "line = compiled_fn()  # <- the call"


def test_bytecode_hook_takes_code_whose_constants_are_unhashable(tmp_path):
    """Issue 32 (the zoo's SegFormer): Dynamo's transformed code can hold a dict among its
    constants, which makes the code object unhashable; the bytecode hook kept transformed code
    in a WeakSet and failed ("compdiag hook bytecode hook failed: TypeError: unhashable type:
    'dict'"), losing that compile's bytecode and warning in a run that was fine."""
    from compdiag.capture.hooks import Capture, _call_line
    from compdiag.ingest.ingestor import Ingestor
    from compdiag.store.reader import Reader
    from compdiag.store.writer import Writer

    w = Writer(tmp_path / "s.db")
    rid = w.begin_run(source="run", argv=["x.py"])
    cap = Capture(Ingestor(w, rid))
    code = compile("x = 1", "user.py", "exec")
    new = code.replace(co_consts=(*code.co_consts, {"a": 1}))
    cap.guarded("bytecode hook", cap._on_bytecode, code, new)
    assert new in cap.transformed_codes and code not in cap.transformed_codes
    assert _call_line(cap.transformed_codes)["name"] == (
        "test_bytecode_hook_takes_code_whose_constants_are_unhashable")
    cap.ing.flush()
    w.close()
    with Reader(tmp_path / "s.db") as r:
        assert r.warnings(rid) == []



def test_a_torch_without_the_backward_compiler_gets_no_warning_per_run(monkeypatch):
    """torch 2.11 (the H200) has no `_AutogradBackwardCompiler`: every zoo run there warned
    "compdiag hook backward failure graphs (this torch) failed: AttributeError ...", a capture
    warning on a healthy run. The backward's graphs are simply not kept there (minify says
    so); the run records no warning."""
    from types import SimpleNamespace

    import torch._dynamo  # noqa: F401 - torch's own import order (runtime_wrappers alone circles)
    from torch._functorch._aot_autograd import runtime_wrappers as rw

    from compdiag.capture.backward_graphs import BackwardGraphs

    monkeypatch.delattr(rw, "_AutogradBackwardCompiler", raising=False)
    warned = []
    fg = SimpleNamespace(capture=SimpleNamespace(warn=lambda *a: warned.append(a)))
    bg = BackwardGraphs(fg)
    bg.install()
    assert not warned and bg.available is False
