"""A value the compiled graph took as a constant with no guard on it, read from the program's
stored source (a marked function, below, or `torch.func.functional_call` first called with a
module's own parameters): what a later call that differs from eager (the whole-function check's
`changed_after_compile`) or the program's own failed check comes from.

Two markings make Dynamo keep a value without guarding what it was computed from:
`torch.compiler.assume_constant_result` (the function is called once while tracing, its result
written into the graph; probes35a warmup_assume_constant, a warmup factor) and
`allow_in_graph` (the function is not traced at all, so nothing it reads is guarded; a global
it reads is the value it had at the first compile: probes36c allow_in_graph_stale_global, an
annealed Huber threshold read from a config dict). The line is where the value is read: the
marked function's call for the first, the global read inside the function for the second."""

from __future__ import annotations

import ast
import builtins
import re
from typing import Any, NamedTuple

from compdiag.analyses.compiled_source import compiled_defs, named
from compdiag.analyses.custom_op_fakes import (FAKE_INT_EXPLANATION, FAKE_INT_FIX, FAKE_INT_SAID,
                                               fake_constant)
from compdiag.analyses.function_verdicts import CONSTANT_CLAUSE
from compdiag.analyses.locate import locate
from compdiag.store.schema import ALIAS_WORDS

ASSUMED_FIX = ("`{fn}()` is marked `assume_constant_result`: Dynamo called it once when it "
               "compiled, put its result into the graph as a constant and guards nothing it "
               "read, so a later change of what it returns is never seen. Remove the decorator "
               "where the result can change (Dynamo then guards on what it reads and "
               "recompiles), or call `torch.compiler.reset()` after changing it.")
ALLOWED_FIX = ("`{fn}()` is marked `allow_in_graph`: Dynamo writes its call into the graph "
               "without tracing it, so it guards nothing the function reads, and the global "
               "`{name}` it reads at line {read} keeps the value it had when the graph was "
               "compiled. Pass the value in as an argument (a tensor, so a new value needs no "
               "recompile), or drop the marking so that Dynamo traces the function and guards "
               "the global (it then recompiles when it changes).")
# (the decorator's name, the words for the headline, the fix)
MARKINGS = (("assume_constant_result", "the graph holds what `{fn}()` (line {lineno}, "
                                       "assume_constant_result) returned when compiled",
             ASSUMED_FIX),
            ("allow_in_graph", "the graph holds the value the global `{name}` had when "
                               "compiled: `{fn}()` (line {lineno}, allow_in_graph) reads it "
                               "at line {read}, unguarded", ALLOWED_FIX))


# probes36c maml_functional_call_stale: `functional_call(net, params, (x,))` compiled, first
# called with `dict(net.named_parameters())`; later calls with new tensors under the same keys
# ran the first graph, still reading the module's own weights (cloning them for the first call
# made the difference 0)
FUNCTIONAL_CALL = "functional_call"
FUNCTIONAL_SAID = ("`functional_call({module}, ...)` at line {lineno} may hold {module}'s own "
                   "parameters: when the first call passes them (`dict({module}."
                   "named_parameters())`), Dynamo reads them as the module's, and later "
                   "calls' tensors under the same names are not seen")
FUNCTIONAL_FIX = ("Pass tensors that are not {module}'s own parameters on every call, the "
                  "first included (`{{k: v.detach().clone().requires_grad_() for k, v in "
                  "{module}.named_parameters()}}`), so the graph takes them as inputs; or call "
                  "`torch._dynamo.reset()` before calling it with other parameters.")


class Baked(NamedTuple):
    fn: str
    lineno: int  # the line where the value is read (see the module's docstring)
    filename: str | None
    said: str  # for a headline: what the graph holds
    fix: str
    explanation: str = ""  # in place of the verdict's, where nothing baked in changed


# probes41b aot_aliased_window_peek (pytorch#198095): `step(buf, buf[1:], g)` writes `buf` in
# place and returns a view of the other input; the compiled result differed from call 4 on
# and was said as "a value baked in changed", with a fix about constants. The check records
# inputs that share storage (capture/accuracy_compare.describe_inputs).
ALIASED_SAID = ("inputs {i} and {j} of the graph share one storage (a view passed beside its "
                "base), and the result depends on which of them the graph writes")
ALIASED_EXPLANATION = (
    "The compiled function takes two arguments that alias one storage (a tensor and a view "
    "of it) and writes one of them in place. AOTAutograd rebuilds aliased inputs from one "
    "synthetic base and regenerates views of them after the writes, where torch has computed views "
    "from the wrong tensor (pytorch#198095); eager sees the write through the view. Whether "
    "the two differ depends on the values, so an early call can agree.")
ALIASED_FIX = ("Do not pass a tensor and a view of it to one compiled call: pass the base alone "
               "and take the view inside the compiled function (`window = buf[1:]` there), or "
               "pass a copy of the view (`.clone()`), which no longer aliases what the graph "
               "writes.")
_WRITES = re.compile(r"\.(?:copy_|\w+_)\.\w+$|\.\w+_$")  # an in-place op (aten.mul_.Tensor)
_ALIASED = re.compile(rf"\({ALIAS_WORDS} (\d+)\)")


def baked_cause(ctx: Any, cid: str | None, verdict: str | None) -> Baked | None:
    """What a whole-function verdict comes from, where the program shows it: a value baked in
    or aliased inputs for `changed_after_compile`, a custom op's fake that returns a constant
    number for `traced_wrong`."""
    if verdict == "changed_after_compile":
        return baked_value(ctx, cid) or aliased_input(ctx, cid)
    if verdict == "traced_wrong" and (found := fake_constant(ctx, cid)) is not None:
        frame, op, value = found
        return Baked(op, frame.lineno or 0, frame.filename,
                     FAKE_INT_SAID.format(op=op, lineno=frame.lineno, value=value),
                     FAKE_INT_FIX, FAKE_INT_EXPLANATION)
    return None


