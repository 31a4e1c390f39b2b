"""A failed guard in the user's terms, for the guard categories whose text alone misleads:
what changed between the compiled call and this one (old -> new where the stored facts hold
both), why Dynamo guards on it, and the fix that fits that category.

Torch names only the guard that failed, often in its own spelling (`___check_type_id`, a
DispatchKeySet, "Cache line invalidated because G['ctx'] got deallocated"); ingest classifies
it (recompile_events.category) and keeps the type of every argument and global each compile
guarded (guard_values `type(L['x'])`). This module reads those stored facts only; none of it
suggests dynamic shapes, which help only a size or stride guard (docs/explain.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compdiag.analyses.closure_cells import cell_name, closure_index
from compdiag.analyses.dispatch_keys import dispatch_key_words
from compdiag.analyses.duck_sizes import duck_words
from compdiag.analyses.container_pick import MODULE_FIX, PARAMETER_CONTAINERS, PARAMETER_FIX, \
    container_pick
from compdiag.analyses.global_state_words import setting_changed
from compdiag.analyses.key_order import key_order_words
from compdiag.analyses.locate import source_matches
from compdiag.analyses.rebuilt_objects import made_per_outer_loop
from compdiag.analyses.recompile_rules import FIXES
from compdiag.formats.compile_id import frame_of
from compdiag.formats.compiled_code import resumed_function
from compdiag.formats.code_text import def_at, indexed_by
from compdiag.formats.guard_source import (in_user_spelling, main_global,
                                           nested_input, rooted)
from compdiag.formats.user_code import is_user_file
from compdiag.store.reader import compile_id_key


@dataclass(frozen=True)
class Said:
    """A guard failure said plainly: the reason's head and change, explanation and fix."""
    head: str
    change: str
    explanation: str
    fix: str
    # the diagnosis belongs at the guarded line, not the call: the cause is code the compiled
    # function runs (a hook's write), and the call is torch's module call
    at_guard: bool = False
    # False: never the recompile torch makes on purpose, even once (a math call specialises
    # its number at every value; automatic dynamic does not make it symbolic)
    by_design: bool = True
    # the user line the diagnosis belongs at, found in the compiled function's own code
    frame: Any = None
    # the fix says the by-design case too (used even for the recompile torch makes on purpose)
    whole_fix: bool = False


# Dynamic shapes help only a guard on a size or stride: the fix of any other guard never
# names them (tests/principles_check.py checks every store for it).
SHAPE_CATEGORIES = ("size", "stride")
# a line that writes into the container `{root}` names: item assignment, del, a mutating method
_MUTATES = r"(?:\b{root}\s*\[[^\]]*\]\s*(?:[-+*/|&]?=)(?!=)|\bdel\s+{root}\s*\[|" \
           r"\b{root}\s*\.\s*(?:append|extend|insert|update|setdefault|pop|popitem|clear|" \
           r"remove|add|discard)\s*\()"


def previous_compile(ctx: Any, cid: str) -> str | None:
    """The latest earlier compile of the same frame: the entry whose guard failed."""
    earlier = sorted((c for c in ctx.compiles if frame_of(c) == frame_of(cid)
                      and compile_id_key(c) < compile_id_key(cid)), key=compile_id_key)
    return earlier[-1] if earlier else None


def type_of(ctx: Any, cid: str | None, source: str) -> str | None:
    """The type the compile's guard tree gave `source` (a tensor's class where the tree
    matched it), else the argument or global it is (the root's, only when it is the root: a
    dict's item is no dict, probes33b mamlpp_per_step_lr said "dict -> torch.Tensor")."""
    if cid is not None and re.match(r"^(?![LG]\[)[A-Za-z_]\w*[.\[]", source):
        # a nested source as the user spells it (`self._modules['conv1']`): torch's L/G form
        for scope in ("L", "G"):
            spelled = re.sub(r"^([A-Za-z_]\w*)", rf"{scope}['\1']", source)
            found = ctx.r.guard_value(ctx.run_id, cid, f"type({spelled})")
            if found is not None:
                return found
    root = re.match(r"^[LG]\['[^']+'\]", source)
    if cid is None or root is None:
        return None
    exact = ctx.r.guard_value(ctx.run_id, cid, f"type({source})")
    if exact is not None or root.group(0) != source:
        return exact
    return ctx.r.guard_value(ctx.run_id, cid, f"type({root.group(0)})")


