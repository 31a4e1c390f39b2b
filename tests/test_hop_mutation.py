"""The tensor a higher-order op's branch writes, named as the user spells it
(analyses/hop_mutation.py). probes37d cond_branch_batchnorm: torch.cond with a BatchNorm head
in training mode failed with GB0041 ("Higher order ops do not support input mutation"); the
reason never named the buffer torch's debug context names, and the fix said to take a print
or a list append out of the branch."""

from __future__ import annotations

from compdiag.analyses.hop_mutation import spelt, with_written, written_fix

DEBUG = ("Input mutation detected at [l_self_modules_bn_head_modules_0_buffers_num_batches_"
         "tracked_] in\n     graph():\n")


def test_dynamos_placeholder_is_spelt_as_the_users_tensor():
    assert spelt("l_self_modules_bn_head_modules_0_buffers_num_batches_tracked_") == \
        "self.bn_head[0].num_batches_tracked"
    assert spelt("l_self_modules_enc_parameters_weight_") == "self.enc.weight"
    assert spelt("l_state_") == "state"


def test_the_written_buffer_is_in_the_reason_and_a_batchnorms_gets_its_fix():
    said = with_written("Higher order ops do not support input mutation.", DEBUG)
    assert said.endswith("writing `self.bn_head[0].num_batches_tracked`"), said
    fix = written_fix(DEBUG)
    assert "BatchNorm's running statistics" in fix and "track_running_stats=False" in fix
    other = written_fix(DEBUG.replace("_buffers_num_batches_tracked_", "_buffers_cache_"))
    assert "Return the new value" in other and "BatchNorm" not in other
    assert written_fix("no mutation here") is None and with_written("x", "") == "x"
