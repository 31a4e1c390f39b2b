"""Benchmark: a run's store against the TORCH_TRACE log of the same run (issue 34).

Each program runs once under `compdiag run` with TORCH_TRACE set as well, so the store and the
log hold the same compiles; then `compdiag import` reads that log into a fresh store. The
figures are bytes on disk (the store file with its WAL, checkpointed when the last connection
closed) over the log's bytes, and the records' stored bytes over their raw bytes (what `show`
says per run). The goal is <= 0.5 for both stores. Two programs: a small MLP compiled for N
input sizes, and benchmarks/workload_model.py's transformer blocks (2 layers, a training
step, then eval at a new batch size: a recompile).

    python benchmarks/bench_store_size.py                 # both programs
    python benchmarks/bench_store_size.py --case mlp --sizes 8
    python benchmarks/bench_store_size.py --keep DIR      # keep the logs and stores in DIR
    python benchmarks/bench_store_size.py --smoke         # CI: the MLP at one size, no figure
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import HERE, PYTHON, machine, table  # noqa: E402

PROGRAM = """
import sys
import torch

torch.manual_seed(0)
mlp = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
f = torch.compile(mlp, dynamic=False)
for n in range(int(sys.argv[1])):
    f(torch.randn(2 + n, 16))
"""


def disk_bytes(store: Path) -> int:
    """The store file plus whatever WAL is left beside it."""
    return sum(p.stat().st_size for p in (store, Path(f"{store}-wal")) if p.exists())


def log_bytes(trace_dir: Path) -> int:
    return sum(p.stat().st_size for p in trace_dir.rglob("*") if p.is_file())


def compdiag(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    proc = subprocess.run([PYTHON, "-m", "compdiag", *args], env=env, cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"compdiag {' '.join(args)} failed ({proc.returncode}):\n"
                         f"{proc.stderr[-2000:]}")


def records_ratio(store: Path) -> tuple[int, int]:
    """(stored, raw) bytes of the latest run's records, as `show` reports them."""
    from compdiag.store.reader import Reader

    with Reader(store) as r:
        run = r.resolve_run(None)
        size = r.record_bytes(run)
    return size["stored"], size["raw"]


def measure(work: Path, label: str, script: Path, args: list[str]) -> list[list[str]]:
    """One program under `compdiag run` (TORCH_TRACE beside it), then its log imported."""
    trace = work / "trace"
    env = dict(os.environ, TORCH_TRACE=str(trace), TORCHINDUCTOR_FORCE_DISABLE_CACHES="1",
               TORCHINDUCTOR_CACHE_DIR=str(work / "inductor_cache"),
               TORCHINDUCTOR_COMPILE_THREADS="1")
    env.pop("COMPDIAG_STORE", None)
    store, imported = work / "run.db", work / "import.db"
    compdiag("run", "--store", str(store), str(script), *args, env=env, cwd=work)
    compdiag("import", str(trace), "--store", str(imported), cwd=work)
    log = log_bytes(trace)
    rows = []
    for how, db in (("compdiag run", store), ("compdiag import", imported)):
        stored, raw = records_ratio(db)
        rows.append([label, how, f"{log:,}", f"{disk_bytes(db):,}",
                     f"{disk_bytes(db) / log:.2f}x", f"{stored / raw:.2f}x"])
    return rows


def cases(args: argparse.Namespace, work: Path) -> list[tuple[str, Path, list[str]]]:
    mlp = work / "mlp.py"
    mlp.write_text(PROGRAM)
    sizes = 1 if args.smoke else args.sizes
    out = [(f"MLP, {sizes} size{'s' * (sizes != 1)}", mlp, [str(sizes)])]
    if not args.smoke:
        out.append(("transformer, 2 layers", HERE / "workload_model.py",
                    ["--layers", "2", "--steps", "1"]))
    return [c for c in out if args.case == "all" or c[0].lower().startswith(args.case)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=("all", "mlp", "transformer"), default="all")
    ap.add_argument("--sizes", type=int, default=3, help="the MLP's input sizes (default 3)")
    ap.add_argument("--keep", type=Path, help="keep each case's log and stores under KEEP/")
    ap.add_argument("--smoke", action="store_true", help="the MLP at one size (CI); no figure")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="compdiag-store-size-") as tmp:
        for i, (label, script, argv) in enumerate(cases(args, Path(tmp))):
            work = Path(tmp) / f"case{i}"
            work.mkdir()
            rows += measure(work, label, script, argv)
            if args.keep:
                shutil.copytree(work, args.keep / f"case{i}", dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("inductor_cache"))
    print(machine())
    print("compile caches off; bytes on disk")
    print(table(["program", "store", "log bytes", "store bytes", "store/log",
                 "records stored/raw"], rows))


if __name__ == "__main__":
    main()
