"""pytest plugin: every test of one pytest process captured into a store of its own.

The in-process equivalent of `compdiag run --store STORE -m pytest FILE::CLASS::TEST` once
per test, at one torch import per test file instead of one per test (on a shared two-core
machine that import is most of a small test's cost). compdiag's Capture is installed once;
before each test a new run is begun in that test's store and the capture's ingestor is
pointed at it; after the test the run is ended with the test's outcome as its exit status,
and the exception that failed a test is recorded as its program's (how its run ended, at the
test's line), as `compdiag run` records a script's uncaught exception.
Tests of torch's own suite reset Dynamo around each test (`torch._dynamo.test_case`), so a
test's store holds its own compiles only.

Load with `-p torch_tests_capture` (this folder on PYTHONPATH) and the stores' folder in
COMPDIAG_TORCH_TESTS_STORES."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

STORES_ENV = "COMPDIAG_TORCH_TESTS_STORES"
ONLY_ENV = "COMPDIAG_TORCH_TESTS_ONLY"  # JSON list of "Class::test" (or "Class::test_*") to keep
SHIMS_FILE = "shims.json"


def store_for(stores: Path, nodeid: str) -> Path:
    """The store of one test, named after its pytest node id."""
    return stores / (re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_") + ".db")


class _PerTest:
    def __init__(self, stores: Path) -> None:
        self.stores = stores
        self.capture: Any = None
        self.current: tuple[Any, Any, int] | None = None
        self.failed = False
        self.raised: BaseException | None = None

    def begin(self, nodeid: str) -> None:
        try:
            import torch
            from compdiag.capture.hooks import Capture
            from compdiag.ingest.ingestor import Ingestor
            from compdiag.store.writer import Writer

            path = store_for(self.stores, nodeid)
            for stale in path.parent.glob(path.name + "*"):
                stale.unlink()
            runs = Writer(path)  # as the parent of `compdiag run` does
            run_id = runs.begin_run(source="run", argv=["-m", "pytest", nodeid],
                                    cwd=os.getcwd())
            runs.flush()
            writer = Writer(path, background=True)  # as its child does
            writer.update_run(run_id, torch_version=torch.__version__)
            ing = Ingestor(writer, run_id)
            if self.capture is None:
                self.capture = Capture(ing)
                self.capture.install()
            else:
                with self.capture.lock:
                    self.capture.ing = ing
            self.current = (runs, writer, run_id)
            self.failed = False
            self.raised = None
        except Exception as exc:  # noqa: BLE001 - the test runs whatever happens here
            print(f"torch_tests_capture: no store for {nodeid}: {exc!r}")
            self.current = None

    def end(self) -> None:
        if self.current is None:
            return
        runs, writer, run_id = self.current
        self.current = None
        try:
            # torch's records wait in capture's backlog (Capture.defer): this test's go into
            # this test's store before it closes, as `compdiag run`'s child drains at exit
            self.capture.drain()
            ing = self.capture.ing
            if self.raised is not None:
                # the exception that failed the test ended its run, as an uncaught one ends
                # `compdiag run`'s program (pytest catches it; the store is the test's alone)
                from compdiag.capture.failures import record_escaped_exception

                self.capture.guarded("exception", record_escaped_exception, ing, self.raised)
            with self.capture.lock:
                ing.flush()
                ing.update_run(device="cpu")
                ing.commit()
            writer.close()
            runs.end_run(run_id, exit_code=1 if self.failed else 0, status="done")
            runs.close()
        except Exception as exc:  # noqa: BLE001
            print(f"torch_tests_capture: run {run_id} not closed: {exc!r}")


_STATE: _PerTest | None = None


def _shims() -> list[str]:
    """Names a test file newer (or older) than the installed torch imports and the wheel
    lacks, given the nearest meaning so the module imports; each one applied is listed in
    the results."""
    applied = []
    import torch
    import torch._dynamo.test_case as test_case

    if not hasattr(test_case, "TestCaseWithNestedGraphBreaks"):
        class TestCaseWithNestedGraphBreaks(test_case.TestCase):
            """Newer torch's base class: the test runs with config.nested_graph_breaks on."""

            def setUp(self) -> None:
                super().setUp()
                self._nested = torch._dynamo.config.patch(nested_graph_breaks=True)
                self._nested.__enter__()

            def tearDown(self) -> None:
                self._nested.__exit__(None, None, None)
                super().tearDown()

        test_case.TestCaseWithNestedGraphBreaks = TestCaseWithNestedGraphBreaks
        applied.append("torch._dynamo.test_case.TestCaseWithNestedGraphBreaks "
                       "(config.nested_graph_breaks=True)")
    import torch._C._dynamo.eval_frame as eval_frame

    if not hasattr(eval_frame, "_clear_cache_entries_for_region"):
        def _clear_cache_entries_for_region(*args: Any, **kwargs: Any) -> None:
            raise NotImplementedError("_clear_cache_entries_for_region: not in torch "
                                      + torch.__version__)

        eval_frame._clear_cache_entries_for_region = _clear_cache_entries_for_region
        applied.append("torch._C._dynamo.eval_frame._clear_cache_entries_for_region "
                       "(raises NotImplementedError)")
    import builtins

    import torch.testing._internal.triton_utils as triton_utils

    if not hasattr(builtins, "requires_cuda_and_triton") and \
            hasattr(triton_utils, "requires_cuda_and_triton"):
        # test_aot_autograd_cache.py as stored (0069a418) decorates tests with this name
        # without importing it: the module would not import at all.
        builtins.requires_cuda_and_triton = triton_utils.requires_cuda_and_triton
        applied.append("builtins.requires_cuda_and_triton (torch.testing._internal."
                       "triton_utils.requires_cuda_and_triton; used, not imported)")
    import torch.testing._internal.inductor_utils as inductor_utils

    if not hasattr(inductor_utils, "HAS_CUDA") and \
            hasattr(inductor_utils, "HAS_CUDA_AND_TRITON"):
        # older test files (test_logging.py as stored, 00277889) import the name newer
        # torch renamed; without it the module does not import at all
        inductor_utils.HAS_CUDA = inductor_utils.HAS_CUDA_AND_TRITON
        applied.append("torch.testing._internal.inductor_utils.HAS_CUDA "
                       "(HAS_CUDA_AND_TRITON, its newer name)")
    import torch._dynamo.compiled_autograd as compiled_autograd

    if not hasattr(compiled_autograd, "enable") and hasattr(compiled_autograd, "_enable"):
        # older test files (test_compiled_autograd.py as stored, 00a1e551) call the context
        # manager newer torch made private; without it their tests fail on the name alone
        compiled_autograd.enable = compiled_autograd._enable
        applied.append("torch._dynamo.compiled_autograd.enable (_enable, its newer name)")
    return applied


