"""The Reader's raw records: the envelopes and payloads capture or import kept verbatim
(payloads fetched only when asked for), their search, and what they take in the store."""

from __future__ import annotations

import sqlite3
from typing import Any, Iterator

from compdiag.store import blobs
from compdiag.store.read_base import ReaderBase, _decode
from compdiag.store.schema import StoreError


class RecordsReader(ReaderBase):
    def records(self, run_id: int, *, kind: str | None = None, compile_id: str | None = None,
                with_payload: bool = True) -> Iterator[dict[str, Any]]:
        # With the payload, has_payload is put back here, from the payload read once.
        restore = with_payload and self._hashes
        cols = (f"id, run_id, seq, kind, compile_id, "
                f"{self._metadata_stored if restore else self._metadata} AS metadata")
        if with_payload:
            cols += f", {self._payload} AS payload"
        if restore:
            cols += f", {blobs.HASH_FLAG}"
        sql = f"SELECT {cols} FROM records WHERE run_id = ?"
        params: list[Any] = [run_id]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        if compile_id is not None:
            sql += " AND compile_id = ?"
            params.append(compile_id)
        sql += " ORDER BY seq"
        try:
            for row in self.conn.execute(sql, params):
                rec = dict(row)
                if restore and rec.pop(blobs.HASH_FLAG) == 1:
                    rec["metadata"] = blobs.put_payload_md5(rec["metadata"], rec["payload"])
                yield _decode(rec)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the store ({exc})") from None

    def record_kinds(self, run_id: int, compile_id: str | None = None) -> list[dict[str, Any]]:
        """Which record kinds exist (with counts), without touching payloads."""
        sql = "SELECT kind, count(*) AS n FROM records WHERE run_id = ?"
        params: tuple = (run_id,)
        if compile_id is not None:
            sql += " AND compile_id = ?"
            params = (run_id, compile_id)
        return self._rows(sql + " GROUP BY kind ORDER BY kind", params)

    def compile_record_kinds(self, run_id: int, compile_id: str) -> list[dict[str, Any]]:
        """record_kinds for one compile id, pinned to the (run_id, compile_id) index: SQLite
        otherwise walks every record of the run in kind order (80 ms on a 1,200-compile run)."""
        return self._rows("SELECT kind, count(*) AS n FROM records INDEXED BY records_run_cid"
                          " WHERE run_id = ? AND compile_id = ? GROUP BY kind ORDER BY kind",
                          (run_id, compile_id))

    def artifact(self, run_id: int, compile_id: str | None, kind: str) -> str | None:
        """The last payload of one record kind for one compile id (e.g. a graph or code)."""
        sql = f"SELECT {self._payload} FROM records WHERE run_id = ? AND kind = ? AND "
        if compile_id is None:
            return self._scalar(sql + "compile_id IS NULL ORDER BY seq DESC LIMIT 1",
                                (run_id, kind))
        return self._scalar(sql + "compile_id = ? ORDER BY seq DESC LIMIT 1",
                            (run_id, kind, compile_id))

    def search(self, run_id: int, text: str, limit: int = 200) -> list[dict[str, Any]]:
        """Records whose payload or envelope mentions `text` (for the TUI's / search)."""
        like = f"%{text}%"
        # The has_payload store/blobs.py leaves out is put back (a payload's md5 again) only
        # where the text could be in it.
        meta = self._metadata if set(text.lower()) <= _IN_HASH else self._metadata_stored
        return self._rows(
            "SELECT id, kind, compile_id, substr(payload, max(1, instr(payload, ?) - 60), 160)"
            f" AS excerpt FROM (SELECT id, kind, compile_id, seq, {self._payload} AS payload,"
            f" {meta} AS metadata FROM records WHERE run_id = ?)"
            " WHERE (payload LIKE ? OR metadata LIKE ?)"
            " ORDER BY seq LIMIT ?", (text, run_id, like, like, limit))

    def record_bytes(self, run_id: int) -> dict[str, int]:
        """What a run's records take in the store against their raw text (UTF-8 bytes of
        envelopes and payloads, as a trace log holds them): `stored` counts the texts kept in
        the rows (compressed or not) and each shared blob the run names once, at its stored
        size; `raw` every text at its full size, as often as the records hold it."""
        try:
            return self._record_bytes(run_id)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the store ({exc})") from None

    def _record_bytes(self, run_id: int) -> dict[str, int]:
        inline = ("coalesce(sum(length(CAST(metadata AS BLOB))), 0) +"
                  " coalesce(sum(length(CAST(payload AS BLOB))), 0)")
        if self._payload == "payload":  # a store written before blobs
            n = int(self._scalar(f"SELECT {inline} FROM records WHERE run_id = ?", (run_id,)))
            return {"stored": n, "raw": n}
        stored = raw = 0
        for col in ("payload_blob", "metadata_blob"):
            packed, full = self.conn.execute(
                f"SELECT coalesce(sum(length({col})), 0), coalesce(sum(length(CAST("
                f"{blobs.TEXT_FN}({blobs.ZDICT}, {col}) AS BLOB))), 0) FROM records"
                f" WHERE run_id = ? AND typeof({col}) = 'blob'", (run_id,)).fetchone()
            shared = self.conn.execute(
                f"SELECT coalesce(sum(b.size), 0) FROM records r JOIN blobs b ON b.hash ="
                f" r.{col} WHERE r.run_id = ? AND typeof(r.{col}) = 'text'", (run_id,)
            ).fetchone()[0]
            stored, raw = stored + int(packed), raw + int(full) + int(shared)
        named = ("SELECT payload_blob FROM records WHERE run_id = ? AND typeof(payload_blob) ="
                 " 'text' UNION SELECT metadata_blob FROM records WHERE run_id = ? AND"
                 " typeof(metadata_blob) = 'text'")
        stored += int(self._scalar(f"SELECT coalesce(sum(length(data)), 0) FROM blobs WHERE"
                                   f" hash IN ({named})", (run_id, run_id)))
        n = int(self._scalar(f"SELECT {inline} FROM records WHERE run_id = ?", (run_id,)))
        if self._hashes:  # each envelope's has_payload, left out and put back on read
            raw += blobs.HASH_BYTES * int(self._scalar(
                f"SELECT count(*) FROM records WHERE run_id = ? AND {blobs.HASH_FLAG} = 1",
                (run_id,)))
        return {"stored": stored + n, "raw": raw + n}

    def counts(self, run_id: int) -> dict[str, int]:
        out = {}
        for table in ("compiles", "graph_breaks", "recompiles", "failures", "kernels",
                      "fusion", "cudagraphs", "accuracy", "records"):
            out[table] = self._scalar(f"SELECT count(*) FROM {table} WHERE run_id = ?",
                                      (run_id,))
        # torch lists one failed guard per cache entry, so the 8th recompile of a function
        # brings 8 reasons: a recompile is a compile that has any (probes31: "36 recompiles"
        # in the run's summary where torch made 8)
        out["recompile_reasons"] = out["recompiles"]
        out["recompiles"] = self._scalar(
            "SELECT count(DISTINCT compile_id) FROM recompiles WHERE run_id = ?", (run_id,))
        # a frame whose compile failed made no graph: its code ran in eager (probes39c: "1
        # compile" said of a forward Dynamo gave up on)
        out["failed_compiles"] = self._scalar(
            "SELECT count(*) FROM compiles WHERE run_id = ? AND status = 'failed'", (run_id,))
        out["cudagraph_skips"] = self._scalar(
            "SELECT count(*) FROM cudagraphs WHERE run_id = ? AND applied = 0", (run_id,))
        # a compiled graph whose outputs differ from eager's is stored as a failure row of
        # stage `accuracy` (the exception a check gate raises) but is no exception the
        # program met: counted apart, never as a failure (probes26: "1 failure")
        out["accuracy_mismatches"] = self._scalar(
            "SELECT count(*) FROM failures WHERE run_id = ? AND stage = 'accuracy'", (run_id,))
        out["failures"] -= out["accuracy_mismatches"]
        return out


# What `, "has_payload": "<md5>"` is made of (Reader.search).
_IN_HASH = set(', "has_payload": "0123456789abcdef')