def short_type(name: str | None) -> str | None:
    """torch.nn.parameter.Parameter -> nn.Parameter; builtins as they are."""
    if not name:
        return None
    if name == "torch.nn.parameter.Parameter":
        return "nn.Parameter"
    return name


def bare(source: str) -> str:
    """L['state'] -> state, G['ctx'] -> ctx (the name in the user's code)."""
    m = re.match(r"^[LG]\['([^']+)'\]$", source)
    return m.group(1) if m else source


def in_user_terms(ctx: Any, event: dict[str, Any], category: str, source: str,
                  fn: str | None) -> Said | None:
    """The plain words for the categories torch's text leaves mangled or misleading; None
    where the generic table already says it (size, dtype, a value, ...)."""
    cid = event["compile_id"]
    prev = previous_compile(ctx, cid)
    where = f"{fn}()" if fn else "the function"
    name = bare(source)
    cell = closure_index(source)
    if category == "value" and cell is not None:
        return _closure_cell(ctx, event, cell, where)
    if category == "value" and (said := _key_order(ctx, event, source, where)) is not None:
        return said
    if category == "value" and (said := _math_call(event, source)) is not None:
        return said
    if category == "value" and source.endswith((".group_name", ".pg_name")):
        group = source.rsplit(".", 1)[0]  # (probes41e: a group per bucket, "a string")
        return Said(f"another process group was passed as {group}",
                    f" ({event.get('before')} -> {event.get('after') or 'another group'})",
                    f"{where} issues a collective on {group}, and Dynamo specialises the "
                    "compiled collective to its group (it guards on the group's name): each "
                    "process group is a graph of its own.",
                    f"Pass one process group for every call (create the groups once and reuse "
                    "one, or use the default group) where the groups hold the same ranks; if "
                    "they differ on purpose (a few fixed groups), raise "
                    "`torch._dynamo.config.recompile_limit` above their number so each "
                    "compiles once.")
    if category == "value" and (said := _size_derived(event, source)) is not None:
        return said
    if category == "value" and (duck := duck_words(event, source, where)) is not None:
        first = (ctx.call_chain(prev) or [None])[-1] if prev else None  # the equal sizes' call
        return Said(*duck, by_design=False, frame=first)
    if category in ("value", "global") and (said := _container_index(ctx, event, source)):
        return said
    if category == "value" and (said := _nn_container_pick(ctx, event, source)):
        return said
    if category == "type":
        old = short_type(event.get("before") or type_of(ctx, prev, source))
        new = short_type(event.get("after") or type_of(ctx, cid, source))
        change = f" ({old or '?'} -> {new or 'another type'})" if old or new else ""
        tensorish = "Parameter" in f"{old}{new}"
        explanation = (f"{where} was compiled for {name} of type {old or 'one type'} and is "
                       f"now called with {new or 'another type'}. Dynamo guards on the exact "
                       "Python type of each input"
                       + (" (an nn.Parameter and a plain Tensor of the same shape and dtype "
                          "are different inputs to it)" if tensorish else "")
                       + ", so the new type needs a graph of its own.")
        fix = ("Pass the same type every call: "
               + (f"`{name}.detach()` gives a plain Tensor for an nn.Parameter (or wrap the "
                  "Tensor in nn.Parameter where the Parameter is meant), "
                  if tensorish else "convert at the call site, ")
               + "or keep one compiled function per type on purpose. Dynamic shapes "
               "do not apply to a type change.")
        if not tensorish and "_modules[" in source:  # a submodule swapped for another class
            fix = (f"The program replaced the submodule {in_user_spelling(source)} with another "
                   f"class ({old or '?'} -> {new or '?'}) after the model was compiled (freezing "
                   "BatchNorm, swapping layers, an adapter): make the replacement before "
                   "`torch.compile`, so one graph is compiled for the final model; after it, "
                   "one recompile per swap is expected.")
        elif not tensorish and nested_input(name):  # deep in a nested argument (a tree)
            fix = FIXES["type_nested"].format(src=name)
        return Said(f"type of {name} changed", change, explanation, fix)
    if category == "global_state" and (said := setting_changed(ctx, cid, prev, source, where)):
        head, explanation, fix, frame = said
        return Said(head, "", explanation, fix, frame=frame, whole_fix=True)
    if category == "dispatch_key_set":
        change, explanation, fix = dispatch_key_words(name, where, event.get("before"),
                                                      event.get("after"))
        return Said(f"{name} is another kind of tensor", change, explanation, fix)
    if category == "identity" and source.endswith("].__code__"):
        # probes39e aug_random_op_list_recompile: a random subset of functions passed in a
        # list; "create ops[1].__code__ once" named an object the program never builds
        item = source[:-len(".__code__")]
        return Said(f"{item} is another function", "",
                    f"{where} calls the function it finds at {item}, and Dynamo inlines the "
                    "function's code into the graph, guarding on which code it is: another "
                    "function at that position is other code, compiled again (once per "
                    "combination of functions).",
                    f"Pass the same functions in the same order every call and choose which "
                    f"apply with a mask (a tensor of 0/1 weights, `torch.where`), or call the "
                    f"varying part outside the compiled function (compile each function on "
                    f"its own).")
    if category == "identity":
        typ = short_type(type_of(ctx, cid, source) or type_of(ctx, prev, source))
        freed = "deallocated" in (event.get("failed_guard") or "")
        obj = f"a {typ} object" if typ else "an object"
        head = (f"{name} was replaced by a new {typ or 'object'}" if freed else
                f"{name} is another {typ or 'object'}")
        explanation = (f"{where} uses {obj} ({name}) that Dynamo guards by identity "
                       "(ID_MATCH): "
                       + ("the object it was compiled with was freed (replaced by a new "
                          "one, even an equal one), so torch dropped that compiled entry "
                          "and compiled again for the new object." if freed else
                          "a different object, even an equal one, fails the guard and "
                          "compiles again."))
        fix = (f"Create {name} once and reuse the same object (don't rebuild it between "
               "calls" + (", e.g. a new torch.autocast(...) per call; or write the `with "
                          "torch.autocast(...)` inside the compiled function" if typ and
                          "autocast" in typ else "")
               + "). Dynamic shapes do not apply to an identity guard."
               # probes47c kfold_fresh_optimizer_step: a new AdamW per fold on purpose
               + (" Where a new one is meant (a fresh model and optimizer per fold or run), "
                  "call `torch.compiler.reset()` before the first call with it: each one "
                  "then compiles once, and the entries do not pile up to the recompile "
                  "limit." if freed else ""))
        call = (ctx.call_chain(cid) or (ctx.call_chain(prev) if prev else []) or [None])[-1]
        made = made_per_outer_loop(ctx.source_text(call.filename), call.lineno, name) \
            if freed and call is not None else None
        if made is not None:  # a new one per pass of an outer loop, used by the inner one
            fix = (f"A new {name} is made at line {made} on each pass of the loop around "
                   "these calls, on purpose (a fresh model and optimizer per fold or run): "
                   "call `torch.compiler.reset()` right after making it, so each one "
                   "compiles once and the entries do not pile up to the recompile limit "
                   f"(or make {name} once, before the loop, if one is enough).")
        return Said(head, "", explanation, fix)
    if category == "length":
        return _container(ctx, event, source, prev, where)
    if category == "attribute":  # probes41h lazy_running_mean_hasattr: "keep it the same"
        obj, attr = source.rsplit(".", 1)
        return Said(f"{obj} {'gained' if event.get('after') == 'present' else 'lost'} the "
                    f"attribute {attr}", f" ({event.get('before')} -> {event.get('after')})",
                    f"{where} checks whether {obj} has the attribute `{attr}` (a `hasattr`), "
                    "and Dynamo guards on the answer: the attribute was set (or deleted) since "
                    "the compile, typically by a lazy initialisation on the first call, so the "
                    "next call compiles again.",
                    f"Create `{attr}` in `__init__` (`self.register_buffer(\"{attr}\", "
                    "torch.zeros(...))` for a tensor, a default value otherwise) and test a "
                    "flag or the value instead of `hasattr`, so every call sees the same "
                    "attributes; one recompile after the first call is otherwise expected.")
    if category == "dict_contains":
        return Said(f"whether {source} holds a key changed",
                    f" ({event.get('before')} -> {event.get('after')})",
                    f"{where} read {source} and Dynamo guarded on whether the key is in it; "
                    "the key was added or removed since.",
                    "Set the key (or remove it) before the first call and keep it so, or "
                    "read it outside the compiled function and pass the value in.")
    if category == "aliasing":
        before, after = event.get("before"), event.get("after")
        explanation = (f"{where} was compiled for inputs that were {before} and is now called "
                       f"with {after} ({source}): Dynamo guards on which inputs alias each "
                       "other, because a graph for aliased inputs (one written through the "
                       "other) differs from one for distinct inputs.")
        fix = ("Pass distinct tensors every call (`b = a.clone()`), or the same aliasing "
               "every call.")
        return Said(f"input aliasing changed ({source})", f" ({before} -> {after})",
                    explanation, fix)
    if category == "dynamic_marking":
        how = (event.get("before") or "dynamic").split()[-1]
        return Said(f"{name} was marked {how} after the compile",
                    f" ({event.get('before')} -> {event.get('after')})",
                    f"torch._dynamo.mark_{how} (or maybe_mark_{how}) was called on {name} "
                    f"between calls of {where}: Dynamo guards on those marks, so the marked "
                    "tensor compiles again.",
                    f"Mark {name} before the first call of the compiled function (and the "
                    "same way every call), not between calls.")
    if category == "mode_stack":
        return Said("the torch function mode stack changed", "",
                    f"{where} was compiled under one stack of TorchFunctionModes (`with "
                    "SomeMode():`, torch.device(...) as a context manager) and is called "
                    "under another.",
                    "Call the compiled function under the same modes every time (enter the "
                    "`with` outside the loop, or inside the compiled function).")
    if category == "rank":
        return Said(f"number of dimensions of {name} changed",
                    f" ({event.get('before') or '?'} -> {event.get('after') or 'another'})",
                    f"{name} reached {where} with another number of dimensions than it was "
                    "compiled for; each rank is a graph of its own (dynamic shapes cover a "
                    "dimension's size, not how many dimensions there are).",
                    f"Call it with {name} of one rank every time (reshape or unsqueeze at the "
                    "call site), or keep one compiled function per rank on purpose.")
    if category == "version":
        tensor = source[:-len("._version")]
        return Said(f"{bare(tensor)} was modified in place", "",
                    f"Dynamo guarded on {bare(tensor)}'s version counter: the tensor was "
                    "changed in place (an in-place op, `.data` or `.copy_()`) since the "
                    "compile, and the compiled code depends on it not changing.",
                    "Don't modify the tensor in place between calls: pass a new tensor, or "
                    "modify it inside the compiled function.")
    return None


