"""Plain Python objects a compiled function writes into, for the whole-function check.

A function that updates an object it is given (a running mean/std with a float `count`, a
metric tracker, an EMA holder of the program's own class) was never replayed: a second, eager
run would update the program's object twice. Yet such a write is where Dynamo's tracing goes
wrong silently (probes38b obs_rms_count_stale: after a recompile that specialised the float
`count`, the compiled function wrote back the same constant on every later call, while
eager's count grew; each graph matched its own eager replay). So an argument that is an
instance of a class from the program's own files, reaching no module or optimizer, is deep
-copied before the compiled call; the eager replay runs on the copy, and afterwards the copy's
attributes (tensors and numbers) are compared with the program's object as the compiled call
left it. A difference is located at the line that stores the attribute (the class's own code).

The class's methods are followed as the function's own code is (capture/function_accuracy.py's
`_code_refusal`): a method may store on its own object, never a global, an enclosing variable,
or write anything out."""

from __future__ import annotations

import copy
import dis
import enum
import inspect
import linecache
import sys
from types import BuiltinFunctionType, FunctionType
from typing import Any, Callable

import torch
from torch.utils import _pytree as pytree

from compdiag.formats.user_code import is_user_file

_MAX_OBJECTS = 8
_MAX_ATTRS = 64


def user_class(cls: type) -> bool:
    """A class defined in the program's own files (its module's file is the user's)."""
    return is_user_file(getattr(sys.modules.get(cls.__module__), "__file__", None))


def user_methods(cls: type) -> list[FunctionType]:
    """The functions of `cls` and its bases written in the program's own files."""
    return [fn for klass in cls.__mro__ for fn in vars(klass).values()
            if isinstance(fn, FunctionType) and is_user_file(fn.__code__.co_filename)]


def copyable(value: Any) -> bool:
    """An instance of a class defined in the program's own files (not a tensor, a module, a
    type or a function): what a replay deep-copies rather than shares."""
    if isinstance(value, (torch.Tensor, torch.nn.Module, type, FunctionType)) or \
            value is None or isinstance(value, type(sys)):
        return False
    return isinstance(getattr(value, "__dict__", None), dict) and user_class(type(value))


# Argument leaves a replay may share with the program: values no call can change.
_IMMUTABLE = (str, bytes, int, float, complex, bool, range, slice, torch.dtype, torch.device,
              torch.Size, torch.memory_format, torch.layout, enum.Enum)


def shared_mutable(value: Any) -> bool:
    """A non-tensor argument leaf whose state a call can change, of any class (a library's
    KV-cache object, a set): the replay must run on a copy of it, never the program's own
    (probes43c hf_llama_temperature_anneal_ok: the replay appended to the program's HF
    DynamicCache a second time, and the program's samples changed under --check-accuracy)."""
    return not (value is None or isinstance(value, _IMMUTABLE + (
        torch.Tensor, torch.nn.Module, type, FunctionType, BuiltinFunctionType,
        type(sys))))


