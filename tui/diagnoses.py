"""The diagnoses panel's list: exactly `compdiag explain`'s, as its JSON dicts.

The TUI computes them in a child process (`python -m compdiag_tui.diagnoses STORE RUN`): explain
reads a whole run in Python, and in a thread it would hold the GIL against every keystroke."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from compdiag.analyses.explain import explain
from compdiag.store.reader import Reader


def load_diagnoses(reader: Reader, run_id: int) -> list[dict[str, Any]]:
    """explain's diagnoses of the run, most important first, as `explain --json` has them."""
    return [d.to_json() for d in explain(reader, run_id)]


def load_diagnoses_isolated(store: Path | str, run_id: int, *, timeout: float = 120
                            ) -> list[dict[str, Any]]:
    """load_diagnoses in a child process; in-process if the child fails to start or answer."""
    try:
        p = subprocess.run([sys.executable, "-m", "compdiag_tui.diagnoses", str(store),
                            str(run_id)], capture_output=True, text=True, timeout=timeout)
        if p.returncode == 0:
            return json.loads(p.stdout)["diagnoses"]
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired):
        pass
    with Reader(store) as reader:
        return load_diagnoses(reader, run_id)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    with Reader(args[0]) as reader:
        diagnoses = load_diagnoses(reader, int(args[1]))
    json.dump({"diagnoses": diagnoses}, sys.stdout, default=repr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
