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
the line; capture/environ_sets.py: an environment variable); this kind says it at that line
(an environment variable at the compiled code's read of it), unless a compile after it traced
the change in.

The rules are data: RULES maps each recorded change to its words and fix."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis
from compdiag.analyses.hookspecs import hookimpl
from compdiag.analyses.kind_spec import KindSpec
from compdiag.analyses.late_changes import late_changes
from compdiag.analyses.locate import locate
from compdiag.analyses.ranking import Cost
from compdiag.analyses.settings_in_graph import settings_in_graph
from compdiag.formats.code_text import calls_in
from compdiag.formats.guard_source import module_path

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
              "register_backward_hook": "backward hook",
              "register_module_forward_hook": "global forward hook",
              "register_module_forward_pre_hook": "global forward pre-hook",
              "register_module_full_backward_hook": "global backward hook",
              "register_module_full_backward_pre_hook": "global backward pre-hook"}

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
    # (a module_hook record of method requires_grad_: capture/module_hooks.py)
    "requires_grad": Rule(
        reason="requires_grad_() changed on {module} after {after}: the compiled graph keeps "
               "the gradients it was traced with",
        explanation="The graph compiled before line {lineno} was traced with these "
                    "parameters' requires_grad as it was then, and no compile came after the "
                    "change (torch 2.11 does not guard on it here; 2.13 recompiles): "
                    "parameters unfrozen at line {lineno} get no gradient from compiled "
                    "calls, and frozen ones keep getting one. Eager follows the change.",
        fix="Set requires_grad before the first compiled call and freeze through the "
            "optimizer instead (a param group with lr 0, or frozen parameters left out of "
            "it); or call `torch.compiler.reset()` after changing it, so the next call "
            "compiles again with it."),
    # capture/module_hooks.py's wrapper_backward_hook records: any time, not only late
    # (probes47c grad_spike_hook_on_wrapper: "0 problems" while the hook never ran)
    "wrapper_backward_hook": Rule(
        reason="backward hook registered on torch.compile's wrapper of {compiled}: it never "
               "runs",
        explanation="`register_full_backward_hook` on the module torch.compile returned (an "
                    "OptimizedModule) hands the hook's flag on to the {compiled} it wraps, so "
                    "the wrapper's call finds no backward hook to run: no error and no "
                    "warning, and whatever the hook measures or changes is missing from every "
                    "call, while eager runs it. The wrapper's forward hooks do run.",
        fix="Register it on the module itself: `{name}._orig_mod.register_full_backward_hook("
            "...)`, or on the module before `torch.compile(...)` wraps it."),
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
    "setting_call": Rule(
        reason="{setting}({value}) called after every compile: no compiled code uses it",
        explanation="{why} Dynamo does not guard on it, so the graphs compiled before line "
                    "{lineno} keep what they traced, and nothing compiled after it: the call "
                    "changed nothing compiled code ran (no recompile, no warning), while eager "
                    "follows it.",
        fix="{own}; or make the call before the first compiled call; or call "
            "`torch.compiler.reset()` after it, so the next call compiles again with it."),
    "environ_set": Rule(
        reason="environment variable {key} {what} at line {lineno} after the compile: the "
               "compiled code keeps the value it read at line {read}",
        explanation="Dynamo turns a read of os.environ inside compiled code into a constant "
                    "of the graph. It guards the value of a variable that was set when it "
                    "traced the read, but not the absence of one that was not (the default of "
                    "`os.environ.get` or `os.getenv` is baked in), and no compile followed "
                    "this change: the graph compiled before line {lineno} keeps what it read "
                    "then, with no recompile and no warning, while eager reads the new value "
                    "on every call.",
        fix="Read the variable outside the compiled code and pass what it decides in as an "
            "argument (a flag or a number), so that Dynamo guards on it; or call "
            "`torch.compiler.reset()` after changing it, so the next call compiles again "
            "with the new value."),
    "setting_in_graph": Rule(
        reason="{setting}({value}) inside compiled code is never applied: the process keeps "
               "the setting it had",
        explanation="Dynamo applies the call while it traces the function and then puts the "
                    "setting back as it was; the compiled graph keeps only tensor operations, "
                    "so no compiled call makes it (no break, no recompile, no warning). The "
                    "rest of the program, eager code included, runs with the old setting, "
                    "while eager would have changed it at line {lineno}.",
        fix="Call `{setting}({value})` outside compiled code, before the first compiled call "
            "(at the program's start)."),
}

