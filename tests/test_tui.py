"""`compdiag tui`: navigation and content, driven headless with Textual's Pilot on a
hand-built store (compdiag_tui.demo_store, no torch)."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest

from compdiag.store.reader import Reader
from compdiag_tui import CompdiagApp
from compdiag_tui.demo_store import USER_SOURCE, build_demo_store
from compdiag_tui.diagnoses import load_diagnoses, load_diagnoses_isolated
from compdiag_tui.screens import (CompileScreen, RunScreen, RunsScreen, SearchScreen,
                                  SourceScreen)
from compdiag_tui.widgets import (ArtifactView, CodeView, CompileSummary, CompileTree,
                                  DiagnosesPanel, KernelView, KeyBar, RunsTable, TimingChart)

SIZE = (130, 40)


def sync(fn):
    """Run an async test on its own event loop (no pytest-asyncio in the dev extras)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        asyncio.run(fn(*args, **kwargs))
    return wrapper


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tui")
    (root / "model.py").write_text(USER_SOURCE)
    return build_demo_store(root / "demo.db", compiles=14, runs=2, cwd=str(root))


async def until(pilot, condition, timeout: float = 30.0) -> None:
    """Let the app run until `condition()` holds (workers, lazy loads). A wait, not a
    timing: 10 s was too short beside compiling tests on a loaded 2-core machine (a
    fresh-clone .ci/run at load 5-8 failed one test here; alone it passes in 5 s)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def started(pilot) -> None:
    """Until the first screen is mounted: the app pushes it one message after its own mount
    (after Textual's start-up batch), which a single pause does not always cover."""
    app = pilot.app
    await until(pilot, lambda: len(app.screen_stack) > 1 and app.screen.is_mounted)
    await pilot.pause()


def tree_rows(tree: CompileTree) -> list[str]:
    return [tree.row_text(i).plain for i in range(tree.row_count)]


@sync
async def test_first_screen_is_the_latest_runs_compile_tree(demo: Path) -> None:
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert isinstance(app.screen, RunScreen)
        assert app.screen.run_id == 2
        tree = app.screen.query_one(CompileTree)
        with Reader(demo) as r:
            ids = [c["compile_id"] for c in r.compiles(2)]
            breaks = {g["compile_id"] for g in r.graph_breaks(2)}
            recompiles = {x["compile_id"] for x in r.recompiles(2)}
        assert tree.compile_ids == ids
        rows = tree_rows(tree)
        assert sum(row.lstrip().startswith("▼ frame") for row in rows) == len(app.model.frames(2))
        # Colours and words: graph breaks yellow, recompiles magenta.
        for i in range(tree.row_count):
            cid = tree.row_data(i)
            if cid in breaks:
                text = tree.row_text(i)
                assert "graph break" in text.plain
                assert any("yellow" in str(span.style) for span in text.spans)
            elif cid in recompiles:
                assert "recompile" in tree.row_text(i).plain
        # The first compile id is highlighted and summarised.
        summary = app.screen.query_one(CompileSummary)
        await until(pilot, lambda: summary.info is not None)
        assert summary.info.compile_id == ids[0]
        assert tree.current_compile == ids[0]
        # The footer lists the keys.
        keys = app.screen.query_one(KeyBar).text
        for word in ("Search", "Copy minify", "Copy bisect", "Diagnoses", "Quit"):
            assert word in keys


@sync
async def test_moving_in_the_tree_updates_the_summary_and_folds_frames(demo: Path) -> None:
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        tree = app.screen.query_one(CompileTree)
        summary = app.screen.query_one(CompileSummary)
        # Walk down to the first graph break and check its summary.
        with Reader(demo) as r:
            gb = r.graph_breaks(2)[0]
        for _ in range(tree.row_count):
            if tree.current_compile == gb["compile_id"]:
                break
            await pilot.press("down")
        assert tree.current_compile == gb["compile_id"]
        await pilot.pause()
        text = summary.render_summary()
        plain = " ".join(getattr(r, "plain", "") for r in text.renderables)
        assert "GB0059" in plain and "Failed to trace builtin operator" in plain
        assert "model.py:8" in plain
        # Fold its frame: its compile rows disappear; unfold brings them back.
        before = tree.row_count
        await pilot.press("left")
        assert tree.row_count < before
        assert isinstance(tree.current_data, tuple)
        await pilot.press("right")
        assert tree.row_count == before


@sync
async def test_a_compile_ids_stages_load_lazily_on_their_tabs(demo: Path) -> None:
    app = CompdiagApp(demo)
    calls: list[tuple] = []
    async with app.run_test(size=SIZE) as pilot:
        real = app.model.reader.artifact

        def counting(run_id, compile_id, kind):
            calls.append((compile_id, kind))
            return real(run_id, compile_id, kind)

        app.model.reader.artifact = counting
        await started(pilot)
        assert calls == []                     # the first screen reads no payload
        with Reader(demo) as r:
            ok = next(c["compile_id"] for c in r.compiles(2)
                      if c["status"] == "ok" and r.kernels(2, c["compile_id"]))
            graph = r.artifact(2, ok, "dynamo_output_graph")
            kernels = r.kernels(2, ok)
        assert app.screen.query_one(CompileTree).select_compile(ok)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompileScreen) and screen.compile_id == ok
        assert screen.loaded == {"overview"} and calls == []
        await pilot.press("3")                 # Dynamo graph + guards
        await until(pilot, lambda: "dynamo" in screen.loaded)
        await pilot.pause()
        view = screen.query_one("#pane-dynamo", ArtifactView)
        assert view.code_view.code == graph
        assert "class GraphModule" in view.code_view.lines[0]
        assert calls == [(ok, "dynamo_output_graph")]
        await pilot.press("v")                 # the guards view of the same tab
        assert "TREE_GUARD_MANAGER" in view.code_view.code
        # Kernels: the list from the store, the source of the highlighted one.
        await pilot.press("7")
        await until(pilot, lambda: "kernels" in screen.loaded)
        await pilot.pause()
        kv = screen.query_one(KernelView)
        assert [k["name"] for k in kv.kernels] == [k["name"] for k in kernels]
        await until(pilot, lambda: kv.current is not None)
        assert kv.code_view.code == kernels[0]["source"]
        header = kv.query_one(".kernel-header").render()
        assert kernels[0]["name"] in str(header) or kv.current["name"] == kernels[0]["name"]
        assert kv.code_view.highlighted
        # Timings: one bar per recorded stage.
        await pilot.press("9")
        await until(pilot, lambda: "timings" in screen.loaded)
        chart = screen.query_one(TimingChart)
        stages = [s for s, _ in chart.ordered()]
        assert stages[0] == "dynamo" and stages[-1] == "total"
        # Escape goes back to the tree, still on the same compile id.
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        assert app.screen.query_one(CompileTree).current_compile == ok


