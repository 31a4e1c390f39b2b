"""The ranks of one job, for the analyses that compare them (the `divergence` kind): one
RunContext per rank, through the store's query API only."""

from __future__ import annotations

from typing import Any

from compdiag.analyses.context import RunContext
from compdiag.formats.compile_id import CompileId
from compdiag.formats.compiled_code import is_resume_function
from compdiag.store.reader import Reader


# How a rank that waited at a collective its partner never issued ends (lower case): gloo's
# timeout or a peer that closed the connection, NCCL's watchdog, an aborted communicator.
HANG_WORDS = ("timed out", "timeout", "connection closed by peer", "connection reset by peer",
              "watchdog", "aborted", "abort")


def says_hang(text: str | None) -> bool:
    """torch's words for a rank that waited at a collective and gave up (HANG_WORDS)."""
    low = (text or "").lower()
    return any(w in low for w in HANG_WORDS)


# Signals a launcher sends the other ranks once one has failed (torchrun: SIGTERM, then
# SIGKILL): on such a rank the end is the job's teardown, not anything of its own.
TEARDOWN_SIGNALS = ("SIGHUP", "SIGINT", "SIGKILL", "SIGTERM")


def says_teardown(text: str | None) -> bool:
    """The program kind's words for a rank a launcher stopped ("killed by SIGTERM")."""
    return any(f"killed by {s}" in (text or "") for s in TEARDOWN_SIGNALS)


def failed_first(reader: Reader, run: dict[str, Any]) -> dict[str, Any] | None:
    """Another rank of `run`'s job that ended non-zero by itself (not killed): the one the
    launcher tore the job down for."""
    return next((r for r in reader.job_runs(run["job"]) if r["id"] != run.get("id")
                 and r.get("exit_code") not in (0, None) and r.get("status") != "killed"),
                None) if run.get("job") else None


class JobContext:
    def __init__(self, reader: Reader, job: str) -> None:
        self.r = reader
        self.job = job
        self.runs = reader.job_runs(job)
        # rank -> its run's context; a rank recorded twice (a restarted worker) keeps its last
        self.ranks: dict[int, RunContext] = {}
        for run in self.runs:
            self.ranks[int(run["rank"])] = RunContext(reader, run["id"])

    @property
    def run_ids(self) -> dict[int, int]:
        return {rank: ctx.run_id for rank, ctx in self.ranks.items()}


def compile_seconds(compiles: Any) -> float:
    """A run's time compiling: its compiles' `total` stage times (attempts carry their own)."""
    return round(sum(float((c.get("stage_times") or {}).get("total") or 0) for c in compiles), 3)


def frame_key(row: dict[str, Any] | None) -> tuple[str, str, int] | None:
    """A compiled function as every rank names it: (file, function, line). Resume functions
    are named after their line, so they compare across ranks too."""
    if not row or not row.get("co_name"):
        return None
    return (row.get("filename") or "", row["co_name"], int(row.get("lineno") or 0))


def is_resume(key: tuple[str, str, int] | None) -> bool:
    return bool(key) and is_resume_function(key[1])


def frame_compile(compile_id: str) -> str | None:
    """'0/1' of '0/1_2' (an attempt of the same compile), '0/1@1' of '0/1_2@1' (after a
    reset); None for compiled autograd's."""
    cid = CompileId.of(compile_id)
    if cid is None or cid.compiled_autograd is not None:
        return None
    return str(cid.first_attempt())
