"""The compiled backward against eager's, inside the user's process (`run --check-accuracy`).

Half of a training compile is the backward graph, which AOTAutograd compiles lazily at the
first `.backward()`; a wrong gradient leaves the forward outputs right. So on the first call of
a compiled graph whose outputs need a gradient, compdiag watches the program's own backward:
a hook on each output keeps the gradient the program sends into it, and a hook on the compiled
autograd node (AOTAutograd's `CompiledFunctionBackward`, one slot per graph input) receives the
gradients the compiled backward computed for the graph's inputs. Eager's are computed from the
same inputs (the program's own, taken before the call), the same incoming gradients and the
modes the program ran the forward under (autocast, inference mode, deterministic algorithms),
twice (eager's own non-determinism) and in float64 (the reference). The program's gradients
are never touched: the hooks return None.

A gradient that differs is located at the op whose backward differs: the graph's suffixes from
node k on (the values before k fed as inputs, with eager's values) are compiled with the same
backend; a suffix that contains the op computes different input gradients, one that starts after
it does not, so a binary search over k finds it in about log2(nodes) compiles."""

from __future__ import annotations

import contextlib
import copy
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.fx
from torch.utils import _pytree as pytree

from compdiag.capture.accuracy_replay import _gm64 as replay_gm64, quiet_call
from compdiag.capture.random_ops import draws_random
from compdiag.capture.accuracy_compare import GraphCheck, OutputCheck, Tolerance, _described, \
    _preserved_state, coarsest, compare_output, describe_inputs
from compdiag.formats.guard_source import in_user_spelling

_DEVICE_TYPES = ("cpu", "cuda")


@dataclass(frozen=True)
class Modes:
    """The modes a compiled call ran under, to run eager under the same ones later (a backward
    hook runs outside the program's `with` blocks)."""
    grad: bool = True
    inference: bool = False
    autocast: tuple[tuple[str, str], ...] = ()  # (device type, dtype) of each enabled one
    deterministic: bool = False
    deterministic_warn_only: bool = False

    @classmethod
    def now(cls) -> "Modes":
        casts = []
        for dt in _DEVICE_TYPES:
            try:
                if torch.is_autocast_enabled(dt):
                    casts.append((dt, str(torch.get_autocast_dtype(dt)).replace("torch.", "")))
            except (TypeError, RuntimeError, AttributeError):  # another torch's signature
                continue
        return cls(grad=torch.is_grad_enabled(), inference=torch.is_inference_mode_enabled(),
                   autocast=tuple(casts),
                   deterministic=torch.are_deterministic_algorithms_enabled(),
                   deterministic_warn_only=torch.is_deterministic_algorithms_warn_only_enabled())

    def coarsest(self) -> torch.dtype | None:
        """The autocast dtype with the coarsest rounding step the forward ran under (None:
        autocast off): a gradient computed through bfloat16 convolutions is judged at
        bfloat16's step, as a forward output is (the hook runs outside the program's autocast,
        probes27 train_amp_bf16_ok: float32's step called bfloat16's rounding
        ill-conditioning amplified 1.15e5x)."""
        return coarsest(getattr(torch, t, None) for _, t in self.autocast)

    def describe(self) -> list[str]:
        out = [f"autocast({d}, {t})" for d, t in self.autocast]
        if self.inference:
            out.append("inference_mode")
        elif not self.grad:
            out.append("no_grad")
        if self.deterministic:
            out.append("deterministic algorithms")
        return out

    @contextlib.contextmanager
    def applied(self, *, grad: bool | None = None, autocast: bool = True):
        """Run under these modes (`grad` overrides the grad mode; `autocast=False` for the
        float64 reference, which autocast would round back down)."""
        with contextlib.ExitStack() as stack:
            g = self.grad if grad is None else grad
            if self.inference and not g:
                stack.enter_context(torch.inference_mode())
            else:
                stack.enter_context(torch.set_grad_enabled(g))
            for dt, dtype in self.autocast:
                stack.enter_context(torch.autocast(dt, dtype=getattr(torch, dtype),
                                                   enabled=autocast))
            was = (torch.are_deterministic_algorithms_enabled(),
                   torch.is_deterministic_algorithms_warn_only_enabled())
            torch.use_deterministic_algorithms(self.deterministic,
                                               warn_only=self.deterministic_warn_only)
            stack.callback(lambda: torch.use_deterministic_algorithms(was[0], warn_only=was[1]))
            yield


