"""A failing graph and its real inputs as data: capture encodes it, `compdiag minify` decodes it.

The graph is stored as data, never as code to execute: a JSON node list whose targets are
names resolved against an allow-list of torch namespaces when rebuilt. Tensors (inputs and
get_attr constants) go into the `tensors` table as raw bytes with dtype/shape/stride, never
pickled; the record `compdiag:failure_graph` (payload: the JSON document) ties them to the
compile id.

Importing this module does not import torch: the first call that needs it does."""

from __future__ import annotations

import builtins
import json
import math
import operator
from typing import Any, Callable

FORMAT_VERSION = 1
RECORD_KIND = "failure_graph"  # stored as record kind "compdiag:failure_graph"
SURVIVED_KIND = "failure_graph_survived"  # a kept-before-the-call graph whose call returned

torch: Any = None  # the torch module, bound by _torch() on first use


class UnsupportedGraph(Exception):
    """A graph this module cannot describe as data (its message is one line)."""


def _torch() -> Any:
    global torch
    if torch is None:
        import torch as t
        import torch.fx as _fx  # noqa: F401 - torch.fx.Node, GraphModule

        torch = t
    return torch


# -- call targets ---------------------------------------------------------------------------------
_NAMESPACES: list[tuple[str, Any]] = []
_ALLOWED_ROOTS = ("torch", "operator", "math", "builtins")
_BUILTINS_OK = {"getattr", "len", "abs", "min", "max", "int", "float", "bool", "round"}


# torch.func's plumbing in a Dynamo graph (vmap/grad/jvp traced as calls that enter and leave
# a transform level, wrap and unwrap its tensors): torch's own modules, fixed names, imported
# when a graph is encoded or rebuilt (probes26: a vmap(grad(...)) graph "cannot name the call
# target lazy_load_decompositions", so no minify).
FUNCTORCH_MODULES = ("torch._functorch.predispatch", "torch._functorch.eager_transforms",
                     "torch._functorch.vmap", "torch._functorch.apis")


def _functorch_namespaces() -> list[tuple[str, Any]]:
    import importlib

    out = []
    for name in FUNCTORCH_MODULES:
        try:
            out.append((name, importlib.import_module(name)))
        except Exception:  # noqa: BLE001 - a torch without it: its targets stay unnamed
            continue
    return out + [(name, getattr(torch._C, name.rsplit(".", 1)[1]))
                  for name in ("torch._C._functorch", "torch._C._autograd")
                  if hasattr(torch._C, name.rsplit(".", 1)[1])]


def _namespaces() -> list[tuple[str, Any]]:
    if not _NAMESPACES:
        _torch()
        import torch.nn.functional as F

        _NAMESPACES.extend([
            ("torch", torch), ("torch.nn.functional", F), ("torch._C._nn", torch._C._nn),
            ("torch.Tensor", torch.Tensor), ("torch.special", torch.special),
            ("torch.linalg", torch.linalg), ("torch.fft", torch.fft), ("operator", operator),
            ("math", math), ("builtins", builtins), *_functorch_namespaces(),
        ])
    return _NAMESPACES


def target_name(target: Any) -> str:
    """A dotted name for a call_function target, checked to resolve back to the same object."""
    _torch()
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


# The op namespaces torch itself defines; an op of any other is a custom op some program or
# library registers (minify, which imports nothing, cannot call it).
TORCH_NAMESPACES = frozenset({
    "aten", "prims", "quantized", "_quantized", "inductor", "higher_order", "profiler",
    "debugprims", "_c10d_functional", "c10d_functional", "_c10d_functional_autograd",
    "_dtensor", "fsdp", "mkldnn", "onednn", "quantized_decomposed", "_inductor_test",
    "rngprims", "cudnn"})


# torch's own modules that define ops of its namespaces when imported (Inductor's prims: fma,
# inductor_random; the rng prims): imported, once, only when a graph names such an op.
TORCH_OP_MODULES = ("torch._prims", "torch._prims.rng_prims", "torch._inductor.inductor_prims")
_defined: list[bool] = []


def _define_torch_ops() -> bool:
    """Import TORCH_OP_MODULES (fixed names of torch's, never one a graph names); True the
    first time, False after (nothing more to define)."""
    if _defined:
        return False
    _defined.append(True)
    import importlib

    for module in TORCH_OP_MODULES:
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 - a torch without it: the op stays undefined
            continue
    return True


