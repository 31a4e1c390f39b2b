"""Issue 29's principles §2 to §6 as properties (tests/principles_check.py): each holds on
stores compdiag builds from real records (the corpus runs: tests/test_corpus.py; the H200 and
DDP fixture stores: tests/test_locate.py), and each rejects a store, or an explain document,
that breaks it. Fast: trace-shaped records through the Ingestor, no compile."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import compdiag.store.writer as writer_module
from compdiag.store.reader import Reader
from compdiag.store.writer import Writer
from compdiag.views.explain import explain_document
from gpu_replay import replay as gpu_replay
from principles_check import (accuracy_problems, break_end_problems, consequence_fact_problems, ending_problems,
                              ending_rank_problems,
                              cudagraph_problems, glossary_problems, pointed_line_problems,
                              refused_problems,
                              reset_problems, stage_owner_problems, traced_line_problems)
from test_compile_id import _two_compiles
from test_explain import Store, _ids
from test_holdout_principles import _resumed_recompiles

EVAL_FRAME = "/usr/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py"


def _doc(path: Path, run_id: int) -> tuple[Reader, list[dict]]:
    r = Reader(path)
    return r, explain_document(r, run_id)["diagnoses"]


# -- §2 ------------------------------------------------------------------------------------
def test_section2_a_recompile_across_a_break_is_never_shown_apart_from_it(tmp_path):
    """On main it caught benchmarks/explain_holdout/int_of_tensor_box (its store: the resume
    function's recompile on `___stack0` shown on its own, below the later break). The same
    records, hand-made: today they hold; the document with the recompile lifted out of its
    cause is rejected."""
    s = Store(tmp_path)
    _resumed_recompiles(s)
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        assert consequence_fact_problems(r, s.run_id, diagnoses) == []
        bad = copy.deepcopy(diagnoses)
        (folded,) = bad[0].pop("consequences")
        bad.append({**folded, "details": {"function": "torch_dynamo_resume_in_f_at_11",
                                          "guard": "___stack0"}})
        (problem,) = consequence_fact_problems(r, s.run_id, bad)
    assert "passed across a graph break is shown on its own" in problem


def test_section2_a_recompile_limit_failure_never_ranks_above_its_recompile(tmp_path):
    """corpus/fail_recompile_limit_params on main: torch's FailOnRecompileLimitHit ranked
    first, above the recompile whose guard kept failing (tests/test_corpus.py's consequence
    test caught it by the declared relation; this one by the facts alone)."""
    from test_explain import recompile_to_the_limit

    s = Store(tmp_path, exit_code=1)
    recompile_to_the_limit(s, 0)
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        assert consequence_fact_problems(r, s.run_id, diagnoses) == []
        limit = next(d for d in diagnoses if d["kind"] == "recompile")
        failure = {"kind": "failure", "reason": "FailOnRecompileLimitHit: Hard failure",
                   "compile_id": limit["compile_id"],
                   "details": {"exc_type": "FailOnRecompileLimitHit"}}
        (problem,) = consequence_fact_problems(r, s.run_id, [failure, *diagnoses])
    assert "ranks above the recompile that hit the limit" in problem


# -- §3 ------------------------------------------------------------------------------------
def _aborted_in_a_kernel(s: Store) -> None:
    """A native abort inside compiled code; faulthandler lists compdiag's writer thread first
    and marks no thread current (the crashed thread was an OpenMP worker)."""
    s.compile("0/0", lineno=3)
    dump = "\n".join([
        "Fatal Python error: Aborted", "",
        "Thread 0x00007f00aa (most recent call first):",
        f'  File "{writer_module.__file__}", line 196 in _tick', "",
        "Thread 0x00007f00bb (most recent call first):",
        '  File "/tmp/torchinductor_me/ab/cabc123.py", line 86 in call',
        f'  File "{EVAL_FRAME}", line 655 in _fn',
        f'  File "{s.user}", line 20 in <module>', ""])
    s.ing.program_end(how="signal", exit_code=134, signal=6, fault=dump,
                      stderr_tail="terminate called after throwing an instance of "
                                  "'std::runtime_error'\n  what():  boom\n")


def test_section3_an_abort_in_dynamos_code_for_a_break_is_at_the_break(tmp_path):
    """set5 iinfo_across_break's class (pytorch/pytorch#193288): the process aborted while
    only Dynamo's eval frame ran (its C++ callback hashed the generated code, whose resume
    function holds an unhashable value live across the break). On main the ending was at the
    call (20), which says nothing of the cause (fails on main); now at the break (16), the
    break's own user traceback (torch's) tying it to that call."""
    s = Store(tmp_path, exit_code=134)
    s.compile("0/0", lineno=12)
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 f"Graph break in user code at {s.user}:16\nGraph Break Reason: Call to "
                 "`torch._dynamo.graph_break()`\n  Explanation: the user asked\n\n"
                 f"User code traceback:\n  File \"{s.user}\", line 20, in <module>\n"
                 f"    line_20 = 20\n  File \"{s.user}\", line 16, in f\n    line_16 = 16\n")
    dump = "\n".join(["Fatal Python error: Aborted", "",
                      "Current thread 0x00007f00bb (most recent call first):",
                      f'  File "{EVAL_FRAME}", line 1166 in compile_wrapper',
                      f'  File "{s.user}", line 20 in <module>', ""])
    s.ing.program_end(how="signal", exit_code=134, signal=6, fault=dump,
                      stderr_tail="terminate called after throwing an instance of "
                                  "'pybind11::error_already_set'\n  what():  TypeError: "
                                  "unhashable type: 'torch.iinfo'\n")
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        (end,) = [d for d in diagnoses if d["kind"] == "program"]
        assert end["user_frame"]["lineno"] == 16 and "SIGABRT" in end["reason"], end
        assert "graph break at line 16" in end["reason"]
        assert break_end_problems(r, s.run_id, diagnoses) == []
        as_main = [{**end, "user_frame": {**end["user_frame"], "lineno": 20}}]
        (problem,) = break_end_problems(r, s.run_id, as_main)
        assert "graph break at line 16, the ending is at 20" in problem


def test_section3_no_abnormal_end_is_silent_or_without_its_line(tmp_path):
    """On main it caught corpus/end_abort_oob_index (the abort's diagnosis took compdiag's
    writer thread from faulthandler's dump: no user line, while the dump holds the user's
    thread at line 13). Today such a store holds; a document without the ending, or with the
    ending at no line, is rejected, and so is a clean run said to have ended badly."""
    s = Store(tmp_path, exit_code=134)
    _aborted_in_a_kernel(s)
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        assert ending_problems(r, s.run_id, diagnoses) == []
        assert diagnoses[0]["user_frame"]["lineno"] == 20
        (silent,) = ending_problems(r, s.run_id, [])
        lineless = [{**diagnoses[0], "user_frame": {}}]
        (no_line,) = ending_problems(r, s.run_id, lineless)
    assert "no diagnosis says how" in silent
    assert "at no line, while the store holds user_script.py:20" in no_line
    (tmp_path / "clean").mkdir()
    clean = Store(tmp_path / "clean")
    clean.done()
    r, _ = _doc(clean.path, clean.run_id)
    with r:
        assert ending_problems(r, clean.run_id, lineless) == [
            "the run exited 0 and a program diagnosis says it ended badly"]


def test_section2_an_interrupt_in_compiled_code_ranks_above_what_did_not_cause_it(tmp_path):
    """corpus/end_interrupt_in_compiled's class (issue 29 §2/§3): a compiled function raised
    KeyboardInterrupt at line 17 after a one-off graph break (15). On main
    the interruption ranked 4th, below the break Dynamo made tracing the `raise` itself (17),
    and the one-off break (fails on main: ending_rank_problems reports both breaks).
    Now it ranks first, the break at the raising statement folded under it; a document
    that ranks a break above it is rejected."""
    s = Store(tmp_path, exit_code=130)
    s.compile("0/0", lineno=12)
    s.compile("0/1", lineno=12)
    s.graph_break("0/0", 15)
    s.graph_break("0/1", 17, gb_type="Observed exception", code="GB0088")
    s.ing.program_exception(None, exc_type="KeyboardInterrupt", message="",
                            frames=[{"filename": str(s.user), "lineno": 23, "name": "<module>"},
                                    {"filename": str(s.user), "lineno": 17, "name": "step"}])
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        assert ending_rank_problems(r, s.run_id, diagnoses) == []
        top = diagnoses[0]
        assert (top["kind"], top["user_frame"]["lineno"]) == ("program", 17), top
        assert [c["user_frame"]["lineno"] for c in top["consequences"]] == [17]
        assert [d["user_frame"]["lineno"] for d in diagnoses[1:]
                if d["kind"] == "graph_break"] == [15]
        (problem,) = ending_rank_problems(r, s.run_id, [diagnoses[1], top])
    assert "ranks above how the run ended" in problem


# -- §4 ------------------------------------------------------------------------------------
def test_section4_an_accuracy_diagnosis_names_output_verdict_and_a_real_line(tmp_path):
    """A measured mismatch against float64 holds; each of the three omissions is rejected
    (no output named, no float64 verdict, a line the file does not have), and so is a
    mismatch no diagnosis reports."""
    (tmp_path / "s").mkdir()
    s = Store(tmp_path / "s")
    s.compile("0/0")
    s.post_grad("0/0", f"    # File: {s.user}:12 in f, code: line_12 = 12\n"
                '    sin: "f32[8]" = torch.ops.aten.sin.default(arg0_1)\n')
    s.accuracy("0/0", [("output 0", False, 0.5, 0.2, {
        "verdict": "miscompile", "fp64": {"eager_rel": 2.8e-8, "compiled_rel": 1.2e-3}})])
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        assert accuracy_problems(r, s.run_id, diagnoses) == []
        (d,) = diagnoses
        unnamed = {**d, "reason": d["reason"].replace("output 0", "it")}
        no_verdict = {**d, "details": {**d["details"], "verdict": None}}
        moved = {**d, "user_frame": {**d["user_frame"], "lineno": 99}}
        got = [accuracy_problems(r, s.run_id, [bad]) for bad in (unnamed, no_verdict, moved)]
        unreported = accuracy_problems(r, s.run_id, [])
    assert "does not name its output" in got[0][0]
    assert "names no verdict" in got[1][0]
    assert "not a line of that file" in got[2][0]
    assert "no accuracy diagnosis reports it" in unreported[0]


# -- §5 ------------------------------------------------------------------------------------
def test_section5_no_compile_id_spans_a_reset(tmp_path):
    """The two compiles torch names 0/0 around a reset (tests/test_compile_id.py's records)
    hold. A store written as main wrote it before compile identity had a generation (both
    dynamo_starts under one '0/0', after the reset too) is rejected, and so is a cache miss
    explained against the compile before the reset that does not say so."""
    path, run_id, _ = _two_compiles(tmp_path, reset_record=True)
    r, diagnoses = _doc(path, run_id)
    with r:
        assert reset_problems(r, run_id, diagnoses) == []
        (miss,) = [d for d in diagnoses if d["kind"] == "cache"]
        quiet = {**miss, "reason": "fx_graph cache missed", "explanation": ""}
        (unsaid,) = reset_problems(r, run_id, [quiet])
    assert "before a reset, and does not say so" in unsaid
    merged = tmp_path / "merged.db"
    w = Writer(merged)
    rid = w.begin_run(source="run", argv=["x.py"])
    for seq, kind in enumerate(("dynamo_start", "compdiag:dynamo_reset", "dynamo_start"), 1):
        w.insert("records", run_id=rid, seq=seq, kind=kind,
                 compile_id=None if kind.startswith("compdiag") else "0/0",
                 metadata=json.dumps({"frame_id": 0, "frame_compile_id": 0}), payload=None)
    w.end_run(rid, exit_code=0, status="done")
    w.close()
    with Reader(merged) as r:
        problems = reset_problems(r, rid, [])
    assert problems == ["compile 0/0 started after reset 1 and is named as a compile before it",
                        "compile id 0/0 names 2 compiles (dynamo_start 2 times)"]


# -- §6 ------------------------------------------------------------------------------------
def test_section6_rerecordings_are_counted_as_cudagraph_trees_counted(tmp_path):
    """The H200 run that recorded one function for three sizes (fixtures/gpu/cg_three_sizes)
    holds: 3 recordings, as torch counted. A count that is not torch's, or no diagnosis of
    them at all, is rejected. (While this test was written it caught the check's own first
    draft, which counted per compile rather than per function.)"""
    path = tmp_path / "cg.db"
    run_id = gpu_replay("cg_three_sizes", path)
    r, diagnoses = _doc(path, run_id)
    with r:
        assert cudagraph_problems(r, run_id, diagnoses) == []
        (rec,) = [d for d in diagnoses if d["reason"].startswith("CUDA graphs re-recorded")]
        fewer = {**rec, "reason": rec["reason"].replace("3 recordings", "2 recordings")}
        others = [d for d in diagnoses if d is not rec]
        (miscounted,) = cudagraph_problems(r, run_id, [*others, fewer])
        (missing,) = cudagraph_problems(r, run_id, others)
    assert "counts 2 recordings, cudagraph_trees counted 3" in miscounted
    assert "no CUDA-graph diagnosis says so" in missing


def test_section4_an_input_eager_rejects_names_the_output_too(tmp_path):
    """On main the `eager_rejects` verdict (corpus/acc_bernoulli_invalid_p's and
    the held-out index_add_negative's kind of diagnosis): "compiled code accepted an input
    that eager rejects: ..., the compiled graph returned a value" named no output: the
    property rejects it (the template had no output in it)."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.post_grad("0/0", f"    # File: {s.user}:8 in f, code: line_8 = 8\n"
                '    index_add: "f32[4]" = torch.ops.aten.index_add.default(arg0_1, 0, arg1_1, '
                "arg2_1)\n")
    s.accuracy("0/0", [("outputs", False, None, None, {
        "verdict": "eager_rejects", "eager_error": "RuntimeError: index -1 is out of bounds",
        "reason": "eager raised RuntimeError; the compiled graph returned a value"})])
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        assert accuracy_problems(r, s.run_id, diagnoses) == []
    assert diagnoses[0]["reason"].endswith("the compiled graph returned a value (outputs)")


# -- §9 ------------------------------------------------------------------------------------
def test_section9_a_headline_says_the_users_term_whatever_torchs_phrasing(tmp_path):
    """set4 gaussian_nll_break's class: torch's graph-break type "Data dependent operator"
    was the headline as torch wrote it, so the user's term ("data-dependent") was not in it
    (on main the reason was "Data dependent operator (...)"). Now every kind's headline goes
    through the glossary; the property rejects the document main made."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.graph_break("0/0", 12, gb_type="Data dependent operator", code="GB0033")
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        (gb,) = [d for d in diagnoses if d["kind"] == "graph_break"]
        assert gb["reason"].startswith("Data-dependent operator"), gb["reason"]
        assert glossary_problems(r, s.run_id, diagnoses) == []
        as_main = [{**gb, "reason": "Data dependent operator (aten._local_scalar_dense.default)"}]
        (problem,) = glossary_problems(r, s.run_id, as_main)
        assert "'data-dependent' only in torch's words" in problem


def test_section9_a_guard_source_is_spelled_as_the_users_code_spells_it(tmp_path):
    """set10 fresh_config_constant_result's headline said "recompiled 8 times on L['cfg']":
    torch's spelling of the local `cfg` (and `L['x'].size()[0]` for `x.shape[0]`,
    `L['m']._modules['0'].training` for `m[0].training`), which the user must translate back.
    On main every recompile headline spelled its source so; now reason, explanation and fix
    use the code's spelling, torch's message keeps torch's, and the property rejects main's."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.compile("0/1", recompile_reason="0/0: tensor 'x' size mismatch at index 0. expected 16, "
                                      "actual 32\n\nL['x'].size()[0] == 16")
    s.compile("0/2", recompile_reason="0/1: L['m']._modules['0'].training == True")
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        for d in _all_of(diagnoses):
            for key in ("reason", "explanation", "fix"):
                assert "L['" not in (d.get(key) or ""), (key, d.get(key))
        assert any("m[0].training" in (d.get("reason") or "") + (d.get("explanation") or "")
                   for d in _all_of(diagnoses)), [d["reason"] for d in diagnoses]
        assert any("L['" in (d["details"].get("torch_message") or "") for d in diagnoses)
        assert glossary_problems(r, s.run_id, diagnoses) == []
        as_main = [{**diagnoses[0], "reason": "recompiled 8 times on L['cfg']"}]
        (problem,) = glossary_problems(r, s.run_id, as_main)
        assert "spells a guard's source as torch does in its reason" in problem