def _closure_cell(ctx: Any, event: dict[str, Any], cell: tuple[str, int],
                  where: str) -> Said | None:
    """A guard on `F.__closure__[i].cell_contents`: the captured variable by its name (the
    function whose code the guard's innermost user frame is in, analyses/closure_cells.py)."""
    owner, index = cell
    inner = next((f for f in reversed(event.get("user_stack") or [])
                  if is_user_file(ctx.resolve(f.get("filename")))), None)
    name = cell_name(ctx.source_text(inner.get("filename")), inner.get("lineno"), index) \
        if inner else None
    if name is None:
        return None
    func = f"{inner.get('name')}()" if inner.get("name") else bare(owner)
    before, after = event.get("before"), event.get("after")
    change = "" if before is None and after is None else \
        f" ({before if before is not None else '?'} -> " \
        f"{after if after is not None else 'another value'})"
    explanation = (f"{where} calls {bare(owner)}, a closure, and {func} reads the variable "
                   f"{name} it captured (torch's `{owner}.__closure__[{index}]`). Dynamo "
                   f"baked {name}'s value into the graph and guards on it, so a closure that "
                   f"captured another {name} needs a graph of its own.")
    fix = (f"Pass {name} as an argument (of {where} and on to {func}) instead of capturing "
           f"it in the closure: a changing Python number argument becomes dynamic after one "
           f"recompile; or keep {name} the same for every closure you pass (a constant).")
    return Said(f"captured variable {name} of {func} changed", change, explanation, fix)


