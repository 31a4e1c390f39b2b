"""Explain's hit rate on a held-out set of real repros from PyTorch issues.

These scripts are kept out of `corpus/` and out of the rules on purpose: nothing in
compdiag/analyses was written or tuned against them. Each has a sidecar, written from the
issue before the script was first run under compdiag, saying what a right top diagnosis is
(kind, a reason substring, the user line), judged as the corpus judges (tests/corpus_check.py).

    python benchmarks/explain_holdout/run.py [NAME ...]

prints one line per case and the hit rate."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests"))
from corpus_check import case_problems, load_sidecar, run_case  # noqa: E402


def main(names: list[str]) -> int:
    sidecars = sorted(HERE.glob("*.expected.json"))
    if names:
        sidecars = [s for s in sidecars if s.name[:-len(".expected.json")] in names]
    hits = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "cache").mkdir()
        for sidecar in sidecars:
            name = sidecar.name[:-len(".expected.json")]
            spec = load_sidecar(sidecar)
            result = run_case(name, work, work / "cache", spec.get("run_args"), folder=HERE)
            problems = case_problems(result, spec, folder=HERE.name)
            hits += not problems
            top = ((result["doc"] or {}).get("diagnoses") or [{}])[0]
            print(f"{'hit ' if not problems else 'MISS'} {name}: "
                  + ("; ".join(problems) if problems else "")
                  + f"\n      top: {top.get('kind')} {top.get('stage')} "
                    f"line {(top.get('user_frame') or {}).get('lineno')}: "
                    f"{(top.get('reason') or '')[:160]}")
    print(f"hit rate: {hits}/{len(sidecars)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
