"""The model zoo: real models from timm, torchvision and transformers, plain and under
`compdiag run`, one row per model and compile mode.

    python benchmarks/zoo/run.py [--device cpu|cuda] [--modes default,reduce-overhead]
                                 [--models a,b,...|--suite transformers] [--out DIR]

For each model and mode, `worker.py MODEL --compile-mode MODE` runs three times, sharing one
fresh Inductor cache directory: plain `python` once to fill the caches (the cold compile, the
expensive part), then plain `python` again (which also writes torch's own counts,
`torch._dynamo.utils.counters`, from the same process) and `compdiag run --store FRESH.db`,
both warm: Dynamo traces every frame again (graphs, breaks and guards are what a cold run
has), while Inductor's FX-graph and AOTAutograd caches hold the compiled code. The capture's
CPU overhead is the compdiag run's CPU over the warm plain run's (paired, same cache state);
on a two-core machine shared with others, three cold compiles per model would not fit. The row says whether compdiag
left the program's exit status and stdout unchanged, compdiag's graph and graph-break counts
(from its store: `compdiag show --json`) beside torch's, the capture's CPU overhead, the
store's size, explain's top diagnosis (kind, severity, the user line it points at and whether
that line exists) and any warning compdiag raised. Rows go to
DIR/<torch version>-<device>.json (DIR defaults to benchmarks/zoo/results); `--markdown`
prints the table docs/zoo.md shows.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import linecache
import os
import re
import signal
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKER = HERE / "worker.py"
sys.path.insert(0, str(HERE))
from models import MODELS  # noqa: E402

# What compdiag prints about itself on stderr: its warnings and any traceback of its own.
OWN_LINE = re.compile(r"^compdiag[: ]|^Traceback |compdiag/(capture|ingest|store)/")
SUMMARY = re.compile(r"^compdiag: .*\| run \d+ in ")  # the run's one summary line: not a warning


def compdiag_cmd() -> list[str]:
    """compdiag as this Python's module (as the tests run it): a console script can be absent
    or stale where the package was installed without its scripts (the H200's venv)."""
    return [sys.executable, "-m", "compdiag"]


def timed(cmd: list[str], env: dict, cwd: Path, timeout: float) -> dict:
    """Run CMD; its exit status, stdout, stderr, wall and CPU seconds (user+sys of CMD and the
    children it waited for: os.wait4's, so that runs side by side (--jobs) are told apart)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err,
                             start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return {"rc": p.returncode, "stdout": out.read().decode(errors="replace"),
                "stderr": err.read().decode(errors="replace"), "wall_s": wall,
                "cpu_s": ru.ru_utime + ru.ru_stime}


def child_env(work: Path, device: str) -> dict:
    """One cache dir per model, shared by its runs (or the one --inductor-cache names, shared
    by every model), and no compile-worker pool (alike for all runs, as
    benchmarks/bench_capture.py does)."""
    env = dict(os.environ)
    for k in ("TORCH_TRACE", "TORCH_COMPILE_DEBUG", "TORCH_LOGS", "COMPDIAG_STORE"):
        env.pop(k, None)
    env.pop("TORCHINDUCTOR_FORCE_DISABLE_CACHES", None)
    if device == "cpu":  # a GPU host has cores to spare for Triton's compile workers
        env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    shared = os.environ.get("ZOO_INDUCTOR_CACHE")
    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(shared, "inductor") if shared \
        else str(work / "inductor")
    env["TRITON_CACHE_DIR"] = os.path.join(shared, "triton") if shared else str(work / "triton")
    env.setdefault("TRANSFORMERS_VERBOSITY", "error")
    env.setdefault("HF_HUB_OFFLINE", "1")
    return env


def store_json(store: Path, *args: str) -> dict:
    p = subprocess.run([*compdiag_cmd(), *args, "--store", str(store), "--json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"compdiag {' '.join(args)}: {p.stderr.strip()[-500:]}")
    return json.loads(p.stdout)


def short(path: str) -> str:
    """A path as the table shows it: inside the checkout relative to it, a library's from
    its package (site-packages/ cut off), so no machine's paths land in the results."""
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    try:
        return str(Path(path).resolve().relative_to(HERE.parent.parent))
    except ValueError:
        return path


def line_exists(frame: dict | None) -> bool | None:
    """Does the user frame explain points at name a line that is there, with that text?"""
    if not frame or not frame.get("filename") or not frame.get("lineno"):
        return None
    text = linecache.getline(frame["filename"], int(frame["lineno"])).strip()
    return bool(text) and (not frame.get("line") or text == frame["line"].strip())


def store_bytes(store: Path) -> int:
    return sum(p.stat().st_size for p in store.parent.glob(store.name + "*"))


def worker_cmd(model: str, mode: str, device: str, counters: Path, train: bool) -> list[str]:
    return [str(WORKER), model, "--compile-mode", mode, "--device", device,
            "--counters", str(counters), *([] if train else ["--no-train"])]


def importable(suite: str) -> str | None:
    """None when the suite's library imports here, else why not (one line)."""
    mod = {"timm": "timm", "torchvision": "torchvision", "transformers": "transformers"}[suite]
    p = subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True, text=True)
    if p.returncode == 0:
        return None
    last = (p.stderr.strip().splitlines() or ["?"])[-1]
    return f"{mod} does not import: {last[:200]}"