def resolve_target(name: str) -> Any:
    """The callable a dotted name refers to, from torch/operator/math only (never an import)."""
    parts = name.split(".")
    if parts[0] not in _ALLOWED_ROOTS:
        raise UnsupportedGraph(f"target {name!r} is outside torch/operator/math")
    if parts[0] == "builtins" and (len(parts) != 2 or parts[1] not in _BUILTINS_OK):
        raise UnsupportedGraph(f"target {name!r} is not an allowed builtin")
    obj: Any = {"torch": _torch(), "operator": operator, "math": math,
                "builtins": builtins}[parts[0]]
    if name.startswith(("torch._functorch.", "torch._C._functorch.", "torch._C._autograd.")):
        _namespaces()  # its modules imported (FUNCTORCH_MODULES: fixed names of torch's)
    for i, p in enumerate(parts[1:], 1):
        if p.startswith("__"):
            raise UnsupportedGraph(f"target {name!r} names a dunder attribute")
        try:
            obj = getattr(obj, p)
        except AttributeError:
            if i == 3 and parts[1] == "ops" and parts[2] in TORCH_NAMESPACES and \
                    _define_torch_ops():  # a prim torch defines when its module loads
                try:
                    obj = getattr(obj, p)
                    continue
                except AttributeError:
                    pass
            raise UnsupportedGraph(
                f"{name} is not defined in this process (a custom op only the program "
                "registers: it cannot be run outside that program)" if len(parts) < 3 or
                parts[2] not in TORCH_NAMESPACES else
                f"{name} is not defined by this torch ({_torch().__version__})") from None
    if not callable(obj):
        raise UnsupportedGraph(f"target {name!r} is not callable")
    return obj


# -- arguments ------------------------------------------------------------------------------------
def encode_arg(a: Any) -> Any:
    """A node argument as JSON: nodes by name, tuples/dtypes/devices/... tagged."""
    _torch()
    return _encode(a)


def _encode(a: Any) -> Any:
    if isinstance(a, torch.fx.Node):
        return {"__node__": a.name}
    if isinstance(a, bool) or a is None or isinstance(a, (int, str)):
        return a
    if isinstance(a, float):
        return a if math.isfinite(a) else {"__float__": repr(a)}
    if isinstance(a, list):
        return [_encode(x) for x in a]
    if isinstance(a, (tuple, torch.Size)):
        return {"__tuple__": [_encode(x) for x in a]}
    if isinstance(a, dict):
        return {"__dict__": [[_encode(k), _encode(v)] for k, v in a.items()]}
    if isinstance(a, torch.dtype):
        return {"__dtype__": str(a).replace("torch.", "")}
    if isinstance(a, torch.device):
        return {"__device__": str(a)}
    if isinstance(a, (torch.memory_format, torch.layout)):
        return {"__torchconst__": str(a).replace("torch.", "")}
    if isinstance(a, slice):
        return {"__slice__": [_encode(a.start), _encode(a.stop), _encode(a.step)]}
    if a is Ellipsis:
        return {"__ellipsis__": True}
    raise UnsupportedGraph(f"cannot describe the argument {type(a).__name__} {a!r:.60}")


def decode_arg(a: Any, env: dict[str, Any]) -> Any:
    """The argument `encode_arg` described; nodes are looked up by name in `env`."""
    _torch()
    return _decode(a, env)


def _decode(a: Any, env: dict[str, Any]) -> Any:
    if isinstance(a, list):
        return [_decode(x, env) for x in a]
    if not isinstance(a, dict):
        return a
    if "__node__" in a:
        return env[a["__node__"]]
    if "__tuple__" in a:
        return tuple(_decode(x, env) for x in a["__tuple__"])
    if "__dict__" in a:
        return {_decode(k, env): _decode(v, env) for k, v in a["__dict__"]}
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
        if not isinstance(value, (torch.memory_format, torch.layout)):
            raise UnsupportedGraph(f"unknown torch constant {a['__torchconst__']!r}")
        return value
    if "__slice__" in a:
        return slice(*(_decode(x, env) for x in a["__slice__"]))
    if "__ellipsis__" in a:
        return Ellipsis
    raise UnsupportedGraph(f"unknown encoded argument {a!r:.80}")


# -- graph <-> node list --------------------------------------------------------------------------
def graph_to_nodes(gm: Any) -> list[dict[str, Any]]:
    """A GraphModule's nodes as JSON-able dicts (name, op, target, args, kwargs)."""
    _torch()
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
                      "args": _encode(n.args), "kwargs": _encode(dict(n.kwargs))})
    return nodes


def nodes_to_graph(nodes: list[dict[str, Any]], attrs: dict[str, Any]) -> Any:
    """Rebuild a GraphModule from the node list; get_attr targets come from `attrs`."""
    _torch()
    root = torch.nn.Module()
    graph = torch.fx.Graph()
    env: dict[str, Any] = {}
    for spec in nodes:
        op, name = spec["op"], spec["name"]
        args = _decode(spec["args"], env)
        kwargs = _decode(spec["kwargs"], env)
        if op == "placeholder":
            node = graph.placeholder(name)
        elif op == "get_attr":
            tgt = spec["target"]
            set_attr(root, tgt, attrs[tgt])
            node = graph.get_attr(tgt)
        elif op == "call_function":
            node = graph.call_function(resolve_target(spec["target"]), tuple(args), kwargs)
        elif op == "call_method":
            node = graph.call_method(spec["target"], tuple(args), kwargs)
        elif op == "output":
            # named as the graph named it: a Dynamo graph may hold a value called `output`
            # (vmap's result), its output node then `output_1` (probes26)
            graph.create_node("output", "output", (args[0],), name=name)
            continue
        else:
            raise UnsupportedGraph(f"node op {op} is not supported")
        node.name = name
        env[name] = node
    graph.lint()
    return torch.fx.GraphModule(root, graph)


