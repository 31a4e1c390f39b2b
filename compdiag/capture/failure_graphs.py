"""The graph and real inputs at a failure, kept for `compdiag minify`.

Wraps Dynamo's call into the backend (chaining with whatever already wraps it, e.g. the
accuracy checker). For every graph it keeps a reference to a copy of the graph and to the
example inputs, which is cheap; only when something fails is anything serialised:

- compile errors after Dynamo: an exception out of the backend call;
- runtime errors in compiled code: an exception out of the compiled callable;
- accuracy mismatches (`run --check-accuracy`): the accuracy checker's failing GraphCheck.

The graph is stored as data, never as code to execute: a JSON node list whose targets are
names resolved against an allow-list of torch namespaces when rebuilt. Tensors (inputs and
get_attr constants) go into the `tensors` table as raw bytes with dtype/shape/stride; the
record `compdiag:failure_graph` (payload: the JSON) ties them to the compile id."""

from __future__ import annotations

import builtins
import json
import math
import operator
from typing import Any, Callable

import torch
import torch.fx

from compdiag.formats.signature import innermost, signature
from compdiag.formats.tolerances import user_tol

FORMAT_VERSION = 1
RECORD_KIND = "failure_graph"  # stored as record kind "compdiag:failure_graph"
SURVIVED_KIND = "failure_graph_survived"  # a kept-before-the-call graph whose call returned


class UnsupportedGraph(Exception):
    """A graph this module cannot describe as data (its message is one line)."""


# -- graph <-> data -----------------------------------------------------------------------------
_NAMESPACES: list[tuple[str, Any]] = []


def _namespaces() -> list[tuple[str, Any]]:
    if not _NAMESPACES:
        import torch.nn.functional as F

        _NAMESPACES.extend([
            ("torch", torch), ("torch.nn.functional", F), ("torch._C._nn", torch._C._nn),
            ("torch.Tensor", torch.Tensor), ("torch.special", torch.special),
            ("torch.linalg", torch.linalg), ("torch.fft", torch.fft), ("operator", operator),
            ("math", math), ("builtins", builtins),
        ])
    return _NAMESPACES


_ALLOWED_ROOTS = ("torch", "operator", "math", "builtins")
_BUILTINS_OK = {"getattr", "len", "abs", "min", "max", "int", "float", "bool", "round"}


def target_name(target: Any) -> str:
    """A dotted name for a call_function target, checked to resolve back to the same object."""
    if isinstance(target, torch._ops.OpOverload):
        return f"torch.ops.{target.namespace}.{target._opname}.{target._overloadname}"
    if isinstance(target, torch._ops.OpOverloadPacket):
        return f"torch.ops.{target._qualified_op_name.replace('::', '.')}"
    name = getattr(target, "__name__", None)
    if name:
        for ns_name, ns in _namespaces():
            if ns_name == "builtins" and name not in _BUILTINS_OK:
                continue
            if getattr(ns, name, None) is target:
                return f"{ns_name}.{name}"
    raise UnsupportedGraph(f"cannot name the call target {target!r}")


def resolve_target(name: str) -> Any:
    """The callable a dotted name refers to, from torch/operator/math only (never an import)."""
    parts = name.split(".")
    if parts[0] not in _ALLOWED_ROOTS:
        raise UnsupportedGraph(f"target {name!r} is outside torch/operator/math")
    if parts[0] == "builtins" and (len(parts) != 2 or parts[1] not in _BUILTINS_OK):
        raise UnsupportedGraph(f"target {name!r} is not an allowed builtin")
    obj: Any = {"torch": torch, "operator": operator, "math": math, "builtins": builtins}[parts[0]]
    for p in parts[1:]:
        if p.startswith("__"):
            raise UnsupportedGraph(f"target {name!r} names a dunder attribute")
        obj = getattr(obj, p)
    if not callable(obj):
        raise UnsupportedGraph(f"target {name!r} is not callable")
    return obj


_TORCH_CONSTS = (torch.memory_format, torch.layout)


