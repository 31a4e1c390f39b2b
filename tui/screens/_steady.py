"""SteadyScreen: a Screen that does not lay itself out again for a resize to the size it is
already laid out at.

Textual (8.x) sends a screen a Resize after its first layout (the screen is among the widgets
that layout "showed") and again once the app is idle (the driver's size report, stored even
when it equals the app's size), and `Screen._screen_resized` reflows every widget each time,
whatever the size. On the compile tree of benchmarks/tui_bench.py's store those are two full
layouts more in the first screen (13 and 20 ms of CPU on top of the 38 ms one it needs,
measured in a pty), and one more when a compile id is opened. A layout that the content needs
is asked for by the widget (`refresh(layout=True)`) and is not affected; a real change of size
still reflows."""

from __future__ import annotations

from textual.geometry import Size
from textual.screen import Screen


class SteadyScreen(Screen):
    def _screen_resized(self, size: Size) -> None:
        compositor = getattr(self, "_compositor", None)
        if getattr(compositor, "size", None) == size and getattr(compositor, "widgets", None):
            return          # laid out at this size already: nothing would move
        super()._screen_resized(size)
