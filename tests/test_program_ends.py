"""How a run ended, fed through the Ingestor as capture feeds it (no compile): the facts of
a native crash (faulthandler's dump, the C++ runtime's last words), an exception classified
once (issue 30 item 5), and `compdiag minify` offered only where it can replay the failure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compdiag.capture.failures import record_escaped_exception
from compdiag.ingest.endings import fault_dump, native_message
from test_explain import Store

TORCH = "/usr/lib/python3.11/site-packages/torch"
EVAL_FRAME = f"{TORCH}/_dynamo/eval_frame.py"
COMPILE_FX = f"{TORCH}/_inductor/compile_fx.py"
LOWERING = f"{TORCH}/_inductor/lowering.py"
OUTPUT_MODULE = "/tmp/torchinductor_me/ab/cabc123.py"


def _dump(frames: list[tuple[str, int, str]], what: str = "Segmentation fault") -> str:
    """faulthandler's dump (all_threads=True), frames given outermost first."""
    lines = [f"Fatal Python error: {what}", "",
             "Thread 0x00007f00aa (most recent call first):",
             '  File "/usr/lib/python3.11/threading.py", line 320 in wait', "",
             "Current thread 0x00007f00bb (most recent call first):"]
    lines += [f'  File "{f}", line {n} in {name}' for f, n, name in reversed(frames)]
    lines += ["", "Extension modules: numpy.core._multiarray_umath, torch._C (total: 2)", ""]
    return "\n".join(lines)


def test_fault_dump_reads_the_crashed_threads_stack_outermost_first() -> None:
    dump = _dump([("/u/train.py", 9, "<module>"), ("/u/train.py", 4, "step")])
    got = fault_dump("some earlier output\n" + dump)
    assert got["fatal_error"] == "Segmentation fault"
    assert [(f["filename"], f["lineno"]) for f in got["frames"]] == [
        ("/u/train.py", 9), ("/u/train.py", 4)]
    assert fault_dump("no dump here") == {"fatal_error": None, "frames": []}


def test_native_message_keeps_the_c_runtimes_words_not_its_stack() -> None:
    tail = ("warming up\nterminate called after throwing an instance of 'c10::Error'\n"
            "  what():  CUDA error: an illegal memory access was encountered\n"
            "Exception raised from c10_cuda_check_implementation at "
            "/pytorch/c10/cuda/CUDAException.cpp:44\nframe #0: c10::Error::Error()\n")
    assert native_message(tail) == (
        "terminate called after throwing an instance of 'c10::Error'\n"
        "  what():  CUDA error: an illegal memory access was encountered")
    assert native_message("python: ops.cpp:12: void f(): Assertion `n > 0' failed.\n") == \
        "python: ops.cpp:12: void f(): Assertion `n > 0' failed."
    assert native_message("free(): invalid pointer\n") == "free(): invalid pointer"
    assert native_message("just a warning\n") is None


def test_a_segfault_in_compiled_code_points_at_the_compiled_call(tmp_path: Path) -> None:
    """Issue 29 §3: a native crash got "no problems found". Now it is the top diagnosis (a
    crash outranks everything else), at the user's call of the compiled function that was
    running, naming the compiled code, with the C++ runtime's words."""
    s = Store(tmp_path, exit_code=139)
    s.compile("0/0", lineno=3)
    s.compile("0/1", lineno=3, recompile_reason="0/0: tensor 'x' size mismatch at index 0. "
                                                "expected 2, actual 3")
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=139, signal=11, stderr_tail=(
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  boom\n"), fault=_dump([
            (user, 20, "<module>"), (user, 12, "train"), (EVAL_FRAME, 655, "_fn"),
            (user, 3, "f"), (OUTPUT_MODULE, 80, "call")]))
    top = s.explain()[0]
    assert top["kind"] == "program" and top["severity"] == "problem"
    assert top["reason"].startswith(
        "killed by SIGSEGV at line 12 (in compiled code of f: an Inductor output module)"), top
    assert "what():  boom" in top["reason"]
    assert top["user_frame"]["lineno"] == 12
    assert top["details"]["came_through"] and top["details"]["fatal_error"] == \
        "Segmentation fault"
    assert "COMPDIAG_KEEP_GRAPHS=1" in top["fix"] and "compdiag bisect" in top["fix"]


