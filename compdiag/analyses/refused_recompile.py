"""A recompile Dynamo refused, in the recompile's words: with
`torch._dynamo.config.error_on_recompile = True` (RecompileError) or the
`fail_on_recompile` stance, the call that needed a new graph raises, and torch's message lists
the guards that failed (stored at ingest as `failures.failed_guards`). The failure is the
consequence; what changed is the cause, and its fix is the recompile's (issue 29 §2; probes35c
strict_recompile_val_pass: an evaluation pass under `torch.no_grad()` was "Dynamo failed while
tracing", with a fix about dtypes and dynamic dimensions that could not apply)."""

from __future__ import annotations

from typing import Any, NamedTuple

from compdiag.analyses.dispatch_keys import dispatch_key_words
from compdiag.analyses.recompile_rules import (ON_PURPOSE, REASONS, recompile_explanation,
                                               recompile_fix)
from compdiag.analyses.tied_sizes import tied_fix
from compdiag.formats.compile_id import frame_of

ERROR_ON_RECOMPILE = "`torch._dynamo.config.error_on_recompile = True`"
STANCE = "`torch.compiler.set_stance(\"fail_on_recompile\")`"
# Recompiles torch makes on purpose, once per variant (the recompile kind's ON_PURPOSE, less
# the size and value changes automatic dynamic shapes absorb): the setting refused an expected
# graph, not a mistake in the call
EXPECTED = tuple(c for c in ON_PURPOSE if c not in ("size", "value"))
EXPECTED_FIX = ("This recompile is expected: Dynamo compiles one graph per {what}, once, and "
                "keeps both. Let every variant compile before the setting is on (run one "
                "{example} during warm-up, then set {setting}), or leave it off.")
EXAMPLES = {"global_state": ("grad/autocast mode", "evaluation pass under torch.no_grad()"),
            "training": ("train/eval mode", "evaluation pass after model.eval()"),
            "requires_grad": ("requires_grad pattern", "call with each requires_grad "
                              "pattern")}
EXPLANATION = ("Nothing failed to trace: the call needed a new graph, and {setting} turns a "
               "recompile into an error. {why}")


class Refused(NamedTuple):
    reason: str
    explanation: str
    fix: str


def refused(ctx: Any, failure: dict[str, Any], fatal: bool) -> Refused | None:
    """The refused recompile's words (reason, explanation, fix), from its first failed guard;
    None for another failure. `fatal`: the exception ended the program. The function is named
    as its first compile knew it (the refused one never ran: for a compiled module torch's
    wrapper `inner`, not `Linear.forward`)."""
    guards = [g for g in failure.get("failed_guards") or [] if isinstance(g, dict)]
    if not guards:
        return None
    g = guards[0]
    category, source = g.get("category") or "", g.get("source") or g.get("guard") or ""
    text = f"{failure.get('message') or ''} {failure.get('torch_message') or ''}"
    setting = STANCE if "fail_on_recompile" in text else ERROR_ON_RECOMPILE
    said = REASONS.get(category, "a guard failed: {src}").format(src=source)
    cid = failure.get("compile_id")
    fn = (ctx.fn_name(f"{frame_of(cid)}/0") if cid else None) or g.get("function")
    where = f"{fn}()" if fn else "the function"
    why = recompile_explanation(category, source, fn, 1, g.get("guard") or "")
    if category == "dispatch_key_set":  # an inference tensor where a normal one compiled
        change, why, fix = dispatch_key_words(source, "the call", g.get("before"),
                                              g.get("after"))
        said += change
        fix += f" Or drop {setting} if this recompile is expected."
    elif category in EXPECTED:
        what, example = EXAMPLES.get(category, ("value of " + source, "call with each value"))
        fix = EXPECTED_FIX.format(what=what, example=example, setting=setting)
    else:
        fix = (recompile_fix(category, source, count=1, limit=False, fn=fn,
                             guard_text=g.get("guard"), before=g.get("before"),
                             tied=tied_fix(ctx, cid, source, g.get("before")))
               + f" Or drop {setting} if this recompile is expected.")
    return Refused(f"{failure.get('exc_type')}: {where} needed a recompile ({said}), which "
                   f"{setting} forbids; failed guard: {g.get('guard')}",
                   EXPLANATION.format(setting=setting, why=why)
                   + " The exception ended the program." * fatal, fix)
