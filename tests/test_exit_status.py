"""`compdiag run` runs a program exactly as `python script.py` would: same streams, argv,
__main__, cwd, sys.path[0], and the program's own exit status (128+N when killed)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cdtest import SCRIPTS, Session, base_env, run_cmd

# compdiag run's own options among them: after SCRIPT they need a `--` first (else refused).
TRICKY_ARGS = ["a b", "-m", "x", "--store", "y.db", "--mode", "max-autotune", "ünï ✓", "--"]


def _plain(script_or_module: list[str], *, cwd: Path, stdin: str = "", env=None):
    return run_cmd([sys.executable, *script_or_module], env=env or base_env(), cwd=cwd,
                   stdin=stdin)


def _program_stderr(stderr: str) -> str:
    """stderr without compdiag's own closing summary line."""
    lines = stderr.splitlines(keepends=True)
    assert lines and lines[-1].startswith("compdiag: "), stderr[-2000:]
    return "".join(lines[:-1])


def test_exit_status_passthrough(session: Session, tmp_path: Path) -> None:
    p = session.run(SCRIPTS / "exit3.py", cwd=tmp_path)
    plain = _plain([str(SCRIPTS / "exit3.py")], cwd=tmp_path)
    assert plain.returncode == 3
    assert p.returncode == 3, p.stderr[-2000:]
    assert p.stdout == plain.stdout == "exiting with 3\n"
    assert session.show(p.run_id)["run"]["exit_code"] == 3


def test_uncaught_exception_exits_1_with_plain_traceback(session: Session,
                                                         tmp_path: Path) -> None:
    script = SCRIPTS / "raise_error.py"
    p = session.run(script, cwd=tmp_path)
    plain = _plain([str(script)], cwd=tmp_path)
    assert plain.returncode == 1 and p.returncode == 1
    assert p.stdout == plain.stdout == "about to raise\n"
    # The traceback reads exactly as plain python's: no compdiag or runpy frames.
    assert _program_stderr(p.stderr) == plain.stderr
    assert "ValueError: boom from user code" in p.stderr
    assert "compdiag" not in _program_stderr(p.stderr)
    doc = session.show(p.run_id)
    assert doc["run"]["exit_code"] == 1
    # Not a compile failure: no failure row, but explain says what ended the run.
    assert doc["failures"] == []
    (d,) = _explain(session, p.run_id)
    assert d["kind"] == "program" and "outside compiled code" in d["reason"]
    assert (d["user_frame"]["filename"], d["user_frame"]["lineno"]) == (str(script), 2)
    assert d["details"]["torch_message"] == "boom from user code"
    assert d["details"]["raised_in"]["name"] == "boom"


