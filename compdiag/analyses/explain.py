"""`compdiag explain`: ranked diagnoses of one run, each pointing at the user's own line with a
concrete fix.

Reads the store through the Reader API only. Graph-break explanations and hints come from the
records torch wrote and from the installed torch's `graph_break_registry.json` (read at run
time, never copied); the fixes for the common causes are compdiag's own rules (`fixes.py`).

A diagnosis is a dict (DESIGN.md):
    {kind, stage, compile_id, gb_code, reason, user_frame: {filename, lineno, line},
     explanation, fix}
plus `count`, `compile_ids`, `hints`, `details` and `score` (the rank key, higher first).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import linecache
import os
import re
from pathlib import Path
from typing import Any, Iterable

from compdiag.analyses import fixes as F
from compdiag.formats.user_code import frames_in, is_user_file
from compdiag.ingest import parsers as P
from compdiag.store.reader import Reader, compile_id_key

# Rank bands: a crash beats everything, then a function stuck in eager by the recompile
# limit, wrong numbers, graph breaks (ordered by cost), recompiles, CUDA-graph skips, perf.
SCORE = {"crash": 1000, "limit": 900, "failure": 800, "accuracy": 700, "graph_break": 300,
         "recompile": 200, "cudagraph": 250, "fusion": 100, "perf": 110}


# -- the graph-break registry ------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def gb_registry() -> dict[str, dict[str, Any]]:
    """GB code -> {Gb_type, Explanation, Hints} from the installed torch (without importing it)."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return {}
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(list(spec.submodule_search_locations)[0]) / "_dynamo" / "graph_break_registry.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    out = {}
    for code, entries in data.items():
        if isinstance(entries, list) and entries and isinstance(entries[-1], dict):
            out[code.upper()] = entries[-1]
    return out


# -- user frames ---------------------------------------------------------------------------
class _Ctx:
    """Per-run lookups shared by the analyses."""

    def __init__(self, reader: Reader, run_id: int) -> None:
        self.r = reader
        self.run_id = run_id
        self.run = reader.run(run_id)
        self.cwd = self.run.get("cwd")
        self.compiles = {c["compile_id"]: c for c in reader.compiles(run_id)}
        self.frame_rows: dict[Any, dict[str, Any]] = {}
        for c in self.compiles.values():
            if c.get("co_name") and c.get("frame") not in self.frame_rows:
                self.frame_rows[c.get("frame")] = c
        self._strings: dict[int, str] | None = None
        self._starts: dict[str, list[dict[str, Any]]] | None = None

    def resolve(self, filename: str | None) -> str | None:
        if filename and not os.path.isabs(filename) and not filename.startswith("<") and self.cwd:
            cand = os.path.join(self.cwd, filename)
            if os.path.exists(cand):
                return os.path.normpath(cand)
        return filename

    def frame(self, filename: str | None, lineno: int | None, line: str | None = None
              ) -> dict[str, Any]:
        filename = self.resolve(filename)
        if not line and filename and lineno:
            line = linecache.getline(filename, int(lineno)).strip() or None
        return {"filename": filename, "lineno": lineno, "line": line}

    def code_row(self, cid: str | None) -> dict[str, Any] | None:
        """The compile row naming the code object (an attempt or a failed compile may not)."""
        row = self.compiles.get(cid or "")
        if row and row.get("co_name"):
            return row
        if row is not None:
            return self.frame_rows.get(row.get("frame"))
        if cid:
            m = re.match(r"^!?(?:\d+/)?(\d+)/", cid)
            if m:
                return self.frame_rows.get(int(m.group(1)))
        return None

    def start_stack(self, cid: str | None) -> list[dict[str, Any]]:
        """The Python stack at compile start (dynamo_start), file names resolved."""
        if self._starts is None:
            self._strings = {}
            for rec in self.r.records(self.run_id, kind="str", with_payload=False):
                value = rec["metadata"].get("str") if isinstance(rec["metadata"], dict) else None
                if isinstance(value, list) and len(value) == 2 and isinstance(value[1], int):
                    self._strings[value[1]] = str(value[0])
            self._starts = {}
            for rec in self.r.records(self.run_id, kind="dynamo_start", with_payload=False):
                md = rec["metadata"] if isinstance(rec["metadata"], dict) else {}
                stack = (md.get("dynamo_start") or {}).get("stack") or []
                frames = []
                for f in stack:
                    if not isinstance(f, dict):
                        continue
                    fn = f.get("filename")
                    if isinstance(fn, int):
                        fn = self._strings.get(fn)
                    frames.append({"filename": fn, "lineno": f.get("line"),
                                   "line": f.get("loc") or None, "name": f.get("name")})
                self._starts[rec["compile_id"]] = frames
        if cid in self._starts:
            return self._starts[cid]
        base = (cid or "").split("_")[0]
        return self._starts.get(base, [])

    def user_frame(self, *candidates: Iterable[dict[str, Any]] | dict[str, Any] | None,
                   cid: str | None = None) -> dict[str, Any]:
        """The first user frame among the candidates (each a frame or a list searched from
        the innermost), then the compiled function if it is user code, then the user's call
        that started the compile."""
        for cand in candidates:
            if cand is None:
                continue
            frames = [cand] if isinstance(cand, dict) else list(cand)
            for f in reversed(frames):
                fn = self.resolve(f.get("filename"))
                if fn and not os.path.isabs(fn) and not os.path.exists(fn):
                    continue  # a path torch shortened (nn/modules/x.py), not the user's file
                if is_user_file(fn) and f.get("lineno"):
                    return self.frame(fn, f.get("lineno"), f.get("line"))
        row = self.code_row(cid)
        if row and is_user_file(self.resolve(row.get("filename"))) and row.get("lineno"):
            return self.frame(row["filename"], row["lineno"])
        for f in reversed(self.start_stack(cid)):
            fn = self.resolve(f.get("filename"))
            if is_user_file(fn) and f.get("lineno"):
                return self.frame(fn, f["lineno"], f.get("line"))
        return {"filename": None, "lineno": None, "line": None}

    def fn_name(self, cid: str | None) -> str | None:
        row = self.code_row(cid)
        return row.get("co_name") if row else None


