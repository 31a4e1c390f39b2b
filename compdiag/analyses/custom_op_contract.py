"""What a custom op promised torch.compile and broke, in words: the accuracy kind's reason,
explanation and fix when the graph check measured it (capture/undeclared_mutation.py: an
input written that its schema marks read-only; capture/fake_mismatch.py: a kernel output of
another dtype or shape than its fake says). Either makes the compiled code wrong where eager
is right, and neither is a compiler bug to bisect: the op's declaration is the fix."""

from __future__ import annotations

from typing import Any

UNDECLARED_FIX = ("Declare what {op} writes: `@torch.library.custom_op(..., "
                  "mutates_args=(\"x\",))` naming each argument it changes in place (or "
                  "return a new tensor instead of writing into the input).")
FAKE_FIX = ("Make {op}'s fake return what its kernel returns ({kernel}): in its "
            "`register_fake`, build the output with that dtype and shape (`x.new_empty(..., "
            "dtype=...)`), or make the kernel return what the fake says (cast it: "
            "`.to(x.dtype)`). torch.compile plans every later op from the fake.")


def contract_words(node: dict[str, Any]) -> tuple[str, str, str] | None:
    """(reason suffix, explanation, fix) of the broken promise the divergent node records;
    None for any other node."""
    op, name = node.get("op"), node.get("node")
    if not name:
        return None
    if node.get("undeclared_mutation"):
        return (f"; {op} (node {name}) writes into an input its schema does not declare "
                "(mutates_args), so the compiled graph treats it as pure",
                f"Run op by op in eager, {op} changed a tensor argument its schema marks "
                "read-only: Inductor may drop or reorder an op it takes for pure (an op that "
                "returns nothing and declares no mutation is dead code to it), so what follows "
                "reads the unchanged value", UNDECLARED_FIX.format(op=op))
    fake = node.get("fake_mismatch")
    if isinstance(fake, dict):
        return (f"; custom op {op} (node {name}) returns {fake.get('kernel')} where its fake "
                f"(register_fake) says {fake.get('fake')}",
                f"Run op by op in eager, {op}'s kernel returned {fake.get('kernel')}, while the "
                f"fake torch.compile traced with said {fake.get('fake')}: the compiled code "
                "reads the kernel's output as the fake described it, so every op after it "
                "computes on misread memory (eager sees the real tensor and is right); not a "
                "compiler bug", FAKE_FIX.format(op=op, kernel=fake.get("kernel")))
    return None
