"""`compdiag show` lists a graph break at the user's line, as explain does: torch's break row
names the frame Dynamo was in, a library's or the stdlib's where the user's call went in there
(probes40a exitstack_frozen_backbone, blind: show said contextlib.py:517, explain line 32).
Fails on the code before (the row's own frame)."""

from __future__ import annotations

from compdiag.views.show import _graph_break


def test_a_break_inside_the_stdlib_is_listed_at_the_users_frame():
    stack = [{"filename": "<frozen runpy>", "lineno": 198, "line": None},
             {"filename": "/home/u/train.py", "lineno": 32,
              "line": "stack.enter_context(torch.no_grad())"},
             {"filename": "/usr/lib/python3.11/contextlib.py", "lineno": 517,
              "line": "result = _enter(cm)"}]
    row = {"compile_id": "0/0", "reason": "skipped", "gb_type": "skipped", "gb_code": "GB0007",
           "gb_type_inner": None, "frame_skipped": 0, "hints": [],
           "filename": "/usr/lib/python3.11/contextlib.py", "lineno": 517,
           "line": "result = _enter(cm)", "user_stack": stack}  # decoded, as the reader gives it
    assert _graph_break(row)["user_frame"]["lineno"] == 32
    mine = {**row, "filename": "/home/u/train.py", "lineno": 40, "line": "print(x)"}
    assert _graph_break(mine)["user_frame"]["lineno"] == 40
