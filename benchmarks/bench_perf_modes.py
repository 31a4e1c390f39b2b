"""`compdiag perf --modes` on the seed examples, checked against a plain timing of the same model.

For each model: one `compdiag perf --json --modes M1,M2,... benchmarks/perf_gpu/seed.py MODEL`
(each mode a fresh Inductor cache, kept with --keep-caches), then, per mode, the plain timing
(benchmarks/perf_gpu/plain_timing.py: no compdiag, CUDA events around whole model calls) on
that mode's now-warm cache, so both time the same kernels and the plain run does not
re-autotune (`--plain-runs N` plain processes per mode: eager time moves between processes).
Printed: compdiag's speed-up over eager with its 95% interval next to the plain speed-up with
the interquartile range of its per-block ratios (spanning all plain processes), and whether
they agree (within noise): that range overlaps compdiag's interval, or the two ratios are
within 5% of each other.

    python benchmarks/bench_perf_modes.py --model resnet50 --batch 32 \\
        [--modes default,reduce-overhead,max-autotune] [--plain-runs 3] [--repeat 3]
        [--out DIR] [--json]

Needs a CUDA machine for the README's table (timm and transformers installed); `--model tiny
--device cpu` tries the whole path on a CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PYTHON, REPO, machine, table  # noqa: E402

sys.path.insert(0, str(REPO))  # the checkout's compdiag, installed or not
from compdiag.views.perf import compile_text  # noqa: E402

SEED = REPO / "benchmarks" / "perf_gpu" / "seed.py"
PLAIN = REPO / "benchmarks" / "perf_gpu" / "plain_timing.py"


def agree(row: dict, plain: dict) -> bool | None:
    """Within noise: compdiag's 95% interval and the plain timing's interquartile range of
    per-block ratios overlap, or the two ratios are within 5% of each other. With several
    plain processes, the range spans all their quartiles: eager time itself moves between
    processes (a launch-bound model is CPU-bound in one and GPU-bound in the next), and that is
    noise neither timing can see from inside one process."""
    r, lo, hi, p = row.get("speedup"), row.get("speedup_lo"), row.get("speedup_hi"), \
        plain.get("speedup")
    if r is None or p is None:
        return None
    q1, q3 = plain.get("range_q1", p), plain.get("range_q3", p)
    overlap = lo is not None and hi is not None and lo <= q3 and q1 <= hi
    return overlap or abs(p / r - 1) <= 0.05


def combine(runs: list[dict]) -> dict:
    """The plain processes of one mode: the median process (by speed-up) as the row, the range
    of all their per-block quartiles (one process: its own), and, with several, each one."""
    ok = sorted((r for r in runs if "speedup" in r), key=lambda r: r["speedup"])
    if not ok:
        return runs[0] if runs else {"error": "no plain run"}
    mid = dict(ok[len(ok) // 2])
    mid["range_q1"] = min(r["ratio_q1"] for r in ok)
    mid["range_q3"] = max(r["ratio_q3"] for r in ok)
    if len(ok) > 1:
        mid["processes"] = [{k: r.get(k) for k in ("eager_s", "compiled_s", "speedup",
                                                    "ratio_q1", "ratio_q3")} for r in ok]
    return mid


def _x(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}x"


def _s(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.1f} s" if v >= 1 else f"{v * 1e3:.2f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--modes", default="default,reduce-overhead,max-autotune")
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", default=None, help="keep store, caches, logs and JSON here")
    ap.add_argument("--plain-runs", type=int, default=1,
                    help="plain timing processes per mode (eager time moves between processes)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="compdiag perf --repeat: each mode in N compdiag processes (its range "
                         "then spans them, as the plain range spans --plain-runs)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if len([m for m in a.modes.split(",") if m.strip()]) < 2:
        ap.error("--modes needs two modes or more: compdiag perf makes a mode table only then")
    out = Path(a.out or tempfile.mkdtemp(prefix="bench-perf-modes-")) / a.model
    out.mkdir(parents=True, exist_ok=True)
    dev = ["--device", a.device] if a.device else []
    seed_args = [a.model, "--batch", str(a.batch), "--steps", str(a.steps), *dev]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}

    t0 = time.perf_counter()
    with open(out / "compdiag_perf.log", "w") as log:
        p = subprocess.run([PYTHON, "-m", "compdiag", "perf", "--json", "--store",
                            str(out / "store.db"), "--keep-caches", str(out / "caches"),
                            "--modes", a.modes, *(["--repeat", str(a.repeat)]
                                                  if a.repeat > 1 else []),
                            str(SEED), *seed_args],
                           stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=REPO)
    perf_wall = time.perf_counter() - t0
    if p.returncode != 0 or not p.stdout.strip():
        print(f"compdiag perf failed (exit {p.returncode}); see {out / 'compdiag_perf.log'}",
              file=sys.stderr)
        print((out / "compdiag_perf.log").read_text()[-3000:], file=sys.stderr)
        return 1
    doc = json.loads(p.stdout)
    (out / "compdiag_perf.json").write_text(json.dumps(doc, indent=1, default=repr))

    plain: dict[str, dict] = {}
    for row in doc["modes"]["rows"]:
        mode = row["mode"]
        penv = {**env, "TORCHINDUCTOR_CACHE_DIR": str(out / "caches" / f"inductor-{mode}")}
        runs = []
        for i in range(max(1, a.plain_runs)):
            q = subprocess.run([PYTHON, str(PLAIN), a.model, "--mode", mode, "--batch",
                                str(a.batch), *dev], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=penv, cwd=REPO)
            (out / f"plain_{mode}{'' if i == 0 else f'.{i}'}.log").write_text(q.stderr)
            try:
                runs.append(json.loads(q.stdout.strip().splitlines()[-1]))
            except (json.JSONDecodeError, IndexError):
                runs.append({"error": f"exit {q.returncode}: {q.stderr.strip()[-300:]}"})
        plain[mode] = combine(runs)

    rows, result = [], []
    for row in doc["modes"]["rows"]:
        pl = plain[row["mode"]]
        ok = agree(row, pl)
        cg = row.get("cudagraphs") or {}
        result.append({"mode": row["mode"], "compdiag": row, "plain": pl, "agree": ok})
        rows.append([row["mode"], compile_text(row),
                     _s((row.get("steady_s") or 0) / max(1, a.steps)) if row.get("steady_s")
                     else "-",
                     f"{_x(row.get('speedup'))} [{row.get('speedup_lo') or 0:.2f}-"
                     f"{row.get('speedup_hi') or 0:.2f}] {row.get('basis') or ''}"
                     + (" (" + ", ".join(_x(x) for x in row["processes"]) + ")"
                        if row.get("processes") else ""),
                     _x(row.get("graphs_speedup")),
                     f"{_x(pl.get('speedup'))} [{pl['range_q1']:.2f}-{pl['range_q3']:.2f}]"
                     if "speedup" in pl else pl.get("error", "-"),
                     _s(pl.get("compiled_s")),
                     "-" if not row.get("peak_cuda_bytes") else
                     f"{row['peak_cuda_bytes'] / 2**30:.2f} GiB",
                     f"{cg.get('applied', 0)}/{cg.get('applied', 0) + cg.get('skipped', 0)}",
                     {True: "yes", False: "NO", None: "-"}[ok]])
    summary = {"machine": machine(), "model": a.model, "batch": a.batch, "steps": a.steps,
               "perf_wall_s": perf_wall, "rows": result,
               "recommendation": doc["modes"]["recommendation"]}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=repr))
    if a.json:
        print(json.dumps(summary, default=repr))
        return 0
    print(f"{a.model}, batch {a.batch}, {a.steps} steps; {machine()}; "
          f"compdiag perf took {perf_wall:.0f} s for {len(rows)} modes")
    print(table(["mode", "compile", "compiled/step", "compdiag speed-up [95% CI]",
                 "graphs only",
                 "plain speed-up [block IQR, all runs]", "plain compiled/call", "peak CUDA",
                 "CUDA graphs", "agree"], rows))
    for r in result:
        for i, pr in enumerate(r["plain"].get("processes") or []):
            print(f"plain {r['mode']} process {i + 1}: eager {_s(pr['eager_s'])}, compiled "
                  f"{_s(pr['compiled_s'])}, {_x(pr['speedup'])} "
                  f"[{pr['ratio_q1']:.2f}-{pr['ratio_q3']:.2f}]")
    rec = doc["modes"]["recommendation"]
    print(f"recommendation: {rec.get('mode')}")
    for r in rec.get("reasons") or []:
        print(f"  - {r}")
    return 0 if all(r["agree"] is not False for r in result) else 2


if __name__ == "__main__":
    sys.exit(main())
