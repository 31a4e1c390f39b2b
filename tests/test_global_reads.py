"""A guard on a global the call does not pass is diagnosed where the compiled function reads
it, with the line that rebinds it (analyses/global_reads.py); torch 2.11's
`___as_tensor(___stack0).item()` is a value from the stack (formats.compiled_code). set27/gpu
opt_step_per_trial_recompile: `opt.step()` (line 17) in a compiled `opt_step()`, `opt` rebound
per trial at line 26, was put at the call `opt_step()` (line 30); set27/gpu
fp8_amax_item_break: the resume function's recompile per `.item()` value ranked above the
break that caused it."""

from __future__ import annotations

from compdiag.formats.compiled_code import is_stack_value
from test_explain import Store

SOURCE = ("import torch\n" * 11 + "opt = None\n\n\n@torch.compile\ndef opt_step():\n"
          "    opt.step()\n\n\n" + "x = 1\n" * 5 + "for lr in (1, 2, 3):\n"
          "    opt = torch.optim.AdamW([], lr=lr)\n" + "    y = 1\n" * 3 + "    opt_step()\n"
          + "z = 1\n" * 5)


def test_a_freed_global_is_diagnosed_where_the_compiled_code_reads_it(tmp_path):
    s = Store(tmp_path)
    s.user.write_text(SOURCE)
    for i in range(3):
        s.compile(f"0/{i}", co_name="opt_step", lineno=15, **(
            {"recompile_reason": f"0/{i - 1}: Cache line invalidated because G['opt'] got "
                                 "deallocated"} if i else {}))
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 17, d["user_frame"]
    assert "binds opt anew at line 26" in d["explanation"], d["explanation"]


def test_torch_2_11s_float_from_the_stack_is_a_stack_value():
    assert is_stack_value("___as_tensor(___stack0).item()")
    assert not is_stack_value("___as_tensor(x).item()")
