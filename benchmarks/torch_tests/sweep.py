"""PyTorch's own test suite as compdiag's oracle (issue 28).

    python benchmarks/torch_tests/sweep.py --src PYTORCH_CHECKOUT [FILE ...] [-k TEXT]

collects the test cases of each FILE (default: FILES below) from a PyTorch source checkout,
derives from each test's own assertions what a right diagnosis contains (derive.py), runs
the derivable ones under capture, one store per test (torch_tests_capture.py; `--isolated`:
`compdiag run -m pytest FILE::CLASS::TEST` per test instead), scores `compdiag explain
--json`'s top diagnosis (and `show --json` for graph and cache counts) against it
(score.py), and writes `results/<torch version>.json` (one object per collected case) and
`results/<torch version>.summary.json` (the table, wall time, the files' commits).

Every store the sweep leaves is also held to issue 29's principles, the properties the corpus
is held to (tests/principles_check.py's store_property_problems: diagnoses at the line torch
points at, cause above consequence, no abnormal end unexplained, no torch-internal name in a
headline, ...): each row's `principles` lists the problems found in its store, and the
summary counts them by principle and by file. `--all-cases` runs the cases no rule derives an
expectation from as well, held to the principles alone.

The checkout's test files are input, read at run time; nothing of them is kept here. A
SOURCES.json at the checkout's root ({"test/dynamo/x.py": "<commit>"}) names the commit each
file came from when the checkout is not a git work tree."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.append(str(HERE.parent.parent / "tests"))  # principles_check, in a checkout

from collect import Case, collect  # noqa: E402
from derive import Derived, derive  # noqa: E402
from score import judge  # noqa: E402
from torch_tests_capture import (ONLY_ENV, OUTCOMES_FILE, SHIMS_FILE,  # noqa: E402
                                 STORES_ENV, store_for)

FILES = ("test/dynamo/test_error_messages.py", "test/dynamo/test_recompile_ux.py",
         "test/dynamo/test_recompiles.py", "test/dynamo/test_exc.py",
         "test/inductor/test_codecache.py", "test/dynamo/test_aot_autograd_cache.py",
         "test/dynamo/test_structured_trace.py")
FILE_TIMEOUT = 3600
WALLS_FILE = "sweep_walls.json"
SKEW_CLASSES = ("another graph break on top (GB code)", "torch's message not carried",
                "guard text missing", "no diagnosis", "show: compiled graphs in show",
                "show: compiles differ from the trace", "show: restarts differ from the trace",
                "show: cache records differ from the trace",
                "show: cache lookups differ from the counters")


def _commit(src: Path, relpath: str) -> str | None:
    sources = src / "SOURCES.json"
    if sources.exists():
        return json.loads(sources.read_text()).get(relpath)
    try:
        out = subprocess.run(["git", "-C", str(src), "log", "-1", "--format=%H", "--",
                              relpath], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or None
    except OSError:
        return None


def _nodeid(case: Case) -> str:
    return f"{Path(case.file).name}::{case.cls}::{case.name}"


def _picked(case_id: str, keyword: str | None) -> bool:
    """`-k`: the case's id contains KEYWORD, or one of its comma-separated parts (a test id
    has no comma)."""
    return not keyword or any(k and k in case_id for k in keyword.split(","))


def _parametrized(case: Case) -> bool:
    """torch's `@parametrize` methods run as instances (`test_x_device_cpu_dtype_float32`,
    made by `instantiate_parametrized_tests`), never under the method's own name."""
    return any("parametrize" in d for d in case.decorators)


def _selector(case: Case) -> str:
    return f"{case.cls}::{case.name}" + ("_*" if _parametrized(case) else "")


def instances(case: Case, outcomes: dict[str, str], methods: set[str]) -> list[Case]:
    """The instances of a parametrized CASE that ran (their outcome keys), each a case of
    its own named after the instance; a key that is another method's name is not one, nor
    is an instance of a longer method whose name starts with this one's
    (`test_g_with_break_A` is `test_g_with_break`'s, not `test_g`'s): the longest method
    name a key starts with owns it."""
    head = f"{case.cls}::{case.name}_"
    longer = [m for m in methods if m.startswith(case.name + "_")]
    names = sorted(k.split("::", 1)[1] for k in outcomes if k.startswith(head))
    return [dataclasses.replace(case, name=n) for n in names if n not in methods
            and not any(n.startswith(m + "_") for m in longer)]


