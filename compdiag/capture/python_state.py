"""The Python state a compiled call can change, as plain data two processes can compare.

Dynamo traces a function's Python side effects (an append to a list the function closes over,
an attribute it sets, an enclosing variable it rebinds, a print) and carries them out after
the graph runs. When it drops one, nothing fails and every tensor is right: only the
program's Python objects differ from what eager leaves (pytorch/pytorch#197896: a closure list
appended to by a method of a class created inside the compiled function stayed empty;
probes43e: a print made reorderable inside an inlined helper never printed; probes43h, after
#196173: an attribute rebound to one of two sentinel objects kept its first value). The
forked check (capture/forked_effects.py) runs the call in eager in a copy of the process and
compares what this module describes of the state after each.

What is described: the call's arguments and, through the user code the function reaches
(its own, the functions it names, the methods of the program's classes it meets), the
enclosing variables and globals that code reads. A container is its length and items, a
program's object its attributes, a module its Python attributes and children (never its
tensors' values, which the tensor checks compare), a tensor its shape and dtype. An object
that existed before the call is named by where it was first found then, so an attribute
rebound to another existing object (`self.active = self.reg`) shows as that object's name:
a forked child holds every such object at the same address."""

from __future__ import annotations

import dis
import enum
import linecache
from collections import deque
from types import CodeType, FunctionType, MethodType, ModuleType
from typing import Any, Callable, Iterator

import torch

from compdiag.capture.object_state import user_class, user_methods
from compdiag.formats.user_code import is_user_file

_DEPTH = 4          # containers and attributes followed from a root
_ITEMS = 16         # items of a container followed
_ENTRIES = 4000     # entries in one description
_ROOTS = 64         # roots followed
_CODE_DEPTH = 3     # user functions followed through the names they read
_PRIMITIVE = (type(None), bool, int, str, bytes)
# method names that change the container they are called on (`log.append(x)`)
MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "setdefault", "clear",
                      "remove", "discard", "update", "add", "appendleft", "extendleft",
                      "popleft", "sort", "reverse", "__setitem__", "__delitem__"})


class Root:
    """One named place the state is read from at description time: a closure cell, a
    global, or an argument (re-read after the call: a rebinding shows)."""

    def __init__(self, label: str, read: Callable[[], Any]) -> None:
        self.label, self.read = label, read


def _cell_reader(cell: Any) -> Callable[[], Any]:
    def read() -> Any:
        try:
            return cell.cell_contents
        except ValueError:  # an empty cell
            return None
    return read


