"""A captured failing graph as a reduction problem.

A candidate is (kept nodes, outputs, shape cuts, zeroed inputs, dropped config patches). The
graph it stands for: the kept nodes that reach the outputs, in their original order; every
value they read from outside the kept set becomes a placeholder, fed with the original input
or, for a cut node, with the value eager computed for it on the recorded inputs. So "cut a
node" is: delete it from the kept set. Removing an output node promotes its kept tensor
operands to outputs (the tail is cut); nodes nothing reads any more vanish with it."""

from __future__ import annotations

import json
import math
import operator
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import torch
import torch.fx

from compdiag.formats import failure_graph as codec
from compdiag.formats.first_nonblank import first_nonblank
from compdiag.formats.op_schema import named_in_place
from compdiag.formats.signal_names import signal_name
from compdiag.minify import custom_ops, oracle
from compdiag.store.schema import BACKWARD_FAILURE_NOTE

INLINE_NUMEL = 64   # inputs up to this many elements are written inline in the repro
# how torch's errors name the op they failed on (LoweringException's "target:", the
# ingestor's "(lowering aten.x.default)")
_NAMED_OP = re.compile(r"(?:target: |lowering )(?:aten|prims)\.(\w+)")


class MinifyError(Exception):
    """One line for the user."""


class NotReproduced(MinifyError):
    """The captured graph, compiled again on its recorded inputs, does not fail the same way:
    by default minify then tries the same compile's other kept graph (`default_order`)."""


# a symbolic size Dynamo lifted as a graph input (backed s<N>, unbacked u<N>)
_SYMBOL = re.compile(r"^[su]\d+$")

@dataclass
class Problem:
    run_id: int
    compile_id: str | None
    record_id: int
    doc: dict[str, Any]
    inputs: list[Any]                      # per placeholder: tensor or scalar
    attrs: dict[str, torch.Tensor]

    @property
    def kind(self) -> str:
        return self.doc["kind"]

    @property
    def dynamo(self) -> bool:
        """Dynamo raised it (on fake tensors): queries trace with Dynamo, no backend."""
        return self.doc.get("stage") == "dynamo"

    @property
    def dynamic_shapes(self) -> bool:
        """Captured with symbolic sizes: Dynamo lifted them as placeholders named after their
        symbols (`s14`, `s54`), stored as the ints they were (probes32e yolo_focus_stem: the
        graph compiled again on those ints was static and passed)."""
        return any("scalar" in i and _SYMBOL.match(str(i.get("name") or ""))
                   for i in self.doc.get("inputs") or [])

    @property
    def grad_inputs(self) -> frozenset[str]:
        """Placeholders whose gradients the failure is about (a wrong gradient kept as its
        forward graph, capture/backward_graphs.py): the oracle compares them too."""
        return frozenset(self.doc.get("grads") or ())

    def grad_positions(self, input_names: Sequence[str]) -> list[int]:
        """The positions of a candidate's inputs (by the node names they stand for) whose
        gradients are compared."""
        return [i for i, n in enumerate(input_names) if n in self.grad_inputs]

    @property
    def target(self) -> tuple[str, str]:
        sig = self.doc.get("signature")
        return (sig[0], sig[1]) if sig else (self.doc["exc_type"], "")


def failure_graphs(reader: Any, run_id: int) -> list[dict[str, Any]]:
    """The failing graphs kept for a run: [{record id, compile_id, kind, stage, exc_type}].

    A graph kept before its first call (COMPDIAG_KEEP_GRAPHS=1) counts as a crash only when
    that call never returned and the run died of a signal."""
    run = reader.run(run_id)
    code = run.get("exit_code")
    died = run.get("status") == "killed" or (isinstance(code, int) and code > 128)
    survived = {r["compile_id"] for r in reader.records(
        run_id, kind="compdiag:" + codec.SURVIVED_KIND, with_payload=False)}
    out = []
    payloads: dict[Any, Any] | None = None   # read once, for a store kept no role in metadata
    for rec in reader.records(run_id, kind="compdiag:" + codec.RECORD_KIND, with_payload=False):
        md = rec["metadata"].get("compdiag", {}) if isinstance(rec["metadata"], dict) else {}
        if md.get("kind") == "crash" and (not died or rec["compile_id"] in survived):
            continue
        role = md.get("graph")
        if role is None and md.get("kind") == "accuracy":   # only those have several roles
            if payloads is None:
                payloads = {r["id"]: r["payload"] for r in reader.records(
                    run_id, kind="compdiag:" + codec.RECORD_KIND)}
            role = codec.graph_role(payloads.get(rec["id"]))
        out.append({"id": rec["id"], "compile_id": rec["compile_id"], "kind": md.get("kind"),
                    "stage": md.get("stage"), "exc_type": md.get("exc_type"),
                    "graph": role or "forward",
                    "signal": code - 128 if died and isinstance(code, int) and code > 128
                    else None})
    return out


