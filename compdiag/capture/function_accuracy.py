"""The compiled function whole against the same function in eager (`run --check-accuracy`).

The graph check (capture/accuracy.py) replays each graph Dynamo traced, so it finds what the
backend gets wrong; a graph that is itself wrong, because Dynamo traced the Python code into
something it does not do, matches its own eager replay. Silent bugs of that kind are a class of
their own (pytorch#192985: an autograd.Function's custom `jvp` dropped under torch.func.jvp;
#191449: `resize_()` on a view across a graph break, the original returned at the view's new
size). So on the first call of a function compiled with torch.compile, after the compiled call
returned its result to the program untouched, the original Python function runs eagerly on
clones of the same arguments, from the same random state, and the two results are compared
with the graph check's rules.

Running the program's function twice must not change what the program computes, so the replay
runs only for a function that cannot change state outside its arguments: a plain function
(not a module's method) whose code, the code it defines and the user functions it calls by
name store no attribute, item or global, write no enclosing variable, append to no container,
log nothing, draw no random numbers (torch's, Python's, numpy's), call no backward or step,
and reach no module, optimizer or scheduler (through its arguments, globals, a dataclass or a
container either). The replay starts from the values the tensors it reads from globals and
closures had before the compiled call, runs the compiled functions it calls eagerly, sends its
prints nowhere, and leaves those tensors and the random state as the compiled call left them.
Anything else is not replayed.

The check runs again on calls 2, 4, 8, ... (a power of two, until one differs): a graph that
matched on its first call can go wrong later without recompiling when something it baked in
at compile time changes after it and no guard compares it (a function marked
`torch.compiler.assume_constant_result` whose result changed: the compiled softmax kept its
first temperature, silently). A later call that differs while running only graphs the first
checked call ran is verdict `changed_after_compile`; one that ran a graph compiled since
stays `traced_wrong`."""

from __future__ import annotations

import contextlib
import dis
import functools
import inspect
import io
import re
import sys
from types import CodeType, FunctionType
from typing import Any, Callable

import torch
from torch.utils import _pytree as pytree

from compdiag.capture import forked_effects, generator_results, module_accuracy, object_state
from compdiag.capture.python_state import codes
from compdiag.capture.accuracy import AccuracyChecker, _changed, output_node, transforms_in
from compdiag.capture.accuracy_compare import GraphCheck, OutputCheck, Tolerance, \
    _clone_with_grads, coarsest, compare_output, computed_in
from compdiag.capture.function_rejects import eager_rejects
from compdiag.capture.random_ops import RANDOM as _RANDOM
from compdiag.formats.user_code import is_user_file

# Bytecode that changes state outside the function's own locals.
_STORES = frozenset({"STORE_GLOBAL", "STORE_ATTR", "STORE_SUBSCR", "DELETE_GLOBAL",
                     "DELETE_ATTR", "DELETE_SUBSCR"})
# Names whose use changes state the replay cannot put back (a backward accumulates into
# `.grad`, an optimizer steps) or asks whether it is compiled (its result differs by design).
_EFFECTS = frozenset({"backward", "step", "zero_grad", "retain_grad", "requires_grad_",
                      "register_buffer", "register_parameter", "is_compiling",
                      "is_dynamo_compiling", "is_exporting"})
# Method names that change a container or write out (a list of losses, a logger's handlers):
# a replay would append or log again (probes26 acc_loss_history_logging).
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "setdefault", "clear",
                       "remove", "discard", "update", "write", "writelines", "info", "debug",
                       "warning", "error", "exception", "critical", "warn", "put", "send"})
_CLOCK = frozenset({"time", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
                    "time_ns", "process_time", "now", "utcnow"})
_DEPTH = 3  # user functions followed through calls by name
_TRANSFORMS = "/torch/_functorch/"
_RAN_KEPT = 2000  # eager's user lines kept for a traced_other_path verdict


def _rechecked(call: int) -> bool:
    """The calls checked: the first, then 2, 4, 8, ... (log2 of a loop's calls)."""
    return call & (call - 1) == 0


