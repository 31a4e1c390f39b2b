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
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, TextIO
from zlib import error as zlib_error

from compdiag.formats import fast_json
from compdiag.ingest.ingestor import Ingestor
from compdiag.ingest.sources import keep_sources
from compdiag.importer.writer_pipe import PipedWriter, WriteFailed
from compdiag.ingest.reindex import ensure_current
from compdiag.store.writer import Writer

# torch's per-rank TORCH_TRACE files (torch/_logging/_internal.py): one per rank of a job.
_RANK_FILE = re.compile(r"_rank_(\d+)_")
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
    rank: int | None = None  # the first record's (torch writes it into every envelope)
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
    for md, payload, _ in _parse_blocks(_line_blocks(lines), result):
        yield md, payload


def iter_file_records(handle: TextIO, result: ImportResult
                      ) -> Iterator[tuple[dict, str | None, str | None]]:
    """iter_records of an open log, read in blocks (its memory is one block and the longest
    record, whatever the log's size), with each envelope's JSON text as the log has it (None
    when compdiag added to it) so the store keeps it without encoding it again."""
    return _parse_blocks(_file_blocks(handle), result)


# A record is its envelope line and the payload lines after it (each begins with a tab).
_BOUNDARY = re.compile(r"\n(?!\t)")
_CHUNK = 1 << 20
# An import commits at least every this many payload characters, so the rows waiting for the
# writer's next commit stay bounded too (its timer alone would hold a second's worth of log).
_COMMIT_CHARS = 1 << 21


def _file_blocks(handle: TextIO) -> Iterator[str]:
    """Each record's text (envelope line, then its tab-prefixed payload lines), split by the
    regex engine instead of a Python loop per line."""
    pending = ""
    while True:
        chunk = handle.read(_CHUNK)
        if not chunk:
            break
        text = pending + chunk
        # A newline at the very end may yet be followed by a payload line (the next chunk).
        hold = text.endswith("\n")
        blocks = _BOUNDARY.split(text[:-1] if hold else text)
        pending = blocks.pop() + ("\n" if hold else "")
        yield from blocks
    if pending:
        yield pending.rstrip("\n") if pending.endswith("\n") else pending


def _line_blocks(lines: Iterator[str]) -> Iterator[str]:
    block: list[str] = []
    for raw in lines:
        if raw[:1] == "\t" and block:
            block.append(raw)
            continue
        if block:
            yield "".join(block).rstrip("\n") if block[-1].endswith("\n") else "".join(block)
        block = [raw] if raw[:1] != "\t" else []
    if block:
        yield "".join(block).rstrip("\n") if block[-1].endswith("\n") else "".join(block)


def _parse_blocks(blocks: Iterator[str], result: ImportResult
                  ) -> Iterator[tuple[dict, str | None, str | None]]:
    for block in blocks:
        nl = block.find("\n")
        line, rest = (block, "") if nl < 0 else (block[:nl], block[nl + 1:])
        if not line.strip() or line[:1] == "\t":  # blank, or payload lines of no record
            continue
        m = _LINE.match(line)
        if not m:
            result.skipped += 1
            continue
        raw_json = m.group("json")
        try:
            value = fast_json.loads(raw_json)
        except ValueError:
            result.skipped += 1
            result.truncated = True
            continue
        if not isinstance(value, dict):
            result.skipped += 1
            continue
        if m.group("rank") is not None and "rank" not in value:
            value["rank"] = int(m.group("rank"))
            raw_json = None
        if result.rank is None and isinstance(value.get("rank"), int):
            result.rank = value["rank"]
        yield value, _payload(value, rest, result), raw_json


def _payload(md: dict, rest: str, result: ImportResult) -> str | None:
    """The payload of a record's payload lines (REST: each a tab and the text)."""
    expected = md.get("has_payload")
    if expected is None and not rest:
        return None
    text = rest[1:].replace("\n\t", "\n")
    if isinstance(expected, str) and len(expected) == 32:
        if hashlib.md5(text.encode("utf-8", "surrogatepass")).hexdigest() != expected:
            result.bad_payloads += 1
    return text


def import_trace(store: Path, path: Path, *,
                 workers: int | None = None) -> list[ImportResult]:
    """Import one log, or a directory of per-rank logs (one run per file, run ids in file
    order). The ranks of one directory (torch's dedicated_log_torch_trace_rank_N_*.log, or
    envelopes with a `rank`) become one job, as `compdiag run` records a torchrun launch.
    The files of a directory are read by up to one process per CPU, each writing its runs
    into the store as the ranks of a live job do (WAL, short transactions)."""
    files = trace_files(path)
    ensure_current(store, lambda line: print(line, file=sys.stderr))
    writer = Writer(store, flush_interval=1.0)
    try:
        run_ids = [_begin(writer, f) for f in files]
    finally:
        writer.close()  # no connection crosses the fork below
    cpus = os.cpu_count() or 1
    n = min(len(files), workers or cpus)
    # A CPU left over per log: its store writes go to a process of their own (writer_pipe).
    piped = cpus >= 2 * n
    tasks = [(str(store), str(f), run_id, piped) for f, run_id in zip(files, run_ids)]
    try:
        if n > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork")) as pool:
                results = list(pool.map(_import_task, tasks))
        else:
            results = [_import_task(t) for t in tasks]
    except BaseException:
        _drop_unfinished(store, run_ids)  # no begun-but-never-read run becomes the latest
        raise
    writer = Writer(store)
    try:
        kept = [(f, r) for f, r in zip(files, results) if r.run_id is not None]
        for _, r in kept:
            # The user files its facts name, where they are on this machine (a TORCH_TRACE
            # log carries no user source: torch dumps only generated FX code, `dump_file`).
            # Here, with a Writer of its own: a file's runs may have been written through
            # writer_pipe, which has no connection to read the facts back with.
            keep_sources(writer, r.run_id)
        if kept:
            _join_job(writer, [f for f, _ in kept], [r for _, r in kept])
    finally:
        writer.close()
    return results