def encode_arg(a: Any) -> Any:
    if isinstance(a, torch.fx.Node):
        return {"__node__": a.name}
    if isinstance(a, bool) or a is None or isinstance(a, (int, str)):
        return a
    if isinstance(a, float):
        return a if math.isfinite(a) else {"__float__": repr(a)}
    if isinstance(a, list):
        return [encode_arg(x) for x in a]
    if isinstance(a, (tuple, torch.Size)):
        return {"__tuple__": [encode_arg(x) for x in a]}
    if isinstance(a, dict):
        return {"__dict__": [[encode_arg(k), encode_arg(v)] for k, v in a.items()]}
    if isinstance(a, torch.dtype):
        return {"__dtype__": str(a).replace("torch.", "")}
    if isinstance(a, torch.device):
        return {"__device__": str(a)}
    if isinstance(a, _TORCH_CONSTS):
        return {"__torchconst__": str(a).replace("torch.", "")}
    if isinstance(a, slice):
        return {"__slice__": [encode_arg(a.start), encode_arg(a.stop), encode_arg(a.step)]}
    if a is Ellipsis:
        return {"__ellipsis__": True}
    raise UnsupportedGraph(f"cannot describe the argument {type(a).__name__} {a!r:.60}")


def decode_arg(a: Any, env: dict[str, Any]) -> Any:
    if isinstance(a, list):
        return [decode_arg(x, env) for x in a]
    if not isinstance(a, dict):
        return a
    if "__node__" in a:
        return env[a["__node__"]]
    if "__tuple__" in a:
        return tuple(decode_arg(x, env) for x in a["__tuple__"])
    if "__dict__" in a:
        return {decode_arg(k, env): decode_arg(v, env) for k, v in a["__dict__"]}
    if "__float__" in a:
        return float(a["__float__"])
    if "__dtype__" in a:
        dt = getattr(torch, a["__dtype__"])
        if not isinstance(dt, torch.dtype):
            raise UnsupportedGraph(f"unknown dtype {a['__dtype__']!r}")
        return dt
    if "__device__" in a:
        return torch.device(a["__device__"])
    if "__torchconst__" in a:
        value = getattr(torch, a["__torchconst__"])
        if not isinstance(value, _TORCH_CONSTS):
            raise UnsupportedGraph(f"unknown torch constant {a['__torchconst__']!r}")
        return value
    if "__slice__" in a:
        return slice(*(decode_arg(x, env) for x in a["__slice__"]))
    if "__ellipsis__" in a:
        return Ellipsis
    raise UnsupportedGraph(f"unknown encoded argument {a!r:.80}")


def graph_to_nodes(gm: torch.fx.GraphModule) -> list[dict[str, Any]]:
    nodes = []
    for n in gm.graph.nodes:
        if n.op == "call_module":
            raise UnsupportedGraph(f"call_module node {n.name} ({n.target}) is not supported")
        if n.op == "call_function":
            target: Any = target_name(n.target)
        elif n.op in ("call_method", "get_attr", "placeholder", "output"):
            target = str(n.target)
        else:
            raise UnsupportedGraph(f"node op {n.op} is not supported")
        nodes.append({"name": n.name, "op": n.op, "target": target,
                      "args": encode_arg(n.args), "kwargs": encode_arg(dict(n.kwargs))})
    return nodes


def nodes_to_graph(nodes: list[dict[str, Any]], attrs: dict[str, torch.Tensor]
                   ) -> torch.fx.GraphModule:
    """Rebuild a GraphModule from the node list; get_attr targets come from `attrs`."""
    root = torch.nn.Module()
    graph = torch.fx.Graph()
    env: dict[str, torch.fx.Node] = {}
    for spec in nodes:
        op, name = spec["op"], spec["name"]
        args = decode_arg(spec["args"], env)
        kwargs = decode_arg(spec["kwargs"], env)
        if op == "placeholder":
            node = graph.placeholder(name)
        elif op == "get_attr":
            tgt = spec["target"]
            _set_attr(root, tgt, attrs[tgt])
            node = graph.get_attr(tgt)
        elif op == "call_function":
            node = graph.call_function(resolve_target(spec["target"]), tuple(args), kwargs)
        elif op == "call_method":
            node = graph.call_method(spec["target"], tuple(args), kwargs)
        elif op == "output":
            graph.output(args[0])
            continue
        else:
            raise UnsupportedGraph(f"node op {op} is not supported")
        node.name = name
        env[name] = node
    graph.lint()
    return torch.fx.GraphModule(root, graph)


def _set_attr(root: torch.nn.Module, target: str, value: torch.Tensor) -> None:
    *path, leaf = target.split(".")
    mod = root
    for p in path:
        if not hasattr(mod, p):
            mod.add_module(p, torch.nn.Module())
        mod = getattr(mod, p)
    if isinstance(value, torch.nn.Parameter):
        mod.register_parameter(leaf, value)
    else:
        mod.register_buffer(leaf, value)


