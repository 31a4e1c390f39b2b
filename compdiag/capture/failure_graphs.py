"""The graph and real inputs at a failure, kept for `compdiag minify`.

Wraps Dynamo's call into the backend (chaining with whatever already wraps it, e.g. the
accuracy checker). For every graph it keeps a reference to a copy of the graph and to the
example inputs, which is cheap; only when something fails is anything serialised:

- compile errors after Dynamo: an exception out of the backend call;
- runtime errors in compiled code: an exception out of the compiled callable;
- accuracy mismatches (`run --check-accuracy`): the accuracy checker's failing GraphCheck;
- failures Dynamo raised while running an op on fake tensors (a custom op without a fake
  implementation, a shape error at trace time): the graph Dynamo had traced up to and
  including that op, with the frame's real inputs (`DynamoPrefix`).

What is stored, and how, is formats/failure_graph.py's: a JSON node list (never code) in a
`compdiag:failure_graph` record, tensors as raw bytes in the `tensors` table."""

from __future__ import annotations

import json
import math
from typing import Any, Callable

import torch
import torch.fx

from compdiag.capture import kept_outputs
from compdiag.formats import failure_graph as codec
from compdiag.formats.failure_graph import TORCH_NAMESPACES, UnsupportedGraph
from compdiag.formats.signature import innermost, signature
from compdiag.formats.tolerances import user_tol


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
    """(the JSON document, [(role, tensor)]) for a graph (or its Kept) and the inputs it
    failed on, under the grad mode and config in force now."""
    kept = getattr(gm, "_compdiag_kept", None)
    if kept is not None:  # a Kept: the node list taken before the backend changed the graph
        if kept.error:
            raise UnsupportedGraph(kept.error)
        nodes, gm, config = kept.nodes, kept.gm, kept.config
    else:
        nodes, config = codec.graph_to_nodes(gm), config_patches()
    return codec.encode(nodes, gm, inputs, kind=kind, stage=stage, exc_type=exc_type,
                        message=message, sig=sig, config=config,
                        grad_enabled=torch.is_grad_enabled(), extra=extra)


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
            self.nodes = codec.graph_to_nodes(gm)
        except UnsupportedGraph as exc:
            self.error = str(exc)

    @property
    def _compdiag_kept(self) -> "Kept":
        return self


def write(ing: Any, compile_id: str | None, doc: dict[str, Any],
          tensors: list[tuple[str, torch.Tensor]]) -> None:
    """Into the store through the ingestor: tensors first, then the record, committed at
    once (the process may be about to die)."""
    tag = f"fg{ing.seq + 1}"
    doc["tensor_tag"] = tag
    for role, t in tensors:
        ing.tensor(compile_id, codec.stored_role(tag, role), **codec.tensor_row(t))
    meta = {"kind": doc["kind"], "stage": doc["stage"], "exc_type": doc["exc_type"]}
    if doc["kind"] == "accuracy":   # its role: the order minify tries a compile's graphs in
        meta["graph"] = codec.graph_role(doc)   # (minify/graph.py)
    if doc.get("eager"):   # capture/eager_rerun.py's verdict, for explain
        meta["eager"] = doc["eager"]
    ing.event(codec.RECORD_KIND, compile_id, meta, json.dumps(doc, default=repr))
    ing.commit()


def _self_time(capture: Any) -> Any:
    """The capture's counter of its own time (capture/self_time.py), or one that only calls."""
    counter = getattr(capture, "self_time", None)
    return counter if callable(getattr(counter, "call", None)) else _Uncounted


class _Uncounted:
    @staticmethod
    def call(fn: Callable[..., Any], *args: Any) -> Any:
        return fn(*args)


