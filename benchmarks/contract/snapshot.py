"""Before/after check of the JSON contract: the same stores, read by two versions of compdiag.

A refactor must not change what `show`/`explain`/`minify`/`check`/`perf`/`diff` print for a
store. Running the corpus twice would compare two compiles (timings, kernel names and cache
hits move between processes), so this script records the corpus once into stores, and each
version of compdiag reads copies of those same stores:

    python benchmarks/contract/snapshot.py record STORES/        # capture once (old code is fine)
    python benchmarks/contract/snapshot.py dump STORES/ before.json   # with the old checkout
    python benchmarks/contract/snapshot.py dump STORES/ after.json    # with the new checkout
    python benchmarks/contract/snapshot.py compare before.json after.json

`dump` works on a copy of each store (reindexed first where the compdiag has `reindex`) and
runs `python -m compdiag` with the python that runs this script: run it with the venv (or
PYTHONPATH) of the checkout to measure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
# Stores that also get the process-spawning commands (each costs compiles): one failure to
# minify, one accuracy case to check and minify, one perf case.
MINIFY = ("fail_lowering", "acc_relu_injected")
CHECK = ("acc_relu_injected", "gb_print")
PERF = ("perf_fallback_cumsum",)
DIFF = ("gb_print", "rc_dtype")  # recorded twice into one store: run 1 vs run 2


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache), PYTHONUNBUFFERED="1",
               TORCHINDUCTOR_COMPILE_THREADS="1")
    env.pop("TORCH_LOGS", None)
    env.pop("TORCH_TRACE", None)
    return env


def _cd(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 600
        ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compdiag", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def record(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    env = _env(out / "inductor-cache")

    def one(sidecar: Path) -> None:
        name = sidecar.name[:-len(".expected.json")]
        spec = json.loads(sidecar.read_text())
        p = _cd(["run", "--store", str(out / f"{name}.db"), *(spec.get("run_args") or []),
                 str(CORPUS / f"{name}.py")], out, env)
        print(f"{name}: rc {p.returncode}", flush=True)

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(one, sorted(CORPUS.glob("*.expected.json"))))
    for name in DIFF:
        _cd(["run", "--store", str(out / "diff.db"), str(CORPUS / f"{name}.py")], out, env)
    return 0


def _json(p: subprocess.CompletedProcess) -> Any:
    try:
        return {"rc": p.returncode, "doc": json.loads(p.stdout)}
    except ValueError:
        return {"rc": p.returncode, "stdout": p.stdout[-2000:], "stderr": p.stderr[-2000:]}


def dump(stores: Path, out: Path) -> int:
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = _env(stores / "inductor-cache")
        for db in sorted(stores.glob("*.db")):
            name = db.stem
            copy = work / db.name
            shutil.copy(db, copy)
            # A compdiag with a newer store layout upgrades the copy first; an older one has no
            # such command and reads the store as it is.
            _cd(["reindex", "--store", str(copy)], work, env)
            entry: dict[str, Any] = {}
            for cmd in ("show", "explain"):
                entry[cmd] = _json(_cd([cmd, "--store", str(copy), "--json"], work, env))
            if name in MINIFY:
                entry["minify"] = _json(_cd(["minify", "--store", str(copy), "--json", "-o",
                                             str(work / f"{name}_repro.py")], work, env))
            if name in CHECK:
                entry["check"] = _json(_cd(["check", "--store", str(copy), "--json", "1"],
                                           work, env))
            if name in PERF:
                entry["perf"] = _json(_cd(["perf", "--store", str(copy), "--json", "1"],
                                          work, env))
            if name == "diff":
                entry["diff"] = _json(_cd(["diff", "--store", str(copy), "--json", "1", "2"],
                                          work, env))
            result[name] = entry
            print(f"{name}: done", flush=True)
    out.write_text(json.dumps(_scrub(result, str(work)), indent=1, sort_keys=True,
                              default=repr))
    return 0


def _scrub(value: Any, tmp: str) -> Any:
    """The temporary directory's path differs between dumps: replace it."""
    if isinstance(value, str):
        return value.replace(tmp, "<tmp>")
    if isinstance(value, list):
        return [_scrub(v, tmp) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, tmp) for k, v in value.items()}
    return value


def _walk(a: Any, b: Any, path: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in b:
                out.append(f"{path}.{k}: removed")
            elif k not in a:
                out.append(f"{path}.{k}: added")
            else:
                _walk(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {json.dumps(a, default=repr)[:200]} -> "
                   f"{json.dumps(b, default=repr)[:200]}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    diffs: list[str] = []
    _walk(a, b, "", diffs)
    for line in diffs:
        print(line)
    print(f"{len(diffs)} difference(s) over {len(a)} stores")
    return 1 if diffs else 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "record":
        return record(Path(argv[1]))
    if len(argv) >= 3 and argv[0] == "dump":
        return dump(Path(argv[1]), Path(argv[2]))
    if len(argv) >= 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
