"""`compdiag tui [RUN] [--store DB]`: the Textual app (compdiag_tui), imported only for this
subcommand."""

from __future__ import annotations

import argparse
import gc

from compdiag.commands._common import add_store_arg, store_path
from compdiag.store.reader import Reader

HELP = "browse runs, compile stages, graphs, kernels and diagnoses"
DESCRIPTION = ("Browse the store in a terminal (Textual): runs, each compile's stages, graphs, "
               "guards, kernels, perf and explain's diagnoses. Press ? inside for the keys.")
EXAMPLES = (("compdiag tui", "open the latest run"),
            ("compdiag tui --store ci.db 3", "open run 3 of another store"))


def cmd_tui(args: argparse.Namespace) -> int:
    store = store_path(args)
    with Reader(store) as reader:           # one-line errors for a missing or foreign store
        run_id = reader.resolve_run(args.run) if args.run is not None else None
    # Start-up allocates a few hundred thousand objects (Textual's modules, the compile index)
    # that live as long as the app: no collection while importing, and frozen afterwards, so
    # that a full collection does not re-scan them all (~45 ms) while the first screen draws.
    gc.disable()
    try:
        from compdiag_tui import CompdiagApp   # Textual is imported only for this subcommand

        app = CompdiagApp(store, run_id)
    finally:
        gc.freeze()
        gc.enable()
    app.run()
    return app.return_code or 0


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN", help="run id (default: the latest)")
    p.set_defaults(func=cmd_tui)

