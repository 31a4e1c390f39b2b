"""DDP under torch.compile (and the collectives of compiled graphs), as rows: the subgraphs DDPOptimizer split a compile into (torch's
`optimize_ddp_split_child` trace records), and capture's own records of the DDP wrappers a
program built and of DDPOptimizer's bucket line.

Pure text to rows, and the Ingestor's handlers that write them (DistributedRows, a mixin of
the Ingestor, also for compiled autograd's graphs): live, at import and at reindex alike (an
imported TORCH_TRACE log has the split records too)."""

from __future__ import annotations

import json
import math
from typing import Any

from compdiag.formats import lazy_re
from compdiag.ingest import compiled_autograd as CA

# The child's forward signature and its placeholders' fake-tensor annotations.
_SIGNATURE = lazy_re.compile(r"def forward\(self,?(?P<args>[^\n]*)\):")
_ARG = lazy_re.compile(r'(?P<name>\w+): "(?P<dtype>[a-z]+\d*(?:e\d+m\d+\w*)?)\[(?P<shape>[^\]]*)\]')
# One FX node: `name: "f32[8, 512]" = torch._C._nn.linear(...)`.
_NODE = lazy_re.compile(r'^(?P<indent> +)(?P<name>\w+)(?:: "[^"]*")? = (?P<target>[\w.]+)\(')
_FILE = lazy_re.compile(r"# File: (?P<file>.+?):(?P<line>\d+) in (?P<fn>[^,]+), code: (?P<code>.*)")
_SUBMOD = lazy_re.compile(r"submod_(\d+)$")
# A node whose value is a Python number (a SymInt/SymFloat: `sub: "Sym(1.0 - zf7)" = 1.0 - item`)
_SYM_NODE = lazy_re.compile(r'^ +(?P<name>\w+): "Sym\(')
_RETURN = lazy_re.compile(r"^ +return \(?(?P<names>[\w, ]*?)\)?\s*$")
# Bytes per element of the dtypes torch abbreviates in graph annotations.
_ELEMENT_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2,
                  "i8": 1, "u8": 1, "b8": 1, "c128": 16, "c64": 8, "c32": 4}

DDP_EVENTS = ("ddp_wrap", "ddp_buckets")
EVENTS = (*DDP_EVENTS, "collective_nodes")  # capture's own records this module turns into rows


def collective_rows(payload: str | None) -> list[dict[str, Any]]:
    """capture/collectives.py's record: the collectives of one compiled graph, in order."""
    try:
        value = json.loads(payload or "")
    except ValueError:
        return []
    if not isinstance(value, list):
        return []
    return [{"idx": i, "node": _str(n.get("node")), "target": _str(n.get("target")),
             "meta": _str(n.get("meta")), "filename": _str(n.get("filename")),
             "lineno": _int(n.get("lineno")), "line": _str(n.get("line"))}
            for i, n in enumerate(value) if isinstance(n, dict)]


def is_parameter(name: str) -> bool:
    """Dynamo names a module parameter's placeholder after its source
    (`L['self']._modules['a']._parameters['weight']` -> `l_self_modules_a_parameters_weight_`)."""
    return "_parameters_" in name.lower()


def tensor_bytes(dtype: str, shape: str) -> int | None:
    """A dense tensor's size from its annotation; None for a symbolic size or unknown dtype."""
    size = _ELEMENT_BYTES.get(dtype, 1 if dtype.startswith("f8") else None)
    if size is None:
        return None
    dims = [d.strip() for d in shape.split(",") if d.strip()]
    if not all(d.isdigit() for d in dims):
        return None
    return size * math.prod(int(d) for d in dims)


