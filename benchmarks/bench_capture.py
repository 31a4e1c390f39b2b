"""Benchmark (a): capture overhead of `compdiag run` against plain `python`.

The same multi-layer model script (benchmarks/workload_model.py: transformer-ish blocks,
torch.compile, training steps with backward, then eval steps at a new shape = a recompile)
is run as

    python    plain `python workload_model.py`                           (the baseline)
    compdiag  `compdiag run --store FRESH.db workload_model.py`
    trace     `TORCH_TRACE=FRESH_DIR python workload_model.py`            (peer)
    debug     `TORCH_COMPILE_DEBUG=1 python workload_model.py` in a fresh cwd (peer)

every run with compile caches disabled (TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 and a fresh
TORCHINDUCTOR_CACHE_DIR), so every run compiles everything from scratch, and with
TORCHINDUCTOR_COMPILE_THREADS=1 (no compile-worker pool) unless the environment sets it. Variants are
alternated within each round (and the order rotates between rounds) so that load from other
processes hits all of them alike; the table gives medians over rounds and the median of the
per-round ratios to plain python (paired, which cancels slow drifts in machine load), for
wall time and for CPU time (user+sys of the whole process tree, far less sensitive to other
load on the machine than wall time). SIGTERM or Ctrl-C ends early with the complete rounds.

    python benchmarks/bench_capture.py [--rounds N] [--layers N] [--steps N] [--quick]
    python benchmarks/bench_capture.py --workload funcs [--funcs N]   # compile-heavy variant
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import HERE, PYTHON, machine, median, table, timed, venv_bin  # noqa: E402

WORKLOAD = HERE / "workload_model.py"
VARIANTS = ("python", "compdiag", "trace", "debug")
TARGET = 1.05


def command(variant: str, work: Path, args: list[str]) -> tuple[list[str], dict, str]:
    env = dict(os.environ)
    for k in ("TORCH_TRACE", "TORCH_COMPILE_DEBUG", "TORCH_LOGS", "COMPDIAG_STORE"):
        env.pop(k, None)
    env["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"
    # Compile in-process: no compile-worker pool (each worker imports torch, a fixed cost
    # that only adds noise on a small shared machine). The same for every variant.
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    env["TORCHINDUCTOR_CACHE_DIR"] = str(work / "inductor_cache")
    env["TRITON_CACHE_DIR"] = str(work / "triton_cache")
    script = [*args]
    if variant == "python":
        return [PYTHON, *script], env, str(work)
    if variant == "compdiag":
        return [venv_bin("compdiag"), "run", "--store", str(work / "store.db"), *script], env, \
            str(work)
    if variant == "trace":
        env["TORCH_TRACE"] = str(work / "trace")
        return [PYTHON, *script], env, str(work)
    if variant == "debug":
        env["TORCH_COMPILE_DEBUG"] = "1"
        return [PYTHON, *script], env, str(work)
    raise ValueError(variant)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--workload", choices=["model", "funcs"], default="model",
                    help="model: workload_model.py (default); funcs: workload_trace.py, many "
                    "small compiled functions (more Dynamo/AOT work per C++ kernel)")
    ap.add_argument("--funcs", type=int, default=12, help="functions, for --workload funcs")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated subset of " + ",".join(VARIANTS))
    ap.add_argument("--quick", action="store_true",
                    help="1 layer, 1 step, 1 round: a smoke test, not a measurement")
    ap.add_argument("--json", metavar="FILE", help="also write the raw samples here")
    ap.add_argument("--keep", action="store_true", help="keep the temp dirs (stores, traces)")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.layers, args.steps = 1, 1, 1
    variants = [v for v in args.variants.split(",") if v]
    if "python" not in variants:
        variants.insert(0, "python")
    if args.workload == "model":
        wl_args = [str(WORKLOAD), "--layers", str(args.layers), "--steps", str(args.steps)]
    else:  # many small functions with graph breaks and recompiles: compile-heavy
        wl_args = [str(HERE / "workload_trace.py"), "--funcs", str(args.funcs),
                   "--layers", str(args.layers)]

    print(f"machine: {machine()}", flush=True)
    print(f"workload: {Path(wl_args[0]).name} {' '.join(wl_args[1:])}; caches disabled; "
          f"{args.rounds} rounds x {len(variants)} variants, alternated", flush=True)
    root = Path(tempfile.mkdtemp(prefix="compdiag-bench-capture-"))
    wall: dict[str, list[float]] = {v: [] for v in variants}
    cpu: dict[str, list[float]] = {v: [] for v in variants}
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        for r in range(args.rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for v in order:
                work = root / f"r{r}-{v}"
                work.mkdir()
                cmd, env, cwd = command(v, work, wl_args)
                w, c = timed(cmd, env=env, cwd=cwd, log=work / "output.log")
                wall[v].append(w)
                cpu[v].append(c)
                print(f"  round {r + 1}/{args.rounds} {v:9s} wall {w:7.2f}s  cpu {c:7.2f}s",
                      flush=True)
                if not args.keep:
                    shutil.rmtree(work, ignore_errors=True)
    except KeyboardInterrupt:
        print("interrupted: medians over every sample, paired ratios over complete rounds",
              flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept: {root}")

    # Medians use every sample; paired ratios only the rounds every variant completed.
    complete = min(len(wall[v]) for v in variants)
    if complete == 0 or not wall["python"]:
        print("no complete round")
        return 1
    base_w, base_c = wall["python"][:complete], cpu["python"][:complete]
    rows = []
    summary = {}
    for v in variants:
        paired = [a / b for a, b in zip(wall[v][:complete], base_w)]
        paired_cpu = [a / b for a, b in zip(cpu[v][:complete], base_c)]
        summary[v] = {"wall_median_s": median(wall[v]), "cpu_median_s": median(cpu[v]),
                      "ratio_of_medians": median(wall[v]) / median(wall["python"]),
                      "cpu_ratio_of_medians": median(cpu[v]) / median(cpu["python"]),
                      "median_paired_ratio": median(paired),
                      "cpu_median_paired_ratio": median(paired_cpu),
                      "n": len(wall[v]), "wall_s": wall[v], "cpu_s": cpu[v]}
        rows.append([v, str(len(wall[v])), f"{median(wall[v]):.2f}",
                     f"{min(wall[v]):.2f}-{max(wall[v]):.2f}", f"{median(cpu[v]):.2f}",
                     f"{summary[v]['ratio_of_medians']:.3f}", f"{median(paired):.3f}",
                     f"{summary[v]['cpu_ratio_of_medians']:.3f}", f"{median(paired_cpu):.3f}"])
    print()
    print(table(["variant", "n", "median wall s", "range s", "median cpu s",
                 "wall ratio (medians)", "wall ratio (paired)", "cpu ratio (medians)",
                 "cpu ratio (paired)"], rows))
    print(f"(paired: median over the {complete} rounds every variant completed; ratios are "
          "against plain python measured in the same rounds)")
    if "compdiag" in summary:
        ratio = summary["compdiag"]["median_paired_ratio"]
        verdict = "meets" if ratio <= TARGET else "misses"
        print(f"\ncompdiag run / python: wall {ratio:.3f}, cpu "
              f"{summary['compdiag']['cpu_median_paired_ratio']:.3f} (median of {complete} "
              f"paired rounds) - wall {verdict} the <= {TARGET} target")
        for peer in ("trace", "debug"):
            if peer in summary:
                print(f"  beside it, {peer:6s} / python: wall "
                      f"{summary[peer]['median_paired_ratio']:.3f}, cpu "
                      f"{summary[peer]['cpu_median_paired_ratio']:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "workload": wl_args,
                                               "variants": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
