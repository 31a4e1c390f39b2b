"""What every command shares: the `--store DB` argument and its default, one JSON document on
stdout, and CLIError, the one-line error the cli prints before exiting 2."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from compdiag.store.schema import default_store_path

EXIT_USAGE = 2


class CLIError(Exception):
    """A one-line error for the user."""


def add_store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", type=Path, default=None, metavar="DB",
                   help="the SQLite log store (default ./.compdiag/compdiag.db)")


def add_job_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--job", nargs="?", const="latest", default=None, metavar="ID",
                   help="every rank of a torchrun job (a job id or one of its run ids; "
                        "default: the latest job)")


def store_path(args: argparse.Namespace) -> Path:
    return args.store if args.store is not None else default_store_path()


def emit_json(doc: dict[str, Any]) -> None:
    json.dump(doc, sys.stdout, default=repr)
    sys.stdout.write("\n")
