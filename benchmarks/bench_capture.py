"""Benchmark (a): capture overhead of `compdiag run` against plain `python` (issue 34).

The same multi-layer model script (benchmarks/workload_model.py: transformer-ish blocks,
torch.compile, training steps with backward, then eval steps at a new shape = a recompile)
is run as

    python    plain `python workload_model.py`                           (the baseline)
    compdiag  `compdiag run --store FRESH.db workload_model.py`
    trace     `TORCH_TRACE=FRESH_DIR python workload_model.py`            (peer, optional)
    debug     `TORCH_COMPILE_DEBUG=1 python workload_model.py` in a fresh cwd (peer, optional)

every run with compile caches disabled (TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 and a fresh
TORCHINDUCTOR_CACHE_DIR), so every run compiles everything from scratch, and with
TORCHINDUCTOR_COMPILE_THREADS=1 (no compile-worker pool) unless the environment sets it.
Variants are alternated within each round (and the order rotates between rounds) so that load from other
processes hits all of them alike. Two figures for `compdiag run`, side by side:

- the CPU ratio: user+sys of the whole process tree against plain python's in the same
  round (paired, which cancels slow drifts in machine load), median and spread (min-max) of
  the rounds, with the wall ratio beside it; goal <= 1.02;
- capture's own time as the run counted it in-process (capture/self_time.py, what
  `compdiag show` prints: compdiag's code plus torch's trace records for it, as a share of
  the program's CPU time), median and spread of the rounds; goal <= 2%.

SIGTERM or Ctrl-C ends early with the complete rounds.

    python benchmarks/bench_capture.py [--rounds N] [--layers N] [--steps N] [--variants ...]
    python benchmarks/bench_capture.py --workload funcs [--funcs N]   # compile-heavy variant
    python benchmarks/bench_capture.py --smoke    # CI: one round, eager backend, no figure checked
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
DEFAULT_VARIANTS = ("python", "compdiag")
CPU_TARGET = 1.02    # compdiag run's CPU time over plain python's (process tree)
SHARE_TARGET = 0.02  # capture's own time over the program's CPU time, counted in-process


def command(variant: str, work: Path, args: list[str]) -> tuple[list[str], dict, str]:
    env = dict(os.environ)
    for k in ("TORCH_TRACE", "TORCH_COMPILE_DEBUG", "TORCH_LOGS", "COMPDIAG_STORE"):
        env.pop(k, None)
    env["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"
    # Python's bytecode cache as a user has it: with PYTHONDONTWRITEBYTECODE set (as in some
    # sandboxes) every run compiles compdiag's modules from source again, in the parent and
    # in the program (~0.25 s CPU a run measured here), a cost no installed compdiag pays.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
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


def capture_figures(store: Path) -> dict | None:
    """What the run counted in-process (`compdiag show --json`'s `capture`), or None."""
    from compdiag.store.reader import Reader
    from compdiag.views.show import capture_cost

    if not store.exists():
        return None
    with Reader(store) as r:
        runs = r.runs()
        return capture_cost(runs[-1]) if runs else None


def spread(xs: list[float], fmt: str = "{:.3f}") -> str:
    return f"{fmt.format(min(xs))}-{fmt.format(max(xs))}" if xs else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--workload", choices=["model", "funcs"], default="model",
                    help="model: workload_model.py (default); funcs: workload_trace.py, many "
                    "small compiled functions (more Dynamo/AOT work per C++ kernel)")
    ap.add_argument("--funcs", type=int, default=12, help="functions, for --workload funcs")
    ap.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                    help="comma-separated subset of " + ",".join(VARIANTS))
    ap.add_argument("--quick", action="store_true",
                    help="1 layer, 1 step, 1 round: a smoke test, not a measurement")
    ap.add_argument("--smoke", action="store_true",
                    help="CI: 1 round of python and compdiag, 1 layer, 1 step, the eager backend "
                    "(no Inductor compile); checks that the benchmark runs, not any figure")
    ap.add_argument("--json", metavar="FILE", help="also write the raw samples here")
    ap.add_argument("--keep", action="store_true", help="keep the temp dirs (stores, traces)")
    args = ap.parse_args()
    if args.quick or args.smoke:
        args.rounds, args.layers, args.steps = 1, 1, 1
    variants = [v for v in args.variants.split(",") if v]
    if args.smoke:
        variants = ["python", "compdiag"]
    if "python" not in variants:
        variants.insert(0, "python")
    if args.workload == "model":
        wl_args = [str(WORKLOAD), "--layers", str(args.layers), "--steps", str(args.steps)]
        if args.smoke:
            wl_args += ["--backend", "eager"]
    else:  # many small functions with graph breaks and recompiles: compile-heavy
        wl_args = [str(HERE / "workload_trace.py"), "--funcs", str(args.funcs),
                   "--layers", str(args.layers)]

    print(f"machine: {machine()}", flush=True)
    print(f"workload: {Path(wl_args[0]).name} {' '.join(wl_args[1:])}; caches disabled; "
          f"{args.rounds} rounds x {len(variants)} variants, alternated", flush=True)
    root = Path(tempfile.mkdtemp(prefix="compdiag-bench-capture-"))
    wall: dict[str, list[float]] = {v: [] for v in variants}
    cpu: dict[str, list[float]] = {v: [] for v in variants}
    inproc: list[dict] = []  # the compdiag runs' own counters, in round order
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        for r in range(args.rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for v in order:
                work = root / f"r{r}-{v}"
                work.mkdir()
                cmd, env, cwd = command(v, work, wl_args)
                w, c = timed(cmd, env=env, cwd=cwd, log=work / "output.log")
                extra = ""
                if v == "compdiag":
                    fig = capture_figures(work / "store.db")
                    if fig:
                        inproc.append(fig)
                        extra = (f"  in-process: capture {fig['seconds']:.3f}s = "
                                 f"{100 * fig['share']:.2f}% of {fig['run_cpu_s']:.2f}s "
                                 f"(compdiag {fig['compdiag_cpu_s']:.3f}s, torch's trace "
                                 f"records {fig['torch_trace_s']:.3f}s)")
                wall[v].append(w)
                cpu[v].append(c)
                print(f"  round {r + 1}/{args.rounds} {v:9s} wall {w:7.2f}s  cpu {c:7.2f}s"
                      + extra, flush=True)
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
                      "paired_wall_ratios": paired, "paired_cpu_ratios": paired_cpu,
                      "n": len(wall[v]), "wall_s": wall[v], "cpu_s": cpu[v]}
        rows.append([v, str(len(wall[v])), f"{median(wall[v]):.2f}", spread(wall[v], "{:.2f}"),
                     f"{median(cpu[v]):.2f}", spread(cpu[v], "{:.2f}"),
                     f"{median(paired):.3f}", f"{median(paired_cpu):.3f}",
                     spread(paired_cpu)])
    print()
    print(table(["variant", "n", "median wall s", "range s", "median cpu s", "range s",
                 "wall ratio (paired)", "cpu ratio (paired)", "cpu ratio spread"], rows))
    print(f"(paired: median over the {complete} rounds every variant completed; ratios are "
          "against plain python measured in the same rounds)")
    if "compdiag" in summary:
        c = summary["compdiag"]
        cpu_ratio = c["cpu_median_paired_ratio"]
        print(f"\ncompdiag run / python: CPU {cpu_ratio:.3f} (spread "
              f"{spread(c['paired_cpu_ratios'])}), wall {c['median_paired_ratio']:.3f} (spread "
              f"{spread(c['paired_wall_ratios'])}), median of {complete} paired rounds - CPU "
              f"{'meets' if cpu_ratio <= CPU_TARGET else 'misses'} the <= {CPU_TARGET} goal")
        if inproc:
            shares = [f["share"] for f in inproc]
            own = [f["compdiag_cpu_s"] for f in inproc]
            trace = [f["torch_trace_s"] for f in inproc]
            share = median(shares)
            pct = spread([100 * x for x in shares], "{:.2f}")
            print(f"capture's own time, in-process: {100 * share:.2f}% of the program's CPU "
                  f"(median of {len(shares)}, spread {pct}%; compdiag {median(own):.3f}s, "
                  f"torch's trace records {median(trace):.3f}s) - "
                  f"{'meets' if share <= SHARE_TARGET else 'misses'} the <= "
                  f"{100 * SHARE_TARGET:.0f}% goal")
            summary["compdiag"]["in_process"] = inproc
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