def pytest_configure(config: pytest.Config) -> None:
    global _STATE
    stores = os.environ.get(STORES_ENV)
    if not stores:
        return
    _STATE = _PerTest(Path(stores))
    _STATE.stores.mkdir(parents=True, exist_ok=True)
    try:
        applied = _shims()
    except ImportError as exc:  # torch's test utilities need expecttest; a file that does
        applied = [f"none ({exc})"]  # not use them (the smoke test's fixture) runs without
    (_STATE.stores / SHIMS_FILE).write_text(json.dumps(applied))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tests the sweep asks for (ONLY_ENV), deselect the rest. Node ids on pytest's
    command line would do the same, but one that does not exist here (a parametrized test,
    collected under its instances' names) makes pytest run nothing at all."""
    only = os.environ.get(ONLY_ENV)
    if not only:
        return
    asked = json.loads(only)
    wanted = {w for w in asked if not w.endswith("*")}
    prefixes = tuple(w[:-1] for w in asked if w.endswith("*"))  # a parametrized method's
    keep, drop = [], []                                         # instances: `Class::test_x_*`
    for item in items:
        key = item.nodeid.split("::", 1)[-1]
        (keep if key in wanted or (prefixes and key.startswith(prefixes)) else drop
         ).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


OUTCOMES_FILE = "outcomes.jsonl"
_REPORTS: list[pytest.TestReport] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    if _STATE is not None:  # FILE::CLASS::TEST whatever pytest's rootdir is
        _STATE.begin(item.path.name + "::" + item.nodeid.split("::", 1)[-1])
    _REPORTS.clear()
    yield
    if _STATE is not None:
        _STATE.end()
        _record(item)


def _record(item: pytest.Item) -> None:
    """The test's outcome, appended as it ends: a sweep stopped at its deadline (pytest
    killed, no junit file) still knows the outcome of every test that finished."""
    failed = next((r for r in _REPORTS if r.failed), None)
    skipped = next((r for r in _REPORTS if r.skipped), None)
    if failed is not None:
        outcome = "failure: " + str(failed.longrepr).splitlines()[-1][:160] \
            if failed.longrepr else "failure"
    elif skipped is not None:
        reason = skipped.longrepr[2] if isinstance(skipped.longrepr, tuple) else ""
        outcome = "skipped: " + str(reason)[:160]
    else:
        outcome = "passed"
    key = item.nodeid.split("::", 1)[-1]
    with open(_STATE.stores / OUTCOMES_FILE, "a") as out:  # type: ignore[union-attr]
        out.write(json.dumps({"key": key, "outcome": outcome}) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """The exception of a test that failed (not one skipped or expected to fail): kept for
    the test's run, whose end it is."""
    outcome = yield
    report = outcome.get_result()
    if _STATE is not None and report.when == "call" and report.failed and \
            call.excinfo is not None:
        _STATE.raised = call.excinfo.value


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _REPORTS.append(report)
    if _STATE is not None and report.failed:
        _STATE.failed = True