def _container(ctx: Any, event: dict[str, Any], source: str, prev: str | None,
               where: str) -> Said | None:
    """A dict or list argument whose length changed: when the line torch ties the guard to
    writes into that container, the compiled function mutates its own input (a key it adds
    is there on the next call); else the caller changed it."""
    root = re.match(r"^len\((.+)\)$", source)
    if root is None:
        return None
    inner = root.group(1)
    spelt = rooted(inner)
    typ = type_of(ctx, event["compile_id"], spelt) or type_of(ctx, prev, spelt)
    if typ not in CONTAINERS:
        typ = _container_by_items(ctx, event["compile_id"], spelt) or typ
    if typ not in CONTAINERS:
        return None
    name, noun = bare(main_global(spelt)), ("key" if "dict" in typ.lower() else "item")
    line, lineno, writer = _guard_read(event)
    writes = bool(re.search(_MUTATES.format(root=re.escape(name)), line))
    mutates = re.compile(_MUTATES.format(root=re.escape(in_user_spelling(name))))
    if not writes:  # torch tied the guard to a read (`if k not in cache:`): a write of the
        # compiled code elsewhere is the same memo (probes43i user_tower_memo_dict)
        wrote = next((f for f in source_matches(ctx, event["compile_id"], mutates)
                      if f.lineno and f.lineno > (lineno or 0) and f.filename), None)
        found = def_at(ctx.source_text(wrote.filename), wrote.lineno or 0) \
            if wrote is not None else None
        owner = found.name if found is not None else None
        if owner is not None:
            line, lineno, writer, writes = wrote.line or "", wrote.lineno, owner, True
    # the write is in a function the compiled one calls (a hook, a helper), not its own code
    # (a resume function's code is its function's)
    helper = writer and (resumed_function(writer) or writer) not in \
        where.replace("()", "").split(".")
    before, after = event.get("before"), event.get("after")
    # torch's own expression stays in the reason (what a user searches for)
    change = f" ({source}: {before or '?'} -> {after or 'another number of'} {noun}s)"
    # a global (`G['history']`) is no input of the function: said as what it is
    whose = "the global" if inner.startswith(("G[", "G.")) else "its input"
    if writes and helper:
        head = (f"{writer}(), which the compiled {where} runs, adds to "
                f"{'the global' if whose == 'the global' else 'the input'} {typ} {name} "
                f"(line {lineno})")
        explanation = (f"{writer}() writes into {name} at line {lineno} (`{line.strip()}`) and "
                       f"Dynamo traces it as part of {where}. Dynamo guards on the {typ}'s "
                       f"length (and the values it read), so what the call writes fails that "
                       "guard on the next call and compiles again, every call until the "
                       "recompile limit.")
        fix = (f"Keep {writer}() out of the compiled code: decorate it with "
               "`@torch.compiler.disable` (it then runs in eager at each call, a graph break "
               f"there, and no recompile), or keep {name} outside the compiled call (update "
               "it from the value the call returns).")
    elif writes:
        head = f"{where} adds to {whose} {typ} {name} (line {lineno})"
        explanation = (f"{where} writes into {whose} {name} at line {lineno} "
                       f"(`{line.strip()}`). Dynamo guards on the {typ}'s length (and "
                       f"keys), so the {noun} it adds is there on the next call, which "
                       "fails that guard and compiles again.")
        fix = (f"Don't mutate {'a global' if whose == 'the global' else 'the input'} "
               "container inside the compiled function: return the "
               f"new value and set it outside (`out = {fn_call(where)}; {name}[...] = out`), "
               f"or put every {noun} in {name} before the first call.")
    elif _loops_over(line, name):  # `for e in active:` (probes33a moe_active_experts_list,
        # whose "pass it as one tensor" fix made Dynamo read each item: a break per item)
        head = f"the {typ} {name} changed length"
        explanation = (f"Line {lineno} (`{line.strip()}`) loops over {name} in Python, so "
                       f"Dynamo unrolls the loop once per {noun} and guards on the {typ}'s "
                       f"length: each new number of {noun}s compiles again.")
        fix = (f"Loop over a fixed set every call (all the {noun}s {name} can hold, `range(N)`)"
               f" and mask the ones not in use, so one graph serves every call. A tensor cannot"
               f" stand for {name} while the code loops over it in Python: each {noun} would be"
               " read out of it, a graph break per item.")
    else:
        head = f"the {typ} {name} changed length"
        explanation = (f"{name} ({typ}) has another number of {noun}s than when {where} was "
                       f"compiled: Dynamo guards on a {typ}'s length and keys, so each new "
                       f"{noun} set compiles again.")
        fix = (f"Keep {name}'s {noun}s fixed between calls (fill every {noun} before the "
               "first call" + (", or pad it to one length with a mask for the padding), or "
                               "pass it as one tensor made before the call "
                               "(`torch.tensor(items)` for numbers, `torch.stack(items)` for "
                               "tensors), whose length Dynamo can keep dynamic unless the code "
                               "loops over it in Python" if typ == "list" else ")")
               + ".")
    return Said(head, change, explanation, fix, at_guard=bool(writes and helper))


