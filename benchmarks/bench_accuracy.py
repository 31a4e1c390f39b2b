"""Benchmark: the cost of `compdiag run --check-accuracy` against a plain run.

The model script of bench_capture (benchmarks/workload_model.py) runs as

    python     plain `python workload_model.py`                      (the baseline)
    run        `compdiag run --store FRESH.db workload_model.py`
    accuracy   `compdiag run --check-accuracy --store FRESH.db workload_model.py`

with compile caches disabled and a fresh cache dir per run, variants alternated within each
round (order rotating between rounds). The table gives medians and the median of per-round
ratios (paired, which cancels slow drifts in machine load).

    python benchmarks/bench_accuracy.py [--rounds N] [--layers N] [--steps N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import HERE, PYTHON, machine, median, table, timed, venv_bin  # noqa: E402

WORKLOAD = HERE / "workload_model.py"
VARIANTS = ("python", "run", "accuracy")


def command(variant: str, work: Path, args: list[str]) -> tuple[list[str], dict]:
    env = dict(os.environ)
    for k in ("TORCH_TRACE", "TORCH_COMPILE_DEBUG", "TORCH_LOGS", "COMPDIAG_STORE"):
        env.pop(k, None)
    env["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"
    env["TORCHINDUCTOR_CACHE_DIR"] = str(work / "inductor_cache")
    script = [str(WORKLOAD), *args]
    if variant == "python":
        return [PYTHON, *script], env
    flags = ["--check-accuracy"] if variant == "accuracy" else []
    return [venv_bin("compdiag"), "run", *flags, "--store", str(work / "store.db"), *script], env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=2)
    opts = ap.parse_args()
    args = ["--layers", str(opts.layers), "--steps", str(opts.steps)]
    walls: dict[str, list[float]] = {v: [] for v in VARIANTS}
    ratios: dict[str, list[float]] = {v: [] for v in VARIANTS}
    print(machine())
    for r in range(opts.rounds):
        order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
        this: dict[str, float] = {}
        for v in order:
            work = Path(tempfile.mkdtemp(prefix=f"bench-acc-{v}-"))
            try:
                cmd, env = command(v, work, args)
                wall, _ = timed(cmd, env=env, cwd=str(work), log=work / "log")
            finally:
                shutil.rmtree(work, ignore_errors=True)
            this[v] = wall
            walls[v].append(wall)
            print(f"round {r + 1}: {v:9s} {wall:7.2f} s", flush=True)
        for v in VARIANTS:
            ratios[v].append(this[v] / this["python"])
    rows = [[v, f"{median(walls[v]):.2f}", f"{median(ratios[v]):.3f}",
             f"{median([a / b for a, b in zip(walls[v], walls['run'])]):.3f}"]
            for v in VARIANTS]
    print(table(["variant", "median wall s", "ratio vs python", "ratio vs compdiag run"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