def with_baked(reason: str, explanation: str, baked: Baked) -> tuple[str, str, str]:
    """(reason, explanation, fix) of a `changed_after_compile` verdict with what it comes
    from; a cause that is no baked value (aliased inputs) replaces the verdict's supposition."""
    if baked.explanation:
        return (f"{reason.replace(CONSTANT_CLAUSE, '')}; {baked.said}", baked.explanation,
                baked.fix)
    return f"{reason}; {baked.said}", explanation, baked.fix


def aliased_input(ctx: Any, cid: str | None) -> Baked | None:
    """Inputs of the compile's graph that the accuracy check found sharing one storage."""
    if not any(_WRITES.search(str(n.get("target") or "")) for n in ctx.graph_nodes(cid)):
        return None  # aliased inputs no op writes (`q, k, v = qkv.split(...)`): no cause
    for row in ctx.r.accuracy(ctx.run_id, cid):
        inputs = (row.get("detail") or {}).get("inputs") or []
        for j, text in enumerate(inputs):
            m = _ALIASED.search(str(text))
            if m is not None:
                frame = locate(ctx, cid)
                return Baked(ctx.fn_name(cid) or "the function", frame.lineno or 0,
                             frame.filename, ALIASED_SAID.format(i=m.group(1), j=j),
                             ALIASED_FIX, ALIASED_EXPLANATION)
    return None


def baked_value(ctx: Any, cid: str | None = None) -> Baked | None:
    """The first value a compiled function (the compile `cid`'s, when given) takes as a
    constant through a marked function it calls, else through `functional_call` first given
    the module's own parameters; None when none."""
    for compiled, tree, path in compiled_defs(ctx, None if cid is None else [cid]):
        found = _marked(compiled, tree, path) or _functional(compiled, tree, path)
        if found is not None:
            return found
    return None


def _functional(compiled: ast.FunctionDef, tree: ast.Module, path: Any) -> Baked | None:
    """`functional_call(module, ...)` in the compiled function, where the program passes the
    module's own parameters (`module.named_parameters()`, not cloned where it is read)."""
    swapped = next((c for c in ast.walk(compiled) if isinstance(c, ast.Call)
                    and named(c.func) == FUNCTIONAL_CALL and c.args), None)
    if swapped is None:
        return None
    module = ast.unparse(swapped.args[0])
    own = f"{module}.named_parameters()"
    uses = [ast.unparse(n) for n in tree.body if own in ast.unparse(n)]
    if not uses or all("clone" in u for u in uses):
        return None
    words = {"module": module, "lineno": swapped.lineno}
    return Baked(FUNCTIONAL_CALL, swapped.lineno, path, FUNCTIONAL_SAID.format(**words),
                 FUNCTIONAL_FIX.format(**words))


def _marked(compiled: ast.FunctionDef, tree: ast.Module, path: Any) -> Baked | None:
    """A value through a function marked assume_constant_result or allow_in_graph."""
    marked = {n.name: (n, marking) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
              for marking in MARKINGS if any(named(d) == marking[0] for d in n.decorator_list)}
    for call in ast.walk(compiled) if marked else ():
        if not isinstance(call, ast.Call) or named(call.func) not in marked:
            continue
        fn, (name, said, fix) = named(call.func), marked[named(call.func)][1]
        if name == "assume_constant_result":
            return Baked(fn, call.lineno, path, said.format(fn=fn, lineno=call.lineno),
                         fix.format(fn=fn))
        read = _global_read(marked[fn][0], tree)
        if read is not None:
            words = {"fn": fn, "lineno": call.lineno, "name": read[0], "read": read[1]}
            return Baked(fn, read[1], path, said.format(**words), fix.format(**words))
    return None


def _rebound(tree: ast.Module) -> set[str]:
    """The module-level names the program changes after binding them: assigned again (at
    module level or under `global`), an item or attribute assigned, augmented, or updated in
    place (`CFG["k"] = v`, `CFG.update(...)`, `STEP += 1`)."""
    counts: dict[str, int] = {}
    changed: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    counts[t.id] = counts.get(t.id, 0) + 1
                    if isinstance(node, ast.AugAssign):
                        changed.add(t.id)
                elif isinstance(t, (ast.Subscript, ast.Attribute)):
                    root = t
                    while isinstance(root, (ast.Subscript, ast.Attribute)):
                        root = root.value
                    if isinstance(root, ast.Name):
                        changed.add(root.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("update", "__setitem__", "setdefault", "pop", "clear") and \
                isinstance(node.func.value, ast.Name):
            changed.add(node.func.value.id)
        elif isinstance(node, ast.Global):
            changed.update(node.names)
    return changed | {n for n, k in counts.items() if k > 1}


def _global_read(fn: ast.FunctionDef, tree: ast.Module) -> tuple[str, int] | None:
    """(name, line) of the first module-level variable `fn` reads that is no function, class
    or module of the program's (a config dict, a number), nor a builtin."""
    local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    assigned = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(t, ast.Name)}
    assigned &= _rebound(tree)  # a global the program changes, not a constant (`EPS`)
    # the read as written: `CFG["huber_delta"]`, the item of a config dict, not only `CFG`
    keyed = {id(n.value): ast.unparse(n) for n in ast.walk(fn) if isinstance(n, ast.Subscript)
             and isinstance(n.slice, ast.Constant)}
    reads = sorted((n.lineno, n.col_offset, keyed.get(id(n), n.id)) for n in ast.walk(fn)
                   if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                   and n.id in assigned and n.id not in local and not hasattr(builtins, n.id))
    return (reads[0][2], reads[0][0]) if reads else None