# -- finding the compiled backward -------------------------------------------------------------
def compiled_node(outputs: list[torch.Tensor], n_args: int) -> Any:
    """AOTAutograd's autograd node behind the outputs: a `CompiledFunctionBackward` with one
    edge per graph input (so its gradients map to the inputs by position); None otherwise (an
    eager backend, a graph AOTAutograd wrapped otherwise)."""
    seen: set[int] = set()
    todo = [t.grad_fn for t in outputs if t.grad_fn is not None]
    for _ in range(64):
        if not todo:
            break
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if "CompiledFunction" in type(node).__name__ and len(node.next_functions) == n_args:
            return node
        if "CompiledFunction" not in type(node).__name__:  # a view of an output: look below
            todo.extend(fn for fn, _ in node.next_functions)
    return None


@dataclass
class BackwardWatch:
    """What one compiled call leaves for its backward check."""
    gm: torch.fx.GraphModule
    args: list[Any]                 # the program's inputs, cloned before the call
    requires: list[bool]            # which of them needed a gradient
    rng: torch.Tensor
    modes: Modes
    incoming: dict[int, torch.Tensor] = field(default_factory=dict)
    done: bool = False
    # the program's live inputs and their version counters after the forward; the inputs it
    # wrote in place before this backward (autograd's saved-tensor check in eager)
    live: list[Any] = field(default_factory=list)
    versions: list[int | None] = field(default_factory=list)
    modified: list[int] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)  # user frames at the call
    backward: dict[str, Any] | None = None  # the user's line that ran the backward


def _input_names(gm: torch.fx.GraphModule) -> list[str]:
    """Each input as the program names it (Dynamo's source, `x` for L['x'], `self.lin.weight`
    for a parameter), else the placeholder's name."""
    out = []
    for n in gm.graph.nodes:
        if n.op != "placeholder":
            continue
        try:
            src = n.meta["grapharg"].source
            name = src.name() if callable(src.name) else src.name
        except (KeyError, AttributeError, TypeError):
            name = n.name
        out.append(in_user_spelling(str(name)))
    return out


def _fresh(args: list[Any], requires: list[bool], to64: bool = False) -> list[Any]:
    out = []
    for a, r in zip(args, requires):
        if isinstance(a, torch.Tensor):
            t = a.detach().clone()
            if to64 and t.is_floating_point():
                t = t.double()
            out.append(t.requires_grad_(r and (t.is_floating_point() or t.is_complex())))
        else:
            out.append(a)
    return out