# The order minify tries a compile's kept graphs in by default: a forward whose outputs differ
# (a backward fed its saved values computes what they make it compute: the forward is the
# cause), the backward (one op of it, a wrong gradient), then the forward with its gradients
# compared (the difference rode in a saved value the backward alone computes right from).
_ROLE_ORDER = {"forward": 0, "backward": 1, "forward+grads": 2}


def default_order(graphs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last compile's kept graphs, in the order minify tries them by default (probes45e
    mlml_tagger_padded_targets: its backward, kept last, passed when compiled again, and minify
    said it did not reproduce; keyword_svm_hinge_tie_grad: only the forward with gradients
    reproduces a mask of ties compiled differently)."""
    if not graphs:
        return []
    last = [g for g in graphs if g["compile_id"] == graphs[-1]["compile_id"]]
    return sorted(last, key=lambda g: _ROLE_ORDER.get(g.get("graph") or "forward", 0))


def chosen_graph(graphs: list[dict[str, Any]], graph: str | None) -> dict[str, Any] | None:
    """The failing graph minify shrinks: `graph` (a compile id or a record id: the first of
    that compile in `default_order`), or by default the first of `default_order`. None when
    there is no such graph."""
    if graph is None:
        return next(iter(default_order(graphs)), None)
    matches = [g for g in graphs if graph in (g["compile_id"], str(g["id"]))]
    return next(iter(default_order(matches)), None)


def load(reader: Any, run_id: int, graph: str | None) -> Problem:
    graphs = failure_graphs(reader, run_id)
    if not graphs:
        fails = reader.failures(run_id)
        unkept = [w for w in reader.warnings(run_id) if "cannot be kept for minify" in w]
        if unkept:
            raise MinifyError(f"run {run_id} has no failing graph to minify: {unkept[0]}")
        if fails and fails[0].get("stage") == "dynamo":
            f = fails[0]
            where = f" at {f['filename']}:{f['lineno']}" if f.get("filename") else ""
            raise MinifyError(
                f"run {run_id}'s failure is in Dynamo ({f['exc_type']}: "
                f"{(f.get('message') or '').splitlines()[0][:120] if f.get('message') else ''})"
                f"{where} on Python code it does not put in a graph, not on an op of one: "
                "there is no graph to shrink; that line, compiled alone, is the repro")
        raised = next(iter(reader.program_exceptions(run_id)), None) if not fails else None
        if raised is not None:  # the program's exception, raised outside any compiled graph
            # (probes34b jit_load_compile: torch.compile() refusing its argument, said as "it
            # has no failure" while explain reported one)
            raise MinifyError(
                f"run {run_id} has no failing graph to minify: it ended with "
                f"{raised.get('exc_type') or 'an exception'} outside any graph torch compiled "
                "(see `compdiag explain`); there is no graph to shrink")
        why = (f"its failure ({fails[0]['stage']}: {fails[0]['exc_type']}) was not kept with its "
               "graph" if fails else "it has no failure")
        hint = ("the backward graph was not kept: this torch's AOTAutograd runtime is not "
                "the one compdiag wraps, see the run's warnings" if fails and
                f"({BACKWARD_FAILURE_NOTE})" in (fails[0].get("message") or "")
                else "accuracy needs `compdiag run --check-accuracy`")
        raise MinifyError(f"run {run_id} has no failing graph to minify: {why} ({hint})")
    chosen = chosen_graph(graphs, graph)
    if chosen is None:
        ids = ", ".join(str(g["compile_id"]) for g in graphs)
        raise MinifyError(f"no failing graph {graph!r} in run {run_id} (failing graphs: {ids})")
    rec = next(r for r in reader.records(run_id, kind="compdiag:" + codec.RECORD_KIND)
               if r["id"] == chosen["id"])
    try:
        doc = json.loads(rec["payload"])
    except (TypeError, ValueError):
        raise MinifyError(f"the failing graph record {chosen['id']} is unreadable") from None
    if doc.get("kind") == "crash":
        sig = signal_name(chosen["signal"]) if chosen.get("signal") else "SIGKILL"
        doc["signature"] = ["Signal", sig]
        doc["message"] = f"the process died of {sig} in the first call of this graph"
    if doc.get("format") != codec.FORMAT_VERSION:
        raise MinifyError(f"failing graph format {doc.get('format')!r} is not supported")
    tag = doc.get("tensor_tag", "")
    rows = {r["role"]: r for r in reader.tensors(run_id, rec["compile_id"])
            if str(r["role"]).startswith(tag + ":")}

    def tensor(role: str, spec: dict[str, Any]) -> torch.Tensor:
        row = rows.get(codec.stored_role(tag, role))
        if row is None:
            raise MinifyError(f"tensor {role} of the failing graph is missing from the store")
        t = codec.tensor_from_bytes(row["data"], row["dtype"], row["shape"], row["stride"])
        dev = spec.get("device", "cpu")
        if dev != "cpu":
            if dev.startswith("cuda") and not torch.cuda.is_available():
                raise MinifyError(f"the failing graph ran on {dev}; this machine has no CUDA")
            t = t.to(dev)
        return t

    try:
        custom_ops.ensure(doc)
    except custom_ops.Unavailable as exc:
        raise MinifyError(str(exc)) from None
    inputs, attrs = codec.decode_values(doc, tensor)
    return Problem(run_id, rec["compile_id"], rec["id"], doc, inputs, attrs)


@dataclass(frozen=True)
class Candidate:
    kept: frozenset[str]
    outputs: tuple[str, ...]
    sizes: tuple[tuple[int, int], ...] = ()     # (original size, new size) for input dims
    zeroed: frozenset[str] = frozenset()         # inputs fed with zeros
    dropped_config: frozenset[str] = frozenset()
    unit_consts: frozenset[tuple[str, int]] = frozenset()  # (node, arg index) set to 1.0


@dataclass
class Built:
    gm: torch.fx.GraphModule
    inputs: list[Any]
    input_names: list[str]       # original node names the placeholders stand for
    config: dict[str, Any]


@dataclass
class Model:
    """The original graph, its eager values, and how candidates map to graphs."""
    problem: Problem
    gm: torch.fx.GraphModule = field(init=False)
    order: list[str] = field(init=False)                 # kept-able nodes, topological
    operands: dict[str, list[str]] = field(init=False)   # node -> nodes it reads
    values: dict[str, Any] = field(init=False)           # eager value of every node
    placeholders: list[str] = field(init=False)

    def __post_init__(self) -> None:
        p = self.problem
        try:
            self.gm = codec.nodes_to_graph(p.doc["nodes"], p.attrs)
        except codec.UnsupportedGraph as exc:
            raise MinifyError(f"cannot rebuild the failing graph: {exc}") from None
        self.placeholders = [n.name for n in self.gm.graph.nodes if n.op == "placeholder"]
        self.order = [n.name for n in self.gm.graph.nodes
                      if n.op in ("call_function", "call_method", "get_attr")]
        self.operands = {}
        self.nodes = {n.name: n for n in self.gm.graph.nodes}
        # an op that reads an input after an in-place op wrote it reads that write too
        alias, writes = _writes(self.gm)
        current: dict[str, str] = {}   # input -> its last writer so far
        for n in self.gm.graph.nodes:
            seen: list[str] = []
            for a in n.all_input_nodes:
                if a.name not in seen:
                    seen.append(a.name)
                w = current.get(alias.get(a.name, a.name))
                if w is not None and w != n.name and w not in seen:
                    seen.append(w)
            self.operands[n.name] = seen
            if n.name in writes:
                current[writes[n.name]] = n.name
        self.values = self._eager_values()
        out = next(n for n in self.gm.graph.nodes if n.op == "output")
        last = {root: w for w, root in writes.items()   # (dicts keep graph order)
                if self.nodes[root].op == "placeholder" and w in alias}
        self.original_outputs = tuple(dict.fromkeys(
            last.get(a.name, a.name) for a in _flat_nodes(out.args[0])
            if last.get(a.name, a.name) in self.order
            and self.tensor_valued(last.get(a.name, a.name))))
        self.position = {name: i for i, name in enumerate(self.order)}

    def _eager_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        self.unrun: set[str] = set()

        class Recorder(torch.fx.Interpreter):
            def run_node(self, n: torch.fx.Node) -> Any:
                v = super().run_node(n)
                # a copy: a later in-place op must not change the value recorded here
                if isinstance(v, torch.Tensor):
                    c = v.detach().clone()
                    if v.requires_grad and (c.is_floating_point() or c.is_complex()):
                        c.requires_grad_(True)
                    values[n.name] = c
                else:
                    values[n.name] = v
                return v

        args = [a.detach().clone().requires_grad_(a.requires_grad)
                if isinstance(a, torch.Tensor) else a for a in self.problem.inputs]
        try:
            with torch.set_grad_enabled(bool(self.problem.doc.get("grad_enabled"))):
                Recorder(self.gm).run(*args)
        except Exception as exc:  # noqa: BLE001
            if self.problem.dynamo:
                # The op Dynamo failed on may not run here (a custom op's stand-in): the
                # nodes from it on have no eager value, so they can be kept, never cut.
                self.unrun = {n for n in self.order if n not in values}
                return values
            first_line = first_nonblank(str(exc))
            if len(first_line) > 240:
                first_line = first_line[:239].rstrip() + "…"
            raise MinifyError("the captured graph raises too when its ops run one "
                              "by one without compiling, on its recorded inputs "
                              f"({type(exc).__name__}: {first_line}): the error is the "
                              "graph's own (a check or assert it kept, or its inputs), not a "
                              "compiler bug to shrink (`compdiag explain` says where it comes "
                              "from)") from None
        return values

    def tensor_valued(self, name: str) -> bool:
        """A tensor eagerly, or not run eagerly (the op a Dynamo-stage failure stops at)."""
        return isinstance(self.values.get(name), torch.Tensor) or name in self.unrun

    def _cuttable(self, name: str) -> bool:
        v = self.values.get(name)
        return isinstance(v, torch.Tensor) or (isinstance(v, (int, float, bool))
                                               and not isinstance(v, torch.SymInt))

    # -- candidates ---------------------------------------------------------------------------
    def initial(self) -> Candidate:
        if not self.original_outputs:
            doc = self.problem.doc
            said = (doc.get("message") or "").strip().splitlines()[:1]
            raise MinifyError(
                f"{doc.get('exc_type') or 'the failure'} ({said[0][:120] if said else ''}) "
                "happened in Dynamo while it traced Python code, before any op of the graph "
                "computed a tensor: there is no graph op to shrink; the line `compdiag explain` "
                "names, compiled alone, is the repro" if self.problem.dynamo else
                "the failing graph returns no tensor computed by the graph")
        return self.normalise(Candidate(frozenset(self.order), self.original_outputs))

    def live(self, kept: frozenset[str], outputs: Sequence[str]) -> frozenset[str]:
        live: set[str] = set()
        stack = [o for o in outputs if o in kept]
        while stack:
            n = stack.pop()
            if n in live:
                continue
            live.add(n)
            stack.extend(a for a in self.operands[n] if a in kept and a not in live)
        return frozenset(live)

    def normalise(self, c: Candidate) -> Candidate:
        return replace(c, kept=self.live(c.kept, c.outputs))

    def without_nodes(self, c: Candidate, nodes: Sequence[str]) -> Candidate | None:
        kept = set(c.kept)
        outputs = list(c.outputs)
        for n in sorted(nodes, key=lambda x: -self.position[x]):
            if n not in kept:
                continue
            kept.discard(n)
            if n in outputs:
                i = outputs.index(n)
                promoted = [a for a in self.operands[n]
                            if a in kept and self.tensor_valued(a) and a not in outputs]
                outputs[i:i + 1] = promoted
        if not outputs:
            return None
        cand = self.normalise(replace(c, kept=frozenset(kept), outputs=tuple(outputs)))
        for n in cand.kept:  # every value read from outside must be feedable
            for a in self.operands[n]:
                if a not in cand.kept and a not in self.placeholders and not self._cuttable(a):
                    return None
        return cand

    def named_node(self, c: Candidate) -> str | None:
        """The node the failure names: Dynamo's failing node, or the one kept node of the op
        an error names (Inductor's "target: aten.relu.default" matches `torch.relu`,
        `Tensor.relu`, `aten.relu.*`); None when none or several match."""
        doc = self.problem.doc
        if doc.get("failing_node") in c.kept:
            return doc["failing_node"]
        named = {m.group(1) for m in _NAMED_OP.finditer(doc.get("message") or "")}
        hits = [n for n in c.kept if self._op_base(n) in named]
        return hits[0] if len(hits) == 1 else None

    def _op_base(self, name: str) -> str:
        node = self.nodes[name]
        if node.op == "call_method":
            return str(node.target)
        target = getattr(node.target, "__name__", str(node.target))
        if isinstance(node.target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            target = node.target._schema.name.partition("::")[2] if hasattr(
                node.target, "_schema") else str(node.target).split(".")[1]
        return target.split(".")[-1]

    def only(self, c: Candidate, name: str) -> Candidate | None:
        """The one node `name` alone, its operands fed as inputs (None if one cannot be)."""
        if name not in c.kept or not self.tensor_valued(name):
            return None
        if any(a not in self.placeholders and not self._cuttable(a) for a in self.operands[name]):
            return None
        return replace(c, kept=frozenset([name]), outputs=(name,))

    def prefix(self, c: Candidate, k: int) -> Candidate | None:
        """Only the first k kept nodes; whatever of them the rest read becomes an output."""
        nodes = self.nodes_of(c)
        head, tail = nodes[:k], set(nodes[k:])
        keep = set(head)
        outputs = [n for n in head if self.tensor_valued(n) and (
            n in c.outputs or any(n in self.operands[t] for t in tail))]
        if not outputs:
            return None
        return self.normalise(replace(c, kept=frozenset(keep), outputs=tuple(outputs)))

    def suffix(self, c: Candidate, s: int) -> Candidate | None:
        """Only the kept nodes from position s on; earlier values are fed as inputs."""
        nodes = self.nodes_of(c)
        return self.without_nodes(c, nodes[:s]) if 0 < s < len(nodes) else None

    def without_outputs(self, c: Candidate, outs: Sequence[str]) -> Candidate | None:
        outputs = tuple(o for o in c.outputs if o not in outs)
        return self.normalise(replace(c, outputs=outputs)) if outputs else None

    def nodes_of(self, c: Candidate) -> list[str]:
        return sorted(c.kept, key=self.position.__getitem__)

    def input_names(self, c: Candidate) -> list[str]:
        names: list[str] = []
        for n in self.nodes_of(c):
            for a in self.operands[n]:
                if a not in c.kept and a not in names:
                    names.append(a)
        order = {name: i for i, name in enumerate(self.placeholders + self.order)}
        return sorted(names, key=order.__getitem__)

    def input_value(self, c: Candidate, name: str) -> Any:
        if name in self.placeholders:
            v = self.problem.inputs[self.placeholders.index(name)]
        else:
            v = self.values[name]
        if not isinstance(v, torch.Tensor):
            return v
        requires_grad = v.requires_grad
        v = v.detach()
        sizes = dict(c.sizes)
        if sizes:
            index = tuple(slice(0, sizes.get(s, s)) for s in v.shape)
            v = v[index]
        if name in c.zeroed:
            v = torch.zeros_like(v)
        v = v.clone()
        if requires_grad and (v.is_floating_point() or v.is_complex()):
            v.requires_grad_(True)
        return v

    def size_key(self, c: Candidate) -> tuple:
        names = self.input_names(c)
        numel = 0
        for n in names:
            v = self.input_value_shape(c, n)
            numel += v
        return (len(c.kept), len(c.outputs), numel, len(names) - len(c.zeroed & set(names)),
                len(self.problem.doc.get("config", {})) - len(c.dropped_config),
                sum(k not in c.unit_consts for k in self.float_consts(c)))

    def float_consts(self, c: Candidate) -> list[tuple[str, int]]:
        """Positional float constants of the kept nodes other than 0 and 1 (ints are left
        alone: they are usually dims and sizes)."""
        out = []
        for n in self.nodes_of(c):
            for i, a in enumerate(self.nodes[n].args):
                if isinstance(a, float) and a not in (0.0, 1.0) and math.isfinite(a):
                    out.append((n, i))
        return out

    def input_value_shape(self, c: Candidate, name: str) -> int:
        v = self.problem.inputs[self.placeholders.index(name)] if name in self.placeholders \
            else self.values[name]
        if not isinstance(v, torch.Tensor):
            return 0
        sizes = dict(c.sizes)
        return math.prod(min(sizes.get(s, s), s) for s in v.shape)

    def build(self, c: Candidate) -> Built:
        graph = torch.fx.Graph()
        env: dict[str, torch.fx.Node] = {}
        names = self.input_names(c)
        for name in names:
            env[name] = graph.placeholder(name)
        root = torch.nn.Module()
        for name in self.nodes_of(c):
            node = self.nodes[name]
            new = graph.node_copy(node, lambda a: env[a.name])
            units = [i for (m, i) in c.unit_consts if m == name]
            if units:
                new.args = tuple(1.0 if i in units else a for i, a in enumerate(new.args))
            if node.op == "get_attr":
                codec.set_attr(root, str(node.target), codec.get_attr(self.gm, str(node.target)))
            env[name] = new
        outs = [env[o] for o in c.outputs]
        graph.output(tuple(outs))
        gm = torch.fx.GraphModule(root, graph)
        config = {k: v for k, v in self.problem.doc.get("config", {}).items()
                  if k not in c.dropped_config}
        return Built(gm, [self.input_value(c, n) for n in names], names, config)

    def key(self, c: Candidate) -> tuple:
        return (c.kept, c.outputs, c.sizes, c.zeroed, c.dropped_config, c.unit_consts)


def _writes(gm: torch.fx.GraphModule) -> tuple[dict[str, str], dict[str, str]]:
    """({node: the tensor it is, when it aliases another: an in-place op's result}, {writer:
    the tensor it writes}), in graph order, for in-place ops and `x[i] = v`: a graph that
    returns an input it changed in place (`u.add_(...)` ... `return (u,)`) computes that
    input's new value in its writes, and an op that reads a tensor after a write reads the
    write too (probes46c acc_heat_rod_mirror_inplace: "the failing graph returns no tensor
    computed by the graph"). Writes through an in-place op's result (`u.add_(a).mul_(b)`)
    count."""
    alias: dict[str, str] = {}
    writes: dict[str, str] = {}
    for n in gm.graph.nodes:
        first = n.args[0] if n.args else None
        if isinstance(first, torch.fx.Node) and (
                named_in_place(n) or (n.op == "call_function" and n.target is operator.setitem)):
            root = alias.get(first.name, first.name)
            writes[n.name] = root
            if n.target is not operator.setitem:
                alias[n.name] = root
    return alias, writes


def _flat_nodes(arg: Any) -> list[torch.fx.Node]:
    out: list[torch.fx.Node] = []
    torch.fx.node.map_arg(arg, lambda n: out.append(n) or n)
    return out


# -- the predicate --------------------------------------------------------------------------------
@dataclass
class QueryLog:
    compiles: int = 0
    invalid: int = 0
    outcomes: list[tuple[str, Any]] = field(default_factory=list)


def make_predicate(model: Model, log: QueryLog,
                   run: Callable[..., tuple[str, Any]] | None = None
                   ) -> Callable[[Candidate], bool]:
    p = model.problem
    target = p.target
    run = run or (oracle.run_dynamo_case if p.dynamo else oracle.run_case)

    def predicate(c: Candidate) -> bool:
        built = model.build(c)
        extra = {"built": built, "candidate": c} if getattr(run, "wants_candidate", False) \
            else {}
        if p.dynamic_shapes and run is oracle.run_case:
            extra["dynamic"] = True
        if p.grad_inputs:
            extra["grads"] = p.grad_positions(built.input_names)
        outcome = run(built.gm, built.inputs, p.kind, built.config,
                      grad_enabled=bool(p.doc.get("grad_enabled")), tol=p.doc.get("tol"),
                      **extra)
        if outcome[0] == "invalid":
            log.invalid += 1
        else:
            log.compiles += 1
        log.outcomes.append(outcome)
        return outcome[0] == "fail" and tuple(outcome[1]) == tuple(target)

    return predicate