# -- the hook -------------------------------------------------------------------------------------
class FailureGraphs:
    """Installed by Capture, which it reports to: writes go through `capture.guarded` (fail
    open) into `capture.ing`; `compile_id()` names the compile running now. The capture hands
    each accuracy check to `on_check`."""

    def __init__(self, capture: Any, *, compile_id: Callable[[], str | None] = lambda: None,
                 accuracy: bool = False, keep_all: bool = False) -> None:
        self.capture = capture
        self.compile_id = compile_id
        self.accuracy = accuracy
        self.kept: dict[str | None, tuple[Kept, list[Any]]] = {}
        self.needs_grad: dict[str | None, list[bool]] = {}   # per kept input: requires_grad
        self.recorded: set[tuple[str | None, str]] = set()
        self.keep_all = keep_all
        self._busy = False
        self.backward: Any = None  # capture/backward_graphs.BackwardGraphs (its install())

    def install(self) -> None:
        from compdiag.capture.backend_hook import hook_backend_call

        fg = self

        def keep(gm: torch.fx.GraphModule) -> tuple[str | None, Kept] | None:
            try:
                # The user's config, before Inductor's own patches; capture's own time
                # (issue 34: every graph's nodes listed at its compile).
                return fg.compile_id(), _self_time(fg.capture).call(Kept, gm)
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
            try:  # CUDA-graph outputs kept across calls (capture/kept_outputs.py)
                outputs = kept_outputs.watch(fg.capture, cid, gm.gm, _compiler)
            except Exception as exc:  # noqa: BLE001 - fail open: no watch
                fg.capture.warn("cudagraph outputs", exc)
                outputs = None
            return fg._wrap(gm, compiled, cid, outputs)

        hook_backend_call(lambda: bool(fg._busy or fg.capture.paused_depth), wrap, keep=keep,
                          on_error=on_error)
        DynamoPrefix(self).install()

    def _wrap(self, gm: Kept, compiled: Callable[..., Any], cid: str | None,
              outputs: kept_outputs.OutputWatch | None = None) -> Callable[..., Any]:
        fg = self
        first = {"done": False}
        watched = {"on": outputs is not None}

        def run(*args: Any) -> Any:
            if fg.accuracy and not first["done"] and not fg._busy:
                first["done"] = True
                try:
                    fg.kept[cid] = (gm, [a.detach().clone() if isinstance(a, torch.Tensor)
                                         else a for a in args])
                    fg.needs_grad[cid] = [isinstance(a, torch.Tensor) and a.requires_grad
                                          for a in args]
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
            if watched["on"] and not fg._busy and not fg.capture.paused_depth:
                try:
                    outputs.after(out)  # type: ignore[union-attr]
                except Exception as exc:  # noqa: BLE001 - fail open: stop watching
                    watched["on"] = False
                    fg.capture.warn("cudagraph outputs", exc)
            return out

        for attr in ("_boxed_call",):
            if hasattr(compiled, attr):
                setattr(run, attr, getattr(compiled, attr))
        return run

    def _survived(self, cid: str | None) -> None:
        self.capture.ing.event(codec.SURVIVED_KIND, cid, {})

    def _record(self, gm: Kept, inputs: list[Any], cid: str | None,
                kind: str, exc: BaseException) -> None:
        if (cid, kind) in self.recorded:
            return
        self.recorded.add((cid, kind))
        inner = innermost(exc)
        stage = "runtime" if kind == "runtime_error" else _stage(inner)
        self.capture.guarded("failure graph", self._write, gm, inputs, cid, kind, stage,
                             type(inner).__name__, str(inner), signature(inner))

    def on_check(self, check: Any) -> None:
        """An accuracy check (capture/accuracy.GraphCheck): a mismatch keeps its graph."""
        if not self.accuracy or check.ok or check.error or check.nondeterministic:
            return
        if any(o.detail.get("backward") for o in check.outputs):  # a gradient: its graph
            if self.backward is not None:
                self.backward.on_check(check)
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
               tol: float | None = None, extra: dict[str, Any] | None = None) -> None:
        self._busy = True
        try:
            try:
                doc, tensors = describe(gm, inputs, kind=kind, stage=stage, exc_type=exc_type,
                                        message=message, sig=sig,
                                        extra={"tol": tol, **(extra or {})})
            except UnsupportedGraph as exc:
                self.capture.ing.warn(f"graph {cid} failed ({kind}) but cannot be kept for "
                                      f"minify: {exc}")
                return
            write(self.capture.ing, cid, doc, tensors)
        finally:
            self._busy = False


