"""Changes compiled code never sees, kind `unguarded` (issue 29 §4: where bugs hide).

Dynamo guards on what it traced, except where torch chose not to for speed and documents the
risk ("if your model doesn't [have hooks] and you add them, dynamo will not notice and will
execute whichever version you first compiled": torch._dynamo.config.skip_nnmodule_hook_guards).
A program that makes such a change after the first compiled call gets the compiled graph it
had before, with no recompile, no warning and no error: the activations a hook collects are
missing, the output a hook changes is not changed. Inductor's and AOTAutograd's settings are
read only when a graph compiles: one set after every compile changes nothing that runs.
Capture records each change where it is made (capture/module_hooks.py: the registering line,
the module, the module torch.compile wrapped; capture/config_sets.py: the setting, its value,
the line); this kind says it at that line, unless a compile after it traced the change in.

The rules are data: RULES maps each recorded change to its words and fix."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.ranking import Cost

KIND = "unguarded"


@dataclass(frozen=True)
class UnguardedDetails(Details):
    change: str  # the record's kind (RULES' key)
    what: str  # e.g. "register_forward_hook"
    module: str | None = None  # the class of the module changed
    path: str | None = None  # its name inside the compiled module ("" for the module itself)
    compiled: str | None = None  # the class torch.compile wrapped


@dataclass(frozen=True)
class Rule:
    reason: str
    explanation: str
    fix: str


HOOK_NAMES = {"register_forward_hook": "forward hook",
              "register_forward_pre_hook": "forward pre-hook",
              "register_full_backward_hook": "backward hook",
              "register_full_backward_pre_hook": "backward pre-hook",
              "register_backward_hook": "backward hook"}

# record kind (capture's) -> what it means; {hook} {module} {compiled} {lineno} filled in
RULES = {
    "module_hook": Rule(
        reason="{hook} registered on {module} after {after}: compiled code never runs it",
        explanation="Dynamo does not guard on a module's hooks that were empty when it traced "
                    "the module (torch._dynamo.config.skip_nnmodule_hook_guards, on by "
                    "default), so the graph compiled before line {lineno} keeps running "
                    "without this {hook}: no recompile, no warning, and whatever the hook "
                    "collects or changes is missing from every compiled call. Eager runs it.",
        fix="Register the hook before the first compiled call; or set "
            "`torch._dynamo.config.skip_nnmodule_hook_guards = False` before compiling "
            "(Dynamo then guards on hooks and recompiles when they change); or call "
            "`torch.compiler.reset()` after registering it, so the next call compiles with "
            "it."),
    "config_set": Rule(
        reason="{setting} = {value} set after every compile: no compiled code uses it",
        explanation="Inductor and AOTAutograd read their config when they compile a graph, "
                    "never when compiled code runs, and Dynamo does not guard on it, so the "
                    "graphs compiled before line {lineno} run as they were compiled, and "
                    "nothing compiled after it. {setting} changed nothing this program ran "
                    "(no recompile, no warning).",
        fix="Set it before the first compiled call (at the top of the program, or "
            "`with {module}.patch({key}={value}):` around the first call); or call "
            "`torch.compiler.reset()` after setting it, so the next call compiles again "
            "with it."),
}

SPEC = KindSpec(KIND, title="change compiled code ignores",
                words=("ignored change", "ignored changes"), style="bold red", tie=45,
                # silently other behaviour than eager, certain (not measured): just below a
                # measured miscompile (905), above every problem that costs only speed
                costs={"unguarded": Cost(902)}, details=(UnguardedDetails,))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


def _spelt(path: str) -> str:
    """A submodule's name as code reaches it: `1` -> `[1]`, `blocks.0.mlp` -> `blocks[0].mlp`."""
    out = ""
    for part in path.split("."):
        out += f"[{part}]" if part.isdigit() else f".{part}"
    return out.lstrip(".")


def _compile_starts(ctx: Any) -> list[int]:
    return [rec["seq"] for rec in ctx.r.records(ctx.run_id, kind="dynamo_start",
                                                with_payload=False)]


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    out: list[Diagnosis] = []
    starts: list[int] | None = None
    for change, rule in RULES.items():
        # one diagnosis per line and change (a hook registered on each layer in a loop: ×N);
        # a setting a `with config.patch(...)` line sets and then restores: its first set
        at_line: dict[tuple[Any, ...], Diagnosis] = {}
        said: set[Any] = set()
        for rec in ctx.r.records(ctx.run_id, kind=f"compdiag:{change}", with_payload=False):
            data = (rec.get("metadata") or {}).get("compdiag") or {}
            call = data.get("call") if isinstance(data.get("call"), dict) else {}
            line = (call.get("filename"), call.get("lineno"))
            once = (data.get("module"), data.get("key"), data.get("path"), *line)
            if once in said:
                continue
            said.add(once)
            if starts is None:
                starts = _compile_starts(ctx)
            if any(seq > rec["seq"] for seq in starts):
                continue  # a later compile traced the change in
            words = _words(change, data, call, ctx, rec["seq"])
            if words is None:
                continue
            if line in at_line:
                first = at_line[line]
                at_line[line] = dataclasses.replace(first, count=first.count + 1)
                continue
            at_line[line] = Diagnosis(
                KIND, stage=None, compile_id=None,
                reason=rule.reason.format(**words),
                user_frame=ctx.frame(call.get("filename"), call.get("lineno"),
                                     evidence="source"),
                explanation=rule.explanation.format(**words), fix=rule.fix.format(**words),
                score=SPEC.score("unguarded", order=len(out) + len(at_line)),
                details=UnguardedDetails(change=change,
                                         what=str(data.get("method") or data.get("key")),
                                         module=data.get("module"), path=data.get("path"),
                                         compiled=data.get("compiled")))
        out.extend(at_line.values())
    return out


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


def _words(change: str, data: dict[str, Any], call: dict[str, Any],
           ctx: Any = None, seq: int = 0) -> dict[str, Any] | None:
    """What RULES[change]'s texts are filled with; None for a record without its facts (a
    hook on a module no compiled code held)."""
    if change == "config_set":
        if not data.get("module") or not data.get("key"):
            return None
        return {"setting": f"{data['module']}.{data['key']}", "value": data.get("value"),
                "module": data["module"], "key": data["key"], "lineno": call.get("lineno")}
    path, module = data.get("path") or "", data.get("module") or "a module"
    hook = HOOK_NAMES.get(data.get("method"), "hook")
    if data.get("compiled"):
        compiled = data["compiled"]
        where = (f"{module} {_spelt(path)} of the compiled {compiled}" if path
                 else f"the compiled {compiled} itself")
        return {"hook": hook, "module": where, "after": "its first compiled call",
                "lineno": call.get("lineno")}
    root = receiver_root(call.get("line"), data.get("method"))
    fn = _global_compile(ctx, root, seq) if root and ctx is not None else None
    if fn is None:
        return None
    return {"hook": hook, "module": f"{module} `{root}`", "after": f"{fn} compiled it",
            "lineno": call.get("lineno")}