def eager_grads(fn: Callable[..., Any], args: list[Any], requires: list[bool],
                incoming: dict[int, torch.Tensor], rng: torch.Tensor, modes: Modes,
                to64: bool = False, written: tuple[int, ...] = ()) -> list[torch.Tensor | None]:
    """Eager's gradients of `fn`'s inputs for the given gradients into its outputs (one entry
    per input; None where it needs none or none reaches it). `written`: inputs written in
    place between the forward and the backward, as the program did (autograd's saved-tensor
    check then raises where eager's would)."""
    ins = _fresh(args, requires, to64)
    torch.random.set_rng_state(rng)
    with modes.applied(grad=True, autocast=not to64):
        outs = pytree.tree_leaves(quiet_call(fn, ins))
    with torch.no_grad():
        for i in written:
            if isinstance(ins[i], torch.Tensor):
                ins[i].add_(0)  # a write: the version counter autograd compares moves on
    # an output that is a view of another output (`broadcast_tensors(loc, scale)` of a
    # Normal the compiled function returns): AOTAutograd rebuilds it from its base outside the
    # graph, so the base's incoming gradient already holds the view's; passing both counted
    # the view's twice (probes33e mdn_mixture_ok: a gradient "miscompile" on a correct program)
    # (the same tensor object at two positions, as `broadcast_tensors` returns what needs no
    # broadcasting, is such an alias too: its first position is the base)
    first = {}
    for j in sorted(incoming):
        if j < len(outs) and isinstance(outs[j], torch.Tensor):
            first.setdefault(id(outs[j]), j)
    pairs = [(outs[i], g.double() if to64 and g.is_floating_point() else g)
             for i, g in sorted(incoming.items())
             if i < len(outs) and isinstance(outs[i], torch.Tensor) and outs[i].requires_grad
             and first.get(id(outs[i])) == i
             and not (outs[i]._base is not None and id(outs[i]._base) in first)]
    wanted = [i for i, t in enumerate(ins) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not pairs or not wanted:
        return [None] * len(ins)
    with modes.applied(grad=True, autocast=False):
        got = torch.autograd.grad([p[0] for p in pairs], [ins[i] for i in wanted],
                                  [p[1].to(p[0].dtype) for p in pairs], allow_unused=True)
    out: list[torch.Tensor | None] = [None] * len(ins)
    for i, g in zip(wanted, got):
        out[i] = g
    return out


def compare_grads(watch: BackwardWatch, compiled: list[torch.Tensor | None], tol: Tolerance,
                  cid: str | None, fn: Callable[..., Any] | None = None,
                  names: list[str] | None = None) -> GraphCheck:
    """The compiled gradients of the inputs against eager's (twice) and float64's."""
    fn = fn or watch.gm
    names = names or _input_names(watch.gm)
    with _preserved_state(watch.gm):
        e1 = eager_grads(fn, watch.args, watch.requires, watch.incoming, watch.rng, watch.modes)
        e2 = eager_grads(fn, watch.args, watch.requires, watch.incoming, watch.rng, watch.modes)
        g64 = list(e1)  # no float64 reference: eager's own (a graph that draws random
        if not draws_random(watch.gm):  # numbers would draw others in float64)
            try:
                g64 = eager_grads(_gm64(fn), watch.args, watch.requires, watch.incoming,
                                  watch.rng, watch.modes, to64=True)
            except Exception:  # noqa: BLE001 - some graphs have no float64 kernels
                g64 = list(e1)
    outs: list[OutputCheck] = []
    nondeterministic = False
    for i, (r, c) in enumerate(zip(e1, compiled)):
        if not watch.requires[i] or (r is None and c is None):
            continue
        name = f"grad of {names[i] if i < len(names) else f'input {i}'}"
        if r is None or c is None:
            side = "eager" if r is None else "compiled"
            outs.append(OutputCheck(name, False, None, None, {
                "backward": True, "input": i,
                "reason": f"{side} computed no gradient for this input, the other did"}))
            continue
        again = compare_output(name, r, e2[i], r, Tolerance(rtol=0.0, atol=0.0))
        nondeterministic = nondeterministic or (e2[i] is not None and not again.ok)
        check = compare_output(name, r, c, g64[i] if g64[i] is not None else r, tol,
                               watch.modes.coarsest())
        check.detail.update(backward=True, input=i)
        if watch.modes.describe():
            check.detail["modes"] = watch.modes.describe()
        outs.append(check)
    if nondeterministic:
        for o in outs:
            o.detail["eager_nondeterministic"] = True
            if not o.ok:
                o.detail["reason"] = ("eager's backward is itself non-deterministic on this "
                                      "graph (two eager runs disagree); not attributed to the "
                                      "compiler")
                o.ok = True
    return GraphCheck(cid, outs, nondeterministic=nondeterministic,
                      inputs=describe_inputs(watch.args))


def _gm64(fn: Any) -> Any:
    """FN in float64: a graph with its casts to a lower float widened too (the forward's
    replay's rule: probes40b fp32_head_autocast_grad, whose `h.float()` stayed float32 beside
    float64 weights, and the reference's failure left eager as its own reference)."""
    if isinstance(fn, torch.fx.GraphModule):
        return replay_gm64(fn)
    if isinstance(fn, torch.nn.Module):
        return copy.deepcopy(fn).to(torch.float64)
    return fn


# -- where the backward first differs ------------------------------------------------------------
def _computational(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")]


def suffix_graph(gm: torch.fx.GraphModule, start: int) -> tuple[torch.fx.GraphModule,
                                                                    list[torch.fx.Node]]:
    """The graph from its `start`-th computational node on; every value it reads from before
    that (a placeholder or an earlier node) becomes one of its inputs, in graph order.
    Returns the graph and the original nodes its inputs stand for."""
    nodes = _computational(gm)
    later = set(nodes[start:])
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    sources: list[torch.fx.Node] = []
    order = list(gm.graph.nodes)
    needed: set[torch.fx.Node] = set()
    for n in order:
        if n in later or n.op == "output":
            for a in n.all_input_nodes:
                if a not in later:
                    needed.add(a)
    for n in order:
        if n in needed and n.op != "get_attr":
            p = graph.placeholder(n.name)
            p.meta = dict(n.meta)
            env[n] = p
            sources.append(n)
        elif n in needed:
            env[n] = graph.node_copy(n, lambda a: env[a])
    for n in order:
        if n in later:
            env[n] = graph.node_copy(n, lambda a: env[a])
        elif n.op == "output":
            graph.node_copy(n, lambda a: env[a])
    sub = torch.fx.GraphModule(gm, graph)
    sub.recompile()
    return sub, sources


def node_values(gm: torch.fx.GraphModule, watch: BackwardWatch) -> dict[torch.fx.Node, Any]:
    """Every node's eager value (computed with grad on, so `.requires_grad` says which values
    a gradient flows through)."""
    values: dict[torch.fx.Node, Any] = {}

    class Keep(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            values[n] = out = super().run_node(n)
            return out

    ins = _fresh(watch.args, watch.requires)
    torch.random.set_rng_state(watch.rng)
    with watch.modes.applied(grad=True):
        Keep(gm).run(*ins)
    return values


def localise_backward(watch: BackwardWatch, compiler: Callable[..., Any], tol: Tolerance
                      ) -> dict[str, Any] | None:
    """The op whose compiled backward first differs from eager's: the last k whose suffix
    (from node k on) still computes different input gradients. About log2(nodes) compiles."""
    gm = watch.gm
    nodes = _computational(gm)
    if not nodes:
        return None
    with _preserved_state(gm):
        values = node_values(gm, watch)

    def differs(k: int) -> bool:
        sub, sources = suffix_graph(gm, k)
        args = [values[s].detach() if isinstance(values.get(s), torch.Tensor)
                else values.get(s) for s in sources]
        requires = [bool(isinstance(values.get(s), torch.Tensor) and values[s].requires_grad)
                    for s in sources]
        if not any(requires):
            return False
        part = BackwardWatch(sub, args, requires, watch.rng, watch.modes,
                             dict(watch.incoming))
        # A backward hook runs with grad off, and a graph compiled with grad off is an
        # inference graph (no backward): compile and call under the program's forward modes.
        with _preserved_state(gm), watch.modes.applied(grad=True):
            compiled_fn = compiler(sub, _fresh(args, requires))
            ins = _fresh(args, requires)
            torch.random.set_rng_state(watch.rng)
            outs = pytree.tree_leaves(compiled_fn(*ins))
            pairs = [(outs[i], g) for i, g in sorted(part.incoming.items())
                     if i < len(outs) and isinstance(outs[i], torch.Tensor)
                     and outs[i].requires_grad]
            wanted = [i for i, t in enumerate(ins) if isinstance(t, torch.Tensor)
                      and t.requires_grad]
            if not pairs:
                return False
            got = torch.autograd.grad([p[0] for p in pairs], [ins[i] for i in wanted],
                                      [p[1] for p in pairs], allow_unused=True)
        compiled: list[Any] = [None] * len(ins)
        for i, g in zip(wanted, got):
            compiled[i] = g
        check = compare_grads(part, compiled, tol, None, fn=sub,
                              names=[s.name for s in sources])
        return not check.ok

    if not differs(0):
        return None
    lo, hi, queries = 0, len(nodes) - 1, 1   # differs(lo) holds
    while lo < hi:
        mid = (lo + hi + 1) // 2
        queries += 1
        if differs(mid):
            lo = mid
        else:
            hi = mid - 1
    return _described(nodes[lo], compiles=queries, by="backward suffixes", backward=True)


# -- the hooks -------------------------------------------------------------------------------------
def compiled_autograd_on() -> bool:
    """Whether the program's backward runs under compiled autograd (its config flag, or its
    context entered now): Python hooks on the outputs and the compiled node become part of
    the backward graph it compiles, so watching would change what the program computes
    (probes42d ca_optim_in_backward_hook: an optimizer stepped from gradient hooks ended at
    0.591 under --check-accuracy and 0.664 plainly). Its gradients go unwatched."""
    try:
        from torch._dynamo import compiled_autograd

        return bool(getattr(torch._dynamo.config, "compiled_autograd", False)
                    or getattr(compiled_autograd, "compiled_autograd_enabled", False))
    except Exception:  # noqa: BLE001 - another torch: not known to be on
        return False


def watch_backward(gm: torch.fx.GraphModule, args: list[Any], before: list[Any], out: Any,
                   rng: torch.Tensor, modes: Modes,
                   on_grads: Callable[[BackwardWatch, list[Any]], None]) -> bool:
    """Hook the program's first backward through this compiled call: `on_grads(watch,
    compiled input gradients)` runs once the compiled backward has computed them. False when
    there is nothing to watch (no gradient needed, or no compiled autograd node)."""
    if not modes.grad or modes.inference or compiled_autograd_on():
        return False
    requires = [isinstance(a, torch.Tensor) and a.requires_grad for a in args]
    outs = pytree.tree_leaves(out)
    grad_outs = [(i, t) for i, t in enumerate(outs)
                 if isinstance(t, torch.Tensor) and t.requires_grad]
    if not any(requires) or not grad_outs:
        return False
    node = compiled_node([t for _, t in grad_outs], len(args))
    if node is None:
        return False
    watch = BackwardWatch(gm, before, requires, rng, modes)
    watch.live = list(args)
    watch.versions = [a._version if isinstance(a, torch.Tensor) else None for a in args]
    watch.calls = user_frames()

    for i, t in grad_outs:
        def keep(grad: torch.Tensor, i: int = i) -> None:
            if not watch.done and isinstance(grad, torch.Tensor):
                watch.incoming[i] = grad.detach().clone()
        t.register_hook(keep)

    def computed(grad_inputs: Any, _grad_outputs: Any) -> None:
        if watch.done:
            return
        watch.done = True
        watch.modified = [i for i, (a, v) in enumerate(zip(watch.live, watch.versions))
                          if v is not None and isinstance(a, torch.Tensor) and a._version != v]
        watch.live = []  # the program's tensors are not kept past its backward
        watch.backward = (user_frames() or [None])[-1] if watch.modified else None
        grads = [g.detach().clone() if isinstance(g, torch.Tensor) else None
                 for g in grad_inputs]
        on_grads(watch, grads)

    node.register_hook(computed)
    return True


def user_frames() -> list[dict[str, Any]]:
    """The user's frames on the current stack, outermost first (file, line, function, text)."""
    import sys

    from compdiag.capture.config_sets import frame_facts
    from compdiag.formats.user_code import is_user_file

    out = []
    frame = sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            out.append(frame_facts(frame))
        frame = frame.f_back
    return out[::-1]


def rejected_after_forward(watch: BackwardWatch) -> str | None:
    """Eager's error at this backward for the inputs the program wrote in place after the
    forward (watch.modified): eager's forward on copies, the same copies written in place,
    then eager's backward with the program's incoming gradients. The first line of the
    RuntimeError autograd raises ("... modified by an inplace operation"), or None when eager
    accepts it (the written input was not saved for the backward)."""
    if not watch.modified:
        return None
    try:
        with _preserved_state(watch.gm):
            eager_grads(watch.gm, watch.args, watch.requires, watch.incoming, watch.rng,
                        watch.modes, written=tuple(watch.modified))
    except RuntimeError as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        text = text.split(" Hint:", 1)[0].rstrip(". ")  # autograd's advice is not the error
        return text[:300] if "inplace operation" in text else None
    return None


_INPLACE = re.compile(r"\.\w+_\(|\[[^\]]*\]\s*[-+*/]?=(?!=)")


def write_line(watch: BackwardWatch) -> dict[str, Any] | None:
    """The user's line between the compiled call and the backward that writes in place (a
    `t.copy_(...)`, `t[...] = ...`), in the same file, the call's argument names first; None
    when the two are in different files or no line between them writes."""
    import linecache

    back = watch.backward or {}
    # the compiled call's frame in the function that ran the backward (a training loop)
    call = next((f for f in reversed(watch.calls) if (f.get("filename"), f.get("name")) ==
                 (back.get("filename"), back.get("name"))), {})
    if not call.get("lineno") or call.get("filename") != back.get("filename") or \
            not back.get("lineno") or back["lineno"] <= call["lineno"]:
        return None
    names = set(re.findall(r"\b([A-Za-z_]\w*)\b", str(call.get("line") or "")))
    found = None
    for n in range(call["lineno"] + 1, back["lineno"]):
        text = linecache.getline(call["filename"], n).strip()
        if text.startswith("#") or not _INPLACE.search(text):
            continue
        row = {"filename": call["filename"], "lineno": n, "line": text}
        receiver = re.match(r"([A-Za-z_]\w*)", text)
        if receiver and receiver.group(1) in names:
            return row
        found = found or row
    return found


def rejected_check(watch: BackwardWatch, cid: str | None, error: str) -> GraphCheck:
    """The verdict for a backward eager refuses (rejected_after_forward's error): at the line
    that wrote the input after the forward, else at the backward's."""
    names = _input_names(watch.gm)
    i = watch.modified[0]
    name = in_user_spelling(names[i]) if i < len(names) else f"input {i}"
    at = write_line(watch) or watch.backward
    op = re.search(r"\.(\w+_)\(", str((at or {}).get("line") or ""))
    written = re.match(r"([A-Za-z_][\w.]*?)(?:\.\w+_\(|\[)", str((at or {}).get("line") or ""))
    name = written.group(1) if written else name  # as the program's line names it
    out = OutputCheck("the gradients", False, None, None, {
        "verdict": "modified_before_backward", "eager_error": error, "attribute": name,
        "backward": True, "input": i,
        "reason": f"eager's backward raises {error}; the compiled backward computed gradients"})
    node = {"node": None, "op": op.group(1) if op else None, "user_frame": at} if at else None
    return GraphCheck(cid, [out], divergent_node=node, inputs=describe_inputs(watch.args))
