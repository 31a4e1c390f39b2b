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
from typing import Any, NamedTuple

from compdiag.analyses.compiled_source import _named, compiled_defs

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


def baked_value(ctx: Any) -> Baked | None:
    """The first value a compiled function takes as a constant through a marked function it
    calls; None when none."""
    for compiled, tree, path in compiled_defs(ctx):
        swapped = next((c for c in ast.walk(compiled) if isinstance(c, ast.Call)
                        and _named(c.func) == FUNCTIONAL_CALL and c.args), None)
        if swapped is not None:
            words = {"module": ast.unparse(swapped.args[0]), "lineno": swapped.lineno}
            return Baked(FUNCTIONAL_CALL, swapped.lineno, path, FUNCTIONAL_SAID.format(**words),
                         FUNCTIONAL_FIX.format(**words))
        marked = {n.name: (n, marking) for n in ast.walk(tree)
                  if isinstance(n, ast.FunctionDef)
                  for marking in MARKINGS if any(_named(d) == marking[0]
                                                 for d in n.decorator_list)}
        for call in ast.walk(compiled) if marked else ():
            if not isinstance(call, ast.Call) or _named(call.func) not in marked:
                continue
            fn, (name, said, fix) = _named(call.func), marked[_named(call.func)][1]
            if name == "assume_constant_result":
                return Baked(fn, call.lineno, path, said.format(fn=fn, lineno=call.lineno),
                             fix.format(fn=fn))
            read = _global_read(marked[fn][0], tree)
            if read is not None:
                words = {"fn": fn, "lineno": call.lineno, "name": read[0], "read": read[1]}
                return Baked(fn, read[1], path, said.format(**words), fix.format(**words))
    return None


def _global_read(fn: ast.FunctionDef, tree: ast.Module) -> tuple[str, int] | None:
    """(name, line) of the first module-level variable `fn` reads that is no function, class
    or module of the program's (a config dict, a number), nor a builtin."""
    local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    assigned = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(t, ast.Name)}
    # the read as written: `CFG["huber_delta"]`, the item of a config dict, not only `CFG`
    keyed = {id(n.value): ast.unparse(n) for n in ast.walk(fn) if isinstance(n, ast.Subscript)
             and isinstance(n.slice, ast.Constant)}
    reads = sorted((n.lineno, n.col_offset, keyed.get(id(n), n.id)) for n in ast.walk(fn)
                   if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                   and n.id in assigned and n.id not in local and not hasattr(builtins, n.id))
    return (reads[0][2], reads[0][0]) if reads else None
