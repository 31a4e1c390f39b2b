"""A state dict loaded into the module torch.compile returned, whose keys carry the wrapper's
`_orig_mod.` prefix (issue 29 §4: where bugs hide). `torch.compile(model)` returns an
OptimizedModule whose own `state_dict()` keys are `_orig_mod.<name>`; a checkpoint saved from
the plain model matches none of them, and with `strict=False` nothing is loaded and nothing is
said: the program runs on with the weights it had (probes30d finetune_strict_false: test
accuracy 0.603 against 0.789 without compile). With `strict=True` torch raises, and the keys
it lists carry the prefix.

Capture wraps OptimizedModule.load_state_dict (the class's own attribute, nn.Module's method
called as it was) and keeps, where the given keys are the wrapper's without the prefix, how
many it matched and the user's line: a `state_dict_load` record. Fail open: the original call's
result or exception is the program's, unchanged."""

from __future__ import annotations

from typing import Any, Callable

from compdiag.capture.after_import import after_import

STATE_DICT_LOAD = "state_dict_load"  # the record's kind
PREFIX = "_orig_mod."


def install(capture: Any, user_line: Callable[[], Any]) -> None:
    after_import("torch._dynamo.eval_frame", lambda ef: _patch(ef, capture, user_line))


def _patch(eval_frame: Any, capture: Any, user_line: Callable[[], Any]) -> None:
    cls = getattr(eval_frame, "OptimizedModule", None)
    original = getattr(cls, "load_state_dict", None)
    if original is None or getattr(original, "_compdiag", False):
        return

    def load_state_dict(self: Any, state_dict: Any, *args: Any, **kwargs: Any) -> Any:
        strict = kwargs.get("strict", args[0] if args else True)
        try:
            result = original(self, state_dict, *args, **kwargs)
        except RuntimeError:
            if strict and not capture.paused_depth:
                capture.guarded("state dict load", _record, capture, self, state_dict,
                                True, user_line)
            raise
        if not strict and not capture.paused_depth:
            capture.guarded("state dict load", _record, capture, self, state_dict, False,
                            user_line)
        return result

    load_state_dict.__wrapped__ = original  # type: ignore[attr-defined]
    load_state_dict._compdiag = True  # type: ignore[attr-defined]
    load_state_dict.__doc__ = original.__doc__
    cls.load_state_dict = load_state_dict


def _record(capture: Any, wrapper: Any, state_dict: Any, strict: bool,
            user_line: Callable[[], Any]) -> None:
    """Recorded only where the given keys are the wrapper's own without its prefix."""
    given = [k for k in state_dict.keys() if isinstance(k, str)]
    own = set(wrapper.state_dict().keys())
    bare = [k for k in given if f"{PREFIX}{k}" in own and k not in own]
    if not bare:
        return
    capture.ing.event(STATE_DICT_LOAD, None, {
        "strict": strict, "given": len(given), "unprefixed": len(bare),
        "loaded": sum(1 for k in given if k in own), "example": bare[0],
        "module": type(getattr(wrapper, "_orig_mod", wrapper)).__name__,
        "call": user_line()}, None)
