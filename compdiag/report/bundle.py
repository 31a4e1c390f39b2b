"""`compdiag report`'s archive: one zip a user can attach to a PyTorch issue.

    compdiag-report-RUN/report.md     the top diagnoses in markdown, and what the archive holds
    compdiag-report-RUN/report.json   explain's JSON document
    compdiag-report-RUN/env.json      machine (torch's collect_env), the run's versions, config
    compdiag-report-RUN/repro.py      the minified repro (+ repro.bin), when the run failed;
                   .../repro_check.py  its full check (+ repro_check_inputs/)
    compdiag-report-RUN/compiles/ID/  graphs and output code of the diagnosed compile ids only
    compdiag-report-RUN/torch_trace.log   the run's records as a TORCH_TRACE log (tlparse)

Everything is read through the Reader; the repro comes from `compdiag minify` run as a child
(its command line and JSON document are the contract, not its module's internals), so a
minifier that fails or runs out of time leaves a report without a repro, never no report.
The archive stays under a bound: the trace log's biggest payloads of other compile ids go
first, then those of the diagnosed ones; report.md lists what was left out."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from compdiag.formats.words import plural
from compdiag.importer.trace_writer import TraceEntry, format_entry, glog_prefix, \
    trace_entries
from compdiag.report import env as envinfo
from compdiag.store.reader import Reader
from compdiag.views.explain import explain_document
from compdiag.views.report import report_markdown

BOUND = 5_000_000              # bytes: the archive is never bigger (GitHub takes 25 MB)
MAX_COMPILE_IDS = 10           # graphs and code of this many diagnosed compile ids at most
MINIFY_TIMEOUT = 300           # seconds
TRACE_NAME = "torch_trace.log"
COMPILE_SHARE = 0.4           # of the bound, for the diagnosed compile ids' graphs and code
_MARGIN = 64_000               # zip headers, report.md, and estimate error
# (record kind, file name) of what is kept per diagnosed compile id, in pipeline order
COMPILE_ARTIFACTS = (
    ("dynamo_output_graph", "dynamo_graph.txt"),
    ("aot_inference_graph", "aot_inference_graph.txt"),
    ("aot_forward_graph", "aot_forward_graph.txt"),
    ("aot_backward_graph", "aot_backward_graph.txt"),
    ("artifact:inductor_post_grad_graph", "post_grad_graph.txt"),
    ("inductor_output_code", "output_code.py"),
)


class ReportError(Exception):
    """One line for the user."""


@dataclass
class Member:
    name: str              # inside the archive's folder
    data: bytes
    what: str


@dataclass
class Bundle:
    path: Path
    size: int
    run_id: int
    members: list[Member]
    left_out: list[str] = field(default_factory=list)
    repro: dict[str, Any] | None = None
    repro_note: str | None = None


def default_name(run_id: int) -> str:
    return f"compdiag-report-{run_id}.zip"


def home_relative(home: str | None) -> Callable[[str], str]:
    """A text rewriter showing paths under `home` as `~/...` (only whole path components:
    /home/al is not a prefix of /home/alice)."""
    home = (home or "").rstrip("/")
    if len(home) < 2:
        return lambda s: s
    pattern = re.compile(re.escape(home) + r"(?=/|$|[^\w.\-])")
    return lambda s: pattern.sub("~", s)


def build(store: Path, run: str | int | None, out: Path | None, *, minify: bool = True,
          repro: Path | None = None, bound: int = BOUND, home: str | None = None,
          minify_timeout: float = MINIFY_TIMEOUT,
          progress: Callable[[str], None] = lambda s: None) -> Bundle:
    """Write the report archive of `run` (default the latest) to `out` (default
    ./compdiag-report-RUN.zip)."""
    rel = home_relative(os.path.expanduser("~") if home is None else home)
    with Reader(store) as reader:
        run_id = reader.resolve_run(run)
        out = out if out is not None else Path(default_name(run_id))
        doc = explain_document(reader, run_id)
        compile_ids = _diagnosed_compile_ids(reader, run_id, doc)
        metrics = _metrics(reader, run_id, compile_ids)
        progress("collecting the environment (torch.utils.collect_env)")
        env = {"machine": envinfo.machine(),
               "run": {"torch_version": doc["run"].get("torch_version"),
                       "device": doc["run"].get("device"),
                       "cuda_version": (metrics or {}).get("cuda_version"),
                       "triton_version": (metrics or {}).get("triton_version")},
               "config": envinfo.run_config(metrics)}
        members = [Member("report.json", _json(doc, rel), "`compdiag explain --json`"),
                   Member("env.json", _json(env, rel),
                          "versions (torch's collect_env) and non-default Inductor/Dynamo "
                          "config")]
        compiled, skipped = _compile_members(reader, run_id, compile_ids, rel,
                                             int(bound * COMPILE_SHARE))
        members += compiled
        wants_repro = bool(reader.failures(run_id)) or any(
            a.get("ok") is False for a in reader.accuracy(run_id))
        entries = list(trace_entries(reader, run_id))
        run_row = reader.run(run_id)
    left_out: list[str] = [skipped] if skipped else []
    if repro is not None or (minify and wants_repro):
        progress("minifying the failing graph (compdiag minify)" if repro is None
                 else f"adding {repro}")
        repro_doc, repro_members, repro_note = _repro(store, run_id, repro, rel,
                                                      minify_timeout)
    else:
        repro_doc, repro_members, repro_note = None, [], (
            "No repro: `--no-minify` was given (run `compdiag minify`)." if wants_repro
            else None)
    repro_size = _compressed(repro_members)
    if repro_members and repro_size > bound // 2:
        left_out.append(f"the minified repro and its inputs ({repro_size / 1e6:.1f} MB "
                        "compressed; run `compdiag minify` to write them)")
        repro_doc, repro_members = None, []
        repro_note = "No repro in this archive: its inputs are too big (see below)."
    members += repro_members
    prefix = glog_prefix(run_row.get("started_at") or 0.0, run_row.get("pid"))
    budget = bound - _MARGIN - _compressed(members)
    trace, dropped = _trace(entries, prefix, rel, set(compile_ids), budget)
    if dropped:
        left_out.append(dropped)
    members.append(Member(TRACE_NAME, trace, f"the run's {len(entries)} records as a "
                          "TORCH_TRACE log (`tlparse` or `compdiag import` it)"))
    listing = [(m.name, len(m.data), m.what) for m in members]
    md = report_markdown(doc, env, repro=repro_doc, repro_note=repro_note, listing=listing,
                         left_out=left_out, bound=bound)
    members.insert(0, Member("report.md", rel(md).encode(), "this summary"))
    size = write_bounded(out, members, bound)
    return Bundle(out, size, run_id, members, left_out, repro_doc, repro_note)


def _diagnosed_compile_ids(reader: Reader, run_id: int, doc: dict[str, Any]) -> list[str]:
    """The failing compile ids, then those of the diagnoses in rank order."""
    ids: list[str] = [f["compile_id"] for f in reader.failures(run_id) if f.get("compile_id")]
    for d in doc["diagnoses"]:
        ids += [c for c in d.get("compile_ids") or [d.get("compile_id")] if c]
    return list(dict.fromkeys(ids))[:MAX_COMPILE_IDS]


def _metrics(reader: Reader, run_id: int, compile_ids: list[str]) -> dict[str, Any] | None:
    """compilation_metrics of the first diagnosed compile id that has them, else of any."""
    rows = {c["compile_id"]: c.get("metrics") for c in reader.compiles(run_id)}
    for cid in list(compile_ids) + list(rows):
        if isinstance(rows.get(cid), dict):
            return rows[cid]
    return None


def _compile_members(reader: Reader, run_id: int, compile_ids: list[str],
                     rel: Callable[[str], str], budget: int) -> tuple[list[Member], str | None]:
    """The artifacts of the diagnosed compile ids, most important first, while they fit in
    `budget` compressed bytes; and a note on those that did not."""
    out, skipped, used = [], [], 0
    for cid in compile_ids:
        kinds = {k["kind"] for k in reader.compile_record_kinds(run_id, cid)}
        folder = "compiles/" + re.sub(r"[^\w.-]", "_", cid)
        for kind, name in COMPILE_ARTIFACTS:
            text = reader.artifact(run_id, cid, kind) if kind in kinds else None
            if not text:
                continue
            m = Member(f"{folder}/{name}", rel(text).encode(),
                       f"compile {cid}: {kind.split(':')[-1]}")
            cost = len(zlib.compress(m.data, 6))
            if used + cost > budget:
                skipped.append(m.name)
                continue
            used += cost
            out.append(m)
    note = (f"{plural(len(skipped), 'graph')} and output codes of the diagnosed compile ids, over "
            f"their share of the bound ({', '.join(skipped[:4])}"
            f"{', ...' if len(skipped) > 4 else ''}; they are in the trace log's payloads "
            "when those fit)") if skipped else None
    return out, note


def _repro(store: Path, run_id: int, given: Path | None, rel: Callable[[str], str],
           timeout: float) -> tuple[dict[str, Any] | None, list[Member], str | None]:
    """(minify's document, the repro's files, None), or (None, [], why there is none)."""
    if given is not None:
        return {"given": str(given)}, _given_repro(given, rel), None
    return _minify(store, run_id, rel, timeout)


def _minify(store: Path, run_id: int, rel: Callable[[str], str], timeout: float
            ) -> tuple[dict[str, Any] | None, list[Member], str | None]:
    """`compdiag minify --json` in a child, into a scratch folder: (its document, the files it
    wrote, None) or (None, [], why there is no repro)."""
    with tempfile.TemporaryDirectory(prefix="compdiag-report-") as tmp:
        target = Path(tmp) / "repro.py"
        cmd = [sys.executable, "-m", "compdiag", "minify", "--store", str(store.resolve()),
               str(run_id),
               "-o", str(target), "--json"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                               cwd=tmp)
        except subprocess.TimeoutExpired:
            return None, [], (f"No repro: `compdiag minify` ran out of time ({timeout:.0f} s); "
                              "run it by hand.")
        if p.returncode != 0 or not target.exists():
            last = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
            return None, [], f"No repro: `compdiag minify` failed: {rel(last)}"
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            doc = {}
        members = _folder_members(Path(tmp), rel)
    return doc, members, None


def _given_repro(path: Path, rel: Callable[[str], str]) -> list[Member]:
    """A repro the user already has (`--repro FILE`), with what `compdiag minify` writes
    beside it: `<stem>.bin`, `<stem>_check.py` and the `<stem>_inputs/` or
    `<stem>_check_inputs/` folders."""
    if not path.is_file():
        raise ReportError(f"{path}: no such repro file")
    members = [Member("repro.py", rel(path.read_text(errors="replace")).encode(),
                      f"the repro given with --repro ({rel(str(path))})")]
    raw = path.with_suffix(".bin")
    if raw.is_file():
        members.append(Member("repro.bin", raw.read_bytes(), "the repro's inputs (raw bytes)"))
    check = path.with_name(f"{path.stem}_check.py")
    if check.is_file():
        members.append(Member("repro_check.py", rel(check.read_text(errors="replace")).encode(),
                              _CHECK_NOTE))
    for folder in (f"{path.stem}_inputs", f"{path.stem}_check_inputs"):
        inputs = path.parent / folder
        if inputs.is_dir():
            for f in sorted(inputs.rglob("*")):
                if f.is_file():
                    members.append(Member(f"{folder.replace(path.stem, 'repro', 1)}/"
                                          f"{f.relative_to(inputs)}", f.read_bytes(),
                                          "an input of the repro (raw bytes)"))
    return members


_CHECK_NOTE = ("the repro's full check: `python repro_check.py` exits 1 while the bug is "
               "present, 0 once fixed, 2 when it fails differently, 3 when eager fails")


def _folder_members(root: Path, rel: Callable[[str], str]) -> list[Member]:
    out = []
    for f in sorted(root.rglob("*")):
        if not f.is_file() or "__pycache__" in f.parts:
            continue
        name = f.relative_to(root).as_posix()
        if f.suffix == ".py":
            out.append(Member(name, rel(f.read_text(errors="replace")).encode(),
                              _CHECK_NOTE if f.name == "repro_check.py" else
                              "the minified repro: `python repro.py` (torch only)"))
        else:
            out.append(Member(name, f.read_bytes(), "an input of the repro (raw bytes)"))
    return out


def _trace(entries: list[TraceEntry], prefix: str, rel: Callable[[str], str],
           diagnosed: set[str], budget: int) -> tuple[bytes, str | None]:
    """The TORCH_TRACE log, and a note on the payloads left out to keep it within `budget`
    compressed bytes (None when all are in)."""
    texts = [format_entry(prefix, e.metadata, e.payload, rel) for e in entries]
    whole = "".join(texts).encode("utf-8", "surrogatepass")
    if len(zlib.compress(whole, 6)) <= budget:
        return whole, None
    # Each record compressed alone over-estimates its share of the stream: a safe budget.
    cost = [len(zlib.compress(t.encode("utf-8", "surrogatepass"), 6)) for t in texts]
    total = sum(cost)
    order = sorted((i for i, e in enumerate(entries) if e.payload),
                   key=lambda i: (entries[i].compile_id in diagnosed, -cost[i]))
    drop: set[int] = set()
    for i in order:
        if total <= budget:
            break
        e = entries[i]
        texts[i] = format_entry(prefix, e.metadata, None, rel)
        total += len(zlib.compress(texts[i].encode("utf-8", "surrogatepass"), 6)) - cost[i]
        drop.add(i)
    if total > budget:
        raise ReportError(f"the run's records do not fit the report's bound even without "
                          f"their payloads ({total / 1e6:.1f} MB compressed)")
    size = sum(len(entries[i].payload or "") for i in drop)
    kinds = sorted({entries[i].kind for i in drop})
    note = (f"{len(drop)} payloads of the trace log ({size / 1e6:.1f} MB; "
            f"{', '.join(kinds[:8])}{', ...' if len(kinds) > 8 else ''}), biggest first, "
            "other compile ids before the diagnosed ones; their envelopes are kept")
    return "".join(texts).encode("utf-8", "surrogatepass"), note


def _json(doc: Any, rel: Callable[[str], str]) -> bytes:
    return rel(json.dumps(doc, indent=1, default=repr)).encode()


def _compressed(members: list[Member]) -> int:
    return sum(len(zlib.compress(m.data, 6)) for m in members)


def write_bounded(out: Path, members: list[Member], bound: int) -> int:
    """The archive written (folder: its file name's stem); its size. Over `bound` (the
    estimate was wrong) it is removed and said, rather than a bigger archive shipped."""
    size = _write_zip(out, out.stem, members)
    if size > bound:
        out.unlink()
        raise ReportError(f"the report came out at {size / 1e6:.1f} MB, over its bound of "
                          f"{bound / 1e6:.1f} MB (a compdiag bug: please report it)")
    return size


def _write_zip(path: Path, folder: str, members: list[Member]) -> int:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for m in members:
            z.writestr(f"{folder}/{m.name}", m.data)
    data = buf.getvalue()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise ReportError(f"cannot write {path} ({exc.strerror or exc})") from None
    return len(data)
