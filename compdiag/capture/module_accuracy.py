"""A compiled module whole against the same module in eager (`run --check-accuracy`).

Most programs compile a model, not a plain function (`torch.compile(model)`), and a model can
give other numbers compiled than eager while every graph Dynamo traced matches its own eager
replay: library code that takes another path when compiled (nn.TransformerEncoder in eval
with a padding mask: eager's fast path turns the batch into a nested tensor and zeroes the
padded positions, and it checks `torch.compiler.is_compiling()` to skip that path when
compiled, so the compiled output holds values there; probes28a encoder_padmask_pool). So the
whole-function check (capture/function_accuracy.py) replays a compiled module too, when the
replay cannot change what the program computes:

- every submodule is in eval mode or never reads `training` (training updates running
  statistics and draws dropout masks a replay would draw again, or differently);
- no forward or backward hook is registered on a submodule or globally (a hook is the
  program's code and could record the replay's values);
- the arguments are tensors and plain values (a KV cache object would be appended to twice);
- the program's own `forward` code stores no state and draws no random numbers (the rules
  of the function check; a child module's name such as `self.dropout` is not a draw in eval).

The replay starts from the buffers and the modules' attributes as they were before the
compiled call and leaves them as the compiled call left them. When the results differ, the
library code in the model that asks whether it is being compiled is named, with its line and
the user line that called it (the first node of the traced graph inside that module): there
the two paths part."""

from __future__ import annotations

import contextlib
import dis
import inspect
import linecache
import os
import re
from typing import Any, Iterator

import torch
from torch.utils import _pytree as pytree

from compdiag.capture.accuracy_compare import _described
from compdiag.formats.user_code import is_user_file

# Names whose use asks whether the code runs under torch.compile (or export): a module whose
# forward reads one can compute another thing compiled than eager, on purpose.
_ASKS = frozenset({"is_compiling", "is_dynamo_compiling", "is_exporting", "_is_fx_tracing",
                   "is_fx_tracing"})
_PLAIN = (torch.Tensor, int, float, bool, str, bytes, type(None), torch.dtype, torch.device,
          torch.Size, slice, type(Ellipsis))
_GLOBAL_HOOKS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                 "_global_backward_pre_hooks", "_global_forward_hooks_always_called")
_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
_STRING = re.compile(r"""["']([^"'\n]{8,160})["']""")


def module_of(fn: Any) -> torch.nn.Module | None:
    """The module `fn` is what torch.compile(module) compiles: the module's own `__call__`
    (or `_call_impl`, for `module.compile()`), or Dynamo's `wrap_inline` frame around a
    module whose forward is torch's own (nn.Sequential); None for anything else (a method of
    a module's own class is a function the function check judges)."""
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, torch.nn.Module) and getattr(fn, "__func__", None) in (
            torch.nn.Module.__call__, torch.nn.Module._call_impl):
        return owner
    wrapped = getattr(fn, "__wrapped__", None)
    code = getattr(fn, "__code__", None)
    if isinstance(wrapped, torch.nn.Module) and code is not None and \
            code.co_filename.replace("\\", "/").endswith("torch/_dynamo/external_utils.py"):
        return wrapped
    return None


def training(module: torch.nn.Module) -> bool:
    """Whether a submodule in training mode computes another thing for it: its class's code
    (below nn.Module) reads `training` (Dropout, BatchNorm, MultiheadAttention). A model of
    layers that never read it is the same model in either mode and is replayed in training
    mode too (probes36c allow_in_graph_stale_global: a regressor never put in eval mode, whose
    compiled loss kept a global's first value, was never checked)."""
    return any(m.training and _reads_training(type(m)) for m in module.modules())


def _reads_training(cls: type) -> bool:
    found = _READS_TRAINING.get(cls)
    if found is None:
        codes = [f.__code__ for k in cls.__mro__ if k not in (torch.nn.Module, object)
                 for f in vars(k).values() if inspect.isfunction(f)]
        found = False
        while codes and not found:
            code = codes.pop()
            found = "training" in code.co_names
            codes += [c for c in code.co_consts if inspect.iscode(c)]
        _READS_TRAINING[cls] = found
    return found


_READS_TRAINING: dict[type, bool] = {}


def refusal(module: torch.nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any],
            code_refusal: Any) -> str | None:
    """Why replaying `module` eagerly could change what the program computes (None: it
    cannot). `code_refusal(fn, ignore)` judges the program's own forward code."""
    if training(module):
        return "a submodule is in training mode"
    from torch.nn.modules import module as nn_module

    if any(getattr(nn_module, name, None) for name in _GLOBAL_HOOKS):
        return "a global module hook is registered"
    for m in module.modules():
        if any(getattr(m, name, None) for name in _HOOKS):
            return f"a hook is registered on {type(m).__name__}"
    for leaf in pytree.tree_leaves((args, kwargs)):
        if not isinstance(leaf, _PLAIN):
            return f"an argument is a {type(leaf).__name__}"
    seen: set[type] = set()
    for m in module.modules():
        forward = getattr(type(m), "forward", None)
        if type(m) in seen or not inspect.isfunction(forward) or \
                not is_user_file(forward.__code__.co_filename):
            continue
        seen.add(type(m))
        why = code_refusal(forward, frozenset(name for name, _ in m.named_children()))
        if why:
            return f"{type(m).__name__}.forward: {why}"
    return None


