"""Real H200 runs (torch 2.11.0+cu130), replayed on the CPU: the records `compdiag run` stored
for each probe script (tests/fixtures/gpu/*.records.jsonl.gz, trimmed to the kinds ingest
reads) and the cudagraphs lines of a plain TORCH_LOGS run (plain_err_lines.txt) go through the
Ingestor the way capture feeds them, into a fresh store. No GPU, no compile."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from compdiag.ingest.ingestor import Ingestor
from compdiag.ingest.sources import keep_sources
from compdiag.store.writer import Writer

FIXTURES = Path(__file__).parent / "fixtures" / "gpu"
# 'V1201 14:43:01.656000 537 torch/_inductor/scheduler.py:6545] [0/0] [__cudagraphs] msg'
_LOG = re.compile(r"^\S+ \S+ \d+ \S+\] (?:\[(?P<cid>[\d/_]+)\] )?\[__cudagraphs\] (?P<msg>.*)$")


def replay(case: str, store: Path, *, exit_code: int | None = None) -> int:
    """Feed one probe run's records into `store`; the run id."""
    lines = gzip.open(FIXTURES / f"{case}.records.jsonl.gz", "rt").read().splitlines()
    head = json.loads(lines[0])["run"]
    w = Writer(store)
    run_id = w.begin_run(source="run", argv=head["argv"], torch_version=head["torch_version"],
                         device=head["device"])
    ing = Ingestor(w, run_id)
    for line in lines[1:]:
        r = json.loads(line)
        kind, cid, md, payload = r["kind"], r["compile_id"], r["metadata"], r["payload"]
        if kind.startswith("compdiag:"):
            name = kind.split(":", 1)[1]
            if name == "cudagraphs":  # as Capture._on_artifact_line does
                ing.cudagraph_line(cid, payload)
            data = {k: v for k, v in md.get("compdiag", {}).items() if k != "kind"}
            ing.event(name, cid, data, payload)
        else:
            ing.record(md, payload)
    ing.flush()
    keep_sources(w, run_id)  # the recorded script's text, where it is here (as a run's end does)
    w.end_run(run_id, exit_code=head["exit_code"] if exit_code is None else exit_code,
              status="done")
    w.close()
    return run_id


def log_lines(contains: str = "") -> list[tuple[str | None, str]]:
    """(compile id, message) of each cudagraphs line of the plain runs' stderr."""
    out = []
    for line in (FIXTURES / "plain_err_lines.txt").read_text().splitlines():
        m = _LOG.match(line)
        if m and contains in m.group("msg"):
            out.append((m.group("cid"), m.group("msg")))
    return out


def feed_lines(ing: Ingestor, lines: list[tuple[str | None, str]]) -> None:
    for cid, msg in lines:
        ing.cudagraph_line(cid, msg)
        ing.event("cudagraphs", cid, {}, msg)


def make_fixture(store: Path, case: str, strip: str, run_id: int = 1) -> Path:
    """Write a stored run's records as tests/fixtures/gpu/CASE.records.jsonl.gz (what `replay`
    reads): the run's argv, exit status, torch and device first, then every record but the
    chromium events (timing only), `strip` (the run's checkout, e.g. '/work/main/') taken out
    of every path so the replay finds the scripts here. `python -c "import sys;
    sys.path[:0] = ['tests']; from gpu_replay import make_fixture; make_fixture(...)"`."""
    from compdiag.store.reader import Reader

    out = FIXTURES / f"{case}.records.jsonl.gz"
    with Reader(store) as r:
        run = r.run(run_id)
        head = {"run": {"argv": [a.replace(strip, "") for a in json.loads(run["argv"])]
                        if isinstance(run["argv"], str) else
                        [a.replace(strip, "") for a in run["argv"]],
                        "exit_code": run["exit_code"], "torch_version": run["torch_version"],
                        "device": run["device"]}}
        lines = [json.dumps(head)]
        for rec in r.records(run_id):
            if rec["kind"] == "chromium_event":
                continue
            line = json.dumps({k: rec[k] for k in ("kind", "compile_id", "metadata", "payload")})
            lines.append(line.replace(strip, ""))
    with gzip.open(out, "wt") as f:
        f.write("\n".join(lines) + "\n")
    return out