@sync
async def test_a_graph_break_diagnosis_opens_the_users_source_at_its_line(
        demo: Path) -> None:
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        panel = app.screen.query_one(DiagnosesPanel)
        await until(pilot, lambda: panel.diagnoses is not None)
        kinds = [d["kind"] for d in panel.diagnoses]
        assert {"graph_break", "recompile", "failure"} <= set(kinds)
        assert kinds.index("failure") < kinds.index("graph_break")   # worst first
        index = kinds.index("graph_break")
        panel.focus()
        panel.move_to(index)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SourceScreen)
        view = screen.query_one(CodeView)
        assert view.code == USER_SOURCE
        assert view.cursor_line == 7 and 7 in view.marks       # model.py:8, 0-based
        assert "print(" in view.lines[view.cursor_line]
        await pilot.press("escape")
        assert isinstance(app.screen, RunScreen)


@sync
async def test_search_finds_a_payload_and_opens_it_at_the_match(demo: Path) -> None:
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await pilot.press("slash")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await pilot.press(*"TENSOR_MATCH")
        # The search of the whole word: a loaded machine can let the debounce fire on a prefix
        # first, whose results the last search then replaces under the keys below.
        await until(pilot, lambda: screen.hits and screen.hits[0]["query"] == "TENSOR_MATCH")
        assert all(h["kind"] == "dynamo_cpp_guards_str" for h in screen.hits)
        first = screen.hits[0]
        await pilot.press("down", "enter")
        await until(pilot, lambda: not isinstance(app.screen, SearchScreen))
        compile_screen = app.screen
        assert isinstance(compile_screen, CompileScreen)
        assert compile_screen.compile_id == first["compile_id"]
        assert compile_screen.active_tab == "dynamo"
        view = compile_screen.query_one("#pane-dynamo", ArtifactView)
        await until(pilot, lambda: view.active_view == "guards")
        await until(pilot, lambda: "TENSOR_MATCH" in view.code_view.lines[
            view.code_view.cursor_line])


@sync
async def test_copy_minify_and_bisect_commands_for_the_selection(demo: Path) -> None:
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        tree = app.screen.query_one(CompileTree)
        await pilot.press("m")
        store = str(demo.resolve())
        cid = tree.current_compile
        assert app.last_copied == f"compdiag minify --store {store} 2 --graph {cid}"
        await pilot.press("b")
        assert app.last_copied == f"compdiag bisect --store {store} 2"


