"""A run that asked torch.compile for compiled code and ran none (issue 29 §3: no silent end).

`model.compile()` compiles calls of the module itself (`model(...)`, which runs `forward`), and
`torch.compile(fn)` returns a new function that compiles when it is called: a program that
then calls `model.encode_doc(...)`, or keeps calling `fn`, runs everything in eager, and
torch logs nothing (probes34c two_tower_index: "0 compiles; no problems found"). Capture keeps
each call of torch.compile and nn.Module.compile the user's code makes (capture/config_sets.py,
a `compdiag:compile_call` record); a run with such a call, no compile and nothing else to say
for it (no break, no failure, no stance) is told so at that line, with the methods of the
compiled module the program calls instead, read from its source."""

from __future__ import annotations

import ast
import re
from typing import Any

from compdiag.analyses.diagnosis import Details, Diagnosis

MODULE_REASON = ("nothing was compiled: `{call}` (line {lineno}) compiles calls of `{name}(...)` "
                 "itself, and the program calls {methods} instead, which run in eager")
MODULE_EXPLANATION = (
    "nn.Module.compile() compiles the module's own call (`{name}(...)`, which runs forward and "
    "its hooks); a method called directly (`{name}.{first}(...)`) is plain Python and runs in "
    "eager. No frame was compiled in this run, so torch logged nothing.")
MODULE_FIX = ("Compile the methods the program calls: `{name}.{first} = torch.compile({name}."
              "{first})` (and so for each), or route them through the module's call (a forward "
              "that takes which tower to run), so `{name}.compile()` covers them.")
# `model = torch.compile(model)`, then `model.generate(...)`: the wrapper hands attribute
# access to the original module, so its own method runs, and the module calls inside it, in
# eager (probes36b gpt2_generate_on_wrapper; the fix said "call what torch.compile returned",
# which the program did)
WRAPPER_REASON = ("nothing was compiled: `{call}` (line {lineno}) compiles calls of `{name}(...)` "
                  "itself, and the program calls {methods} instead: the wrapper passes them to "
                  "the original module, whose methods run in eager")
WRAPPER_EXPLANATION = (
    "torch.compile(module) returns a wrapper that compiles the module's own call "
    "(`{name}(...)`); any other attribute (`{name}.{first}`) is the original module's, so "
    "`{name}.{first}(...)` runs the original method, and the calls of the module it makes "
    "(`self(...)`) reach the uncompiled module. No frame was compiled in this run, so torch "
    "logged nothing.")
WRAPPER_FIX = ("Compile the module in place instead of wrapping it: `{orig}.compile()` in place "
               "of line {lineno} (the module's own call is then compiled wherever it is made, "
               "inside `{first}` too), or compile what `{first}` calls (`{orig}.forward = "
               "torch.compile({orig}.forward)`).")
UNCALLED_REASON = ("nothing was compiled: the program never ran what `{call}` (line {lineno}) "
                   "compiled")
UNCALLED_EXPLANATION = (
    "torch.compile returns a new callable (nn.Module.compile() replaces the module's call) "
    "that compiles on its first call; no call of it ran in this run, so every line ran in "
    "eager and torch logged nothing.")
UNCALLED_FIX = ("Call what torch.compile returned (`compiled = torch.compile(fn)`, then "
                "`compiled(x)`, not `fn(x)`), or decorate the function with `@torch.compile`.")
# methods every nn.Module has that a program calls for bookkeeping, not compute (`forward` is
# compute: `model.forward(x)` goes around the compiled call, probes38c
# module_compile_forward_bypass)
_MODULE_API = frozenset(dir(__import__("torch").nn.Module)) - {"forward"}
# `model.forward(x)` called directly, after `model.compile()` or `torch.compile(model)`
FORWARD_REASON = ("nothing was compiled: `{call}` (line {lineno}) compiles calls of `{name}(...)`, "
                  "and the program calls `{name}.forward(...)` directly (line {at}), which goes "
                  "around the compiled call and runs in eager")
FORWARD_EXPLANATION = (
    "torch.compile and nn.Module.compile() compile the module's call, `{name}(...)`: "
    "nn.Module.__call__ runs the compiled forward (and the module's hooks). Calling "
    "`{name}.forward(...)` runs the plain method, as any other method call would, so nothing "
    "was compiled in this run and torch logged nothing.")
FORWARD_FIX = ("Call the module, not its forward: `{name}(x)` in place of `{name}.forward(x)` "
               "at line {at} (and wherever else the program calls `.forward` on it).")


# The program started worker processes (capture/processes.py): what they compile is theirs
# (probes41d pool_map_compiled_scorer_ok: an `@torch.compile` function pool.map ran in two
# spawned workers was "never ran", a problem, on a correct program)
WORKERS_REASON = ("nothing was compiled in this process: the program started worker processes "
                  "(line {at}, `{start}`), and what `{call}` (line {lineno}) compiles runs "
                  "there, where `compdiag run` does not capture")
