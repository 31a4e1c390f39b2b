"""Fail open, where torch's own behaviour hangs on what capture does before the program: a
program that plain python ends one way ends the same way under `compdiag run`.

pytorch/pytorch#193288 (tests/scripts/import_order_abort.py) aborts on torch 2.13 only when
`torch._dynamo.convert_frame` was not imported explicitly before the program; capture imported
it (`import torch._dynamo.convert_frame`, `from torch._dynamo.convert_frame import
register_bytecode_hook`) to install its hooks, so under `compdiag run` the program printed its
result and exited 0 where plain python was killed by SIGABRT (set5's iinfo_across_break: the
run looked clean). Capture now imports the package only and reaches the module through it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cdtest import SCRIPTS, base_env, compdiag_args, run_cmd, shared_cache

SCRIPT = SCRIPTS / "import_order_abort.py"


@pytest.mark.slow
def test_a_program_torch_aborts_is_aborted_under_capture_too(tmp_path: Path) -> None:
    env = base_env(shared_cache())  # no fork server: its preloads are what this is about

    def plain_run():
        return run_cmd([sys.executable, str(SCRIPT)], env=env, cwd=tmp_path)

    def captured():
        return run_cmd(compdiag_args("run", "--store", tmp_path / "s.db", SCRIPT), env=env,
                       cwd=tmp_path)

    # torch 2.13's abort here is not deterministic across environments: in two fresh clones'
    # CI runs plain python printed its result and exited 0 (twice in a row in one of them),
    # while this machine's runs abort. What this test guards is the regression it was written
    # for, capture keeping a program from aborting that plain python aborts: so plain python
    # must abort first (one retry), and then capture must abort too (one retry for torch's own
    # rare miss; capture's import order preventing it fails both).
    plain = plain_run()
    if plain.returncode != -6:
        plain = plain_run()
    if plain.returncode != -6:
        pytest.skip(f"torch did not abort plain python here (exit {plain.returncode}): the "
                    "premise of pytorch#193288's repro does not hold in this environment")
    run = captured()
    if run.returncode != 128 + 6:
        run = captured()
    assert run.returncode == 128 + 6, run.stderr[-2000:]  # the shell's status of SIGABRT
    assert run.stdout == plain.stdout
    assert "unhashable type: 'torch.iinfo'" in run.stderr
    doc = run_cmd(compdiag_args("explain", "--store", tmp_path / "s.db", "--json"), env=env,
                  cwd=tmp_path)
    top = json.loads(doc.stdout)["diagnoses"][0]
    assert top["kind"] == "program" and "SIGABRT" in top["reason"], top