def _set_line(s: Store, lineno: int, code: str) -> None:
    """Line `lineno` of the store's user script reads `code` (faulthandler's dump names it)."""
    lines = s.user.read_text().splitlines()
    lines[lineno - 1] = code
    s.user.write_text("\n".join(lines) + "\n")


def test_a_program_that_aborts_itself_inside_compiled_code_ended_itself(tmp_path: Path) -> None:
    """Issue 29 §3: the program's own `os.abort()` (a check in a function compiled code calls
    through `torch.compiler.disable`) is how it chose to end, at that line: not a native
    crash of compiled code with a bisect of Inductor. Before this change it read "killed by
    SIGABRT ... (in compiled code ...)" with "Native code crashed inside compiled code".
    Found by a probe. With the C++ runtime's terminate words before it, it stays a crash."""
    s = Store(tmp_path, exit_code=134)
    s.compile("0/0", lineno=3)
    _set_line(s, 8, "    os.abort()")
    user = str(s.user)
    dump = _dump([(user, 20, "<module>"), (EVAL_FRAME, 655, "_fn"), (user, 3, "f"),
                  (user, 8, "check")], what="Aborted")
    s.ing.program_end(how="signal", exit_code=134, signal=6, stderr_tail="stopping\n",
                      fault=dump)
    top = s.explain()[0]
    assert top["kind"] == "program"
    assert top["reason"] == "ended itself with SIGABRT at line 8 (`os.abort()`)", top
    assert top["user_frame"]["lineno"] == 8
    assert "bisect" not in top["fix"] and "crashed" not in top["reason"]


def _unrolled_graph(user: object, line: int, n: int) -> str:
    body = "".join(f"    # File: {user}:{line} in f, code: line_{line} = {line}\n"
                   f'    mul_{i}: "f32[64]" = torch.ops.aten.mul.Tensor(arg0_1, arg1_1)\n'
                   for i in range(n))
    return f"def forward(self, arg0_1, arg1_1):\n{body}    return (mul_0,)\n"


def _compiling(s: Store, function: str) -> Store:
    """`s` with compile 0/0 of `function` started at line 10 and never finished: its graph
    (line 6's ops 40 times, a loop Dynamo unrolled) logged, no compilation_metrics."""
    from test_explain import _call, _ids

    s.ing.record({**_ids("0/0"), "str": [str(s.user), 1]}, None)
    s.ing.record({**_ids("0/0"), "dynamo_start": {"stack": [
        {"line": 10, "name": "<module>", "filename": 1},
        {"line": 3, "name": function, "filename": 1}]}}, None)
    _call(s, "0/0", [10])
    s.post_grad("0/0", _unrolled_graph(s.user, 6, 40))
    return s


def test_a_run_killed_while_compiling_says_which_compile_at_its_call(tmp_path: Path) -> None:
    """Issue 29 §3: a run stopped (a time limit's SIGTERM, the out-of-memory killer's SIGKILL)
    while torch.compile was still compiling left no user frame (the signal landed on a
    helper thread, or a deep compile's stack lost its outer frames): it read "killed by
    SIGTERM (nothing after it was recorded)". Now it names the compile that never finished,
    at the call that started it, and a graph of one line's ops repeated (a Python loop
    Dynamo unrolled) gets the loop's fix. Found by a probe (a 400-step integrator loop)."""
    s = _compiling(Store(tmp_path, exit_code=143), "integrate")
    # a faulthandler dump whose current thread ran no Python code
    dump = ("Thread 0x00007f00aa (most recent call first):\n"
            '  File "/usr/lib/python3.11/threading.py", line 320 in wait\n\n'
            "Current thread 0x00007f00bb (most recent call first):\n"
            "  <no Python frame>\n")
    s.ing.program_end(how="signal", exit_code=143, signal=15, stderr_tail="", fault=dump)
    top = s.explain()[0]
    assert top["kind"] == "program"
    assert top["reason"].startswith("killed by SIGTERM while compiling"), top["reason"]
    assert "compile 0/0" in top["reason"]
    assert top["user_frame"]["lineno"] == 10
    assert "line 6 alone made 40 of them" in top["explanation"]
    assert "scan" in top["fix"]