def split_child(payload: str | None, name: str | None, order: int) -> dict[str, Any] | None:
    """One subgraph of a DDPOptimizer split (the child module's print_readable): its index, the
    parameters it owns and their bytes, its op count, the user lines of its first op and of
    its last one (the op at the cut that ends the bucket), and the Python numbers (SymInt,
    SymFloat) it hands to the next piece, each at the line that computed it: a number that
    crosses a cut is not a tensor AOTAutograd can compile a piece's output as
    (pytorch#196227: "'float' object has no attribute 'meta'")."""
    if not payload:
        return None
    sig = _SIGNATURE.search(payload)
    if sig is None:
        return None
    params, nbytes = [], 0
    for m in _ARG.finditer(sig.group("args")):
        if is_parameter(m.group("name")):
            params.append(m.group("name"))
            nbytes += tensor_bytes(m.group("dtype"), m.group("shape")) or 0
    where: dict[str, Any] | None = None
    first = last = None
    last_op = None
    ops = 0
    body_indent = None
    numbers: dict[str, dict[str, Any]] = {}  # a node holding a Python number, at its line
    returned: list[str] = []
    for line in payload[sig.end():].splitlines():
        if line.startswith("    class "):
            break  # a nested module (a higher-order op's body): not this graph's own ops
        fm = _FILE.search(line)
        if fm:
            where = {"filename": fm.group("file"), "lineno": int(fm.group("line")),
                     "line": fm.group("code").strip() or None}
            continue
        sm = _SYM_NODE.match(line)
        if sm is not None:
            numbers[sm.group("name")] = {"name": sm.group("name"), **(where or {})}
        rm = _RETURN.match(line)
        if rm is not None:
            returned = [n.strip() for n in rm.group("names").split(",") if n.strip()]
        nm = _NODE.match(line)
        if nm is None:
            continue
        if body_indent is None:
            body_indent = nm.group("indent")
        if nm.group("indent") != body_indent:
            continue
        ops += 1
        last_op = nm.group("target")
        if where is not None:
            first = first or where
            last = where
    m = _SUBMOD.search(name or "")
    return {"idx": int(m.group(1)) if m else order, "name": name, "param_names": params,
            "param_bytes": nbytes, "ops": ops, "last_op": last_op,
            "number_outputs": [numbers[n] for n in returned if n in numbers],
            **_frame_cols("first", first), **_frame_cols("last", last)}


def _frame_cols(prefix: str, frame: dict[str, Any] | None) -> dict[str, Any]:
    f = frame or {}
    return {f"{prefix}_filename": f.get("filename"), f"{prefix}_lineno": f.get("lineno"),
            f"{prefix}_line": f.get("line")}


def event_row(kind: str, payload: str | None) -> tuple[str, dict[str, Any]] | None:
    """(table, columns) for one of capture's DDP records, None for a malformed one."""
    try:
        value = json.loads(payload or "")
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    if kind == "ddp_wrap":
        settings = value.get("settings")
        return "ddp_wraps", {
            "via": _str(value.get("via")) or "DDP", "module": _str(value.get("module")), "compiled": bool(value.get("compiled")),
            "filename": _str(value.get("filename")), "lineno": _int(value.get("lineno")),
            "line": _str(value.get("line")), "bucket_cap_mb": _float(value.get("bucket_cap_mb")),
            "params": _int(value.get("params")), "param_bytes": _int(value.get("param_bytes")),
            "settings": settings if isinstance(settings, dict) else {}}
    if kind == "ddp_buckets":
        sizes = value.get("sizes")
        return "ddp_buckets", {"cap_bytes": _int(value.get("cap_bytes")),
                               "buckets": _int(value.get("buckets")),
                               "sizes": [s for s in sizes if _int(s) is not None]
                               if isinstance(sizes, list) else [],
                               "extended": bool(value.get("extended"))}
    return None


def _str(v: Any) -> str | None:
    return None if v is None else str(v)[:2000]


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _float(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


class DistributedRows:
    """The Ingestor's handlers for these records (a mixin: the Ingestor finds a trace record's
    handler by name, `_on_<kind>`); it provides `w`, `run_id`, `seq` and `ddp_children`."""

    w: Any
    run_id: int
    seq: int
    ddp_children: dict[str | None, int]

    def _on_optimize_ddp_split_child(self, value: Any, cid: str | None, payload: str | None,
                                     md: dict) -> None:
        """One piece of DDPOptimizer's split of compile `cid`."""
        name = value.get("name") if isinstance(value, dict) else None
        self.ddp_children[cid] = self.ddp_children.get(cid, 0) + 1
        row = split_child(payload, name, self.ddp_children[cid] - 1)
        if row is not None:
            self.w.insert("ddp_splits", run_id=self.run_id, compile_id=cid, seq=self.seq, **row)

    def _on_compiled_autograd_graph(self, value: Any, cid: str | None, payload: str | None,
                                    md: dict) -> None:
        """One compiled-autograd graph (ingest/compiled_autograd.py), by its id."""
        row = CA.graph_row(payload)
        ca = md.get("compiled_autograd_id")
        if row is not None and isinstance(ca, int):
            self.w.insert("compiled_autograd_graphs", run_id=self.run_id, ca_id=ca,
                          seq=self.seq, **row)

    def distributed_event(self, kind: str, compile_id: str | None, payload: str | None) -> None:
        """Capture's DDP and collective records (live, and again at reindex)."""
        if kind == "collective_nodes":
            for row in collective_rows(payload):
                self.w.insert("collective_nodes", run_id=self.run_id, compile_id=compile_id,
                              seq=self.seq, **row)
            return
        found = event_row(kind, payload)
        if found is not None:
            table, cols = found
            extra = {"compile_id": compile_id} if table == "ddp_buckets" else {}
            self.w.insert(table, run_id=self.run_id, seq=self.seq, **cols, **extra)