def _diag(kind: str, *, stage: str | None, compile_id: str | None, reason: str,
          user_frame: dict[str, Any], explanation: str | None, fix: str, score: float,
          gb_code: str | None = None, hints: list[str] | None = None, count: int = 1,
          compile_ids: list[str] | None = None, details: dict[str, Any] | None = None
          ) -> dict[str, Any]:
    return {"kind": kind, "stage": stage, "compile_id": compile_id, "gb_code": gb_code,
            "reason": reason, "user_frame": user_frame, "explanation": explanation, "fix": fix,
            "hints": hints or [], "count": count,
            "compile_ids": compile_ids or ([compile_id] if compile_id else []),
            "details": details or {}, "score": round(score, 3)}


# -- graph breaks ------------------------------------------------------------------------------
_WRAPPER = "Failed to handle graph break gracefully"
_DEBUG_CTX = re.compile(r"Developer debug context:\s*(.*)")


def parse_break_payload(payload: str) -> dict[str, Any]:
    """What a dynamo_graph_break_reason record says beyond the stored row: the inner graph-break
    type under Dynamo's 'failed gracefully' wrapper, the debug context, the user traceback."""
    info = P.parse_graph_break(payload)
    inner = None
    lines = payload.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Graph Break Reason:") and _WRAPPER in line:
            for nxt in lines[i + 1:]:
                if nxt.strip():
                    inner = nxt.strip()
                    break
            break
    m = _DEBUG_CTX.search(payload.split("User code traceback:", 1)[0])
    user_tb = ""
    if "User code traceback:" in payload:
        user_tb = payload.split("User code traceback:", 1)[1]
        user_tb = user_tb.split("Traceback (most recent call last)", 1)[0]
    return {"gb_type_inner": inner, "explanation": info["explanation"], "hints": info["hints"],
            "debug_context": m.group(1).strip() if m else "", "frames": frames_in(user_tb),
            "skipped_frame": _WRAPPER in payload or "Skipping frame" in payload,
            "gb_code": info["gb_code"]}


