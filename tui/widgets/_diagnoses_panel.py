"""DiagnosesPanel: ranked diagnoses of a run; choosing one posts `DiagnosisChosen`."""

from __future__ import annotations

from functools import partial
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive

from compdiag_tui.widgets._line_list import LineList

KIND_STYLE = {"graph_break": "yellow", "recompile": "magenta", "failure": "bold red",
              "accuracy": "bold red", "cudagraph": "cyan", "fusion": "blue", "perf": "blue",
              "cache": "green", "ddp": "bold cyan"}


def diagnosis_label(d: dict[str, Any]) -> Text:
    kind = d.get("kind") or "?"
    uf = d.get("user_frame") or {}
    cids = d.get("compile_ids") or []
    more = "…" if len(cids) > 3 else ""
    where = d.get("compile_id") or (", ".join(map(str, cids[:3])) + more)
    text = Text.assemble((f" {kind.replace('_', ' '):<12}", KIND_STYLE.get(kind, "")), " ",
                         (f"[{where or '-'}] ", "bold"))
    if isinstance(d.get("count"), int) and d["count"] > 1:
        text.append(f"×{d['count']} ", "bold")
    if d.get("gb_code"):
        text.append(f"{d['gb_code']} ", "bold")
    text.append(" ".join(str(d.get("reason") or d.get("explanation") or "").split())[:160])
    if uf.get("filename"):
        text.append(f"  {uf['filename']}:{uf.get('lineno')}", "dim")
    return text


class DiagnosesPanel(LineList):
    """Set `diagnoses` (explain's dicts, most important first; None while loading)."""

    DEFAULT_CSS = """
    DiagnosesPanel { height: 1fr; }
    """

    diagnoses: reactive[list[dict[str, Any]] | None] = reactive(None, always_update=True)

    class DiagnosisChosen(Message):
        def __init__(self, diagnosis: dict[str, Any]) -> None:
            self.diagnosis = diagnosis
            super().__init__()

    def watch_diagnoses(self, diagnoses: list[dict[str, Any]] | None) -> None:
        if diagnoses is None:
            self.set_rows([(Text(" diagnosing…", "dim italic"), None)], cursor=-1)
        elif not diagnoses:
            self.set_rows([(Text(" no problems found in this run", "green"), None)], cursor=-1)
        else:
            self.set_rows([(partial(diagnosis_label, d), i) for i, d in enumerate(diagnoses)],
                          cursor=0)

    def on_line_list_chosen(self, event: LineList.Chosen) -> None:
        if event.widget is not self:
            return
        event.stop()
        if self.diagnoses and isinstance(event.data, int):
            self.post_message(self.DiagnosisChosen(self.diagnoses[event.data]))

    def on_line_list_highlighted(self, event: LineList.Highlighted) -> None:
        if event.widget is self:
            event.stop()
