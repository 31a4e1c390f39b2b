"""A Python bool a recompile's guard failed on (analyses/bool_flags.py): a flag that picks a
branch is one graph per value, by design; torch.cond's predicate is not (probes37d
cond_python_bool_flag: a residual switch passed to torch.cond as a Python bool alternated per
step, said as information "nothing to do", where a tensor predicate keeps one graph); a bool
torch recorded no new value for is still a bool (probes37a freeze_flag_in_forward: `False ->
another value` got the tensor fix, which `requires_grad_` cannot take)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compdiag.analyses.bool_flags import COND_PRED_FIX, bool_flag


def test_torch_conds_predicate_is_not_a_flag():
    assert bool_flag("True", "False", "return torch.cond(use_residual,", "use_residual") == \
        "cond"
    assert bool_flag("False", None, "y = cond(self.on, f, g, (x,))", "self.on") == "cond"
    assert bool_flag("True", "False", "if use_residual:", "use_residual") == "flag"
    assert bool_flag("True", "False", "y = self.second_cond(a) if a else x", "a") == "flag"
    # (review) a bool on a cond line that is not its predicate stays a branch flag
    assert bool_flag("True", "False", "return torch.cond(p, f, g, (x,)) if use_cond else x",
                     "use_cond") == "flag"
    assert bool_flag("True", "False", "y = cond(flag_b, f, g, (x,))", "flag") == "flag"
    assert "torch.tensor(use_residual)" in COND_PRED_FIX.format(src="use_residual")


def test_a_bool_torch_kept_no_new_value_for_is_a_flag():
    assert bool_flag("False", None, "p.requires_grad_(not self.freeze)", "self.freeze") == "flag"


@given(st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=5)),
       st.one_of(st.none(), st.integers(), st.text(max_size=5)))
def test_no_other_value_is_a_flag(before, after):
    if str(before) not in ("True", "False"):
        assert bool_flag(before, after, "torch.cond(x, f, g)", "x") is None
