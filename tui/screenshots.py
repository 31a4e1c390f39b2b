"""Regenerate the README's TUI screenshots (SVG, Textual's save_screenshot) from the demo store:

    python -m compdiag_tui.screenshots docs/
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from compdiag_tui.app import CompdiagApp
from compdiag_tui.demo_store import build_demo_store
from compdiag_tui.widgets import CodeView, DiagnosesPanel, KernelView

SIZE = (130, 36)
PERF_SIZE = (130, 46)


async def _settle(pilot) -> None:
    app = pilot.app
    import time

    end = time.monotonic() + 60        # the diagnoses come from a child process
    while time.monotonic() < end:
        panels = app.screen.query(DiagnosesPanel)
        views = [v for v in app.screen.query(CodeView) if v.code and v.language != "text"]
        kernels = app.screen.query(KernelView)
        started = len(app.screen_stack) > 1 and app.screen.is_mounted  # pushed after mount
        if started and all(p.diagnoses is not None for p in panels) \
                and all(v.highlighted for v in views) \
                and all(k.current is not None for k in kernels):
            break
        await pilot.pause(0.02)
    await pilot.pause()


async def shoot(store: Path, out: Path) -> list[Path]:
    written = []
    app = CompdiagApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        written.append(Path(app.save_screenshot("tui_compile_tree.svg", str(out))))
        app.open_compile(1, "1/1", tab="kernels")
        await pilot.pause()
        await _settle(pilot)
        written.append(Path(app.save_screenshot("tui_kernel_view.svg", str(out))))
    return written


async def shoot_perf(store: Path, out: Path) -> Path:
    """`p` on a run with a perf report (the demo store's fixed one, two modes)."""
    app = CompdiagApp(store)
    async with app.run_test(size=PERF_SIZE) as pilot:
        await _settle(pilot)
        app.open_perf(app.current_run_id())
        await pilot.pause()
        await _settle(pilot)
        return Path(app.save_screenshot("tui_perf.svg", str(out)))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "docs")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = build_demo_store(Path(tmp) / "demo.db", compiles=14, cwd="/src/demo")
        for path in asyncio.run(shoot(store, out)):
            print(path)
        perf = build_demo_store(Path(tmp) / "perf.db", compiles=14, runs=2, cwd="/src/demo",
                                perf_report=True)
        print(asyncio.run(shoot_perf(perf, out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
