"""Test-only faults, injected into `compdiag run`'s child through PYTHONPATH.

COMPDIAG_TEST_FAULT=store: the child is handed a store path it cannot write.
COMPDIAG_TEST_FAULT=hook:  compdiag's graph-break parser raises inside the trace hook.
Only the child (the process that has COMPDIAG_RUN_ID) is touched."""
import os

_fault = os.environ.get("COMPDIAG_TEST_FAULT")
if _fault and os.environ.get("COMPDIAG_RUN_ID"):
    if _fault == "store":
        # A path under a regular file: no one, not even root, can create it.
        os.environ["COMPDIAG_STORE_PATH"] = os.path.join(__file__, "store.db")
    elif _fault == "hook":
        import compdiag.ingest.parsers as _parsers

        def _broken(text):
            raise RuntimeError("injected fault in parse_graph_break")

        _parsers.parse_graph_break = _broken