class DynamoPrefix:
    """A failure Dynamo raised while running one op on fake tensors, kept as the graph Dynamo
    had traced so far (the op it failed on is its last node, the one with no fake value).

    Dynamo cleans its OutputGraph up (`OutputGraph.cleanup`, the graph inputs' real values
    dropped) before the error leaves `convert_frame.trace_frame`: the prefix and its inputs are
    taken in `cleanup` when a node has no fake value, and written when the error escapes
    `trace_frame` as a hard error (not a restart, a skipped frame, or a graph break Dynamo
    may recover from). Costs one pass over the node list per traced frame."""

    def __init__(self, fg: FailureGraphs) -> None:
        self.fg = fg
        self.pending: tuple[Kept, list[Any], dict[str, Any]] | None = None

    def install(self) -> None:
        from torch._dynamo import convert_frame
        from torch._dynamo.output_graph import OutputGraph

        prefix = self
        original_cleanup = OutputGraph.cleanup
        original_trace = convert_frame.trace_frame

        def cleanup(output: Any) -> None:
            if not (prefix.fg._busy or prefix.fg.capture.paused_depth):
                try:
                    prefix.pending = prefix.take(output)
                except Exception as exc:  # noqa: BLE001 - fail open
                    prefix.fg.capture.warn("failure graph (dynamo prefix)", exc)
            return original_cleanup(output)

        def trace_frame(*args: Any, **kwargs: Any) -> Any:
            prefix.pending = None
            try:
                return original_trace(*args, **kwargs)
            except Exception as exc:
                pending, prefix.pending = prefix.pending, None
                if pending is not None and _hard_dynamo_error(exc):
                    prefix.fg.capture.guarded("failure graph (dynamo)", prefix.record,
                                              pending, exc)
                raise

        OutputGraph.cleanup = cleanup
        convert_frame.trace_frame = trace_frame

    def take(self, output: Any) -> tuple[Kept, list[Any], dict[str, Any]] | None:
        """(the prefix, its real inputs, what minify needs of its custom ops) when an op
        failed on fake tensors in this graph, else None."""
        nodes = list(output.graph.nodes)
        bad = next((n for n in nodes if n.op in ("call_function", "call_method")
                    and "example_value" not in n.meta), None)
        if bad is None:
            return None
        placeholders = [n for n in nodes if n.op == "placeholder"]
        if not all("grapharg" in n.meta for n in placeholders):
            return None
        graph = torch.fx.Graph()
        env: dict[torch.fx.Node, torch.fx.Node] = {}
        for n in nodes:
            env[n] = graph.node_copy(n, lambda a: env[a])
            if n is bad:
                break
        graph.output((env[bad],))
        gm = torch.fx.GraphModule(output.nn_modules, graph)
        inputs = [_snapshot(n.meta["grapharg"].example) for n in placeholders]
        return Kept(gm), inputs, {"failing_node": bad.name,
                                  "custom_ops": custom_ops(gm)}

    def record(self, pending: tuple[Kept, list[Any], dict[str, Any]],
               exc: BaseException) -> None:
        kept, inputs, extra = pending
        cid = self.fg.compile_id()
        if (cid, "dynamo") in self.fg.recorded:
            return
        self.fg.recorded.add((cid, "dynamo"))
        inner = innermost(exc)
        if kept.gm is not None:   # the program's bug, or torch's fake path? (no custom op
            from compdiag.capture import eager_rerun   # runs: eager_rerun.pure)

            try:
                said = eager_rerun.verdict(kept.gm, inputs)
            except Exception as err:  # noqa: BLE001 - fail open: no verdict
                self.fg.capture.warn("eager rerun", err)
                said = None
            if said:
                extra = {**extra, "eager": said}
        self.fg._write(kept, inputs, cid, "compile_error", "dynamo", type(inner).__name__,
                       str(inner), signature(inner), extra=extra)


def _hard_dynamo_error(exc: BaseException) -> bool:
    """An error that leaves Dynamo to the user: not a restart or a skipped frame, and not an
    Unsupported Dynamo turns into a graph break (only fullgraph=True makes those errors)."""
    from torch._dynamo import exc as dexc

    if isinstance(exc, (dexc.RestartAnalysis, dexc.SkipFrame)):
        return False
    if isinstance(exc, dexc.Unsupported):
        out = getattr(exc, "_torch_dynamo_tracer_output", None)
        return bool(getattr(out, "error_on_graph_break", False))
    return True


def _snapshot(value: Any) -> Any:
    return value.detach().clone().requires_grad_(value.requires_grad) \
        if isinstance(value, torch.Tensor) else value


def custom_ops(gm: torch.fx.GraphModule) -> list[dict[str, Any]]:
    """The user's custom ops a graph calls (an op outside TORCH_NAMESPACES): qualified name, schema, whether a fake
    implementation was registered, and the source of its definition (for the repro only:
    minify never runs it)."""
    import inspect

    out: dict[str, dict[str, Any]] = {}
    for n in gm.graph.nodes:
        op = n.target
        if n.op != "call_function" or not isinstance(op, torch._ops.OpOverload) \
                or op.namespace in TORCH_NAMESPACES:
            continue
        qualname = op._schema.name
        if qualname in out:
            continue
        entry: dict[str, Any] = {"qualname": qualname, "schema": str(op._schema),
                                 "fake": _has_fake(qualname), "source": None}
        try:
            from torch._library.custom_ops import OPDEFS

            opdef = OPDEFS.get(qualname)
            if opdef is not None:
                entry["source"] = inspect.getsource(opdef._init_fn)
        except (ImportError, OSError, TypeError, AttributeError):
            pass
        out[qualname] = entry
    return list(out.values())


def _has_fake(qualname: str) -> bool | None:
    """Whether a fake (meta) implementation is registered; None: cannot tell here."""
    try:
        from torch._library.custom_ops import OPDEFS

        opdef = OPDEFS.get(qualname)
        if opdef is not None:  # torch.library.custom_op: its own fake slot
            return getattr(opdef, "_abstract_fn", None) is not None
        return bool(torch._C._dispatch_has_kernel_for_dispatch_key(qualname, "Meta"))
    except Exception:  # noqa: BLE001 - another torch's registry
        return None


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


def install(capture: Any, compile_id: Callable[[], str | None]) -> FailureGraphs:
    """Capture.install's hook: always on (a graph reference per compile, bytes on failure)."""
    import os

    fg = FailureGraphs(capture, compile_id=compile_id,
                       accuracy=bool(os.environ.get("COMPDIAG_CHECK_ACCURACY")),
                       keep_all=os.environ.get("COMPDIAG_KEEP_GRAPHS") == "1")
    fg.install()
    return fg
