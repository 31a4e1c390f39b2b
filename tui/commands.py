"""The command palette's compdiag commands (ctrl+p): open a compile id or a run, search, copy
the minify / bisect command, toggle the diagnoses panel, open the run's perf report."""

from __future__ import annotations

from functools import partial
from typing import Callable, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

Command = tuple[str, str, Callable[[], object]]


class CompdiagCommands(Provider):
    def _commands(self) -> Iterator[Command]:
        app = self.app
        run_id = app.current_run_id()
        yield ("Search records", "search graphs, code, guards and reasons (/)",
               app.action_search)
        yield ("Copy minify command", "for the selected compile id (m)", app.action_copy_minify)
        yield ("Copy bisect command", "for the current run (b)", app.action_copy_bisect)
        yield ("Toggle diagnoses panel", "show or hide the run's diagnoses (d)",
               app.action_toggle_diagnoses)
        yield ("Perf report", "eager vs compiled per graph, what limits it, modes (p)",
               app.action_perf)
        yield ("Runs list", "every run in the store", app.action_runs)
        yield ("Help", "keys, compile ids (0/0_1), resume functions (?)", app.action_help)
        for run in app.model.runs():
            yield (f"Open run {run['id']}", " ".join(run.get("argv") or [])[:60],
                   partial(app.open_run, run["id"]))
        if run_id is not None:
            for c in app.model.compile_index(run_id):
                yield (f"Open compile {c.compile_id} {c.co_name or ''}",
                       f"{c.display_status.replace('_', ' ')} at {c.filename}:{c.lineno}",
                       partial(app.open_compile, run_id, c.compile_id))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)

    async def discover(self) -> Hits:
        for i, (name, help_text, callback) in enumerate(self._commands()):
            if i >= 40:
                break
            yield DiscoveryHit(name, callback, help=help_text)
