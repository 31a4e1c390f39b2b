"""The exception that ended the program, so that a run that failed is never "no problems
found": at the user's line where it surfaced, with the frame it was raised in.

- It came through compiled code (Dynamo's eval frame, AOTAutograd's CompiledFunction and
  runtime wrappers, an Inductor output module, cudagraph trees: capture/failures.py decides):
  a `failure` of stage `runtime` (or the compile stage it escaped from). The failures kind
  usually reports it already, from the failure row capture wrote; explain folds this one into
  it then (a relation in its SPEC), so it shows only where no row did.
- It did not: kind `program`, "the program raised X at line N, outside compiled code", in the
  `ending` cost class: the run did not finish, so it ranks above every graph break, recompile
  and perf hint that did not cause it (issue 29 §2), though torch.compile did not raise it.
  A failed check of the user's own is the `user_check` class, just below `ending`: above
  every graph break, recompile and limit that did not cause it; a measured mismatch of the
  compiled result it compares is its cause (the accuracy kind's relation folds it there).
- A user's own check that failed (an assert, or a raise right after a comparison) when
  `run --check-accuracy` found every compiled graph equal to eager says exactly that, and
  names what the check compared.
- autograd's connectivity error outside compiled code, on a gradient the compiled backward
  made with `create_graph=True`, is a failure of compiled code (analyses/double_backward.py).
- No abnormal end is left unexplained (issue 29): a run that exited non-zero or was killed
  says how it ended, from the `program_ends` facts when no exception says it ("killed by
  SIGSEGV at line N (in compiled code: ...)" with the C++ runtime's last words; "exited with
  status 4 via os._exit at line N"; "killed by SIGKILL"), or its exception (sys.exit(N),
  KeyboardInterrupt: "interrupted (Ctrl-C) at line N")."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from compdiag.analyses import handled_exit as HX
from compdiag.analyses import warnings_as_errors as WE
from compdiag.analyses.program_words import (CHECK_EQUAL, CHECK_MISMATCH, CHECK_UNMEASURED,
                                             COMPILE_FIX, COMPILE_REFUSAL, OUTSIDE,
                                             PROGRAM_FIXES, compile_advice)
from compdiag.analyses.accuracy import what_was_compared
from compdiag.analyses.check_causes import failed_check_causes
from compdiag.analyses.collective_mismatch import launcher_native, mismatch_fix
from compdiag.analyses.compile_refusals import refusal_parts
from compdiag.analyses.compiled_export import export_words, wrapper_exported
from compdiag.analyses.consequences import Causes
from compdiag.analyses.context import exception_frames
from compdiag.analyses.double_backward import (CONNECTIVITY_EXPLANATION as CONNECTIVITY_WHY,
                                              DOUBLE_EXPLANATION, DOUBLE_FIX,
                                              gradient_of_compiled)
from compdiag.analyses.user_checks import user_check
from compdiag.analyses.diagnosis import Details, Diagnosis, UserFrame
from compdiag.analyses.failure_fixes import failure_fix, minify_unavailable, stage_explanation
from compdiag.analyses.fixes import INTERNAL_ERROR, INTERNAL_EXPLANATION, commands
from compdiag.analyses.ending_words import (
    SIGNALS,
    KILLED_FIX,
    COMPILING_FIX,
    UNROLLED_FIX,
    CRASH_EAGER_FIX,
    crash_commands, crash_fix,
    INTERRUPT_FIX,
    EXIT_FIX,
    NATIVE_EXIT_FIX,
    self_signal, timer_fix,
    SELF_SIGNAL_FIX,
    ASYNC_EXPLANATION,
    ASYNC_FIX)
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.job_context import TEARDOWN_SIGNALS, failed_first
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.locate import kernel_frames, locate, ran_op
from compdiag.analyses.ranking import Cost
from compdiag.analyses.rules import first, found, one_of
from compdiag.analyses.summary import summarise
from compdiag.analyses.unfinished_compile import Unfinished, unfinished_compile
from compdiag.formats.command_line import command_line
from compdiag.formats.compiled_code import (ASYNC_DEVICE_WORDS, compile_api_refusal,
                                            compiled_in, first_compiled, in_a_compile,
                                            stack_files)
from compdiag.formats.signal_names import signal_name
from compdiag.formats.user_code import is_user_file

KIND = "program"


@dataclass(frozen=True)
class ProgramDetails(Details):
    exc_type: str
    compiled: bool
    surfaced_at: dict[str, Any] | None
    raised_in: dict[str, Any] | None
    came_through: str | None = None
    # A failed check of the user's own: what it compared, what --check-accuracy found.
    check: str | None = None
    accuracy: str | None = None
    # How the run ended when no exception of the program's says it (program_ends).
    ended: str | None = None
    signal: str | None = None
    exit_code: int | None = None
    native_message: str | None = None
    fatal_error: str | None = None
    omit_none = ("came_through", "check", "accuracy", "ended", "signal", "exit_code",
                 "native_message", "fatal_error")


def _at_the_raise(effect: Diagnosis, cause: Diagnosis, ctx: Any) -> bool:
    """The effect (a graph break) is Dynamo tracing the very statement that raised the
    exception that ended the run (same file and line as the frame it was raised in, or the
    user's frame it surfaced at): Dynamo breaks on a `raise` it cannot trace, so the break is
    what the ending looked like while tracing, not a problem of its own (issue 29 §2)."""
    d = cause.details
    if not isinstance(d, ProgramDetails) or not d.ended or not effect.user_frame.lineno:
        return False
    at = (ctx.resolve(effect.user_frame.filename), effect.user_frame.lineno)
    return any(f and (ctx.resolve(f.get("filename")), f.get("lineno")) == at
               for f in (d.raised_in, d.surfaced_at))


# Where the failure kind reported the compile failure that ended the program, it is the cause.
# How a run ended abnormally (`ending`) ranks above every problem that did not cause it: the
# run did not finish, the first thing to know (issue 29 §2/§3); below `crash`, a fault of
# compiled code that ended it. What caused it folds it (failures) or lifts it; a graph break
# at the statement that raised it is its consequence.
SPEC = KindSpec(KIND, title="program error", words=("program", "programs"), style="red", tie=80,
                # a failed check of the user's own is how the run ended too: above the
                # recompile limit (900), so no graph break (lifted to a compile failure's cost
                # by the failure torch caught when it skipped the frame), recompile or limit
                # that did not cause it ranks above it (issue 29 §2/§3)
                # sys.exit(N): the program chose it and said why (analyses/ranking.py)
                costs={"ending": Cost(950), "user_check": Cost(940), "asked_end": Cost(590)},
                details=(ProgramDetails,),
                causes=(Causes("failure", "failure", "the program's exception is the same "
                               "error, reported where torch.compile raised it",
                               lambda effect, cause, ctx: isinstance(effect.details,
                                                                     ProgramDetails)
                               and not isinstance(cause.details, ProgramDetails)
                               and bool(getattr(cause.details, "fatal", False)),
                               same_finding=True),
                        Causes(KIND, "graph_break", "Dynamo broke the graph tracing the "
                               "statement that raised the exception that ended the run",
                               _at_the_raise)))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


MAX_WARNED = 2


def torch_warned(ctx: Any) -> str:
    """torch's own warnings that torch pinned on a line of the user's code (the global module
    hooks that fire an extra time for torch.compile(module), ...): where compiled and eager
    differ, torch's warning about the user's call is the first cause to look at."""
    said = []
    for w in ctx.r.torch_warnings(ctx.run_id):
        if w.get("lineno") and is_user_file(w.get("filename")):
            text = " ".join(str(w.get("message") or "").split())[:400]
            said.append(f" torch warned at line {w['lineno']}: \"{text}\"")
    return "".join(list(dict.fromkeys(said))[:MAX_WARNED])


def _accuracy_state(ctx: Any) -> str:
    rows = ctx.r.accuracy(ctx.run_id)
    if not rows:
        return "not run"
    return "equal" if all(r.get("ok") for r in rows) else "mismatch"


# What each signal means for a program, and what to do (data: one row per signal).
ASKED_ENDS = ("SystemExit", "KeyboardInterrupt")


def _native(end: dict[str, Any] | None) -> str | None:
    text = (end or {}).get("native_message")
    return " ".join(line.strip() for line in text.splitlines())[:400] if text else None


def _ended(ctx: Any, *, ended: str, reason: str, explanation: str, fix: str,
           frame: Any, cls: str = "ending", exc: dict[str, Any] | None = None,
           end: dict[str, Any] | None = None, sig: str | None = None,
           came_through: str | None = None) -> Diagnosis:
    exc_type = (exc or {}).get("exc_type") or (sig or ended)
    surfaced, raised = exception_frames(exc) if exc else (None, None)
    return Diagnosis(
        KIND, stage=None, compile_id=(exc or {}).get("compile_id"), reason=reason,
        user_frame=frame, explanation=explanation, fix=fix, score=SPEC.score(cls),
        torch_message=(exc or {}).get("message") or (end or {}).get("native_message"),
        details=ProgramDetails(exc_type=exc_type, compiled=bool(came_through),
                               surfaced_at=surfaced, raised_in=raised,
                               came_through=came_through, ended=ended, signal=sig,
                               exit_code=ctx.run.get("exit_code"),
                               native_message=(end or {}).get("native_message"),
                               fatal_error=(end or {}).get("fatal_error")))


def asked_end(ctx: Any, exc: dict[str, Any]) -> Diagnosis:
    """sys.exit(N != 0) or Ctrl-C: the end the program or its user asked for, where it was."""
    surfaced, _ = exception_frames(exc)
    frame = locate(ctx, torch=[surfaced])
    where = f" at line {frame.lineno}" if frame.lineno else ""
    code = ctx.run.get("exit_code")
    if exc.get("exc_type") == "KeyboardInterrupt":
        inside = f", inside {exc['compiled']}" if exc.get("compiled") else ""
        return _ended(ctx, ended="interrupt", reason=f"interrupted (Ctrl-C){where}{inside}",
                      explanation=f"KeyboardInterrupt stopped the run{where}{inside}; "
                                  "nothing after it ran.",
                      fix=INTERRUPT_FIX.format(line=frame.lineno or "?", show=command_line(
                          "show", ctx.run_id, store=ctx.store)), frame=frame,
                      exc=exc, came_through=exc.get("compiled"))
    said = (exc.get("message") or "").strip()
    text = f" ({said[:200]})" if said and not said.lstrip("-").isdigit() else ""
    return _ended(ctx, ended="sys.exit", cls="asked_end",
                  reason=f"exited with status {code} via sys.exit{where}{text}",
                  explanation=f"The program raised SystemExit{where}, which ends python "
                              f"with status {code}: it ended itself, no exception escaped.",
                  fix=EXIT_FIX.format(code=code, where=where), frame=frame, exc=exc)


def ending(ctx: Any) -> list[Diagnosis]:
    """How a run that exited non-zero without an exception of its own ended."""
    ends = ctx.r.program_ends(ctx.run_id)
    code = ctx.run.get("exit_code")
    exited = next((e for e in ends if e.get("how") == "os._exit"), None)
    end = next((e for e in reversed(ends) if e.get("how") != "os._exit"), None)
    if exited is not None:
        frame = locate(ctx, torch=[exited.get("frames") or []])
        where = f" at line {frame.lineno}" if frame.lineno else ""
        return [_ended(ctx, ended="os._exit",
                       reason=f"exited with status {exited.get('exit_code')} via os._exit"
                              f"{where}",
                       explanation=f"os._exit({exited.get('exit_code')}){where} ended the "
                                   "process at once: no exception, no atexit handlers, "
                                   "buffered output not flushed.",
                       fix=EXIT_FIX.format(code=exited.get("exit_code"), where=where),
                       frame=frame, end=end)]
    if end is not None and end.get("signal"):
        return [_killed(ctx, end)]
    if end is None and ctx.run.get("status") == "killed" and isinstance(code, int) \
            and code > 128:
        # 143 = 128 + SIGTERM, no end recorded (probes29d rank0_logit_histogram's rank 1)
        return [_killed(ctx, {"signal": code - 128, "how": "signal"})]
    if end is None and ctx.ending_failure is not None:
        return []  # nothing but the failure says how it ended: the failures kind's fatal one
    native = _native(end)
    said = f" ({native})" if native else ""
    if end is None:
        reason = f"exited with status {code}; nothing recorded says how"
    else:
        reason = f"exited with status {code} without an exception{said}"
    # a generated kernel's own check that ingest found in its last words: its ops' line
    frame = locate(ctx, end.get("kernel_compile_id"), nodes=[end.get("kernel_frames") or []]) \
        if end is not None and end.get("kernel") else UserFrame()
    if frame.lineno:
        reason += f" (kernel {end['kernel']}, generated for line {frame.lineno})"
    return [_ended(ctx, ended="exit", reason=reason,
                   explanation=f"The run ended with status {code}, but no exception, "
                               "sys.exit or os._exit of the program's was recorded.",
                   fix=NATIVE_EXIT_FIX.format(said=said), frame=frame, end=end)]


# A native end whose innermost compiled frame is Dynamo's eval frame itself: only Dynamo's
# generated bytecode was running.
EVAL_FRAME = "Dynamo's eval frame (a compiled function's call)"


def break_behind_call(ctx: Any, outside: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The graph break behind the call a native end happened in, when only Dynamo's eval
    frame was running (issue 29 §1, §3): Dynamo's generated bytecode for a function that
    graph-broke holds the resume function made at the break and the values live across it
    (a value it cannot handle there, an unhashable constant, aborts the process in the eval
    frame's C++ callback, pytorch/pytorch#193288). The break whose user traceback (torch's
    own) passes through the crash's call site; None when none does."""
    site = next((f for f in reversed(outside) if is_user_file(f.get("filename"))), None)
    if site is None:
        return None
    at = (ctx.resolve(site.get("filename")), site.get("lineno"))
    for row in ctx.r.graph_breaks(ctx.run_id):
        stack = row.get("user_stack") or []
        if row.get("lineno") and any((ctx.resolve(f.get("filename")), f.get("lineno")) == at
                                     for f in stack[:-1]):
            return row
    return None


def _killed_compiling(ctx: Any, end: dict[str, Any], sig: str, meaning: str, cls: str,
                      native: str | None, u: Unfinished) -> Diagnosis:
    """A run that ended by a signal while torch.compile was compiling (nothing of the user's
    on the stack faulthandler dumped): the compile, at the call that started it."""
    at = f" (called at line {u.call.lineno})" if u.call.lineno else ""
    ran = f" for {u.seconds:.0f} s" if u.seconds is not None else ""
    graph, loops = "", u.unrolled()
    if u.nodes:
        graph = f" Its graph has {u.nodes} nodes"
        if loops:
            f, k = loops[0]
            graph += (f"; line {f.lineno} alone made {k} of them: a Python loop Dynamo "
                      "unrolled into the graph (each iteration's ops are new nodes)")
        graph += "."
    if cls == "timer":
        fix = timer_fix(ctx.source_text(u.call.filename), f" while compiling {u.function}()")
    elif loops:
        fix = UNROLLED_FIX.format(lines=", ".join(str(f.lineno) for f, _ in loops))
    elif cls == "crash":
        fix = CRASH_EAGER_FIX.format(where=f"while compiling {u.function}()")
    else:
        fix = COMPILING_FIX.format(show=command_line("show", ctx.run_id, store=ctx.store))
    return _ended(ctx, ended="signal",
                  reason=f"killed by {sig} while compiling {u.describe()}"
                         + (f": {native}" if native else ""),
                  explanation=f"The program was killed by {sig}: {meaning}. torch.compile had "
                              f"been compiling {u.function}(){at}{ran} and had not finished."
                              f"{graph}",
                  fix=fix, frame=u.call, end=end, sig=sig,
                  came_through=f"the compile of {u.function}()")


def _killed(ctx: Any, end: dict[str, Any]) -> Diagnosis:
    sig = signal_name(end.get("signal"))
    meaning, cls = SIGNALS.get(sig, (f"{sig} ended it", "crash"))
    frames = end.get("frames") or []
    native = _native(end) or _native({"native_message": launcher_native(ctx.r, ctx.run)})
    # A generated kernel's own check ended it (ingest named it from the C++ runtime's last
    # words): evidence of its own, whatever faulthandler's dump shows.
    kernel = end.get("kernel")
    # torch.compile was still compiling: the compile says where the run was
    compiling = unfinished_compile(ctx) if not kernel else None
    killed_fix = KILLED_FIX.format(show=command_line("show", ctx.run_id, store=ctx.store))
    first = failed_first(ctx.r, ctx.run) if sig in TEARDOWN_SIGNALS else None
    if not frames and not kernel and first is not None:  # torchrun's teardown of the job
        rank, see = first["rank"], command_line("explain", first["id"], store=ctx.store)
        return _ended(ctx, ended="signal", reason=f"killed by {sig} after rank {rank} ended "
                      f"with status {first['exit_code']}", explanation=f"The launcher stops "
                      f"every rank with {sig} when one fails: rank {rank} ended first; this "
                      "rank was stopped, not failing.", fix=f"See rank {rank}'s diagnosis: "
                      f"`{see}`.", frame=UserFrame(), end=end, sig=sig)
    if not frames and compiling is not None:
        return _killed_compiling(ctx, end, sig, meaning, cls, native, compiling)
    if not frames and not kernel:
        fix, frame = mismatch_fix(ctx, native) or (killed_fix if cls == "killed" else
                                                   CRASH_EAGER_FIX.format(
                                                       where="no Python stack was left"),
                                                   UserFrame())
        return _ended(ctx, ended="signal", reason=f"killed by {sig} (nothing after it was "
                                                 f"recorded)" + (f": {native}" if native else ""),
                      explanation=f"The program was killed by {sig}: {meaning}. The process "
                                  "had no chance to say where it was.",
                      fix=fix, frame=frame, end=end, sig=sig)
    inner = frames[-1] if frames else {}
    if not kernel and not native and is_user_file(inner.get("filename")):
        asked = ctx.frame(inner.get("filename"), inner.get("lineno"), inner.get("line"),
                          evidence="torch")
        if asked.line and self_signal(asked.line, sig):
            where = f" at line {asked.lineno}"
            return _ended(ctx, ended="signal", reason=f"ended itself with {sig}{where} "
                                                      f"(`{asked.line.strip()}`)",
                          explanation=f"Line {asked.lineno} of the program sent its own "
                                      f"process {sig}: "
                                      "it ended itself; no exception escaped and nothing "
                                      "crashed.",
                          fix=SELF_SIGNAL_FIX.format(sig=sig, where=where,
                                                     code=asked.line.strip()),
                          frame=asked, end=end, sig=sig)
    files = stack_files(frames)
    first = first_compiled(files)
    what = compiled_in(files)
    if kernel:
        # the line of the ops the kernel computes, before the call that was running
        frame = locate(ctx, end.get("kernel_compile_id"),
                       torch=[frames[first:] if first is not None else []],
                       nodes=[end.get("kernel_frames") or []],
                       calls=[frames[:first] if first is not None else []])
        what = f"{what or 'a generated kernel'}, kernel {kernel}"
        called = [f for f in (frames[:first] if first is not None else [])
                  if is_user_file(f.get("filename"))]
        if called and called[-1].get("lineno") != frame.lineno:
            what += f", called at line {called[-1].get('lineno')}"
    elif what == EVAL_FRAME and (brk := break_behind_call(ctx, frames[:first])):
        # Dynamo's own generated bytecode was running, nothing deeper: for a function that
        # graph-broke at that call, that bytecode is the one built around the break.
        frame = ctx.frame(ctx.resolve(brk["filename"]), brk["lineno"], brk.get("line"),
                          evidence="torch")
        what = f"{what}, in the code Dynamo generated for the graph break at line {frame.lineno}"
    elif what:
        # A crash inside compiled code: the op of the compiled function, before its call.
        frame = ran_op(ctx, frames)
    else:
        frame = locate(ctx, torch=[frames[:first] if first is not None else frames])
    if compiling is not None and (not frame.lineno or cls != "crash" and in_a_compile(files)):
        return _killed_compiling(ctx, end, sig, meaning, cls, native, compiling)
    where = f" at line {frame.lineno}" if frame.lineno else ""
    inner = frames[-1] if frames else {}
    mine = [f for f in frames[first:] if is_user_file(f.get("filename"))] \
        if first is not None else []
    of = f" of {mine[0].get('name')}" if mine else ""
    in_code = f"in compiled code{of}: {what}" if what else \
        f"in {inner.get('name')}, {os.path.basename(inner.get('filename') or '?')}:" \
        f"{inner.get('lineno')}"
    minify, bisect = crash_commands(ctx)
    fix = crash_fix(compiled=bool(what), cls=cls, frames=frames, first=first, kernel=kernel,
                    killed_fix=killed_fix, where=in_code, bisect=bisect, minify=minify,
                    native=native,
                    at=(frame.lineno, frame.line), source=ctx.source_text(frame.filename))
    # The innermost Python frame is the user's own line (os.abort(), a C extension's call).
    own = not what and (inner.get("filename"), inner.get("lineno")) == (frame.filename,
                                                                        frame.lineno)
    return _ended(ctx, ended="signal",
                  reason=f"killed by {sig}{where}" + ("" if own else f" ({in_code})")
                         + (f": {native}" if native else ""),
                  explanation=f"The program was killed by {sig}{where}: {meaning}. "
                              f"faulthandler's Python stack ends {in_code}"
                              + (f", last in your {mine[-1].get('name')} at "
                                 f"{os.path.basename(mine[-1].get('filename') or '')}:"
                                 f"{mine[-1].get('lineno')}" if len(mine) > 1 else "") + "."
                              + (f" Native code said: {native}" if native else ""),
                  fix=fix, frame=frame, cls="crash" if what else "ending", end=end, sig=sig,
                  came_through=what)


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    exc = ctx.program_exception
    if exc is not None and exc.get("exc_type") in ASKED_ENDS:
        cause = HX.handled(exc) if exc.get("exc_type") == "SystemExit" else None
        if cause is None or cause["exc_type"] in ASKED_ENDS:
            return [asked_end(ctx, exc)]
        # an exit in an `except` block: the exception it handled ended the run (issue 29 §2)
        at = locate(ctx, torch=[exception_frames(exc)[0]])
        return [HX.then_exited(d, ctx, exc, at) for d in _exception(ctx, cause)]
    if exc is None:
        return ending(ctx) if ctx.crashed else []
    return _exception(ctx, exc)


def _exception(ctx: Any, exc: dict[str, Any]) -> list[Diagnosis]:
    """The exception that ended the run (or that the program's exit was handling)."""
    surfaced, raised = exception_frames(exc)
    # torch.compile(...) raised at its own call: not compiled code, whatever frame it passed
    refused = compile_api_refusal([(f.get("filename") or "", f.get("name") or "")
                                   for f in exc.get("frames") or []])
    compiled = bool(exc.get("compiled")) and not refused
    anomaly = HX.anomaly_nan(ctx, exc.get("message") or "") if compiled else None
    if anomaly is not None:
        return [anomaly_diagnosis(ctx, exc, anomaly, surfaced, raised)]
    if compiled and (exc.get("stage") or "runtime") == "runtime":
        # Raised while compiled code ran: the op inside it that raised, before its call.
        frame = ran_op(ctx, exc.get("frames"), exc.get("compile_id"), words=exc.get("message"),
                       kernel_frames=kernel_frames(ctx), calls=[surfaced])
    else:
        frame = locate(ctx, torch=[surfaced])
    exc_type = exc.get("exc_type") or "Exception"
    message = exc.get("message") or ""
    reason = summarise(message, exc_type)
    said = summarise(message) or exc_type
    where = f" at line {frame.lineno}" if frame.lineno else ""
    common = dict(compile_id=exc.get("compile_id"), user_frame=frame, torch_message=message)
    strict = WE.error_filter(ctx, exc_type, raised)
    if strict is not None:  # a warning the program's own filter made an exception
        words = dict(exc_type=exc_type, where=where, lineno=strict["lineno"], said=said,
                     filter=strict["statement"], category=exc_type.rsplit(".", 1)[-1])
        return [Diagnosis(
            KIND, stage=None, reason=WE.REASON.format(**words),
            explanation=WE.EXPLANATION.format(**words), fix=WE.FIX.format(**words),
            score=SPEC.score("crash"), compile_id=exc.get("compile_id"), torch_message=message,
            user_frame=strict["frame"],
            details=ProgramDetails(exc_type=exc_type, compiled=bool(exc.get("compiled")),
                                   surfaced_at=surfaced, raised_in=raised))]
    if compiled:
        stage = exc.get("stage") or "runtime"
        return [Diagnosis(
            "failure", stage=stage, reason=reason,
            explanation=stage_explanation(stage, True) + f" It came through "
                                                         f"{exc['compiled']}."
            + (" " + INTERNAL_EXPLANATION.format(inner=said) if exc_type == INTERNAL_ERROR
               else ""),
            fix=failure_fix(stage, exc_type, reason, run_id=ctx.run_id, argv=ctx.argv,
                            function=ctx.user_fn_name(exc.get("compile_id")),
                            store=ctx.store, torch_message=message,
                            no_minify=minify_unavailable(ctx, exc.get("compile_id"), message)),
            score=SPEC.score("crash"), **common,
            details=ProgramDetails(exc_type=exc_type, compiled=True, surfaced_at=surfaced,
                                   raised_in=raised, came_through=exc.get("compiled")))]
    if refused:
        return [refusal(ctx, exc, frame, exc_type, said, where, surfaced, raised)]
    late = None if compiled else async_kernel_error(ctx, exc, surfaced)
    if late is not None:
        return [late]
    check = user_check(ctx, exc, surfaced)
    accuracy = _accuracy_state(ctx) if check else None
    if check:
        causes = failed_check_causes(ctx, accuracy)
        verdict = {"equal": CHECK_EQUAL, "mismatch": CHECK_MISMATCH}.get(
            accuracy or "", CHECK_UNMEASURED.format(rerun=ctx.rerun_command("--check-accuracy")))
        # each cause's fix, the first first; a measured cause says more than the plain verdict
        verdict = " ".join([c.fix for c in causes]
                           + ([] if any(c.measured for c in causes) else [verdict]))
        if accuracy == "equal":  # say what the check compared: which values, how close
            verdict = f"{what_was_compared(ctx.r.accuracy(ctx.run_id))} {verdict}"
        head = f"your own check{where} failed" + (
            ", while --check-accuracy found the compiled graphs equal to eager"
            if accuracy == "equal" else "") + "".join(f"; {c.words}" for c in causes)
        return [Diagnosis(
            KIND, stage=None, reason=f"{head}: `{check[:200]}` ({said})",
            explanation=f"The program raised {exc_type}{where}, outside compiled code, in a "
                        f"check that compares `{check[:300]}`." + torch_warned(ctx),
            fix=verdict, score=SPEC.score("user_check"), **common,
            details=ProgramDetails(exc_type=exc_type, compiled=False, surfaced_at=surfaced,
                                   raised_in=raised, check=check, accuracy=accuracy))]
    details = ProgramDetails(exc_type=exc_type, compiled=False, surfaced_at=surfaced,
                             raised_in=raised)
    made = gradient_of_compiled(ctx, message, frame)
    if made is not None:  # autograd through a gradient the compiled backward made
        return [Diagnosis(
            "failure", stage="runtime", score=SPEC.score("crash"), details=details, **common,
            reason=f"double backward through compiled code{where} ({exc_type}): {said}",
            explanation=DOUBLE_EXPLANATION.format(lineno=made.lineno) + CONNECTIVITY_WHY,
            fix=DOUBLE_FIX.format(lineno=made.lineno))]
    if (advice := compile_advice(message)) is not None:  # torch.compile's own check refused
        return [Diagnosis(
            "failure", stage="runtime", score=SPEC.score("crash"), details=details, **common,
            reason=f"torch.compile refused{where} ({exc_type}): {said}",
            explanation=COMPILE_REFUSAL, fix=COMPILE_FIX.format(advice=advice))]
    exported = wrapper_exported(ctx, frame.line)
    clause, more, fix = export_words(exported) if exported else ("", "", None)
    return [Diagnosis(
        KIND, stage=None,
        reason=f"the program raised {exc_type}{where}, outside compiled code: {said}"
               + (f" ({clause})" if clause else ""),
        explanation=f"The run ended with {exc_type}{where}; the exception was raised in "
                    f"{(raised or {}).get('filename')}:{(raised or {}).get('lineno')} "
                    f"({(raised or {}).get('name')}), outside compiled code." + (
                        f" {more}" if more else ""),
        # (an error torch.compile set up, PROGRAM_FIXES, is not checked under force_eager:
        # the stance keeps the wrapper and what it changed, probes28b resume_from_checkpoint)
        fix=fix or first(PROGRAM_FIXES, message, frame.line) or OUTSIDE,
        score=SPEC.score("ending"), **common, details=details)]


def anomaly_diagnosis(ctx: Any, exc: dict[str, Any], anomaly: dict[str, Any],
                      surfaced: dict[str, Any] | None, raised: dict[str, Any] | None
                      ) -> Diagnosis:
    """Anomaly mode's NaN/inf in a compiled backward (analyses/handled_exit.py)."""
    frame, words = HX.anomaly_words(ctx, anomaly, surfaced)
    return Diagnosis(KIND, stage=None, compile_id=exc.get("compile_id"), user_frame=frame,
                     score=SPEC.score("ending"), torch_message=exc.get("message"), **words,
                     details=ProgramDetails(exc_type=exc.get("exc_type") or "RuntimeError",
                                            compiled=True, surfaced_at=surfaced,
                                            raised_in=raised, came_through=exc.get("compiled")))


# A GPU kernel's error reaches Python only at the next call that waits for the device (CUDA
# reports it asynchronously): torch's words for such an exception.
ASYNC_DEVICE_ERROR = one_of(*ASYNC_DEVICE_WORDS)
def async_kernel_error(ctx: Any, exc: dict[str, Any], surfaced: dict[str, Any] | None
                       ) -> Diagnosis | None:
    """An asynchronous device error raised outside compiled code whose cause ingest found in a
    generated kernel (its device-side assert on stderr: program_ends.kernel): the kernel's
    ops' line is the cause, the exception's line only where CUDA reported it (issue 29 §1,
    §3). None when it is not such an error or no kernel was named."""
    message = exc.get("message") or ""
    if not found(ASYNC_DEVICE_ERROR, message):
        return None
    end = next((e for e in ctx.r.program_ends(ctx.run_id) if e.get("kernel")), None)
    if end is None:
        return None
    frame = locate(ctx, end.get("kernel_compile_id"), nodes=[end.get("kernel_frames") or []])
    where = f" at line {frame.lineno}" if frame.lineno else ""
    late = (surfaced or {}).get("lineno")
    exc_type = exc.get("exc_type") or "Exception"
    native = (_native(end) or "a device-side check failed").rstrip(".")
    _, bisect = commands(ctx.run_id, ctx.argv, ctx.store)
    return Diagnosis(
        KIND, stage="runtime", compile_id=end.get("kernel_compile_id"),
        reason=f"a compiled kernel failed its check{where}: {native} ({end['kernel']}); "
               f"CUDA reported it later, as {exc_type}"
               + (f" at line {late}" if late else ""),
        explanation=ASYNC_EXPLANATION.format(
            surfaced=f" (line {late})" if late else "", kernel=end["kernel"],
            line=frame.lineno or "?"),
        fix=ASYNC_FIX.format(line=frame.lineno or "?", bisect=bisect),
        user_frame=frame, torch_message=message + (f"\n{native}" if native else ""),
        score=SPEC.score("crash"),
        details=ProgramDetails(exc_type=exc_type, compiled=True, surfaced_at=surfaced,
                               raised_in=None, came_through=f"kernel {end['kernel']}",
                               native_message=end.get("native_message")))


def refusal(ctx: Any, exc: dict[str, Any], frame: UserFrame, exc_type: str, said: str,
            where: str, surfaced: dict[str, Any] | None,
            raised: dict[str, Any] | None) -> Diagnosis:
    """torch.compile(...) refused its argument at the user's call (formats/compiled_code.py's
    compile_api_refusal), or raised in the user's code it ran there: what torch refused and
    torch's own way round it, never a compiled code failure or a bisect (issue 29 §3), and no
    stage, since nothing was compiled (two blind users, probes29b and set24/gpu)."""
    words = refusal_parts(ctx, exc, frame, exc_type, said, where, raised)
    return Diagnosis(
        "failure", stage=None, reason=words["reason"], explanation=words["explanation"],
        fix=words["fix"], score=SPEC.score("crash"), compile_id=None, user_frame=words["frame"],
        torch_message=exc.get("message") or "",
        details=ProgramDetails(exc_type=exc_type, compiled=False, surfaced_at=surfaced,
                               raised_in=raised))
