"""Guards that compare two sizes (`recordings[2].size()[0] > recordings[0].size()[0]`), made by
a library call the compiled code makes (pad_sequence pads to the longest). probes32d
pad_sequence_sensor_batches: before this test they were 4 problems of category "other" at
the call (line 32), each "guard ... failed", fix "keep what this guard checks the same";
torch ties them to nn/utils/rnn.py:465, and the graph nodes made there name line 18."""

from __future__ import annotations

from types import SimpleNamespace

from compdiag.analyses.diagnoses.recompiles import _library_nodes
from compdiag.ingest.parse_dynamo import classify_guard
from test_explain import Store

LIB = "nn/utils/rnn.py:465 in pad_sequence"


def test_a_comparison_of_two_sizes_is_its_own_category_on_the_container():
    g = classify_guard("recordings[2].size()[0] > recordings[0].size()[0]")
    assert (g["category"], g["source"]) == ("size_order", "L['recordings']"), g
    other = classify_guard("a.size()[0] <= b.size()[1]")
    assert other["category"] == "size_order" and other["source"] == "L['a']"
    # a bound on one size is still a range
    assert classify_guard("2 <= L['x'].size()[0]")["category"] == "size_range"


def test_every_ordering_of_one_list_is_one_recompile_with_the_padding_fix(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", co_name="forward", lineno=17)
    for i, guard in enumerate(("recordings[2].size()[0] > recordings[0].size()[0]",
                               "recordings[3].size()[0] <= recordings[0].size()[0]",
                               "recordings[1].size()[0] <= recordings[0].size()[0]"), 1):
        s.compile(f"0/{i}", co_name="forward", lineno=17,
                  recompile_reason=f"0/{i - 1}: {guard}  # return torch._C._nn.pad_sequence("
                                   f"  # {LIB}")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["reason"].startswith("which of the tensors in recordings is longest"), d["reason"]
    assert "before the compiled call" in d["fix"], d["fix"]


def test_a_guard_at_a_library_line_is_read_at_the_user_line_whose_nodes_it_made():
    user = {"filename": "/home/me/har.py", "lineno": 18,
            "line": "x = pad_sequence(recordings, batch_first=True)"}
    lib = "/venv/lib/python3.11/site-packages/torch/nn/utils/rnn.py"
    nodes = {"0/0": [{"filename": "/home/me/har.py", "lineno": 21, "stack": None},
                     {"filename": lib, "lineno": 465, "stack": [user, {"filename": lib,
                                                                       "lineno": 465}]}]}
    ctx = SimpleNamespace(compiles=["0/0", "0/1"], run_id=1, r=SimpleNamespace(
        every_graph_nodes=lambda run, cid: nodes.get(cid, [])))
    loc = {"filename": "nn/utils/rnn.py", "lineno": 465}
    assert list(_library_nodes(ctx, "0", loc)) == [[user, {"filename": lib, "lineno": 465}]]
    assert list(_library_nodes(ctx, "0", {"filename": "nn/utils/rnn.py", "lineno": 7})) == []
    assert list(_library_nodes(ctx, "0", None)) == []


def test_a_size_tied_to_a_number_folds_under_that_numbers_recompile():
    """probes32b clip_loss_label_cache: `labels = torch.arange(num_logits)` cached on
    `self.prev_num_logits`; the limit on self.prev_num_logits was #1 and the size it tied
    (text_features.shape[0]) a second problem at `self.prev_num_logits = 0` in __init__."""
    from compdiag.analyses.diagnoses.recompiles import _tied_to

    def diag(cid, guard, tied=None):
        return SimpleNamespace(compile_id=cid, details=SimpleNamespace(guard=guard,
                                                                       tied_to=tied))

    limit = diag("0/8", "L['self'].prev_num_logits")
    size = diag("0/2", "L['text_features'].size()[0]", tied="self.prev_num_logits")
    assert _tied_to(size, limit, None)
    assert not _tied_to(size, diag("1/3", "L['self'].prev_num_logits"), None)  # another frame
    assert not _tied_to(limit, size, None) and not _tied_to(size, size, None)


def test_a_size_that_sets_a_loops_trip_count_is_said_as_the_loop_at_its_line(tmp_path):
    """probes32e anchor_grid_loop: `for y in range(feat_h):` (feat_h from the image size)
    recompiled per image size; explain said the function "branches in Python on" the size,
    at the call, with a torch.where fix. torch's guard ties it to the loop's line."""
    s = Store(tmp_path)
    s.user.write_text(s.user.read_text().replace("line_12 = 12\n",
                                                 "for y in range(feat_h):\n"))
    s.compile("0/0", co_name="forward", lineno=10)
    for i, n in enumerate((16, 20, 12), 1):
        s.compile(f"0/{i}", co_name="forward", lineno=10,
                  recompile_reason=f"0/{i - 1}: (1 + (((-1) + images.size()[2]) // 8)) == {n}"
                                   f"  # for y in range(feat_h):  # {s.user}:12 in make_anchors")
    (d,) = [d for d in s.explain() if d["kind"] == "recompile"]
    assert d["user_frame"]["lineno"] == 12, d["user_frame"]
    assert "a Python loop's trip count" in d["reason"] and "range(feat_h)" in d["reason"], d
    assert "torch.arange" in d["fix"] and "torch.where" not in d["fix"], d["fix"]
