"""Queries in a child process, for failures that kill the process (abort, segfault, device
assert): each candidate is written as the very checker script the user would get
(repro_check.py) and run with plain python; its exit status is the verdict (a signal is the
failure's identity)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from compdiag.formats.signal_names import killed_by
from compdiag.minify.checker import write
from compdiag.minify.result import Result

TIMEOUT = 600


class IsolatedRunner:
    """A `run` for make_predicate: (gm, inputs, kind, config, ...) -> outcome, in a child."""

    wants_candidate = True

    def __init__(self, model: Any) -> None:
        self.model = model

    def __call__(self, gm: Any, inputs: Any, kind: str, config: Any, *, built: Any,
                 candidate: Any, **_: Any) -> tuple[str, Any]:
        problem = self.model.problem
        result = Result(problem, self.model, candidate, built, 0, 0, False,
                        len(candidate.kept), 0.0, {})
        with tempfile.TemporaryDirectory(prefix="compdiag-minify-") as tmp:
            path = Path(tmp) / "query.py"
            write(result, path)
            try:
                p = subprocess.run([sys.executable, "-I", str(path)], capture_output=True,
                                   text=True, timeout=TIMEOUT, cwd=tmp)
            except subprocess.TimeoutExpired:
                return ("fail", ("Timeout", ""))
        rc = p.returncode
        if rc < 0 or rc > 128:
            return ("fail", ("Signal", killed_by(rc)))
        if rc == 0:
            return ("pass", None)
        if rc == 3:
            return ("invalid", p.stdout.strip()[-200:])
        if rc == 1:
            return ("fail", tuple(problem.target))
        return ("fail", ("Other", p.stdout.strip()[-200:]))