def _graph_breaks(ctx: _Ctx) -> list[dict[str, Any]]:
    rows = ctx.r.graph_breaks(ctx.run_id)
    if not rows:
        return []
    payloads: dict[str | None, list[str]] = {}
    for rec in ctx.r.records(ctx.run_id, kind="artifact:dynamo_graph_break_reason"):
        if rec.get("payload"):
            payloads.setdefault(rec["compile_id"], []).append(rec["payload"])
    seen_per_cid: dict[str | None, int] = {}
    registry = gb_registry()
    groups: dict[tuple, dict[str, Any]] = {}
    order = 0
    for row in rows:
        cid = row["compile_id"]
        k = seen_per_cid.get(cid, 0)
        seen_per_cid[cid] = k + 1
        plist = payloads.get(cid, [])
        info = parse_break_payload(plist[k]) if k < len(plist) else {
            "gb_type_inner": None, "explanation": None, "hints": [], "debug_context": "",
            "frames": [], "skipped_frame": False, "gb_code": None}
        code = (row.get("gb_code") or info["gb_code"] or "").upper() or None
        entry = registry.get(code or "", {})
        reg_type = entry.get("Gb_type") or ""
        if reg_type.startswith("_") or "{" in reg_type:
            reg_type = ""  # a registry entry whose type is a code variable, not a text
        gb_type = (reg_type or info["gb_type_inner"] or row.get("gb_type") or row["reason"])
        frame = ctx.user_frame({"filename": row.get("filename"), "lineno": row.get("lineno"),
                                "line": row.get("line")}, info["frames"], cid=cid)
        key = (frame["filename"], frame["lineno"], gb_type)
        g = groups.get(key)
        if g is None:
            order += 1
            g = groups[key] = {"order": order, "rows": [], "info": info, "code": code,
                               "gb_type": gb_type, "frame": frame, "entry": entry,
                               "skipped": False, "cids": []}
        g["rows"].append(row)
        g["skipped"] = g["skipped"] or info["skipped_frame"]
        if cid and cid not in g["cids"]:
            g["cids"].append(cid)
    out = []
    n_groups = len(groups)
    for g in groups.values():
        info, entry = g["info"], g["entry"]
        explanation = info["explanation"] or entry.get("Explanation")
        hints = info["hints"] or [h for h in entry.get("Hints", []) if "{" not in h]
        if not hints and g["rows"][0].get("hints"):
            hints = list(g["rows"][0]["hints"])
        count = len(g["rows"])
        fix = F.graph_break_fix(g["gb_type"], explanation or "", info["debug_context"],
                                g["frame"].get("line") or "", hints)
        # Cost: a break that throws the whole function back to eager costs most; then how
        # often it was hit. A follow-on break of an earlier one ranks below its cause.
        score = SCORE["graph_break"] + 10 * min(count, 20) + (60 if g["skipped"] else 0)
        if n_groups > 1 and ("caused by an earlier graph break" in " ".join(hints)
                             or g["gb_type"] == "Reconstruction failure"):
            score -= 80
        score -= g["order"] * 0.01
        where = f" in {ctx.fn_name(g['cids'][0] if g['cids'] else None)}()" if g["cids"] else ""
        reason = g["gb_type"]
        short = _short_context(info["debug_context"])
        if short:
            reason += f" ({short})"
        details = {"function": ctx.fn_name(g["cids"][0]) if g["cids"] else None,
                   "frame_skipped": g["skipped"], "gb_type": g["gb_type"],
                   "debug_context": info["debug_context"]}
        if g["code"]:
            details["url"] = ("https://meta-pytorch.github.io/compile-graph-break-site/gb/"
                              f"{g['code'].lower()}.html")
        if g["skipped"]:
            explanation = ((explanation or "") + " Dynamo could not resume after this break, so "
                           f"the whole function{where} ran in eager.").strip()
        out.append(_diag("graph_break", stage="dynamo", compile_id=g["cids"][0] if g["cids"]
                         else None, reason=reason, user_frame=g["frame"],
                         explanation=explanation, fix=fix, score=score, gb_code=g["code"],
                         hints=hints, count=count, compile_ids=g["cids"], details=details))
    return out


def _short_context(ctx: str) -> str:
    """Dynamo's debug context without its VariableTracker dumps: 'builtin print', 'module:
    zlib, qualname: crc32'."""
    ctx = re.split(r"\s*\[(?:<class|\])|\s*<class", ctx or "", maxsplit=1)[0].strip()
    if not ctx or "Variable" in ctx or len(ctx) > 160:
        return ""
    return re.sub(r",?\s*skip reason:.*$", "", ctx)


# -- recompiles --------------------------------------------------------------------------------
_EXPECTED = re.compile(r"expected (?P<before>[^,]+?), actual (?P<after>\S+)")
_EQ_GUARD = re.compile(r"^(?P<lhs>.+?)\s*==\s*(?P<value>.+?)\s*(?:#.*)?$")
_GUARD_LOC = re.compile(r"#\s*(?P<code>.*?)\s+#\s*(?P<file>[^#:]+):(?P<line>\d+) in (?P<fn>\S+)\s*$")


def _split_recompile(text: str) -> tuple[str, list[dict[str, Any]]]:
    """'0/0: guard  # code  # file:line in fn\\nUser stack trace: ...' -> (guard, frames)."""
    text = P._CID_PREFIX.sub("", text).strip()
    head, _, stack = text.partition("User stack trace:")
    return head.strip().splitlines()[0].strip() if head.strip() else text, frames_in(stack)


def _recompile_events(ctx: _Ctx) -> list[dict[str, Any]]:
    """One event per recompiled compile id: the guard that failed against the newest entry."""
    events = []
    have = set()
    for cid, c in ctx.compiles.items():
        m = c.get("metrics") or {}
        reason = m.get("recompile_reason") if isinstance(m, dict) else None
        if isinstance(reason, list):
            reason = reason[0] if reason else None
        if reason:
            guard_text, frames = _split_recompile(str(reason))
            events.append({"cid": cid, "text": guard_text, "frames": frames})
            have.add(cid.split("_")[0])
    rows_by_cid: dict[str | None, list[dict[str, Any]]] = {}
    for row in ctx.r.recompiles(ctx.run_id):
        rows_by_cid.setdefault(row["compile_id"], []).append(row)
    for cid, rows in rows_by_cid.items():
        if (cid or "").split("_")[0] in have:
            continue
        # Without metrics (an import of a partial log): the first real reason of the rows.
        full = [r for r in rows if "User stack trace:" in r["reason"]] or [
            r for r in rows if not r["reason"].startswith(("User stack trace", "File "))]
        if full:
            guard_text, frames = _split_recompile(full[0]["reason"])
            events.append({"cid": cid, "text": guard_text, "frames": frames})
    events.sort(key=lambda e: compile_id_key(e["cid"]))
    return events


