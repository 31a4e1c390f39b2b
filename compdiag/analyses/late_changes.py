"""Changes a program made after its last compile that compiled code does not see (issue 29
§4): capture's records of a hook registered on a compiled module, an Inductor setting, a
process-wide setter called, an environment variable set (capture/module_hooks.py,
capture/config_sets.py, capture/environ_sets.py), each made after a
graph was compiled, kept here only where no compile started after it (a later compile traced
it in). Read by the `unguarded` kind (its diagnoses) and by check_causes (a failed check of the
program's own after such a change names it)."""

from __future__ import annotations

import ast
from typing import Any

from compdiag.analyses.environ_reads import environ_read

# capture's record kinds, in the order the kind lists them
KINDS = ("module_hook", "config_set", "setting_call", "environ_set")


def late_changes(ctx: Any) -> list[dict[str, Any]]:
    """[{change, data, call, seq}] for each recorded change no compile came after and that
    compiled code held (`applies`). A hook on a global module also has `root` (the global) and `holder` (`f()`)."""
    out: list[dict[str, Any]] = []
    starts: list[int] | None = None
    for change in KINDS:
        for rec in ctx.r.records(ctx.run_id, kind=f"compdiag:{change}", with_payload=False):
            if starts is None:
                starts = [r["seq"] for r in ctx.r.records(ctx.run_id, kind="dynamo_start",
                                                           with_payload=False)]
            if any(seq > rec["seq"] for seq in starts):
                continue
            data = (rec.get("metadata") or {}).get("compdiag") or {}
            call = data.get("call") if isinstance(data.get("call"), dict) else {}
            late = {"change": change, "data": data, "call": call, "seq": rec["seq"]}
            if applies(ctx, late):
                out.append(late)
    return out


def applies(ctx: Any, late: dict[str, Any]) -> bool:
    """Whether compiled code held what the change changed: a hook's module inside a compiled
    wrapper, or a global a compile guarded on (then `root`, `holder` are set on `late`); an
    Inductor setting (always); a setter whose value AOTAutograd baked into a graph (Dynamo's
    graph alone, backend "eager", reads it again as it runs, and follows the call); an
    environment variable compiled code reads (then `read`, the line)."""
    change, data, call = late["change"], late["data"], late["call"]
    if change == "environ_set":  # where compiled code read the variable (then `read`)
        late["read"] = environ_read(ctx, data.get("key") or "")
        return late["read"] is not None
    if change == "config_set":
        return bool(data.get("module") and data.get("key"))
    if change == "setting_call":
        return bool(data.get("module") and data.get("key")) and _aot_traced(ctx, late["seq"])
    if data.get("compiled"):
        return True
    root = receiver_root(call.get("line"), data.get("method"))
    holder = _global_compile(ctx, root, late["seq"]) if root else None
    if holder is None:
        return False
    late.update(root=root, holder=holder)
    return True


def receiver_root(line: str | None, method: str | None) -> str | None:
    """The name a registering line calls `method` on starts from: `layer` in
    `layer.register_forward_hook(h)`, `model` in `model.blocks[0].register_forward_hook(h)`."""
    if not line or not method:
        return None
    try:
        tree = ast.parse(line.strip().rstrip(":"), mode="exec")
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == method):
            base: ast.AST = node.func.value
            while isinstance(base, (ast.Attribute, ast.Subscript, ast.Call)):
                base = base.value if not isinstance(base, ast.Call) else base.func
            return base.id if isinstance(base, ast.Name) else None
    return None


AOT_TRACED = ("aot_inference_graph", "aot_forward_graph", "aot_joint_graph",
              "artifact:aotautograd_cache_hit")


def _aot_traced(ctx: Any, before: int) -> bool:
    """Whether AOTAutograd traced (or served from its cache) a graph before seq `before`."""
    return any(rec["seq"] < before for kind in AOT_TRACED
               for rec in ctx.r.records(ctx.run_id, kind=kind, with_payload=False))


def _global_compile(ctx: Any, root: str, before: int) -> str | None:
    """The function of a compile started before seq `before` that guards on the global `root`
    (its code read it: `G['layer']...`), or None."""
    mark = f"G['{root}']"
    for rec in ctx.r.records(ctx.run_id, kind="dynamo_start", with_payload=False):
        cid = rec.get("compile_id")
        if rec["seq"] > before or not cid:
            continue
        if any(src == mark or src.startswith((mark + ".", mark + "["))
               for src in ctx.r.guard_sources(ctx.run_id, cid)):
            row = ctx.code_row(cid) or {}
            return f"{row.get('co_name') or 'the compiled function'}()"
    return None

