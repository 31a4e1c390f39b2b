"""No abnormal end is left unexplained (issue 29 section 3, issue 30 item 6).

A property over a fuzzed set of endings: every way a program can end that is not "exit 0"
(sys.exit(n), an exception, SIGABRT after a C++ runtime's words, SIGSEGV, SIGKILL,
SIGTERM (with and without a handler of the program's), os._exit(n), native code calling
exit(), Ctrl-C) gets a problem diagnosis that says how it
ended, at the line where it did; an ending at exit 0 stays "no problems". The scripts come
from a small table, with the ending at a generated depth and line (seeded), and import
nothing heavy: no compile, all started at once into the session store (like conftest's
`launched`), each also run under plain python to check that compdiag changes nothing the
program prints or its exit status.

On main before this change a native crash, SIGKILL, os._exit, sys.exit(3) and native exit()
got "no problems found" (no diagnosis at all), and Ctrl-C printed compdiag's own frames.
SIGTERM said "killed by SIGTERM (nothing after it was recorded)", at no line, before capture
registered faulthandler for it (issue 29 §3).
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from cdtest import Launch, Proc, Session, base_env, compdiag_args
from compdiag.store.reader import Reader
from compdiag.views.explain import explain_document
from principles_check import ending_problems


@dataclass(frozen=True)
class Ending:
    name: str
    statement: str         # the line that ends the program (inside the generated function)
    imports: str
    rc: int                # plain python's exit status (negative: killed by that signal)
    reason: str            # what the top diagnosis' reason must say (a regex; LINE: the line)
    at_line: bool = True   # whether the diagnosis can point at the ending's line


# The C++ runtime's own words before it aborts on an uncaught exception (libstdc++'s
# verbose terminate handler), written where it writes them: file descriptor 2.
TERMINATE = ("terminate called after throwing an instance of 'c10::Error'\\n"
             "  what():  expected scalar type Float but found Half\\n")
ENDINGS = (
    Ending("sys_exit", "sys.exit(3)", "import sys", 3,
           r"exited with status 3 via sys\.exit at line LINE"),
    Ending("sys_exit_message", "sys.exit('giving up')", "import sys", 1,
           r"exited with status 1 via sys\.exit at line LINE \(giving up\)"),
    Ending("raise", "raise ValueError('bad value')", "", 1,
           r"raised ValueError at line LINE.*bad value"),
    Ending("abort", f"os.write(2, b\"{TERMINATE}\"); os.abort()", "import os", -6,
           r"killed by SIGABRT at line LINE: terminate called after throwing an instance of "
           r"'c10::Error' what\(\):\s+expected scalar type Float"),
    Ending("segfault", "faulthandler._sigsegv()", "import faulthandler", -11,
           r"killed by SIGSEGV at line LINE"),
    Ending("ctypes_segfault", "ctypes.string_at(0)", "import ctypes", -11,
           r"killed by SIGSEGV at line LINE \(in string_at"),
    Ending("sigkill", "os.kill(os.getpid(), signal.SIGKILL)", "import os, signal", -9,
           r"killed by SIGKILL \(nothing after it was recorded\)", at_line=False),
    Ending("sigterm", "os.kill(os.getpid(), signal.SIGTERM)", "import os, signal", -15,
           r"killed by SIGTERM at line LINE"),
    Ending("sigterm_own_handler", "signal.signal(signal.SIGTERM, lambda *a: sys.exit(7)); "
           "os.kill(os.getpid(), signal.SIGTERM)", "import os, signal, sys", 7,
           r"exited with status 7 via sys\.exit at line LINE"),
    Ending("os_exit", "os._exit(4)", "import os", 4,
           r"exited with status 4 via os\._exit at line LINE"),
    Ending("native_exit", "ctypes.CDLL(None).exit(5)", "import ctypes", 5,
           r"exited with status 5 without an exception", at_line=False),
    Ending("keyboard_interrupt", "raise KeyboardInterrupt", "", -2,
           r"interrupted \(Ctrl-C\) at line LINE"),
    Ending("clean", "return", "", 0, ""),
)


def _script(ending: Ending, rng: random.Random) -> tuple[str, int]:
    """A script that ends with `ending` inside a function `depth` calls deep, after some
    filler lines; returns (source, the ending's line)."""
    lines = [ending.imports, "print('started', flush=True)"]
    depth = rng.randint(0, 2)
    for _ in range(rng.randint(0, 4)):
        lines.append(f"x{len(lines)} = {rng.randint(0, 99)}")
    lines.append("def end():")
    lines += [f"    y{i} = {i}" for i in range(rng.randint(0, 3))]
    lines.append(f"    {ending.statement}")
    at = len(lines)
    for d in range(depth):
        lines.append(f"def call{d}():")
        lines.append(f"    {'end' if d == 0 else f'call{d - 1}'}()")
    lines.append(f"{f'call{depth - 1}' if depth else 'end'}()")
    return "\n".join(lines) + "\n", at


@dataclass
class Ended:
    ending: Ending
    script: Path
    line: int
    run: Proc
    plain: subprocess.CompletedProcess
    doc: dict


@pytest.fixture(scope="session")
def endings(session: Session, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ended]:
    """Every ending of ENDINGS under `compdiag run` and plain python, all started at once."""
    folder = tmp_path_factory.mktemp("endings")
    rng = random.Random(29)
    started: list[tuple[Ending, Path, int, Launch, subprocess.Popen]] = []
    for e in ENDINGS:
        source, line = _script(e, rng)
        script = folder / f"{e.name}.py"
        script.write_text(source)
        launch = session.start(f"ending-{e.name}", script)
        plain = subprocess.Popen([sys.executable, str(script)], env=base_env(), cwd=folder,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        started.append((e, script, line, launch, plain))
    out = {}
    for e, script, line, launch, plain in started:
        p = launch.wait()
        assert p.run_id is not None, p.stderr[-3000:]
        stdout, stderr = plain.communicate(timeout=120)
        with Reader(session.store) as r:
            doc = explain_document(r, p.run_id)
        out[e.name] = Ended(e, script, line, p,
                            subprocess.CompletedProcess(plain.args, plain.returncode, stdout,
                                                        stderr), doc)
    return out


def _program_stderr(stderr: str) -> str:
    lines = stderr.splitlines(keepends=True)
    assert lines and lines[-1].startswith("compdiag: "), stderr[-2000:]
    return "".join(lines[:-1])


def _shell_status(rc: int) -> int:
    return 128 - rc if rc < 0 else rc


@pytest.mark.slow
@pytest.mark.parametrize("name", [e.name for e in ENDINGS])
def test_every_ending_is_explained_and_left_as_it_was(endings: dict[str, Ended],
                                                      session: Session, name: str) -> None:
    """The invariant, for each ending: the program's streams and exit status are plain
    python's, and a run that did not exit 0 has a problem diagnosis first that says how it
    ended, at the ending's line (the one the script generator put it on); and §3's property
    over its store (tests/principles_check.py), as over every corpus run."""
    got = endings[name]
    e, p, plain = got.ending, got.run, got.plain
    assert plain.returncode == e.rc, plain.stderr
    assert p.returncode == _shell_status(e.rc), p.stderr[-3000:]
    assert p.stdout == plain.stdout == "started\n"
    assert _program_stderr(p.stderr) == plain.stderr
    with Reader(session.store) as r:
        assert not ending_problems(r, p.run_id, got.doc["diagnoses"])
    diagnoses = [d for d in got.doc["diagnoses"] if d["severity"] == "problem"]
    if e.rc == 0:
        assert diagnoses == []
        return
    assert diagnoses, f"{name}: no problem diagnosis for a run that ended {e.rc}"
    top = diagnoses[0]
    want = e.reason.replace("LINE", str(got.line))
    assert re.search(want, top["reason"]), (want, top["reason"])
    if e.at_line:
        assert (top["user_frame"]["filename"], top["user_frame"]["lineno"]) == (
            str(got.script), got.line), top["user_frame"]


@pytest.mark.slow
def test_a_native_crash_keeps_its_python_stack_out_of_the_users_stderr(
        endings: dict[str, Ended]) -> None:
    """faulthandler writes the crashed thread's Python stack to compdiag's side file: stored
    as the ending's frames, never on the program's stderr (plain python prints none)."""
    got = endings["segfault"]
    assert "Fatal Python error" not in got.run.stderr
    top = got.doc["diagnoses"][0]
    assert top["details"]["fatal_error"] == "Segmentation fault"
    assert top["details"]["signal"] == "SIGSEGV" and top["details"]["ended"] == "signal"
    abort = endings["abort"].doc["diagnoses"][0]
    assert abort["details"]["native_message"].startswith(
        "terminate called after throwing an instance of 'c10::Error'")


def _sleeper(folder: Path) -> Path:
    script = folder / "sleeper.py"
    script.write_text("import time\n"
                      "print('ready', flush=True)\n"
                      "def wait():\n"
                      "    time.sleep(120)\n"
                      "wait()\n")
    return script


def _default_sigint() -> None:
    """SIGINT as a terminal's foreground job has it (a job started in the background of a
    non-interactive shell inherits it ignored, and python then never raises
    KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """Run ARGS in its own process group, press Ctrl-C (SIGINT to the group, as a terminal
    does) once the program printed 'ready', and return (status, stdout, stderr)."""
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_default_sigint)
    first = proc.stdout.readline()
    assert first == "ready\n", (first, proc.stderr.read()[-3000:])
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, first + out, err


@pytest.mark.slow
def test_ctrl_c_reads_as_plain_python_and_is_interrupted_at_its_line(
        session: Session, tmp_path: Path) -> None:
    """Issue 30 item 6: Ctrl-C under `compdiag run` printed `<frozen runpy>` and
    compdiag/capture/child.py frames (plain python prints the user's frames and
    `KeyboardInterrupt`), and explain said "no problems found"."""
    script = _sleeper(tmp_path)
    rc, out, err = _interrupt(compdiag_args("run", "--store", session.store, script),
                              tmp_path, session.env())
    plain_rc, plain_out, plain_err = _interrupt([sys.executable, str(script)], tmp_path,
                                                base_env())
    assert plain_rc == -signal.SIGINT and rc == 128 + signal.SIGINT, err[-3000:]
    assert out == plain_out == "ready\n"
    assert _program_stderr(err) == plain_err, err
    assert plain_err.endswith("KeyboardInterrupt\n") and "compdiag" not in plain_err
    run_id = int(re.search(r"\| run (\d+) in ", err).group(1))
    with Reader(session.store) as r:
        top = explain_document(r, run_id)["diagnoses"][0]
    assert top["reason"] == "interrupted (Ctrl-C) at line 4", top
    assert (top["user_frame"]["filename"], top["user_frame"]["lineno"]) == (str(script), 4)


@pytest.mark.slow
def test_perf_stops_on_ctrl_c_with_one_line(session: Session, tmp_path: Path) -> None:
    """Issue 30 item 6: `compdiag perf` interrupted printed an empty report (and went on to
    the next mode); now one line says it stopped, with Ctrl-C's status and no report."""
    script = _sleeper(tmp_path)
    store = tmp_path / "perf.db"
    rc, out, err = _interrupt(compdiag_args("perf", "--store", store, script), tmp_path,
                              session.env())
    assert rc == 128 + signal.SIGINT, err[-3000:]
    assert out == "ready\n", out  # the program's own output, no report
    said = [line for line in err.splitlines() if line.startswith("compdiag: perf")]
    assert len(said) == 1 and "interrupted (Ctrl-C)" in said[0] and "no report" in said[0]
    assert err.count("Traceback") == 1  # the program's own KeyboardInterrupt, nothing else


@pytest.mark.slow
def test_a_run_ended_by_os_exit_keeps_its_device(endings: dict[str, Ended],
                                                 session: Session) -> None:
    """probes35c early_stop_os_exit_ok: `os._exit` runs no exit handler, and the device was
    written only there: explain's header lost "· cpu". The writer's timer records it as soon
    as it is known."""
    with Reader(session.store) as r:
        assert r.run(endings["os_exit"].run.run_id)["device"] == "cpu"
