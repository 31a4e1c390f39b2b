"""A data-dependent branch that is an `assert` on a tensor. probes32d tabular_category_check:
`assert (ids < emb.num_embeddings).all(), ...` broke the graph; explain said "Data-dependent
branching" with the `if` fix (torch.where / torch.cond), neither of which an assert can use;
`torch._assert_async` gave 0 breaks."""

from __future__ import annotations

from compdiag.analyses.fixes import graph_break_fix
from test_explain import Store, _gb_payload, _ids

LINE = "assert (ids < emb.num_embeddings).all(), f\"unseen category in column {col}\""
GB = "Data-dependent branching"


def test_an_assert_gets_the_in_graph_check_not_the_if_fix():
    fix = graph_break_fix(GB, "", "", LINE, [])
    assert "torch._assert_async" in fix and "torch.where" not in fix, fix
    assert "torch.where" in graph_break_fix(GB, "", "", "if x.sum() > 0:", [])


def test_the_reason_says_it_is_an_assert(tmp_path):
    s = Store(tmp_path)
    s.compile("0/0")
    s.user.write_text(s.user.read_text().replace("line_22 = 22\n", LINE + "\n"))
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _gb_payload(str(s.user), 22, LINE, gb_type=GB, code_id="GB0170"))
    (d,) = [d for d in s.explain() if d["kind"] == "graph_break"]
    assert "in an `assert` on a tensor's value" in d["reason"], d["reason"]
    assert "torch._assert_async" in d["fix"]


def test_a_value_read_to_decide_a_branch_gets_no_capture_setting_fix():
    """probes32a glow_actnorm_init: `if self.initialized.item() == 0:` got "set
    capture_scalar_outputs = True", after which the `if` on the read broke the graph anyway."""
    gb = "Unsupported Tensor.item() call with capture_scalar_outputs=False"
    fix = graph_break_fix(gb, "", "", "if self.initialized.item() == 0:", [])
    assert "decides a Python branch" in fix and "to trace it as" not in fix, fix
    assert "capture_scalar_outputs = True` to trace" in graph_break_fix(
        gb, "", "", "scale = s.item()", [])


def test_a_read_without_a_named_call_is_said_in_the_users_terms():
    """probes32g adaptive_step_minmax (`min(4.0 * h, max(0.2 * h, ... / err))`) and probes32e
    split_per_image (`boxes[best]`, `best` a 0-d tensor): torch said only
    "aten._local_scalar_dense"; the reason names Python's min/max or the index, and min/max
    get torch.clamp."""
    from compdiag.analyses.scalar_reads import implicit_read

    ctx = "aten._local_scalar_dense.default"
    line = "h_next = min(4.0 * h, max(0.2 * h, 0.9 * h * (tol / err) ** 0.5))"
    assert implicit_read(ctx, line) == "Python's `min(...)`, `max(...)` on a tensor"
    assert implicit_read(ctx, "out.append((boxes[best], s[best]))") == (
        "an index by a tensor's value (`boxes[best]`, `s[best]`)")
    assert implicit_read(ctx, "if x[i] > 0:") == "an index by a tensor's value (`x[i]`)"
    assert implicit_read(ctx, "v = t.item()") is None  # scalar_read names it
    assert implicit_read("builtin print", line) is None
    gb = "Data dependent operator"
    assert "torch.clamp" in graph_break_fix(gb, "", ctx, line, [])


def test_dynamos_own_item_call_for_a_slice_bound_names_the_slice():
    """probes33d viterbi_length_slice: `backpointers[: lengths[b] - 1]` (a list sliced by a
    tensor's value) broke with "Unsupported Tensor.item() call", a call the user never wrote;
    the reason names the slice."""
    from compdiag.analyses.scalar_reads import implicit_read

    gb = "Unsupported Tensor.item() call with capture_scalar_outputs=False"
    line = "for bp in reversed(backpointers[: lengths[b] - 1]):"
    assert implicit_read(gb, line) == (
        "a slice bound from a tensor's value (`backpointers[:lengths[b] - 1]`)")
    assert implicit_read(gb, "path = x[:-1]") is None  # a constant bound reads nothing
    assert implicit_read(gb, "n = lengths[b].item()") is None  # the user's own call
    # one dimension of several (probes34b bigru_reverse_lengths: `n = lengths[b]`, a 0-d
    # tensor, then `out[b, :n] = x[b, :n].flip(0)`, said as the `.item()` call alone)
    assert implicit_read(gb, "out[b, :n] = x[b, :n].flip(0)") == (
        "a slice bound from a tensor's value (`out[b, :n]`, `x[b, :n]`)")
    assert implicit_read(gb, "y = x[0, 1:3]") is None


def test_a_size_taking_op_given_a_tensor_is_named():
    """probes33g offsets_segment_mean: `torch.tensor_split(emb, offsets[:-1])` broke on
    aten._local_scalar_dense, the op never named."""
    from compdiag.analyses.scalar_reads import implicit_read

    ctx = "aten._local_scalar_dense.default"
    assert implicit_read(ctx, "sessions = torch.tensor_split(emb, offsets[:-1])") == (
        "`torch.tensor_split(...)` given a tensor where it takes Python numbers (sizes, split "
        "points, bounds)")
    assert implicit_read(ctx, "parts = x.split(lengths)").startswith("`x.split(...)`")
    assert implicit_read(ctx, "y = torch.tensor_split(emb, 4)") is None


def test_a_scripted_module_in_compiled_code_gets_the_plain_module_fix():
    """probes34b jit_scripted_cell and probes34a scripted_rope_fullgraph: a ScriptModule
    called in compiled code; the fix was torch's hint "This graph break is fundamental ...
    Consider finding a workaround". The plain module is the workaround (0 breaks, same
    output)."""
    fix = graph_break_fix("torch.jit.script/freeze modules unsupported", "", "", "h = cell(x)",
                          ["This graph break is fundamental - it is unlikely that Dynamo will "
                           "ever be able to trace through your code."])
    assert fix.startswith("Use the plain nn.Module inside the compiled function"), fix
