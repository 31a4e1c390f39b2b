"""Wall time of `compdiag bisect -- CMD` against PyTorch's own
`python -m torch._inductor.compiler_bisector run CMD`, on the scenario scripts of
tests/bisect_scripts/ (CPU versions of test/dynamo/test_compiler_bisector.py), run one after the
other on the same machine, interleaved per scenario. Checks that both blame the same backend,
subsystem and culprit, and what each leaves behind.

    python benchmarks/bisect/run.py [SCENARIO ...] [--out benchmarks/bisect/results.json]

Before each tool, the script runs once, untimed, as the user who found the bug ran it, with
the Inductor cache dir that tool then gets (compdiag bisect links the compiled kernels it finds
there into its probes' cache; CompilerBisector deletes the dir at its start).
CompilerBisector is given a fresh TORCHINDUCTOR_CACHE_DIR of its own: its run mode deletes the
whole Inductor cache dir (not only its bisect/ subdir) at its start and end, which on a shared
machine would wipe everybody's cache. A marker file placed there beforehand shows it.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "tests" / "bisect_scripts"
SCENARIOS = ["relu_lowering", "rng", "pre_grad_pass", "joint_pass", "post_grad_pass",
             "bad_decomp", "always_fail"]
_RESULT = re.compile(r"Bisection complete: (BisectionResult\(.*\)|no issue found)")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TORCH_BISECT_", "TORCH_COMPILE_BACKEND", "TORCHINDUCTOR_",
                                "COMPDIAG_"))}
    env.update(extra)
    return env


def _parse_cb(stdout: str) -> dict | None:
    m = _RESULT.search(stdout)
    if not m or m.group(1) == "no issue found":
        return None
    call = ast.parse(m.group(1), mode="eval").body
    out = {"backend": None, "subsystem": None, "bisect_number": None, "debug_info": None}
    for kw in call.keywords:  # type: ignore[attr-defined]
        out[kw.arg] = ast.literal_eval(kw.value)
    for name, value in zip(["backend", "subsystem", "bisect_number", "debug_info"],
                           call.args):  # type: ignore[attr-defined]
        out[name] = ast.literal_eval(value)
    return out


def run_cb(script: Path, work: Path) -> dict:
    cache = work / "cb-cache"
    warm_user_cache(script, work, cache)   # as for compdiag (CompilerBisector deletes it)
    cache.mkdir(exist_ok=True)
    marker = cache / "MARKER-not-a-cache-entry"
    marker.write_text("placed by the benchmark before CompilerBisector ran\n")
    counter = work / "cb-probes"
    probe = f'echo x >> {counter}; exec {sys.executable} {script}'
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "torch._inductor.compiler_bisector", "run",
                        "sh", "-c", probe], cwd=work, env=_env(TORCHINDUCTOR_CACHE_DIR=str(cache)),
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    probes = len(counter.read_text().splitlines()) if counter.exists() else 0
    return {"wall_s": round(wall, 1), "probes": probes, "rc": p.returncode,
            "result": _parse_cb(p.stdout), "cache_dir_deleted": not cache.exists(),
            "marker_deleted": not marker.exists(), "stdout_tail": p.stdout[-1500:],
            "stderr_tail": p.stderr[-1500:] if p.returncode else ""}


def warm_user_cache(script: Path, work: Path, cache: Path) -> None:
    """One plain run of the script, untimed, as the user who found the bug ran it: its
    Inductor cache holds the program's compiled kernels (FX-graph cache off, as in probes)."""
    subprocess.run([sys.executable, str(script)], cwd=work, capture_output=True,
                   env=_env(TORCHINDUCTOR_CACHE_DIR=str(cache), TORCHINDUCTOR_FX_GRAPH_CACHE="0"))