def replay_refusal(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """Why the eager replay of `fn` could change the program's state (None: it cannot)."""
    if not isinstance(fn, FunctionType):
        return "not a plain function"
    stateful = (torch.nn.Module, torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler)
    for leaf in pytree.tree_leaves((args, kwargs)):
        held = _reaches(leaf, stateful)
        if held:
            return f"an argument reaches a {held}"
    seen: set[CodeType] = set()
    objects = object_state.objects_in(args, kwargs)
    owners = object_state.copied_parameters(fn, args, kwargs, objects)
    why = _code_refusal(fn, seen, stateful, _DEPTH, owners=owners)
    for method in object_state.methods(objects) if why is None else ():
        self_name = method.__code__.co_varnames[:1]
        why = _code_refusal(method, seen, stateful, _DEPTH, owners=frozenset(self_name))
        if why:
            break
    return why


def _code_refusal(fn: FunctionType, seen: set[CodeType], stateful: tuple[type, ...],
                  depth: int, ignore: frozenset[str] = frozenset(),
                  owners: frozenset[str] = frozenset()) -> str | None:
    """Why `fn`'s code (and the user functions it calls) could change state; `ignore`: names
    that are not the calls they look like (a module's child `self.dropout`, in eval);
    `owners`: locals bound to objects the replay runs on deep copies of (object_state.py),
    which the code may store into and call methods of."""
    outer_free = set(fn.__code__.co_freevars)
    # torch.func's transform wrappers (jacrev's keeps lists of its own): their code is
    # torch's, the user function they close over is followed below
    own = () if _TRANSFORMS in fn.__code__.co_filename.replace("\\", "/") \
        else codes(fn.__code__)
    for code in own:
        if code in seen:
            continue
        seen.add(code)
        names = set(code.co_names) - ignore
        if _RANDOM & names:
            return "it draws random numbers"
        if _CLOCK & names:  # a timestamp it keeps differs in a replay by design
            return "it reads the clock"
        effects = sorted((_EFFECTS | _MUTATORS) & names - _owned_calls(code, owners))
        if effects:
            return f"it calls {effects[0]}"
        params = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
        window: list[dis.Instruction] = []
        for ins in dis.get_instructions(code):
            prev = window[-1] if window else None
            if ins.opname in _STORES and not _own_tensor_attr(ins, prev, params) and \
                    not object_state.stores_own_object(ins, window, owners):
                return f"it stores state ({ins.opname} {ins.argval})"
            window = window[-15:] + [ins]
            if ins.opname == "STORE_DEREF" and ins.argval in outer_free:
                return f"it writes the enclosing variable {ins.argval}"
    for value in _referenced(fn):
        held = _reaches(value, stateful)
        if held and isinstance(value, torch.nn.Module) and torch.nn.Module in stateful and \
                _module_replayable(value, fn):
            continue  # a module whose call changes nothing (probes36c functional_call)
        if held:
            return f"it reaches a {held}"
        if isinstance(value, type) and object_state.user_class(value) and \
                not issubclass(value, torch.autograd.Function):
            return f"it uses the class {value.__name__}"
        if isinstance(value, FunctionType) and value.__code__ not in seen and \
                is_user_file(value.__code__.co_filename):
            if depth <= 0:
                return f"it calls {value.__name__} too deep to follow"
            why = _code_refusal(value, seen, stateful, depth - 1)
            if why:
                return why
    return None


def _owned_calls(code: CodeType, owners: frozenset[str]) -> set[str]:
    """Method names the code calls only on an owner (`rms.update(x)`), never otherwise."""
    if not owners:
        return set()
    on_owner: set[str] = set()
    elsewhere: set[str] = set()
    prev = None
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_METHOD", "LOAD_ATTR"):
            owned = prev is not None and prev.opname == "LOAD_FAST" and prev.argval in owners
            (on_owner if owned else elsewhere).add(ins.argval)
        elif ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            elsewhere.add(ins.argval)
        prev = ins
    return on_owner - elsewhere


# An in-place tensor method (`add_`, `copy_`): through a module the function reaches, it would
# write the program's own parameters a second time.
_IN_PLACE = re.compile(r"^[a-z][a-z0-9_]*[a-z0-9]_$")


def _module_replayable(module: torch.nn.Module, fn: FunctionType) -> bool:
    """A module a plain function reaches (a global `net` it runs through
    `torch.func.functional_call`) that a replay cannot change: the module check's rules
    (capture/module_accuracy.py: no layer that reads `training` in training mode, no hook, a
    forward that stores nothing) and no in-place tensor method in the function's code
    (probes36c maml_functional_call_stale: the compiled loss kept reading the module's
    original weights for new parameter tensors, and the check never ran)."""
    if any(_IN_PLACE.match(n) for code in codes(fn.__code__) for n in code.co_names):
        return False
    stateful = (torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler)
    return module_accuracy.refusal(
        module, (), {}, lambda f, ignore: _code_refusal(f, set(), stateful, _DEPTH, ignore)
    ) is None


# A tensor's own attributes: a store to one of an argument's (`w.data = ...`) changes only the
# clone the replay runs on (set21b's data_write_under_grad, pytorch#149911).
_TENSOR_ATTRS = frozenset({"data", "grad", "requires_grad"})


def _own_tensor_attr(ins: dis.Instruction, prev: dis.Instruction | None,
                     params: set[str]) -> bool:
    """`ins` stores a tensor attribute of one of the function's own arguments, loaded just
    before it."""
    return (ins.opname == "STORE_ATTR" and ins.argval in _TENSOR_ATTRS and prev is not None
            and prev.opname == "LOAD_FAST" and prev.argval in params)


def _reaches(value: Any, stateful: tuple[type, ...], depth: int = 2) -> str | None:
    """The stateful class (a module, an optimizer) `value` is or holds within `depth` steps
    (a dataclass's field, a list's item, an object's attribute: probes26's BatchNorm reached
    through a training-state dataclass), None when it holds none."""
    if isinstance(value, stateful):
        return type(value).__name__
    if depth <= 0 or isinstance(value, (torch.Tensor, str, bytes, int, float, bool, type,
                                        FunctionType)) or value is None:
        return None
    if isinstance(value, dict):
        items: list[Any] = list(value.values())[:64]
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)[:64]
    else:
        attrs = getattr(value, "__dict__", None)
        if not isinstance(attrs, dict) or isinstance(value, type(sys)):
            return None  # a module object (torch, math) is code, not the program's state
        items = list(attrs.values())[:64]
    for item in items:
        held = _reaches(item, stateful, depth - 1)
        if held:
            return held
    return None