def _all_of(diagnoses: list[dict]) -> list[dict]:
    return diagnoses + [c for d in diagnoses for c in d.get("consequences") or []]


# -- §1 torch's words: what torch refused --------------------------------------------------
def test_section1_a_break_names_what_torch_refused(tmp_path):
    """set5 data_ptr_pack_tensor's class: Dynamo's "Failed to convert args/kwargs to proxy"
    was raised from `NotImplementedError: DataPtrVariable()`, and on main the headline was the
    wrapper's type alone ("Failed to convert args/kwargs to proxy"), which does not say that
    data_ptr was refused; the property rejects it (fails on main). The payload is the real
    torch 2.13 one (tests/fixtures/gb_refused_cause.txt), for any refusal of this shape."""
    s, r, diagnoses = _refused_break(tmp_path)
    with r:
        (gb,) = [d for d in diagnoses if d["kind"] == "graph_break"]
        assert "data_ptr" in gb["reason"], gb["reason"]
        assert refused_problems(r, s.run_id, diagnoses) == []
        as_main = [{**gb, "reason": "Failed to convert args/kwargs to proxy"}]
        (problem,) = refused_problems(r, s.run_id, as_main)
        assert "DataPtrVariable" in problem


def test_section1_an_exception_the_program_raised_is_not_a_refusal(tmp_path):
    """The oracle sweep's test_compile.py (test_compilation_constant_hasattr_fail,
    test_list_bad_access): the break (GB0088, "Observed exception") was raised from Dynamo's
    `ObservedAttributeError: ConstantVariable(str: 'max')`, the program's own AttributeError
    whose argument is the attribute's name; the check asked the headline to say "constant"
    (a false alarm: nothing was refused; fails before OBSERVED). The DataPtr refusal above
    is still rejected."""
    s, r, diagnoses = _refused_break(tmp_path, cause="torch._dynamo.exc.ObservedAttributeError: "
                                                     "ConstantVariable(str: 'max')")
    with r:
        (gb,) = [d for d in diagnoses if d["kind"] == "graph_break"]
        said = [{**gb, "reason": "Observed exception (raised exception AttributeError('max'))"}]
        assert refused_problems(r, s.run_id, said) == []


