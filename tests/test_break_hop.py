"""The higher-order operator a graph break happened inside (capture/break_hop.py; issue 29 §1).

set17/llama_checkpoint_side_effect.py (pytorch#124866): with gradient checkpointing on, a
kernels-package layer sets a context variable inside the checkpointed forward, and Dynamo
breaks with "HOP: Unsafe side effect", naming no operator (its hint only guesses "If the HOP
is activation checkpointing ..."). On main the headline never said checkpointing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from compdiag.capture.break_hop import BREAK_HOP, hop_of_handled_exception
from test_explain import Store


def _fake_hop_module(tmp_path: Path):
    """A module whose file path ends like Dynamo's higher_order_ops.py, with a tracker whose
    body raises, as Dynamo's speculate_subgraph does."""
    path = tmp_path / "torch" / "_dynamo" / "variables" / "higher_order_ops.py"
    path.parent.mkdir(parents=True)
    path.write_text("class Op:\n    _name = 'tag_activation_checkpoint'\n\n\n"
                    "class Tracker:\n    value = Op()\n\n"
                    "    def call(self, body):\n        return body()\n")
    spec = importlib.util.spec_from_file_location("fake_hops", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_operator_on_the_handled_exceptions_traceback_is_read(tmp_path):
    mod = _fake_hop_module(tmp_path)

    def body():
        raise RuntimeError("Unsupported: HOP: Unsafe side effect")

    try:
        mod.Tracker().call(body)
    except RuntimeError:
        assert hop_of_handled_exception() == "tag_activation_checkpoint"
    assert sys.exc_info()[1] is None and hop_of_handled_exception() is None


def test_a_break_inside_checkpointing_says_so(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.event(BREAK_HOP, "0/0", {}, "tag_activation_checkpoint")
    s.graph_break("0/0", 12, gb_type="HOP: Unsafe side effect")
    s.graph_break("0/0", 14)   # the next break of the compile is its own
    diags = {d["user_frame"]["lineno"]: d for d in s.explain() if d["kind"] == "graph_break"}
    assert diags[12]["reason"].endswith(
        ", inside activation checkpointing (torch.utils.checkpoint)"), diags[12]["reason"]
    assert "inside" not in diags[14]["reason"]


def test_a_tensor_hook_registered_in_compiled_code_is_named_with_its_own_fix(tmp_path):
    """probes34a vit_attn_grad_rollout: `attn.register_hook(self.save_attn_grad)` in a
    compiled forward, the hook writing `self.attn_grad`; Dynamo speculates the hook's body
    (Tensor.register_hook, no operator of its own) and breaks with "HOP: Unsafe side effect".
    The panel's fix was torch's checkpointing guess (skip_fwd_side_effects_in_bwd_under_
    checkpoint, which changed nothing on a program without checkpointing)."""
    path = tmp_path / "torch" / "_dynamo" / "variables" / "tensor.py"
    path.parent.mkdir(parents=True)
    path.write_text("def _method_register_hook(body):\n    return body()\n")
    spec = importlib.util.spec_from_file_location("fake_tensor_vt", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def body():
        raise RuntimeError("Unsupported: HOP: Unsafe side effect")

    try:
        mod._method_register_hook(body)
    except RuntimeError:
        assert hop_of_handled_exception() == "register_hook"
    # the frame skip's wrapper, raised from the break (its record is the first one logged)
    try:
        try:
            mod._method_register_hook(body)
        except RuntimeError as inner:
            raise RuntimeError("Failed to handle graph break gracefully") from inner
    except RuntimeError:
        assert hop_of_handled_exception() == "register_hook"
    s = Store(tmp_path)
    s.compile("0/0")
    s.ing.event(BREAK_HOP, "0/0", {}, "register_hook")
    s.graph_break("0/0", 12, gb_type="HOP: Unsafe side effect")
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert d["reason"].endswith("inside a gradient hook registered in compiled code "
                                "(Tensor.register_hook)"), d["reason"]
    assert "register the hook outside the compiled function" in d["fix"]
    assert "checkpoint" not in d["fix"]
