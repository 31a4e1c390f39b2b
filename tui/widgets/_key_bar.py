"""KeyBar: the footer of key bindings, as one widget (Textual's Footer mounts a widget per key
and recomposes on every focus change, which costs more than a keystroke's whole budget).
Keys are clickable: a click replays the key."""

from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget

from textual.content import Content


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; background: $footer-background; color: $footer-foreground; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content = Content("")
        self._pieces: dict[tuple[str, str, str], Content] = {}
        self._shown: list[tuple[str, str, str]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        try:
            self.screen.bindings_updated_signal.unsubscribe(self)
        except Exception:  # noqa: BLE001 - the screen may already be gone
            pass

    def _bindings_changed(self, screen: Screen) -> None:
        shown: list[tuple[str, str, str]] = []
        seen: set[str] = set()
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if not binding.show or not binding.description or binding.description in seen:
                continue
            seen.add(binding.description)
            shown.append((key, binding.key_display or "", binding.description))
        if shown == self._shown:
            return
        self._shown = shown
        parts = []
        for key, key_display, description in shown:
            piece = self._pieces.get((key, key_display, description))
            if piece is None:
                display = key_display or self.app.get_key_display(
                    next(a.binding for k, a in screen.active_bindings.items() if k == key))
                safe_key = "".join(ch for ch in key if ch.isalnum() or ch in "_+-")
                piece = Content.from_markup(
                    f"[@click=app.simulate_key('{safe_key}')][b]$display[/b] $desc[/]",
                    display=display, desc=description)
                self._pieces[(key, key_display, description)] = piece
            parts.append(piece)
        self._content = Content(" ").join(parts) if parts else Content("")
        self.refresh()

    def render(self) -> Content:
        return Content(" ") + self._content

    @property
    def text(self) -> str:
        return self._content.plain