def run_one(model: str, mode: str, device: str, timeout: float, keep: Path | None,
            train: bool = True, cold: bool = True) -> dict:
    row: dict = {"model": model, "suite": MODELS[model].suite, "mode": mode, "device": device}
    with tempfile.TemporaryDirectory(prefix="zoo-") as tmp:
        work = Path(tmp)
        row = measure(row, work, model, mode, device, timeout, train, cold)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            stem = f"{model}-{mode}"
            for name, dest in (("store.db", f"{stem}.db"), ("plain.json", f"{stem}.torch.json")):
                if (work / name).exists():
                    shutil.copyfile(work / name, keep / dest)
    return row


def measure(row: dict, work: Path, model: str, mode: str, device: str, timeout: float,
            train: bool = True, cold_run: bool = True) -> dict:
    """The three runs and the row: result unchanged, torch's counts, then the store's.

    Without COLD_RUN the plain run fills the caches itself: one compile less, but then the
    paired CPU ratio would compare a cold run with a warm one, so the row has none (the
    store's own capture share, compdiag's CPU inside the run, is there either way)."""
    if True:
        train = train and MODELS[model].train
        cmd = lambda name: worker_cmd(model, mode, device, work / name, train)  # noqa: E731
        cold = timed([sys.executable, *cmd("cold.json")], child_env(work, device), work,
                     timeout) if cold_run else None
        plain = timed([sys.executable, *cmd("plain.json")], child_env(work, device), work, timeout)
        cold = cold or plain
        store = work / "store.db"
        cd = timed([*compdiag_cmd(), "run", "--store", str(store),
                    *cmd("cd.json")],
                   child_env(work, device), work, timeout)
        row.update(train=train, cold_run=cold_run, plain_exit=plain["rc"], compdiag_exit=cd["rc"],
                   unchanged=plain["rc"] == cd["rc"] == cold["rc"]
                   and plain["stdout"] == cd["stdout"] == cold["stdout"],
                   cold_cpu_s=round(cold["cpu_s"], 2),
                   plain_cpu_s=round(plain["cpu_s"], 2), compdiag_cpu_s=round(cd["cpu_s"], 2),
                   capture_cpu_ratio=round(cd["cpu_s"] / plain["cpu_s"], 3)
                   if plain["cpu_s"] and cold_run else None,
                   plain_wall_s=round(plain["wall_s"], 2), compdiag_wall_s=round(cd["wall_s"], 2))
        if plain["rc"] != 0:
            row["plain_error"] = plain["stderr"].strip().splitlines()[-1:] or [""]
        if not row["unchanged"]:
            row["stdout_plain"], row["stdout_compdiag"] = plain["stdout"], cd["stdout"]
        plain_err = set(plain["stderr"].splitlines())
        row["compdiag_stderr"] = [ln for ln in cd["stderr"].splitlines()
                                  if ln not in plain_err and OWN_LINE.search(ln)
                                  and not SUMMARY.search(ln)][:20]
        if not store.exists():
            row["error"] = "no store"
            return row
        return derive(row, store, work / "plain.json")