@sync
async def test_command_palette_opens_a_compile_id(demo: Path) -> None:
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        target = app.screen.query_one(CompileTree).compile_ids[-1]
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*f"Open compile {target}")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, CompileScreen))
        assert app.screen.compile_id == target


async def runs_list(pilot) -> RunsTable:
    """From the first screen (the latest run) back to the runs list."""
    await started(pilot)
    await pilot.press("escape")
    await pilot.pause()
    assert isinstance(pilot.app.screen, RunsScreen)
    return pilot.app.screen.query_one(RunsTable)


@sync
async def test_runs_list_and_back(demo: Path) -> None:
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        table = await runs_list(pilot)
        assert table.row_count == 2
        assert table.get_row_at(0)[0] == "1" and table.get_row_at(1)[0] == "2"
        assert app.current_run_id() == 2  # the latest run is highlighted first
        table.move_cursor(row=0)
        await pilot.pause()
        assert app.current_run_id() == 1  # p / b act on the highlighted run
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen) and app.screen.run_id == 1
        await pilot.press("escape")
        assert isinstance(app.screen, RunsScreen)
        await pilot.press("q")
    assert app.return_code == 0


@sync
async def test_runs_list_diffs_a_marked_run_with_the_highlighted_one(demo: Path) -> None:
    from compdiag.analyses.diff import diff_runs
    from compdiag.views.diff import describe
    from compdiag.store.reader import Reader
    from compdiag_tui.screens import DiffScreen

    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        table = await runs_list(pilot)
        await pilot.press("d")  # nothing marked yet: a notice, no screen
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)
        table.move_cursor(row=0)
        await pilot.pause()
        await pilot.press("space")
        table.move_cursor(row=1)
        await pilot.pause()
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, DiffScreen))
        screen = app.screen
        assert (screen.run_a, screen.run_b) == (1, 2)
        with Reader(demo) as r:
            assert screen.lines == describe(diff_runs(r, 1, 2))  # what `compdiag diff` says
        assert screen.lines[0] == ("title", screen.lines[0][1])
        assert screen.lines[0][1].startswith("run 1 (")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)
        await pilot.press("q")
    assert app.return_code == 0


@sync
async def test_a_run_given_on_the_command_line_opens(demo: Path) -> None:
    app = CompdiagApp(demo, run_id=1)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert isinstance(app.screen, RunScreen) and app.screen.run_id == 1
        assert len(app.screen.query_one(CompileTree).compile_ids) == 4


@sync
async def test_code_view_finds_text_and_colours_lines_as_drawn() -> None:
    from textual.app import App

    class One(App):
        def compose(self):
            yield CodeView("def f(x):\n    return x.sin()\n\n# sin again\n", "python")

    app = One()
    async with app.run_test(size=(60, 10)) as pilot:
        view = app.query_one(CodeView)
        assert view.lines == ["def f(x):", "    return x.sin()", "", "# sin again"]
        assert view.find("SIN") == 1 and view.find("sin", 2) == 3
        view.match_text = "again"
        await pilot.pause()
        assert view.cursor_line == 3
        assert view.highlighted
        strip = view.render_line(0)
        colours = {seg.style.color for seg in strip if seg.style and seg.style.color}
        assert len(colours) >= 2                   # `def` and `f` differ
        view.language = "text"
        assert not view.highlighted
        view.code = ""
        assert view.lines == []


def test_the_panel_lists_exactly_what_compdiag_explain_prints(demo: Path) -> None:
    """The TUI shows explain's list, not a second ranking of its own: in-process, through the
    child process it uses, and as `compdiag explain --json` prints it."""
    import json
    import subprocess
    import sys

    with Reader(demo) as r:
        diagnoses = load_diagnoses(r, 2)
    cli = subprocess.run([sys.executable, "-m", "compdiag", "explain", "--store", str(demo),
                          "--json", "2"], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert diagnoses == json.loads(cli.stdout)["diagnoses"]
    assert load_diagnoses_isolated(demo, 2) == diagnoses
    kinds = [d["kind"] for d in diagnoses]
    assert {"graph_break", "recompile", "failure"} <= set(kinds)


@sync
async def test_a_failing_explain_is_said_in_the_panel_title(demo: Path, monkeypatch) -> None:
    import compdiag_tui.diagnoses as diag

    def broken(*args, **kwargs):
        raise RuntimeError("explain is broken")

    monkeypatch.setattr(diag, "load_diagnoses_isolated", broken)
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        screen = app.screen
        await until(pilot, lambda: screen.diagnoses is not None)
        assert screen.diagnoses == []
        assert "nowhere: RuntimeError: explain is broken" in screen.diagnoses_source


@sync
async def test_mouse_picks_tabs_and_tree_rows(demo: Path) -> None:
    from compdiag_tui.widgets import TabStrip

    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        tree = app.screen.query_one(CompileTree)
        target = next(i for i in range(tree.row_count) if tree.row_data(i) == "2/0")
        await pilot.click(CompileTree, offset=(5, target))
        assert tree.current_compile == "2/0"
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompileScreen) and screen.compile_id == "2/0"
        strip = screen.query_one("#stages", TabStrip)
        text = strip.render().plain
        x = text.index("Timings")
        await pilot.click("#stages", offset=(x, 0))
        await until(pilot, lambda: screen.active_tab == "timings" and "timings" in screen.loaded)