WORKERS_EXPLANATION = (
    "`compdiag run` records the process it starts. The worker processes the program started "
    "({method}) run the compiled function in their own interpreters, whose compiles, breaks "
    "and recompiles are not in this store; this process compiled nothing.")
WORKERS_FIX = ("Nothing to change if the workers call the compiled function. To diagnose its "
               "compiles, call it once in the main process under `compdiag run` (one shard, "
               "without the pool), where it compiles the same way.")


def uncompiled(ctx: Any, kind: str, score: float, details: Details) -> list[Diagnosis]:
    """The diagnosis (of `kind`, at `score`, with the kind's `details`) for a run that
    compiled nothing after the program's first torch.compile or nn.Module.compile call; []
    otherwise."""
    if ctx.compiles:
        return _partly(ctx, kind, score, details)
    if ctx.r.graph_breaks(ctx.run_id) or ctx.r.failures(ctx.run_id) or \
            ctx.r.program_exceptions(ctx.run_id):
        return []  # (an exception before the first compiled call says why: probes34f)
    if ctx.recorded_calls("stance_set"):
        return []  # set_stance said why (analyses/diagnoses/stance.py)
    calls = _compile_calls(ctx)
    started, at = next(iter(ctx.recorded_calls("process_start")), ({}, {}))
    if calls and at.get("lineno"):
        call = calls[0][1]
        words = dict(call=(call.get("line") or "").strip(), lineno=call["lineno"],
                     at=at["lineno"], start=(at.get("line") or "").strip(),
                     method=started.get("method") or "multiprocessing")
        return [Diagnosis(kind, stage=None, compile_id=None,
                          reason=WORKERS_REASON.format(**words),
                          user_frame=ctx.frame(at["filename"], at["lineno"], at.get("line"),
                                               "source"),
                          explanation=WORKERS_EXPLANATION.format(**words), fix=WORKERS_FIX,
                          score=score, severity="info", details=details)]
    for data, call in calls:
        line = (call.get("line") or "").strip()
        frame = ctx.frame(call["filename"], call["lineno"], call.get("line"), "source")
        words = dict(call=line, lineno=call["lineno"])
        in_place = data.get("key") == "compile" and data.get("module") == "torch.nn.Module"
        wrapped = _wrapped(line) if data.get("key") == "compile" and \
            data.get("module") == "torch" else None
        receiver = _receiver(line) if in_place else wrapped[0] if wrapped else None
        methods = _methods_called(ctx.source_lines(call["filename"]) or [], receiver) \
            if receiver else []
        if methods:  # at the first of them: the call that runs in eager
            frame = ctx.frame(call["filename"], methods[0][1], None, "source")
            words.update(name=receiver, first=methods[0][0], methods=", ".join(
                f"`{receiver}.{m}(...)` (line {n})" for m, n in methods[:3]),
                orig=_plain(wrapped[1], receiver) if wrapped else receiver, at=methods[0][1])
            reason, explanation, fix = (
                (FORWARD_REASON, FORWARD_EXPLANATION, FORWARD_FIX)
                if methods[0][0] == "forward" else
                (MODULE_REASON, MODULE_EXPLANATION, MODULE_FIX) if in_place else
                (WRAPPER_REASON, WRAPPER_EXPLANATION, WRAPPER_FIX))
            return [Diagnosis(kind, stage=None, compile_id=None,
                              reason=reason.format(**words), user_frame=frame,
                              explanation=explanation.format(**words),
                              fix=fix.format(**words), score=score, details=details)]
        # every other compile call left unused too (probes38j focal_compile_result_unused:
        # the loss's torch.compile at line 20 went unnamed)
        also = [f"line {c['lineno']}'s `{(c.get('line') or '').strip()}`"
                for _, c in calls if c is not call]
        return [Diagnosis(kind, stage=None, compile_id=None,
                          reason=UNCALLED_REASON.format(**words) + (
                              f" (nor {', '.join(also[:3])})" if also else ""),
                          user_frame=frame,
                          explanation=UNCALLED_EXPLANATION, fix=UNCALLED_FIX, score=score,
                          details=details)]
    return []


# Some calls compiled, and the program calls other methods on the wrapper torch.compile
# returned (probes41c timm_forward_features_wrapper_eager, pytorch#141616: `cmodel.
# forward_features(x)` and `cmodel.forward_head(...)` in the embedding loop ran in eager, one
# `cmodel(x)` compiled, and explain said "no problems found")
PARTLY_REASON = ("{methods} run{s} in eager: `{call}` (line {lineno}) compiles calls of "
                 "`{name}(...)` only, and the wrapper passes other attributes to the original "
                 "module")