def classify_guard(text: str) -> dict[str, Any]:
    """A failed guard as {category, source, before, after}."""
    t = text.strip()
    code_part = t.split("#", 1)[0].strip()
    m = P._SIZE_MISMATCH.search(t)
    if m:
        ex = _EXPECTED.search(t)
        return {"category": "size" if m.group(2) == "size" else "stride",
                "source": P.guard_of(t), "tensor": m.group(1),
                "before": ex.group("before") if ex else None,
                "after": ex.group("after") if ex else None}
    m = re.search(r"tensor '(.+?)' (dtype|device|requires_grad|dispatch key set|rank)"
                  r"(?: mismatch)?", t)
    if m:
        ex = _EXPECTED.search(t)
        before = ex.group("before") if ex else None
        after = ex.group("after") if ex else None
        if m.group(2) == "requires_grad":
            rg = re.search(r"requires_grad=(\d)", t)
            if rg:
                before = "requires_grad=" + ("True" if rg.group(1) == "1" else "False")
                after = "requires_grad=" + ("False" if rg.group(1) == "1" else "True")
        return {"category": m.group(2).replace(" ", "_"), "source": f"L['{m.group(1)}']",
                "tensor": m.group(1), "before": before, "after": after}
    if t.startswith("GLOBAL_STATE"):
        what = t.split(":", 1)[1].strip() if ":" in t else "global state"
        return {"category": "global_state", "source": what, "before": None, "after": None}
    m = _EQ_GUARD.match(code_part)
    if m:
        lhs, value = m.group("lhs").strip(), m.group("value").strip()
        if lhs.endswith(".training"):
            cat = "training"
        elif lhs.startswith("len("):
            cat = "length"
        elif lhs.startswith("G[") or lhs.startswith("___as_tensor(G") :
            cat = "global"
        else:
            cat = "value"
        return {"category": cat, "source": lhs, "before": value, "after": None}
    if "ID_MATCH" in t or "___check_obj_id" in t or " is " in code_part:
        src = re.search(r"\((.+?),", code_part)
        return {"category": "identity", "source": src.group(1) if src else code_part,
                "before": None, "after": None}
    if "TYPE_MATCH" in t or "___check_type_id" in t:
        src = re.search(r"\((.+?),", code_part)
        return {"category": "type", "source": src.group(1) if src else code_part,
                "before": None, "after": None}
    return {"category": "other", "source": code_part[:120], "before": None, "after": None}


def _after_value(ctx: _Ctx, cid: str, source: str) -> str | None:
    """The value the guard holds in the recompiled entry (its own guards), when it is one."""
    text = ctx.r.artifact(ctx.run_id, cid, "dynamo_cpp_guards_str")
    if not text:
        return None
    pat = re.compile(r"(?:^|[\s(:])" + re.escape(source) + r"\s*==\s*(.+)$")
    for line in text.splitlines():
        m = pat.search(line.split("  #", 1)[0].rstrip())
        if m:
            return m.group(1).strip()
    return None