def user_code(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    return isinstance(code, CodeType) and is_user_file(code.co_filename)


def codes(code: CodeType) -> Iterator[CodeType]:
    """A code object and every code object defined inside it (nested functions, lambdas,
    comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from codes(const)


def reach(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], names: list[str]
          ) -> tuple[list[Root], list[FunctionType]]:
    """(the roots, the user functions) of a call of `fn` (a function, or a module whose
    `forward` runs): its arguments (named `names`, or by position), and the enclosing variables
    and globals of every user function it reaches within _CODE_DEPTH names."""
    roots: list[Root] = []
    for i, value in enumerate(args):
        label = names[i] if i < len(names) else f"argument {i}"
        roots.append(Root(label, (lambda v=value: v)))
    roots += [Root(k, (lambda v=v: v)) for k, v in kwargs.items()]
    if isinstance(fn, torch.nn.Module):
        roots.insert(0, Root(f"self ({type(fn).__name__})", lambda: fn))
        start = _called_methods(type(fn))
    else:
        start = [getattr(fn, "__func__", fn)]
    funcs: list[FunctionType] = []
    seen_labels = {r.label for r in roots}
    todo: deque[tuple[Any, int]] = deque((f, 0) for f in start)
    for value in list(args) + list(kwargs.values()):
        if user_class(type(value)) and not isinstance(value, type):
            todo.extend((m, 1) for m in user_methods(type(value)))
    while todo and len(roots) < _ROOTS:
        f, depth = todo.popleft()
        if not isinstance(f, FunctionType) or not user_code(f) or f in funcs:
            continue
        funcs.append(f)
        names_read = {n for c in codes(f.__code__) for n in c.co_names}
        found: list[tuple[str, Callable[[], Any], Any]] = []
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
            found.append((name, _cell_reader(cell), _cell_reader(cell)()))
        g = f.__globals__
        for name in sorted(names_read & g.keys()):
            found.append((name, (lambda g=g, n=name: g.get(n)), g[name]))
        for label, read, value in found:
            if isinstance(value, (FunctionType, type)):
                if depth < _CODE_DEPTH:
                    if isinstance(value, type) and user_class(value):
                        todo.extend((m, depth + 1) for m in user_methods(value))
                    else:
                        todo.append((value, depth + 1))
                continue
            if not _state(value):
                continue
            if label not in seen_labels:
                seen_labels.add(label)
                roots.append(Root(label, read))
            if user_class(type(value)) and depth < _CODE_DEPTH:
                todo.extend((m, depth + 1) for m in user_methods(type(value)))
    return roots, funcs


def _state(value: Any) -> bool:
    """A value a side effect can change or rebind: a container, a module, an object of the
    program's classes, a number or string (a rebound enclosing or global variable)."""
    return isinstance(value, (list, dict, set, deque, torch.nn.Module, float, enum.Enum)
                      + _PRIMITIVE) or type(value).__module__ == "numpy" or (
        isinstance(getattr(value, "__dict__", None), dict) and user_class(type(value))
        and not isinstance(value, type))


def _called_methods(cls: type) -> list[FunctionType]:
    """The module's `forward` and the methods of its class that `forward` (or a method it
    names) names, its own code: never `__init__`, which a call does not run."""
    methods = {f.__name__: f for f in reversed(user_methods(cls))}
    out = [methods["forward"]] if "forward" in methods else []
    for f in out:
        for name in sorted({n for c in codes(f.__code__) for n in c.co_names}):
            g = methods.get(name)
            if g is not None and g not in out and not name.startswith("__") and len(out) < 16:
                out.append(g)
    return out


def _skipped(value: Any) -> bool:
    """Code and library machinery: nothing a side effect of the program's changes."""
    return isinstance(value, (FunctionType, MethodType, type, ModuleType)) or \
        (callable(value) and not isinstance(value, torch.nn.Module)
         and not user_class(type(value)))


def describe(roots: list[Root], before: dict[int, str] | None = None,
             keep: list[Any] | None = None, ids: dict[int, str] | None = None
             ) -> dict[str, tuple]:
    """path -> a comparable description of what is there. `before`: id -> the path of each
    object that existed before the call (an object found at another path is named by it);
    `keep`: gets every object described (the caller holds them, so no id is reused); `ids`:
    gets id -> path of each object described (the `before` of a later description)."""
    out: dict[str, tuple] = {}
    seen: set[int] = set()

    def walk(value: Any, path: str, depth: int) -> None:
        if len(out) >= _ENTRIES:
            return
        if isinstance(value, float):
            out[path] = ("float", value)
            return
        if isinstance(value, enum.Enum):
            out[path] = ("enum", repr(value))
            return
        if isinstance(value, _PRIMITIVE):
            out[path] = ("value", value if not isinstance(value, (str, bytes))
                         else value[:200])
            return
        if isinstance(value, torch.Tensor):
            out[path] = ("tensor", tuple(value.shape), str(value.dtype))
            return
        if type(value).__module__ == "numpy":  # a NumPy scalar or array: its kind and shape
            shape = getattr(value, "shape", None)
            out[path] = ("numpy", type(value).__name__, tuple(shape) if shape else ())
            return
        if _skipped(value):
            return
        if keep is not None:
            keep.append(value)
        if ids is not None:
            ids.setdefault(id(value), path)
        first = before.get(id(value)) if before is not None else None
        if first is not None and first != path:
            out[path] = ("object", first)
            return
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, (list, tuple, deque)):
            out[path] = (type(value).__name__, len(value))
            if depth > 0:
                for i, item in enumerate(list(value)[:_ITEMS]):
                    walk(item, f"{path}[{i}]", depth - 1)
        elif isinstance(value, dict):
            keys = [k for k in list(value)[:_ITEMS * 4]]
            out[path] = ("dict", len(value), tuple(sorted(repr(k)[:60] for k in keys)))
            if depth > 0:
                for k in keys[:_ITEMS]:
                    if isinstance(k, _PRIMITIVE + (float, enum.Enum)):
                        walk(value[k], f"{path}[{k!r}]", depth - 1)
        elif isinstance(value, (set, frozenset)):
            out[path] = ("set", len(value), tuple(sorted(
                repr(v)[:60] for v in list(value)[:_ITEMS * 4] if isinstance(v, _PRIMITIVE))))
        elif isinstance(value, torch.nn.Module):
            out[path] = ("module", type(value).__name__, value.training)
            if depth > 0:
                for name, attr in list(vars(value).items())[:64]:
                    if not name.startswith("_"):
                        walk(attr, f"{path}.{name}", depth - 1)
                for name, child in list(value._modules.items())[:64]:
                    walk(child, f"{path}.{name}", depth - 1)
        elif isinstance(getattr(value, "__dict__", None), dict) and user_class(type(value)):
            out[path] = ("object of", type(value).__qualname__)
            if depth > 0:
                for name, attr in list(vars(value).items())[:64]:
                    walk(attr, f"{path}.{name}", depth - 1)

    for root in roots:
        try:
            walk(root.read(), root.label, _DEPTH)
        except Exception:  # noqa: BLE001 - a value that cannot be read is not described
            continue
    return out


