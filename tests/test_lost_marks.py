"""A mark_dynamic the compiled function never gets: the call passes something computed from
the marked tensor, or the marked name is bound to a new tensor before the call. probes40f
channels_last_drops_mark, blind: `mark_dynamic(images, 0)`, then `images =
images.to(memory_format=torch.channels_last)`, then `cmodel(images)`: six sizes compiled, and
the recompile blamed `dynamic=False`. The second test fails on the code before (None)."""

from __future__ import annotations

from types import SimpleNamespace

from compdiag.analyses.lost_marks import lost_mark

PROGRAM = ["for bs in (2, 4, 8):",
           "    images = torch.randn(bs, 3, 32, 32)",
           "    torch._dynamo.mark_dynamic(images, 0)",
           "    images = images.to(memory_format=torch.channels_last)",
           "    logits = cmodel(images)",
           "    other = cmodel(images.float())"]


def _ctx():
    return SimpleNamespace(source_lines=lambda f: PROGRAM)


def test_an_expression_passed_in_is_a_tensor_without_the_mark():
    call = SimpleNamespace(filename="/u/a.py", lineno=6, line=PROGRAM[5].strip())
    found = lost_mark(_ctx(), call)
    assert found is not None and found["arg"] in (
        "images.float()", "images.to(memory_format=torch.channels_last)"), found


def test_a_marked_name_bound_again_before_the_call_lost_its_mark():
    call = SimpleNamespace(filename="/u/a.py", lineno=5, line=PROGRAM[4].strip())
    found = lost_mark(_ctx(), call)
    assert found is not None, found
    assert found["lineno"] == 3 and found["call_lineno"] == 4
    assert found["arg"] == "images.to(memory_format=torch.channels_last)"