# -- tensors as raw bytes -------------------------------------------------------------------------
def tensor_bytes(t: torch.Tensor) -> bytes:
    t = t.detach().to("cpu").contiguous()
    if t.is_conj():
        t = t.resolve_conj()
    return t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""


def tensor_from_bytes(data: bytes | None, dtype: str, shape: list[int],
                      stride: list[int] | None = None, device: str = "cpu") -> torch.Tensor:
    dt = getattr(torch, dtype.replace("torch.", ""))
    if not isinstance(dt, torch.dtype):
        raise UnsupportedGraph(f"unknown dtype {dtype!r}")
    numel = math.prod(shape)
    if numel == 0 or not data:
        flat = torch.empty(numel, dtype=dt)
    else:
        flat = torch.frombuffer(bytearray(data), dtype=dt).clone()
    t = flat.reshape(shape)
    if stride is not None and list(t.stride()) != list(stride) and numel:
        out = torch.empty_strided(shape, stride, dtype=dt)
        out.copy_(t)
        t = out
    return t.to(device) if device != "cpu" else t


def config_patches() -> dict[str, Any]:
    """Non-default torch._inductor.config values that a script can write back as literals."""
    import torch._inductor.config as ic

    out: dict[str, Any] = {}
    try:  # fast (0.3 ms): the values a user or environment set, from the config entries
        from torch.utils._config_module import _UNSET_SENTINEL

        for key, entry in ic._config.items():
            if entry.user_override.get() is not _UNSET_SENTINEL or \
                    entry.env_value_force is not _UNSET_SENTINEL:
                value = getattr(ic, key)
                if entry.default is not _UNSET_SENTINEL and value == entry.default:
                    continue  # set, but to its default (torch itself does this for some)
                if _literal(value):
                    out[key] = value
        return out
    except (ImportError, AttributeError):
        out = {}
    # slow (seconds on a busy machine): another torch's config module
    for key, value in ic.get_config_copy().items():
        try:
            if ic._is_default(key):
                continue
        except Exception:  # noqa: BLE001
            continue
        if _literal(value):
            out[key] = value
    return out


