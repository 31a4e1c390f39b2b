"""Cache lookups explained: why the FX graph (or AOTAutograd) cache missed, by the parts of
its key that changed since an earlier compile of the same function, or that it was cold.

torch logs each lookup with its key and the key's components ('[hash] name: value', one per
config, input, graph, version...). Two compiles of the same graph with different keys differ
in some components; naming those answers "why did my cache miss" (pytorch #152065, #141790).
A miss whose key equals the earlier compile's was not a changed key but a missing entry (the
cache directory was another, cleared or not copied: #144859)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.formats.compile_id import CompileId
from compdiag.store.reader import Reader

# Components whose text means nothing to a reader (pickled bytes): named, not quoted.
OPAQUE = ("torch_version",)
# How long a before/after value may be to be quoted in a line.
SHORT = 80
_TENSOR_META = re.compile(r"dtype=(?P<dtype>[\w.]+), shape=torch\.Size\((?P<shape>\[[^\]]*\])\)"
                          r"(?:, stride=(?P<stride>\([^)]*\)))?")


@dataclass(frozen=True)
class Change:
    """One key component that differs between an earlier compile and this one."""

    component: str
    before: str | None  # None: the component is new
    after: str | None   # None: the component is gone
    summary: str        # one line, e.g. "inductor_config[fallback_random]: False -> True"

    def to_json(self) -> dict[str, Any]:
        return {"component": self.component, "before": self.before, "after": self.after,
                "summary": self.summary}


def _short(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value if len(value) <= SHORT else value[:SHORT - 3] + "..."


def _tensor(value: str | None) -> str | None:
    m = _TENSOR_META.search(value or "")
    if not m:
        return None
    return f"{m.group('dtype').replace('torch.', '')}{m.group('shape')}" + (
        f" stride {m.group('stride')}" if m.group("stride") else "")


def _first_graph_difference(before: str, after: str) -> str | None:
    """The first line of the new graph's code that the old one does not have in its place."""
    a = [line.strip() for line in before.splitlines() if line.strip()]
    b = [line.strip() for line in after.splitlines() if line.strip()]
    for i, line in enumerate(b):
        if i >= len(a) or a[i] != line:
            return line
    return a[len(b)] if len(a) > len(b) else None


# A node's call and its literal arguments, without the names of the values it reads (which
# follow the order the nodes were made in)
_CALL = re.compile(r"=\s*([\w.]+)\(")
_LITERAL = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?(?![\w.])|'[^']*'|\"[^\"]*\"")


def reordered(before: str, after: str) -> bool:
    """Whether two graphs hold the same calls with the same literal arguments, in another
    order: code that traced them in an order that changed (a set's iteration)."""
    def calls(text: str) -> list[tuple[str, tuple[str, ...]]]:
        out = []
        for line in text.splitlines():
            m = _CALL.search(line)
            if m:
                out.append((m.group(1), tuple(sorted(_LITERAL.findall(line[m.end():])))))
        return out

    a, b = calls(before), calls(after)
    return bool(a) and a != b and sorted(a) == sorted(b)


# What a key component's change means in the program's terms (a component named after torch's
# internals; the words a user acts on).
MEANINGS = {
    "fx_kwargs[is_inference]": "the grad mode changed (a compile under torch.no_grad() or "
                               "inference_mode() is an inference graph, not the training one)",
}


def describe_change(name: str, before: str | None, after: str | None) -> str:
    """One line saying how a component changed, in the words a user acts on."""
    line = _describe_change(name, before, after)
    return f"{line}: {MEANINGS[name]}" if name in MEANINGS else line


def _describe_change(name: str, before: str | None, after: str | None) -> str:
    if before is None:
        return f"{name}: new in this compile"
    if after is None:
        return f"{name}: gone from this compile"
    if name == "gm":
        node = _first_graph_difference(before, after)
        return ("gm: the same operations in another order" if reordered(before, after)
                else "gm: the graph changed") + (
            f" (first differing node: {node})" if node else "")
    if name in OPAQUE:
        return f"{name}: changed (another torch build)"
    ta, tb = _tensor(before), _tensor(after)
    if ta and tb and ta != tb:
        return f"{name}: {ta} -> {tb}"
    sa, sb = _short(before), _short(after)
    if sa != sb and len(before) <= SHORT and len(after) <= SHORT:
        return f"{name}: {sa} -> {sb}"
    return f"{name}: changed"


