"""How a run ended, in words (issue 29 §3): what each signal means and which class it is
(a crash of native code, or a kill from outside), and the fix of each kind of ending, as data
the program kind reads. Kept apart from the kind's logic (analyses/diagnoses/program.py)."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.analyses.fixes import commands
from compdiag.formats.command_line import command_line
from compdiag.analyses.runtime_fixes import known_error
from compdiag.formats.code_text import code_only_lines
from compdiag.formats.user_code import is_user_file

SIGNALS: dict[str, tuple[str, str]] = {
    "SIGSEGV": ("native code (a kernel, an extension, torch's C++) read or wrote memory it "
                "does not own", "crash"),
    "SIGBUS": ("native code touched memory that is not there (a truncated mmap'd file, a "
               "misaligned access)", "crash"),
    "SIGILL": ("the CPU met an instruction it does not have (code built for a newer CPU: "
               "Inductor's C++ kernels are built for this machine's ISA)", "crash"),
    "SIGFPE": ("native code divided an integer by zero", "crash"),
    "SIGABRT": ("native code gave up: an uncaught C++ exception, a failed assertion, or a "
                "heap check", "crash"),
    "SIGKILL": ("something outside the program killed it: most often the kernel's "
                "out-of-memory killer (`dmesg` says 'Out of memory: Killed process'), a job "
                "scheduler's limit, or `kill -9`", "killed"),
    "SIGTERM": ("something asked it to stop (a scheduler's time limit, a timeout, `kill`)",
                "killed"),
    "SIGINT": ("it was interrupted (Ctrl-C)", "killed"),
    # timers only the process itself sets: nothing outside sends these
    "SIGALRM": ("the program's own timer went off (`signal.alarm`, `setitimer`) with no "
                "handler left to catch it", "timer"),
    "SIGVTALRM": ("the program's own CPU-time timer went off (`setitimer(ITIMER_VIRTUAL)`) "
                  "with no handler left to catch it", "timer"),
    "SIGPROF": ("the program's own profiling timer went off (`setitimer(ITIMER_PROF)`) with "
                "no handler left to catch it", "timer"),
}
# The fix of a run its own timer ended: the first call of a compiled function compiles.
TIMER_FIX = ("The program's own timer ended it{armed}{during}. The first call of a compiled "
             "function compiles it (seconds, more for a large graph), and each recompile "
             "again: make a warm-up call before arming the timer, or give the first calls room "
             "(a longer deadline, a warm compile cache: the same TORCHINDUCTOR_CACHE_DIR).")


def timer_fix(source: str | None, during: str = "") -> str:
    """TIMER_FIX, naming the first call in the program's `source` that arms a timer
    (`signal.alarm(n)` with n other than 0, `signal.setitimer(...)`)."""
    at = None
    try:
        tree = ast.parse(source or "")
    except (SyntaxError, ValueError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(
                node.func, "id", None)) in ("alarm", "setitimer") and not (
                node.args and isinstance(node.args[-1], ast.Constant)
                and node.args[-1].value == 0):
            at = node.lineno if at is None else min(at, node.lineno)
    line = (source or "").splitlines()[at - 1].strip() if at else ""
    armed = f" (armed at line {at}: `{line}`)" if at else ""
    return TIMER_FIX.format(armed=armed, during=during)
KILLED_FIX = ("Nothing in the program failed: see what killed it. For the out-of-memory killer, "
              "compile with fewer workers (`TORCHINDUCTOR_COMPILE_THREADS=1`) or a smaller "
              "batch; `{show}` lists what was compiled before it.")
COMPILING_FIX = ("torch.compile was still compiling when the run was stopped: see how long "
                 "its compiles take (`{show}` lists them with their times), warm the "
                 "compile cache before a timed run (the same TORCHINDUCTOR_CACHE_DIR), or give "
                 "the first steps more time; for the out-of-memory killer, compile with "
                 "fewer workers (`TORCHINDUCTOR_COMPILE_THREADS=1`).")
UNROLLED_FIX = ("A graph this big is slow to compile (Inductor's time grows with its nodes, "
                "faster than linearly for long chains of fused ops). Keep the loop around line(s) "
                "{lines} out of the traced graph: compile the loop's body as its own function "
                "and call it from a plain Python loop, so each iteration reuses one small "
                "graph, or use a loop torch traces once (`torch._higher_order_ops.scan`, "
                "`while_loop`).")
CRASH_COMPILED_FIX = ("Native code crashed inside compiled code: check whether backend="
                      "'aot_eager' runs it (if it does, Inductor's generated code is at fault). "
                      "Find the culprit: {bisect} (a crash is a failing exit status). "
                      "{minify}")
KEEP = {"COMPDIAG_KEEP_GRAPHS": "1"}
KEEP_AND_MINIFY = ("compdiag's minifier cannot replay a crash from this run: a crash leaves no "
                   "chance to store the graph, so run it again with `COMPDIAG_KEEP_GRAPHS=1`, "
                   "which keeps each graph before its first call ({rerun}), then `{minify}` "
                   "(the latest run: the new one).")
# the run kept its graphs (COMPDIAG_KEEP_GRAPHS=1) and each first call survived: saying
# "run it again with COMPDIAG_KEEP_GRAPHS=1" again was a loop (probes42a tagger_keep)
KEPT_SURVIVED = ("This run kept each graph before its first call (COMPDIAG_KEEP_GRAPHS=1) and "
                 "those first calls ran; the crash came at a later call, whose inputs were not "
                 "kept, so the minifier has nothing that fails to replay: bisect is the route.")


def crash_commands(ctx: Any) -> tuple[str, str]:
    """(what to do for minify, the bisect command) of a crash in compiled code: keep the
    graphs and minify, unless this run kept them already and their first calls survived."""
    _, bisect = commands(ctx.run_id, ctx.argv, ctx.store)
    survived = next(iter(ctx.r.records(ctx.run_id, kind="compdiag:failure_graph_survived",
                                       with_payload=False)), None) is not None
    if survived:
        return KEPT_SURVIVED, bisect
    # the re-run is a new run: minify's RUN is the latest, not this one (probes42c
    # mel_cnn_cl_freq_pool_tail: the printed `minify ... 1` said run 1 "has no failure")
    rerun = f"`{command_line('run', *ctx.argv, store=ctx.store, env=KEEP)}`" if ctx.argv \
        else "the same command"
    return KEEP_AND_MINIFY.format(rerun=rerun, minify=command_line("minify", store=ctx.store)), \
        bisect
CRASH_OWN_CALL_FIX = ("The crash is in your own code that the compiled code calls: {name} at "
                      "line {line}{code}, a native call there read or wrote memory it does "
                      "not own (a byte count, a pointer, a size). torch.compile runs such code "
                      "(a custom op's body, a ctypes or extension call) as it is; run the same "
                      "call without torch.compile to see it crash alike, and fix that call.")
CRASH_EAGER_FIX = ("The crash is outside compiled code ({where}): run the script without "
                   "torch.compile (`torch.compiler.set_stance(\"force_eager\")`) to confirm "
                   "it is not torch.compile's.")
INTERRUPT_FIX = ("Nothing to fix: the run was stopped before its end, so what it would have "
                 "done after line {line} was not recorded. If it seemed stuck, `{show}` "
                 "lists its compiles and their times; run it to the end to diagnose it.")
EXIT_FIX = ("The program chose to exit with status {code}{where}: see why it did (the "
            "message it printed before).")
NATIVE_EXIT_FIX = ("It exited without an exception, sys.exit or os._exit: native code called "
                   "exit(){said}. Run it without torch.compile (`torch.compiler.set_stance("
                   "\"force_eager\")`) to see whether torch.compile is involved.")
# A line of the program's that ends its own process with a signal: os.abort(),
# signal.raise_signal(...). The run ended as the program asked, whatever called it (not when
# native code said something first: a C++ runtime's terminate words make it a crash).
SELF_ABORT = re.compile(r"(?<![\w.])(?:os\.)?abort\s*\(\s*\)")
SELF_RAISE = re.compile(r"(?<![\w.])(?:signal\.)?raise_signal\s*\(")


def self_signal(line: str, sig: str) -> bool:
    """Whether a line of code (its strings and comment left out) ends its own process with
    `sig`: os.abort() only with SIGABRT, signal.raise_signal with any."""
    code = "".join(code_only_lines(line.strip()))
    return bool(SELF_RAISE.search(code)) or (sig == "SIGABRT" and bool(SELF_ABORT.search(code)))
SELF_SIGNAL_FIX = ("The program sent itself {sig}{where} (`{code}`): see why it did (the "
                   "message it printed before). Nothing crashed, torch.compile's code "
                   "included.")


ASYNC_EXPLANATION = (
    "GPU kernels run asynchronously: an error inside one is reported at the next call that "
    "waits for the device{surfaced}, so the traceback's line is where it surfaced, not where it "
    "happened. The kernel that failed its check is {kernel}, generated for the ops of line "
    "{line}; its check says which value was out of range.")
ASYNC_FIX = (
    "The data reaching line {line} holds a value the op cannot take (an index past the end of "
    "its tensor, most often), and eager then fails there too. Run the function without torch.compile "
    "under CUDA_LAUNCH_BLOCKING=1 to see it raise at that line. If eager runs cleanly on the "
    "same data, the generated code is at fault: {bisect}.")


def crash_fix(*, compiled: bool, cls: str, frames: list[dict], first: int | None,
              kernel: str | None, killed_fix: str, where: str, bisect: str, minify: str,
              at: tuple[int | None, str | None] = (None, None),
              source: str | None = None, native: str | None = None) -> str:
    """The fix of a native crash or a kill by how faulthandler's stack ends: in the user's own
    function that compiled code called (its innermost frame the user's, after the compiled
    frames: a custom op's body, a ctypes call), in compiled code, or outside it. `at`: the
    diagnosis' (line, code), the code quoted when it is that frame's line; `source`, the
    program's (a timer's end names the line that armed it); `native`, what native code said
    (a known error eager raises too is its rule's fix, not bisect's: Inductor's C++ kernels
    keep eager's index checks and abort where eager raises, probes42a
    tagger_pad_label_minus_one_abort)."""
    inner = frames[-1] if frames else {}
    if cls == "timer":
        return timer_fix(source)
    if cls == "killed":   # stopped from outside: nothing crashed, wherever it landed
        return killed_fix
    if compiled and not kernel and first is not None \
            and len(frames) - 1 > first and is_user_file(inner.get("filename")):
        code = inner.get("line") or (at[1] if at[0] == inner.get("lineno") else None)
        return CRASH_OWN_CALL_FIX.format(name=inner.get("name"), line=inner.get("lineno"),
                                         code=f" (`{code.strip()}`)" if code else "")
    known = known_error(native) if native and compiled else None
    if known is not None and known.eager_fails:
        return known.fix + (f" {known.why}" if known.why else "")
    if compiled:
        return CRASH_COMPILED_FIX.format(bisect=bisect, minify=minify)
    return CRASH_EAGER_FIX.format(where=where)
