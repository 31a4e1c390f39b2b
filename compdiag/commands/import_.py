"""`compdiag import TRACE_LOG_OR_DIR [--store DB]`: an existing TORCH_TRACE log into the store
(the module is import_.py: `import` is a keyword)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from compdiag.commands._common import CLIError, add_store_arg, store_path

HELP = "import a TORCH_TRACE log (file or directory)"
DESCRIPTION = ("Import an existing TORCH_TRACE log (what TORCH_TRACE=DIR or tlparse users have; "
               "plain or gzip-compressed .log.gz) into the store, one run per log file, through "
               "the same ingestor live capture uses. A log with no records leaves no run.")
EXAMPLES = (("compdiag import /tmp/trace/dedicated_log_torch_trace_rank_0.log",
             "one log, as one run"),
            ("compdiag import --store issue.db trace-dir/", "every log in a directory (e.g. "
             "one per rank), .log.gz included"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.add_argument("trace", metavar="TRACE_LOG_OR_DIR",
                   help="a TORCH_TRACE log (.log or .log.gz) or a directory of them")
    p.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    from compdiag.importer.trace_log import ImportError_, import_trace

    try:
        results = import_trace(store_path(args), Path(args.trace))
    except ImportError_ as exc:
        raise CLIError(str(exc)) from None
    for r in results:
        for w in r.warnings:
            print(f"compdiag: warning: {w}", file=sys.stderr)
        if r.run_id is not None:
            print(f"compdiag: imported {r.records} records from {r.path} as run {r.run_id}",
                  file=sys.stderr)
    return 0 if any(r.records for r in results) else 1
