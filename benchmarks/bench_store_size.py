"""Benchmark: a run's store against the TORCH_TRACE log of the same run (issue 34).

One program runs once under `compdiag run` with TORCH_TRACE set as well, so the store and the
log hold the same compiles; then `compdiag import` reads that log into a fresh store. The
figures are bytes on disk (the store file with its WAL, checkpointed when the last connection
closed) over the log's bytes, and the records' stored bytes over their raw bytes (what `show`
says per run). The goal is <= 0.5 for both stores.

    python benchmarks/bench_store_size.py            # a small MLP compiled for three sizes
    python benchmarks/bench_store_size.py --sizes 6  # more recompiles: more repeated payloads
    python benchmarks/bench_store_size.py --smoke    # CI: one small case, checks no figure
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, machine, table  # noqa: E402

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


def measure(work: Path, sizes: int) -> list[list[str]]:
    script = work / "mlp.py"
    script.write_text(PROGRAM)
    trace = work / "trace"
    env = dict(os.environ, TORCH_TRACE=str(trace), TORCHINDUCTOR_FORCE_DISABLE_CACHES="1",
               TORCHINDUCTOR_CACHE_DIR=str(work / "inductor_cache"))
    env.pop("COMPDIAG_STORE", None)
    store, imported = work / "run.db", work / "import.db"
    compdiag("run", "--store", str(store), str(script), str(sizes), env=env, cwd=work)
    compdiag("import", str(trace), "--store", str(imported), cwd=work)
    log = log_bytes(trace)
    rows = []
    for label, db in (("compdiag run", store), ("compdiag import", imported)):
        stored, raw = records_ratio(db)
        rows.append([label, f"{log:,}", f"{disk_bytes(db):,}", f"{disk_bytes(db) / log:.2f}x",
                     f"{stored / raw:.2f}x"])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, default=3, help="input sizes compiled (default 3)")
    ap.add_argument("--smoke", action="store_true", help="one small case (CI); checks nothing")
    args = ap.parse_args()
    sizes = 2 if args.smoke else args.sizes
    with tempfile.TemporaryDirectory(prefix="compdiag-store-size-") as tmp:
        rows = measure(Path(tmp), sizes)
    print(machine())
    print(f"a small MLP compiled for {sizes} sizes (compile caches off)")
    print(table(["store", "log bytes", "store bytes", "store/log", "records stored/raw"],
                rows))


if __name__ == "__main__":
    main()