def test_a_crash_in_the_users_own_call_under_compiled_code_is_that_calls(tmp_path: Path
                                                                         ) -> None:
    """benchmarks/probes23/ctypes_copy_op_segv.py: a custom op's body (a ctypes.memmove with a
    wrong byte count) crashed with SIGSEGV while compiled code ran it. faulthandler's stack
    ends in the user's own function after the compiled frames; on main the fix still said
    Inductor's generated code might be at fault (aot_eager, bisect, minify), while the pasted
    bisect answered "culprit: eager"."""
    s = Store(tmp_path, exit_code=139)
    s.compile("0/0", lineno=3)
    _set_line(s, 14, "    ctypes.memmove(out.data_ptr(), x.data_ptr(), nbytes)")
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=139, signal=11, stderr_tail="", fault=_dump([
        (user, 20, "<module>"), (EVAL_FRAME, 655, "_fn"), (user, 3, "f"),
        (OUTPUT_MODULE, 80, "call"), (f"{TORCH}/_library/custom_ops.py", 300, "backend_impl"),
        (user, 14, "fast_copy")]))
    top = s.explain()[0]
    assert top["kind"] == "program" and top["user_frame"]["lineno"] == 14, top
    assert top["fix"].startswith("The crash is in your own code that the compiled code calls: "
                                 "fast_copy at line 14 (`ctypes.memmove("), top["fix"]
    assert "bisect" not in top["fix"] and "aot_eager" not in top["fix"]


def test_a_run_its_own_timer_ended_while_compiling_names_the_timer(tmp_path: Path) -> None:
    """benchmarks/probes23/server_alarm_deadline.py: a per-request `signal.alarm(2)` went off
    while the first call compiled. On main SIGALRM was an unknown signal "ended it", the
    explanation blamed the graph's size and the fix was the unrolled loop's; nothing outside
    sends SIGALRM: the program's own timer ended it, armed at its line."""
    s = Store(tmp_path, exit_code=142)
    _set_line(s, 5, '"""a deadline via signal.alarm(2) (a docstring, not a call)"""')
    _set_line(s, 9, "signal.alarm(DEADLINE_S)")
    _set_line(s, 12, "signal.alarm(0)")
    _compiling(s, "forward")
    s.ing.program_end(how="signal", exit_code=142, signal=14, stderr_tail="", fault=None)
    top = s.explain()[0]
    assert top["reason"].startswith("killed by SIGALRM while compiling"), top["reason"]
    assert "own timer" in top["explanation"], top["explanation"]
    assert top["fix"].startswith("The program's own timer ended it (armed at line 9: "
                                 "`signal.alarm(DEADLINE_S)`) while compiling"), top["fix"]


def test_a_stop_signal_on_a_helper_thread_is_placed_by_the_programs_thread() -> None:
    """corpus/end_killed_compiling_rnn.py, a first run: the watchdog's SIGTERM landed on
    compdiag's store-writer thread, faulthandler's 'Current thread', and the ending read
    "killed by SIGTERM (in _tick, writer.py:222)". A signal sent from outside lands on any
    thread: one running none of the program's code says nothing of where it was. A crash's
    current thread stays the crashed one."""
    from compdiag.store import writer

    dump = ("Current thread 0x00007f00cc (most recent call first):\n"
            f'  File "{writer.__file__}", line 222 in _tick\n'
            '  File "/usr/lib/python3.11/threading.py", line 1393 in run\n\n'
            "Thread 0x00007f00bb (most recent call first):\n"
            f'  File "{TORCH}/_dynamo/convert_frame.py", line 900 in _compile\n'
            '  File "/u/train.py", line 31 in <module>\n')
    assert fault_dump(dump)["frames"][-1]["filename"] == f"{TORCH}/_dynamo/convert_frame.py"
    crashed = "Fatal Python error: Segmentation fault\n\n" + dump
    assert fault_dump(crashed)["frames"][-1]["filename"] == writer.__file__


