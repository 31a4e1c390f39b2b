"""The TUI's start path stays light: `compdiag tui` imports only its own subcommand module, and
the first screen is drawn without torch, pygments, the analyses or the screens that a keypress
opens (they load after the first frame), a perf report's included. Deterministic module checks,
not timings: the first-screen time itself is measured by benchmarks/tui_bench.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from compdiag_tui.demo_store import build_demo_store

# Never on the way to the first screen (a prefix also covers its submodules).
HEAVY = ("torch", "pygments", "rich.syntax", "compdiag.analyses", "compdiag.capture",
         "compdiag.minify", "compdiag.bisect", "compdiag_tui.screens._compile",
         "compdiag_tui.screens._search", "compdiag_tui.screens._source",
         "compdiag_tui.screens._runs", "compdiag_tui.screens._perf",
         "compdiag_tui.perf_format", "compdiag_tui.widgets._code_view",
         "compdiag_tui.widgets._kernel_view", "textual.widgets._data_table")


def _loaded(code: str, tmp_path: Path) -> list[str]:
    """Run `code` in a fresh interpreter; the HEAVY modules it ended up importing."""
    probe = textwrap.dedent(code) + textwrap.dedent(f"""
        import json, sys
        heavy = {HEAVY!r}
        mods = globals().get("SEEN") or set(sys.modules)
        print(json.dumps(sorted(m for m in mods
                                if any(m == h or m.startswith(h + ".") for h in heavy))))
    """)
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_compdiag_tui_command_loads_only_its_own_module(tmp_path: Path) -> None:
    loaded = _loaded(f"""
        import sys
        from compdiag.cli import main
        assert main(["tui", "--store", {str(tmp_path / "none.db")!r}]) == 2
        others = [m for m in sys.modules if m.startswith("compdiag.commands.")
                  and m not in ("compdiag.commands.tui", "compdiag.commands._common")]
        assert not others, others          # commands.explain, commands.minify, ... were not imported
        assert "compdiag.commands.tui" in sys.modules
    """, tmp_path)
    assert loaded == []


def test_first_screen_needs_no_heavy_module(tmp_path: Path) -> None:
    # With a perf report: the run screen's `p` must not load the perf screen's modules.
    store = build_demo_store(tmp_path / "demo.db", compiles=14, perf_report=True)
    # The app's preload runs once the first screen has been drawn: the modules loaded by then
    # are what the first screen cost (the probe records them instead of preloading).
    loaded = _loaded(f"""
        import asyncio, sys
        import compdiag.commands.tui
        from compdiag_tui import CompdiagApp
        from compdiag_tui.screens import RunScreen
        from compdiag_tui.widgets import CompileSummary

        SEEN = set()

        class Probe(CompdiagApp):
            def _preload(self):
                assert isinstance(self.screen, RunScreen)
                assert self.screen.query_one(CompileSummary).info is not None
                SEEN.update(sys.modules)

        async def main():
            app = Probe({str(store)!r})
            async with app.run_test(size=(120, 40)) as pilot:
                for _ in range(500):
                    if SEEN:
                        break
                    await pilot.pause(0.01)
            assert SEEN, "the first screen was never drawn"

        asyncio.run(main())
    """, tmp_path)
    assert loaded == []


def test_the_first_screen_is_frozen_out_of_the_collectors_reach(tmp_path: Path) -> None:
    """Issue 34 (TUI: every key's p95 <= 30 ms): a full collection re-scanned the first
    screen's objects (the compile index, the tree's rows) inside a later keystroke, 20-70 ms
    on benchmarks/tui_bench.py's store. `compdiag tui` freezes them once the first screen is
    drawn; an app made by anyone else (a test) leaves the collector alone."""
    store = build_demo_store(tmp_path / "demo.db", compiles=14)
    probe = textwrap.dedent(f"""
        import asyncio, gc, sys
        from compdiag_tui import CompdiagApp
        from compdiag_tui.widgets import CompileSummary

        async def frozen_after_first_screen(freeze):
            app = CompdiagApp({str(store)!r})
            app.freeze_first_screen = freeze
            gc.unfreeze()
            async with app.run_test(size=(120, 40)) as pilot:
                for _ in range(500):
                    if gc.get_freeze_count():
                        break
                    await pilot.pause(0.01)
                assert app.screen.query_one(CompileSummary).info is not None
                return gc.get_freeze_count()

        print(asyncio.run(frozen_after_first_screen(False)) == 0,
              asyncio.run(frozen_after_first_screen(True)) > 1000)
    """)
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split()[-2:] == ["True", "True"]


def test_escape_waits_for_neither_textuals_select_nor_its_100_ms(tmp_path: Path) -> None:
    """Issue 34 (TUI: every key's p95 <= 30 ms, escape included): a lone ESC became `escape`
    only when the driver's input thread came back from select(0.1), and after ESCDELAY (100 ms
    by default). `compdiag tui` (quick_escape) caps that wait at 10 ms and sets ESCDELAY to
    10 ms unless the user set it (measured in a pty at load 13: 137 ms median -> 56 ms)."""
    code = textwrap.dedent("""
        from compdiag_tui.escape import ESCAPE_POLL_S, _PollingSelector, quick_escape
        patched = quick_escape()
        import textual.constants as c
        from textual.drivers import linux_driver
        sel = linux_driver.selectors.SelectSelector()
        print(patched, isinstance(sel, _PollingSelector), ESCAPE_POLL_S, c.ESCAPE_DELAY)
    """)
    env = {k: v for k, v in os.environ.items() if k != "ESCDELAY"}
    ours = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert ours.returncode == 0, ours.stderr[-2000:]
    assert ours.stdout.split() == ["True", "True", "0.01", "0.01"]
    users = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**env, "ESCDELAY": "250"}, cwd=tmp_path, timeout=120)
    assert users.stdout.split()[-1] == "0.25"


def test_tui_bench_smoke(tmp_path: Path) -> None:
    """benchmarks/tui_bench.py's smoke: a small store, one launch in a pty (checks no figure)."""
    repo = Path(__file__).resolve().parent.parent
    p = subprocess.run([sys.executable, str(repo / "benchmarks" / "tui_bench.py"), "--smoke",
                        "--json"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    doc = json.loads(p.stdout)
    assert doc["compiles"] == 20 and doc["pty"]["first_screen_s"]["runs"]
