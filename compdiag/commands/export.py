"""`compdiag export --perfetto OUT.json [RUN] [--store DB]`: a run's compile timeline as
Chrome/Perfetto trace JSON (compdiag/views/perfetto.py builds it from the store)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from compdiag.commands._common import CLIError, add_store_arg, output_file, store_path

HELP = "write a run's compile timeline as Perfetto / Chrome trace JSON"
DESCRIPTION = ("Write a run's compile timeline as Chrome/Perfetto trace JSON: one track per "
               "compile id with its stages (Dynamo, AOTAutograd, Inductor, codegen, kernel "
               "compiles), cache lookups and autotuning nested inside, built from the store. "
               "Open it in ui.perfetto.dev or chrome://tracing.")
EXAMPLES = (("compdiag export --perfetto trace.json", "the latest run's timeline"),
            ("compdiag export --store other.db --perfetto trace.json 3", "run 3 of another store"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("run", nargs="?", metavar="RUN", help="run id, or 'latest' (default)")
    p.add_argument("--perfetto", type=Path, required=True, metavar="OUT.json",
                   help="where to write the trace (open it in ui.perfetto.dev)")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from compdiag.store.reader import Reader
    from compdiag.views.perfetto import perfetto_trace

    output_file(args.perfetto, "--perfetto")
    with Reader(store_path(args)) as reader:
        run_id = reader.resolve_run(args.run)
        trace = perfetto_trace(reader, run_id)
    try:
        args.perfetto.write_text(json.dumps(trace, default=repr))
    except OSError as exc:
        raise CLIError(f"cannot write {args.perfetto} ({exc.strerror or exc})") from None
    tracks = sum(1 for e in trace["traceEvents"] if e.get("name") == "thread_name")
    timed = len(trace["traceEvents"]) - 1 - 2 * tracks
    print(f"compdiag: wrote {timed} events of run {run_id} ({tracks} compile ids) to "
          f"{args.perfetto}; open it in ui.perfetto.dev", file=sys.stderr)
    return 0