def test_a_stop_signal_inside_the_compiler_is_a_kill_while_compiling(tmp_path: Path) -> None:
    """The same corpus script, another run: the SIGTERM landed while Dynamo traced the call
    (line 10 here); it read "killed by SIGTERM at line 10 (in compiled code: Dynamo's
    convert_frame (a compile))" with the fix of a native crash in compiled code. A stack
    through the compiler with a compile unfinished is the compile that never finished."""
    s = _compiling(Store(tmp_path, exit_code=143), "forward")
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=143, signal=15, stderr_tail="", fault=_dump([
        (user, 10, "<module>"), (EVAL_FRAME, 655, "_fn"),
        (f"{TORCH}/_dynamo/convert_frame.py", 900, "_compile")], what="Terminated"))
    top = s.explain()[0]
    assert top["reason"].startswith("killed by SIGTERM while compiling"), top["reason"]
    assert top["user_frame"]["lineno"] == 10 and "aot_eager" not in top["fix"], top


def test_a_stop_signal_during_torch_compiles_own_call_is_no_compiled_code(tmp_path: Path
                                                                          ) -> None:
    """And a run: the SIGTERM landed while `torch.compile(model)` imported Inductor (its
    compile_fx module's `<module>` frame): it read "in compiled code: Inductor's compile_fx
    (a compile)" with the native-crash fix. Below torch.compile()'s own frame nothing is
    compiled code, and an import is not a compile."""
    s = Store(tmp_path, exit_code=143)
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=143, signal=15, stderr_tail="", fault=_dump([
        (user, 9, "<module>"), (f"{TORCH}/__init__.py", 2836, "compile"),
        (f"{TORCH}/_dynamo/eval_frame.py", 1682, "optimize"),
        (f"{TORCH}/_inductor/compile_fx.py", 114, "<module>")], what="Terminated"))
    top = s.explain()[0]
    assert top["reason"].startswith("killed by SIGTERM at line 9"), top["reason"]
    assert "compiled code" not in top["reason"] and top["fix"].startswith("Nothing in the program")


def test_a_kill_at_a_line_that_only_mentions_abort_is_no_self_abort(tmp_path: Path) -> None:
    """`os.abort()` in a comment or a string, or a signal os.abort cannot send (SIGKILL from
    the out-of-memory killer), is not the program ending itself. Found by review."""
    s = Store(tmp_path, exit_code=137)
    s.compile("0/0", lineno=3)
    _set_line(s, 8, "    y = torch.mm(a, b)  # os.abort() on NaN")
    user = str(s.user)
    s.ing.program_end(how="signal", exit_code=137, signal=9, stderr_tail="",
                      fault=_dump([(user, 20, "<module>"), (user, 8, "check")],
                                  what="Killed"))
    top = s.explain()[0]
    assert "ended itself" not in top["reason"], top["reason"]


def test_every_non_zero_exit_says_how_even_with_nothing_recorded(tmp_path: Path) -> None:
    s = Store(tmp_path, exit_code=3)
    s.compile("0/0")
    (d,) = s.explain()
    assert d["kind"] == "program" and d["reason"] == \
        "exited with status 3; nothing recorded says how"


def test_a_clean_exit_stays_without_problems(tmp_path: Path) -> None:
    s = Store(tmp_path, exit_code=0)
    s.compile("0/0")
    assert s.explain() == []


def _through(frames: list[tuple[str, str]], exc: BaseException) -> BaseException:
    """`exc` raised through functions whose code lives in each (file, name), outermost
    first; the innermost raises it."""
    call = None
    for filename, name in reversed(frames):
        ns: dict = {"exc": exc, "inner": call}
        body = "    raise exc\n" if call is None else "    inner()\n"
        exec(compile(f"def {name}():\n{body}", filename, "exec"), ns)  # noqa: S102
        call = ns[name]
    try:
        call()
    except BaseException as e:  # noqa: BLE001
        return e
    raise AssertionError("did not raise")


class InductorError(Exception):
    pass


InductorError.__module__ = "torch._inductor.exc"
OFFERED = re.compile(r"`compdiag minify [^`]*\d+`")  # the command line, for this run
LOWERING_MESSAGE = "LoweringException: RuntimeError: broken lowering for log1p"