def _recompiles(ctx: _Ctx, limit_failures: dict[Any, dict[str, Any]]) -> list[dict[str, Any]]:
    events = _recompile_events(ctx)
    groups: dict[tuple, dict[str, Any]] = {}
    for ev in events:
        g = classify_guard(ev["text"])
        row = ctx.code_row(ev["cid"])
        frame_no = row.get("frame") if row else ev["cid"].split("/")[0]
        key = (frame_no, g["category"], g["source"])
        grp = groups.setdefault(key, {"events": [], "guard": g, "frame_no": frame_no})
        grp["events"].append((ev, g))
    # A resume function (after a graph break) recompiles for the same input change as its
    # parent function: fold it into the parent's diagnosis.
    parents = {(k[1], g["events"][0][1]["before"], g["events"][-1][1]["after"])
               for k, g in groups.items()
               if not (ctx.fn_name(g["events"][0][0]["cid"]) or "").startswith(_RESUME)}
    for key in list(groups):
        g = groups[key]
        fn = ctx.fn_name(g["events"][0][0]["cid"]) or ""
        sig = (key[1], g["events"][0][1]["before"], g["events"][-1][1]["after"])
        if fn.startswith(_RESUME) and sig in parents and key[0] not in limit_failures:
            del groups[key]
    out = []
    for (frame_no, category, source), grp in groups.items():
        evs = grp["events"]
        first_ev, first_g = evs[0]
        last_ev, last_g = evs[-1]
        count = len(evs)
        before = first_g["before"]
        after = last_g["after"]
        if after is None and category in ("value", "global", "training", "length"):
            after = _after_value(ctx, last_ev["cid"], source)
        values = [g["before"] for _, g in evs if g["before"] is not None]
        if last_g.get("after") is not None:
            values.append(last_g["after"])
        fn = ctx.fn_name(first_ev["cid"])
        frame = _recompile_frame(ctx, first_ev)
        limit = limit_failures.pop(frame_no, None)
        fix = F.recompile_fix(category, source, before, after, count=count,
                              limit=limit is not None, fn=fn)
        reason = {"size": f"size {source} changed", "stride": f"stride {source} changed",
                  "dtype": f"dtype of {source} changed", "device": f"device of {source} changed",
                  "requires_grad": f"requires_grad of {source} changed",
                  "global_state": f"global state {source} changed",
                  "training": f"train/eval mode {source} changed",
                  "global": f"global {source} changed", "value": f"Python value {source} changed",
                  "length": f"{source} changed"}.get(category, first_ev["text"][:200])
        if before is not None or after is not None:
            reason += f" ({before if before is not None else '?'} -> "
            reason += f"{after if after is not None else 'another value'})"
        explanation = F.recompile_explanation(category, source, fn, count, first_ev["text"])
        score = SCORE["recompile"] + 20 * min(count, 10)
        if limit is not None:
            score = SCORE["limit"]
            reason = (f"recompile limit hit: {fn or 'a function'}() recompiled {count} times on "
                      f"{source} and now runs in eager")
            explanation = (limit.get("explanation") or "") + " " + explanation
        out.append(_diag("recompile", stage="dynamo",
                         compile_id=((limit or {}).get("compile_id") or
                                     last_ev["cid"]).split("_")[0],
                         reason=reason, user_frame=frame, explanation=explanation.strip(),
                         fix=fix, score=score, count=count,
                         compile_ids=[e["cid"] for e, _ in evs],
                         details={"guard": source, "category": category, "before": before,
                                  "after": after, "values": values[:20], "function": fn,
                                  "failed_guard": first_ev["text"][:300],
                                  "limit_hit": limit is not None}))
    # A recompile limit with no recorded guard failure (e.g. a partial log).
    for frame_no, limit in limit_failures.items():
        fn = ctx.fn_name(limit.get("compile_id"))
        out.append(_diag("recompile", stage="dynamo", compile_id=limit.get("compile_id"),
                         reason=f"recompile limit hit: {fn or 'a function'}() now runs in eager",
                         user_frame=ctx.user_frame(cid=limit.get("compile_id")),
                         explanation=limit.get("explanation"),
                         fix=F.recompile_fix("other", "?", None, None, count=0, limit=True,
                                             fn=fn), score=SCORE["limit"],
                         details={"limit_hit": True, "function": fn}))
    return out


_RESUME = "torch_dynamo_resume_in_"


def _recompile_frame(ctx: _Ctx, ev: dict[str, Any]) -> dict[str, Any]:
    """Where in the user's code the guarded value is read (the guard's own location), else the
    recompiled function, else the user's call that started the compile."""
    loc = _GUARD_LOC.search(ev["text"])
    cands: list[Any] = [ev["frames"]]
    if loc:
        cands.insert(0, {"filename": loc.group("file"), "lineno": int(loc.group("line")),
                         "line": loc.group("code")})
    return ctx.user_frame(*cands, cid=ev["cid"])


# -- failures ----------------------------------------------------------------------------------
_LIMIT_MARKERS = ("recompile limit exceeded", "recompile_limit", "cache_size_limit",
                  "accumulated_recompile_limit")
_INNER_EXC = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Failed|Unsupported|"
                        r"Interrupt)):\s*(.+)$", re.M)


_GOT = re.compile(r"got (\w+)\((['\"])(.+?)\2\)")


def _one_line(exc_type: str | None, message: str | None, traceback: str | None) -> str:
    msg = (message or "").strip()
    got = _GOT.search(traceback or "")
    if got and "fake tensor" in msg:
        return f"{exc_type}: {got.group(1)}: {got.group(3)[:300]}"
    # Dynamo's wrappers ("backend='inductor' raised:") hide the real error on a later line.
    if traceback and (not msg or "raised:" in msg or msg.endswith(":")):
        inner = [m for m in _INNER_EXC.finditer(traceback)]
        if inner:
            m = inner[-1]
            return f"{m.group(1).split('.')[-1]}: {m.group(2).strip()[:300]}"
    head = f"{exc_type}: " if exc_type and exc_type not in msg else ""
    return (head + P.first_line(msg, 300)).strip()