def _drop_unfinished(store: Path, run_ids: list[int]) -> None:
    """Delete the runs of this import still marked 'importing' (interrupted, or a file that
    failed): an import leaves whole runs or none."""
    writer = Writer(store)
    try:
        for run_id in run_ids:
            row = writer.conn.execute("SELECT status FROM runs WHERE id = ?",
                                      (run_id,)).fetchone()
            if row is not None and row[0] == "importing":
                writer.delete_run(run_id)
    finally:
        writer.close()


def open_log(path: Path) -> TextIO:
    """The log as text; a gzip-compressed one (`.log.gz`, as logs are attached to issues; told
    by its magic bytes, not its name) is decompressed as it is read."""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return _Gzip(gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="\n"))
    return open(path, encoding="utf-8", errors="replace", newline="\n")


class _Gzip:
    """A gzip log's text, read in small pieces so that a stream cut short (a partial download)
    loses at most the last piece: what came before it is imported, the end is counted as a
    truncated log rather than raised."""

    PIECE = 1 << 16

    def __init__(self, handle: TextIO) -> None:
        self.handle = handle
        self.cut: str | None = None

    def read(self, n: int = -1) -> str:
        if self.cut is not None:
            return ""
        out: list[str] = []
        size = 0
        while n < 0 or size < n:
            try:
                piece = self.handle.read(self.PIECE if n < 0 else min(self.PIECE, n - size))
            except (EOFError, OSError, zlib_error) as exc:
                self.cut = str(exc) or type(exc).__name__
                break
            if not piece:
                break
            out.append(piece)
            size += len(piece)
        return "".join(out)

    def __enter__(self) -> "_Gzip":
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()


def _import_task(task: tuple[str, str, int, bool]) -> ImportResult:
    store, path, run_id, piped = task
    # One checkpoint (and its fsync) at the end instead of one every 4 MB of WAL: an import
    # writes the whole log into the store.
    if not piped:
        writer = Writer(store, flush_interval=1.0)
        writer.conn.execute("PRAGMA wal_autocheckpoint=0")
        try:
            return _import_file(writer, Path(path), run_id)
        finally:
            writer.close()
    piped_writer = PipedWriter(store, flush_interval=1.0, checkpoint=False)
    try:
        result = _import_file(piped_writer, Path(path), run_id)  # type: ignore[arg-type]
    except BaseException:
        piped_writer.kill()   # _import_file asked it to drop the run: done below, for sure
        _drop_unfinished(store, [run_id])
        raise
    try:
        piped_writer.close()
    except WriteFailed as exc:
        # As a write that fails in-process: no half run is left (the run is dropped).
        writer = Writer(store)
        try:
            writer.delete_run(run_id)
        finally:
            writer.close()
        raise ImportError_(f"{path}: the store could not be written ({exc})") from None
    return result


def _begin(writer: Writer, path: Path) -> int:
    try:
        stat = path.stat()
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read ({exc.strerror})") from None
    return writer.begin_run(source="import", argv=[str(path)], cwd=os.getcwd(),
                            started_at=stat.st_mtime, status="importing")


def _join_job(writer: Writer, files: list[Path], results: list[ImportResult]) -> None:
    ranks = []
    for f, res in zip(files, results):
        m = _RANK_FILE.search(f.name)
        ranks.append(int(m.group(1)) if m else res.rank)
    if not any(r is not None for r in ranks) or (len(files) == 1 and ranks[0] is None):
        return
    if len({r for r in ranks if r is not None}) != len([r for r in ranks if r is not None]):
        return  # two logs claim one rank: not one job's ranks
    job = f"import-{results[0].run_id}"
    for rank, res in zip(ranks, results):
        if rank is not None:
            writer.update_run(res.run_id, rank=rank, world_size=len(files), local_rank=None,
                              job=job)
    writer.flush()


def _import_file(writer: Writer, path: Path, run_id: int) -> ImportResult:
    try:
        handle = open_log(path)
    except OSError as exc:
        writer.delete_run(run_id)
        raise ImportError_(f"{path}: cannot read ({exc.strerror or exc})") from None
    result = ImportResult(run_id=run_id, path=str(path))
    ing = Ingestor(writer, run_id)
    pending = 0
    try:
        with handle:
            for md, payload, raw_json in iter_file_records(handle, result):
                if payload:
                    pending += len(payload)
                    if pending > _COMMIT_CHARS:
                        writer.flush()
                        pending = 0
                try:
                    ing.record(md, payload, raw_json)
                    result.records += 1
                except Exception as exc:  # noqa: BLE001 - keep importing what can be read
                    result.skipped += 1
                    result.warnings.append(
                        f"record {result.records + 1}: {type(exc).__name__}: {exc}")
            if isinstance(handle, _Gzip) and handle.cut is not None:
                result.truncated = True
                result.skipped += 1
                result.warnings.append(f"{path}: the compressed log ends early ({handle.cut})")
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
    # A log `compdiag report` wrote says how its program ended (a program_end record).
    writer.end_run(run_id, exit_code=ing.exit_code, status=status)
    return result