# A global hook (`register_module_forward_hook`): skip_nnmodule_hook_guards = False did not
# bring it into the compiled graph (probes30d layer_profiler_global_hook, checked on 2.13);
# registering it first, or a reset after it, does.
GLOBAL_HOOK_FIX = ("Register the global hook before the first compiled call (Dynamo then "
                   "traces it into the graph); or call `torch.compiler.reset()` after "
                   "registering it, so the next call compiles with it; or register it on the "
                   "modules you want (`module.register_forward_hook`) before compiling.")

SETTER_WORDS = ("A compiled graph keeps the value this setting had when it was traced.",
                "Set it inside the compiled function's own code, where the graph keys on it")
# setter -> (why compiled code keeps the value it traced with, the fix that does not depend
# on the process-wide value)
SETTERS = {
    "set_autocast_dtype": (
        "A compiled `torch.autocast(device)` without a dtype bakes the default dtype it was "
        "traced with into its graph, and Dynamo's global-state guard compares a device's "
        "autocast dtype only while autocast is on for it.",
        "Pass the dtype where autocast is entered (`torch.autocast(device, dtype=...)`), so "
        "the graph keys on it"),
    "enable_flash_sdp": (
        "scaled_dot_product_attention's kernel is chosen from the SDPA backend flags when the "
        "graph is traced.",
        "Choose the backend around the compiled call with "
        "`torch.nn.attention.sdpa_kernel(...)` before it first compiles"),
}
for _flag in ("enable_mem_efficient_sdp", "enable_math_sdp", "enable_cudnn_sdp"):
    SETTERS[_flag] = SETTERS["enable_flash_sdp"]

SPEC = KindSpec(KIND, title="change compiled code ignores",
                words=("ignored change", "ignored changes"), style="bold red", tie=45,
                # silently other behaviour than eager, certain (not measured): just below a
                # measured miscompile (905), above every problem that costs only speed
                costs={"unguarded": Cost(902)}, details=(UnguardedDetails,))


@hookimpl
def compdiag_kinds() -> list[KindSpec]:
    return [SPEC]


