"""One corpus case, run and judged as `tests/test_corpus.py` and the compatibility script
(`benchmarks/compat/run.py`) both do: `compdiag run` the script (with its sidecar's
`run_args`), `compdiag explain --json` it, and hold the top diagnosis and the exit status
against the sidecar, `corpus/NAME.expected.json`.

A sidecar may carry per-torch expectations: `"torch": {"2.15": {...}}` overrides its keys for
torch 2.15 and newer (the highest version at or below the running one applies), for a case
whose trigger or wording a torch release changed. `"kind": null` there says that release fixed
the bug the script shows: the run must exit 0 with no problem diagnosed (information may
remain)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
TIMEOUT = int(os.environ.get("COMPDIAG_CORPUS_TIMEOUT", "300"))
# Kinds whose case ends the program with an exception (a non-zero exit).
ENDS_IN_EXCEPTION = ("failure", "program")


def _release(version: str) -> tuple[int, ...]:
    m = re.match(r"^(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def load_sidecar(path: Path, torch_version: str | None = None) -> dict[str, Any]:
    """The sidecar's expectations, with the per-torch overrides for `torch_version` applied."""
    spec = json.loads(path.read_text())
    for key in ("script", "kind", "lineno"):
        assert key in spec, f"{path.name} lacks {key!r}"
    by_torch = spec.pop("torch", {}) or {}
    if torch_version:
        for version in sorted(by_torch, key=_release):
            if _release(version) <= _release(torch_version):
                spec.update(by_torch[version])
    return spec


def corpus_half(sidecar: Path) -> int:
    """Which half of the CPU corpus a case (its sidecar's path) is in: tests/conftest.py gives
    each half its own pytest-xdist group, so two workers capture one half each. The halves
    alternate in name order, so each gets its share of the slow acc_/fail_/perf_ cases."""
    return sorted(CORPUS.glob("*.expected.json")).index(sidecar) % 2


def run_case(name: str, workdir: Path, cache_dir: Path, run_args: list[str] | None = None,
             python: str = sys.executable, folder: Path = CORPUS,
             extra_env: dict[str, str] | None = None,
             explain_args: list[str] | None = None) -> dict[str, Any]:
    """Run one corpus script (of `folder`) under capture, then explain it; both as the CLI
    would. `extra_env`: the test suite's fork server (cdtest.fork_server_env), or nothing.
    `explain_args`: the sidecar's, e.g. `["--job"]` for a case whose `run_args` launch ranks
    (`-m torch.distributed.run --nproc-per-node 2`): explain the job, not one rank's run."""
    store = workdir / (name.replace("/", "_") + ".db")
    # One compile thread: no worker pool to spawn per script on a 2-core machine.
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache_dir), PYTHONUNBUFFERED="1",
               TORCHINDUCTOR_COMPILE_THREADS="1")
    env.pop("TORCH_LOGS", None)
    env.pop("TORCH_TRACE", None)
    env.pop("COMPDIAG_ZYGOTE", None)
    env.update(extra_env or {})
    run = subprocess.run([python, "-m", "compdiag", "run", "--store", str(store),
                          *(run_args or []), str(folder / f"{name}.py")], cwd=workdir, env=env,
                         capture_output=True, text=True, timeout=TIMEOUT)
    exp = subprocess.run([python, "-m", "compdiag", "explain", "--store", str(store),
                          *(explain_args or []), "--json"], cwd=workdir, env=env, capture_output=True, text=True,
                         timeout=120)
    doc = json.loads(exp.stdout) if exp.returncode == 0 and exp.stdout.strip() else None
    return {"run_rc": run.returncode, "run_stderr": run.stderr[-3000:], "explain_rc":
            exp.returncode, "explain_stderr": exp.stderr[-3000:], "doc": doc,
            "store": str(store)}


def says_how_it_ended(diagnosis: dict[str, Any]) -> bool:
    """A problem diagnosis that says how the run ended (issue 29 §3): the program's ending
    (kind `program`: an exception outside compiled code, sys.exit, a signal, os._exit,
    Ctrl-C), the exception that ended it through compiled code, the fatal failure, or a job's
    divergence that names each rank's end as its consequence (a collective's timeout)."""
    details = diagnosis.get("details") or {}
    return diagnosis.get("severity", "problem") == "problem" and (
        diagnosis["kind"] == "program" or bool(details.get("fatal")) or "compiled" in details
        or bool(details.get("consequence")))