def _loops_over(line: str | None, name: str) -> bool:
    """Whether a line is a `for` over NAME (`for e in active:`, `for i, e in enumerate(xs):`)."""
    m = re.match(r"\s*for\s+.+?\s+in\s+(.+?):\s*$", line or "")
    return bool(m) and re.search(rf"(?<![\w.]){re.escape(name)}(?![\w(])", m.group(1)) is not None


CONTAINERS = ("dict", "list", "collections.OrderedDict", "collections.defaultdict")


def _container_by_items(ctx: Any, cid: str | None, spelt: str) -> str | None:
    """A container the guard tree gives no type guard of (a global reached through its module,
    `G['__import___main__'].calls`): a dict where its items are guarded by key, a list by
    index."""
    if cid is None:
        return None
    items = [k[len(spelt):] for k in ctx.r.guard_values(ctx.run_id, cid) if k.startswith(spelt)]
    if any(k.startswith("['") for k in items):
        return "dict"
    if not any(re.match(r"\[\d+\]", k) for k in items):
        return None
    # an int key reads as an index: the program's own assignment says which (probes43i
    # user_tower_memo_dict: `self.user_cache = {}` keyed by user id, said as "the list")
    attr = re.escape(bare(main_global(spelt)).rsplit(".", 1)[-1])
    made = source_matches(ctx, cid, re.compile(rf"\b{attr}\s*(?::[^=]+)?=\s*(?:\{{|dict\()"))
    return "dict" if made else "list"