PARTLY_FIX = ("Compile the methods the program calls: `{orig}.{first} = torch.compile({orig}."
              "{first})` (and so for each), or call `{name}(x)` where the model's own forward "
              "does what they do.")


# methods of a model's bookkeeping, not compute (transformers' save_pretrained, get_*/set_*)
_BOOKKEEPING = re.compile(r"^(?:save|load|get|set|push|print|num|to|from)_|_(?:enable|disable)$")


def _partly(ctx: Any, kind: str, score: float, details: Details) -> list[Diagnosis]:
    """Methods of a compiled module's wrapper the program calls, which run in eager, in a run
    that compiled other calls; [] where there are none."""
    compiled = {c.get("co_name") for c in ctx.compiles.values()}
    for data, call in _compile_calls(ctx):
        wrapped = _wrapped((call.get("line") or "").strip()) \
            if (data.get("module"), data.get("key")) == ("torch", "compile") else None
        if wrapped is None:
            continue
        lines = ctx.source_lines(call["filename"]) or []
        setters = _state_setters(lines)
        methods = [(m, n) for m, n in _methods_called(lines, wrapped[0])
                   if m not in compiled and n > call["lineno"] and not _BOOKKEEPING.match(m)
                   and m not in setters]
        if not methods:
            continue
        words = dict(call=(call.get("line") or "").strip(), lineno=call["lineno"],
                     name=wrapped[0], orig=_plain(wrapped[1], wrapped[0]), first=methods[0][0],
                     s="s" if len(methods) == 1 else "",
                     methods=", ".join(f"`{wrapped[0]}.{m}(...)` (line {n})"
                                       for m, n in methods[:3]))
        return [Diagnosis(kind, stage=None, compile_id=None,
                          reason=PARTLY_REASON.format(**words),
                          user_frame=ctx.frame(call["filename"], methods[0][1], None, "source"),
                          explanation=WRAPPER_EXPLANATION.format(**words).replace(
                              " No frame was compiled in this run, so torch logged nothing.",
                              ""), fix=PARTLY_FIX.format(**words), score=score,
                          details=details)]
    return []


def _state_setters(lines: list[str]) -> set[str]:
    """The methods whose every `def` in the program's source only assigns attributes of
    `self` (a reset: `self._clock = itertools.count()`): nothing there to compile (probes43e
    stream_decoder_count_clock_recompile: `dec.reset()` said to "run in eager")."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return set()

    def sets_state(stmt: ast.stmt) -> bool:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return True  # a docstring
        if isinstance(stmt, (ast.Pass, ast.Return)) and getattr(stmt, "value", None) is None:
            return True
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
            if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
        return bool(targets) and all(isinstance(t, ast.Attribute) and isinstance(
            t.value, ast.Name) and t.value.id == "self" for t in targets)

    defs: dict[str, list[bool]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef):
            defs.setdefault(n.name, []).append(all(sets_state(s) for s in n.body))
    return {name for name, each in defs.items() if all(each)}


def _plain(expr: str, fallback: str) -> str:
    """`expr` where it names an object (`model`, `self.net`), else `fallback`: a constructor
    call (`StreamingDecoder().eval()`) would build another object in the fix."""
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return fallback
    while isinstance(node, ast.Attribute):
        node = node.value
    return expr if isinstance(node, ast.Name) else fallback


def _compile_calls(ctx: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(the record's facts, the user's call) of each torch.compile or nn.Module.compile call
    capture kept that names its line (capture/config_sets.py)."""
    return [(data, call) for data, call in ctx.recorded_calls("compile_call")
            if call.get("filename") and call.get("lineno")]


def _receiver(line: str) -> str | None:
    """`model` of `model.compile()` (a plain name or attribute chain)."""
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "compile" and isinstance(node.func.value,
                                                           (ast.Name, ast.Attribute)):
            return ast.unparse(node.func.value)
    return None


def _wrapped(line: str) -> tuple[str, str] | None:
    """(the name bound, the module compiled) of `name = torch.compile(module, ...)`."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return None
    node = tree.body[0] if tree.body else None
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
            isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) and \
            node.value.func.attr == "compile" and node.value.args and \
            isinstance(node.targets[0], (ast.Name, ast.Attribute)):
        return ast.unparse(node.targets[0]), ast.unparse(node.value.args[0])
    return None


def _methods_called(lines: list[str], receiver: str) -> list[tuple[str, int]]:
    """The methods of its own the program (its stored source `lines`) calls on `receiver`
    (`model.encode_doc(...)`), with the first line of each, in order; nn.Module's own API
    (`eval`, `to`, `parameters`) left out."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return []
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                ast.unparse(node.func.value) == receiver and node.func.attr not in _MODULE_API:
            found[node.func.attr] = min(found.get(node.func.attr, node.lineno), node.lineno)
    return sorted(found.items(), key=lambda kv: kv[1])