def _lowering_failure(tmp_path: Path) -> Store:
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0", fail_type="torch._inductor.exc.InductorError",
              fail_reason=LOWERING_MESSAGE + "\n  target: aten.log1p.default")
    return s


def test_an_exception_through_a_compile_is_classified_once(tmp_path: Path) -> None:
    """Issue 30 item 5: a lowering that raised from the user's own code (a patched lowering,
    a custom op's) showed as the lowering failure and again as "the program raised
    InductorError ... outside compiled code", though its traceback passes through Inductor."""
    s = _lowering_failure(tmp_path)
    user = str(s.user)
    exc = _through([(user, "main"), (EVAL_FRAME, "compile_wrapper"), (COMPILE_FX, "compile_fx"),
                    (LOWERING, "run_node"), (user, "broken_lowering")],
                   InductorError(LOWERING_MESSAGE))
    record_escaped_exception(s.ing, exc)
    diagnoses = s.explain()
    assert [(d["kind"], d["stage"]) for d in diagnoses] == [("failure", "inductor_lowering")]
    assert diagnoses[0]["details"]["fatal"]
    assert not any("outside compiled code" in (d["reason"] + (d["explanation"] or ""))
                   for d in diagnoses)


def test_a_compile_error_whose_frames_torch_cut_is_still_the_compiles(tmp_path: Path) -> None:
    """torch re-raises a compile's error at the compiled call with its own frames removed
    (`remove_dynamo_frames`): the exception's class (torch._inductor.exc) still says so."""
    s = _lowering_failure(tmp_path)
    exc = _through([(str(s.user), "main")], InductorError(LOWERING_MESSAGE))
    record_escaped_exception(s.ing, exc)
    diagnoses = s.explain()
    assert [(d["kind"], d["stage"]) for d in diagnoses] == [("failure", "inductor_lowering")]


