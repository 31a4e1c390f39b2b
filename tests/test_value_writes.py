"""A break inside library code on a NumPy value the program wrote there is said at the
program's write (analyses/value_writes.py). Caught by benchmarks/probes37a
yolo_np_interp_momentum: YOLOv5's warmup writes `g["momentum"] = np.interp(...)` into SGD's
param_groups, and SGD's `if momentum != 0:` broke the compiled `opt.step` at every step; explain
said "torch.compile wraps `opt.step` ... 5 graph breaks inside it, none in your code", with a
fix to compile the model instead."""

from __future__ import annotations

from pathlib import Path

from test_explain import Store, _ids

SGD = "/usr/lib/python3.11/site-packages/torch/optim/sgd.py"
OPTIMIZER = "/usr/lib/python3.11/site-packages/torch/optim/optimizer.py"
PROGRAM = """import numpy as np
import torch
opt = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1, momentum=0.9)
compiled_step = torch.compile(opt.step)
for ni in range(4):
    for g in opt.param_groups:
        g["lr"] = 0.1
        g["momentum"] = np.interp(ni, [0, 3], [0.8, 0.9])
    compiled_step()
"""


def _break(user: Path, value: str = "NumpyNdarrayVariable") -> str:
    return (f"Graph break in user code at {SGD}:357\n"
            "Graph Break Reason: Encountered graph break when attempting to trace CALL: a "
            "function call, e.g. f(x, y):\n\nData-dependent branching\n"
            "  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`)."
            " Dynamo does not support tracing dynamic control flow.\n"
            "  Hint: Use `torch.cond` to express dynamic control flow.\n\n"
            f"  Developer debug context: attempted to jump with {value}()\n\n"
            " For more details about this graph break, please visit: "
            "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html\n\n"
            "User code traceback:\n"
            f'  File "{user}", line 9, in <module>\n    compiled_step()\n'
            f'  File "{OPTIMIZER}", line 80, in _use_grad\n    ret = func(*args, **kwargs)\n'
            f'  File "{SGD}", line 357, in _single_tensor_sgd\n    if momentum != 0:\n')


def _store(tmp_path: Path, value: str = "NumpyNdarrayVariable") -> Store:
    s = Store(tmp_path)
    s.user.write_text(PROGRAM)
    for cid in ("0/0", "1/0"):
        s.compile(cid, co_name="wrapper", co_filename=OPTIMIZER, lineno=520)
        s.ing.record({**_ids(cid), "artifact": {"name": "dynamo_graph_break_reason",
                                                "encoding": "string"}}, _break(s.user, value))
    return s


def test_a_library_branch_on_a_numpy_value_is_at_the_programs_write(tmp_path: Path) -> None:
    top = _store(tmp_path).explain()[0]
    assert (top["kind"], top["user_frame"]["lineno"]) == ("graph_break", 8)
    assert "momentum written from `np.interp(ni, [0, 3], [0.8, 0.9])` at line 8" \
        in top["reason"]
    assert "none in your code" not in top["reason"]
    assert 'g["momentum"] = float(np.interp(ni, [0, 3], [0.8, 0.9]))' in top["fix"]
    assert "recompile limit" in top["fix"]


def test_a_library_branch_on_a_tensor_stays_the_librarys(tmp_path: Path) -> None:
    top = _store(tmp_path, value="TensorVariable").explain()[0]
    assert top["user_frame"]["lineno"] != 8 and "written from" not in top["reason"]
