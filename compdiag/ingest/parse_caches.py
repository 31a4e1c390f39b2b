"""Parsers of compile-cache records: the cache and result an artifact's name gives, a lookup's
key components, the remote caches' counters in compilation_metrics. Pure text (re-exported by
ingest/parsers.py)."""

from __future__ import annotations

import json
from typing import Any

from compdiag.formats import fast_json, lazy_re
from compdiag.ingest.parse_dynamo import root_cause
from compdiag.ingest.parse_text import is_int


# An artifact `<cache>_cache_<result>`: fx_graph_cache_hit, aotautograd_cache_bypass, ...
_CACHE_ARTIFACT = lazy_re.compile(r"^(?P<cache>\w+?)_cache_(?P<result>hit|miss|bypass|disabled)$")
COMPONENT_VALUE_LIMIT = 20000  # a component's text kept (a graph's code, a config value)
# A key component's head, '[HASH] NAME: '; its value is the rest of the line, taken by slicing
# instead of by the regex engine walking it (a value can be a graph's code).
_KEY_HEAD = lazy_re.compile(r"\[([0-9a-z]+)\] ([^:\n]+?): ?")


def _split(line: str) -> tuple[str, str, str] | None:
    """(name, hash, value) of one '[HASH] NAME: VALUE' line, None for any other line: the one
    reading of the format (key_component and the cached _parsed both use it)."""
    m = _KEY_HEAD.match(line)
    if m is None:
        return None
    hash_, name = m.groups()
    end = m.end()
    return name.strip(), hash_, line[end:end + COMPONENT_VALUE_LIMIT]


def cache_artifact(name: str) -> tuple[str, str] | None:
    """(cache, result) of a cache artifact's name, None for any other artifact."""
    m = _CACHE_ARTIFACT.match(name)
    return (m.group("cache"), m.group("result")) if m else None


def key_component(line: Any) -> dict[str, str] | None:
    """One line of torch's cache key details, '[HASH] NAME: VALUE' (FxGraphCachePickler's
    debug_lines, also logged as 'FX graph cache hash details for key K'), as name, hash and
    value; None for anything else."""
    c = _split(line) if isinstance(line, str) else None
    return None if c is None else {"name": c[0], "hash": c[1], "value": c[2]}


def key_components(lines: list[Any]) -> list[list[str]]:
    """key_component of each line, as [name, hash, value] (what the store keeps, a list per
    lookup), the lines that are not components left out: one loop, no dict per line (a
    lookup has hundreds)."""
    return [list(c[0]) for c in _parsed(lines)]


# line -> its ([name, hash, value], JSON of that), for the lines seen lately: a run's lookups
# repeat nearly every line (73,106 of 73,799 lines on bench_import's log were seen before, in
# 693 distinct lines of 102 KB), so a line is parsed and encoded once. Emptied past
# _SEEN_CHARS: live capture keeps this in the program's memory.
_seen: dict[str, tuple[tuple[str, str, str], str] | None] = {}
_seen_chars = 0
_SEEN_CHARS = 1 << 20


def _parsed(lines: list[Any]) -> list[tuple[tuple[str, str, str], str]]:
    global _seen_chars
    seen, out = _seen, []
    for line in lines:
        if type(line) is not str:
            continue
        got = seen.get(line, False)
        if got is False:
            c = _split(line)
            got = None if c is None else (c, json.dumps(list(c)))
            if _seen_chars > _SEEN_CHARS:
                seen.clear()
                _seen_chars = 0
            seen[line] = got
            _seen_chars += len(line)
        if got is not None:
            out.append(got)
    return out


def cache_lookup(payload: str | None) -> dict[str, Any]:
    """The facts of one cache artifact's JSON payload (cache_info): the key, the bypass
    reason, torch's detailed state, the time a hit saved and the key's components. Missing or
    unreadable fields are None (the payload's keys differ between torch versions)."""
    try:
        info = fast_json.loads(payload) if payload else {}
    except ValueError:
        info = {}
    if not isinstance(info, dict):
        info = {}
    key = next((info[k] for k in ("key", "cache_key", "fx_graph_cache_key",
                                  "aot_autograd_cache_key") if isinstance(info.get(k), str)), None)
    saved = None
    if isinstance(info.get("time_saved_ns"), (int, float)):
        saved = info["time_saved_ns"] / 1e9
    elif isinstance(info.get("time_saved_ms"), (int, float)):
        saved = info["time_saved_ms"] / 1e3
    reason = info.get("cache_bypass_reason")
    # "Failed to pickle cache key" says nothing of what could not be pickled; the chain's
    # root exception in torch's traceback does (probes27 njt_mean_pool: `Can't pickle local
    # object 'WeakValueDictionary.__init__.<locals>.remove'`), read as a graph break's is
    tb = info.get("cache_bypass_traceback")
    cause = root_cause("\n".join(map(str, tb)))["root_cause"] if isinstance(tb, list) else None
    if reason and cause and str(reason) not in cause:
        reason = f"{reason} ({cause})"
    lines = info.get("components")
    parsed = _parsed(lines) if isinstance(lines, list) else []
    return {"key": key, "reason": str(reason) if reason else None,
            "detail": info.get("cache_status_detailed") if isinstance(
                info.get("cache_status_detailed"), str) else None,
            "time_saved_s": saved, "components": [list(c[0]) for c in parsed],
            # json.dumps(components), from each line's JSON (what the store keeps)
            "components_json": "[" + ", ".join([c[1] for c in parsed]) + "]"}


# compilation_metrics' remote-cache counters: (cache, count field prefix, keys field prefix).
_REMOTE_CACHES = (("fx_graph_remote", "inductor_fx_remote_cache", "inductor_fx_remote_cache"),
                  ("aotautograd_remote", "aotautograd_remote_cache", None))


def remote_cache_lookups(metrics: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(cache, hit|miss, key) of each remote-cache lookup a compile's metrics count (a remote
    cache logs no artifact of its own): one per key where torch lists them (comma-separated),
    else one per count without a key."""
    out: list[tuple[str, str, str | None]] = []
    for cache, counts, keys_field in _REMOTE_CACHES:
        for result in ("hit", "miss"):
            n = metrics.get(f"{counts}_{result}_count")
            if not is_int(n) or n <= 0:
                continue
            keys = metrics.get(f"{keys_field}_{result}_keys") if keys_field else None
            listed = [k for k in keys.split(",") if k and k != "<unknown>"] \
                if isinstance(keys, str) else []
            if listed:
                out.extend((cache, result, k) for k in listed[:n])
            else:
                out.extend((cache, result, None) for _ in range(min(n, 1000)))
    return out
