"""Explain's hit rate on a held-out set of real repros from PyTorch issues.

These scripts are kept out of `corpus/` and out of the rules on purpose: nothing in
compdiag/analyses was written or tuned against them. Each has a sidecar, written from the
issue before the script was first run under compdiag, saying what a right top diagnosis is
(kind, a reason substring, the user line), judged as the corpus judges (tests/corpus_check.py).

    python benchmarks/explain_holdout/run.py [NAME ...]              # the CPU cases
    python benchmarks/explain_holdout/run.py --gpu --out DIR --jobs 4  # the CUDA cases (gpu/)
    python benchmarks/explain_holdout/run.py --set set2 [NAME ...]   # a later unseen set (set2/)
    python benchmarks/explain_holdout/run.py --set set3 --gpu --out DIR  # that set's CUDA cases (set3/gpu/)

prints one line per case and the hit rate. `--out DIR` keeps each case's store there and
writes `summary.json` and `summary.md` (one row per case, the hit rate) beside them; `--jobs N`
runs N cases at a time (each is its own process; the CPU cases are meant to run one at a
time on a small machine)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests"))
from corpus_check import case_problems, load_sidecar, run_case  # noqa: E402


def property_problems(store: str | None, diagnoses: list[dict[str, Any]]) -> list[str]:
    """Issue 29's principles as the corpus tests hold them (principles_check), over this
    case's store: a hit can still break one (a right top with a consequence left unfolded
    below it), and a miss says which principle it broke. Empty when the case left no store."""
    if not store or not Path(store).exists():
        return []
    from principles_check import store_property_problems

    return store_property_problems(Path(store), diagnoses)


def _cases(folder: Path, names: list[str]) -> list[Path]:
    sidecars = sorted(folder.glob("*.expected.json"))
    if names:
        known = {s.name[:-len(".expected.json")] for s in sidecars}
        unknown = sorted(set(names) - known)
        if unknown:
            raise SystemExit(f"run.py: no case named {', '.join(unknown)} in {folder}")
        sidecars = [s for s in sidecars if s.name[:-len(".expected.json")] in names]
    return sidecars


def _judge(sidecar: Path, folder: Path, work: Path, cache: Path) -> dict[str, Any]:
    """Run one case and hold its top diagnosis against its sidecar."""
    import torch  # the version picks a sidecar's per-torch overrides, as the corpus does

    name = sidecar.name[:-len(".expected.json")]
    spec = load_sidecar(sidecar, torch.__version__)
    started = time.monotonic()
    result = run_case(name, work, cache, spec.get("run_args"), folder=folder,
                      explain_args=spec.get("explain_args"))
    label = folder.name if folder == HERE else f"{HERE.name}/{folder.relative_to(HERE).as_posix()}"
    problems = case_problems(result, spec, folder=label)
    diagnoses = (result["doc"] or {}).get("diagnoses") or []
    top = diagnoses[0] if diagnoses else {}
    return {"case": name, "hit": not problems, "problems": problems,
            "expected": {k: spec.get(k) for k in ("kind", "stage", "reason", "lineno")},
            "top": {"kind": top.get("kind"), "stage": top.get("stage"),
                    "lineno": (top.get("user_frame") or {}).get("lineno"),
                    "reason": (top.get("reason") or "")[:300]},
            "kinds": [d.get("kind") for d in diagnoses], "run_rc": result["run_rc"],
            "properties": property_problems(result["store"], diagnoses) if result["doc"] else [],
            "run_stderr_tail": result["run_stderr"][-800:], "wall_s":
            round(time.monotonic() - started, 1), "store": result["store"]}


def _markdown(rows: list[dict[str, Any]], hits: int, title: str) -> str:
    lines = [f"# {title}", "", f"**Hit rate: {hits}/{len(rows)}**", "",
             "| case | result | expected | top diagnosis | s |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        exp, top = r["expected"], r["top"]
        lines.append(
            f"| `{r['case']}` | {'hit' if r['hit'] else 'miss'} | {exp['kind']} line "
            f"{exp['lineno']}{' ' + repr(exp['reason']) if exp.get('reason') else ''} | "
            f"{top['kind']} {top['stage'] or ''} line {top['lineno']}: "
            f"{top['reason'][:120].replace('|', '/')} | {r['wall_s']} |")
    broken = [r for r in rows if r.get("properties")]
    if broken:
        lines += ["", "## Principles broken (tests/principles_check.py, tests/locate_check.py)", ""]
        lines += [f"- `{r['case']}`: {'; '.join(r['properties'])[:400]}" for r in broken]
    misses = [r for r in rows if not r["hit"]]
    if misses:
        lines += ["", "## Why each miss missed", ""]
        lines += [f"- `{r['case']}`: {'; '.join(r['problems'])[:400]}" for r in misses]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME")
    parser.add_argument("--gpu", action="store_true",
                        help="run the CUDA cases in gpu/ (with --set SET: in SET/gpu/)")
    parser.add_argument("--out", type=Path, help="keep the stores and write summary.json/.md here")
    parser.add_argument("--jobs", type=int, default=1, help="cases run at a time (default 1)")
    parser.add_argument("--set", dest="set_name", metavar="SET",
                        help="run the CPU cases of the subfolder SET (e.g. set2), a later unseen set")
    args = parser.parse_args(argv)
    base = HERE / args.set_name if args.set_name else HERE
    folder = base / "gpu" if args.gpu else base
    if args.set_name and not folder.is_dir():
        parser.error(f"--set {args.set_name}{' --gpu' if args.gpu else ''}: no such set folder "
                     f"{folder.relative_to(HERE)} in {HERE}")
    sidecars = _cases(folder, args.names)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.out.resolve() if args.out else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        (work / "cache").mkdir(exist_ok=True)
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            rows = list(pool.map(lambda s: _judge(s, folder, work, work / "cache"), sidecars))
        for r in rows:
            print(f"{'hit ' if r['hit'] else 'MISS'} {r['case']}: " + "; ".join(r["problems"])
                  + f"\n      top: {r['top']['kind']} {r['top']['stage']} line "
                    f"{r['top']['lineno']}: {r['top']['reason'][:160]}"
                  + "".join(f"\n      property: {p[:200]}" for p in r["properties"]))
        hits = sum(r["hit"] for r in rows)
        print(f"hit rate: {hits}/{len(rows)}")
        if args.out:
            import torch
            doc = {"torch": torch.__version__, "cuda": torch.cuda.is_available() and
                   torch.cuda.get_device_name(0), "folder": str(folder), "hits": hits,
                   "cases": len(rows), "rows": rows}
            (work / "summary.json").write_text(json.dumps(doc, indent=2) + "\n")
            (work / "summary.md").write_text(_markdown(
                rows, hits, f"explain holdout ({'/'.join(filter(None, [args.set_name, 'gpu' if args.gpu else None])) or 'cpu'}), torch "
                f"{torch.__version__}"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
