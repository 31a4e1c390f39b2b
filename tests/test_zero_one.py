"""Sizes 0 and 1 that keep a function recompiling to its limit are one cause, at the line that
used the size (analyses/zero_one.py). probes32e pad_gt_boxes (a list of 0-5 boxes per image):
before this test the limit was put on `gt_boxes_per_image[3]` at the call (line 33) with a
mark_dynamic fix that left 7 recompiles, and the 0/1 range guard at line 12 was a second
panel."""

from __future__ import annotations

from compdiag.analyses.zero_one import zero_one_limits
from test_explain import Store, _ids

RANGE = ("2 <= boxes[0].size()[0] <= 20  # line_12 = 12  # {f}:12 in pad "
         "(user code shown is first use of this value--the guard itself is not due user code "
         "but due to 0/1 specialization in the framework) and line_12 = 12  # {f}:12 in pad "
         "(_subclasses/fake_impls.py:1344 in _compute_slice_index)")


def _tree(sizes: dict[int, int]) -> str:
    """A guard tree matching each boxes[i] with a static size (TENSOR_MATCH, torch 2.13)."""
    return "TREE_GUARD_MANAGER:\n+- RootGuardManager\n" + "".join(
        f"| +- TENSOR_MATCH: check_tensor(L['boxes'][{i}], Tensor, DispatchKeySet(CPU), "
        f"torch.float32, device=None, requires_grad=False, size=[{n}, 4], stride=[4, 1])\n"
        for i, n in sizes.items())


def _size(i: int, was: int, now: int) -> str:
    return f"tensor 'boxes[{i}]' size mismatch at index 0. expected {was}, actual {now}"


def test_zero_one_sizes_at_the_limit_are_one_cause_at_the_line_that_used_them(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0", co_name="set_loss", lineno=17)
    reasons = [_size(1, 2, 5), _size(0, 1, 5), RANGE.format(f=s.user), _size(0, 0, 3),
               _size(3, 0, 1), _size(3, 0, 3), _size(0, 1, 4), _size(3, 1, 5)]
    for i, reason in enumerate(reasons, 1):
        s.compile(f"0/{i}", co_name="set_loss", lineno=17, recompile_reason=f"0/{i - 1}: {reason}")
        if i == 3:  # the entry compiled for boxes[0] of size 0
            s.ing.record({**_ids("0/3"), "dynamo_cpp_guards_str": {}}, _tree({0: 0, 3: 0}))
    s.failure("0/8", stage="dynamo", exc_type="Unsupported",
              message="Dynamo recompile limit exceeded",
              traceback="Dynamo recompile limit exceeded\n  Explanation: too many.\n")
    problems = [d for d in s.explain() if d["severity"] == "problem"]
    top = problems[0]
    assert top["details"]["limit_hit"] and top["details"]["category"] == "size_range", top
    assert top["user_frame"]["lineno"] == 12, top["user_frame"]
    assert "sizes 0 and 1" in top["reason"] and "mark_unbacked" in top["fix"], top
    # the 0/1 graphs' static guards (boxes[0] before 0 or 1, boxes[3]) are counted under it,
    # and boxes[3], torch's other tensor, is named in the fix
    assert top["count"] == 7 and "boxes[3]" in top["fix"], (top["count"], top["fix"])
    # the first size change (2 -> 5, automatic dynamic's) is no 0/1 graph's: its own finding
    assert not any(d["details"].get("limit_hit") for d in problems[1:])


def test_only_sizes_that_were_all_zero_or_one_follow():
    groups = {(0, "size_range", "a"): [{"before": "2..9"}],
              (0, "size", "a"): [{"before": "1"}, {"before": "0"}],
              (0, "size", "b"): [{"before": "0"}, {"before": "3"}],
              (1, "size_range", "c"): [{"before": "2..9"}]}
    after = {(0, "size_range", "a"): "0", (1, "size_range", "c"): "5"}
    got = zero_one_limits(groups, {0: {}, 1: {}}, lambda k, e: after[k])
    assert got == {0: ((0, "size_range", "a"), ((0, "size", "a"),))}
    # no limit, no fold: a function below its limit keeps each finding
    assert zero_one_limits(groups, {}, lambda k, e: after[k]) == {}


def test_without_a_range_guard_several_sizes_failing_their_0_1_graphs_are_one_cause():
    """corpus rc_zero_one_list (pytorch/pytorch#136605): every failure torch reports is a 0/1
    graph's static guard ("expected 0, actual 3"), on three list items; the dynamic graph's
    range guard never fails first."""
    ev = lambda *bs: [{"before": str(b)} for b in bs]  # noqa: E731
    groups = {(0, "size", "a"): ev(2, 1, 1, 0, 1, 0), (0, "size", "b"): ev(0),
              (0, "size", "c"): ev(1), (0, "size", "d"): ev(5, 7)}
    got = zero_one_limits(groups, {0: {}}, lambda k, e: None)
    assert got == {0: ((0, "size", "a"), ((0, "size", "b"), (0, "size", "c")))}
    # one size alone is the size's own recompile, not 0/1 specialisation's combinations
    assert zero_one_limits({(0, "size", "a"): ev(0, 1, 0)}, {0: {}}, lambda k, e: None) == {}
