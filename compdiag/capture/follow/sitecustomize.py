"""compdiag's hook in the processes of a launcher `compdiag run` follows (torchrun's workers):
on PYTHONPATH while COMPDIAG_FOLLOW_JOB is set, it makes each worker capture itself into the
launcher's store and job, and the launcher report its workers' exit statuses
(compdiag/capture/ranks.py). Fail-open: a fault here leaves the program running uncaptured.
Then it runs the sitecustomize it shadows, if any."""

import os
import sys

if os.environ.get("COMPDIAG_FOLLOW_JOB"):
    try:
        from compdiag.capture.ranks import start_in_process

        start_in_process()
    except Exception as exc:  # noqa: BLE001 - fail open
        print(f"compdiag: this rank is not captured ({type(exc).__name__}: {exc})",
              file=sys.stderr)
try:
    from compdiag.formats.site_chain import run_shadowed

    run_shadowed(os.path.dirname(os.path.abspath(__file__)))
except Exception as exc:  # noqa: BLE001
    print(f"compdiag: the shadowed sitecustomize failed: {exc}", file=sys.stderr)