def _env(stores: Path, cache: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1", TORCHINDUCTOR_COMPILE_THREADS="1",
               TORCHINDUCTOR_CACHE_DIR=str(cache))
    env[STORES_ENV] = str(stores)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH")) if p)
    env.pop("TORCH_LOGS", None)
    env.pop("TORCH_TRACE", None)
    return env


def run_file(src: Path, relpath: str, cases: list[Case], stores: Path, *, nice: int,
             isolated: bool, log: Path, timeout: float = FILE_TIMEOUT) -> dict[str, str]:
    """Run CASES of one file; returns node id -> outcome (passed, failed, skipped: why,
    not run)."""
    cwd = (src / relpath).parent
    junit = stores / (Path(relpath).stem + ".junit.xml")
    env = _env(stores, stores / "inductor-cache")
    base = ["nice", "-n", str(nice), sys.executable]
    # The test file's own folder is pytest's root: no ini file or conftest.py of a folder
    # above it (this repository's, when the checkout sits inside one) applies.
    ini = stores / "pytest.ini"
    ini.write_text("[pytest]\n")
    # --assert=plain: a test's `assert` runs as Python runs it (pytest's rewriting turns
    # `assert x is None` into a repr() Dynamo then has to trace).
    pytest_args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ini),
                   "--rootdir", str(cwd), "--confcutdir", str(cwd), "--assert=plain"]
    with open(log, "a") as out:
        if isolated:
            for case in cases:
                store = store_for(stores, _nodeid(case))
                subprocess.run([*base, "-m", "compdiag", "run", "--store", str(store),
                                *pytest_args, "--junitxml", str(junit) + "." + case.name,
                                _nodeid(case)], cwd=cwd, env={**env, STORES_ENV: ""},
                               stdout=out, stderr=subprocess.STDOUT, timeout=FILE_TIMEOUT)
        else:
            (stores / OUTCOMES_FILE).unlink(missing_ok=True)
            only = json.dumps([_selector(c) for c in cases])
            try:
                subprocess.run([*base, *pytest_args, "-p", "torch_tests_capture",
                                "--junitxml", str(junit), Path(relpath).name], cwd=cwd,
                               env={**env, ONLY_ENV: only}, stdout=out,
                               stderr=subprocess.STDOUT, timeout=max(1.0, timeout))
            except subprocess.TimeoutExpired:  # the deadline: score what finished
                print(f"{relpath}: stopped at the deadline", file=out)
    return _outcomes(junit.parent.glob(junit.name + "*")) or _partial(stores)


def _partial(stores: Path) -> dict[str, str]:
    """The outcomes the plugin wrote test by test (a run stopped before pytest wrote its
    junit file); the last test, cut short, has none and counts as not run."""
    path = stores / OUTCOMES_FILE
    if not path.exists():
        return {}
    rows = [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]
    return {r["key"]: r["outcome"] for r in rows}