def changed_components(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]
                       ) -> list[Change]:
    """The components whose hash differs (or that only one key has), in the new key's order."""
    out = []
    for name in [*after, *(n for n in before if n not in after)]:
        b, a = before.get(name), after.get(name)
        if b is not None and a is not None and b["hash"] == a["hash"]:
            continue
        bv = b["value"] if b is not None else None
        av = a["value"] if a is not None else None
        out.append(Change(name, bv, av, describe_change(name, bv, av)))
    return out


@dataclass(frozen=True)
class MissExplained:
    """Why one lookup missed: `cold` (no earlier compile of this function here), `changed`
    (the components that differ from the closest earlier compile's key), `same_key` (the
    earlier compile had this very key: its entry is not in this cache), or `unknown` (the
    compile's function is not known, so nothing to compare it with)."""

    status: str
    compared_to: dict[str, Any] | None = None  # {run_id, compile_id, key}
    changes: tuple[Change, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "compared_to": self.compared_to,
                "changed": [c.to_json() for c in self.changes]}


def explain_miss(reader: Reader, run_id: int, lookup: dict[str, Any],
                 compile_row: dict[str, Any] | None) -> MissExplained:
    """Compare a missed lookup's key with the earlier lookups of the same cache by the same
    function at the same place: in this process before a torch._dynamo.reset() first (the
    compile the program repeated after it), else in any earlier run of the store. Those of
    the same compile id first (the n-th compile of a function pairs with the n-th), then the
    key that differs in the fewest components, then the earliest."""
    row = compile_row or {}
    if not row.get("co_name") or not row.get("filename"):
        return MissExplained("unknown")  # a compile that never named its function
    mine_id = CompileId.of(lookup["compile_id"])
    earlier = reader.earlier_cache_events(run_id, lookup["cache"], row.get("co_name"),
                                          row.get("filename"), row.get("lineno"),
                                          generation=mine_id.generation if mine_id else 0)
    earlier = [e for e in earlier if e.get("key")]
    if not earlier:
        return MissExplained("cold")
    here = [e for e in earlier if e["run_id"] == run_id]
    pool = here or earlier
    same = [e for e in pool if _torch_id(e["compile_id"]) == _torch_id(lookup["compile_id"])]
    candidates = same or pool
    if any(e["key"] == lookup.get("key") for e in candidates):
        e = next(e for e in candidates if e["key"] == lookup.get("key"))
        return MissExplained("same_key", _ref(e))
    mine = reader.cache_key_components(run_id, lookup["seq"]) if lookup.get("seq") else {}
    if not mine:
        return MissExplained("changed", _ref(candidates[0]))
    best: tuple[int, int, dict[str, Any], list[Change]] | None = None
    seen: set[str] = set()
    for i, e in enumerate(candidates):
        if e["key"] in seen:
            continue
        seen.add(e["key"])
        theirs = reader.cache_key_components(e["run_id"], e["seq"]) if e.get("seq") else {}
        if not theirs:
            continue
        changes = changed_components(theirs, mine)
        if best is None or (len(changes), i) < (len(best[3]), best[1]):
            best = (len(changes), i, e, changes)
    if best is None:
        return MissExplained("changed", _ref(candidates[0]))
    return MissExplained("changed", _ref(best[2]), tuple(best[3]))


def _torch_id(text: str | None) -> str | None:
    """torch's own id, without the generation: '0/0' before and after a reset pair up."""
    cid = CompileId.of(text)
    return cid.torch_id() if cid is not None else text


def _ref(e: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": e["run_id"], "compile_id": e["compile_id"], "key": e.get("key")}


def lookups(reader: Reader, run_id: int, *, explain: bool = True) -> list[dict[str, Any]]:
    """Every cache lookup of a run, with its key's components (name -> hash) and, for a miss,
    why (MissExplained.to_json() under `why`)."""
    compiles = {c["compile_id"]: c for c in reader.compiles(run_id)}
    out = []
    for e in reader.cache_events(run_id):
        comps = reader.cache_key_components(run_id, e["seq"]) if e.get("seq") else {}
        doc = {"compile_id": e["compile_id"], "cache": e["cache"], "result": e["result"],
               "reason": e.get("reason"), "key": e.get("key"), "detail": e.get("detail"),
               "time_saved_s": e.get("time_saved_s"),
               "components": {name: c["hash"] for name, c in comps.items()}}
        if explain and e["result"] == "miss":
            doc["why"] = explain_miss(reader, run_id, e, compiles.get(e["compile_id"])).to_json()
        out.append(doc)
    return out
