"""Accuracy against eager, inside the user's process (`run --check-accuracy`, the pytest plugin).

Every graph Dynamo hands to the backend is kept (graph copied, parameters shared); the first
calls of its compiled function are replayed eagerly on clones of the same inputs, twice (to
tell eager non-determinism from a compiler bug), and in float64 as the reference. The rules
are torch._dynamo.utils.same's (allclose, then RMSE against fp64 with a multiplier), plus a
NaN/Inf-pattern check. The user's call returns the compiled result untouched; RNG state and
module buffers are restored after the replays, so the program's numbers do not change."""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import torch
import torch.fx


# What one check compares (capture/accuracy_compare.py, shared with the gradient check);
# the names other modules take from here are re-exported.
from compdiag.capture import tf32
from compdiag.capture.random_ops import draws_random
from compdiag.capture.round_trips import judge_round_trips
from compdiag.capture.accuracy_compare import (  # noqa: F401
    GraphCheck, OutputCheck, Tolerance, _clone, _described, _leaves, _op_name, _preserved_state,
    coarsest, computed_in,
    _to64,
    compare_output, compare_outputs, describe_inputs, fp64_errors, user_line)
from compdiag.capture.accuracy_localise import (  # noqa: F401
    _broken_contract, localise, output_node, point_at_an_op, wrong_code)
from compdiag.capture.accuracy_replay import (  # noqa: F401
    _changed, _eager, _gm64, global_state, restore_global_state, transforms_in)


def _updated(before: list[Any], after: list[Any], *replays: dict[int, Any]) -> list[int]:
    """The inputs a run changed in place (an optimizer step's parameters and state): the
    compiled call's (`after`, its real arguments) or an eager replay's (`replays`). An input
    whose memory another input shares is left out: the replays clone each input on its own,
    so a write through one no longer shows in the other, as it does in the real call."""
    shared = _sharing(after)
    return [i for i, b in enumerate(before) if i not in shared and (
        _changed(b, after[i] if i < len(after) else None)
        or any(i in r for r in replays))]


def _sharing(args: list[Any]) -> set[int]:
    """Indices of tensor inputs whose storage another input uses too (views of one buffer)."""
    seen: dict[int, list[int]] = {}
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            try:
                seen.setdefault(a.untyped_storage().data_ptr(), []).append(i)
            except Exception:  # noqa: BLE001 - no storage (nested, functional): its own
                continue
    return {i for ids in seen.values() if len(ids) > 1 for i in ids}


def _updated_names(gm: torch.fx.GraphModule, indices: list[int]) -> dict[int, str]:
    """Each updated input's output name, as the program names the input (its placeholder's
    source), read from the graph once."""
    from compdiag.capture.grad_accuracy import _input_names

    try:
        names = _input_names(gm) if indices else []
    except Exception:  # noqa: BLE001 - a name is a nicety
        names = []
    return {i: f"input {names[i] if i < len(names) else i} (updated in place)" for i in indices}


def _param_versions(gm: torch.fx.GraphModule, args: tuple[Any, ...]
                    ) -> tuple[tuple[Any, int], ...]:
    """(where, in-place version counter) of each parameter the graph reads: among its
    arguments (Dynamo passes a module's parameters in), and its own attributes (under
    freezing Dynamo keeps them there, for Inductor to fold as constants). A version that
    moved is a parameter the program changed in place."""
    out: list[tuple[Any, int]] = [(i, a._version) for i, a in enumerate(args)
                                  if isinstance(a, torch.nn.Parameter)]
    try:
        out += [(name, t._version) for name, t in (*gm.named_parameters(),
                                                   *gm.named_buffers())]
    except Exception:  # noqa: BLE001 - no attributes to watch
        pass
    return tuple(out)


def _changed_params(gm: torch.fx.GraphModule, before: tuple[tuple[Any, int], ...] | None,
                    now: tuple[tuple[Any, int], ...]) -> list[str]:
    """The parameters whose version moved, named as the program spells them where it can."""
    from compdiag.capture.grad_accuracy import _input_names
    from compdiag.formats.guard_source import in_user_spelling

    try:
        names = _input_names(gm)
    except Exception:  # noqa: BLE001 - a name is a nicety
        names = []
    out = []
    for (where, v), (_, v0) in zip(now, before or ()):
        if v != v0:
            out.append(names[where] if isinstance(where, int) and where < len(names)
                       else in_user_spelling(str(where)))
    return out