def _refused_break(tmp_path: Path, cause: str | None = None) -> tuple[Store, Reader, list]:
    """A store of torch 2.13's break raised from another exception
    (tests/fixtures/gb_refused_cause.txt: `NotImplementedError: DataPtrVariable()`, or CAUSE
    in its place), and explain's diagnoses of it."""
    s = Store(tmp_path)
    s.compile("0/0")
    text = (Path(__file__).parent / "fixtures" / "gb_refused_cause.txt").read_text()
    if cause is not None:
        assert "NotImplementedError: DataPtrVariable()" in text
        text = text.replace("NotImplementedError: DataPtrVariable()", cause)
    s.ing.record({"frame_id": 0, "frame_compile_id": 0, "attempt": 0,
                  "artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}},
                 text.replace("{user}", str(s.user)))
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    return s, r, diagnoses


def test_an_overwritten_outputs_stack_trace_is_kept_not_where_the_failure_is(tmp_path):
    """torch's overwritten-output error says "Stack trace: File ..., line N": the frame that
    made the output inside the compiled function. Ingest keeps it (failures.torch_frames), but
    the failure stays at the line that read the stale output, the corpus' cg_output_overwritten
    convention: the H200 run of the branch that placed it at torch's frame failed that case
    (line 11, the matmul, instead of 18, the read)."""
    from test_made_at import _overwritten

    s = _overwritten(tmp_path)
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        (f,) = r.failures(s.run_id)
        assert f["lineno"] == 10 and f["torch_frames"][0]["lineno"] == 4, f
        (d,) = [d for d in diagnoses if d["kind"] == "failure"]
        assert d["user_frame"]["lineno"] == 10, d["user_frame"]
        assert pointed_line_problems(r, s.run_id, diagnoses) == []


def test_section1_a_runtime_failure_is_at_the_op_torch_names(tmp_path):
    """corpus/fail_custom_op_fake_shape's class (after pytorch/pytorch#143579): Inductor's
    assert_size_stride on a custom op's output fails below the output module and torch says
    "Error in op: torch.ops.ns.op.default"; on main the failure was at the call of the compiled
    function (fails on main), now at that op's graph node's user line, whichever node of the
    graph comes first (the op is parsed at ingest: failures.op)."""
    s = Store(tmp_path)
    s.compile("0/0")
    s.post_grad("0/0", f"        # File: {s.user}:13 in f, code: y = x * 2\n"
                "        mul: \"f32[4, 8]\" = torch.ops.aten.mul.Tensor(arg0_1, 2)\n"
                f"        # File: {s.user}:14 in f, code: z = swap(y)\n"
                "        swap: \"f32[4, 8]\" = torch.ops.ns.swap.default(mul)\n"
                f"        # File: {s.user}:15 in f, code: return z + 1\n"
                "        add: \"f32[4, 8]\" = torch.ops.aten.add.Tensor(swap, 1)\n")
    msg = ("expected size 8==4, stride 4==8 at dim=0\nError in op: torch.ops.ns.swap.default\n"
           "This error most often comes from a incorrect fake (aka meta) kernel for a custom op.")
    tb = (f'  File "{s.user}", line 30, in <module>\n    line_30 = 30\n'
          '  File "/usr/lib/python3.11/site-packages/torch/_inductor/output_code.py", line 460, '
          'in __call__\n    return self.current_callable(inputs)\n'
          '  File "/tmp/torchinductor_u/ab/cab.py", line 112, in call\n'
          "    assert_size_stride(buf2, (4, 8), (8, 1), 'torch.ops.ns.swap.default')\n"
          f"AssertionError: {msg}")
    s.failure("0/0", stage="runtime", exc_type="AssertionError", message=msg, traceback=tb,
              torch_message=msg)
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        (f,) = r.failures(s.run_id)
        assert f["op"] == "ns.swap.default", f["op"]
        _placed_and_main_rejected(r, s.run_id, diagnoses, want=14, on_main=30)


def test_section1_a_dynamo_failure_is_at_a_line_of_the_code_torch_says_it_traced(tmp_path):
    """The oracle sweep's test_graph_break_messages.py::test_backend_fake_tensor_exc class: a
    backend's exception (GB0219) lists the user code Dynamo traced in its developer context
    ("    Traceback:"), compilation_metrics' fail_user_frame names the caller's statement. The
    failure at torch's line holds; at the caller's line (main's placement, a line the message
    never names) it is rejected. Before this check no property caught it (the def-line and
    "Error in op" checks do not read a Dynamo failure's traced frames)."""
    s = Store(tmp_path)
    s.compile("0/0", fail_type="Unsupported", fail_user_frame_filename=str(s.user),
              fail_user_frame_lineno=20, fail_reason=(
                  "Backend compiler exception\n  Explanation: Backend compiler `bad` failed."
                  "\n\n  Developer debug context: Backend: bad\n    Exception:test\n"
                  f'    Traceback:\n      File "{s.user}", line 9, in f\n        line_9 = 9\n\n'))
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        (d,) = [d for d in diagnoses if d["kind"] == "failure"]
        assert d["user_frame"]["lineno"] == 9, d["user_frame"]
        assert traced_line_problems(r, s.run_id, diagnoses) == []
        as_main = [{**d, "user_frame": {**d["user_frame"], "lineno": 20}}]
        (problem,) = traced_line_problems(r, s.run_id, as_main)
        assert "names line 9" in problem and "at 20" in problem


def _placed_and_main_rejected(r: Reader, run_id: int, diagnoses: list[dict], *, want: int,
                              on_main: int) -> None:
    """The failure is at `want` and holds the property; main's placement (`on_main`) breaks it."""
    (d,) = [d for d in diagnoses if d["kind"] == "failure"]
    assert d["user_frame"]["lineno"] == want, d["user_frame"]
    assert pointed_line_problems(r, run_id, diagnoses) == []
    as_main = [{**d, "user_frame": {**d["user_frame"], "lineno": on_main}}]
    (problem,) = pointed_line_problems(r, run_id, as_main)
    assert f"points at line {want}" in problem


def test_section3_a_custom_ops_fake_that_raised_while_tracing_is_blamed_in_the_headline(tmp_path):
    """Issue 29 §1/§3 (principles_check.fake_run_problems): a fake implementation a program
    registered for a custom op raised while Dynamo traced (capture's record: origin
    `fake_kernel`). On main the headline was torch's wrapper ("TorchRuntimeError: ValueError:
    ...") and the fix "check that the line runs in eager"; the property rejects a headline
    that does not blame the fake, and explain's names it and the op."""
    from compdiag.ingest.own_records import FAKE_RUN_KIND
    from principles_check import fake_run_problems

    s = Store(tmp_path, exit_code=1)
    s.ing.event(FAKE_RUN_KIND, "0/0", {}, json.dumps(
        {"op": "ns.twice.default", "origin": "fake_kernel", "exc_type": "ValueError",
         "message": "bad input rank"}))
    s.compile("0/0", fail_type="TorchRuntimeError", fail_user_frame_filename=str(s.user),
              fail_user_frame_lineno=7, fail_reason=(
                  "RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to "
                  "run FX node with fake tensors: call_function ns.twice.default(*(FakeTensor(..."
                  ", size=(3,)),), **{}): got ValueError('bad input rank')"))
    s.exit_code = 1
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        (d,) = [d for d in diagnoses if d["kind"] == "failure"]
        assert "fake implementation" in d["reason"] and "ns.twice.default" in d["reason"], d
        assert "register_fake" in d["fix"] and "runs in eager" not in d["fix"], d["fix"]
        assert fake_run_problems(r, s.run_id, diagnoses) == []
        main = [{**d, "reason": "TorchRuntimeError: ValueError: bad input rank"}]
        assert len(fake_run_problems(r, s.run_id, main)) == 1


def test_section1_a_failure_blamed_on_a_compiler_stage_ran_through_its_code(tmp_path):
    """Session 20's sweep of PyTorch's test_compiled_autograd.py (test_dynamo_boxed): a
    custom backend's own assert, wrapped by Dynamo in BackendCompilerFailed, was "Inductor
    failed while lowering" (the test's path holds "inductor"), elsewhere "AOTAutograd
    failed", though no frame of its traceback is Inductor's or AOTAutograd's. Now it is the
    backend's; the property rejects the stage main gave it and holds for a real Inductor
    frame."""
    tb = ('Traceback (most recent call last):\n'
          '  File "/v/torch/_dynamo/output_graph.py", line 3119, in _call_user_compiler\n'
          '  File "/v/torch/__init__.py", line 2568, in __call__\n'
          '  File "/h/test/inductor/test_x.py", line 381, in inner_compiler\n'
          'torch._dynamo.exc.BackendCompilerFailed: backend=\'inner_compiler\' raised:\n'
          'AssertionError: \n')
    s = Store(tmp_path)
    s.compile("0/0")
    s.failure("0/0", stage="inductor_lowering", exc_type="BackendCompilerFailed",
              message="backend='inner_compiler' raised:\nAssertionError: ", traceback=tb)
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        (d,) = [d for d in diagnoses if d["kind"] == "failure"]
        (problem,) = stage_owner_problems(r, s.run_id, diagnoses)
        assert "inductor_lowering stage" in problem and "test_x.py" in problem
        assert stage_owner_problems(r, s.run_id, [{**d, "stage": "backend"}]) == []
    (tmp_path / "b").mkdir()
    s = Store(tmp_path / "b")
    s.compile("0/0")
    s.failure("0/0", stage="inductor_lowering", exc_type="BackendCompilerFailed",
              message="backend='inductor' raised:\nAssertionError: ", traceback=tb.replace(
                  "/h/test/inductor/test_x.py", "/v/torch/_inductor/lowering.py"))
    s.done()
    r, diagnoses = _doc(s.path, s.run_id)
    with r:
        assert stage_owner_problems(r, s.run_id, diagnoses) == []
