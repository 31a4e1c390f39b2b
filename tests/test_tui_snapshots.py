"""Snapshots (pytest-textual-snapshot) of the TUI's key screens on a deterministic, hand-built
store. Refresh after an intended change with `pytest tests/test_tui_snapshots.py
--snapshot-update` and look at the SVGs in tests/__snapshots__/."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest

from compdiag_tui import CompdiagApp
from compdiag_tui.demo_store import build_demo_store
from compdiag_tui.widgets import CodeView, DiagnosesPanel, KernelView

SIZE = (130, 34)

# The SVGs are Textual's and Rich's rendering: another release draws other bytes. The pictures
# are compared on the versions that made them (the Pilot tests check content everywhere).
MADE_WITH = {"textual": "8.2.8", "rich": "15.0.0"}
INSTALLED = {name: version(name) for name in MADE_WITH}
pytestmark = pytest.mark.skipif(
    INSTALLED != MADE_WITH,
    reason=f"snapshots were drawn with {MADE_WITH}, this is {INSTALLED}: "
           "refresh them with --snapshot-update and update MADE_WITH")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The diagnoses panel shows explain's real list for the demo store.
    # The same absolute store path on every machine (it appears in nothing shown, but the
    # source view resolves files from the run's cwd).
    return build_demo_store(tmp_path / "demo.db", compiles=14, cwd="/nonexistent/demo")


async def _started(pilot) -> None:
    """The app pushes its first screen one message after its own mount: wait for it."""
    app = pilot.app
    for _ in range(3000):
        if len(app.screen_stack) > 1 and app.screen.is_mounted:
            break
        await pilot.pause(0.02)
    await pilot.pause()


async def _settle(pilot) -> None:
    app = pilot.app
    import time

    await _started(pilot)
    end = time.monotonic() + 60        # the diagnoses come from a child process
    while time.monotonic() < end:
        panels = app.screen.query(DiagnosesPanel)
        views = [v for v in app.screen.query(CodeView) if v.code and v.language != "text"]
        if all(p.diagnoses is not None for p in panels) and all(v.highlighted for v in views):
            break
        await pilot.pause(0.02)
    await pilot.pause()


def test_compile_tree(store: Path, snap_compare) -> None:
    assert snap_compare(CompdiagApp(store), terminal_size=SIZE, run_before=_settle)


def test_kernel_view(store: Path, snap_compare) -> None:
    async def open_kernels(pilot) -> None:
        await _started(pilot)
        pilot.app.open_compile(1, "1/1", tab="kernels")
        await pilot.pause()
        for _ in range(100):
            kv = pilot.app.screen.query(KernelView)
            if kv and kv.first().current is not None:
                break
            await pilot.pause(0.02)
        await _settle(pilot)

    assert snap_compare(CompdiagApp(store), terminal_size=SIZE, run_before=open_kernels)


def test_dynamo_graph_tab(store: Path, snap_compare) -> None:
    async def open_graph(pilot) -> None:
        await _started(pilot)
        pilot.app.open_compile(1, "0/0", tab="dynamo")
        await pilot.pause()
        await _settle(pilot)

    assert snap_compare(CompdiagApp(store), terminal_size=SIZE, run_before=open_graph)


def test_timings_tab(store: Path, snap_compare) -> None:
    async def open_timings(pilot) -> None:
        await _started(pilot)
        pilot.app.open_compile(1, "0/0", tab="timings")
        await _settle(pilot)

    assert snap_compare(CompdiagApp(store), terminal_size=SIZE, run_before=open_timings)


def test_perf_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare) -> None:
    """`p` on a run with a perf report: the demo store's fixed, hand-written report (a mode
    comparison over its two runs), so the picture pins the TUI, not `compdiag perf`'s numbers."""
    store = build_demo_store(tmp_path / "demo.db", compiles=14, runs=2, cwd="/nonexistent/demo",
                             perf_report=True)

    async def open_perf(pilot) -> None:
        await _started(pilot)
        pilot.app.open_perf(2)
        await pilot.pause()
        await _settle(pilot)

    assert snap_compare(CompdiagApp(store), terminal_size=(130, 46), run_before=open_perf)