def set_attr(root: Any, target: str, value: Any) -> None:
    """Register `value` on module `root` at dotted `target` (a parameter or a buffer)."""
    _torch()
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


def get_attr(module: Any, target: str) -> Any:
    obj: Any = module
    for p in target.split("."):
        obj = getattr(obj, p)
    return obj


def code_of(nodes: list[dict[str, Any]], gm: Any) -> str:
    """The graph as Python text, for people (never executed by compdiag)."""
    try:
        attrs = {n["target"]: get_attr(gm, n["target"]) for n in nodes if n["op"] == "get_attr"}
        return nodes_to_graph(nodes, attrs).code
    except Exception as exc:  # noqa: BLE001
        return f"# code unavailable: {type(exc).__name__}: {exc}"


# -- tensors as raw bytes -------------------------------------------------------------------------
def tensor_bytes(t: Any) -> bytes:
    _torch()
    t = t.detach().to("cpu").contiguous()
    if t.is_conj():
        t = t.resolve_conj()
    return t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""


def tensor_from_bytes(data: bytes | None, dtype: str, shape: list[int],
                      stride: list[int] | None = None, device: str = "cpu") -> Any:
    _torch()
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


def tensor_row(t: Any) -> dict[str, Any]:
    """The `tensors` table's columns for one tensor (besides run, compile and role)."""
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "stride": list(t.stride()), "data": tensor_bytes(t)}


def stored_role(tag: str, role: str) -> str:
    """A document's tensor `role` as its row in the `tensors` table names it."""
    return f"{tag}:{role}"


# -- the document ---------------------------------------------------------------------------------
def encode(nodes: list[dict[str, Any]], gm: Any, inputs: list[Any], *, kind: str, stage: str,
           exc_type: str, message: str, sig: tuple[str, str] | None,
           config: dict[str, Any], grad_enabled: bool, extra: dict[str, Any] | None = None
           ) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """(the JSON document, [(role, tensor)]) for a graph's node list, the module that holds
    its get_attr tensors, and the inputs it failed on."""
    _torch()
    placeholders = [n for n in nodes if n["op"] == "placeholder"]
    if len(placeholders) != len(inputs):
        raise UnsupportedGraph(f"{len(placeholders)} placeholders but {len(inputs)} inputs")
    tensors: list[tuple[str, Any]] = []
    ins = []
    for i, (ph, value) in enumerate(zip(placeholders, inputs)):
        entry: dict[str, Any] = {"name": ph["name"]}
        if isinstance(value, torch.Tensor):
            role = f"input:{i}"
            entry.update(tensor=role, requires_grad=bool(value.requires_grad),
                         device=str(value.device))
            tensors.append((role, value))
        elif isinstance(value, (bool, int, float)) or value is None:
            entry["scalar"] = _encode(value)
        elif isinstance(value, torch.SymInt):
            entry["scalar"] = int(value.node.hint) if value.node.hint is not None else None
        else:
            raise UnsupportedGraph(f"input {i} is a {type(value).__name__}")
        ins.append(entry)
    attrs = {}
    for n in nodes:
        if n["op"] == "get_attr":
            value = get_attr(gm, n["target"])
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
        "grad_enabled": grad_enabled, "config": config,
        "torch_version": torch.__version__, "code": code_of(nodes, gm),
    }
    if extra:
        doc.update(extra)
    return doc, tensors


def decode_values(doc: dict[str, Any], tensor: Callable[[str, dict[str, Any]], Any]
                  ) -> tuple[list[Any], dict[str, Any]]:
    """(inputs per placeholder, get_attr tensors by target) of a document; `tensor(role,
    spec)` reads one stored tensor (and puts it on spec's device)."""
    _torch()
    inputs: list[Any] = []
    for spec in doc["inputs"]:
        if "tensor" in spec:
            t = tensor(spec["tensor"], spec)
            if spec.get("requires_grad") and (t.is_floating_point() or t.is_complex()):
                t.requires_grad_(True)
            inputs.append(t)
        else:
            inputs.append(_decode(spec.get("scalar"), {}))
    attrs: dict[str, Any] = {}
    for name, spec in doc.get("attrs", {}).items():
        t = tensor(spec["tensor"], spec)
        attrs[name] = (torch.nn.Parameter(t, requires_grad=spec.get("requires_grad", False))
                       if spec.get("parameter") else t)
    return inputs, attrs


def graph_role(doc: Any) -> str:
    """A kept graph's role, from its document (a dict, or its JSON text): "backward",
    "forward+grads" (a forward kept with its gradients compared) or "forward"."""
    if isinstance(doc, str):
        try:
            doc = json.loads(doc)
        except ValueError:
            doc = None
    if not isinstance(doc, dict):
        return "forward"
    return doc.get("graph") or ("forward+grads" if doc.get("grads") else "forward")
