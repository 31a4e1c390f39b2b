"""Benchmark: `compdiag import` of a synthetic 8-rank TORCH_TRACE directory (100 MB or more)
against `tlparse --all-ranks-html` on the same directory, in one run: wall time, their ratio,
and each tool's peak RSS.

The directory is made from a real multi-rank CPU job (benchmarks/ranks/job.py: two gloo ranks
under torchrun with TORCH_TRACE, each compiling a step with an all_reduce inside, rank 1 with a
graph break), generated once and cached under --trace-dir. Each synthetic rank r replays the
log of real rank r % 2, copied until the file reaches its share of --mb: every copy's frame ids
shifted past the previous copy's (so its compile ids are new) and the envelopes' "rank" set to
r, in torch's file naming (dedicated_log_torch_trace_rank_<r>_<suffix>.log).

    pip install -e '.[bench]'          # tlparse (the Rust tool, from the package registry)
    python benchmarks/ranks/run.py [--mb 100] [--rounds 3] [--source DIR]

Smoke (CI, tests/test_import_pipe.py): `--source` two small rank logs `--mb 0.2 --rounds 1`.

Peak RSS is the largest process of each tool (ru_maxrss of a wrapper's children: compdiag's
import runs one process per CPU, each reading its share of the rank logs). compdiag's is also
measured on a directory a quarter of the size: an import streams, its memory does not grow
with the logs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from _common import PYTHON, machine, median, table, venv_bin  # noqa: E402

JOB = HERE / "job.py"
TARGET = 0.25
_FRAME = re.compile(r'"frame_id": (\d+)')
_RANK = re.compile(r'"rank": \d+')
# A wrapper whose only child is the tool: its RUSAGE_CHILDREN maxrss is the tool's peak RSS.
_WRAP = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
         "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
         "w = time.perf_counter() - t; r = resource.getrusage(resource.RUSAGE_CHILDREN); "
         "print(json.dumps({'rc': p.returncode, 'wall': w, 'cpu': r.ru_utime + r.ru_stime, "
         "'rss_mb': r.ru_maxrss / 1024, 'err': p.stderr.decode()[-2000:]}))")


def generate_source(trace_dir: Path) -> Path:
    """The real 2-rank trace (once; reused while its directory is complete)."""
    out = trace_dir / "ranks-job"
    if (out / "done").exists():
        return out / "raw"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = dict(os.environ, TORCH_TRACE=str(out / "raw"), OMP_NUM_THREADS="1")
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    print("generating the 2-rank trace: torchrun --standalone --nproc-per-node 2 job.py "
          "(once) ...", flush=True)
    t0 = time.perf_counter()
    subprocess.run([PYTHON, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node",
                    "2", str(JOB)], env=env, cwd=out, check=True, timeout=900,
                   stdout=subprocess.DEVNULL)
    (out / "done").write_text("")
    print(f"  {time.perf_counter() - t0:.0f}s", flush=True)
    return out / "raw"


def rank_logs(source: Path) -> dict[int, Path]:
    logs = {}
    for p in sorted(source.iterdir()):
        m = re.search(r"_rank_(\d+)_", p.name)
        if m:
            logs[int(m.group(1))] = p
    if not logs:
        raise SystemExit(f"{source}: no dedicated_log_torch_trace_rank_N_*.log files")
    return logs


def synthesize(source: Path, dest: Path, ranks: int, mb: float) -> dict:
    """The synthetic job directory: `ranks` files of mb/ranks MB each (see the docstring)."""
    logs = rank_logs(source)
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    per_rank = mb * 1e6 / ranks
    copies = 0
    for r in range(ranks):
        src = logs[sorted(logs)[r % len(logs)]]
        lines = src.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        frames = [int(m.group(1)) for ln in lines if not ln.startswith("\t")
                  for m in _FRAME.finditer(ln)]
        step = (max(frames) + 1) if frames else 1
        written, copy = 0, 0
        with open(dest / f"dedicated_log_torch_trace_rank_{r}_synth{r:02d}.log", "w",
                  encoding="utf-8") as out:
            while written < per_rank:
                shift = copy * step
                for ln in lines:
                    if not ln.startswith("\t"):
                        ln = _RANK.sub(f'"rank": {r}', ln)
                        if shift:
                            ln = _FRAME.sub(lambda m: f'"frame_id": {int(m.group(1)) + shift}', ln)
                    out.write(ln)
                    written += len(ln)
                copy += 1
        copies = max(copies, copy)
    size = sum(p.stat().st_size for p in dest.iterdir())
    return {"bytes": size, "ranks": ranks, "copies_per_rank": copies}


def measure(cmd: list[str], cwd: Path) -> dict:
    p = subprocess.run([PYTHON, "-c", _WRAP, *cmd], cwd=cwd, capture_output=True, text=True,
                       timeout=3600)
    res = json.loads(p.stdout.strip().splitlines()[-1])
    if res["rc"] != 0:
        raise SystemExit(f"failed ({res['rc']}): {' '.join(cmd)}\n{res['err']}")
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100.0, help="size of the synthetic directory")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--source", type=Path, help="a real multi-rank TORCH_TRACE directory")
    ap.add_argument("--trace-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "compdiag-bench-traces")
    ap.add_argument("--json", metavar="FILE", help="also write the raw samples here")
    args = ap.parse_args()

    print(f"machine: {machine()}", flush=True)
    source = args.source or generate_source(args.trace_dir)
    root = Path(tempfile.mkdtemp(prefix="compdiag-bench-ranks-"))
    samples: dict[str, list[dict]] = {"compdiag": [], "tlparse": []}
    try:
        job_dir = root / "job"
        info = synthesize(source, job_dir, args.ranks, args.mb)
        print(f"synthetic job: {job_dir} - {info['bytes'] / 1e6:.1f} MB in {info['ranks']} "
              f"rank logs ({info['copies_per_rank']} copies of a real rank's log each)",
              flush=True)
        for r in range(args.rounds):
            order = ("compdiag", "tlparse") if r % 2 == 0 else ("tlparse", "compdiag")
            for tool in order:
                work = root / f"r{r}-{tool}"
                work.mkdir()
                if tool == "compdiag":
                    cmd = [venv_bin("compdiag"), "import", str(job_dir), "--store",
                           str(work / "store.db")]
                else:
                    cmd = [venv_bin("tlparse"), str(job_dir), "--all-ranks-html", "-o",
                           str(work / "tl_out"), "--overwrite", "--no-browser"]
                res = measure(cmd, work)
                samples[tool].append(res)
                print(f"  round {r + 1}/{args.rounds} {tool:9s} wall {res['wall']:7.2f}s  "
                      f"cpu {res['cpu']:7.2f}s  peak RSS {res['rss_mb']:7.1f} MB", flush=True)
                if r == 0 and tool == "compdiag":
                    print(f"    {_jobs(work / 'store.db')}", flush=True)
                shutil.rmtree(work, ignore_errors=True)

        # Streaming: compdiag's peak RSS on a directory a quarter of the size, for comparison.
        small = root / "small"
        small_info = synthesize(source, small, args.ranks, args.mb / 4)
        work = root / "small-compdiag"
        work.mkdir()
        small_res = measure([venv_bin("compdiag"), "import", str(small), "--store",
                             str(work / "store.db")], work)
        print(f"  streaming: {small_info['bytes'] / 1e6:.1f} MB imports with a peak RSS of "
              f"{small_res['rss_mb']:.1f} MB", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    wall = {t: [s["wall"] for s in v] for t, v in samples.items()}
    rss = {t: max(s["rss_mb"] for s in v) for t, v in samples.items()}
    paired = [a / b for a, b in zip(wall["compdiag"], wall["tlparse"])]
    cpu = {t: [s["cpu"] for s in v] for t, v in samples.items()}
    paired_cpu = [a / b for a, b in zip(cpu["compdiag"], cpu["tlparse"])]
    rows = [[t, str(len(wall[t])), f"{median(wall[t]):.2f}",
             f"{min(wall[t]):.2f}-{max(wall[t]):.2f}", f"{median(cpu[t]):.2f}",
             f"{rss[t]:.0f}"] for t in samples]
    print()
    print(table(["tool", "n", "median wall s", "range s", "median cpu s", "peak RSS MB"], rows))
    print(f"\ncpu ratio (paired median): {median(paired_cpu):.3f}")
    ratio = median(paired)
    mb = info["bytes"] / 1e6
    print(f"\npeak RSS of compdiag import: {small_res['rss_mb']:.0f} MB at "
          f"{small_info['bytes'] / 1e6:.0f} MB of logs, {rss['compdiag']:.0f} MB at {mb:.0f} MB")
    print(f"throughput: compdiag {mb / median(wall['compdiag']):.1f} MB/s, "
          f"tlparse {mb / median(wall['tlparse']):.1f} MB/s")
    verdict = "meets" if ratio <= TARGET else "misses"
    print(f"compdiag import / tlparse --all-ranks-html: {ratio:.3f} (median of {len(paired)} "
          f"paired rounds) - {verdict} the <= {TARGET} target")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "job": info,
                                               "samples": samples, "ratio": ratio,
                                               "small": {"job": small_info, **small_res}},
                                              indent=1))
    return 0


def _jobs(store: Path) -> str:
    import sqlite3

    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT job, count(*), count(DISTINCT rank) FROM runs"
                            " GROUP BY job").fetchall()
        compiles = conn.execute("SELECT count(*) FROM compiles").fetchone()[0]
    return "; ".join(f"job {j}: {n} runs, {k} ranks" for j, n, k in rows) + \
        f"; {compiles} compiles stored"


if __name__ == "__main__":
    sys.exit(main())