def objects_in(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The objects among the call's arguments (pytree leaves) the replay runs on copies of:
    the program's own classes' instances and any other mutable leaf."""
    out: list[Any] = []
    for leaf in pytree.tree_leaves((args, kwargs)):
        if (copyable(leaf) or shared_mutable(leaf)) and all(leaf is not o for o in out):
            out.append(leaf)
    return out


def methods(objects: list[Any]) -> list[FunctionType]:
    """The user-file methods of the objects' classes (their code is followed like the
    function's)."""
    return [fn for cls in dict.fromkeys(type(o) for o in objects) for fn in user_methods(cls)]


def copied_parameters(fn: FunctionType, args: tuple[Any, ...], kwargs: dict[str, Any],
                      objects: list[Any]) -> frozenset[str]:
    """The names of `fn`'s parameters bound to one of the copied objects."""
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return frozenset()
    return frozenset(k for k, v in bound.items() if any(v is o for o in objects))


def stores_own_object(ins: dis.Instruction, window: list[dis.Instruction],
                      owners: frozenset[str]) -> bool:
    """`ins` (a STORE_ATTR or STORE_SUBSCR) stores into an object named by a local in
    `owners` (a method's `self`, a parameter bound to a copied object): `obj.x = v`,
    `obj.x += v` (LOAD_FAST obj, COPY, ..., SWAP, STORE_ATTR), `obj.d[k] = v`."""
    if ins.opname not in ("STORE_ATTR", "STORE_SUBSCR") or not window:
        return False
    prev = window[-1]
    if prev.opname == "LOAD_FAST" and prev.argval in owners:
        return True
    if prev.opname == "SWAP":  # an augmented store: LOAD_FAST obj, COPY 1, ..., SWAP 2
        for i in range(len(window) - 2, 0, -1):
            if window[i].opname == "COPY":
                before = window[i - 1]
                return before.opname == "LOAD_FAST" and before.argval in owners
    return False


def snapshot(objects: list[Any]) -> dict[int, Any] | None:
    """Deep copies of the objects, by id, taken before the compiled call (None: one cannot be
    copied, a tensor in the middle of a graph, or there are too many; the call is then not
    replayed: a replay never shares a mutable object with the program)."""
    if len(objects) > _MAX_OBJECTS:
        return None
    try:
        return {id(o): copy.deepcopy(o) for o in objects}
    except Exception:  # noqa: BLE001 - what cannot be copied is not replayed
        return None


def substituted(value: Any, copies: dict[int, Any]) -> Any:
    """`value` (the cloned arguments) with each copied object replaced by its copy."""
    return pytree.tree_map(lambda v: copies.get(id(v), v), value)


def compare(label: str, eager: Any, live: Any,
            compare_one: Callable[[str, Any, Any], Any]) -> list[tuple[Any, Any]]:
    """(check, the program's value) of each tensor or number attribute of the object: the
    eager copy as the replay left it against the program's object as the compiled call left
    it; a check that differs carries the line that stores the attribute."""
    if type(eager) is not type(live) or not isinstance(getattr(live, "__dict__", None), dict):
        return []
    out = []
    for name, c in list(vars(live).items())[:_MAX_ATTRS]:
        e = vars(eager).get(name)
        if isinstance(c, bool) or not isinstance(c, (torch.Tensor, int, float)) or \
                type(e) is not type(c):
            continue
        ev = e if isinstance(e, torch.Tensor) else torch.tensor(float(e), dtype=torch.float64)
        cv = c if isinstance(c, torch.Tensor) else torch.tensor(float(c), dtype=torch.float64)
        tensor = isinstance(c, torch.Tensor)
        check = compare_one(f"{label}.{name}" + (" (written by the call)" if tensor else ""),
                            ev, cv)
        if not check.ok:
            check.detail["attribute"] = name
            frame = store_line(type(live), name)
            if frame is not None:
                check.detail["user_frame"] = frame
            if not tensor:
                check.detail.update(eager=repr(e)[:80], compiled=repr(c)[:80])
        out.append((check, c))
    return out


def store_line(cls: type, attr: str) -> dict[str, Any] | None:
    """The user line in `cls`'s own methods that stores `attr` (the last such store of the
    first method that has one, `__init__` and other dunders last: the update, not the
    initial value): where the written value comes from."""
    for fn in sorted(user_methods(cls), key=lambda f: f.__name__.startswith("__")):
        line = None
        for ins in dis.get_instructions(fn):
            if ins.opname == "STORE_ATTR" and ins.argval == attr and \
                    ins.positions is not None and ins.positions.lineno:
                line = ins.positions.lineno
        if line is not None:
            return {"filename": fn.__code__.co_filename, "lineno": line,
                    "line": linecache.getline(fn.__code__.co_filename, line).strip()}
    return None