def run_ours(script: Path, work: Path) -> dict:
    cache = work / "user-cache"     # the user's own cache, warmed by their run of the program
    warm_user_cache(script, work, cache)
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "compdiag", "bisect", "--json", "--",
                        sys.executable, str(script)], cwd=work,
                       env=_env(TORCHINDUCTOR_CACHE_DIR=str(cache)),
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = None
    out = {"wall_s": round(wall, 1), "rc": p.returncode, "stderr_tail": p.stderr[-1500:]}
    if doc:
        out.update(result={k: doc[k] for k in ("backend", "subsystem", "application",
                                                "debug_info")},
                   probes=doc["probes"], culprit=doc.get("culprit"), replay=doc.get("replay"),
                   replay_off=doc.get("replay_off"),
                   answered_from_evidence=sum(s["result"] in ("skipped", "inferred")
                                              for s in doc["steps"]),
                   # where the wall time went: each probe run, its wall and whether it ran
                   # ahead of the search (speculative) or was cancelled
                   steps=[{k: s.get(k) for k in ("n", "probe", "result", "wall_s",
                                                 "speculative")}
                          for s in doc["steps"] if s.get("wall_s") is not None],
                   wall_in_driver_s=doc.get("wall_s"))
    return out


def same(cb: dict | None, ours: dict | None) -> bool:
    if not cb or not ours:
        return cb == ours
    if (cb["backend"], cb["subsystem"]) != (ours["backend"], ours["subsystem"]):
        return False
    if ours["application"] is not None or (cb["bisect_number"] or 0) != 0:
        if cb["bisect_number"] != ours["application"]:
            return False
    return (cb["debug_info"] or None) == (ours["debug_info"] or None)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenarios", nargs="*", default=SCENARIOS)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results.json")
    args = ap.parse_args()
    rows = json.loads(args.out.read_text()) if args.out.exists() else {}
    for name in args.scenarios:
        script = SCRIPTS / f"{name}.py"
        work = Path(tempfile.mkdtemp(prefix=f"bisect-bench-{name}-"))
        try:
            before = sorted(os.listdir(work))
            cb = run_cb(script, work)
            shutil.rmtree(work / "cb-cache", ignore_errors=True)
            (work / "cb-probes").unlink(missing_ok=True)
            ours = run_ours(script, work)
            shutil.rmtree(work / "user-cache", ignore_errors=True)
            left = sorted(set(os.listdir(work)) - set(before))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        row = {"cb": cb, "ours": ours, "same_answer": same(cb["result"], ours.get("result")),
               "ratio": round(ours["wall_s"] / cb["wall_s"], 2) if cb["wall_s"] else None,
               "ours_left_in_cwd": left, "when": time.strftime("%Y-%m-%d %H:%M:%S"),
               "load_avg": os.getloadavg()[0], "cpus": os.cpu_count()}
        rows[name] = row
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
        print(f"{name:15} CB {cb['wall_s']:7.1f}s ({cb['probes']:2} probes)  ours "
              f"{ours['wall_s']:7.1f}s ({(ours.get('probes') or {}).get('launched', '?')} probes)"
              f"  ratio {row['ratio']}  same={row['same_answer']}  "
              f"cb={cb['result']} ours={ours.get('result')}", flush=True)
    print(table(rows))
    return 0


def table(rows: dict) -> str:
    lines = ["| scenario | CompilerBisector | compdiag bisect | ratio | same answer | blamed |",
             "| --- | --- | --- | --- | --- | --- |"]
    tot_cb = tot_ours = 0.0
    for name, r in rows.items():
        cb, ours = r["cb"], r["ours"]
        res = ours.get("result") or {}
        blamed = " / ".join(str(x) for x in (res.get("backend"), res.get("subsystem"),
                                             res.get("application"), res.get("debug_info"))
                            if x is not None)
        p = ours.get("probes") or {}
        lines.append(f"| {name} | {cb['wall_s']:.0f} s, {cb['probes']} probes | "
                     f"{ours['wall_s']:.0f} s, {p.get('launched', '?')} probes "
                     f"({p.get('cancelled', 0)} cancelled) | {r['ratio']}× | "
                     f"{'yes' if r['same_answer'] else 'NO'} | {blamed} |")
        tot_cb += cb["wall_s"]
        tot_ours += ours["wall_s"]
    if tot_cb:
        lines.append(f"| **total** | {tot_cb:.0f} s | {tot_ours:.0f} s | "
                     f"{tot_ours / tot_cb:.2f}× | | |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