@hookimpl
def compdiag_diagnose(ctx: Any) -> list[Diagnosis]:
    # one diagnosis per line and change (a hook registered on each layer in a loop: ×N); a
    # setting a `with config.patch(...)` line sets and then restores: its first set
    at_line: dict[tuple[Any, ...], Diagnosis] = {}
    said: set[Any] = set()
    for late in late_changes(ctx):
        change, data, call = late["change"], late["data"], late["call"]
        rule = RULES.get("requires_grad" if data.get("method") == "requires_grad_"
                         else change)
        if rule is None:
            continue
        line = (change, call.get("filename"), call.get("lineno"))
        once = (data.get("module"), data.get("key"), data.get("path"), *line)
        if once in said:
            continue
        said.add(once)
        words = _words(late)
        if line in at_line:
            first = at_line[line]
            at_line[line] = dataclasses.replace(first, count=first.count + 1)
            continue
        at_line[line] = Diagnosis(
            KIND, stage=None, compile_id=None,
            reason=rule.reason.format(**words),
            user_frame=ctx.frame(late["read"]["filename"], late["read"]["lineno"],
                                 late["read"].get("line"), evidence="source")
            if late.get("read") else ctx.frame(call.get("filename"), call.get("lineno"),
                                                evidence="source"),
            explanation=rule.explanation.format(**words),
            fix=GLOBAL_HOOK_FIX if data.get("module") == "every module" else
            rule.fix.format(**words),
            score=SPEC.score("unguarded", order=len(at_line)),
            details=UnguardedDetails(change=change,
                                     what=str(data.get("method") or data.get("key")),
                                     module=data.get("module"), path=data.get("path"),
                                     compiled=data.get("compiled")))
    for rec in ctx.r.records(ctx.run_id, kind="compdiag:wrapper_backward_hook",
                             with_payload=False):  # a hook the wrapper never runs
        data = (rec.get("metadata") or {}).get("compdiag") or {}
        call = data.get("call") if isinstance(data.get("call"), dict) else {}
        frame = ctx.frame(call.get("filename"), call.get("lineno"), evidence="source")
        rule = RULES["wrapper_backward_hook"]
        words = {"compiled": data.get("compiled") or "the module",
                 "name": receiver(frame.line) or "model"}
        at_line.setdefault(("wrapper_backward_hook", frame.filename, frame.lineno), Diagnosis(
            KIND, stage=None, compile_id=None, reason=rule.reason.format(**words),
            user_frame=frame, explanation=rule.explanation.format(**words),
            fix=rule.fix.format(**words), score=SPEC.score("unguarded", order=len(at_line)),
            details=UnguardedDetails(change="wrapper_backward_hook",
                                     what="register_full_backward_hook",
                                     compiled=data.get("compiled"))))
    for found in settings_in_graph(ctx):  # a setter inside compiled code, never applied
        frame = found["frame"] or locate(ctx, found["cid"])
        words = {"setting": found["call"], "value": found["value"], "lineno": frame.lineno}
        rule = RULES["setting_in_graph"]
        at_line[("setting_in_graph", found["call"], frame.lineno)] = Diagnosis(
            KIND, stage="dynamo", compile_id=found["cid"], reason=rule.reason.format(**words),
            user_frame=frame, explanation=rule.explanation.format(**words),
            fix=rule.fix.format(**words),
            # the program makes the call outside compiled code too: nothing it needs is lost
            severity="info" if found["outside"] else "problem",
            score=SPEC.score("info") if found["outside"] else SPEC.score(
                "unguarded", order=len(at_line)),
            details=UnguardedDetails(change="setting_in_graph", what=found["call"]))
    return list(at_line.values())


def _words(late: dict[str, Any]) -> dict[str, Any]:
    """What RULES[change]'s texts are filled with, from a change late_changes kept."""
    change, data, call = late["change"], late["data"], late["call"]
    if change == "setting_call":
        why, own = SETTERS.get(data["key"], SETTER_WORDS)
        return {"setting": f"{data['module']}.{data['key']}", "value": data.get("value") or "",
                "why": why, "own": own, "lineno": call.get("lineno")}
    if change == "environ_set":
        return {"key": data.get("key"), "lineno": call.get("lineno"),
                "read": (late.get("read") or {}).get("lineno"),
                "what": "deleted" if data.get("value") is None else
                f"set to {data['value']}"}
    if change == "config_set":
        return {"setting": f"{data['module']}.{data['key']}", "value": data.get("value"),
                "module": data["module"], "key": data["key"], "lineno": call.get("lineno")}
    path, module = data.get("path") or "", data.get("module") or "a module"
    hook = HOOK_NAMES.get(data.get("method"), "hook")
    if data.get("compiled"):
        compiled = data["compiled"]
        where = (f"{module} {module_path(path)} of the compiled {compiled}" if path
                 else f"every module of the compiled {compiled}" if module == "every module"
                 else f"the compiled {compiled} itself")
        return {"hook": hook, "module": where, "after": "its first compiled call",
                "lineno": call.get("lineno")}
    return {"hook": hook, "module": f"{module} `{late['root']}`",
            "after": f"{late['holder']} compiled it", "lineno": call.get("lineno")}


def receiver(line: str | None) -> str | None:
    """The object a `X.register_full_backward_hook(...)` line calls the method on."""
    return next((ast.unparse(n.func.value) for n in calls_in(line)
                 if isinstance(n.func, ast.Attribute)
                 and n.func.attr == "register_full_backward_hook"), None)
