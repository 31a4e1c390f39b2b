"""A printed command runs where the user runs it, however compdiag was started
(formats/command_line.invocation). probes32a: a user who ran `.venv/bin/python -m compdiag`
without activating the venv pasted `compdiag run ...` and got "compdiag: command not found";
one who ran it with `PYTHONPATH=<checkout> python -m compdiag` pasted a line that ran no
compdiag at all. Before this test every printed line began with a bare `compdiag`."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cdtest import REPO
from test_explain import Store

PRINT = ("from compdiag.formats.command_line import command_line; "
         "import sys; print(command_line('runs', store=sys.argv[1]))")


def _printed(store: Path, env: dict[str, str], cwd: Path) -> str:
    out = subprocess.run([sys.executable, "-c", PRINT, str(store)], env=env, cwd=cwd,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _bare_path() -> str:
    """PATH without any folder that holds a `compdiag` console script."""
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and not (Path(p) / "compdiag").exists())


@pytest.mark.parametrize("via_pythonpath", [False, True])
def test_a_printed_line_runs_from_another_folder_without_compdiag_on_path(
        tmp_path, via_pythonpath):
    store = Store(tmp_path).done()
    env = {**os.environ, "PATH": _bare_path()}
    env.pop("PYTHONPATH", None)
    if via_pythonpath:
        env["PYTHONPATH"] = str(REPO)
    line = _printed(store, env, REPO)
    assert f"{shlex.quote(sys.executable)} -m compdiag runs --store" in line, line
    assert ("PYTHONPATH=" in line) == via_pythonpath, line
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    clean = {k: v for k, v in env.items() if k != "PYTHONPATH"}  # the user's shell
    ran = subprocess.run(line, shell=True, cwd=elsewhere, env=clean, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, (line, ran.stderr)
    assert "run" in ran.stdout.lower(), ran.stdout


def test_the_console_script_stays_the_head_where_it_is_on_path(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "compdiag"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{_bare_path()}"}
    env.pop("PYTHONPATH", None)
    line = _printed(tmp_path / "s.db", env, REPO)
    assert line.startswith("compdiag runs --store "), line
