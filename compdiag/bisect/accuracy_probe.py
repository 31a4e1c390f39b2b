"""`python -m compdiag.bisect.accuracy_probe [-m MODULE | SCRIPT] [ARGS...]`: the program, run
as plain python would run it, with compdiag's accuracy checker on every compiled graph.

This is the oracle of `compdiag bisect RUN` for a run whose failure is accuracy (the program
exits 0 but compiled outputs differ from eager): the probe exits 1 and prints MARKER when a
compiled graph's outputs (or a compiled function's, run whole) diverge from eager beyond the
tolerance (COMPDIAG_RTOL / COMPDIAG_ATOL,
as for `compdiag run --check-accuracy`), else with the program's own status. Graphs on which
eager itself is non-deterministic are not counted, as in the capture. No store is written:
a probe only has to answer good or bad, and fast (no localisation of the divergent node)."""

from __future__ import annotations

import os
import sys

MARKER = "compdiag: accuracy mismatch"


def _float_env(name: str) -> float | None:
    try:
        return float(os.environ[name])
    except (KeyError, ValueError):
        return None


def main(argv: list[str]) -> int:
    if not argv or (argv[0] == "-m" and len(argv) < 2):
        print("usage: python -m compdiag.bisect.accuracy_probe [-m MODULE | SCRIPT] [ARGS...]",
              file=sys.stderr)
        return 2
    import torch  # noqa: F401 - the checker hooks Dynamo before the program compiles

    from compdiag.capture.accuracy import AccuracyChecker, Tolerance
    from compdiag.capture.compile_context import current_compile_id

    diverged: list[str] = []

    def sink(check) -> None:  # noqa: ANN001 - a capture.accuracy.GraphCheck
        if check.error or check.nondeterministic:
            return
        for o in check.outputs:
            if not o.ok:
                diverged.append(f"graph {check.compile_id or '?'} output {o.output}: "
                                f"{o.detail.get('reason', 'mismatch')}")

    tol = Tolerance(_float_env("COMPDIAG_RTOL"), _float_env("COMPDIAG_ATOL"))
    graphs = AccuracyChecker(sink, tol=tol, localise=False, compile_id=current_compile_id)
    graphs.install()
    # the function whole against eager too, as `compdiag run --check-accuracy` checks it: a
    # difference only a later call shows, which every graph's first check passed (probes41b
    # aot_aliased_window_peek: bisect answered "no failure" for a run explain said differs)
    try:
        from compdiag.capture.function_accuracy import FunctionChecker

        FunctionChecker(sink, tol, graphs).install()
    except Exception:  # noqa: BLE001, S110 - the graphs' check alone, as before
        pass
    from compdiag.bisect.warm import run_as_main

    code = run_as_main(list(argv))
    status = 0 if code is None else code if isinstance(code, int) else 1
    if diverged:
        print(f"{MARKER}: {diverged[0]}"
              + (f" (and {len(diverged) - 1} more)" if len(diverged) > 1 else ""),
              file=sys.stderr)
        return status or 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