def buffers(module: torch.nn.Module) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(buffer, a copy) of each buffer, before the compiled call: the replay starts there."""
    return [(b, b.detach().clone()) for b in module.buffers()]


def attributes(module: torch.nn.Module) -> list[tuple[torch.nn.Module, dict[str, Any]]]:
    """Each submodule's attributes (a shallow copy of its `__dict__`)."""
    return [(m, dict(m.__dict__)) for m in module.modules()]


def _put(saved: list[tuple[torch.nn.Module, dict[str, Any]]]) -> None:
    for m, attrs in saved:
        now = m.__dict__
        for key in [k for k in now if k not in attrs]:
            del now[key]
        for key, value in attrs.items():
            if now.get(key, _PUT) is not value:
                now[key] = value


_PUT = object()


@contextlib.contextmanager
def attributes_as(before: list[tuple[torch.nn.Module, dict[str, Any]]],
                  module: torch.nn.Module) -> Iterator[None]:
    """The modules' attributes as `before` during the replay, as the compiled call left them
    after it (a library's cached length, say, updated again by the replay)."""
    after = attributes(module)
    _put(before)
    try:
        yield
    finally:
        _put(after)


def compiled_path(module: torch.nn.Module) -> dict[str, Any] | None:
    """The first library module in `module` whose forward asks whether it is being compiled:
    its class, the line that asks, and the words the code there gives (a fast path's
    `why_not...` string). None when no module's code asks."""
    for name, m in module.named_modules():
        forward = getattr(type(m), "forward", None)
        if not inspect.isfunction(forward) or is_user_file(forward.__code__.co_filename):
            continue
        for ins in dis.get_instructions(forward):
            if ins.opname in ("LOAD_ATTR", "LOAD_GLOBAL", "LOAD_METHOD", "LOAD_NAME") and \
                    (ins.argval in _ASKS or _helper_asks(forward, ins)):
                line = ins.positions.lineno if ins.positions else None
                filename = forward.__code__.co_filename
                return {"module": type(m).__name__, "path": name, "cls": type(m),
                        "filename": filename, "lineno": line,
                        "says": _said_after(filename, line)}
    return None


def _helper_asks(forward: Any, ins: dis.Instruction) -> bool:
    """Whether the global `ins` loads is a function of the library's own that asks (MHA's
    forward asks through `_is_make_fx_tracing()`, which Dynamo's trace answers True: eager
    takes the native fast path, whose masked softmax gives NaN for a row with every key
    masked, compiled the SDPA path, which gives 0; probes47a speaker_mha_empty_utterance)."""
    if ins.opname != "LOAD_GLOBAL":
        return False
    helper = forward.__globals__.get(ins.argval)
    code = getattr(helper, "__code__", None)
    return inspect.isfunction(helper) and code is not None and \
        not is_user_file(code.co_filename) and bool(_ASKS & set(code.co_names))


def _said_after(filename: str, line: int | None) -> str | None:
    """The first string literal within three lines after `line`: what the code says of the
    path it takes when compiled."""
    if not line:
        return None
    for k in range(line, line + 4):
        m = _STRING.search(linecache.getline(filename, k))
        if m:
            return m.group(1)
    return None


def path_words(found: dict[str, Any]) -> str:
    """`TransformerEncoder.forward (transformer.py:476) asks torch.compiler.is_compiling()
    ("mask_check enabled with torch.compile or torch.export")`."""
    at = f"{os.path.basename(found['filename'])}:{found['lineno']}"
    said = f' ("{found["says"]}")' if found.get("says") else ""
    return f"{found['module']}.forward ({at}) asks whether it is being compiled{said}"


def first_node_in(found: dict[str, Any], graphs: list[tuple[Any, Any, Any, bool]]
                  ) -> tuple[Any, dict[str, Any]] | None:
    """(compile id, described node) of the first traced node inside the module `found`
    names: its stack trace holds the user line that called the module."""
    cls = found["cls"]
    for cid, gm, _, _ in graphs:
        for node in getattr(getattr(gm, "graph", None), "nodes", ()):
            stack = node.meta.get("nn_module_stack") or {}
            if node.op.startswith("call_") and node.meta.get("stack_trace") and \
                    any(_is(v, cls) for v in stack.values()):
                return cid, _described(node, localised=False)
    return None


def _is(entry: Any, cls: type) -> bool:
    kind = entry[1] if isinstance(entry, tuple) and len(entry) > 1 else None
    if isinstance(kind, type):
        return kind is cls
    return isinstance(kind, str) and kind.endswith(f"{cls.__module__}.{cls.__qualname__}")