async def _source_of_compile(store: Path, cid: str) -> tuple[SourceScreen, str, str]:
    """The SourceScreen `o` opens on compile `cid`, its code view's text and current line."""
    app = CompdiagApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert app.screen.query_one(CompileTree).select_compile(cid)
        await pilot.press("o")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SourceScreen)
        view = screen.query_one(CodeView)
        return screen, view.code, view.lines[view.cursor_line]


@sync
async def test_o_opens_the_source_of_the_highlighted_compile(demo: Path) -> None:
    screen, _, _ = await _source_of_compile(demo, "1/0")   # a graph break
    assert (screen.filename, screen.lineno) == ("model.py", 8)
    assert screen.kept == USER_SOURCE  # the run's text (the store's)


@sync
async def test_the_source_is_the_runs_after_the_file_is_gone(tmp_path: Path) -> None:
    """Fails on main: with model.py removed after the run, the source screen said "file not
    found on this machine" and showed the recorded line alone; the store keeps the run's
    text (`sources`), which it shows whole, at the line."""
    (tmp_path / "model.py").write_text(USER_SOURCE)
    store = build_demo_store(tmp_path / "demo.db", compiles=4, cwd=str(tmp_path))
    (tmp_path / "model.py").unlink()
    _, code, line = await _source_of_compile(store, "1/0")   # a graph break
    assert code == USER_SOURCE and "print(" in line


def test_counts_in_the_tree_and_titles_are_words() -> None:
    """Issue 30 item 11: the TUI printed `2 graph break`, `1 failed` counts and `exit=None`;
    every count goes through formats/words.py's plural. Fails on main."""
    from compdiag_tui.model import CompileInfo, FrameInfo
    from compdiag_tui.widgets._compile_tree import frame_label

    def info(cid: str, status: str, failure: str | None = None) -> CompileInfo:
        return CompileInfo(cid, 0, 0, "f", "m.py", 3, status, {}, failure=failure)

    frame = FrameInfo(0, "f", "m.py", 3, [info("0/0", "graph_break"), info("0/1", "graph_break"),
                                          info("0/2", "failed", "boom")])
    text = frame_label(frame, expanded=False).plain
    assert "3 compiles" in text and "2 graph breaks" in text and "1 failure" in text, text
    assert "1 failed" not in text
    one = FrameInfo(0, "f", "m.py", 3, [info("0/0", "graph_break")])
    text = frame_label(one, expanded=True).plain
    assert "1 compile " in text + " " and "1 graph break" in text and "breaks" not in text


@sync
async def test_the_first_screen_is_not_laid_out_again_for_resizes_to_its_own_size(
        demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34 (first screen in half a second): Textual sent the run screen a Resize after its
    first layout and again when idle, each a full reflow at the same size (two of its four
    layouts in a pty, ~30 ms of CPU on the benchmark's store), and the tree's first resize
    asked for one more. Fails before screens/_steady.py and LineList's virtual width 0."""
    from textual.screen import Screen

    layouts: list[str] = []
    real = Screen._refresh_layout

    def counted(self, size=None, scroll=False):
        if isinstance(self, RunScreen):
            import traceback
            layouts.append("/".join(f.name for f in traceback.extract_stack(limit=4)[:-1]))
        return real(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = CompdiagApp(demo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await until(pilot, lambda: app.screen.query_one(CompileSummary).info is not None)
        await pilot.pause(0.3)
        tree = app.screen.query_one(CompileTree)
        virtual, rows = tree.virtual_size, tree.row_count
    assert layouts, "the run screen was never laid out"
    assert not [c for c in layouts if "_screen_resized" in c], layouts
    assert virtual.width == 0 and virtual.height == rows