def _guard_read(event: dict[str, Any]) -> tuple[str, int | None, str | None]:
    """The line torch ties the guard to, and its function where the user stack names it: its
    location, or the innermost user frame of its user stack (a hook or helper the compiled
    frame called)."""
    frames = event.get("user_stack") or []
    mine = [f for f in frames if is_user_file(f.get("filename") or "")]
    if event.get("loc_line"):
        named = [f.get("name") for f in mine if f.get("lineno") == event.get("loc_lineno")]
        return event["loc_line"], event.get("loc_lineno"), (named or [None])[-1]
    if not mine:
        return "", None, None
    return mine[-1].get("line") or "", mine[-1].get("lineno"), mine[-1].get("name")


_MATH_CALL = re.compile(r"\bmath\.([a-z_0-9]+)\(")


def _math_call(event: dict[str, Any], source: str) -> Said | None:
    """A guard on an arithmetic expression of a dynamic number (`((-1)*step) / 500`) at a
    line that calls a `math` function: math takes a concrete float, so Dynamo specialises the
    expression and every new value of the number is a graph (probes31d dqn_epsilon_step:
    `math.exp(-global_step / 500)`; the fix that wrapped the expression in a tensor left a
    graph break at that line)."""
    line, lineno, _ = _guard_read(event)
    m = _MATH_CALL.search(line or "")
    # an expression of the number, or the number itself as the math call's argument
    # (probes33e iwae_k_sweep: `math.log(k)`, whose "wrap k in a tensor" fix crashed rsample)
    expression = bool(re.search(r"[-+*/]", source or ""))
    if m is None or not (expression or re.search(
            rf"math\.\w+\([^)]*(?<![\w.]){re.escape(bare(source))}(?![\w(])", line or "")):
        return None
    names = [n for n in dict.fromkeys(re.findall(r"[A-Za-z_]\w*", bare(source)))
             if n not in ("L", "G")]
    var = ", ".join(names) or source
    call = f"math.{m.group(1)}()"
    # (the float passed in stays specialised where another number argument needs it:
    # probes38a edm_precond_float_sigma, whose applied fix recompiled 8 times again)
    return Said(
        f"{call} at line {lineno} needs a concrete number, so {var} is specialised", "",
        f"Line {lineno} (`{line.strip()}`) calls {call} on {source}, an expression of {var}. "
        f"{call} takes a Python float, so Dynamo cannot keep {var} symbolic there: it guards "
        "on the expression's exact value, and every new value compiles a new graph.",
        f"Compute the {call} value outside the compiled function and pass the float in (a "
        "float argument is made dynamic after one recompile, unless the function also needs "
        "it as a Python number: an op's number argument or another math call specialises it "
        f"again), or pass {var} as a 0-d tensor and compute it with torch inside "
        f"(`torch.{m.group(1)}(...)`): one graph for every value, where nothing then tests "
        "it in Python (an `if` on it would break the graph).",
        by_design=not expression)


