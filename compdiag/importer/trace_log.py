"""`compdiag import`: an existing TORCH_TRACE log into the store, through the same Ingestor
live capture uses.

Format (torch/_logging/_internal.py, trace formatter): one glog-prefixed line per record,
`V1130 02:17:30.020000 1797 torch/_dynamo/convert_frame.py:123] {json envelope}`, then the
payload lines, each prefixed with a tab. Corrupt or truncated input imports what can be read
and reports the rest in one line; nothing raises to the user."""

from __future__ import annotations

import gzip
import hashlib
import sys
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator
from zlib import error as zlib_error

from compdiag.ingest.ingestor import Ingestor
from compdiag.ingest.reindex import ensure_current
from compdiag.store.writer import Writer

_LINE = re.compile(
    r"^(?:\[rank(?P<rank>\d+)\]:)?[VIWEC]\d{4} [\d:.]+ +\d+ [^\]]*\](?: \[[^\]]*\])* (?P<json>\{.*)$")


class ImportError_(Exception):
    """Input that cannot be imported at all (one line for the user)."""


@dataclass
class ImportResult:
    run_id: int | None  # None: nothing imported, no run kept
    path: str
    records: int = 0
    skipped: int = 0
    bad_payloads: int = 0
    truncated: bool = False
    warnings: list[str] = field(default_factory=list)


def trace_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise ImportError_(f"{path}: no trace logs in this directory")
        return files
    if not path.exists():
        raise ImportError_(f"{path}: no such file or directory")
    return [path]


def iter_records(lines: Iterator[str], result: ImportResult
                 ) -> Iterator[tuple[dict, str | None]]:
    """Yield (envelope, payload) pairs; count what cannot be read instead of raising."""
    md: dict | None = None
    payload_lines: list[str] = []
    append = payload_lines.append
    for raw in lines:
        if raw[:1] == "\t":  # a payload line (the common case: keep it cheap)
            if md is not None:
                append(raw[1:].rstrip("\n"))
            continue
        line = raw.rstrip("\n")
        if md is not None:
            yield md, _payload(md, payload_lines, result)
            md, payload_lines = None, []
            append = payload_lines.append
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            result.skipped += 1
            continue
        try:
            value = json.loads(m.group("json"))
        except ValueError:
            result.skipped += 1
            result.truncated = True
            continue
        if not isinstance(value, dict):
            result.skipped += 1
            continue
        if m.group("rank") is not None and "rank" not in value:
            value["rank"] = int(m.group("rank"))
        md = value
    if md is not None:
        yield md, _payload(md, payload_lines, result)


def _payload(md: dict, lines: list[str], result: ImportResult) -> str | None:
    expected = md.get("has_payload")
    if expected is None and not lines:
        return None
    text = "\n".join(lines)
    if isinstance(expected, str) and len(expected) == 32:
        if hashlib.md5(text.encode("utf-8", "surrogatepass")).hexdigest() != expected:
            result.bad_payloads += 1
    return text


def import_trace(store: Path, path: Path) -> list[ImportResult]:
    """Import one log, or a directory of per-rank logs (one run per file)."""
    files = trace_files(path)
    ensure_current(store, lambda line: print(line, file=sys.stderr))
    writer = Writer(store, flush_interval=1.0)
    results = []
    try:
        for f in files:
            results.append(_import_file(writer, f))
    finally:
        writer.close()
    return results


def open_log(path: Path):
    """The log as text lines; a gzip-compressed one (`.log.gz`, as logs are attached to
    issues; told by its magic bytes, not its name) is decompressed as it is read."""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="\n")
    return open(path, encoding="utf-8", errors="replace", newline="\n")


def _lines(handle, result: ImportResult) -> Iterator[str]:
    """The handle's lines; a gzip stream cut short (a partial download) ends them, counted as a
    truncated log rather than raised."""
    try:
        yield from handle
    except (EOFError, OSError, gzip.BadGzipFile, zlib_error) as exc:
        result.truncated = True
        result.skipped += 1
        result.warnings.append(f"{result.path}: the compressed log ends early ({exc})")


def _import_file(writer: Writer, path: Path) -> ImportResult:
    try:
        stat = path.stat()
        handle = open_log(path)
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read ({exc.strerror or exc})") from None
    run_id = writer.begin_run(source="import", argv=[str(path)], cwd=os.getcwd(),
                              started_at=stat.st_mtime, status="importing")
    result = ImportResult(run_id=run_id, path=str(path))
    ing = Ingestor(writer, run_id)
    try:
        with handle:
            for md, payload in iter_records(_lines(handle, result), result):
                try:
                    ing.record(md, payload)
                    result.records += 1
                except Exception as exc:  # noqa: BLE001 - keep importing what can be read
                    result.skipped += 1
                    result.warnings.append(
                        f"record {result.records + 1}: {type(exc).__name__}: {exc}")
        ing.flush()
    except BaseException:
        # Interrupted (Ctrl-C) or failed: no half run is left to become the latest one.
        writer.delete_run(run_id)
        raise
    if result.records == 0:
        # Nothing was imported: no empty run that `explain` would call problem-free.
        writer.delete_run(run_id)
        result.run_id = None
        result.warnings.insert(0, f"{path}: no structured-trace records found "
                                  "(is this a TORCH_TRACE log?); nothing imported")
        return result
    if result.skipped:
        result.warnings.append(f"{path}: {result.skipped} unreadable lines skipped"
                               + (" (truncated or corrupt log)" if result.truncated else ""))
    if result.bad_payloads:
        result.warnings.append(f"{path}: {result.bad_payloads} payloads do not match their "
                               "checksum (truncated?); kept as read")
    for w in result.warnings:
        writer.warn(run_id, w)
    status = "imported" if not (result.skipped or result.bad_payloads) else "partial"
    writer.update_run(run_id, torch_version=ing.torch_version, ended_at=time.time())
    writer.end_run(run_id, exit_code=None, status=status)
    return result
