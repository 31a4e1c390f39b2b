"""CompdiagApp: the Textual app behind `compdiag tui [RUN]`.

Screens: runs list -> a run's compile tree (+ diagnoses) -> a compile id's stage tabs;
a run's perf report; the user's source at a line; search. Every read goes through
`compdiag.store.Reader` (via `StoreModel`); payloads are fetched when their view is opened.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App
from textual.binding import Binding

from compdiag_tui import screens
from compdiag_tui.commands import CompdiagCommands
from compdiag_tui.model import StoreModel
from compdiag_tui.screens._run import RunScreen


class CompdiagApp(App[int]):
    TITLE = "compdiag"
    COMMANDS = App.COMMANDS | {CompdiagCommands}
    ENABLE_COMMAND_PALETTE = True

    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("slash", "search", "Search"),
        Binding("m", "copy_minify", "Copy minify"),
        Binding("b", "copy_bisect", "Copy bisect"),
        Binding("escape", "back", "Back"),
        Binding("R", "runs", "Runs", show=False),
        # The run screen shows `p` in its footer when the run has a perf report; this one
        # answers everywhere else (and says so when there is none).
        Binding("p", "perf", "Perf report", show=False),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]

    def __init__(self, store: Path | str, run_id: int | None = None, *,
                 open_latest: bool = True) -> None:
        super().__init__()
        self.model = StoreModel(store)
        self.run_id = run_id
        self.open_latest = open_latest
        # `compdiag tui` sets it (cmd_tui); an app inside a test or another program leaves the
        # collector alone.
        self.freeze_first_screen = False
        self.last_copied: str | None = None
        self.sub_title = Path(store).name

    # -- start ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        # on_mount runs inside Textual's start-up batch, which throws away every frame it
        # renders: a screen pushed here is laid out and drawn once for nothing (~0.1 s on the
        # big store) before the frame that reaches the terminal. Pushed next, it is drawn once.
        self.call_next(self._open_first_screen)

    def _open_first_screen(self) -> None:
        # The runs list is built only when asked for (escape): the first screen is the run.
        runs = self.model.runs()
        run_id = self.run_id
        if run_id is None and self.open_latest and runs:
            run_id = runs[-1]["id"]
        self.push_screen(RunScreen(run_id) if run_id is not None else screens.RunsScreen())
        self.call_after_refresh(self._after_first_screen)

    def _after_first_screen(self) -> None:
        if self.freeze_first_screen:
            # The first screen's objects (the compile index, the tree's rows, the widgets)
            # live as long as the app: out of the collector's reach, a full collection no
            # longer re-scans them all inside some later keystroke (20-70 ms each, measured
            # with the 1,200-compile store of benchmarks/tui_bench.py).
            gc.freeze()
        self._preload()

    @work(thread=True, group="preload")
    def _preload(self) -> None:
        """Import the other screens while the user reads the first one, so that opening a
        compile id or a search does not pay for it."""
        for name in ("CompileScreen", "SearchScreen", "SourceScreen", "RunsScreen",
                     "PerfScreen"):
            getattr(screens, name)
        # The Timings tab's first visit imports these (~8 ms of CPU on the shared box)
        import compdiag.analyses.compile_time  # noqa: F401
        import compdiag.views.compile_time  # noqa: F401
        from compdiag_tui.widgets._code_view import highlight_line

        for language in ("python", "cpp"):     # pygments compiles a lexer's regexes on use
            highlight_line("x = torch.sin(y)  # warm up", language)

    def on_unmount(self) -> None:
        self.model.close()

    # -- navigation -------------------------------------------------------------------------
    def open_run(self, run_id: int) -> None:
        self.push_screen(RunScreen(run_id))

    def open_compile(self, run_id: int, compile_id: str, *, tab: str = "overview",
                     kind: str | None = None, match: str | None = None) -> None:
        screen = self.screen
        if isinstance(screen, screens.CompileScreen) and screen.compile_id == compile_id \
                and screen.run_id == run_id:
            screen.show(tab, kind, match)
            return
        self.push_screen(screens.CompileScreen(run_id, compile_id, tab=tab, kind=kind,
                                               match=match))

    def open_source(self, run_id: int, filename: str, lineno: int, line: str | None, *,
                    title: str = "") -> None:
        cwd = self.model.run(run_id).get("cwd")
        self.push_screen(screens.SourceScreen(filename, lineno, line, cwd=cwd, title=title,
                                              kept=self.model.source_text(run_id, filename)))

    def open_finding(self, run_id: int, finding: dict[str, Any]) -> bool:
        """A diagnosis or a perf limiter: the user's source at its line, else its (first)
        compile id. False when it has neither."""
        frame = finding.get("user_frame") or {}
        if frame.get("filename") and frame.get("lineno"):
            self.open_source(run_id, frame["filename"], int(frame["lineno"]), frame.get("line"),
                             title=str(finding.get("reason") or ""))
            return True
        cid = finding.get("compile_id") or next(iter(finding.get("compile_ids") or []), None)
        if cid:
            self.open_compile(run_id, str(cid))
            return True
        return False

    def open_perf(self, run_id: int) -> None:
        """The run's `compdiag perf` report, or a notification when it has none."""
        screen = self.screen
        if isinstance(screen, screens.PerfScreen) and screen.run_id == run_id:
            return
        if self.model.perf_report(run_id) is None:
            self.notify(f"no perf report for run {run_id} — record one with "
                        "`compdiag perf SCRIPT`", title="perf", severity="warning")
            return
        self.push_screen(screens.PerfScreen(run_id))

    def action_back(self) -> None:
        if isinstance(self.screen, screens.SearchScreen):
            return
        if len(self.screen_stack) > 2:
            self._pop_screen_remove_later()
        elif isinstance(self.screen, RunScreen):
            self.switch_screen(screens.RunsScreen())

    def _pop_screen_remove_later(self) -> None:
        """Pop the top screen, and remove it once the screen below is on the terminal.
        Textual's pop_screen removes the popped screen (every widget of a compile id's tabs)
        before the screen below is repainted, all inside the `escape` key; kept installed
        until the next frame, its removal waits until the user already sees the screen below."""
        screen = self.screen
        name = f"-popped-{id(screen)}"
        self.install_screen(screen, name)
        self.pop_screen()

        def remove() -> None:
            self.uninstall_screen(name)
            if not any(screen in stack for stack in self._screen_stacks.values()):
                screen.remove()

        self.call_after_refresh(remove)

    def action_runs(self) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if not isinstance(self.screen, screens.RunsScreen):
            self.switch_screen(screens.RunsScreen())

    # -- the selection ----------------------------------------------------------------------
    def current_run_id(self) -> int | None:
        for screen in reversed(self.screen_stack):
            run_id = getattr(screen, "run_id", None)
            if isinstance(run_id, int):
                return run_id
        runs = self.model.runs()
        return runs[-1]["id"] if runs else None

    def current_compile_id(self) -> str | None:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, screens.CompileScreen):
                return screen.compile_id
            if isinstance(screen, RunScreen):
                return screen.selected_compile
        return None

    # -- actions ----------------------------------------------------------------------------
    def action_search(self) -> None:
        run_id = self.current_run_id()
        if run_id is None or isinstance(self.screen, screens.SearchScreen):
            return

        def opened(hit: dict[str, Any] | None) -> None:
            if not hit:
                return
            if hit.get("compile_id") is None:
                self.notify(f"{hit['kind']} is not tied to a compile id", severity="warning")
                return
            self.open_compile(run_id, hit["compile_id"], tab=screens.tab_for_kind(hit["kind"]),
                              kind=hit["kind"], match=hit.get("query"))

        self.push_screen(screens.SearchScreen(run_id), opened)

    def copy_text(self, text: str, what: str) -> None:
        self.last_copied = text
        self.copy_to_clipboard(text)
        self.notify(text, title=f"copied the {what} command")

    def action_copy_minify(self) -> None:
        run_id = self.current_run_id()
        if run_id is None:
            return
        self.copy_text(self.model.minify_command(run_id, self.current_compile_id()), "minify")

    def action_copy_bisect(self) -> None:
        run_id = self.current_run_id()
        if run_id is None:
            return
        self.copy_text(self.model.bisect_command(run_id), "bisect")

    def action_help(self) -> None:
        """Keys, compile ids and resume functions (screens/_help.py)."""
        if not isinstance(self.screen, screens.HelpScreen):
            self.push_screen(screens.HelpScreen())

    def action_perf(self) -> None:
        run_id = self.current_run_id()
        if run_id is not None:
            self.open_perf(run_id)

    def action_toggle_diagnoses(self) -> None:
        if isinstance(self.screen, RunScreen):
            self.screen.action_toggle_diagnoses()
