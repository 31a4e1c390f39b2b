"""The query API every analysis and view uses; nothing else reads the store's tables.

Rows come back as plain dicts with JSON columns decoded, so views never touch SQL.
Payload-heavy columns (kernel source, record payloads) are fetched only when asked for,
which keeps the TUI's first screen cheap on big stores.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from compdiag.formats.compile_id import first_attempt
from compdiag.formats.compile_id import generation as compile_generation
from compdiag.store import blobs
from compdiag.store.read_base import _decode, compile_id_key  # noqa: F401 - compile_id_key re-exported
from compdiag.store.read_perf import PerfReader
from compdiag.store.read_records import RecordsReader
from compdiag.store.schema import NOT_COMPARED, StoreError


def _is_int64(n: int) -> bool:
    """Whether SQLite can hold `n` (a larger one is no run id: binding it is an OverflowError)."""
    return -(2 ** 63) <= n < 2 ** 63


def _shown(run: object, most: int = 24) -> str:
    """RUN as the user typed it, a 4000-digit one shortened in its middle."""
    text = str(run)
    return text if len(text) <= most else f"{text[:most // 2]}…{text[-most // 2:]}"


def _file_lines(text: str) -> list[str]:
    """A file's lines as Python numbers them (universal newlines; not str.splitlines, which
    also splits at form feeds and other separators a traceback's line numbers count past)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