def _explain(session: Session, run_id: int) -> list[dict]:
    p = session.compdiag("explain", str(run_id), "--store", session.store, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["diagnoses"]


def test_a_compiled_code_runtime_error_is_the_top_diagnosis(session: Session,
                                                            tmp_path: Path) -> None:
    """A run that exits 1 from a RuntimeError raised through compiled code (AOTAutograd's
    runtime wrapper) is never "no problems found": its top diagnosis is that failure, at
    run time, at the user's line where it surfaced."""
    script = SCRIPTS / "compiled_runtime_error.py"
    p = session.run(script, cwd=tmp_path)
    assert p.returncode == 1, p.stderr[-2000:]
    top = _explain(session, p.run_id)[0]
    assert (top["kind"], top["stage"]) == ("failure", "runtime")
    assert (top["user_frame"]["filename"], top["user_frame"]["lineno"]) == (str(script), 8)
    assert "backward through the graph a second time" in top["reason"]
    assert top["details"]["fatal"] and "_aot_autograd" in top["details"]["raised_in"]["filename"]
    assert top["details"]["torch_message"].startswith("Trying to backward through the graph")


@pytest.mark.slow
def test_sigkill_gives_137(killed) -> None:
    assert killed.returncode == 137, killed.stderr[-2000:]
    assert killed.stdout == "compiled\n"


def test_script_sees_plain_python_world(session: Session, tmp_path: Path) -> None:
    """argv, __name__, __file__, cwd, sys.path[0], __main__, stdin/stdout/stderr and the
    exit status, compared field by field with `python sub/probe.py ...` from the same cwd."""
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(SCRIPTS / "probe.py", sub / "probe.py")
    stdin = "line one\nlíne two ✓\n"
    env = dict(session.env(), PROBE_EXIT="5")
    p = session.run("sub/probe.py", "--", *TRICKY_ARGS, cwd=tmp_path, stdin=stdin, env=env)
    plain = _plain(["sub/probe.py", *TRICKY_ARGS], cwd=tmp_path, stdin=stdin,
                   env=dict(base_env(), PROBE_EXIT="5"))
    assert plain.returncode == 5
    assert p.returncode == 5, p.stderr[-2000:]
    got, want = json.loads(p.stdout), json.loads(plain.stdout)
    assert want["argv"] == ["sub/probe.py", *TRICKY_ARGS]
    assert want["stdin"] == stdin
    assert got == want
    assert _program_stderr(p.stderr) == plain.stderr == "probe stderr line\n"
    assert session.show(p.run_id)["run"]["argv"] == ["sub/probe.py", *TRICKY_ARGS]


def test_run_module(session: Session, tmp_path: Path) -> None:
    """`compdiag run -m MODULE -- ARGS` is `python -m MODULE ARGS`, args after -- untouched."""
    shutil.copy(SCRIPTS / "probe.py", tmp_path / "probemod.py")
    args = ["-m", "probemod", *TRICKY_ARGS]
    p = session.compdiag("run", "--store", session.store, "-m", "probemod", "--", *TRICKY_ARGS,
                         cwd=tmp_path, stdin="in\n")
    plain = _plain(args, cwd=tmp_path, stdin="in\n")
    assert plain.returncode == 0 and p.returncode == 0, p.stderr[-2000:]
    got, want = json.loads(p.stdout), json.loads(plain.stdout)
    assert want["spec"] == "probemod" and want["name"] == "__main__"
    assert want["argv"][1:] == TRICKY_ARGS
    assert got == want
    assert _program_stderr(p.stderr) == plain.stderr


def test_missing_script_is_a_one_line_error(session: Session, tmp_path: Path) -> None:
    p = session.run(tmp_path / "nope.py")
    assert p.returncode == 2
    assert p.stderr.startswith("compdiag: error: ") and p.stderr.count("\n") == 1, p.stderr
    assert "nope.py" in p.stderr


def test_unwritable_store_for_the_child_still_runs_the_program(session: Session,
                                                               tmp_path: Path) -> None:
    """Fail-open: the child cannot open the store; the program runs untouched."""
    stdin = "x\n"
    env = session.env(PYTHONPATH=str(SCRIPTS / "fault_inject"), COMPDIAG_TEST_FAULT="store",
                      PROBE_EXIT="4")
    p = session.run(SCRIPTS / "probe.py", "arg", cwd=tmp_path, stdin=stdin, env=env)
    plain = _plain([str(SCRIPTS / "probe.py"), "arg"], cwd=tmp_path, stdin=stdin,
                   env=dict(base_env(), PROBE_EXIT="4"))
    assert p.returncode == 4 == plain.returncode, p.stderr[-2000:]
    assert json.loads(p.stdout) == json.loads(plain.stdout)
    assert "compdiag: capture disabled" in p.stderr
    assert "probe stderr line" in p.stderr
    assert "Traceback" not in p.stderr
    assert session.show(p.run_id)["run"]["exit_code"] == 4


def test_unwritable_store_for_compdiag_run_is_a_one_line_error(session: Session,
                                                               tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    p = session.compdiag("run", "--store", blocker / "store.db", SCRIPTS / "exit3.py")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("compdiag: error: ") and p.stderr.count("\n") == 1, p.stderr
    assert "Traceback" not in p.stderr


def test_syntax_error_reads_as_plain_python(session: Session, tmp_path: Path) -> None:
    script = tmp_path / "syn.py"
    script.write_text('print("never printed")\ndef broken(:\n    pass\n')
    p = session.run(script, cwd=tmp_path)
    plain = _plain([str(script)], cwd=tmp_path)
    assert p.returncode == plain.returncode == 1
    assert p.stdout == plain.stdout == ""
    assert _program_stderr(p.stderr) == plain.stderr
    assert plain.stderr.rstrip().endswith("SyntaxError: invalid syntax")


def test_the_programs_own_excepthook_reports_an_uncaught_exception(session: Session,
                                                                    tmp_path: Path) -> None:
    """probes40e inductor_cache_under_ckpt, blind: the program's sys.excepthook printed a JSON
    line to stdout on an uncaught error; under compdiag it was never called (compdiag printed
    the traceback itself), so stdout differed from plain python's. Fails on the code before."""
    script = tmp_path / "hooked.py"
    script.write_text("import json, sys\n\n\ndef hook(t, e, tb):\n"
                      "    print(json.dumps({'error': t.__name__}))\n\n\n"
                      "sys.excepthook = hook\nprint('start')\nraise ValueError('boom')\n")
    p = session.run(script, cwd=tmp_path)
    plain = _plain([str(script)], cwd=tmp_path)
    assert plain.returncode == p.returncode == 1
    assert p.stdout == plain.stdout == 'start\n{"error": "ValueError"}\n', p.stdout
    assert _program_stderr(p.stderr) == plain.stderr