def _failures(ctx: _Ctx, gb_cids: set[str]) -> tuple[list[dict[str, Any]], dict[Any, dict]]:
    out = []
    limits: dict[Any, dict[str, Any]] = {}
    crashed = (ctx.run.get("exit_code") or 0) != 0
    argv = ctx.run.get("argv") or []
    store_arg = ""
    store_path = str(ctx.r.path)
    if os.path.normpath(store_path) != os.path.normpath(os.path.join(".compdiag", "compdiag.db")):
        store_arg = f" --store {store_path}"
    rows = ctx.r.failures(ctx.run_id)
    has_accuracy_rows = bool(ctx.r.accuracy(ctx.run_id))
    for idx, f in enumerate(rows):
        cid = f["compile_id"]
        text = " ".join(x for x in (f.get("message"), f.get("traceback")) if x)
        if f.get("exc_type") == "Unsupported" and any(m in text for m in _LIMIT_MARKERS):
            row = ctx.code_row(cid)
            key = row.get("frame") if row else (cid or "").split("/")[0]
            expl = P.parse_graph_break(f.get("traceback") or "")["explanation"]
            limits[key] = {"compile_id": cid, "explanation": expl}
            continue
        if f["stage"] == "accuracy" and has_accuracy_rows:
            continue  # the accuracy diagnosis reports it, with the measured errors
        base = (cid or "").split("_")[0]
        if (f.get("exc_type") == "Unsupported" and not crashed and
                (cid in gb_cids or base in gb_cids)):
            continue  # Dynamo skipped the frame after a graph break: reported as the break
        is_last = idx == len(rows) - 1
        fatal = crashed and is_last
        tb_frames = frames_in(f.get("traceback"))
        frame = ctx.user_frame({"filename": f.get("filename"), "lineno": f.get("lineno"),
                                "line": f.get("line")}, tb_frames, cid=cid)
        one = _one_line(f.get("exc_type"), f.get("message"), f.get("traceback"))
        gb = None
        code_m = re.search(r"/gb/(gb\d{4})\.html", f.get("traceback") or "", re.I)
        if f.get("exc_type") == "Unsupported" or code_m:
            gb = (code_m.group(1).upper() if code_m else None)
        injected = _injected_bugs(ctx, cid)
        fix = F.failure_fix(f["stage"], f.get("exc_type") or "", one, run_id=ctx.run_id,
                            argv=argv, store_arg=store_arg, injected=injected,
                            gb_type=(gb_registry().get(gb or "", {}).get("Gb_type")
                                     or f.get("message") or ""),
                            debug=(_DEBUG_CTX.search(f.get("traceback") or "") or [None, ""])[1],
                            line=frame.get("line") or "")
        expl = F.stage_explanation(f["stage"], fatal)
        if gb and f.get("exc_type") == "Unsupported":
            entry = gb_registry().get(gb, {})
            e2 = P.parse_graph_break(f.get("traceback") or "")["explanation"] or entry.get(
                "Explanation")
            expl = (expl + " " + (e2 or "")).strip()
        score = SCORE["crash"] if fatal else SCORE["failure"]
        out.append(_diag("failure", stage=f["stage"], compile_id=cid, reason=one,
                         user_frame=frame, explanation=expl, fix=fix, score=score - idx * 0.01,
                         gb_code=gb, details={"exc_type": f.get("exc_type"), "fatal": fatal,
                                              "injected_bugs": injected,
                                              "function": ctx.fn_name(cid)}))
    return out, limits


def _injected_bugs(ctx: _Ctx, cid: str | None) -> dict[str, Any]:
    """Inductor's *_TESTING_ONLY bug injectors that were on for this compile (or any)."""
    rows = [ctx.compiles.get(cid or "")] if cid in ctx.compiles else list(ctx.compiles.values())
    found: dict[str, Any] = {}
    for row in rows:
        m = (row or {}).get("metrics") or {}
        cfg = m.get("inductor_config") if isinstance(m, dict) else None
        if isinstance(cfg, str):
            try:
                cfg = json.loads(cfg)
            except ValueError:
                cfg = None
        if isinstance(cfg, dict):
            for k, v in cfg.items():
                if "inject_" in k and k.endswith("TESTING_ONLY") and v not in (None, False, ""):
                    found[k] = v
    return found


# -- accuracy ----------------------------------------------------------------------------------
def _accuracy(ctx: _Ctx) -> list[dict[str, Any]]:
    """One diagnosis per compiled graph whose outputs differ from eager (the accuracy checker's
    rows), at the first divergent node's user line when the checker found it."""
    by_cid: dict[str | None, list[dict[str, Any]]] = {}
    for a in ctx.r.accuracy(ctx.run_id):
        if not a.get("ok"):
            by_cid.setdefault(a.get("compile_id"), []).append(a)
    out = []
    for cid, rows in by_cid.items():
        worst = max(rows, key=lambda a: float(a.get("max_rel") or 0))
        detail = worst.get("detail") if isinstance(worst.get("detail"), dict) else {}
        node = next((r["detail"].get("divergent_node") for r in rows
                     if isinstance(r.get("detail"), dict) and r["detail"].get("divergent_node")),
                    None) or {}
        nondet = any(isinstance(r.get("detail"), dict) and r["detail"].get(
            "eager_nondeterministic") for r in rows)
        injected = _injected_bugs(ctx, cid)
        reason = (f"compiled output {worst.get('output') or '?'} differs from eager: max abs "
                  f"{_num(worst.get('max_abs'))}, max rel {_num(worst.get('max_rel'))}")
        if detail.get("reason"):
            reason += f" ({detail['reason']})"
        if node.get("node"):
            reason += f"; first divergent node {node['node']} ({node.get('op')})"
        nf = node.get("user_frame") if isinstance(node.get("user_frame"), dict) else None
        explanation = ("The compiled graph computed different numbers than eager beyond the "
                       "tolerance" + (f", first at node {node['node']}" if node.get("node")
                                      else "") + ".")
        if nondet:
            explanation += (" Eager itself is non-deterministic on this graph, so part of the "
                            "difference may not be the compiler's.")
        out.append(_diag("accuracy", stage="accuracy", compile_id=cid, reason=reason,
                         user_frame=ctx.user_frame(nf, cid=cid), explanation=explanation,
                         fix=F.accuracy_fix(ctx.run_id, ctx.run.get("argv") or [], injected),
                         score=SCORE["accuracy"] + min(float(worst.get("max_rel") or 0), 50)
                         - (100 if nondet else 0), count=len(rows),
                         details={"output": worst.get("output"), "max_abs": worst.get("max_abs"),
                                  "max_rel": worst.get("max_rel"), "injected_bugs": injected,
                                  "divergent_node": node or None,
                                  "eager_nondeterministic": nondet}))
    return out