def _outcomes(paths: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        for tc in root.iter("testcase"):
            key = tc.get("classname", "").split(".")[-1] + "::" + tc.get("name", "")
            child = next(iter(tc), None)
            if child is None or child.tag in ("system-out", "system-err", "properties"):
                out[key] = "passed"
            elif child.tag == "skipped":
                out[key] = "skipped: " + (child.get("message") or "")[:160]
            else:
                out[key] = f"{child.tag}: " + (child.get("message") or "")[:160]
    return out


def property_problems(store: Path, diagnoses: list[dict[str, Any]]) -> list[str] | None:
    """Issue 29's principles over one test's store (tests/principles_check.py, as the holdout
    sets and the model zoo check theirs); None outside a checkout, where the checks are not."""
    try:
        from principles_check import store_property_problems
    except ImportError:
        return None
    else:
        return store_property_problems(store, diagnoses)


def _cli_json(*argv: str) -> dict[str, Any] | None:
    """`compdiag ARGV --json`'s document, through the CLI's own entry point, in-process."""
    from compdiag.cli import main

    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            rc = main([*argv, "--json"])
    except SystemExit as exc:
        rc = exc.code
    try:
        return json.loads(buf.getvalue()) if rc == 0 else None
    except ValueError:
        return None


def score_case(case: Case, derived: Derived, outcome: str | None, store: Path,
               commit: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {"id": case.id, "file_commit": commit,
                           "derivable": derived.derivable,
                           "expected": [e.to_json() for e in derived.expectations],
                           "kind_expected": derived.expectations[0].kind
                           if derived.expectations else None,
                           "test_outcome": outcome, "top_right": None, "top3_right": None,
                           "show_right": None, "kind_got": None, "top": None,
                           "why": derived.why_not, "miss_class": None, "principles": None}
    ran = outcome is not None and not outcome.startswith("skipped") and store.exists()
    explain = _cli_json("explain", "--store", str(store)) if ran else None
    diagnoses = (explain or {}).get("diagnoses") or []
    if ran:  # every store is held to the principles, derivable or not
        row["principles"] = property_problems(store, diagnoses)
    if not derived.derivable:
        return row
    if outcome is None and _parametrized(case):
        row["why"] = ("not run: parametrized (pytest collects its instances, "
                      "test_x_device_cpu..., not the method)")
        return row
    if not ran:
        row["why"] = "not run: " + (outcome or "no store (the test did not start)")
        return row
    show = _cli_json("show", "--store", str(store))
    verdict = judge(derived.expectations, diagnoses, show, case.file)
    row.update(verdict)
    if not row["top_right"] and not outcome.startswith("passed") and (
            row["miss_class"] in SKEW_CLASSES or
            (row["miss_class"] or "").startswith("program on top")):
        # ("program on top": the test failed and no compile says why, so the run's own
        # exit status is all there is; torch did not do what the test expects.)
        # The test itself fails here and the miss is in torch's own content (another GB
        # code, other words, nothing raised): what the test expects is not what this
        # torch emits (a test file newer than the wheel), not compdiag's doing.
        row["miss_class"] = "test fails on this torch: " + row["miss_class"]
    if diagnoses:
        d = diagnoses[0]
        uf = d.get("user_frame") or {}
        row["top"] = {"kind": d.get("kind"), "stage": d.get("stage"),
                      "gb_code": d.get("gb_code"), "lineno": uf.get("lineno"),
                      "line": (uf.get("line") or "").strip()[:120],
                      "reason": (d.get("reason") or "")[:240]}
    return row


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per file and in total: cases, derivable, run, right on top, right in the top three."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_file.setdefault(r["id"].split("::")[0], []).append(r)
    table = []
    for name, rs in [*by_file.items(), ("total", rows)]:
        run = [r for r in rs if r["top_right"] is not None]
        passed = [r for r in run if (r["test_outcome"] or "").startswith("passed")]
        table.append({"file": name, "cases": len(rs),
                      "derivable": sum(r["derivable"] for r in rs), "run": len(run),
                      "top_right": sum(bool(r["top_right"]) for r in run),
                      "top3_right": sum(bool(r["top3_right"]) for r in run),
                      "passed": len(passed),
                      "passed_top_right": sum(bool(r["top_right"]) for r in passed),
                      "passed_top3_right": sum(bool(r["top3_right"]) for r in passed),
                      "miss_classes": dict(Counter(r["miss_class"] for r in run
                                                   if not r["top_right"]).most_common())})
    return table


def principles_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The principle checks over the sweep's stores: how many were checked, how many broke
    one, the problems by principle (§N) and per file."""
    from collections import Counter

    checked = [r for r in rows if r.get("principles") is not None]
    by_file: dict[str, dict[str, int]] = {}
    for r in checked:
        f = by_file.setdefault(r["id"].split("::")[0], {"stores": 0, "with_problems": 0,
                                                         "problems": 0})
        f["stores"] += 1
        f["with_problems"] += bool(r["principles"])
        f["problems"] += len(r["principles"])
    by_principle = Counter(p.split(":", 1)[0] for r in checked for p in r["principles"])
    return {"stores": len(checked),
            "with_problems": sum(bool(r["principles"]) for r in checked),
            "problems": sum(len(r["principles"]) for r in checked),
            "by_principle": dict(by_principle.most_common()), "by_file": by_file}


def markdown(table: list[dict[str, Any]]) -> str:
    lines = ["| file | cases | derivable | run | right on top | right in top three | "
             "test passes here | of those: right on top | in top three |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for t in table:
        lines.append(f"| {t['file']} | {t['cases']} | {t['derivable']} | {t['run']} | "
                     f"{t['top_right']} | {t['top3_right']} | {t['passed']} | "
                     f"{t['passed_top_right']} | {t['passed_top3_right']} |")
    return "\n".join(lines)


def sweep(src: Path, files: list[str], *, keyword: str | None, stores: Path, nice: int,
          isolated: bool, run: bool = True, deadline: float | None = None,
          all_cases: bool = False) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Collect, derive, run and score every case of FILES; returns (rows, summary). With
    ALL_CASES the cases no rule derives from run too, held to the principles alone."""
    started = time.time()
    rows, commits, shims, walls, missing = [], {}, [], {}, []
    for relpath in files:
        if not (src / relpath).exists():
            print(f"{relpath}: not in the checkout", file=sys.stderr)
            missing.append(relpath)
            continue
        commits[relpath] = _commit(src, relpath)
        cases = [c for c in collect(src, relpath) if _picked(c.id, keyword)]
        derived = {c.id: derive(src, c) for c in cases}
        todo = [c for c in cases if all_cases or derived[c.id].derivable]
        t0 = time.time()
        if run and todo:
            left = FILE_TIMEOUT if deadline is None else deadline - (time.time() - started)
            outcomes = run_file(src, relpath, todo, stores, nice=nice, isolated=isolated,
                                log=stores / "pytest.log", timeout=min(FILE_TIMEOUT, left))
        else:  # score the stores an earlier sweep left in STORES
            outcomes = _outcomes(stores.glob(Path(relpath).stem + ".junit.xml*")) or \
                _partial(stores)
        walls[relpath] = round(time.time() - t0, 1)
        if (stores / SHIMS_FILE).exists():
            shims += [s for s in json.loads((stores / SHIMS_FILE).read_text())
                      if s not in shims]
        methods = {c.name for c in cases}
        for c in cases:
            # A parametrized method is scored once per instance that ran (each its own
            # test and store, judged by the method's derived expectation); with none, it
            # stays one row, "not run".
            for one in (instances(c, outcomes, methods) if _parametrized(c) else []) or [c]:
                rows.append(score_case(one, derived[c.id],
                                       outcomes.get(f"{one.cls}::{one.name}"),
                                       store_for(stores, _nodeid(one)), commits[relpath]))
        print(f"{relpath}: {len(cases)} cases, {len(todo)} to run, run in "
              f"{walls[relpath]}s", file=sys.stderr)
    import torch

    walls_file = stores / WALLS_FILE  # the runs' wall times, kept for a later --no-run
    if run:  # per file: a run of some files keeps the walls of the others run before
        before = json.loads(walls_file.read_text()) if walls_file.exists() else {}
        per_file = {**(before.get("wall_s_per_file") or {}), **walls}
        walls_file.write_text(json.dumps({"wall_s": round(sum(per_file.values()), 1),
                                          "wall_s_per_file": per_file}))
    ran = json.loads(walls_file.read_text()) if walls_file.exists() else {}
    summary = {"torch": torch.__version__, "torch_git": torch.version.git_version,
               "source_commits": commits, "files_missing": missing, "shims": shims,
               "sweep_wall_s": ran.get("wall_s"),
               "sweep_wall_s_per_file": ran.get("wall_s_per_file"),
               "scoring_wall_s": round(time.time() - started, 1),
               "mode": "isolated" if isolated else "in-process", "table": summarize(rows),
               "principles": principles_summary(rows)}
    return rows, summary


def _merged(out: Path, rows: list[dict[str, Any]], summary: dict[str, Any],
            keyword: str | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """ROWS and SUMMARY with the rows, commits and wall times of the files an earlier sweep
    wrote to OUT and this one did not sweep (a sweep of one file adds to the others). With
    KEYWORD (`-k`), only the cases whose id contains it were swept: the file's other rows
    and its whole-file wall time stay."""
    swept = {r["id"].split("::")[0] for r in rows} | set(summary["source_commits"])
    kept = [r for r in json.loads(out.read_text()) if r["id"].split("::")[0] not in swept
            or (keyword and not _picked(r["id"], keyword))]
    before_path = out.with_suffix(".summary.json")
    before = json.loads(before_path.read_text()) if before_path.exists() else {}
    walls = {f: w for f, w in (before.get("sweep_wall_s_per_file") or {}).items()
             if f not in swept or keyword}
    if not keyword:
        walls.update(summary.get("sweep_wall_s_per_file") or {})
    commits = {f: c for f, c in (before.get("source_commits") or {}).items()
               if f not in swept}
    commits.update(summary["source_commits"])
    rows = kept + rows
    summary = dict(summary, source_commits=commits, sweep_wall_s_per_file=walls,
                   sweep_wall_s=round(sum(w for w in walls.values() if w), 1),
                   files_missing=[f for f in before.get("files_missing") or []
                                  if f not in commits and f not in swept] +
                   [f for f in summary["files_missing"] if f not in commits],
                   shims=sorted(set(before.get("shims") or []) | set(summary["shims"])),
                   table=summarize(rows), principles=principles_summary(rows))
    return rows, summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", required=True, type=Path, help="a PyTorch source checkout")
    ap.add_argument("files", nargs="*", default=list(FILES), help="test files, relative "
                    "to the checkout")
    ap.add_argument("-k", dest="keyword", help="only cases whose id contains this (or one "
                    "of these, comma-separated)")
    ap.add_argument("--stores", type=Path, help="where the per-test stores go "
                    "(default: a temporary folder)")
    ap.add_argument("--out", type=Path, help="results file (default: "
                    "results/<torch version>.json beside this script)")
    ap.add_argument("--nice", type=int, default=15)
    ap.add_argument("--isolated", action="store_true", help="one `compdiag run -m pytest` "
                    "per test instead of one pytest process per file")
    ap.add_argument("--no-run", action="store_true", help="score the stores an earlier "
                    "sweep left in --stores, without running the tests again")
    ap.add_argument("--deadline", type=float, help="stop running tests after this many "
                    "seconds of the sweep and score the tests that finished")
    ap.add_argument("--all-cases", action="store_true", help="run the cases no rule "
                    "derives an expectation from as well, each store held to the "
                    "principles (tests/principles_check.py) alone")
    ap.add_argument("--update", action="store_true", help="keep the rows (and wall times) "
                    "of the files not swept now from the results file already there; the "
                    "table is made again over all of them")
    args = ap.parse_args(argv)
    if not args.src.is_dir():
        print(f"sweep: {args.src} is not a directory", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="torch-tests-") as tmp:
        stores = args.stores or Path(tmp)
        stores.mkdir(parents=True, exist_ok=True)
        rows, summary = sweep(args.src.resolve(), args.files, keyword=args.keyword,
                              stores=stores.resolve(), nice=args.nice,
                              isolated=args.isolated, run=not args.no_run,
                              deadline=args.deadline, all_cases=args.all_cases)
    import torch

    out = args.out or HERE / "results" / f"{torch.__version__.split('+')[0]}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.update and out.exists():
        rows, summary = _merged(out, rows, summary, args.keyword)
    out.write_text(json.dumps(rows, indent=1) + "\n")
    out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(markdown(summary["table"]))
    for t in summary["table"][-1:]:
        for cls, n in t["miss_classes"].items():
            print(f"  miss: {n} x {cls}")
    pr = summary["principles"]
    print(f"principles: {pr['problems']} problems in {pr['with_problems']} of {pr['stores']} "
          f"stores; by principle {pr['by_principle']}")
    for r in rows:
        for problem in r.get("principles") or []:
            print(f"  {r['id']}: {problem[:160]}")
    print(f"sweep wall {summary['sweep_wall_s']}s (scoring {summary['scoring_wall_s']}s); "
          f"results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
