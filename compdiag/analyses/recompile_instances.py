"""Instances of one class sharing compiled code: the recompile a guard on an object's
attribute or size makes when the call brings another instance than every earlier compile's
(capture's call_stacks record each compiled frame's object arguments: `self`, a module passed
in, and the module `torch.compile(module)` calls through torch's wrapper, `fn`)."""

from __future__ import annotations

import re
from typing import Any

from compdiag.formats.compile_id import frame_of
from compdiag.store.reader import compile_id_key

# Two instances of one class, compiled in turn: they share the method's code object, hence its
# compiled entries, and each instance whose Python attributes differ gets its own graph.
INSTANCES_REASON = "another instance of {cls} ({src} differs)"
INSTANCES_EXPLANATION = ("Instances of {cls} share {fn}()'s compiled code; the instance called "
                         "here differs from the one it was compiled for in {src}, so it got "
                         "its own graph. This is one graph per instance configuration, not a "
                         "changing input: marking dimensions dynamic does not apply.")
# (probes46a vit_droppath_regional_rand_ok: "Expected once per ..." read as nothing to do,
# and the buffer advice broke the graph at the `if` that tests the value)
INSTANCES_FIX = ("A graph compiled once per distinct instance: N configurations, N compiles, "
                 "and past `torch._dynamo.config.recompile_limit` the rest run uncompiled. "
                 "To share one graph, keep values that differ between instances out of Python "
                 "attributes where the code only computes with them (a tensor buffer, "
                 "`self.register_buffer(...)`, is an input, not a constant); a value a Python "
                 "`if` tests must stay a constant (a tensor there breaks the graph), so there "
                 "raise the limit to the number of distinct configurations.")
_ROOT = re.compile(r"^(?:L\['(\w+)'\]|([A-Za-z_]\w*))(?:[.\[]|$)")
_SELF_ID_GUARD = re.compile(r"___check_obj_id\(\s*(?:L\['self'\]|self)\s*,")


def frame_cids(ctx: Any, frame_no: Any) -> list[str]:
    return [c for c in ctx.compiles if frame_of(c) == frame_no]


def guard_root(source: str) -> str | None:
    """The local a guarded expression starts from: `self` in self.scale, `net` in
    L['net'].b."""
    m = _ROOT.match(source)
    return (m.group(1) or m.group(2)) if m else None


def instances_of(ctx: Any, frame_no: Any, event: dict[str, Any], source: str) -> str | None:
    """The class whose instances share the recompiled code, when the guard is on an object
    argument (`self`, a module passed in) and the recompiled call's object is another instance
    of that class than every earlier compile's (capture's call_stacks); an id guard on `self`
    says so without them."""
    root = guard_root(source)
    failed = event["failed_guard"] or ""
    cid = event["compile_id"]
    objects = ctx.call(cid).get("objects") or {}
    if root not in objects and root == "args" and "fn" in objects:
        # torch.compile(module) compiles torch's wrapper `inner(*args)` around the module (its
        # `fn`): a guard on args is the module's, and another module object is another instance
        root = "fn"
    mine = objects.get(root or "")
    if not mine:
        return "its class" if _SELF_ID_GUARD.search(failed) else None
    if len(mine) > 2 and mine[2] is False:
        # a plain object (a dataclass of settings) built anew for the call: its attribute
        # is a value that changed, not another long-lived instance's configuration
        return None
    earlier = set()
    for c in frame_cids(ctx, frame_no):
        if compile_id_key(c) < compile_id_key(cid):
            other = (ctx.call(c).get("objects") or {}).get(root or "")
            if other and other[0] == mine[0]:
                earlier.add(other[1])
    if earlier and mine[1] not in earlier:
        return str(mine[0]).rsplit(".", 1)[-1]
    return None


def instance_frame(call: Any, guard_line: Any, calls: list[Any], source: str) -> Any:
    """Where a recompile on another instance of a class is: the call that chose the object
    (an argument it passes: corpus rc_module_instances, `cforward(net, x)`); but where the
    instance is the module called (`self`) and one call line makes every call (`for block in
    blocks: x = block(x)`), the call tells nothing, and the line reading the attribute torch
    guards does (probes34a swa_window_per_layer: `self.window` read at 26, not `block(x)` at
    45; probes34c regional_tcn_dilation)."""
    lines = {(c.filename, c.lineno) for c in calls if c is not None}
    if guard_root(source) == "self" and len(lines) <= 1 and guard_line is not None and \
            guard_line.evidence in ("torch", "fx_node"):
        return guard_line
    return call
