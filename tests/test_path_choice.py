"""The test that chose the path only the trace took (issue 29 §1, the line the user must
change): probes44a clip_logit_scale_type_getattr (pytorch#198197) expected the `getattr` whose
AttributeError eager caught, and the `traced_other_path` verdict pointed at the line only the
trace ran, two lines below it (corpus acc_type_getattr_branch: line 15, now 12)."""

from __future__ import annotations

import pytest

from compdiag.analyses.path_choice import deciding_line

SOURCE = '''\
def scale(s):
    try:
        getattr(type(s), "exp")
    except AttributeError:
        return s
    return s.exp()


def branch(x, k):
    if isinstance(k, int):
        y = x + 1
    elif k is None:
        y = x - 1
    else:
        y = x * 2
    for i in range(k):
        y = y + i
    return y


def early(x):
    if hasattr(x, "foo"):
        return x
    while x.sum() > 0:
        x = x - 1
    return x * 2


def handler(x):
    try:
        y = x.foo
        z = y + 1
    except AttributeError:
        z = x * 3
    return z


def nested(x, flag):
    if flag:
        y = 1
    else:
        try:
            y = x.foo
        except AttributeError:
            return x
        y = y + 1
    return y
'''


@pytest.mark.parametrize("unrun, ran, decided", [
    (6, [2, 3, 4, 5], 3),    # after a try whose handler returns: the line that raised
    (11, [10, 12, 13], 10),  # in an if's body: its test
    (13, [10, 11], 12),      # in an elif's body: the elif's own test
    (15, [10, 11], 12),      # in the else: the last test before it
    (17, [10, 11], 16),      # a loop's body: the `for`
    (18, [10, 11], None),    # nothing above it in its block decides it
    (26, [22, 23], 22),      # after an if that returns
    (25, [22, 24], 24),      # a while's body: its test
    (34, [30, 31], 31),      # a handler's body: the try's last line eager ran
    (34, [], 31),            # (none ran: its first line)
    # after a try that leaves, inside an else: the try decides, not the if above it (the
    # siblings were read from the parent's own field in its parent, `body`, not `orelse`)
    (46, [39, 42, 43, 44, 45], 43),
])
def test_the_deciding_line(unrun, ran, decided):
    assert deciding_line(SOURCE, unrun, ran) == decided


def test_unparsable_source_decides_nothing():
    assert deciding_line("def f(:\n", 1, [1]) is None