_SIZE_OF = re.compile(r"([A-Za-z_][\w.\[\]']*)\.size\(\)\[(\d+)\]")


def _size_derived(event: dict[str, Any], source: str) -> Said | None:
    """A guard on a number computed from a size (`math.ceil(1.25 * x.size()[0] / 4)`) that the
    guarded line needs as a concrete value (an op's size argument, `F.one_hot(..., capacity)`):
    each new size is a new value and a new graph, and a tensor cannot stand for it (probes33a
    switch_capacity_varlen: the `torch.tensor(value)` fix added a break and kept the
    recompiles)."""
    sizes = list(dict.fromkeys(f"{bare(m.group(1))}.shape[{m.group(2)}]"
                               for m in _SIZE_OF.finditer(source or "")))
    if not sizes or not re.search(r"[-+*/(]", source.replace(".size()", "")):
        return None
    line, lineno, _ = _guard_read(event)
    where = f"line {lineno} (`{line.strip()}`)" if lineno else "the compiled code"
    size = ", ".join(sizes)
    return Said(
        f"a number computed from {size} is needed as a concrete value at line {lineno}", "",
        f"{source} is computed from {size}, and {where} needs its exact value (an op's size or "
        f"count argument, a Python branch or loop on it): Dynamo guards on it, so every new "
        f"{size} brings a new value and compiles a new graph, even with that size dynamic.",
        f"Keep {size} to a few fixed values (pad to a handful of bucket sizes and mask the "
        f"padding), or make the number not depend on it (compute it from a fixed maximum). A "
        "tensor cannot stand for it where an op takes it as a size (`F.one_hot(..., n)`, "
        "`torch.zeros(n)`, a slice bound).",
        at_guard=lineno is not None, by_design=False)


# post-grad ops that index a tensor: at the guarded line, the container is a tensor the graph
# holds (a registered KV-cache buffer written at `self.pos`), not a Python list whose item
# Dynamo reads as a constant (probes37f kv_cache_int_pos: "while `self.k_cache` is a Python
# list", said of a buffer, ruled out the tensor position that fixed it)
_TENSOR_INDEXING = re.compile(r"\baten\.(?:select|slice|index|index_put|copy|narrow|gather)"
                              r"(?:_)?\.")


