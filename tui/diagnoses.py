"""Diagnoses for the panel: from `compdiag.analyses.explain` when it is installed, otherwise a
plain ranking of the store's own facts (failures, accuracy, graph breaks, recompiles, CUDA-graph
skips), so the panel degrades instead of disappearing.

The TUI computes them in a child process (`python -m compdiag_tui.diagnoses STORE RUN`): explain
reads a whole run in Python, and in a thread it would hold the GIL against every keystroke.
COMPDIAG_TUI_EXPLAIN=0 skips explain (store facts only)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from compdiag.store.reader import Reader

# Names explain.py may use for "diagnoses of a run from a Reader", tried in order.
_ENTRY_POINTS = ("diagnose", "diagnoses", "explain_run", "explain", "run_diagnoses")


def load_diagnoses(reader: Reader, run_id: int) -> tuple[list[dict[str, Any]], str]:
    """(diagnoses, source) where source is 'explain' or 'store facts'."""
    found = _from_explain(reader, run_id)
    if found is not None:
        return found, "explain"
    return facts(reader, run_id), "store facts"


def load_diagnoses_isolated(store: Path | str, run_id: int, *, timeout: float = 120
                            ) -> tuple[list[dict[str, Any]], str]:
    """load_diagnoses in a child process; in-process if the child fails."""
    try:
        p = subprocess.run([sys.executable, "-m", "compdiag_tui.diagnoses", str(store),
                            str(run_id)], capture_output=True, text=True, timeout=timeout)
        if p.returncode == 0:
            doc = json.loads(p.stdout)
            return doc["diagnoses"], doc["source"]
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired):
        pass
    with Reader(store) as reader:
        return load_diagnoses(reader, run_id)


def _from_explain(reader: Reader, run_id: int) -> list[dict[str, Any]] | None:
    if os.environ.get("COMPDIAG_TUI_EXPLAIN") == "0":
        return None
    try:
        mod = importlib.import_module("compdiag.analyses.explain")
    except Exception:  # noqa: BLE001 - absent, or broken mid-edit: the store's facts will do
        return None
    for name in _ENTRY_POINTS:
        fn = getattr(mod, name, None)
        if not callable(fn) or inspect.isclass(fn):
            continue
        try:
            result = fn(reader, run_id)
        except TypeError:
            continue
        except Exception:  # noqa: BLE001 - a bug in explain must not take the TUI down
            return None
        return _normalise(result)
    return None


def _normalise(result: Any) -> list[dict[str, Any]] | None:
    if isinstance(result, dict):
        result = result.get("diagnoses")
    if not isinstance(result, (list, tuple)):
        return None
    out = []
    for item in result:
        if isinstance(item, dict):
            d = item
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            d = dataclasses.asdict(item)
        elif hasattr(item, "to_dict"):
            d = item.to_dict()
        elif hasattr(item, "_asdict"):
            d = item._asdict()
        else:
            continue
        if isinstance(d, dict):
            d = dict(d)
            if not isinstance(d.get("user_frame"), dict):
                d["user_frame"] = {}
            out.append(d)
    return out


def _frame(row: dict[str, Any]) -> dict[str, Any]:
    return {"filename": row.get("filename"), "lineno": row.get("lineno"), "line": row.get("line")}


def facts(reader: Reader, run_id: int) -> list[dict[str, Any]]:
    """The store's problems, worst first, in explain's diagnosis shape."""
    out: list[dict[str, Any]] = []
    for f in reader.failures(run_id):
        out.append({"kind": "failure", "stage": f["stage"], "compile_id": f["compile_id"],
                    "gb_code": None, "reason": f"{f.get('exc_type') or ''}: {f.get('message')}",
                    "user_frame": _frame(f), "explanation": f.get("traceback") or "", "fix": ""})
    for a in reader.accuracy(run_id):
        if not a["ok"]:
            out.append({"kind": "accuracy", "stage": "accuracy", "compile_id": a["compile_id"],
                        "gb_code": None,
                        "reason": f"{a.get('output')}: max_abs {a.get('max_abs')} "
                                  f"max_rel {a.get('max_rel')}",
                        "user_frame": {}, "explanation": "", "fix": ""})
    seen: set[tuple] = set()
    for g in reader.graph_breaks(run_id):
        key = (g["gb_code"], g["reason"], g["filename"], g["lineno"])
        if key in seen:
            continue
        seen.add(key)
        out.append({"kind": "graph_break", "stage": "dynamo", "compile_id": g["compile_id"],
                    "gb_code": g["gb_code"], "reason": g["reason"], "user_frame": _frame(g),
                    "explanation": "", "fix": "\n".join(g.get("hints") or [])})
    for r in reader.recompiles(run_id):
        out.append({"kind": "recompile", "stage": "dynamo", "compile_id": r["compile_id"],
                    "gb_code": None, "reason": r["reason"], "user_frame": {},
                    "explanation": f"failed guard: {r.get('guard')}" if r.get("guard") else "",
                    "fix": ""})
    for c in reader.cudagraphs(run_id):
        if not c["applied"]:
            out.append({"kind": "cudagraph", "stage": "inductor", "compile_id": c["compile_id"],
                        "gb_code": None, "reason": f"cudagraphs skipped: {c.get('reason')}",
                        "user_frame": {}, "explanation": "", "fix": ""})
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    with Reader(args[0]) as reader:
        diagnoses, source = load_diagnoses(reader, int(args[1]))
    json.dump({"source": source, "diagnoses": diagnoses}, sys.stdout, default=repr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
