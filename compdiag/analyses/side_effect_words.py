"""A graph break on a side effect inside a higher-order op's body (activation checkpointing,
torch.cond, flex_attention's score_mod, ...), in the user's words: which object the line
changes that lives outside the body. torch says "HigherOrderOperator: Mutating a variable not
in the current scope (SideEffects)" and, in its debug context, "Attempted to mutate
ListVariable(length=0)" (probes32f ckpt_lora_delta_log: `self.delta_norms.append(...)` in a
checkpointed LoRA layer; the reason named neither the list nor what a side effect is). And a
break inside torch.distributions' argument validation, said as that (validation_clause)."""

from __future__ import annotations

import re

from typing import Any

from compdiag.analyses.library_fixes import DISTRIBUTIONS, validating
from compdiag.formats.code_text import mutated_object

_MUTATE = re.compile(r"Attempted to mutate (?P<kind>[A-Za-z]+?)Variable")
_KINDS = {"List": "a list", "Dict": "a dict", "Set": "a set", "Deque": "a deque",
          "ConstDict": "a dict"}


def side_effect_clause(gb_type: str, debug: str, line: str | None) -> str:
    """`, a side effect: the line changes `self.log` (a list), which lives outside the
    higher-order op's body` for a HOP side-effect break; empty for any other break."""
    said = _MUTATE.search(debug or "")
    if said is None and "sideeffect" not in gb_type.lower().replace(" ", ""):
        return ""
    obj = mutated_object(line)
    kind = _KINDS.get(said.group("kind"), "an object") if said else None
    what = f"`{obj}`" if obj else "an object"
    return (f", a side effect: the line changes {what}" + (f" ({kind})" if kind else "")
            + ", which lives outside the higher-order op's body")


def validation_clause(lib_frame: Any, line: str | None) -> str:
    """`, in torch.distributions' argument validation` for a break there (probes33e
    hetero_nll_validate: the reason named torch's `is_dependent`, never the validation the
    user's `validate_args=True` turned on); empty for any other break."""
    lib = lib_frame if isinstance(lib_frame, dict) else {}
    where = str(lib.get("filename") or "").replace("\\", "/")
    return ", in torch.distributions' argument validation" \
        if DISTRIBUTIONS in where and validating(lib, line) else ""
