"""Benchmark (b): `compdiag import` against `tlparse` on the same large, real TORCH_TRACE log.

The log comes from a real program (benchmarks/workload_trace.py: many small compiled
functions with graph breaks and recompiles, plus a model with a graph break per block) run
under TORCH_TRACE; it is generated once and cached under --trace-dir. Then, alternating,

    compdiag  `compdiag import LOG --store FRESH.db`
    tlparse   `tlparse LOG -o FRESH_DIR --overwrite --no-browser`  (its default full
              processing: every artifact rendered, the HTML index and compile-id pages)

are timed; the table gives medians and the median of per-round ratios (paired).

    python benchmarks/bench_import.py [--rounds N] [--funcs N] [--trace LOG] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import HERE, PYTHON, machine, median, table, timed, venv_bin  # noqa: E402

WORKLOAD = HERE / "workload_trace.py"
TARGET = 0.25  # issue 34


def generate(trace_dir: Path, funcs: int, shapes: int, layers: int) -> Path:
    """Run the workload under TORCH_TRACE (once; reused while its parameters match)."""
    tag = f"f{funcs}-s{shapes}-l{layers}"
    out = trace_dir / tag
    logs = sorted(out.glob("*.log")) if out.exists() else []
    if logs and (out / "done").exists():
        return logs[0]
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = dict(os.environ, TORCH_TRACE=str(out / "raw"))
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    env.pop("TORCH_COMPILE_DEBUG", None)
    print(f"generating the trace: {WORKLOAD.name} --funcs {funcs} --shapes {shapes} "
          f"--layers {layers} (once) ...", flush=True)
    t0 = time.perf_counter()
    timed([PYTHON, str(WORKLOAD), "--funcs", str(funcs), "--shapes", str(shapes),
           "--layers", str(layers)], env=env, cwd=str(out), log=out / "workload.out")
    raw = sorted((out / "raw").glob("*.log"), key=lambda p: p.stat().st_size)
    if not raw:
        raise SystemExit("the workload wrote no TORCH_TRACE log")
    log = out / "trace.log"
    raw[-1].rename(log)  # the main process's log (compile workers may write tiny ones)
    (out / "done").write_text("")
    print(f"  {time.perf_counter() - t0:.0f}s", flush=True)
    return log


def describe(log: Path) -> dict:
    n_lines = n_records = 0
    cids: set[str] = set()
    with open(log, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            n_lines += 1
            if line.startswith("\t"):
                continue
            n_records += 1
            if '"dynamo_start"' in line:
                brace = line.find("{")
                try:
                    md = json.loads(line[brace:])
                except ValueError:
                    continue
                cids.add(f"{md.get('frame_id')}/{md.get('frame_compile_id')}"
                         f"_{md.get('attempt', 0)}")
    return {"bytes": log.stat().st_size, "lines": n_lines, "records": n_records,
            "dynamo_starts": len(cids)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--funcs", type=int, default=40)
    ap.add_argument("--shapes", type=int, default=3)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--trace", type=Path, help="use this TORCH_TRACE log instead of generating")
    ap.add_argument("--trace-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "compdiag-bench-traces",
                    help="where generated traces are cached (default %(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="a small trace (12 functions) and 2 rounds: a smoke test")
    ap.add_argument("--json", metavar="FILE", help="also write the raw samples here")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.funcs, args.layers = 2, 12, 2

    print(f"machine: {machine()}", flush=True)
    log = args.trace or generate(args.trace_dir, args.funcs, args.shapes, args.layers)
    info = describe(log)
    print(f"trace: {log} - {info['bytes'] / 1e6:.1f} MB, {info['lines']} lines, "
          f"{info['records']} records, {info['dynamo_starts']} dynamo_start records",
          flush=True)
    tlparse = venv_bin("tlparse")
    root = Path(tempfile.mkdtemp(prefix="compdiag-bench-import-"))
    variants = ("compdiag", "tlparse")
    wall: dict[str, list[float]] = {v: [] for v in variants}
    cpu: dict[str, list[float]] = {v: [] for v in variants}
    checks: dict[str, object] = {}
    try:
        for r in range(args.rounds):
            order = variants if r % 2 == 0 else variants[::-1]
            for v in order:
                work = root / f"r{r}-{v}"
                work.mkdir()
                if v == "compdiag":
                    cmd = [venv_bin("compdiag"), "import", str(log), "--store",
                           str(work / "store.db")]
                else:
                    cmd = [tlparse, str(log), "-o", str(work / "tl_out"), "--overwrite",
                           "--no-browser"]
                w, c = timed(cmd, cwd=str(work), log=work / "output.log")
                wall[v].append(w)
                cpu[v].append(c)
                print(f"  round {r + 1}/{args.rounds} {v:9s} wall {w:7.2f}s  cpu {c:7.2f}s",
                      flush=True)
                if r == 0:
                    checks[v] = _check(v, work)
                shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    rows = []
    paired = [a / b for a, b in zip(wall["compdiag"], wall["tlparse"])]
    paired_cpu = [a / b for a, b in zip(cpu["compdiag"], cpu["tlparse"])]
    for v in variants:
        rows.append([v, str(len(wall[v])), f"{median(wall[v]):.2f}",
                     f"{min(wall[v]):.2f}-{max(wall[v]):.2f}", f"{median(cpu[v]):.2f}",
                     f"{median(wall[v]) / median(wall['tlparse']):.3f}",
                     f"{median(paired) if v == 'compdiag' else 1.0:.3f}",
                     f"{median(paired_cpu) if v == 'compdiag' else 1.0:.3f}"])
    print()
    print(table(["tool", "n", "median wall s", "range s", "median cpu s", "ratio (medians)",
                 "ratio (paired median)", "cpu ratio (paired)"], rows))
    mb = info["bytes"] / 1e6
    print(f"\nthroughput: compdiag {mb / median(wall['compdiag']):.1f} MB/s, "
          f"tlparse {mb / median(wall['tlparse']):.1f} MB/s")
    print(f"compile ids: compdiag stored {checks.get('compdiag')}, tlparse found "
          f"{checks.get('tlparse')} ({info['dynamo_starts']} of them open with a dynamo_start)")
    ratio = median(paired)
    verdict = "meets" if ratio <= TARGET else "misses"
    print(f"compdiag import / tlparse: {ratio:.3f} (median of {len(paired)} paired rounds) "
          f"- {verdict} the <= {TARGET} target")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"machine": machine(), "trace": {"path": str(log), **info},
             "compdiag": {"wall_s": wall["compdiag"], "cpu_s": cpu["compdiag"]},
             "tlparse": {"wall_s": wall["tlparse"], "cpu_s": cpu["tlparse"]},
             "median_paired_ratio": ratio, "compile_ids": checks}, indent=1))
    return 0


def _check(variant: str, work: Path) -> object:
    """Compile ids each tool found, for the record (not timed)."""
    try:
        if variant == "compdiag":
            with sqlite3.connect(work / "store.db") as conn:
                return conn.execute("SELECT count(*) FROM compiles").fetchone()[0]
        # tlparse's index of compile ids; "[-/-]" holds the records without one.
        comp = json.loads((work / "tl_out" / "compile_directory.json").read_text())
        return sum(1 for k in comp if "-" not in k)
    except Exception as exc:  # noqa: BLE001
        return f"? ({type(exc).__name__})"


if __name__ == "__main__":
    sys.exit(main())
