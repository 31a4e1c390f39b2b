"""Where `compdiag run`'s CPU beyond plain python's goes (issue 34: the process tree's CPU ratio
against capture's own time counted in the program).

Runs benchmarks/workload_model.py (bench_capture.py's model and environment: caches off, one
compile thread) alternately as

    python    plain `python workload_model.py`
    compdiag  `compdiag run`, its parent process timed from inside (its own CPU, RUSAGE_SELF)
    null      plain python with a do-nothing handler on torch's structured-trace logger: the
              work torch does only because something listens (what compdiag makes it do)

and splits each run's process-tree CPU (RUSAGE_CHILDREN) into the `compdiag run` process,
the program's process, and the processes the program starts (the C++ compiler, inductor's
helper `python -c` checks), with the program's cyclic-GC time and passes by generation (a
`sitecustomize` on PYTHONPATH, the same in every variant, records them at exit) and, for
compdiag, what its counter stored. Prints medians, spreads and paired differences.

    python benchmarks/capture_gap.py [--rounds 5] [--variants python,compdiag,null] [--json F]
    python benchmarks/capture_gap.py --smoke    # one round, the eager backend: it runs
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import HERE, PYTHON, machine  # noqa: E402

SITE = '''
import os
if os.environ.get("GAP_OUT"):
    import atexit, gc, json, resource, sys, time
    _gc = {"t": 0.0, "n": [0, 0, 0], "start": 0.0}
    def _cb(phase, info):
        if phase == "start":
            _gc["start"] = time.thread_time()
        else:
            _gc["t"] += time.thread_time() - _gc["start"]
            _gc["n"][info.get("generation", 0)] += 1
    gc.callbacks.append(_cb)
    if os.environ.get("GAP_NULL"):
        import logging
        class _Null(logging.Handler):
            def emit(self, record):
                pass
        _l = logging.getLogger("torch.__trace")
        _l.addHandler(_Null(level=logging.DEBUG))
        _l.setLevel(logging.DEBUG)
        _l.propagate = False
    def _done():
        me = resource.getrusage(resource.RUSAGE_SELF)
        ch = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(os.environ["GAP_OUT"], "a") as f:
            f.write(json.dumps({"argv0": sys.argv[0], "self_cpu": me.ru_utime + me.ru_stime,
                                "children_cpu": ch.ru_utime + ch.ru_stime, "gc_s": _gc["t"],
                                "gc_n": _gc["n"], "maxrss_kb": me.ru_maxrss}) + "\\n")
    atexit.register(_done)
'''

# `compdiag run` in a process that reports its own CPU (RUSAGE_SELF) when the run is over
PARENT = '''
import json, resource, sys
from compdiag.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
me = resource.getrusage(resource.RUSAGE_SELF)
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"parent_cpu": me.ru_utime + me.ru_stime}) + "\\n")
'''


def one(variant: str, work: Path, site: Path, script: list[str]) -> dict:
    env = dict(os.environ)
    for k in ("TORCH_TRACE", "TORCH_COMPILE_DEBUG", "TORCH_LOGS", "COMPDIAG_STORE",
              "PYTHONDONTWRITEBYTECODE"):
        env.pop(k, None)
    env.update(TORCHINDUCTOR_FORCE_DISABLE_CACHES="1", TORCHINDUCTOR_CACHE_DIR=str(work / "ic"),
               TRITON_CACHE_DIR=str(work / "tc"), PYTHONPATH=str(site),
               GAP_OUT=str(work / "procs.jsonl"))
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    if variant == "null":
        env["GAP_NULL"] = "1"
    if variant == "compdiag":
        cmd = [PYTHON, "-c", PARENT, str(work / "parent.json"), "run", "--store",
               str(work / "s.db"), *script]
    else:
        cmd = [PYTHON, *script]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(work / "log", "wb") as log:
        rc = subprocess.run(cmd, env=env, cwd=work, stdout=log, stderr=subprocess.STDOUT).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        raise SystemExit(f"{variant} failed ({rc}):\n{(work / 'log').read_text()[-2000:]}")
    rec: dict = {"variant": variant, "wall": time.perf_counter() - t0,
                 "tree": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime}
    procs = [json.loads(x) for x in open(work / "procs.jsonl")]
    prog = next(p for p in procs if p["argv0"].endswith("workload_model.py"))
    rec.update(started=prog["children_cpu"], gc_s=prog["gc_s"], gc_n=prog["gc_n"],
               maxrss_kb=prog["maxrss_kb"], parent=0.0)
    if variant == "compdiag":
        rec["parent"] = json.loads((work / "parent.json").read_text())["parent_cpu"]
        with sqlite3.connect(work / "s.db") as c:
            own, trace, cpu = c.execute("SELECT capture_cpu_s, capture_trace_s, cpu_s FROM runs"
                                        " ORDER BY id DESC").fetchone()
        rec["counter"] = {"capture_cpu_s": own, "capture_trace_s": trace, "cpu_s": cpu}
    rec["program"] = rec["tree"] - rec["parent"] - rec["started"]
    return rec


def summary(rows: list[dict]) -> str:
    def fmt(xs: list[float]) -> str:
        return f"{statistics.median(xs):7.3f} ({min(xs):.3f}-{max(xs):.3f})" if xs else "-"

    out = []
    keys = ("tree", "program", "started", "parent", "gc_s", "wall")
    for v in dict.fromkeys(r["variant"] for r in rows):
        rs = [r for r in rows if r["variant"] == v]
        out.append(f"{v} ({len(rs)} runs): " + ", ".join(f"{k} {fmt([r[k] for r in rs])}"
                                                         for k in keys))
    rounds: dict[int, dict[str, dict]] = {}
    for r in rows:
        rounds.setdefault(r["round"], {})[r["variant"]] = r
    for v in ("compdiag", "null"):
        pairs = [b for b in rounds.values() if v in b and "python" in b]
        if pairs:
            out.append(f"{v} - python, paired ({len(pairs)}): " + ", ".join(
                f"{k} {fmt([b[v][k] - b['python'][k] for b in pairs])}" for k in keys[:5]))
    counted = [r["counter"] for r in rows if r.get("counter")]
    if counted:
        out.append("compdiag's counter (own, torch's for it): " + ", ".join(
            f"{c['capture_cpu_s']:.3f}+{c['capture_trace_s']:.3f}" for c in counted))
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--variants", default="python,compdiag,null")
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--smoke", action="store_true", help="one round, eager backend")
    ap.add_argument("--json", metavar="FILE", help="append each run's figures here")
    args = ap.parse_args()
    variants = args.variants.split(",")
    script = [str(HERE / "workload_model.py"), "--layers", str(args.layers),
              "--steps", str(args.steps)]
    if args.smoke:
        args.rounds, script = 1, [*script, "--backend", "eager"]
    print(machine())
    site = Path(tempfile.mkdtemp(prefix="compdiag-gap-site-"))
    (site / "sitecustomize.py").write_text(SITE)
    rows: list[dict] = []
    try:
        for r in range(args.rounds):
            for v in variants[r % len(variants):] + variants[:r % len(variants)]:
                work = Path(tempfile.mkdtemp(prefix="compdiag-gap-"))
                try:
                    rec = {"round": r, **one(v, work, site, script)}
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                rows.append(rec)
                print(json.dumps(rec), flush=True)
                if args.json:
                    with open(args.json, "a") as f:
                        f.write(json.dumps(rec) + "\n")
    except KeyboardInterrupt:
        pass
    finally:
        shutil.rmtree(site, ignore_errors=True)
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