def derive(row: dict, store: Path, counters: Path) -> dict:
    """The row's counts and diagnosis: torch's from COUNTERS, compdiag's from STORE."""
    if True:
        tc = json.loads(counters.read_text()) if counters.exists() else {}
        row.update(graphs_torch=tc.get("graphs"), graph_breaks_torch=tc.get("graph_breaks"),
                   graph_break_reasons_torch=tc.get("graph_break_reasons"))
        row.pop("recompiles_torch", None)
        row["store_bytes"] = store_bytes(store)
        show = store_json(store, "show")
        run = show.get("run", {})
        row["compdiag_warnings"] = run.get("warnings", [])
        cap = show.get("capture") or {}
        row["capture_share"] = cap.get("share")
        row["graphs"], row["graph_breaks_unresumable"] = store_facts(store)
        row["graph_breaks"] = len(show.get("graph_breaks", []))
        row["breaks_agree"] = (row["graph_breaks_torch"] is not None and row["graph_breaks"]
                               - row["graph_breaks_unresumable"] == row["graph_breaks_torch"])
        row["graphs_agree"] = row["graphs"] == row["graphs_torch"]
        row["recompiles"] = len(show.get("recompiles", []))
        row["failures"] = len(show.get("failures", []))
        diags = store_json(store, "explain").get("diagnoses", [])
        row["diagnoses"] = len(diags)
        top = diags[0] if diags else None
        row["top_kind"] = top and top["kind"]
        row["top_severity"] = top and top.get("severity")
        row["top_reason"] = top and top.get("reason")
        frame = (top or {}).get("user_frame") or {}
        row["top_user_line"] = (f"{short(frame['filename'])}:{frame['lineno']}"
                                if frame.get("filename") else None)
        row["top_line_exists"] = line_exists(frame)
        # issue 29's principles, as the corpus tests hold every store to them
        row["principles"] = principles(store, diags)
        # A graph break at the top must be one torch itself reported: its type heads a key
        # of counters["graph_break"] (None: torch counted no break there, all unresumable).
        if top and top["kind"] == "graph_break":
            keys = list((tc.get("graph_break_reasons") or {}).keys())
            row["top_in_torch_reasons"] = in_torch_reasons(top["reason"], keys) if keys \
                else None
    return row


