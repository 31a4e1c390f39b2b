"""analyses/rebuilt_objects.py: an object made per pass of an outer loop and used by the calls
of an inner one (a fresh optimizer per fold) is meant to be new; the end-to-end case is
corpus/rc_optimizer_per_sweep_point.py."""

from compdiag.analyses.rebuilt_objects import made_per_outer_loop

FOLDS = """\
for fold in range(5):
    model = make()
    opt = Adam(model.parameters())
    for epoch in range(3):
        step(opt)
"""
PER_CALL = """\
for epoch in range(3):
    opt = Adam(model.parameters())
    step(opt)
"""
ONCE = """\
opt = Adam(model.parameters())
for epoch in range(3):
    step(opt)
"""


def test_made_in_the_outer_loop_of_the_calls():
    assert made_per_outer_loop(FOLDS, 5, "opt") == 3
    assert made_per_outer_loop(FOLDS, 5, "model") == 2


def test_made_per_call_or_once_is_not_meant():
    assert made_per_outer_loop(PER_CALL, 3, "opt") is None  # one loop: remade every call
    assert made_per_outer_loop(ONCE, 3, "opt") is None
    assert made_per_outer_loop("def (", 1, "opt") is None  # does not parse
    assert made_per_outer_loop(FOLDS, 5, "self.opt") is None
