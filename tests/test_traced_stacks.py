"""ingest/traced_stacks.py: a graph break's user stack with the user frames torch's traceback
left out put back from the translators Dynamo ran (capture/break_stack.py); the end-to-end
case is corpus/gb_break_frames_torch_omits.py."""

import json

from compdiag.ingest.traced_stacks import parse, with_traced

LIB = "/site-packages/torch/nn/functional.py"
MHA = "/site-packages/torch/nn/modules/activation.py"
MOD = "/site-packages/torch/nn/modules/module.py"


def _f(filename, lineno):
    return {"filename": filename, "lineno": lineno, "line": f"line {lineno}", "name": "f"}


def test_the_omitted_user_frames_come_back_before_the_library_frames():
    torch_stack = [_f("/x/run.py", 36), _f(MOD, 1778), _f(MOD, 1789), _f("/x/run.py", 29),
                   _f(MOD, 1778), _f(MHA, 1336), _f(LIB, 6602)]
    traced = [_f("/x/run.py", 29), _f("/x/run.py", 17), _f(MHA, 1336), _f(LIB, 6602)]
    merged = with_traced(torch_stack, traced)
    assert [(f["filename"], f["lineno"]) for f in merged] == [
        ("/x/run.py", 36), (MOD, 1778), (MOD, 1789), ("/x/run.py", 29), ("/x/run.py", 17),
        (MHA, 1336), (LIB, 6602)]


def test_another_break_or_nothing_missing_leaves_torchs_stack():
    torch_stack = [_f("/x/run.py", 36), _f("/x/run.py", 17), _f(LIB, 6602)]
    assert with_traced(torch_stack, [_f("/x/run.py", 17), _f(LIB, 6602)]) is torch_stack
    # a chain that ends elsewhere is another break's
    assert with_traced(torch_stack, [_f("/x/run.py", 9), _f(LIB, 100)]) is torch_stack
    # only library frames missing: nothing the user line depends on
    assert with_traced(torch_stack, [_f(MHA, 1), _f(LIB, 6602)]) is torch_stack
    assert with_traced(None, [_f(LIB, 6602)]) is None and with_traced([], None) == []


def test_a_malformed_record_is_none():
    assert parse("not json") is None and parse('{"a": 1}') is None
    assert parse(json.dumps([{"filename": "a.py"}])) is None
    assert parse(json.dumps([_f("/x/a.py", 3)])) == [_f("/x/a.py", 3)]