def principles(store: Path, diagnoses: list[dict]) -> list[str] | None:
    """The principle checks of tests/principles_check.py over a zoo run's store: real models
    held to the properties the corpus is (None when the checks cannot be imported, outside a
    checkout)."""
    tests = str(Path(__file__).resolve().parents[2] / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    try:
        from principles_check import store_property_problems
    except ImportError:
        return None
    return store_property_problems(store, diagnoses)


# Dynamo's words for a break it logs but does not count in counters["graph_break"]: the ones
# it cannot resume from (the rest of the frame runs in eager) and the frame it gives up on.
UNRESUMABLE = ("Encountered graph break that we cannot resume from",
               "Failed to handle graph break gracefully")


def store_facts(store: Path) -> tuple[int, int]:
    """From the store (read-only): the graphs Dynamo handed to the backend, as torch's
    counters["stats"]["unique_graphs"] counts them, and the graph breaks torch's
    counters["graph_break"] leaves out (UNRESUMABLE).

    A graph is a compile whose FX graph is in graph_nodes, or an attempt that compiled
    ('ok') a graph of calls with no tensor op left after AOTAutograd, so no post-grad node:
    torchvision's `_log_api_usage_once(nms)` before the break at `torchvision.ops.nms` is
    such a graph. An attempt the backend restarted (Inductor's tensorify restart: status
    'started', the next attempt compiles) is not one, as torch does not count it."""
    from compdiag.store.reader import Reader

    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        with_nodes = {r[0] for r in con.execute("SELECT DISTINCT compile_id FROM graph_nodes")}
        msgs = [r[0] or "" for r in con.execute("SELECT torch_message FROM graph_breaks")]
        run_id = con.execute("SELECT max(id) FROM runs").fetchone()[0]
    finally:
        con.close()
    ok = {c["compile_id"] for c in Reader(store).compiles(run_id) if c["status"] == "ok"
          and ((c.get("metrics") or {}).get("graph_op_count") or 0) > 0}
    return len(with_nodes | ok), sum(1 for m in msgs if any(u in m for u in UNRESUMABLE))


def in_torch_reasons(reason: str, keys: list[str]) -> bool:
    """Is explain's graph-break reason one of torch's counters["graph_break"] keys? explain
    says "TYPE (debug context)" where torch's key is the whole message: TYPE, explanation,
    hint and "Developer debug context: ..." on lines of their own."""
    m = re.fullmatch(r"(?s)(.*?) \((.*)\)", reason)
    head, context = (m.group(1), m.group(2)) if m else (reason, "")
    return any(reason in k or (k.startswith(head) and context in k) for k in keys)


def capture(r: dict) -> str:
    """The paired CPU ratio where the row has one, else compdiag's own share of the run."""
    if r.get("capture_cpu_ratio") is not None:
        return f"{r['capture_cpu_ratio']}x"
    share = r.get("capture_share")
    return f"{100 * share:.1f}% own" if share is not None else ""


def markdown(rows: list[dict]) -> str:
    head = ("| model | mode | unchanged | graphs (torch) | breaks (torch) | capture | "
            "store | top diagnosis | its line |\n|---|---|---|---|---|---|---|---|---|")
    out = [head]
    for r in rows:
        if r.get("skipped"):
            out.append(f"| {r['model']} | {r['mode']} | skipped: {r['skipped']} |||||||")
            continue
        top = f"{r.get('top_kind')} ({r.get('top_severity')})" if r.get("top_kind") else "none"
        line = r.get("top_user_line") or ""
        if line:
            line = f"`{line}`" + ("" if r.get("top_line_exists") else " (missing)")
        out.append(f"| {r['model']} | {r['mode']} | {'yes' if r.get('unchanged') else 'NO'} | "
                   f"{r.get('graphs')} ({r.get('graphs_torch')}) | "
                   f"{r.get('graph_breaks')} ({r.get('graph_breaks_torch')}) | "
                   f"{capture(r)} | {round((r.get('store_bytes') or 0) / 1e6, 2)} MB | "
                   f"{top} | {line} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--modes", default="default", help="comma-separated compile modes")
    ap.add_argument("--models", help="comma-separated model names (default: all)")
    ap.add_argument("--suite", help="only this suite (timm, torchvision, transformers)")
    ap.add_argument("--out", default=str(HERE / "results"), help="directory for the JSON")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per child run")
    ap.add_argument("--markdown", nargs="?", const=True, metavar="JSON",
                    help="print the table from --out's JSON for this torch and --device, or "
                    "from the results file JSON (e.g. results/2.11.0-cuda.json)")
    ap.add_argument("--infer-only", action="store_true", help="no training step")
    ap.add_argument("--no-cold", action="store_true",
                    help="no separate cold run: the plain run fills the caches (one compile "
                    "less; no paired CPU ratio, the store's capture share only)")
    ap.add_argument("--inductor-cache",
                    help="one Inductor cache directory for every model (with --no-cold: "
                    "kernels two models share are compiled once; a two-core machine's rows)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="models run side by side (a GPU host's spare cores; default 1)")
    ap.add_argument("--keep", help="keep each run's store and torch's counts in this directory")
    ap.add_argument("--rederive", action="store_true",
                    help="recompute --out's rows from the stores in --keep (no runs)")
    ap.add_argument("--reindex", action="store_true",
                    help="with --rederive: `compdiag reindex` each store first (this "
                    "compdiag's ingest fixes since the run)")
    args = ap.parse_args(argv)
    import torch

    out = Path(args.out) / f"{torch.__version__.split('+')[0]}-{args.device}.json"
    if isinstance(args.markdown, str):
        out = Path(args.markdown)
    if args.markdown or args.rederive:
        if not out.is_file():
            print(f"run.py: no results at {out} (run the models first, or pass the --out and "
                  f"--device they were run with)", file=sys.stderr)
            return 2
    if args.markdown:
        print(markdown(json.loads(out.read_text())))
        return 0
    keep = Path(args.keep) if args.keep else None
    if args.inductor_cache:  # read by child_env, in every model's runs
        os.environ["ZOO_INDUCTOR_CACHE"] = str(Path(args.inductor_cache).resolve())
    if args.rederive:
        rows = json.loads(out.read_text())
        only = set(args.models.split(",")) if args.models else None
        for r in rows:
            if only is not None and r["model"] not in only:
                continue
            stem = keep / f"{r['model']}-{r['mode']}"
            if not r.get("skipped") and Path(f"{stem}.db").exists():
                if args.reindex:  # the store again through this compdiag's ingest
                    subprocess.run([*compdiag_cmd(), "reindex", "--store", f"{stem}.db"],
                                   capture_output=True, check=True)
                derive(r, Path(f"{stem}.db"), Path(f"{stem}.torch.json"))
            r["compdiag_stderr"] = [ln for ln in r.get("compdiag_stderr", [])
                                    if not SUMMARY.search(ln)]
            r.pop("capture_self_s", None)
        out.write_text(json.dumps(rows, indent=1) + "\n")
        return 0
    names = args.models.split(",") if args.models else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        print(f"run.py: unknown model(s): {', '.join(unknown)} (known: {', '.join(MODELS)})",
              file=sys.stderr)
        return 2
    if args.suite:
        names = [n for n in names if MODELS[n].suite == args.suite]
    rows = json.loads(out.read_text()) if out.exists() else []
    missing = {s: importable(s) for s in {MODELS[n].suite for n in names}}
    lock = threading.Lock()

    def one(name: str, mode: str) -> None:
        nonlocal rows
        why = missing[MODELS[name].suite]
        if why:
            row = {"model": name, "suite": MODELS[name].suite, "mode": mode,
                   "device": args.device, "skipped": why}
        else:
            t0 = time.time()
            row = run_one(name, mode, args.device, args.timeout, keep, not args.infer_only,
                          not args.no_cold)
            row["harness_s"] = round(time.time() - t0, 1)
        with lock:
            rows = [r for r in rows if (r["model"], r["mode"]) != (name, mode)] + [row]
            print(json.dumps({k: row.get(k) for k in (
                "model", "mode", "skipped", "unchanged", "graphs", "graphs_torch",
                "graph_breaks", "graph_breaks_torch", "breaks_agree", "capture_cpu_ratio",
                "top_kind", "top_line_exists", "compdiag_warnings", "compdiag_stderr",
                "harness_s")}), flush=True)
            order = {n: i for i, n in enumerate(MODELS)}
            rows.sort(key=lambda r: (order.get(r["model"], 999), r["mode"]))
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(rows, indent=1) + "\n")

    work = [(n, m) for n in names for m in args.modes.split(",")]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for f in [pool.submit(one, n, m) for n, m in work]:
            f.result()
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