def ending_problems(result: dict[str, Any]) -> list[str]:
    """The invariant over one run: a run that did not exit 0 has a diagnosis saying how it
    ended; one that did has no such diagnosis."""
    diagnoses = (result.get("doc") or {}).get("diagnoses") or []
    told = [d for d in diagnoses if says_how_it_ended(d)]
    if result["run_rc"] != 0 and not told:
        return [f"the run exited {result['run_rc']} and no diagnosis says how it ended "
                f"(kinds: {[d['kind'] for d in diagnoses]})"]
    if result["run_rc"] == 0 and any(d["kind"] == "program" for d in told):
        return ["the run exited 0 and a program diagnosis says it ended badly"]
    return []


def top_problems(diag: dict[str, Any], spec: dict[str, Any], folder: str = "corpus"
                 ) -> list[str]:
    """Why the top diagnosis does not match the sidecar (empty: it matches)."""
    problems = []
    if diag["kind"] != spec["kind"]:
        problems.append(f"kind {diag['kind']!r} != {spec['kind']!r}")
    if spec.get("stage") and diag.get("stage") != spec["stage"]:
        problems.append(f"stage {diag.get('stage')!r} != {spec['stage']!r}")
    if spec.get("severity") and diag.get("severity", "problem") != spec["severity"]:
        # a recompile torch makes on purpose is information (issue 29 §2)
        problems.append(f"severity {diag.get('severity')!r} != {spec['severity']!r}")
    if spec.get("gb_code") and diag.get("gb_code") != spec["gb_code"]:
        problems.append(f"gb_code {diag.get('gb_code')!r} != {spec['gb_code']!r}")
    text = f"{diag.get('reason')} {diag.get('explanation')}".lower()
    if spec.get("reason") and spec["reason"].lower() not in text:
        problems.append(f"reason/explanation lacks {spec['reason']!r}: {diag.get('reason')!r}")
    if spec.get("fix") and spec["fix"].lower() not in (diag.get("fix") or "").lower():
        problems.append(f"fix lacks {spec['fix']!r}: {diag.get('fix')!r}")
    uf = diag.get("user_frame") or {}
    if not (uf.get("filename") or "").endswith(f"{folder}/" + spec["script"]):
        problems.append(f"user file {uf.get('filename')!r} is not {folder}/{spec['script']}")
    if uf.get("lineno") != spec["lineno"]:
        problems.append(f"user line {uf.get('lineno')} != {spec['lineno']}")
    if not uf.get("line"):
        problems.append("no source line")
    return problems


def case_problems(result: dict[str, Any], spec: dict[str, Any], folder: str = "corpus"
                  ) -> list[str]:
    """Everything wrong with one case's run: explain failed, nothing diagnosed, the top
    diagnosis is not the sidecar's, or the exit status is not the program's (a failure or
    program case exits non-zero, the others zero)."""
    if result["explain_rc"] != 0 or result["doc"] is None:
        return [f"explain failed: {result['explain_stderr'][-500:]}"]
    if result["doc"].get("faults"):  # a kind that raised: explain went on without it
        return [f"a diagnosis kind raised: {result['doc']['faults']}"]
    if spec["kind"] is None:  # fixed in this torch: nothing left to diagnose
        found = [d for d in result["doc"]["diagnoses"] if d.get("severity") != "info"]
        return ([f"torch fixed this case, yet the top diagnosis is {found[0]['kind']}: "
                 f"{found[0].get('reason')!r}"] if found else []) + (
            [f"the run exited {result['run_rc']}"] if result["run_rc"] != 0 else [])
    if not result["doc"]["diagnoses"]:
        return [f"no diagnosis; run stderr: {result['run_stderr'][-500:]}"]
    problems = top_problems(result["doc"]["diagnoses"][0], spec, folder)
    ends = spec["kind"] in ENDS_IN_EXCEPTION or spec.get("ends_in_exception")
    if ends and result["run_rc"] == 0:
        problems.append(f"the run exited 0, a {spec['kind']} case must not")
    if not ends and result["run_rc"] != 0:
        problems.append(f"the run exited {result['run_rc']}: {result['run_stderr'][-500:]}")
    return problems
