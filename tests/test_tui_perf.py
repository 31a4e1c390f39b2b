"""`compdiag tui`'s perf screen (`p` on the run screen): a run's `compdiag perf` report as
filed in the store, driven headless with Textual's Pilot. The report is the real one:
`compdiag perf`'s own `build_document` over raw timing samples written into the demo store
(two runs as two modes), filed as `compdiag perf` files it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compdiag.perf.session import build_document, file_report
from compdiag_tui import CompdiagApp
from compdiag_tui.demo_store import USER_SOURCE, build_demo_store
from compdiag_tui.perf_format import ci_text, times_x
from compdiag_tui.screens import CompileScreen, PerfScreen, RunScreen, SourceScreen
from compdiag_tui.widgets import (CodeView, KeyBar, LimitersList, PerfBars, PerfGraphs,
                                  PerfModes, PerfSummary)
# The Pilot helpers of the TUI's main tests (tests/ is on sys.path).
from test_tui import started, sync, until

SIZE = (130, 40)


@pytest.fixture(scope="module")
def perf_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Runs 1-3; run 3 timed under mode default and run 2 under reduce-overhead share one
    report (a mode comparison); run 1 has samples but no report."""
    root = tmp_path_factory.mktemp("tui_perf")
    (root / "model.py").write_text(USER_SOURCE)
    store = build_demo_store(root / "demo.db", compiles=14, runs=3, cwd=str(root), perf=True)
    doc = build_document(store, [("default", 3, 0), ("reduce-overhead", 2, 0)], compare=True)
    file_report(store, doc)
    return store, doc


async def open_perf(pilot) -> PerfScreen:
    app = pilot.app
    await started(pilot)
    await until(pilot, lambda: app.screen.has_perf)
    assert "Perf" in app.screen.query_one(KeyBar).text     # shown: this run has a report
    await pilot.press("p")
    await until(pilot, lambda: isinstance(app.screen, PerfScreen) and app.screen.is_mounted)
    await pilot.pause()
    return app.screen


def plain(renderable: Any) -> str:
    """The text of a Static's content (a Text or a Group of them)."""
    parts = getattr(renderable, "renderables", None)
    if parts is not None:
        return "\n".join(plain(p) for p in parts)
    return getattr(renderable, "plain", str(renderable))


@sync
async def test_perf_screen_shows_graphs_whole_calls_limiters_and_modes(
        perf_store) -> None:
    store, doc = perf_store
    rep = next(r for r in doc["runs"] if r["run"] == 3)
    app = CompdiagApp(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_perf(pilot)
        assert screen.run_id == 3 and screen.report == rep
        # One row per timed graph: the speed-up with its 95% interval, the verdict coloured.
        table = screen.query_one(PerfGraphs)
        assert table.row_count == len(rep["graphs"]) >= 5
        verdicts = set()
        for i, g in enumerate(rep["graphs"]):
            cells = [plain(c) for c in table.get_row_at(i)]
            sp = g["speedup"]
            assert cells[0] == g["compile_id"]
            assert cells[5] == times_x(sp["ratio"])
            assert cells[6] == ci_text(sp["lo"], sp["hi"])
            assert cells[7] == sp["verdict"]
            verdicts.add(sp["verdict"])
            style = str(table.get_row_at(i)[7].style)
            assert {"faster": "green", "slower": "red", "within noise": "yellow"}.get(
                sp["verdict"], "") in style
            if g["payback_calls"]:
                assert cells[9] == f"{g['payback_calls']} calls"
        assert {"faster", "within noise", "slower"} <= verdicts
        # The whole calls of the compiled module, and the graphs' total.
        head = plain(screen.query_one(PerfSummary).render_summary())
        (module,) = rep["modules"]
        assert f"whole calls {module['target']}" in head
        assert times_x(module["speedup"]["ratio"]) in head
        assert times_x(rep["totals"]["speedup"]["ratio"]) in head
        # A bar pair per timed graph.
        bars = screen.query_one(PerfBars)
        assert len(bars.timed()) == len(rep["graphs"])
        # The limiters, most impact first, the highlighted one in full.
        limiters = screen.query_one(LimitersList)
        assert limiters.limiters == rep["limiters"] and rep["limiters"]
        first = rep["limiters"][0]
        row = limiters.row_text(0).plain
        assert first["kind"].replace("_", " ") in row and f"{first['impact']:.0%}" in row
        await pilot.pause()
        detail = plain(screen.query_one("#limiter-detail").content)
        assert " ".join(first["evidence"].split())[:60] in " ".join(detail.split())
        kinds = [lim["kind"] for lim in rep["limiters"]]
        assert "graph_break" in kinds and "outside_graphs" in kinds
        # Notes, then the mode table and its recommendation.
        notes = plain(screen.query_one("#perf-notes").content)
        assert all(n[:40] in notes for n in rep["notes"])
        modes = screen.query_one(PerfModes)
        assert [r["mode"] for r in modes.rows_data] == ["default", "reduce-overhead"]
        assert plain(modes.get_row_at(0)[0]).startswith("default ◂")   # this run's mode
        rec = doc["modes"]["recommendation"]
        text = plain(screen.query_one("#recommendation").content)
        assert f"recommendation: {rec['mode']}" in text
        assert rec["reasons"][0] in text
        # Tab walks the tables; escape goes back to the compile tree.
        await pilot.press("tab")
        assert app.focused is limiters
        await pilot.press("tab")
        assert app.focused is modes
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)