def test_minify_is_offered_only_where_it_can_replay_the_failure(tmp_path: Path) -> None:
    """Issue 30 item 5: every compiler-stage failure's fix offered `compdiag minify`, also
    where no failing graph was kept (minify then fails with "no failing graph to minify");
    the fix now says why instead, and offers it once a graph was kept."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (d,) = _lowering_failure(tmp_path / "a").explain()
    assert not OFFERED.search(d["fix"]) and "cannot replay this failure" in d["fix"]
    assert "compdiag bisect" in d["fix"]
    kept = _lowering_failure(tmp_path / "b")
    kept.ing.event("failure_graph", "0/0", {"kind": "compile", "stage": "inductor_lowering"},
                   payload="{}")
    (d,) = kept.explain()
    assert OFFERED.search(d["fix"]) and "cannot replay" not in d["fix"]


def test_minify_is_not_offered_for_a_failure_in_a_custom_op(tmp_path: Path) -> None:
    """A runtime failure torch names a custom op for (corpus fail_custom_op_fake_strides:
    its output failed Inductor's size/stride check) replays only with that op, which only
    the program registers: the fix says why minify cannot replay it, even with a graph kept,
    and names the op; a failure in torch's own op still offers minify. Before: the fix
    offered `compdiag minify`, which ended in an AttributeError traceback."""
    msg = ("expected size 4==4, stride 1==8 at dim=0\nError in op: torch.ops.{op}\nThis error "
           "most often comes from a incorrect fake (aka meta) kernel for a custom op.")
    fixes = []
    for name, op in (("custom", "demo.col_major_scale.default"), ("torch", "aten.mm.default")):
        (tmp_path / name).mkdir()
        s = Store(tmp_path / name, exit_code=1)
        s.compile("0/0")
        s.failure("0/0", stage="runtime", exc_type="AssertionError",
                  message="expected size 4==4, stride 1==8 at dim=0", traceback="",
                  torch_message=msg.format(op=op))
        s.ing.event("failure_graph", "0/0", {"kind": "compile", "stage": "runtime"},
                    payload="{}")
        fixes.append(s.explain()[0]["fix"])
    assert not OFFERED.search(fixes[0]) and "torch.ops.demo.col_major_scale" in fixes[0]
    assert OFFERED.search(fixes[1]), fixes[1]


def _round_trip(s: Store, tmp_path: Path) -> tuple[list[dict], list[dict], dict]:
    """(explain before, explain after report's trace log -> import, the imported run)."""
    from compdiag.analyses.explain import explain
    from compdiag.importer.trace_log import import_trace
    from compdiag.importer.trace_writer import glog_prefix, trace_entries
    from compdiag.report.bundle import _trace
    from compdiag.store.reader import Reader

    before = s.explain()
    with Reader(s.path) as r:
        text, _ = _trace(list(trace_entries(r, s.run_id)), glog_prefix(0.0, 1), lambda t: t,
                         set(), 10**9)
    log = tmp_path / "torch_trace.log"
    log.write_bytes(text)
    (res,) = import_trace(tmp_path / "imported.db", log, workers=1)
    with Reader(tmp_path / "imported.db") as r:
        return before, [d.to_json() for d in explain(r, res.run_id)], r.run(res.run_id)


def _key(d: dict) -> tuple:
    return (d["kind"], d["stage"], d["reason"], d["user_frame"]["lineno"])


def test_a_reports_trace_log_imports_with_compdiags_own_facts(tmp_path: Path) -> None:
    """Issue 30 item 4: `compdiag import` of a report's torch_trace.log stored compdiag's own
    records under kind `compdiag` and never replayed them: the run-time failure, the
    program's exception, the accuracy check and the exit status were lost ("no problems
    found"). Each now comes back as capture stored it."""
    s = Store(tmp_path, exit_code=1)
    s.compile("0/0")
    s.accuracy("0/0", [("out0", False, 0.5, 0.25, {"reason": "max abs 0.5 > atol"})])
    exc = _through([(str(s.user), "main"), (f"{TORCH}/_functorch/_aot_autograd/"
                                            "runtime_wrappers.py", "runtime_wrapper")],
                   RuntimeError("Trying to backward through the graph a second time"))
    record_escaped_exception(s.ing, exc)
    if hasattr(s.ing, "program_end"):  # what `compdiag run`'s parent adds for exit 1
        s.ing.program_end(how="exit", exit_code=1, stderr_tail="Traceback ...\n")
    before, after, run = _round_trip(s, tmp_path)
    assert [_key(d) for d in after] == [_key(d) for d in before]
    assert run["exit_code"] == 1
    assert {d["kind"] for d in after} >= {"failure", "accuracy"}


def test_a_native_crash_survives_report_and_import(tmp_path: Path) -> None:
    s = Store(tmp_path, exit_code=134)
    s.compile("0/0")
    s.ing.program_end(how="signal", exit_code=134, signal=6, stderr_tail=(
        "terminate called after throwing an instance of 'c10::Error'\n  what():  boom\n"),
        fault=_dump([(str(s.user), 7, "<module>")], "Aborted"))
    before, after, run = _round_trip(s, tmp_path)
    assert run["exit_code"] == 134
    assert _key(after[0]) == _key(before[0])
    assert after[0]["reason"].startswith("killed by SIGABRT at line 7: terminate called")


# The C++ runtime's last words when a kernel's bounds check throws inside an OpenMP region.
KERNEL_ABORT = ("terminate called after throwing an instance of 'std::runtime_error'\n"
                "  what():  kernel, /tmp/cache/pj/cpj.main.cpp:7, index out of bounds: "
                "0 <= tmp0 < 5L\nterminate called recursively\n")


def _kernel_store(tmp_path: Path) -> Store:
    """A run whose compile made cpp_fused_embedding_0 from the op at the user's line 11."""
    from test_holdout_principles import _output_code, embedding_graph

    s = Store(tmp_path, exit_code=134)
    s.user.write_text(s.user.read_text().replace("line_3 = 3\n", "def f(i, w):\n"))
    s.compile("0/0", lineno=3)
    s.post_grad("0/0", embedding_graph(s.user))
    s.ing.record({"frame_id": 0, "frame_compile_id": 0,
                  "inductor_output_code": {"filename": OUTPUT_MODULE}},
                 _output_code("cpp_fused_embedding_0"))
    return s


def test_a_kernels_check_that_aborts_points_at_its_op_line(tmp_path: Path) -> None:
    """Issue 29 §3 (corpus/end_abort_oob_index.py, pytorch/pytorch#195402): a C++ kernel's
    bounds check thrown inside an OpenMP region aborts the process; the thread that crashed
    has no Python state, so faulthandler marks no 'Current thread' and lists compdiag's own
    writer thread first. Before this change the diagnosis took that thread's stack ("in
    _tick, writer.py", no user line); now it is the user's thread, and the kernel the C++
    runtime's last words name (its own check's message) puts it at the line of the kernel's
    ops, not the call. Another OpenMP thread's "terminate called recursively" after them does
    not hide them (the corpus run caught that: it is printed in any order)."""
    import compdiag.store.writer as writer
    s = _kernel_store(tmp_path)
    user = str(s.user)
    dump = _dump([(user, 20, "<module>"), (EVAL_FRAME, 655, "_fn"), (user, 3, "f"),
                  (OUTPUT_MODULE, 86, "call")], what="Aborted")
    # no Python state in the crashed thread: every thread is a plain 'Thread', helpers first
    dump = dump.replace("Current thread", "Thread").replace(
        '"/usr/lib/python3.11/threading.py", line 320 in wait',
        f'"{writer.__file__}", line 196 in _tick')
    s.ing.program_end(how="signal", exit_code=134, signal=6, stderr_tail=KERNEL_ABORT, fault=dump)
    top = s.explain()[0]
    assert top["kind"] == "program" and "SIGABRT" in top["reason"]
    assert (top["user_frame"]["lineno"], top["user_frame"]["evidence"]) == (11, "fx_node")
    assert "kernel cpp_fused_embedding_0" in top["reason"]
    assert "what():  kernel, /tmp/cache/pj/cpj.main.cpp:7" in top["details"]["native_message"]
    assert fault_dump(dump)["frames"][0]["lineno"] == 20


@pytest.mark.parametrize("dump", ["other_thread", "none"])
def test_a_kernels_abort_is_placed_by_the_kernel_whatever_the_dump_shows(
        tmp_path: Path, dump: str) -> None:
    """The same abort when faulthandler's dump has no frame of the compiled code: only a
    helper thread's stack (threading.wait), or nothing (a second OpenMP thread's abort ended
    the process while the first was dumping). The kernel the C++ runtime's last words name is
    evidence of its own: the diagnosis is at its ops' line. Caught on main, flakily, on an
    idle machine: corpus end_abort_oob_index ended "in wait, threading.py:331" and "nothing
    after it was recorded" with no line."""
    s = _kernel_store(tmp_path)
    fault = (_dump([("/usr/lib/python3.11/threading.py", 331, "wait")], what="Aborted")
             if dump == "other_thread" else "")
    s.ing.program_end(how="signal", exit_code=134, signal=6, stderr_tail=KERNEL_ABORT, fault=fault)
    top = s.explain()[0]
    assert top["kind"] == "program" and "SIGABRT" in top["reason"]
    assert (top["user_frame"]["lineno"], top["user_frame"]["evidence"]) == (11, "fx_node")
    assert "kernel cpp_fused_embedding_0" in top["reason"]


def test_a_registered_signals_dump_without_a_fatal_error_line_gives_its_frames():
    """faulthandler.register(SIGTERM) (capture/child.py) dumps the threads with no "Fatal
    Python error" line. On main fault_dump read no frames from such a dump (a SIGTERM was
    "killed by SIGTERM (nothing after it was recorded)"); now the current thread's frames,
    outermost first, and no fatal error."""
    dump = ("Thread 0x00007f00aa (most recent call first):\n"
            '  File "/usr/lib/python3.11/threading.py", line 331 in wait\n\n'
            "Current thread 0x00007f00bb (most recent call first):\n"
            '  File "/tmp/job/train.py", line 8 in step\n'
            '  File "/tmp/job/train.py", line 12 in <module>\n')
    got = fault_dump(dump)
    assert got["fatal_error"] is None
    assert [(f["filename"], f["lineno"]) for f in got["frames"]] == [
        ("/tmp/job/train.py", 12), ("/tmp/job/train.py", 8)]
    assert fault_dump("no dump here") == {"fatal_error": None, "frames": []}


def test_a_stop_signal_dumps_only_its_own_threads_stack() -> None:
    """Fail open (a run's exit status is the program's): the first version of
    corpus/end_killed_compiling_rnn.py (a watchdog thread's SIGTERM 3 s into the run, while
    torch.compile() imported Inductor) ended by SIGSEGV (exit 139) in 3 of 6 runs under
    compdiag, where plain python ends by SIGTERM (143): faulthandler's dump of every thread,
    registered for SIGTERM, walked stacks another thread was changing. Plain python with the
    same registration crashed too (1 of 6). The stop signals dump the taking thread's stack
    only (8 of 8 runs then ended 143); a crash's dump (faulthandler.enable) stays all threads,
    as PYTHONFAULTHANDLER's."""
    import signal

    from compdiag.capture import child

    calls = []

    class Recorder:
        @staticmethod
        def register(sig, **kw):
            calls.append((sig, kw))

    child._register_stop_signals(Recorder)
    assert calls and all(kw["all_threads"] is False and kw["chain"] is True for _, kw in calls)
    assert signal.SIGTERM in {sig for sig, _ in calls}
    # the dump it then writes reads as the stack of the thread that took the signal
    dump = ('Stack (most recent call first):\n  File "/u/a.py", line 9 in f\n'
            '  File "/u/a.py", line 20 in <module>\n')
    assert [f["lineno"] for f in fault_dump(dump)["frames"]] == [20, 9]


def test_a_deep_traceback_keeps_the_users_frames_above_its_innermost():
    """probes24 ctrl_c_during_compile: Ctrl-C while Inductor built a C++ kernel (~60 frames
    below the user's call) was "interrupted (Ctrl-C), inside Inductor's compile_fx" with no
    line, and its fix read "after line ?": the stored traceback kept only its innermost 60
    frames, all torch's. The user's frames above them are kept too."""
    import traceback

    from compdiag.capture.failures import KEPT_FRAMES, kept_frames

    site = "/venv/lib/python3.11/site-packages/torch/_inductor/x.py"
    frames = ([traceback.FrameSummary("/home/u/train.py", 35, "<module>", line="train(100)"),
               traceback.FrameSummary("/home/u/train.py", 27, "train", line="loss = m(x)")]
              + [traceback.FrameSummary(site, i, f"f{i}", line="pass") for i in range(70)])
    kept = kept_frames(frames)
    assert [(f["filename"], f["lineno"]) for f in kept[:2]] == [("/home/u/train.py", 35),
                                                                ("/home/u/train.py", 27)]
    assert len(kept) == 2 + KEPT_FRAMES and kept[-1]["lineno"] == 69
    assert len(kept_frames(frames[:10])) == 10  # a short one whole, nothing twice


def test_a_recursion_keeps_torch_compiles_frame_and_three_of_each_repeat():
    """probes47b detector_getattr_metadata: a `__getattr__` that `torch.compile(head)` ran
    recursed 980 times; the innermost 60 frames were all that recursion and torch.compile's own
    frame was cut, so the error read as the program's own, "outside compiled code"."""
    import traceback

    from compdiag.capture.failures import REPEATS, kept_frames
    from compdiag.formats.compiled_code import compile_api_refusal

    torch_init = "/venv/lib/python3.11/site-packages/torch/__init__.py"
    frames = ([traceback.FrameSummary("/home/u/infer.py", 47, "<module>", line="c = f(m)"),
               traceback.FrameSummary(torch_init, 2836, "compile", line="return ...")]
              + [traceback.FrameSummary("/home/u/infer.py", 29, "__getattr__", line="hasattr")
                 for _ in range(980)]
              + [traceback.FrameSummary("/home/u/infer.py", 27, "__getattr__", line="super")])
    kept = kept_frames(frames)
    assert compile_api_refusal([(f["filename"], f["name"]) for f in kept])
    assert [f["lineno"] for f in kept] == [47, 2836] + [29] * REPEATS + [27]
