"""The words for compiled code that computes with values other than this call's: parameters
freezing folded in as constants before the program updated them in place, and a Python number
the graph takes as an input whose value from another call the code kept (issue 29 §4). The
accuracy kind's; apart to keep that kind's module within its size."""

from __future__ import annotations

from typing import Any


STALE_INPUT_FIX = ("Pass {name} to the compiled function as a tensor (`torch.tensor({name})`), "
                   "or have Dynamo compile each value of it as a constant (`torch._dynamo."
                   "config.specialize_float = True`). A fresh compile does not show the "
                   "difference, so neither does a minified repro: report it to PyTorch with "
                   "the program.")


def stale_input_words(node: dict[str, Any], reason: str) -> tuple[str, str]:
    """A difference the graph compiled afresh for the same inputs does not show: the code that
    ran used another value of a Python number the graph takes as an input."""
    stale, op = node.get("stale_input") or "a number", node.get("op")
    return (f"{reason}; compiled afresh for this call's inputs the graph agrees with eager: the "
            f"code that ran used another value of {stale} (a Python number the graph takes as "
            f"an input), first read by {op} (node {node['node']})",
            f"The compiled code differs from eager, but this graph compiled again for the same "
            f"inputs does not: the code that ran computed with a value of {stale} from another "
            f"call (a stale specialisation of a dynamic Python number, as in pytorch#197889), "
            f"from its first reader, {op}, on")


def updated_params_words(names: list[str], freezing: bool, out: str, measured: str
                         ) -> tuple[str, str, str]:
    """(reason, explanation, fix) of a graph that differs from eager only after the program
    changed parameters it reads in place (capture re-checks at that call): under freezing
    Inductor folded them into the graph as constants, so compiled code keeps the old values."""
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    if freezing:
        return (f"compiled {out} ignores the in-place update of its parameters ({shown}): "
                "freezing folded them into the compiled graph as constants",
                "torch._inductor.config.freezing makes the parameters a graph reads constants "
                "of its compiled code (folded, pre-packed); the program then changed them in "
                "place (load_state_dict, an optimizer step, `p.copy_`), which no guard "
                "checks, so nothing recompiled and the compiled code still computes with the "
                f"values it was compiled with. Measured at the first call after the update: "
                f"{measured}.",
                "Leave freezing off for a model whose weights change after it is compiled; or, "
                "after updating the weights, recompile (`torch._dynamo.reset()` before the next "
                "call) so the new values are folded in.")
    return (f"compiled {out} differs from eager after an in-place update of its parameters "
            f"({shown})",
            "The graph agreed with eager at its first call and differs at the first call after "
            f"the program changed parameters it reads in place: {measured}.",
            "Check what keeps the old parameter values in the compiled code (a config that "
            "folds weights, a custom op that caches them); recompile after the update "
            "(`torch._dynamo.reset()`) to confirm.")