def _words(desc: tuple | None) -> str:
    if desc is None:
        return "nothing there"
    kind = desc[0]
    counted = {"list": "item", "tuple": "item", "deque": "item", "set": "item", "dict": "key"}
    if kind in counted:
        return f"a {kind} of {desc[1]} {counted[kind]}{'s' if desc[1] != 1 else ''}"
    if kind == "object":
        return f"the object {desc[1]}"
    if kind == "object of":
        return f"a new {desc[1]}"
    if kind == "tensor":
        return f"a {desc[2].removeprefix('torch.')} tensor of shape {list(desc[1])}"
    if kind == "numpy":
        return f"a NumPy {desc[1]}" + (f" of shape {list(desc[2])}" if desc[2] else "")
    if kind == "module":
        return f"{desc[1]} in {'training' if desc[2] else 'eval'} mode"
    return repr(desc[1])[:80]


def _same(a: tuple | None, b: tuple | None, numbers: bool) -> bool:
    if a is None or b is None:
        return a is b
    if a[0] == "float" and b[0] == "float":
        if not numbers:
            return True
        x, y = a[1], b[1]
        if x != x and y != y:  # both nan
            return True
        return abs(x - y) <= 1e-6 + 1e-2 * max(abs(x), abs(y))
    if not numbers and a[0] == b[0] == "value" and type(a[1]) is type(b[1]) is int:
        return True  # a count of values computed from random draws
    return a == b


def differences(eager: dict[str, tuple], compiled: dict[str, tuple], numbers: bool = True
                ) -> list[tuple[str, str, str]]:
    """(path, eager's words, compiled's words) of each place the two descriptions differ,
    outermost first (the items of a container whose length differs are not listed again).
    `numbers` off: only the structure is compared (random draws made the values differ)."""
    out: list[tuple[str, str, str]] = []
    for path in list(dict.fromkeys(list(eager) + list(compiled))):
        a, b = eager.get(path), compiled.get(path)
        if _same(a, b, numbers):
            continue
        if any(path.startswith(p) and path[len(p):len(p) + 1] in (".", "[")
               for p, _, _ in out):
            continue
        out.append((path, _words(a), _words(b)))
    return out


# -- where the code changes it -----------------------------------------------------------------

def _frame(code: CodeType, ins: dis.Instruction) -> dict[str, Any] | None:
    line = ins.positions.lineno if ins.positions is not None else None
    if not line:
        return None
    return {"filename": code.co_filename, "lineno": line,
            "line": linecache.getline(code.co_filename, line).strip()}


def change_site(funcs: list[FunctionType], path: str) -> dict[str, Any] | None:
    """The user line that changes what `path` names: a store of its last attribute, a
    mutating call on (or a store into) its root variable, a rebinding of it; the functions
    the call reached are searched in order."""
    root = path.split(".")[0].split("[")[0].split(" ")[0]
    attrs = [p.split("[")[0] for p in path.split(".")[1:]]
    for want_attr in ([attrs[-1]] if attrs else []) + [None]:
        for f in funcs:
            for code in codes(f.__code__):
                window: list[dis.Instruction] = []
                for ins in dis.get_instructions(code):
                    if want_attr is not None:
                        if ins.opname in ("STORE_ATTR", "DELETE_ATTR") and \
                                ins.argval == want_attr:
                            return _frame(code, ins)
                        if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and \
                                ins.argval in MUTATORS and window and \
                                window[-1].opname in ("LOAD_ATTR",) and \
                                window[-1].argval == want_attr:
                            return _frame(code, ins)
                    else:
                        if ins.opname in ("STORE_DEREF", "STORE_GLOBAL") and ins.argval == root:
                            return _frame(code, ins)
                        if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and \
                                ins.argval in MUTATORS and window and \
                                window[-1].opname in ("LOAD_DEREF", "LOAD_GLOBAL",
                                                      "LOAD_FAST", "LOAD_NAME") and \
                                window[-1].argval == root:
                            return _frame(code, ins)
                        if ins.opname == "STORE_SUBSCR" and any(
                                w.opname in ("LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME")
                                and w.argval == root for w in window[-4:]):
                            return _frame(code, ins)
                    window = window[-8:] + [ins]
    return None


def print_site(funcs: list[FunctionType]) -> dict[str, Any] | None:
    """The first `print(...)` in the user code the call reached."""
    for f in funcs:
        for code in codes(f.__code__):
            for ins in dis.get_instructions(code):
                if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval == "print":
                    return _frame(code, ins)
    return None