def _literal(v: Any) -> bool:
    if v is None or isinstance(v, (bool, int, str)):
        return True
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, (list, tuple)):
        return all(_literal(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _literal(x) for k, x in v.items())
    return False


# -- describing one failing graph -----------------------------------------------------------------
def describe(gm: Any, inputs: list[Any], *, kind: str, stage: str,
             exc_type: str, message: str, sig: tuple[str, str] | None,
             extra: dict[str, Any] | None = None
             ) -> tuple[dict[str, Any], list[tuple[str, torch.Tensor]]]:
    """(the JSON document, [(role, tensor)]) for a graph and the inputs it failed on."""
    kept = getattr(gm, "_compdiag_kept", None)
    if kept is not None:  # a Kept: the node list taken before the backend changed the graph
        if kept.error:
            raise UnsupportedGraph(kept.error)
        nodes, gm = kept.nodes, kept.gm
    else:
        nodes = graph_to_nodes(gm)
    placeholders = [n for n in nodes if n["op"] == "placeholder"]
    if len(placeholders) != len(inputs):
        raise UnsupportedGraph(f"{len(placeholders)} placeholders but {len(inputs)} inputs")
    tensors: list[tuple[str, torch.Tensor]] = []
    ins = []
    for i, (ph, value) in enumerate(zip(placeholders, inputs)):
        entry: dict[str, Any] = {"name": ph["name"]}
        if isinstance(value, torch.Tensor):
            role = f"input:{i}"
            entry.update(tensor=role, requires_grad=bool(value.requires_grad),
                         device=str(value.device))
            tensors.append((role, value))
        elif isinstance(value, (bool, int, float)) or value is None:
            entry["scalar"] = encode_arg(value)
        elif isinstance(value, torch.SymInt):
            entry["scalar"] = int(value.node.hint) if value.node.hint is not None else None
        else:
            raise UnsupportedGraph(f"input {i} is a {type(value).__name__}")
        ins.append(entry)
    attrs = {}
    for n in nodes:
        if n["op"] == "get_attr":
            value = _get_attr(gm, n["target"])
            if not isinstance(value, torch.Tensor):
                raise UnsupportedGraph(f"get_attr {n['target']} is a {type(value).__name__}")
            role = f"attr:{n['target']}"
            attrs[n["target"]] = {"tensor": role,
                                  "parameter": isinstance(value, torch.nn.Parameter),
                                  "requires_grad": bool(value.requires_grad),
                                  "device": str(value.device)}
            tensors.append((role, value))
    doc = {
        "format": FORMAT_VERSION, "kind": kind, "stage": stage, "exc_type": exc_type,
        "message": message[:2000], "signature": list(sig) if sig else None,
        "nodes": nodes, "inputs": ins, "attrs": attrs,
        "grad_enabled": torch.is_grad_enabled(),
        "config": kept.config if kept is not None else config_patches(),
        "torch_version": torch.__version__, "code": _code(nodes, gm),
    }
    if extra:
        doc.update(extra)
    return doc, tensors


def _code(nodes: list[dict[str, Any]], gm: torch.nn.Module) -> str:
    """The graph as Python text, for people (never executed by compdiag)."""
    try:
        attrs = {n["target"]: _get_attr(gm, n["target"]) for n in nodes if n["op"] == "get_attr"}
        return nodes_to_graph(nodes, attrs).code
    except Exception as exc:  # noqa: BLE001
        return f"# code unavailable: {type(exc).__name__}: {exc}"


class Kept:
    """What is kept of every graph at compile time (cheap: ~15 ms for 2,000 nodes): its node
    list (the backend may rewrite the graph in place afterwards), a reference to the module
    (for get_attr tensors) and the user's config patches."""

    def __init__(self, gm: torch.fx.GraphModule) -> None:
        self.gm = gm
        self.config = config_patches()
        self.error: str | None = None
        self.nodes: list[dict[str, Any]] = []
        try:
            self.nodes = graph_to_nodes(gm)
        except UnsupportedGraph as exc:
            self.error = str(exc)

    @property
    def _compdiag_kept(self) -> "Kept":
        return self


def _get_attr(gm: torch.nn.Module, target: str) -> Any:
    obj: Any = gm
    for p in target.split("."):
        obj = getattr(obj, p)
    return obj


def write(ing: Any, compile_id: str | None, doc: dict[str, Any],
          tensors: list[tuple[str, torch.Tensor]]) -> None:
    """Into the store through the ingestor's writer: tensors first, then the record."""
    tag = f"fg{ing.seq + 1}"
    doc["tensor_tag"] = tag
    for role, t in tensors:
        ing.w.insert("tensors", run_id=ing.run_id, compile_id=compile_id, role=f"{tag}:{role}",
                     dtype=str(t.dtype).replace("torch.", ""), shape=list(t.shape),
                     stride=list(t.stride()), data=tensor_bytes(t))
    ing.event(RECORD_KIND, compile_id, {"kind": doc["kind"], "stage": doc["stage"],
                                        "exc_type": doc["exc_type"]},
              json.dumps(doc, default=repr))
    ing.w.flush()


# -- the hook -------------------------------------------------------------------------------------
class FailureGraphs:
    """Installed by Capture; `record(...)` goes through the capture's fail-open guard."""

    def __init__(self, capture: Any, *, accuracy: bool = False, keep_all: bool = False) -> None:
        self.capture = capture
        self.accuracy = accuracy
        self.kept: dict[str | None, tuple[Kept, list[Any]]] = {}
        self.recorded: set[tuple[str | None, str]] = set()
        self.keep_all = keep_all
        self._busy = False

    def install(self) -> None:
        from compdiag.capture.backend_hook import hook_backend_call
        from compdiag.capture.hooks import _current_compile_id

        fg = self

        def keep(gm: torch.fx.GraphModule) -> tuple[str | None, Kept] | None:
            try:
                # The user's config, before Inductor's own patches.
                return _current_compile_id(), Kept(gm)
            except Exception as exc:  # noqa: BLE001 - fail open
                fg.capture.warn("failure graph copy", exc)
                return None

        def on_error(kept: tuple[str | None, Kept], example_inputs: Any,
                     exc: BaseException) -> None:
            cid, gm = kept
            fg._record(gm, list(example_inputs), cid, "compile_error", exc)

        def wrap(kept: tuple[str | None, Kept], compiled: Callable[..., Any],
                 _compiler: Any) -> Callable[..., Any]:
            cid, gm = kept
            if fg.accuracy:
                fg.kept[cid] = (gm, [])
            return fg._wrap(gm, compiled, cid)

        hook_backend_call(lambda: bool(fg._busy or fg.capture.paused_depth), wrap, keep=keep,
                          on_error=on_error)
        if self.accuracy:
            on_accuracy = self.capture._on_accuracy

            def _on_accuracy(check: Any) -> None:
                on_accuracy(check)
                self.capture.guarded("failure graph (accuracy)", self._on_check, check)

            self.capture._on_accuracy = _on_accuracy

    def _wrap(self, gm: Kept, compiled: Callable[..., Any],
              cid: str | None) -> Callable[..., Any]:
        fg = self
        first = {"done": False}

        def run(*args: Any) -> Any:
            if fg.accuracy and not first["done"] and not fg._busy:
                first["done"] = True
                try:
                    fg.kept[cid] = (gm, [a.detach().clone() if isinstance(a, torch.Tensor)
                                         else a for a in args])
                except Exception as exc:  # noqa: BLE001
                    fg.capture.warn("failure graph inputs", exc)
            pending = fg.keep_all and not first.get("kept") and not fg._busy
            if pending:
                # Opt-in (COMPDIAG_KEEP_GRAPHS=1): a call that kills the process (abort,
                # segfault, device assert) leaves nothing to catch, so write graph and inputs
                # before the first call; a `called` event after it marks it survived.
                first["kept"] = True
                fg.capture.guarded("failure graph (keep)", fg._write, gm, list(args), cid,
                                   "crash", "runtime", "Signal", "the process died in the "
                                   "first call of this compiled graph", None)
            try:
                out = compiled(*args)
            except Exception as exc:
                if not fg._busy:
                    fg._record(gm, list(args), cid, "runtime_error", exc)
                raise
            if pending:
                fg.capture.guarded("failure graph (called)", fg._survived, cid)
            return out

        for attr in ("_boxed_call",):
            if hasattr(compiled, attr):
                setattr(run, attr, getattr(compiled, attr))
        return run

    def _survived(self, cid: str | None) -> None:
        self.capture.ing.event(SURVIVED_KIND, cid, {})

    def _record(self, gm: Kept, inputs: list[Any], cid: str | None,
                kind: str, exc: BaseException) -> None:
        if (cid, kind) in self.recorded:
            return
        self.recorded.add((cid, kind))
        inner = innermost(exc)
        stage = "runtime" if kind == "runtime_error" else _stage(inner)
        self.capture.guarded("failure graph", self._write, gm, inputs, cid, kind, stage,
                             type(inner).__name__, str(inner), signature(inner))

    def _on_check(self, check: Any) -> None:
        if check.ok or check.error or check.nondeterministic:
            return
        kept = self.kept.get(check.compile_id)
        if kept is None or not kept[1]:
            return
        if (check.compile_id, "accuracy") in self.recorded:
            return
        self.recorded.add((check.compile_id, "accuracy"))
        bad = [o for o in check.outputs if not o.ok]
        msg = f"{bad[0].output}: {bad[0].detail.get('reason', 'mismatch')}" if bad else "mismatch"
        self._write(kept[0], kept[1], check.compile_id, "accuracy", "accuracy",
                    "AccuracyMismatch", msg, ("AccuracyMismatch", ""), _user_tolerance())

    def _write(self, gm: Kept | torch.fx.GraphModule, inputs: list[Any], cid: str | None, kind: str,
               stage: str, exc_type: str, message: str, sig: tuple[str, str] | None,
               tol: float | None = None) -> None:
        self._busy = True
        try:
            try:
                doc, tensors = describe(gm, inputs, kind=kind, stage=stage, exc_type=exc_type,
                                        message=message, sig=sig, extra={"tol": tol})
            except UnsupportedGraph as exc:
                self.capture.ing.w.warn(self.capture.ing.run_id,
                                        f"graph {cid} failed ({kind}) but cannot be kept for "
                                        f"minify: {exc}")
                return
            write(self.capture.ing, cid, doc, tensors)
        finally:
            self._busy = False


def _stage(exc: BaseException) -> str:
    import traceback

    from compdiag.ingest.parsers import classify_stage

    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return classify_stage(type(exc).__name__, str(exc), tb)


def _user_tolerance() -> float | None:
    """`compdiag check --rtol/--atol` as one tolerance for torch._dynamo.utils.same (the
    accuracy checker's rule); None: same's per-dtype default."""
    import os

    rtol, atol = (float(os.environ[k]) if os.environ.get(k) else None
                  for k in ("COMPDIAG_RTOL", "COMPDIAG_ATOL"))
    return user_tol(rtol, atol)


def install(capture: Any) -> None:
    """Capture.install's hook: always on (a graph reference per compile, bytes on failure)."""
    import os

    FailureGraphs(capture, accuracy=bool(os.environ.get("COMPDIAG_CHECK_ACCURACY")),
                  keep_all=os.environ.get("COMPDIAG_KEEP_GRAPHS") == "1").install()