def _first_reader(gm: torch.fx.GraphModule, names: list[str]) -> dict[str, Any] | None:
    """The first op (graph order) reading one of the graph's attributes `names`, described
    as a divergent node is (its user line); None when no op reads one."""
    from compdiag.capture.accuracy_compare import _described

    wanted = set(names)
    attrs = {n for n in gm.graph.nodes if n.op == "get_attr" and n.target in wanted}
    return next((_described(n) for n in gm.graph.nodes
                 if n.op == "call_function" and any(a in attrs for a in n.all_input_nodes)),
                None)


def _freezing() -> bool:
    try:
        import torch._inductor.config as inductor_config
        return bool(getattr(inductor_config, "freezing", False))
    except Exception:  # noqa: BLE001
        return False


def check_graph(gm: torch.fx.GraphModule, compiled_out: Any, args_before: list[Any],
                rng_before: torch.Tensor, tol: Tolerance, compile_id: str | None,
                args_after: list[Any] | None = None) -> GraphCheck:
    """Eager against compiled on the program's own inputs: the graph's outputs, and each
    input a run updated in place (`args_after`: the compiled call's arguments after it), which
    is a result too (an optimizer step returns nothing)."""
    kept1: dict[int, Any] = {}
    kept2: dict[int, Any] = {}
    kept64: dict[int, Any] = {}
    with _preserved_state(gm):
        try:
            eager1 = _eager(gm, args_before, rng_before, keep=kept1)
        except Exception as exc:  # noqa: BLE001 - compiled returned a value: a verdict
            return eager_rejects(gm, args_before, rng_before, exc, compile_id)
        eager2 = _eager(gm, args_before, rng_before, keep=kept2)
        try:  # (a graph that draws random numbers would draw others in float64)
            ref64 = None if draws_random(gm) else _eager(
                _gm64(gm), _to64(args_before), rng_before, exact=True, keep=kept64)
        except Exception:  # noqa: BLE001 - some graphs have no float64 kernels
            ref64 = None
    again = compare_outputs(eager1, eager2, eager1, Tolerance(rtol=0.0, atol=0.0))
    outs = compare_outputs(eager1, compiled_out,
                           ref64 if ref64 is not None else eager1, tol, computed_in(gm))
    if args_after is not None:
        updated = [i for i in _updated(args_before, args_after, kept1) if i < len(args_after)]
        for i, name in _updated_names(gm, updated).items():
            # an input a run left as it was is its value before, in that run
            e1, e2 = kept1.get(i, args_before[i]), kept2.get(i, args_before[i])
            again.append(compare_output(name, e1, e2, e1, Tolerance(rtol=0.0, atol=0.0)))
            # judged at the precision the graph computed in: a float32 buffer a bfloat16
            # graph updates (BatchNorm's running_mean under autocast) is only that precise
            # (probes40c timm_bf16_finetune_freeze_stem_ok: "ill-conditioned, 2.69e+04x")
            outs.append(compare_output(name, e1, args_after[i], kept64.get(i, e1), tol,
                                       coarsest(computed_in(gm))))
    nondeterministic = not all(o.ok for o in again)
    if ref64 is not None and tf32.notable(outs) and tf32.may_apply(gm, args_before):
        with _preserved_state(gm), tf32.off():
            without = _eager(gm, args_before, rng_before)
        tf32.judge(outs, _leaves(without), _leaves(ref64))
    if nondeterministic:
        for o in outs:
            o.detail["eager_nondeterministic"] = True
            if not o.ok:
                o.detail["reason"] = ("eager itself is non-deterministic on this graph (two eager "
                                      "runs disagree); not attributed to the compiler")
                o.ok = True
    check = GraphCheck(compile_id, outs, nondeterministic=nondeterministic,
                       inputs=describe_inputs(args_before),
                       updated_inputs=bool(args_after is not None and updated))
    if not nondeterministic:
        judge_round_trips(check, gm, tol)  # a cast down and up that compiled leaves out
    return check


