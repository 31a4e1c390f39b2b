"""`compdiag tui [RUN] [--store DB]`: the Textual app (compdiag_tui), imported only for this
subcommand. `--serve` serves the same app to a browser (textual-serve: each browser session
runs `compdiag tui` as its own child process, drawn in the page by xterm.js)."""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

from compdiag.commands._common import CLIError, add_store_arg, store_path
from compdiag.store.reader import Reader

HELP = "browse runs, compile stages, graphs, kernels and diagnoses"
DESCRIPTION = ("Browse the store in a terminal (Textual): runs, each compile's stages, graphs, "
               "guards, kernels, perf and explain's diagnoses. Press ? inside for the keys. "
               "--serve serves the same app to a web browser.")
EXAMPLES = (("compdiag tui", "open the latest run"),
            ("compdiag tui --serve --store ci.db 3", "run 3 of another store, in a browser"))


def cmd_tui(args: argparse.Namespace) -> int:
    store = store_path(args)
    with Reader(store) as reader:           # one-line errors for a missing or foreign store
        run_id = reader.resolve_run(args.run) if args.run is not None else None
    if args.serve:
        return serve(store, run_id, args.host if args.host is not None else "127.0.0.1",
                     args.port if args.port is not None else 8000, args.public_url)
    if (args.host, args.port, args.public_url) != (None, None, None):
        raise CLIError("--host, --port and --public-url go with --serve")
    # Start-up allocates a few hundred thousand objects (Textual's modules, the compile index)
    # that live as long as the app: no collection while importing, and frozen afterwards, so
    # that a full collection does not re-scan them all (~45 ms) while the first screen draws.
    gc.disable()
    try:
        # Before Textual reads ESCDELAY (at import): `escape` without its input thread's 100 ms.
        from compdiag_tui.escape import quick_escape

        quick_escape()
        from compdiag_tui import CompdiagApp   # Textual is imported only for this subcommand

        app = CompdiagApp(store, run_id)
        app.freeze_first_screen = True      # and again once the first screen is drawn
    finally:
        gc.freeze()
        gc.enable()
    app.run()
    return app.return_code or 0


def serve(store: Path, run_id: int | None, host: str, port: int,
          public_url: str | None = None) -> int:
    """Serve the TUI on http://HOST:PORT until ctrl+c. Each browser session gets its own
    `compdiag tui` child: this interpreter, the same store and run."""
    import shlex

    if not 0 < port < 65536:
        raise CLIError(f"--port must be 1-65535, not {port}")
    try:
        from textual_serve.server import Server
    except ImportError:
        raise CLIError("--serve needs textual-serve (pip install textual-serve)") from None
    command = [sys.executable, "-m", "compdiag", "tui", "--store", str(Path(store).resolve())]
    if run_id is not None:
        command.append(str(run_id))
    if not _is_loopback(host):
        print(f"compdiag: warning: serving on {host}, not only on this machine: whoever "
              f"reaches port {port} can read everything in {store} (your code, graphs, "
              "kernels, tensors). Use an SSH tunnel to 127.0.0.1 instead where you can.",
              file=sys.stderr)
    if public_url is None and host in ("0.0.0.0", "::"):
        import socket        # the page's websocket must name a host the browser can reach

        public_url = f"http://{socket.getfqdn()}:{port}"
    server = Server(shlex.join(command), host=host, port=port, public_url=public_url,
                    title=f"compdiag tui {'run ' + str(run_id) if run_id else Path(store).name}")
    url = server.public_url
    print(f"compdiag: serving the TUI of {store} at {url} (ctrl+c stops)", flush=True)
    try:
        server.serve()
    except OSError as exc:      # the port is taken, or the host is not this machine's
        raise CLIError(f"cannot serve on {host}:{port} ({exc.strerror or exc})") from None
    return 0


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN", help="run id (default: the latest)")
    p.add_argument("--serve", action="store_true",
                   help="serve the TUI to a web browser (textual-serve) instead")
    p.add_argument("--host", default=None,
                   help="address to serve on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=None, help="port to serve on (default 8000)")
    p.add_argument("--public-url", default=None, metavar="URL",
                   help="the URL browsers reach the server at, when not http://HOST:PORT "
                        "(a proxy or a tunnel to another port)")
    p.set_defaults(func=cmd_tui)