@sync
async def test_no_perf_report_says_how_to_record_one(perf_store) -> None:
    store, _ = perf_store
    app = CompdiagApp(store, run_id=1)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = app.screen
        await pilot.pause(0.1)
        assert isinstance(screen, RunScreen) and not screen.has_perf
        assert "Perf" not in screen.query_one(KeyBar).text      # no report: no key shown
        await pilot.press("p")
        await pilot.pause()
        assert app.screen is screen
        messages = [n.message for n in app._notifications]
        assert any("no perf report for run 1" in m and "compdiag perf SCRIPT" in m
                   for m in messages), messages


@sync
async def test_enter_on_a_limiter_with_a_user_frame_opens_the_source(
        perf_store) -> None:
    store, doc = perf_store
    rep = next(r for r in doc["runs"] if r["run"] == 3)
    # The graph break's: explain finds the break's line in the run's model.py (line 8).
    index, lim = next((i, lim) for i, lim in enumerate(rep["limiters"])
                      if lim["kind"] == "graph_break")
    assert lim["user_frame"]["lineno"] == 8
    app = CompdiagApp(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_perf(pilot)
        limiters = screen.query_one(LimitersList)
        limiters.focus()
        limiters.move_to(index)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SourceScreen))
        source = app.screen
        frame = lim["user_frame"]
        assert (source.filename, source.lineno) == (frame["filename"], frame["lineno"])
        view = source.query_one(CodeView)
        assert view.code == USER_SOURCE
        assert view.cursor_line == 7 and 7 in view.marks
        assert "print(" in view.lines[7]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


@sync
async def test_graph_and_mode_rows_open_the_compile_and_the_other_modes_report(
        perf_store) -> None:
    store, doc = perf_store
    app = CompdiagApp(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_perf(pilot)
        first = screen.report["graphs"][0]
        await pilot.press("enter")                  # the graph table has the focus
        await until(pilot, lambda: isinstance(app.screen, CompileScreen))
        compile_screen = app.screen
        assert compile_screen.compile_id == first["compile_id"]
        # Its Summary tab carries the graph's perf line.
        await until(pilot, lambda: compile_screen.query(".perf-line"))
        line = plain(compile_screen.query_one(".perf-line").content)
        assert times_x(first["speedup"]["ratio"]) in line and first["speedup"]["verdict"] in line
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        modes = screen.query_one(PerfModes)
        modes.focus()
        modes.move_cursor(row=1)                    # reduce-overhead, run 2
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PerfScreen) and app.screen.run_id == 2)
        await pilot.pause()
        other = app.screen
        assert other.report["mode"] == "reduce-overhead"
        assert plain(other.query_one(PerfModes).get_row_at(1)[0]).startswith("reduce-overhead ◂")


@sync
async def test_command_palette_opens_the_perf_report(perf_store) -> None:
    store, _ = perf_store
    app = CompdiagApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Perf report")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PerfScreen))
        assert app.screen.run_id == 3


@sync
async def test_the_demo_stores_fixed_report_opens_at_the_planted_graph_break(
        tmp_path: Path) -> None:
    """The hand-written report of `build_demo_store(perf_report=True)` (the snapshot's and
    README screenshot's) has the documented shape: the screen shows it whole."""
    (tmp_path / "model.py").write_text(USER_SOURCE)
    store = build_demo_store(tmp_path / "demo.db", runs=2, cwd=str(tmp_path),
                             perf_report=True)
    app = CompdiagApp(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_perf(pilot)
        limiters = screen.query_one(LimitersList)
        assert limiters.limiters[0]["kind"] == "graph_break"
        limiters.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SourceScreen))
        assert (app.screen.filename, app.screen.lineno) == ("model.py", 8)
        assert "print(" in app.screen.query_one(CodeView).lines[7]


def test_a_mode_timed_in_several_processes_shows_each():
    from compdiag_tui.widgets._perf_modes import _speedup

    row = {"speedup": 1.75, "speedup_lo": 1.53, "speedup_hi": 1.95, "verdict": "faster",
           "processes": [1.57, 1.93]}
    assert _speedup(row).plain == f"{times_x(1.75)} [{ci_text(1.53, 1.95)}] per process " \
        f"{times_x(1.57)}, {times_x(1.93)}"
    del row["processes"]
    assert "per process" not in _speedup(row).plain


def test_a_repeat_process_is_shown_with_its_modes_report(tmp_path):
    """`--repeat`: run 1 is reduce-overhead's second process; its report is that mode's."""
    from compdiag_tui.model import StoreModel

    (tmp_path / "model.py").write_text(USER_SOURCE)
    store = build_demo_store(tmp_path / "demo.db", compiles=4, runs=3, cwd=str(tmp_path),
                             perf=True)
    doc = build_document(store, [("default", 3, 0), ("reduce-overhead", 2, 0),
                                 ("reduce-overhead", 1, 0)], compare=True)
    file_report(store, doc)
    model = StoreModel(store)
    assert model.perf_section(1)["mode"] == "reduce-overhead"
    assert model.perf_section(3)["mode"] == "default"
    assert [q["run"] for q in model.perf_section(1)["repeats"]] == [1]


def test_a_repeat_process_summary_is_its_full_reports_speedup(perf_store):
    """A `--repeat` process is read for its timings only (no explain); the speed-up it adds
    to its mode's row is the one its full report would give."""
    from compdiag.analyses.perf import _basis, repeat_summary, report
    from compdiag.store.reader import Reader

    store, _ = perf_store
    with Reader(store) as reader:
        for run in (1, 2, 3):
            basis, src = _basis(report(reader, run))
            q = repeat_summary(reader, run)
            assert q["basis"] == basis and q["run"] == run
            ratio = (src.get("speedup") or {}).get("ratio")
            assert ratio is not None and q["speedup"] == ratio
            assert (q["eager_s"], q["compiled_s"]) == (src["eager_s"], src["compiled_s"])
