"""A side effect inside a higher-order op's body is said in the user's words: the object the
line changes (analyses/side_effect_words.py, formats.code_text.mutated_object). probes32f
ckpt_lora_delta_log: before this test the reason was torch's "HigherOrderOperator: Mutating a
variable not in the current scope (SideEffects)", naming neither `self.delta_norms` nor what
kind of side effect it is."""

from __future__ import annotations

from compdiag.analyses.side_effect_words import side_effect_clause
from compdiag.formats.code_text import mutated_object

GB = "HigherOrderOperator: Mutating a variable not in the current scope (SideEffects)"


def test_the_object_a_line_changes_in_place():
    assert mutated_object("self.delta_norms.append(delta.detach().norm())") == \
        "self.delta_norms"
    assert mutated_object("stats[key] = x.mean()") == "stats"
    assert mutated_object("self.calls += 1") == "self"
    assert mutated_object("history.setdefault(k, []).append(v)") == "history.setdefault(k, [])"
    assert mutated_object("y = x.append") is None and mutated_object("return x + 1") is None
    assert mutated_object("with torch.no_grad():") is None


def test_a_hop_side_effect_names_the_object_and_its_kind():
    clause = side_effect_clause(GB, "Attempted to mutate ListVariable(length=0)",
                                "self.delta_norms.append(delta.detach().norm())")
    assert "side effect" in clause and "`self.delta_norms` (a list)" in clause, clause
    # torch 2.15's gb_type words, no debug context: still a side effect
    assert "side effect" in side_effect_clause("HOP: Unsafe side effect", "", "log[k] = v")
    # any other break: nothing
    assert side_effect_clause("Unsupported Tensor.item() call", "", "self.n.append(1)") == ""


def test_a_break_in_distribution_validation_says_so():
    from compdiag.analyses.side_effect_words import validation_clause

    lib = {"filename": "/x/site-packages/torch/distributions/distribution.py", "name": "__init__",
           "line": "if constraints.is_dependent(constraint):"}
    assert validation_clause(lib, "d = Normal(mu, s, validate_args=True)") == \
        ", in torch.distributions' argument validation"
    assert validation_clause({"filename": "/x/torch/nn/modules/linear.py"}, "y = f(x)") == ""
    assert validation_clause(None, "y = f(x)") == ""