class Reader(RecordsReader, PerfReader):
    """Every query analyses and views make (read_base.py: the connection and helpers)."""

    # -- runs -------------------------------------------------------------------------------
    def runs(self) -> list[dict[str, Any]]:
        return self._rows("SELECT * FROM runs ORDER BY id")

    def resolve_run(self, run: int | str | None) -> int:
        """RUN as given on the command line (an id, 'latest' or None) to a run id."""
        if run in (None, "latest", "last"):
            row = self._rows("SELECT max(id) AS id FROM runs")
            if not row or row[0]["id"] is None:
                raise StoreError(f"{self.path} holds no runs yet")
            return int(row[0]["id"])
        try:
            run_id = int(run)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise StoreError(f"RUN must be a run id or 'latest', not {_shown(run)!r}") from None
        if not _is_int64(run_id) or not self._rows("SELECT id FROM runs WHERE id = ?",
                                                    (run_id,)):
            raise StoreError(f"no run {_shown(run)} in {self.path} (see `{self._runs_cmd}`)")
        return run_id

    def run(self, run_id: int) -> dict[str, Any]:
        rows = self._rows("SELECT * FROM runs WHERE id = ?", (run_id,))
        if not rows:
            raise StoreError(f"no run {run_id} in {self.path}")
        return rows[0]

    # -- jobs (the ranks of one torchrun launch) --------------------------------------------
    def jobs(self) -> list[dict[str, Any]]:
        """Every job, oldest first: {job, runs: [run ids of its ranks, by rank], launcher}."""
        rows = self._rows("SELECT id, job, rank FROM runs WHERE job IS NOT NULL ORDER BY id")
        out: dict[str, dict[str, Any]] = {}
        for row in rows:
            job = out.setdefault(row["job"], {"job": row["job"], "runs": [], "launcher": None})
            if row["rank"] is None:
                job["launcher"] = row["id"]
            else:
                job["runs"].append((row["rank"], row["id"]))
        for job in out.values():
            job["runs"] = [run_id for _, run_id in sorted(job["runs"])]
        return list(out.values())

    def job_runs(self, job: str) -> list[dict[str, Any]]:
        """The runs of a job's ranks, by rank (the launcher's own run is not one)."""
        return self._rows("SELECT * FROM runs WHERE job = ? AND rank IS NOT NULL"
                          " ORDER BY rank, id", (job,))

    def job_launcher(self, job: str) -> dict[str, Any] | None:
        """The launcher's own run of a job compdiag ran (`compdiag run -m torch.distributed.run
        ...`: the run with no rank), None for a job whose ranks each ran compdiag."""
        rows = self._rows("SELECT * FROM runs WHERE job = ? AND rank IS NULL ORDER BY id LIMIT 1",
                          (job,))
        return rows[0] if rows else None

    def resolve_job(self, job: str | None) -> str:
        """JOB as given to `--job`: a job id, a run id of one of its runs, or None (latest)."""
        if job in (None, "", "latest", "last"):
            row = self._rows("SELECT job FROM runs WHERE job IS NOT NULL ORDER BY id DESC LIMIT 1")
            if not row:
                raise StoreError(f"{self.path} holds no multi-rank job (see `{self._runs_cmd}`)")
            return row[0]["job"]
        if self._rows("SELECT 1 FROM runs WHERE job = ? LIMIT 1", (job,)):
            return str(job)
        if str(job).isdigit() and len(str(job)) < 19:  # longer: no run id SQLite could hold
            row = self._rows("SELECT job FROM runs WHERE id = ?", (int(job),))
            if row and row[0]["job"] is not None:
                return row[0]["job"]
        raise StoreError(f"no job {_shown(job)!r} in {self.path} (see `{self._runs_cmd}`)")

    def warnings(self, run_id: int) -> list[str]:
        return [r["message"] for r in
                self._rows("SELECT message FROM warnings WHERE run_id = ? ORDER BY id", (run_id,))]

    # -- derived facts ----------------------------------------------------------------------
    def compiles(self, run_id: int) -> list[dict[str, Any]]:
        rows = self._compile_rows("run_id = ?", (run_id,))
        rows.sort(key=lambda r: compile_id_key(r["compile_id"]))
        return rows

    def compile(self, run_id: int, compile_id: str) -> dict[str, Any] | None:
        rows = self._compile_rows("run_id = ? AND compile_id = ?", (run_id, compile_id))
        return rows[0] if rows else None

    def _compile_rows(self, where: str, params: tuple) -> list[dict[str, Any]]:
        """Whole compile rows, compilation_metrics put back from its blob."""
        rows = self._rows(f"SELECT *, {self._metrics} AS metrics_text FROM compiles"
                          f" WHERE {where}", params)
        for row in rows:
            text = row.pop("metrics_text", None)
            if row.pop("metrics_blob", None) is not None:
                row["metrics"] = _decode({"metrics": text})["metrics"]
        return rows

    def compile_index(self, run_id: int) -> list[dict[str, Any]]:
        """Every compile of a run without its compilation_metrics blob (the TUI's tree)."""
        rows = self._rows("SELECT run_id, compile_id, frame, frame_compile, attempt, co_name,"
                          " filename, lineno, status, stage_times FROM compiles"
                          " WHERE run_id = ?", (run_id,))
        rows.sort(key=lambda r: compile_id_key(r["compile_id"]))
        return rows

    def _table(self, table: str, run_id: int, compile_id: str | None) -> list[dict[str, Any]]:
        if compile_id is None:
            return self._rows(f"SELECT * FROM {table} WHERE run_id = ? ORDER BY id", (run_id,))
        return self._rows(f"SELECT * FROM {table} WHERE run_id = ? AND compile_id = ? "
                          "ORDER BY id", (run_id, compile_id))

    def graph_breaks(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        return self._table("graph_breaks", run_id, compile_id)

    def recompiles(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        return self._table("recompiles", run_id, compile_id)

    def failures(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        return self._table("failures", run_id, compile_id)

    def program_exceptions(self, run_id: int) -> list[dict[str, Any]]:
        """The exception(s) that ended the program, in the order they were recorded."""
        if not self._has_table("program_exceptions"):
            return []
        return self._rows("SELECT * FROM program_exceptions WHERE run_id = ? ORDER BY seq",
                          (run_id,))

    def kept_failure_graphs(self, run_id: int) -> set[str | None]:
        """The compile ids whose failing graph capture kept for `compdiag minify` (its
        `compdiag:failure_graph` records; None for one kept without a compile id)."""
        return {r["compile_id"] for r in self._rows(
            "SELECT compile_id FROM records WHERE run_id = ? AND kind = ?",
            (run_id, "compdiag:failure_graph"))}

    def eager_reruns(self, run_id: int) -> dict[str | None, str]:
        """{compile id: "runs" | "raises: ..."}: what the ops of a graph Dynamo failed on did
        when capture ran them in eager on their real inputs (capture/eager_rerun.py)."""
        out: dict[str | None, str] = {}
        for r in self.records(run_id, kind="compdiag:failure_graph", with_payload=False):
            md = r["metadata"].get("compdiag") if isinstance(r["metadata"], dict) else None
            if isinstance(md, dict) and isinstance(md.get("eager"), str):
                out[r["compile_id"]] = md["eager"]
        return out

    def program_ends(self, run_id: int) -> list[dict[str, Any]]:
        """How the program ended when not well (os._exit's call, a signal, a status), in the
        order recorded; none for a run that exited 0 or a store older than the table."""
        if not self._has_table("program_ends"):
            return []
        return self._rows("SELECT * FROM program_ends WHERE run_id = ? ORDER BY seq", (run_id,))

    def fusion(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        return self._table("fusion", run_id, compile_id)

    def cudagraphs(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        return self._table("cudagraphs", run_id, compile_id)

    def _newer_table(self, table: str, run_id: int, compile_id: str | None
                     ) -> list[dict[str, Any]]:
        """A table this session added: a store written before it (opened read-only, so not
        yet given the table) has none of its rows."""
        try:
            return self._table(table, run_id, compile_id)
        except sqlite3.OperationalError:
            return []

    def cudagraph_recordings(self, run_id: int, compile_id: str | None = None
                             ) -> list[dict[str, Any]]:
        return self._newer_table("cudagraph_recordings", run_id, compile_id)

    def cudagraph_partitions(self, run_id: int, compile_id: str | None = None
                             ) -> list[dict[str, Any]]:
        return self._newer_table("cudagraph_partitions", run_id, compile_id)

    def cudagraph_trees(self, run_id: int, compile_id: str | None = None
                        ) -> list[dict[str, Any]]:
        return self._newer_table("cudagraph_trees", run_id, compile_id)

    def cudagraph_rerecords(self, run_id: int, compile_id: str | None = None
                            ) -> list[dict[str, Any]]:
        return self._newer_table("cudagraph_rerecords", run_id, compile_id)

    def cudagraph_splits(self, run_id: int, compile_id: str | None = None
                         ) -> list[dict[str, Any]]:
        return self._newer_table("cudagraph_splits", run_id, compile_id)

    def ddp_wraps(self, run_id: int) -> list[dict[str, Any]]:
        """Each DistributedDataParallel the program built, in order (capture's record)."""
        return self._newer_rows("SELECT * FROM ddp_wraps WHERE run_id = ? ORDER BY seq",
                                (run_id,))

    def ddp_buckets(self, run_id: int) -> list[dict[str, Any]]:
        """DDPOptimizer's bucket cap and bucket count, per compile it split."""
        return self._newer_rows("SELECT * FROM ddp_buckets WHERE run_id = ? ORDER BY seq",
                                (run_id,))

    def ddp_splits(self, run_id: int) -> list[dict[str, Any]]:
        """The subgraphs DDPOptimizer split compiles into, in compile then graph order."""
        return self._newer_rows("SELECT * FROM ddp_splits WHERE run_id = ? ORDER BY seq, idx",
                                (run_id,))

    def collective_nodes(self, run_id: int) -> list[dict[str, Any]]:
        """The collectives each compiled graph issues, with the user line (capture's)."""
        return self._newer_rows("SELECT * FROM collective_nodes WHERE run_id = ? "
                                "ORDER BY seq, idx", (run_id,))

    def aliased_inputs(self, run_id: int) -> dict[str, list[dict[str, Any]]]:
        """compile id -> its inputs that share a storage with another while its graph mutates
        one of them (AOTAutograd's synthetic base)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for row in self._newer_rows("SELECT * FROM aliased_inputs WHERE run_id = ? "
                                    "ORDER BY rowid", (run_id,)):
            row["size"] = json.loads(row["size"]) if row.get("size") else None
            out.setdefault(row["compile_id"], []).append(row)
        return out

    def compiled_autograd_graphs(self, run_id: int) -> list[dict[str, Any]]:
        """Compiled autograd's graphs, in the order they were made."""
        return self._newer_rows("SELECT * FROM compiled_autograd_graphs WHERE run_id = ? "
                                "ORDER BY seq", (run_id,))

    def _newer_rows(self, sql: str, params: tuple) -> list[dict[str, Any]]:
        """Rows of a table a store written before it (opened read-only) does not have: none."""
        try:
            rows = self.conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError:
            return []
        return [_decode(dict(row)) for row in rows]

    def torch_warnings(self, run_id: int) -> list[dict[str, Any]]:
        return self._newer_table("torch_warnings", run_id, None)

    def epilogue_misses(self, run_id: int, compile_id: str | None = None
                        ) -> list[dict[str, Any]]:
        return self._newer_table("epilogue_misses", run_id, compile_id)

    def autotune(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        return self._table("autotune", run_id, compile_id)

    def cache_events(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        """Cache lookups (FX graph, AOTAutograd, ...) in arrival order; `result` is hit, miss,
        bypass or disabled (a store of layout 2 has only `hit`)."""
        rows = self._table("cache_events", run_id, compile_id)
        for row in rows:
            if not row.get("result"):
                row["result"] = "hit" if row["hit"] else "miss"
        return rows

    # Layout 3's tables are read as empty where a store of that layout predates them.
    def cache_key_components(self, run_id: int, seq: int) -> dict[str, dict[str, Any]]:
        """name -> {hash, value} of one lookup's key (the cache_events row's `seq`): its
        cache_keys row, or in a store written before that table its cache_key_components."""
        if self._has_table("cache_keys"):
            row = self.conn.execute(f"SELECT {self._cache_keys} FROM cache_keys WHERE"
                                    " run_id = ? AND seq = ?", (run_id, seq)).fetchone()
            if row is not None:
                return {name: {"hash": h, "value": value}
                        for name, h, value in json.loads(row[0] or "[]")}
        if not self._has_table("cache_key_components"):
            return {}
        return {r["name"]: {"hash": r["hash"], "value": r["value"]} for r in self._rows(
            "SELECT name, hash, value FROM cache_key_components WHERE run_id = ? AND seq = ?"
            " ORDER BY rowid", (run_id, seq))}

    def earlier_cache_events(self, run_id: int, cache: str, co_name: str | None,
                             filename: str | None, lineno: int | None, *,
                             generation: int = 0) -> list[dict[str, Any]]:
        """Lookups of one cache by compiles of the same function at the same place (name,
        file, first line) in runs before `run_id`, earliest run first, then those of `run_id`
        itself before `generation` (compiles before a torch._dynamo.reset())."""
        rows = self._rows(
            "SELECT e.* FROM cache_events e JOIN compiles c ON c.run_id = e.run_id AND"
            " c.compile_id = e.compile_id WHERE e.run_id <= ? AND e.cache = ? AND"
            " c.co_name IS ? AND c.filename IS ? AND c.lineno IS ? ORDER BY e.run_id, e.id",
            (run_id, cache, co_name, filename, lineno))
        return [r for r in rows if r["run_id"] < run_id
                or compile_generation(r["compile_id"]) < generation]

    def cache_entry_origin(self, run_id: int, cache: str, key: str, before_id: int
                           ) -> dict[str, Any] | None:
        """The lookup that made the cache entry `key` (a miss: that compile ran the stage the
        entry caches), latest first: in a run before `run_id`, or in `run_id` before the
        lookup `before_id`. {run_id, compile_id, id}; None when this store never saw it made."""
        rows = self._rows(
            "SELECT run_id, compile_id, id FROM cache_events WHERE cache = ? AND key = ? AND"
            " (result = 'miss' OR result IS NULL AND hit = 0) AND (run_id < ? OR (run_id = ? AND"
            " id < ?))"
            " ORDER BY run_id DESC, id DESC LIMIT 1", (cache, key, run_id, run_id, before_id))
        return rows[0] if rows else None

    def dynamo_resets(self, run_id: int) -> dict[int, dict[str, Any]]:
        """generation -> the torch._dynamo.reset() that began it ({filename, lineno, line},
        None where an imported log only showed a compile id repeating); the last one of a
        generation when several resets separated no compile."""
        if not self._has_table("dynamo_resets"):
            return {}
        return {r["generation"]: r for r in self._rows(
            "SELECT generation, filename, lineno, line FROM dynamo_resets WHERE run_id = ?"
            " AND generation > 0 ORDER BY seq", (run_id,))}

    def compile_stages(self, run_id: int) -> dict[str, dict[str, float]]:
        """compile id -> {stage: seconds} of its wall time ('unaccounted' included)."""
        out: dict[str, dict[str, float]] = {}
        if not self._has_table("compile_stages"):
            return out
        for r in self._rows("SELECT compile_id, stage, seconds FROM compile_stages WHERE"
                            " run_id = ?", (run_id,)):
            out.setdefault(r["compile_id"], {})[r["stage"]] = r["seconds"]
        return out

    def compile_events(self, run_id: int) -> list[dict[str, Any]]:
        """The closed chromium regions and instants of every compile, in start order."""
        if not self._has_table("compile_events"):
            return []
        rows = self._rows("SELECT compile_id, name, cat, start_us, dur_us, depth, stage, args"
                          " FROM compile_events WHERE run_id = ? ORDER BY start_us, depth",
                          (run_id,))
        for row in rows:  # ingest leaves out the args' compile id where it is the row's
            if isinstance(row["args"], dict):
                row["args"].setdefault("compile_id", row["compile_id"])
        return rows

    def compile_event_count(self, run_id: int, name: str) -> int:
        """How many closed regions of one name the run's compiles have."""
        if not self._has_table("compile_events"):
            return 0
        return int(self._scalar("SELECT count(*) FROM compile_events WHERE run_id = ? AND"
                                " name = ?", (run_id, name)) or 0)

    def guard_sources(self, run_id: int, compile_id: str) -> dict[str, int]:
        """source -> leaf guards of the compile's last guard tree."""
        if not self._has_table("guard_sources"):
            return {}
        return {r["source"]: r["guards"] for r in self._of_last_record(
            "guard_sources", "source, guards", run_id, compile_id)}

    def accuracy(self, run_id: int, compile_id: str | None = None, *,
                 not_compared: bool = False) -> list[dict[str, Any]]:
        """The outputs --check-accuracy compared; `not_compared`: instead, one row per graph
        whose check could not run (verdict NOT_COMPARED, its error), which compared nothing."""
        rows = self._table("accuracy", run_id, compile_id)
        for row in rows:
            try:
                row["detail"] = json.loads(row["detail"]) if row["detail"] else {}
            except ValueError:
                row["detail"] = {"raw": row["detail"]}
        return [r for r in rows if not_compared == (isinstance(r["detail"], dict) and
                                                    r["detail"].get("verdict") == NOT_COMPARED)]

    def kernels(self, run_id: int, compile_id: str | None = None, *,
                with_source: bool = True) -> list[dict[str, Any]]:
        k = self._kernel  # texts store/blobs.py may keep elsewhere, put back
        cols = (f"id, run_id, compile_id, name, backend, "
                f"{k['source'] + ', ' if with_source else ''}{k['fx_nodes']}, fused_ops, "
                f"{k['user_lines']}")
        where = "run_id = ?" + ("" if compile_id is None else " AND compile_id = ?")
        params = (run_id,) if compile_id is None else (run_id, compile_id)
        return self._rows(f"SELECT {cols} FROM kernels WHERE {where} ORDER BY id", params)

    def kernel_source(self, run_id: int, kernel_id: int) -> str | None:
        """One kernel's source, fetched alone (listings use `kernels(with_source=False)`)."""
        rows = self._rows(f"SELECT {self._kernel['source']} FROM kernels WHERE run_id = ?"
                          " AND id = ?", (run_id, kernel_id))
        return rows[0]["source"] if rows else None

    def tensors(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        return self._table("tensors", run_id, compile_id)

    # -- facts stored at ingest for the analyses (schema 2) -----------------------------------
    def recompile_events(self, run_id: int) -> list[dict[str, Any]]:
        """One event per recompiled compile id (the failed guard, classified). An event from
        compilation_metrics stands for its compile and every attempt of it; one read from
        the recompile_reasons rows only where no compile of that frame count had metrics."""
        rows = self.recompile_guards(run_id)
        have = {first_attempt(r["compile_id"]) for r in rows if r["source"] == "metrics"}
        return [r for r in rows if r["source"] == "metrics"
                or first_attempt(r["compile_id"]) not in have]

    def recompile_guards(self, run_id: int) -> list[dict[str, Any]]:
        """Every failed guard stored for each recompile, from both of torch's records of it
        (compilation_metrics names the first reason torch lists, the recompile_reasons rows
        another cache entry's): a recompile lists one failed guard per cache entry."""
        rows = self._rows("SELECT * FROM recompile_events WHERE run_id = ? ORDER BY seq",
                          (run_id,))
        rows.sort(key=lambda r: compile_id_key(r["compile_id"]))
        return rows

    def compile_stacks(self, run_id: int) -> dict[str, list[dict[str, Any]]]:
        """compile id -> the Python stack when that compile started (dynamo_start)."""
        return {r["compile_id"]: r["frames"] for r in
                self._rows(f"SELECT compile_id, {self._stack} AS frames FROM compile_stacks"
                           " WHERE run_id = ?",
                           (run_id,))}

    def call_stacks(self, run_id: int) -> dict[str, dict[str, Any]]:
        """compile id -> {frames, objects}: the user's call that started it (none in a
        store an older compdiag wrote)."""
        if not self._has_table("call_stacks"):
            return {}
        wraps = "wraps" if self._has_column("call_stacks", "wraps") else "NULL AS wraps"
        return {r.pop("compile_id"): r for r in self._rows(
            f"SELECT compile_id, frames, objects, {wraps} FROM call_stacks WHERE run_id = ?",
            (run_id,))}

    def shape_specializations(self, run_id: int) -> list[dict[str, Any]]:
        """Symbols Dynamo specialised to a constant, in order of arrival."""
        if not self._has_table("shape_specializations"):
            return []
        return self._rows("SELECT * FROM shape_specializations WHERE run_id = ? ORDER BY seq",
                          (run_id,))

    def unbacked_symbols(self, run_id: int, compile_id: str | None) -> list[dict[str, Any]]:
        """The unbacked symbols a compile made, in order: {symbol, op, filename, lineno,
        line}."""
        if not self._has_table("unbacked_symbols"):
            return []
        return self._rows("SELECT symbol, op, filename, lineno, line FROM unbacked_symbols "
                          "WHERE run_id = ? AND compile_id IS ? ORDER BY seq",
                          (run_id, compile_id))

    def _of_last_record(self, table: str, cols: str, run_id: int, compile_id: str | None,
                        where: str = "", params: tuple = ()) -> list[dict[str, Any]]:
        """Rows derived from the compile's last record of their kind (`seq`): a compile may
        log a graph, its guards or its output code more than once; the last one holds."""
        return self._rows(
            f"SELECT {cols} FROM {table} WHERE run_id = ? AND compile_id IS ? AND seq = "
            f"(SELECT max(seq) FROM {table} WHERE run_id = ? AND compile_id IS ?){where} "
            "ORDER BY rowid", (run_id, compile_id, run_id, compile_id, *params))

    def guard_value(self, run_id: int, compile_id: str, guarded: str) -> str | None:
        """The value the compile's last guard tree holds for `guarded == V`, if it has one."""
        rows = self._of_last_record("guard_values", "value", run_id, compile_id,
                                    " AND guarded = ?", (guarded,))
        return rows[0]["value"] if rows else None

    def guard_values(self, run_id: int, compile_id: str) -> dict[str, str | None]:
        """Every `guarded == V` of the compile's last guard tree: guarded -> V."""
        return {r["guarded"]: r["value"] for r in self._of_last_record(
            "guard_values", "guarded, value", run_id, compile_id)}

    def graph_nodes(self, run_id: int, compile_id: str | None) -> list[dict[str, Any]]:
        """The nodes of the compile's last post-grad graph, in graph order."""
        meta = "meta" if self._has_column("graph_nodes", "meta") else "NULL AS meta"
        stack = "stack" if self._has_column("graph_nodes", "stack") else "NULL AS stack"
        return self._of_last_record("graph_nodes", f"node, op, target, {meta}, filename, lineno,"
                                    f" line, {stack}", run_id, compile_id)

    def every_graph_nodes(self, run_id: int, compile_id: str | None, prefix: str = ""
                          ) -> list[dict[str, Any]]:
        """The nodes of every post-grad graph of the compile (its forward's, then its
        backward's), in graph order; with `prefix`, those whose target starts with it."""
        stack = "stack" if self._has_column("graph_nodes", "stack") else "NULL AS stack"
        where, params = ("AND target LIKE ? ESCAPE '\\' ",
                         (prefix.replace("_", "\\_") + "%",)) if prefix else ("", ())
        return self._rows(f"SELECT node, op, target, filename, lineno, line, {stack} "
                          f"FROM graph_nodes WHERE run_id = ? AND compile_id IS ? {where}"
                          "ORDER BY seq, rowid", (run_id, compile_id, *params))

    def dynamo_nodes(self, run_id: int, compile_id: str | None) -> list[dict[str, Any]]:
        """The nodes of the compile's last Dynamo graph, each at its user line (any backend)."""
        if not self._has_table("dynamo_nodes"):
            return []
        return self._of_last_record("dynamo_nodes", "node, call, filename, lineno, line",
                                    run_id, compile_id)

    def traced_filenames(self, run_id: int) -> set[str]:
        """Every file Dynamo traced in this run: its compiled frames' and its graphs' nodes'.
        A post-grad graph or kernel served from the FX graph cache may name another program's
        file (the entry's writer); Dynamo's own graph is always this run's."""
        sql = "SELECT DISTINCT filename FROM compiles WHERE run_id = ? AND filename IS NOT NULL"
        if self._has_table("dynamo_nodes"):
            sql += (" UNION SELECT DISTINCT filename FROM dynamo_nodes WHERE run_id = ? "
                    "AND filename IS NOT NULL")
            rows = self.conn.execute(sql, (run_id, run_id))
        else:
            rows = self.conn.execute(sql, (run_id,))
        return {r[0] for r in rows}

    def perf_hints(self, run_id: int) -> list[dict[str, Any]]:
        return self._rows("SELECT * FROM perf_hints WHERE run_id = ? ORDER BY id", (run_id,))

    def injected_bugs(self, run_id: int) -> list[dict[str, Any]]:
        """Inductor *_TESTING_ONLY injectors per compile: {compile_id, config, value}."""
        rows = self._rows("SELECT compile_id, config, value FROM injected_bugs WHERE run_id = ?"
                          " ORDER BY rowid", (run_id,))
        for row in rows:
            try:
                row["value"] = json.loads(row["value"])
            except (TypeError, ValueError):
                pass
        return rows

    def fallback_calls(self, run_id: int, compile_id: str) -> list[str]:
        """ATen ops the compile's last output code calls directly (fallback kernels)."""
        return [r["op"] for r in self._of_last_record("fallback_calls", "op", run_id,
                                                      compile_id)]

    def sched_nodes(self, run_id: int, compile_id: str | None) -> dict[str, dict[str, Any]]:
        """Scheduler node name -> {origins, frames} for one compile (fusion candidates)."""
        return {r["name"]: r for r in self._rows(
            f"SELECT name, origins, {self._frames} AS frames FROM sched_nodes WHERE run_id = ?"
            " AND compile_id IS ?", (run_id, compile_id))}

    # -- the user's source files (store 4: ingest/sources.py) -------------------------------
    def source_paths(self, run_id: int) -> set[str]:
        """The paths of the user files whose text the run keeps."""
        cache = self.__dict__.setdefault("_source_paths", {})
        if run_id not in cache:
            cache[run_id] = ({r["path"] for r in self._rows(
                "SELECT path FROM sources WHERE run_id = ?", (run_id,))}
                if self._has_table("sources") else set())
        return cache[run_id]

    def source_text(self, run_id: int, path: str | None) -> str | None:
        """A user file's text as the run kept it (ingest/sources.py), or None when the run
        keeps no text for it. What analyses and views quote of the user's code: never the
        file, which may have changed or moved since (issue 29 §1)."""
        if not path or path not in self.source_paths(run_id):
            return None
        cache = self.__dict__.setdefault("_sources", {})
        if (run_id, path) not in cache:
            expr = blobs.text_sql("sources", "text")
            cache[(run_id, path)] = self._scalar(
                f"SELECT {expr} FROM sources WHERE run_id = ? AND path = ?", (run_id, path))
        return cache[(run_id, path)]

    def source_lines(self, run_id: int, path: str | None) -> list[str] | None:
        """source_text's lines (without their ends), or None."""
        text = self.source_text(run_id, path)
        return None if text is None else _file_lines(text)

    def source_line(self, run_id: int, path: str | None, lineno: int | None) -> str | None:
        """Line `lineno` (1-based) of a kept user file, its text as written (no newline), or
        None when the run keeps no such line."""
        lines = self.source_lines(run_id, path)
        if lines is None or not lineno or not 1 <= int(lineno) <= len(lines):
            return None
        return lines[int(lineno) - 1]
