"""`compdiag tui --serve` in a real headless browser: Debian's chromium driven by Selenium
through the system chromedriver. The page must show the run's first screen: the script name
and its graph break, read from the xterm.js terminal's own buffer (what it draws on its
canvas). `.ci/run` installs chromium; without it these tests skip and say how to get it.

Set COMPDIAG_UPDATE_DOCS=1 to write the screenshot to docs/tui-serve.png."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cdtest import REPO, base_env

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or ("/usr/bin/chromedriver"
                                                if Path("/usr/bin/chromedriver").exists()
                                                else None)
HOW = "apt-get install chromium chromium-driver (Debian), then pip install -e '.[dev]'"

# textual-serve keeps its xterm.js Terminal in a closure. Its session object assigns
# `this.fitAddon` right after `this.terminal`: a setter on Object.prototype catches that
# assignment and keeps the terminal, whose buffer is then read like a screen.
HOOK = """
Object.defineProperty(Object.prototype, 'fitAddon', {configurable: true, set(v) {
  Object.defineProperty(this, 'fitAddon', {value: v, writable: true, configurable: true,
                                           enumerable: true});
  if (this.terminal && this.terminal.buffer) {
    window.__compdiagTerminals = (window.__compdiagTerminals || []).concat([this.terminal]);
  }
}});
"""
SCREEN = """
const t = (window.__compdiagTerminals || [])[0];
if (!t) return null;
const b = t.buffer.active, lines = [];
for (let i = 0; i < b.length; i++) {
  const line = b.getLine(i);
  lines.push(line ? line.translateToString(true) : '');
}
return lines.join('\\n');
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def browser():
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(f"no chromium/chromedriver on this machine ({HOW})")
    webdriver = pytest.importorskip("selenium.webdriver", reason=f"selenium missing ({HOW})")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
              "--window-size=1280,760", "--disable-gpu"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture()
def served(session, scenario, tmp_path):
    """`compdiag tui --serve` of the scenario run, on a free port; its URL."""
    port = _free_port()
    log = tmp_path / "serve.log"          # a file, not a pipe nobody drains while it serves
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "compdiag", "tui", "--serve", "--port", str(port),
             "--store", str(session.store), str(scenario.run_id)],
            stdout=out, stderr=subprocess.STDOUT, env=base_env(session.cache),
            start_new_session=True)
    try:
        end = time.monotonic() + 60
        while True:                       # the URL is printed before aiohttp listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None:
                    raise AssertionError(f"the server exited: {log.read_text()[-2000:]}")
                assert time.monotonic() < end, f"nothing listens on port {port} after 60 s"
                time.sleep(0.2)
        first = log.read_text().splitlines()[0]
        assert first == (f"compdiag: serving the TUI of {session.store} at "
                         f"http://127.0.0.1:{port} (ctrl+c stops)"), first
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.send_signal(signal.SIGINT)       # textual-serve's graceful stop
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def _screen_when(driver, ready, timeout: float = 90.0) -> str:
    end = time.monotonic() + timeout
    text = None
    while time.monotonic() < end:
        text = driver.execute_script(SCREEN)
        if text is not None and ready(text):
            return text
        time.sleep(0.3)
    if text is None:
        raise AssertionError("the page has no xterm.js terminal that HOOK could catch "
                             "(did textual-serve's page change?)")
    raise AssertionError(f"the page never showed the first screen; it shows:\n{text}")


@pytest.mark.slow
def test_served_tui_shows_the_runs_first_screen_in_chromium(served, browser, scenario,
                                                            tmp_path):
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
    browser.get(served)
    text = _screen_when(browser, lambda s: "scenario.py" in s and "diagnoses (" in s)
    lines = text.splitlines()
    title = next(ln for ln in lines if ln.lstrip().startswith(f"run {scenario.run_id} "))
    assert "scenario.py" in title and "graph break" in title, title
    # the compile tree: the frame of f, whose first compile broke its graph
    assert any("frame 0 f " in ln for ln in lines), text
    assert any("graph_break" in ln or "graph break" in ln for ln in lines
               if ln.lstrip().startswith(("└", "├"))), text
    # the diagnoses panel, from explain: the print() break at the user's line
    diag = text.split("diagnoses (", 1)[1]
    assert "graph break" in diag and "print" in diag and "scenario.py:10" in diag, diag
    shot = tmp_path / "tui-serve.png"
    browser.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    if os.environ.get("COMPDIAG_UPDATE_DOCS") == "1":
        shutil.copyfile(shot, REPO / "docs" / "tui-serve.png")


def test_serving_beyond_localhost_warns_and_prints_the_url(tmp_path, capsys, monkeypatch):
    from textual_serve.server import Server

    from compdiag.cli import main
    from compdiag.store.writer import Writer

    w = Writer(tmp_path / "s.db")
    w.begin_run(source="run", argv=["x.py"])
    w.close()
    served = []
    monkeypatch.setattr(Server, "serve", lambda self, debug=False: served.append(self))
    store = str(tmp_path / "s.db")
    assert main(["tui", "--serve", "--store", store, "--host", "10.1.2.3", "--port",
                 "8123"]) == 0
    out, err = capsys.readouterr()
    assert "http://10.1.2.3:8123" in out
    assert "warning" in err and "10.1.2.3" in err and "tensors" in err
    assert "compdiag tui --store" in served[0].command
    assert served[0].host == "10.1.2.3"
    assert main(["tui", "--serve", "--store", store]) == 0
    out, err = capsys.readouterr()
    assert "http://127.0.0.1:8000" in out and err == ""
    assert main(["tui", "--store", store, "--port", "9000"]) == 2
    assert "go with --serve" in capsys.readouterr().err