def _referenced(fn: FunctionType) -> list[Any]:
    """The global and closure values the function's code (and the code it defines) reads."""
    names = {n for code in codes(fn.__code__) for n in code.co_names}
    out = [fn.__globals__[n] for n in names if n in fn.__globals__]
    for cell in fn.__closure__ or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return out


def global_tensors(fn: FunctionType) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(tensor, a copy) of each tensor the function reads from a global or its closure, taken
    before the compiled call: the replay starts from the state the compiled call started
    from (probes26: a running statistic updated in place was replayed from the updated one)."""
    return [(t, t.detach().clone()) for t in _referenced(fn) if isinstance(t, torch.Tensor)]


def replay(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
           rng: torch.Tensor, before: list[tuple[torch.Tensor, torch.Tensor]],
           ran: set[tuple[str, int]] | None = None, printed: list[str] | None = None) -> Any:
    """`fn` in eager on the clones `args`/`kwargs`, from the random state `rng` and the
    global tensors' values `before` the compiled call, every compiled function it calls run
    eagerly too (no compile the program never made), its prints discarded; afterwards the
    globals and the random state are as the compiled call left them; `ran` gets the user
    lines it ran, `printed` what it printed to stdout."""
    after_rng = torch.random.get_rng_state()
    after = [(t, t.detach().clone()) for t, _ in before]
    sink, errors = io.StringIO(), io.StringIO()
    try:
        with torch.no_grad():
            for t, copy in before:
                if _changed(copy, t):
                    t.copy_(copy)
        torch.random.set_rng_state(rng)
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(errors), \
                torch.compiler.set_stance("force_eager"), forked_effects.lines_run(ran):
            # a generator runs here, under these guards (capture/generator_results.py)
            return generator_results.drain(fn(*args, **kwargs))
    finally:
        if printed is not None:
            printed.append(sink.getvalue())
        with torch.no_grad():
            for t, copy in after:
                if _changed(copy, t):
                    t.copy_(copy)
        torch.random.set_rng_state(after_rng)


def compare(eager: Any, compiled: Any, tol: Tolerance,
            through: torch.dtype | None = None) -> list[tuple[OutputCheck, Any]]:
    """(check, the compiled leaf) of each output leaf; a structure that differs is one
    failing check. `through`: the coarsest float dtype the call's graphs computed in, whose
    tolerance a float32 result of bfloat16 arithmetic is judged at, as a graph's own check
    judges it (probes37g autocast_bf16_mlp_vs_f64_ok: a float32 result of an autocast MLP
    judged at float32's tolerance, "what Dynamo traced differs from the code", while every
    graph matched eager at bfloat16's)."""
    e_leaves, e_spec = pytree.tree_flatten(eager)
    c_leaves, c_spec = pytree.tree_flatten(compiled)
    if e_spec != c_spec:
        return [(OutputCheck("result", False, None, None, {
            "reason": f"eager returned {e_spec}, compiled {c_spec}"[:300]}), None)]
    # "result N": the function's, named apart from its graphs' "output N"
    return [(compare_output(f"result {i}", e, c, None, tol, through), c)
            for i, (e, c) in enumerate(zip(e_leaves, c_leaves))
            if isinstance(e, torch.Tensor) or isinstance(c, torch.Tensor)]


def compare_arguments(fn: Callable[..., Any], eager: tuple[tuple[Any, ...], dict[str, Any]],
                      compiled: tuple[tuple[Any, ...], dict[str, Any]], tol: Tolerance,
                      through: torch.dtype | None = None) -> list[tuple[OutputCheck, Any]]:
    """(check, the program's tensor) of each tensor argument: the replay's clone as eager left
    it against the program's as the compiled call left it. A function that updates its
    arguments in place and returns nothing (an optimizer step, an EMA update) differs there
    or nowhere (probes35a warmup_assume_constant: a warmup factor baked in at compile time
    changed every step's update, the function returned None); an argument neither updates
    compares equal."""
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    (e_args, e_kwargs), (c_args, c_kwargs) = eager, compiled
    pairs = [(names[i] if i < len(names) else f"argument {i}", e, c)
             for i, (e, c) in enumerate(zip(e_args, c_args))]
    pairs += [(k, e_kwargs[k], c_kwargs[k]) for k in c_kwargs if k in e_kwargs]
    out = []
    # arguments that share storage (`f(x, x[0])`): their clones do not, so eager's write
    # through one never reaches the other's clone; they are not compared
    storages: dict[int, int] = {}
    for leaf in pytree.tree_leaves(compiled):
        ptr = _storage(leaf)
        if ptr is not None:
            storages[ptr] = storages.get(ptr, 0) + 1
    for name, e, c in pairs:
        e_leaves = pytree.tree_flatten_with_path(e)[0]
        c_leaves = pytree.tree_flatten_with_path(c)[0]
        if len(e_leaves) != len(c_leaves):
            continue
        for (path, el), (_, cl) in zip(e_leaves, c_leaves):
            if storages.get(_storage(cl), 0) > 1:  # type: ignore[arg-type]
                continue
            if isinstance(el, torch.Tensor) and isinstance(cl, torch.Tensor):
                label = f"{name}{pytree.keystr(path)} (updated in place)"
                out.append((compare_output(label, el, cl, None, tol, through), cl))
            elif el is not cl and (object_state.copyable(cl) or
                                   object_state.shared_mutable(cl)):
                out += object_state.compare(
                    f"{name}{pytree.keystr(path)}", el, cl,
                    lambda label, a, b: compare_output(label, a, b, None, tol, through))
    return out


def _storage(t: Any) -> int | None:
    """The address of a plain tensor's storage (None for anything else, a subclass that has
    none included)."""
    if not isinstance(t, torch.Tensor) or t.layout != torch.strided:
        return None
    try:
        return int(t.untyped_storage().data_ptr())
    except Exception:  # noqa: BLE001 - a tensor without a storage of its own
        return None


class FunctionChecker:
    """Wraps what torch.compile returns for a plain function; `sink(check)` receives a
    GraphCheck for each function whose compiled result differs from eager's. `graphs`, the
    graph checker (capture/accuracy.py), records the graphs a watched call ran
    (`AccuracyChecker.watched`) and their own checks: a differing output is located at the node
    of the graph that returned it."""

    def __init__(self, sink: Callable[[GraphCheck], None], tol: Tolerance,
                 graphs: AccuracyChecker) -> None:
        self.sink, self.tol, self.graphs = sink, tol, graphs
        self.busy = False
        self.printed: str | None = None  # what the replayed compiled call printed

    def install(self) -> Callable[[], None]:
        """Wrap what torch.compile returns for a plain function from now on; the callable
        returned puts torch's own back (functions compiled before keep their wrapper)."""
        from torch._dynamo import eval_frame

        original = eval_frame.OptimizeContext.__call__
        checker = self

        def __call__(ctx: Any, fn: Any) -> Any:
            result = original(ctx, fn)
            if not callable(result) or result is fn:
                return result
            module = module_accuracy.module_of(fn)
            if module is not None:
                return checker.wrap_module(module, result)
            if isinstance(fn, FunctionType):
                return checker.wrap(fn, result)
            return result

        __call__.__wrapped__ = original  # type: ignore[attr-defined]
        eval_frame.OptimizeContext.__call__ = __call__  # type: ignore[method-assign]

        def uninstall() -> None:
            eval_frame.OptimizeContext.__call__ = original  # type: ignore[method-assign]

        return uninstall

    def wrap(self, fn: FunctionType, compiled: Callable[..., Any]) -> Callable[..., Any]:
        """What torch.compile made of the plain function `fn`, wrapped: `fn` whole against
        itself in eager; a function whose code or arguments reach state is never replayed."""
        return self._checked(
            compiled, fn, skip=lambda: False, final=True,
            refusal=lambda args, kwargs: replay_refusal(fn, args, kwargs),
            snapshot=lambda args, kwargs: (global_tensors(fn), object_state.snapshot(
                object_state.objects_in(args, kwargs))),
            judge=lambda before, rng, out, graphs, saved, state: saved[1] is None or self.check(
                fn, object_state.substituted(before, saved[1]), rng, out, graphs, saved[0],
                state["calls"], state["first"], live=state.get("live")))

    def wrap_module(self, module: torch.nn.Module, compiled: Callable[..., Any]
                    ) -> Callable[..., Any]:
        """What torch.compile made of `module.__call__`, wrapped: the module whole against
        itself in eager (capture/module_accuracy.py says when), on its calls 1, 2,
        4, 8, ... (a model trained, then evaluated, is checked from its first eval call); a
        call refused (a hook, an object argument) leaves later calls to be judged."""
        name = type(module).__name__

        def code_refusal(fn: FunctionType, ignore: frozenset[str]) -> str | None:
            stateful = (torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler)
            return _code_refusal(fn, set(), stateful, _DEPTH, ignore)

        def annotate(graphs: list[Any]) -> tuple[dict[str, Any], Any]:
            found = module_accuracy.compiled_path(module)
            if found is None:
                return {}, None
            return ({"compiled_path": module_accuracy.path_words(found)},
                    module_accuracy.first_node_in(found, graphs))

        def judge(before: Any, rng: torch.Tensor, out: Any, graphs: list[Any], saved: Any,
                  state: dict[str, Any]) -> bool:
            buffers_before, attrs_before = saved
            with module_accuracy.attributes_as(attrs_before, module):
                return self.check(module, before, rng, out, graphs, buffers_before,
                                  state["calls"], state["first"], name=name, annotate=annotate)

        return self._checked(
            compiled, module, skip=lambda: module_accuracy.training(module), final=False,
            refusal=lambda args, kwargs: module_accuracy.refusal(module, args, kwargs,
                                                                 code_refusal),
            snapshot=lambda args, kwargs: (module_accuracy.buffers(module),
                                           module_accuracy.attributes(module)),
            judge=judge)

    def _checked(self, compiled: Callable[..., Any], target: Any, *,
                 skip: Callable[[], bool], final: bool,
                 refusal: Callable[[tuple[Any, ...], dict[str, Any]], str | None],
                 snapshot: Callable[[tuple[Any, ...], dict[str, Any]], Any],
                 judge: Callable[..., bool]) -> Callable[..., Any]:
        """The compiled callable, checked on its calls 1, 2, 4, 8, ... (until a verdict):
        `skip()` passes a call by uncounted, `refusal(args, kwargs)` says why a call must not
        be replayed (`final`: never again), `snapshot(args, kwargs)` keeps what the replay
        starts from, `judge(...)` replays and compares and says whether the check is done."""
        checker = self
        state: dict[str, Any] = {"done": False, "calls": 0, "first": None}

        @functools.wraps(compiled)
        def checked(*args: Any, **kwargs: Any) -> Any:
            # never inside another's check (the graphs it ran are the outer call's), never
            # while torch traces it (an outer compiled function inlining it)
            if checker.busy or torch.compiler.is_compiling():
                return compiled(*args, **kwargs)
            skipped = skip()
            if not state["done"] and not skipped:
                state["calls"] += 1
                if _rechecked(state["calls"]):
                    try:
                        refused = refusal(args, kwargs)
                    except Exception:  # noqa: BLE001 - what cannot be judged is not replayed
                        refused = "not judged"
                    if not refused:
                        return checker.replayed(compiled, args, kwargs, state, snapshot, judge)
                    state["done"], state["refused"] = final, True
            if not (skipped or state.get("refused")):
                return compiled(*args, **kwargs)
            # what no replay here may run (it changes state): its result and the Python state
            # it leaves against eager's, in a forked child (capture/forked_effects.py)
            return forked_effects.call(checker, compiled, target, args, kwargs, state)

        return checked

    def replayed(self, compiled: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any], state: dict[str, Any],
                 snapshot: Callable[..., Any], judge: Callable[..., bool]) -> Any:
        """The compiled call, then its eager replay from the state before it, judged."""
        self.busy = True
        try:
            before = _clone_with_grads((args, kwargs))
            saved = snapshot(args, kwargs)
            rng = torch.random.get_rng_state()
            state["live"] = (args, kwargs)  # what the compiled call updates in place
            with forked_effects.teed() as tee:
                out, graphs = self.watched_call(compiled, args, kwargs, state)
            self.printed = "".join(tee.parts)
            try:
                state["done"] = judge(before, rng, out, graphs, saved, state)
            except Exception:  # noqa: BLE001 - a checker fault is never the program's
                state["done"] = True
        finally:
            self.busy = False
            state.pop("live", None)
        return out

    def watched_call(self, compiled: Callable[..., Any], args: tuple[Any, ...],
                     kwargs: dict[str, Any], state: dict[str, Any]) -> tuple[Any, list[Any]]:
        """The compiled call, with the graphs it ran (the graph checker records them); the
        first checked call's compile ids kept in `state["first"]`."""
        self.graphs.watched = []
        try:
            out = compiled(*args, **kwargs)
            graphs = self.graphs.watched
        finally:
            self.graphs.watched = None
        if state["first"] is None:
            state["first"] = {cid for cid, *_ in graphs}
        return out, graphs

    def check(self, fn: Callable[..., Any], before: Any, rng: torch.Tensor, out: Any,
              graphs: list[tuple[str | None, Any, Any, bool]],
              globals_before: list[tuple[torch.Tensor, torch.Tensor]], call: int = 1,
              first: set[str | None] | None = None, name: str | None = None,
              annotate: Callable[[list[Any]], tuple[dict[str, Any], Any]] | None = None,
              live: tuple[tuple[Any, ...], dict[str, Any]] | None = None,
              eager: Any = None, forked: bool = False,
              ran: set[tuple[str, int]] | None = None) -> bool:
        """Whether the function is done with: a verdict was sunk, or a graph's own check
        already explains a difference. `name`: the function's (a module's class name);
        `annotate(graphs)`: (detail fields, (compile id, node) or None) a module's check adds
        to a difference (the library code that takes another path when compiled); `live`: the
        program's own arguments, which the compiled call may have updated in place, compared
        with the replay's clones after it (an optimizer-like update returns nothing);
        `forked`: `eager` is what a forked child's eager run of the call returned
        (capture/forked_effects.py), nothing is replayed here, and `ran` the user lines that
        eager run executed."""
        name = name or fn.__qualname__
        if not graphs:
            return False  # nothing compiled ran on this call
        if any(bad for *_, bad in graphs):
            # a graph's own check failed: that graph's diagnosis explains the difference (a
            # wrong kernel, not a wrong trace)
            return True
        args, kwargs = before
        try:
            if not forked:  # a forked child's eager result comes in `eager`
                ran, printed = set(), []
                eager = replay(fn, args, kwargs, rng, globals_before, ran, printed)
        except (MemoryError, torch.OutOfMemoryError):
            return True  # the replay ran out of memory: nothing judged, never a verdict
        except Exception as exc:  # noqa: BLE001 - compiled returned a value: a verdict
            rejected = eager_rejects(name, exc, graphs, _transforms(graphs))
            if rejected is not None:
                self.sink(rejected)
            return True
        if isinstance(eager, generator_results.Drained):  # what the generator returns
            lost = generator_results.lost_return(eager, out, graphs, name, call)
            if lost is not None:
                self.sink(lost)
            return lost is not None
        through = coarsest(d for _, gm, *_ in graphs for d in computed_in(gm))
        checks = compare(eager, out, self.tol, through)
        if live is not None:
            checks += compare_arguments(fn, (args, kwargs), live, self.tol, through)
        # a written attribute first: the state it carries to later calls is the cause
        bad = sorted(((c, leaf) for c, leaf in checks if not c.ok),
                     key=lambda b: "attribute" not in b[0].detail)
        if not bad and not forked:  # the lines the call printed, against eager's
            lost = forked_effects.lost_print(fn, before, printed[0] if printed else None,
                                             self.printed, graphs, name, call)
            if lost is not None:
                self.sink(lost)
            return lost is not None
        if not bad:
            return False
        cid, node = _source(graphs, bad[0][1])
        if bad[0][0].detail.get("user_frame"):
            node = {"node": None, "op": None, "user_frame": bad[0][0].detail["user_frame"]}
        transforms = _transforms(graphs)
        # the graphs the first checked call ran and no other: what they baked in changed
        stale = call > 1 and {c for c, *_ in graphs} <= (first or set())
        fields, at = annotate(graphs) if annotate is not None else ({}, None)
        if at is not None:
            cid, node = at
        verdict = "changed_after_compile" if stale else \
            "compiled_path" if fields.get("compiled_path") else "traced_wrong"
        unrun = forked_effects.unrun_node(graphs, ran) if ran and verdict == "traced_wrong" \
            else None
        if unrun is not None:  # the graph computes a line eager never ran
            (cid, node), verdict = unrun, "traced_other_path"
            fields["unrun"] = node["user_frame"]
            # eager's lines in that file: the test above it that chose the path is read there
            # (analyses/path_choice.py)
            fields["ran"] = sorted({n for f, n in ran
                                    if f == node["user_frame"]["filename"]})[:_RAN_KEPT]
        for c, _ in bad:
            # a Python number the call writes into an object: its own verdict
            c.detail.update(fields, function=name, verdict="stale_number" if "attribute" in
                            c.detail and "compiled" in c.detail else verdict)
            if call > 1:
                c.detail["call"] = call
            if transforms:  # torch.func's transforms the graphs ran the code under
                c.detail["transforms"] = transforms
        self.sink(GraphCheck(cid, [c for c, _ in bad], divergent_node=node))
        return True


def _transforms(graphs: list[tuple[str | None, Any, Any, bool]]) -> list[str]:
    """torch.func transforms the call's graphs entered, in order (accuracy.transforms_in)."""
    return list(dict.fromkeys(t for _, gm, _, _ in graphs for t in transforms_in(gm)))


def _source(graphs: list[tuple[str | None, Any, Any, bool]], leaf: Any
            ) -> tuple[str | None, dict[str, Any] | None]:
    """The compile and output node of the graph whose output `leaf` is (the last graph the
    call ran when none returned it as is)."""
    for cid, gm, out, _ in reversed(graphs):
        for k, value in enumerate(pytree.tree_leaves(out)):
            if leaf is not None and value is leaf:
                return cid, output_node(gm, k)
    return graphs[-1][0], None