def _injector_accuracy(ctx: _Ctx) -> list[dict[str, Any]]:
    """An Inductor *_TESTING_ONLY injector set to 'accuracy' makes compiled code compute wrong
    numbers on purpose; the store shows it in each compile's inductor_config. This is a
    diagnosis from configuration, not a measurement (that is `compdiag check`)."""
    out = []
    by_key: dict[tuple, list[str]] = {}
    for cid in ctx.compiles:
        for key, value in _injected_bugs(ctx, cid).items():
            if value == "accuracy":
                by_key.setdefault((key, value), []).append(cid)
    for (key, value), cids in by_key.items():
        m = re.search(r"inject_(\w+?)_bug", key)
        op = m.group(1) if m else None
        frames: list[dict[str, Any]] = []
        for cid in cids:
            if op:
                frames += _op_user_lines(ctx, cid, op)
        out.append(_diag("accuracy", stage="inductor_codegen", compile_id=cids[0],
                         reason=f"Inductor bug injector {key}={value!r} was on: compiled "
                         f"{op or 'code'} deliberately computes wrong values",
                         user_frame=ctx.user_frame(frames, cid=cids[0]),
                         explanation="This testing-only config makes Inductor's C++ codegen "
                         f"emit a wrong {op or 'op'} (x + 1) so that accuracy tooling can be "
                         "tested; every compile with it on returns wrong numbers. Found in the "
                         "compile's inductor_config, not by comparing outputs.",
                         fix=f"Unset it: `torch._inductor.config.{key} = None`.",
                         score=SCORE["accuracy"] - 1, compile_ids=cids,
                         details={"config": key, "value": value}))
    return out


def _num(x: Any) -> str:
    return f"{x:.3g}" if isinstance(x, (int, float)) else "?"


_CG_OP = re.compile(r"\baten\.(\w+)\.\w+\(")


# -- CUDA graphs -------------------------------------------------------------------------------
def _cudagraphs(ctx: _Ctx) -> list[dict[str, Any]]:
    groups: dict[tuple, dict[str, Any]] = {}
    for c in ctx.r.cudagraphs(ctx.run_id):
        if c.get("applied"):
            continue
        reason = (c.get("reason") or "unknown reason").strip()
        head = reason.split("Found from", 1)[0].strip().rstrip(".")
        frames = frames_in(reason)
        if not frames:
            # Partition reasons name the op: "cpu ops (aten.sum.default(arg1_1))".
            for op in _CG_OP.findall(reason):
                frames += _op_user_lines(ctx, c.get("compile_id"), op)
        frame = ctx.user_frame(frames, cid=c.get("compile_id"))
        key = (head, frame["filename"], frame["lineno"])
        g = groups.setdefault(key, {"rows": [], "frame": frame, "head": head})
        g["rows"].append(c)
    out = []
    for g in groups.values():
        cids = [r["compile_id"] for r in g["rows"] if r.get("compile_id")]
        out.append(_diag("cudagraph", stage="inductor", compile_id=cids[0] if cids else None,
                         reason=f"CUDA graphs skipped: {g['head']}", user_frame=g["frame"],
                         explanation="mode='reduce-overhead' records the compiled graph as a "
                         "CUDA graph; this graph could not be recorded and runs without it, "
                         "paying the kernel-launch overhead on every call.",
                         fix=F.cudagraph_fix(g["head"]),
                         score=SCORE["cudagraph"] + len(g["rows"]), count=len(g["rows"]),
                         compile_ids=cids))
    return out


