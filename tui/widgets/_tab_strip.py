"""TabStrip: a one-line row of tab titles (one widget, however many tabs); click or set
`active`. Posts `Activated` when the user picks a tab."""

from __future__ import annotations

from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

Tab = tuple[str, str, bool]          # id, title, has content


class TabStrip(Widget):
    DEFAULT_CSS = """
    TabStrip { height: 1; background: $panel; }
    """

    tabs: reactive[list[Tab]] = reactive(list, always_update=True)
    active: reactive[str] = reactive("")

    class Activated(Message):
        def __init__(self, strip: "TabStrip", tab_id: str) -> None:
            self.strip = strip
            self.tab_id = tab_id
            super().__init__()

        @property
        def control(self) -> "TabStrip":
            return self.strip

    def __init__(self, tabs: list[Tab] | None = None, active: str = "", *,
                 keys: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.keys = keys                     # the key of each tab, shown before its title
        self.set_reactive(TabStrip.tabs, list(tabs or []))
        self.set_reactive(TabStrip.active, active or (tabs[0][0] if tabs else ""))

    def render(self) -> Content:
        parts = []
        for i, (tab_id, title, present) in enumerate(self.tabs):
            number = f"{self.keys[i]} " if i < len(self.keys) else ""
            if tab_id == self.active:
                style = "reverse bold"
            elif present:
                style = ""
            else:
                style = "dim strike"
            safe = "".join(ch for ch in tab_id if ch.isalnum() or ch in "_-")
            parts.append(Content.from_markup(
                f"[@click=activate('{safe}')][{style}] $number$title[/][/]" if style else
                f"[@click=activate('{safe}')] $number$title[/]", number=number, title=title))
        return Content(" ").join(parts)

    def action_activate(self, tab_id: str) -> None:
        if any(t[0] == tab_id for t in self.tabs):
            self.active = tab_id
            self.post_message(self.Activated(self, tab_id))

    @property
    def titles(self) -> list[str]:
        return [t[1] for t in self.tabs]
