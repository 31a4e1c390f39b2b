"""A tensor guard's dispatch key set in words: what kind of tensor each side was (an inference
tensor, a subclass, a conj/neg bit), for a recompile on it and a recompile a setting refused
(analyses/guard_words.py, analyses/refused_recompile.py)."""

from __future__ import annotations

import re
from typing import Any

_KEYS = re.compile(r"DispatchKeySet\(([^)]*)\)")
# the dispatch keys whose presence says what kind of tensor it is
KEY_WORDS = (("Autograd", "a normal tensor", "an inference tensor"),
             ("Python", "a tensor subclass or a tensor under a Python dispatch mode",
              "a plain tensor (no Python dispatch key)"),
             ("Conjugate", "a tensor with the conjugate bit set (x.conj())",
              "a tensor without the conjugate bit"),
             ("Negative", "a tensor with the negative bit set", "a tensor without the negative "
              "bit"),
             ("Functionalize", "a functional tensor", "a non-functional tensor"),
             ("Sparse", "a sparse tensor", "a dense tensor"))


def _keyset(text: str | None) -> set[str]:
    m = _KEYS.search(text or "")
    return {k.strip() for k in m.group(1).split(",") if k.strip()} if m else set()


def _what_tensor(mine: set[str], other: set[str]) -> str | None:
    """The kind of tensor a key set is, by the first key family only one of them has."""
    for family, has, lacks in KEY_WORDS:
        a, b = any(family in k for k in mine), any(family in k for k in other)
        if a != b:
            return has if a else lacks
    return None


def dispatch_key_words(name: str, where: str, before_text: Any, after_text: Any
                       ) -> tuple[str, str, str]:
    """(change, explanation, fix) of a tensor guard's dispatch key set that changed: an
    inference tensor for a normal one, a subclass, a conj/neg bit. Shared by the recompile
    and by a recompile a setting refused (analyses/refused_recompile.py: probes43i
    warmup_no_grad_serve_inference_mode, "keep what this guard checks the same")."""
    before, after = _keyset(before_text), _keyset(after_text)
    old, new = _what_tensor(before, after), _what_tensor(after, before)
    change = (f" ({old} -> {new})" if old and new else
              f" ({before_text} -> {after_text})" if before_text else "")
    inference = any("Autograd" in k for k in before ^ after)
    parts = [f"{', '.join(sorted(keys))} {what}" for keys, what in
             ((after - before, "added"), (before - after, "removed")) if keys]
    explanation = (f"{name} reached {where} as a different kind of tensor than it was "
                   "compiled for: the tensor guard checks its dispatch key set, which "
                   "differs" + (f" ({'; '.join(parts)})" if parts else "")
                   + ". Same shape and dtype, new graph."
                   + (" An inference tensor (made under torch.inference_mode()) has no "
                      "autograd keys; a normal tensor has them." if inference else ""))
    fix = ("Pass the same kind of tensor every call: create all of its inputs under "
           "torch.inference_mode() or none of them (`x.clone()` outside inference mode "
           "gives a normal tensor), or run every call of the compiled function, warm-up "
           "included, under torch.inference_mode()." if inference else
           "Pass the same kind of tensor every call (the same subclass, no conj/neg bit "
           "pending: `x.resolve_conj()`), or keep one compiled function per kind.")
    return change, explanation, fix
