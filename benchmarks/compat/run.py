"""Does compdiag work on torch VERSION? A venv with that torch, compdiag installed into it
without touching torch, the CPU corpus through `compdiag run` + `explain`, one line out:

    python benchmarks/compat/run.py 2.15.0 [--keep] [--venv DIR] [--jobs N]
    torch 2.15.0+cu132: 49/49 corpus cases right, wall 402 s (install 151 s)

A benchmark, not CI (CI keeps torch 2.13.0 from the file on disk). torch 2.13.0 comes from
that file; other versions from the registry (CUDA builds of ~5.4 GB here, run on the CPU),
with the machine-wide pip cap (torch <= 2.14.1) switched off for this venv only. compdiag is
installed the way a user would (`pip install -e .`, no constraint), and the script checks that
this left the venv's torch as it was: pyproject must never downgrade a user's torch.

The per-case verdicts go to benchmarks/compat/results/VERSION.json; the venv is deleted
afterwards unless --keep (or --venv names one that already existed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from corpus_check import CORPUS, case_problems, load_sidecar, run_case  # noqa: E402

RESULTS = Path(__file__).parent / "results"
DISK_TORCH = "2.13.0"  # the CPU build that lies on this machine's disk (the default pip finds it)
CERT = "/etc/ssl/certs/ca-certificates.crt"


def _pip_env(version: str) -> dict[str, str]:
    env = dict(os.environ)
    if version != DISK_TORCH:
        env["PIP_CONFIG_FILE"] = "/dev/null"  # the machine's config caps torch at 2.14.1
        env["PIP_CERT"] = CERT
    return env


def _pip(venv: Path, version: str, *args: str) -> None:
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *args],
                   check=True, env=_pip_env(version))


def torch_version(python: Path) -> str | None:
    p = subprocess.run([str(python), "-c", "import torch; print(torch.__version__)"],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def prepare(venv: Path, version: str) -> str:
    """The venv with torch VERSION and compdiag; returns the torch version it reports."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    have = torch_version(python)
    if not (have or "").startswith(version):
        _pip(venv, version, f"torch=={version}")
        have = torch_version(python)
    # As a user would: no constraint, so a cap or pin in pyproject would show here.
    _pip(venv, version, "-e", str(ROOT), "numpy")
    after = torch_version(python)
    if after != have:
        raise SystemExit(f"installing compdiag changed torch from {have} to {after}")
    return after


def run_corpus(python: Path, version: str, jobs: int) -> dict[str, list[str]]:
    """case -> what is wrong with it (empty: right), for every CPU corpus case."""
    names = sorted(p.name[:-len(".expected.json")] for p in CORPUS.glob("*.expected.json"))
    specs = {n: load_sidecar(CORPUS / f"{n}.expected.json", version) for n in names}
    with tempfile.TemporaryDirectory(prefix="compdiag-compat-") as tmp:
        work = Path(tmp)
        (work / "inductor-cache").mkdir()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {n: pool.submit(run_case, n, work, work / "inductor-cache",
                                      specs[n].get("run_args"), str(python)) for n in names}
            out = {}
            for n, f in futures.items():
                try:
                    out[n] = case_problems(f.result(), specs[n])
                except Exception as exc:  # noqa: BLE001 - a hung or broken case is a wrong one
                    out[n] = [f"{type(exc).__name__}: {exc}"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("version", help="torch version, e.g. 2.15.0")
    ap.add_argument("--venv", type=Path, default=None, help="the venv to use (kept)")
    ap.add_argument("--keep", action="store_true", help="keep the venv made for this run")
    ap.add_argument("--jobs", type=int, default=2, help="corpus cases at a time (default 2)")
    args = ap.parse_args(argv)
    venv = args.venv or Path(tempfile.gettempdir()) / f"compdiag-compat-{args.version}"
    made = not (venv / "bin" / "python").exists()
    start = time.monotonic()
    try:
        seen = prepare(venv, args.version)
        installed = time.monotonic() - start
        verdicts = run_corpus(venv / "bin" / "python", seen, args.jobs)
    finally:
        if made and not args.keep and args.venv is None:
            shutil.rmtree(venv, ignore_errors=True)
    wall = time.monotonic() - start
    right = sum(not v for v in verdicts.values())
    line = (f"torch {seen}: {right}/{len(verdicts)} corpus cases right, wall {wall:.0f} s "
            f"(install {installed:.0f} s)")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.version}.json").write_text(json.dumps(
        {"torch": seen, "line": line, "date": time.strftime("%Y-%m-%d"),
         "wrong": {n: v for n, v in verdicts.items() if v}}, indent=1) + "\n")
    print(line)
    for name, problems in verdicts.items():
        if problems:
            print(f"  {name}: {'; '.join(problems)[:300]}")
    return 0 if right == len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