def _key_order(ctx: Any, event: dict[str, Any], source: str, where: str) -> Said | None:
    """A guard on which key sits at a position of a dict the compiled code iterates
    (analyses/key_order.py)."""
    said = key_order_words(ctx, event, source, where)
    return Said(*said, by_design=False) if said is not None else None


def _container_index(ctx: Any, event: dict[str, Any], source: str) -> Said | None:
    """A Python number the guarded line uses to look an item up in a container (`a_t =
    ALPHAS_CUMPROD[t]`, `scheduler.timesteps[scheduler.step_index]`): Dynamo reads the item as
    a constant, so the number cannot go dynamic and every value is a graph of its own; a
    tensor index cannot pick from a Python list (Dynamo reads its value: a graph break).
    probes32a ddim_alpha_list and ddim_scheduler_step, whose "wrap it in a tensor" fixes gave
    graph breaks at every call."""
    if not re.fullmatch(r"-?\d+", str(event.get("before") or "")) \
            or "nn/modules/container.py" in str(event.get("failed_guard") or ""):
        return None  # a string key, or a module picked from a ModuleList (RECURRING_FIXES)
    line, lineno, _ = _guard_read(event)
    var = in_user_spelling(source)
    attr = {"." + var.rsplit(".", 1)[1]} if "." in var else set()  # read through `self`
    found = indexed_by(line, {bare(source), var, *attr})
    if found is None or lineno is None:
        return None
    box, lookup = found
    if any(n.get("lineno") == lineno and _TENSOR_INDEXING.search(str(n.get("target") or ""))
           for n in ctx.graph_nodes(event.get("compile_id"))):
        return None  # a tensor indexed in the graph: the plain value words and fix apply
    return Said(
        f"{var} looks up `{box}[...]` at line {lineno}, so each value of {var} is a constant",
        "",
        f"Line {lineno} (`{line.strip()}`) uses {var} to pick an item of `{box}`. Dynamo "
        f"traces a Python container's item as a constant, so it guards on {var}'s exact value "
        f"and cannot make it dynamic: every new value of {var} compiles a new graph.",
        f"Do the lookup outside the compiled function and pass what it picks in as a tensor "
        f"(`torch.tensor({lookup})`, one graph for every value), or keep `{box}` as a "
        f"tensor built once outside (`torch.tensor(...)`) and index it there with tensor math "
        f"on the item (`torch.sqrt`, not `math.sqrt`). Wrapping {var} alone in a tensor does "
        f"not work while `{box}` is a Python list: indexing a list with a tensor reads its "
        "value, a graph break at every call. A counter the compiled code advances (a "
        "scheduler's step index) is best kept in eager: compile the model's call and run the "
        "step around it.",
        by_design=False)


def _nn_container_pick(ctx: Any, event: dict[str, Any], source: str) -> Said | None:
    """A number picking an item of an nn container, at its lookup in the compiled function
    (analyses/container_pick.py)."""
    var = in_user_spelling(source)
    found = container_pick(ctx, event, var, {bare(source), var})
    if found is None:
        return None
    frame, box, lookup, kind = found
    params = kind in PARAMETER_CONTAINERS
    return Said(
        f"{var} picks an item of `{box}` ({kind or 'an nn container'}) at line {frame.lineno}, "
        f"so each value of {var} is a constant", "",
        f"Line {frame.lineno} (`{(frame.line or '').strip()}`) uses {var} to pick "
        f"{'a Parameter' if params else 'a module'} of `{box}`. Dynamo traces an nn container's"
        f" item as a constant, so it guards on {var}'s exact value and cannot make it dynamic:"
        f" every new value of {var} compiles a new graph.",
        (PARAMETER_FIX if params else MODULE_FIX).format(box=box, var=var, lookup=lookup),
        by_design=False, frame=frame)


def fn_call(where: str) -> str:
    return where[:-1] + "...)" if where.endswith("()") else "f(...)"

