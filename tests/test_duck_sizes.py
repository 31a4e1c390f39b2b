"""analyses/duck_sizes.py: a recompile on two sizes equal at the first compile (duck sizing)
said as such; the end-to-end case is corpus/rc_duck_sized_first_batch.py."""

from compdiag.analyses.duck_sizes import duck_words

DUCK = ("x.size()[3] == x.size()[2]  # duck sizing added this equality because these "
        "variables had the same size 64 (to avoid this specialization, set "
        "torch.fx.experimental._config.use_duck_shape = False)")


def test_duck_sizing_is_named_with_its_size_and_fix():
    said = duck_words({"before": "L['x'].size()[2]", "failed_guard": DUCK},
                      "x.size()[3]", "forward()")
    assert said is not None
    head, change, explanation, fix = said
    assert "x.shape[3] and x.shape[2] were equal" in head and "(64)" in change
    assert "use_duck_shape = False" in fix and "mark_dynamic(tensor, 3)" in fix


def test_another_equality_is_not_duck_sizing():
    # a user's `if h == w` guards the same equality without torch's duck-sizing comment
    assert duck_words({"before": "L['x'].size()[2]", "failed_guard": "x.size()[3] == "
                       "x.size()[2]"}, "x.size()[3]", "f()") is None
    assert duck_words({"before": "8", "failed_guard": DUCK}, "x.size()[3]", "f()") is None
