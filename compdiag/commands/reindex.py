"""`compdiag reindex [--store DB]`: re-derive a store's facts from its raw records; upgrades a
store an older compdiag wrote (ingest/reindex.py does the work)."""

from __future__ import annotations

import argparse
import sys

from compdiag.commands._common import CLIError, add_store_arg, store_path
from compdiag.formats.words import plural

HELP = "re-derive a store's facts from its raw records (upgrades an older store)"
DESCRIPTION = ("Replay every run's raw records through this compdiag's ingestor, so a store an "
               "older compdiag wrote gains the facts this one derives. Nothing is lost: the raw "
               "records stay as they were.")
EXAMPLES = (("compdiag reindex", "upgrade ./.compdiag/compdiag.db in place"),
            ("compdiag reindex --store old.db", "upgrade another store"))


def register(p: argparse.ArgumentParser) -> None:
    add_store_arg(p)
    p.set_defaults(func=cmd_reindex)


def cmd_reindex(args: argparse.Namespace) -> int:
    from compdiag.ingest.reindex import reindex
    from compdiag.store.schema import STORE_VERSION

    path = store_path(args)
    if not path.exists():
        raise CLIError(f"no store at {path} (run `compdiag run SCRIPT` or pass --store)")
    if path.is_file() and path.stat().st_size == 0:  # never turned into a database here
        raise CLIError(f"{path} is an empty store: nothing to reindex")
    done = reindex(path)
    was = (f"upgraded from store schema {done.from_version} to {STORE_VERSION}"
           if done.from_version != STORE_VERSION else f"store schema {STORE_VERSION}")
    print(f"compdiag: reindexed {done.path} ({was}): facts re-derived from {done.records} raw "
          f"records of {plural(done.runs, 'run')}", file=sys.stderr)
    return 0