# -- fusion and perf hints ---------------------------------------------------------------------
def _fusion_and_perf(ctx: _Ctx) -> list[dict[str, Any]]:
    out = []
    groups: dict[tuple, dict[str, Any]] = {}
    for f in ctx.r.fusion(ctx.run_id):
        if f.get("fused") or not f.get("reason"):
            continue
        cls = F.fusion_reason_class(f["reason"])
        if cls is None:
            continue  # benign: nothing in common to fuse
        key = (f.get("compile_id"), cls)
        g = groups.setdefault(key, {"rows": [], "cls": cls})
        g["rows"].append(f)
    kernels_by_cid: dict[str | None, list[dict[str, Any]]] = {}
    if groups:
        for k in ctx.r.kernels(ctx.run_id, with_source=False):
            kernels_by_cid.setdefault(k["compile_id"], []).append(k)
    for (cid, cls), g in groups.items():
        first = g["rows"][0]
        lines = _node_user_lines(kernels_by_cid.get(cid, []), [first["node1"], first["node2"]])
        frame = ctx.user_frame(lines, cid=cid)
        title, expl, fix = F.fusion_fix(cls, first["reason"])
        out.append(_diag("fusion", stage="inductor_scheduling", compile_id=cid,
                         reason=f"{title}: cannot fuse {first['node1']} with {first['node2']}: "
                         f"{first['reason']}", user_frame=frame, explanation=expl, fix=fix,
                         score=SCORE["fusion"] + min(len(g["rows"]), 30),
                         count=len(g["rows"]),
                         details={"pairs": [[r["node1"], r["node2"], r["reason"]]
                                            for r in g["rows"][:10]]}))
    # Inductor's own perf hints (perf_hints artifact logger), minus CUDA-graph skips.
    seen: dict[tuple, dict[str, Any]] = {}
    for rec in ctx.r.records(ctx.run_id, kind="compdiag:perf_hints"):
        msg = (rec.get("payload") or "").strip()
        low = msg.lower()
        if not msg or "skipping cudagraphs" in low or any(b in low for b in _BENIGN_HINTS):
            continue
        head = P.first_line(msg, 300)
        cid = rec.get("compile_id")
        if (cid, head) in seen:
            seen[(cid, head)]["count"] += 1
            continue
        frames = frames_in(msg)
        fb = _FALLBACK_HINT.search(msg)
        if fb:
            frames = frames or _op_user_lines(ctx, cid, fb.group(1))
            d = _diag("perf", stage="inductor_lowering", compile_id=cid,
                      reason=f"aten.{fb.group(1)} runs as an eager fallback kernel "
                      f"(Inductor perf hint: {head})",
                      user_frame=ctx.user_frame(frames, cid=cid),
                      explanation="Inductor has no lowering or decomposition for this op here, "
                      "so it calls the ATen kernel: nothing around it fuses with it and its "
                      "inputs and outputs go through memory.",
                      fix=F.fallback_fix(fb.group(1)), score=SCORE["perf"])
        else:
            d = _diag("perf", stage="inductor", compile_id=cid,
                      reason=f"Inductor perf hint: {head}",
                      user_frame=ctx.user_frame(frames, cid=cid),
                      explanation="Inductor reported a known slow pattern while compiling.",
                      fix=F.perf_hint_fix(msg), score=SCORE["perf"])
        seen[(cid, head)] = d
        out.append(d)
    return out


_BENIGN_HINTS = ("skip comprehensive padding",)
_FALLBACK_HINT = re.compile(r"FallbackKernel:\s*(?:torch\.ops\.)?aten\.(\w+)")


def _op_user_lines(ctx: _Ctx, cid: str | None, op: str) -> list[dict[str, Any]]:
    """User lines of the post-grad graph nodes calling aten.<op> (torch's '# File:' notes)."""
    graph = None
    for kind in ("inductor_post_grad_graph", "artifact:inductor_post_grad_graph"):
        graph = ctx.r.artifact(ctx.run_id, cid, kind)
        if graph:
            break
    frames = []
    for node, where in P.graph_node_lines(graph).items():
        if P._node_op(node) != op:
            continue
        m = re.match(r"(.+):(\d+)\s+(.*)", where)
        if m:
            frames.append({"filename": m.group(1), "lineno": int(m.group(2)),
                           "line": m.group(3)})
    return frames


def _node_user_lines(kernels: list[dict[str, Any]], nodes: list[str]) -> list[dict[str, Any]]:
    """User lines of the kernels/FX nodes a scheduler node name mentions (op0, buf1, ...)."""
    frames = []
    for k in kernels:
        for line in k.get("user_lines") or []:
            m = re.match(r"(.+):(\d+)\s+(.*)", line)
            if m:
                frames.append({"filename": m.group(1), "lineno": int(m.group(2)),
                               "line": m.group(3)})
    return frames


# -- the whole run -----------------------------------------------------------------------------
def explain(reader: Reader, run_id: int) -> list[dict[str, Any]]:
    """All diagnoses of one run, most important first."""
    ctx = _Ctx(reader, run_id)
    gbs = _graph_breaks(ctx)
    gb_cids = {c for d in gbs for c in d["compile_ids"]}
    gb_cids |= {c.split("_")[0] for c in gb_cids}
    failures, limits = _failures(ctx, gb_cids)
    acc = _accuracy(ctx)
    if not acc:
        acc = _injector_accuracy(ctx)
    diags = failures + _recompiles(ctx, limits) + gbs + acc + _cudagraphs(ctx)
    diags += _fusion_and_perf(ctx)
    diags.sort(key=lambda d: -d["score"])
    return diags


def public(d: dict[str, Any]) -> dict[str, Any]:
    """A diagnosis as it appears in `explain --json` (DESIGN.md keys first)."""
    keys = ("kind", "stage", "compile_id", "gb_code", "reason", "user_frame", "explanation",
            "fix", "hints", "count", "compile_ids", "details")
    return {k: d.get(k) for k in keys}
