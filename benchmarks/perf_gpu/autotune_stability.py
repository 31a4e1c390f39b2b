"""Does max-autotune pick the same kernels every cold compile, and does compdiag's capture sway
what it picks? On the H200, BERT's one cold max-autotune compile made without compdiag ran at
1.66 ms per call, the three made under `compdiag perf` at 2.35-2.62 ms (README, perf GPU notes).

    python autotune_stability.py MODEL [--batch N] [--runs N] [--out DIR] [--device D]

Each of --runs rounds compiles the model cold (a fresh TORCHINDUCTOR_CACHE_DIR each) twice, one
after the other: `plain_timing.py --mode max-autotune` alone, and the same command under
`compdiag run` (all compdiag runs in one store). Both time the compiled model the same way
afterwards, so the only difference is the capture during the compile. Torch prints every
autotuning contest to stderr (`AUTOTUNE mm(...)`, winner first) with or without compdiag;
those winners are compared across all processes, and `compdiag diff` between the compdiag runs
cross-checks what the store recorded. Printed: per process, compiled ms per call, speed-up over
eager, contests, and how many winners differ from the first plain process'."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAIN = HERE / "plain_timing.py"
_HEADER = re.compile(r"^AUTOTUNE (\w+)\((.*)\)\s*$")
_CHOICE = re.compile(r"^\s+(\S+) [\d.]+ ms [\d.]+% ?(.*)$")


def winners(stderr: str) -> list[tuple[str, str]]:
    """(contest, winner) in order: `mm(64x768, 768x768)` and `triton_mm_3 BLOCK_M=64, ...`."""
    out, contest = [], None
    for line in stderr.splitlines():
        h = _HEADER.match(line)
        if h:
            contest = f"{h.group(1)}({h.group(2)})"
            continue
        c = _CHOICE.match(line)
        if c and contest:
            out.append((contest, f"{c.group(1)} {c.group(2)}".strip()))
            contest = None  # the first choice listed is the winner
    return out


def one(kind: str, argv: list[str], cache: Path) -> dict:
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(cache), "PYTHONUNBUFFERED": "1"}
    p = subprocess.run(argv, env=env, capture_output=True, text=True)
    last = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    doc = json.loads(last[-1]) if p.returncode == 0 and last else {}
    return {"kind": kind, "rc": p.returncode, "timing": doc, "winners": winners(p.stderr),
            "stderr_tail": p.stderr[-600:] if p.returncode else ""}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", type=Path, default=None, help="keep caches, store and JSON here")
    a = ap.parse_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="autotune_stability_"))
    out.mkdir(parents=True, exist_ok=True)
    store = out / "compdiag.db"
    timing = [str(PLAIN), a.model, "--mode", "max-autotune", "--batch", str(a.batch)]
    if a.device:
        timing += ["--device", a.device]
    procs = []
    for i in range(1, a.runs + 1):
        procs.append(one("plain", [sys.executable, *timing], out / f"plain-{i}"))
        procs.append(one("compdiag", [sys.executable, "-m", "compdiag", "run", "--store",
                                      str(store), *timing], out / f"compdiag-{i}"))
    base = next((p["winners"] for p in procs if p["kind"] == "plain" and p["rc"] == 0), [])
    print(f"{a.model}, batch {a.batch}, max-autotune, {a.runs} cold compiles each; "
          f"out {out}")
    print(f"{'process':<12} {'compiled/call':>13} {'speed-up':>9} {'contests':>9} "
          f"{'winners unlike plain 1':>23}")
    for n, p in enumerate(procs, 1):
        t = p["timing"]
        if p["rc"] != 0 or not t:
            print(f"{p['kind']:<12} failed (exit {p['rc']}): {p['stderr_tail'][-200:]!r}")
            continue
        moved = sum(1 for x, y in zip(p["winners"], base) if x != y)
        print(f"{p['kind']:<12} {t['compiled_s'] * 1e3:>10.3f} ms {t['speedup']:>8.2f}x "
              f"{len(p['winners']):>9} {moved:>23}")
    if len(base) and len({tuple(p["winners"]) for p in procs if p["rc"] == 0}) > 1:
        print("contests whose winner differs between processes:")
        for k, (contest, _) in enumerate(base):
            seen = {p["winners"][k][1] for p in procs if len(p["winners"]) > k}
            if len(seen) > 1:
                print(f"  #{k + 1} {contest}: " + " | ".join(sorted(seen)))
    elif not base:
        print("no autotuning contests printed (a CPU build autotunes little or nothing)")
    else:
        print("every process picked the same winners")
    (out / "autotune_stability.json").write_text(json.dumps(procs, indent=1))
    runs = subprocess.run([sys.executable, "-m", "compdiag", "runs", "--store", str(store),
                           "--json"], capture_output=True, text=True)
    ids = [r["id"] for r in json.loads(runs.stdout or '{"runs": []}')["runs"]]
    if len(ids) >= 2:
        d = subprocess.run([sys.executable, "-m", "compdiag", "diff", "--store", str(store),
                            str(ids[0]), str(ids[-1]), "--json"], capture_output=True, text=True)
        if d.returncode == 0:
            moved = json.loads(d.stdout)["sections"]["autotune"]
            print(f"compdiag diff of its first and last run: {len(moved)} autotuning winners "
                  "differ in the store")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