def eager_rejects(gm: torch.fx.GraphModule, args: list[Any], rng: torch.Tensor,
                  exc: BaseException, compile_id: str | None) -> GraphCheck:
    """Eager raised on the program's own inputs where the compiled graph returned a value:
    the compiled code accepted what the op rejects (a check Inductor dropped), a miscompile at
    the op that raised (found by running the graph node by node)."""
    failing: list[torch.fx.Node] = []

    class Find(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            try:
                return super().run_node(n)
            except Exception:
                failing.append(n)
                raise

    try:
        with _preserved_state(gm):
            torch.random.set_rng_state(rng)
            with torch.no_grad():
                Find(gm).run(*_clone(args))
    except Exception:  # noqa: BLE001, S110 - the node it raised at is what we wanted
        pass
    message = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    out = OutputCheck("outputs", False, None, None, {
        "verdict": "eager_rejects", "eager_error": message,
        "reason": f"eager raised {message}; the compiled graph returned a value"})
    node = _described(failing[-1]) if failing else None
    return GraphCheck(compile_id, [out], divergent_node=node, inputs=describe_inputs(args))


# -- the backend wrapper ------------------------------------------------------------------------
class AccuracyChecker:
    """Wraps Dynamo's call into the backend. `sink(check)` receives each GraphCheck."""

    def __init__(self, sink: Callable[[GraphCheck], None], *, tol: Tolerance | None = None,
                 calls: int = 1, localise: bool = True,
                 compile_id: Callable[[], str | None] = lambda: None,
                 quiet: Callable[[], Any] = contextlib.nullcontext, grads: bool = True) -> None:
        self.sink = sink
        self.grads = grads
        self.tol = tol or Tolerance()
        self.calls = calls
        self.localise = localise
        self.compile_id = compile_id
        self.quiet = quiet
        self._active = False
        # the graphs a watched call ran, (compile id, graph, outputs, whether its own check
        # failed) (function_accuracy.py)
        self.watched: list[tuple[str | None, Any, Any, bool]] | None = None

    def install(self) -> Callable[[], None]:
        from compdiag.capture.backend_hook import hook_backend_call

        return hook_backend_call(
            lambda: self._active,
            lambda keep, compiled, compiler: self.wrap(keep, compiled, self.compile_id(),
                                                       compiler))

    def wrap(self, gm: torch.fx.GraphModule, compiled: Callable[..., Any], cid: str | None,
             compiler: Callable[..., Any]) -> Callable[..., Any]:
        checker = self
        state: dict[str, Any] = {"calls": 0, "versions": None, "rechecked": False,
                                 "stateful": False, "bad": False}

        def checked(*args: Any) -> Any:
            out = _checked(args)
            if checker.watched is not None:  # a whole function's check (function_accuracy)
                checker.watched.append((cid, gm, out, state["bad"]))
            return out

        def _checked(args: tuple[Any, ...]) -> Any:
            recheck = state["calls"] >= checker.calls
            if checker._active or (recheck and state["rechecked"]):
                return compiled(*args)   # past its checks: nothing read, each call
            versions = _param_versions(gm, args)
            # checked again, once, at the next call of a graph that updated its own inputs in
            # place (a history buffer, a cache, running statistics): its first call started
            # from the program's initial state (often zeros), which hides what compiled code
            # gets wrong once the state holds values (pytorch#198031: a dropped clone)
            if recheck and versions == state["versions"] and not state["stateful"]:
                return compiled(*args)
            # checked again, once, at the first call after the program changed a parameter in
            # place (a weight update, a hot swap): freezing folds parameters into the compiled
            # graph as constants, and compiled code that ignores the update differs only now
            state["rechecked"] = state["rechecked"] or recheck
            state["calls"] += 1
            changed = _changed_params(gm, state["versions"], versions) if recheck else []
            state["versions"] = versions
            before = _clone(list(args))
            rng = torch.random.get_rng_state()
            out = compiled(*args)
            after_rng = torch.random.get_rng_state()
            modes = global_state()  # the check's replays must leave them as the call did
            checker._active = True
            try:
                if checker.grads and not recheck:
                    checker.watch(gm, list(args), before, out, rng, cid, compiler)
                check = check_graph(gm, out, before, rng, checker.tol, cid,
                                    args_after=list(args))
                for o in check.outputs if recheck and changed else ():
                    o.detail["after_param_update"] = [n.removeprefix("L__self___")
                                                      for n in changed]
                    o.detail["freezing"] = _freezing()
                # what differs after an update starts at the first op reading an updated
                # parameter: that is the line, not a search for a wrong kernel
                stale = _first_reader(gm, changed) if recheck and not check.ok else None
                if stale is not None:
                    check.divergent_node = stale
                elif not check.ok and checker.localise and check.divergent_node is None:
                    try:
                        with checker.quiet():
                            check.divergent_node = localise(gm, compiler, before, rng,
                                                            checker.tol,
                                                            fused=wrong_code(check))
                    except Exception as exc:  # noqa: BLE001
                        check.error = None
                        check.divergent_node = {"error": f"{type(exc).__name__}: {exc}"[:300]}
                if checker.localise and not check.ok and stale is None:
                    # a custom op that broke its declaration: whatever the outputs' verdict
                    # (a fake's wrong dtype reads as dtype promotion, probes27)
                    blamed = (_broken_contract(gm, before, rng, mutation=True)
                              if wrong_code(check) else None) or \
                        _broken_contract(gm, before, rng, mutation=False)
                    if blamed is not None:
                        check.divergent_node = blamed
                if checker.localise and stale is None:
                    point_at_an_op(check, gm, before, rng, checker.tol)
            except Exception as exc:  # noqa: BLE001 - a checker fault is not the user's
                check = GraphCheck(cid, [], error=f"{type(exc).__name__}: {exc}"[:500])
            finally:
                checker._active = False
                torch.random.set_rng_state(after_rng)
                restore_global_state(modes)
            state["stateful"] = check.updated_inputs and not recheck and check.ok
            # (a graph whose outputs differ from eager's with a verdict that excuses it,
            # compiled nearer float64 than eager, explains the function's difference too:
            # not a wrong trace; probes26 acc_bf16_weights_upcast)
            state["bad"] = state["bad"] or not check.ok or any(
                o.detail.get("verdict") for o in check.outputs)
            checker.sink(check)
            return out

        checked._compdiag_accuracy = True  # type: ignore[attr-defined]
        return checked

    def watch(self, gm: torch.fx.GraphModule, args: list[Any], before: list[Any], out: Any,
              rng: torch.Tensor, cid: str | None, compiler: Callable[..., Any]) -> None:
        """Check the gradients the program's own backward computes through this call
        (capture/grad_accuracy.py); the sink hears of them when that backward has run."""
        from compdiag.capture.grad_accuracy import Modes, compare_grads, localise_backward, \
            rejected_after_forward, rejected_check, watch_backward

        checker = self

        def on_grads(watch: Any, grads: list[Any]) -> None:
            if checker._active:
                return
            checker._active = True
            rng_now = torch.random.get_rng_state()
            try:
                rejected = rejected_after_forward(watch)
                check = rejected_check(watch, cid, rejected) if rejected else \
                    compare_grads(watch, grads, checker.tol, cid)
                if not check.ok and checker.localise and not rejected:
                    try:
                        with checker.quiet():
                            check.divergent_node = localise_backward(watch, compiler,
                                                                     checker.tol)
                    except Exception as exc:  # noqa: BLE001
                        check.divergent_node = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            except Exception as exc:  # noqa: BLE001 - a checker fault is not the user's
                check = GraphCheck(cid, [], error=f"backward: {type(exc).__name__}: {exc}"[:500])
            finally:
                checker._active = False
                torch.random.set_rng_state(rng_now)
            checker.sink(check)

        try:
            watch_backward(gm, args, before, out, rng, Modes.now(), on_grads)
        except Exception:  # noqa: BLE001, S110 - fail open: the forward check still runs
            pass
