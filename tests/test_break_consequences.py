"""A graph break on the value an earlier break's call produced is that break's consequence,
and a graph break's fix never tells the user to change fullgraph, which a break shows was
off (issue 29 §2; set4's sparse_coo_break after pytorch#118856)."""

from __future__ import annotations

from pathlib import Path

from compdiag.analyses.diagnoses.graph_breaks import without_unset_options
from compdiag.formats.code_text import assigned_names, drawn_from, read_names
from test_explain import SKIPPED_FRAME, Store, _ids

SRC = """import torch


@torch.compile
def step(i, v, dense):
    s = torch.sparse_coo_tensor(i, v, torch.Size([2, 3]))
    return (s.to_dense() * 2 + dense).sum()
"""
SPARSE_HINT = ("Sparse tensor operations are not yet fully supported in torch.compile with "
               "fullgraph=True. Consider using fullgraph=False to allow graph breaks, or move "
               "sparse tensor creation outside the compiled region.")


def _break(user: Path, line: int, code: str, gb_type: str, gb_code: str, hint: str,
           skipped: bool = False) -> str:
    why = SKIPPED_FRAME if skipped else "Encountered graph break when attempting to trace CALL:"
    return (f"Graph break in user code at {user}:{line}\nGraph Break Reason: {why}\n\n"
            f"{gb_type}\n  Explanation: it cannot be traced\n  Hint: {hint}\n\n"
            "  Developer debug context: \n\n For more details about this graph break, please "
            f"visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/"
            f"{gb_code.lower()}.html\n\nUser code traceback:\n"
            f'  File "{user}", line {line}, in step\n    {code}\n')


def test_a_break_on_the_value_an_earlier_breaks_call_returned_is_folded_under_it(
        tmp_path: Path) -> None:
    """Before: the sparse-wrap break at line 7 (frame skipped) ranked first, with the fix
    "Consider using fullgraph=False" for a script that never set fullgraph; the break at
    line 6 that made `s` ranked second."""
    s = Store(tmp_path)
    s.user.write_text(SRC)
    s.compile("0/0", co_name="step", lineno=4)
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _break(s.user, 6, "s = torch.sparse_coo_tensor(i, v, torch.Size([2, 3]))",
                        "Attempted to call function marked as skipped", "GB0007",
                        "If it is a third-party C/C++ Python extension, wrap it."))
    s.compile("1/0", co_name="torch_dynamo_resume_in_step_at_6", lineno=6)
    s.ing.record({**_ids("1/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _break(s.user, 7, "return (s.to_dense() * 2 + dense).sum()",
                        "Attempted to wrap sparse Tensor", "GB0015", SPARSE_HINT,
                        skipped=True))
    ds = s.explain()
    top = ds[0]
    assert top["kind"] == "graph_break" and top["user_frame"]["lineno"] == 6
    (under,) = [c for c in top["consequences"] if c["kind"] == "graph_break"]
    assert under["user_frame"]["lineno"] == 7
    assert not [d for d in ds[1:] if d["kind"] == "graph_break"]


def test_a_graph_break_fix_keeps_only_the_hints_alternatives_without_fullgraph() -> None:
    assert without_unset_options([SPARSE_HINT]) == [
        "Move sparse tensor creation outside the compiled region."]
    assert without_unset_options(["Use fullgraph=False."]) == []
    assert without_unset_options(["Call it outside."]) == ["Call it outside."]


def test_names_a_line_assigns_and_reads() -> None:
    assert assigned_names("s = torch.sparse_coo_tensor(i, v)") == {"s"}
    assert assigned_names("a, (b, c) = f(x)") == {"a", "b", "c"}
    assert read_names("return (s.to_dense() * 2 + dense).sum()") == {"s", "dense"}
    assert "y" in read_names("with f(y) as z:")
    assert drawn_from("top = random.randint(0, h - crop)", "random") == ({"top"},
                                                                         "random.randint")
    assert drawn_from("a, b = random.random(), 3", "random") == ({"a", "b"}, "random.random")
    assert drawn_from("top = rng.randint(0, h)", "random") is None
    assert drawn_from("random.shuffle(items)", "random") is None


def test_a_resume_functions_requires_grad_recompile_folds_under_its_break(tmp_path):
    """probes33g gnn_mean_aggr: two GCN layers share a forward that breaks on `int(...)` at line
    14; its resume function is the first code to read `x`, a leaf in layer 1 and an activation
    in layer 2, and recompiled on requires_grad: a second problem with a no_grad fix, gone
    once the break is."""
    from test_explain import Store

    s = Store(tmp_path)
    s.compile("0/0", co_name="forward", lineno=12)
    s.graph_break("0/0", 14, gb_type="Unsupported Tensor.item() call with "
                  "capture_scalar_outputs=False", code="GB0124")
    s.compile("1/0", co_name="torch_dynamo_resume_in_forward_at_14", lineno=14)
    s.compile("1/1", co_name="torch_dynamo_resume_in_forward_at_14", lineno=14,
              recompile_reason="1/0: tensor 'x' requires_grad mismatch. expected "
                               "requires_grad=0")
    problems = [d for d in s.explain() if d["severity"] == "problem"]
    assert [d["kind"] for d in problems] == ["graph_break"], problems


# corpus/gb_context_manager_init_print.py: Section.__init__ prints (line 10); `with Section(...)`
# at line 21 of step()
CM_SRC = (Path(__file__).resolve().parent.parent / "corpus" /
          "gb_context_manager_init_print.py").read_text()


def test_a_context_manager_built_in_eager_is_the_consequence_of_its_constructors_break(
        tmp_path: Path) -> None:
    """probes43a ctx_section_init_print_skip (pytorch#191523), blind: `with Section(...)`
    whose __init__ prints. The print's break (line 10) ran the constructor in eager, and
    Dynamo then refused to enter the object (GB0142 at the `with` line 21), said as a second
    problem with its own fix, though guarding the print removed both. Now folded under it."""
    s = Store(tmp_path)
    s.user.write_text(CM_SRC)
    s.compile("0/0", co_name="step", lineno=19)
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _break(s.user, 10, 'print("section", name)', "Failed to trace builtin operator",
                        "GB0059", "Avoid calling builtin `print`."))
    s.compile("1/0", co_name="torch_dynamo_resume_in_step_at_21", lineno=21)
    s.ing.record({**_ids("1/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _break(s.user, 21, 'with Section("mm"):', "Unsupported context manager",
                        "GB0142", "Avoid using the unsupported context manager."))
    ds = s.explain()
    assert ds[0]["kind"] == "graph_break" and ds[0]["user_frame"]["lineno"] == 10, ds[0]
    (under,) = [c for c in ds[0]["consequences"] if c["kind"] == "graph_break"]
    assert under["user_frame"]["lineno"] == 21 and "constructor" in under["why"]
    assert not [d for d in ds[1:] if d["kind"] == "graph_break"]


def test_a_context_manager_made_by_a_call_that_broke_at_the_with_line_is_its_consequence(
        tmp_path: Path) -> None:
    """probes45a mkldnn_flags_conv_eval, blind: `with torch.backends.mkldnn.flags(enabled=
    False):` in a forward. The call broke first (GB0208, a torch function returning a context
    manager, compile 0/0), the resume function at the same line could not enter the object
    made in eager (GB0142), and the second was ranked first, above the break that caused it."""
    s = Store(tmp_path)
    s.compile("0/0", co_name="forward", lineno=17)
    line = "with torch.backends.mkldnn.flags(enabled=False):"
    s.ing.record({**_ids("0/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _break(s.user, 18, line, "torch.* op returned non-Tensor", "GB0208",
                        "Avoid it."))
    s.compile("1/0", co_name="torch_dynamo_resume_in_forward_at_18", lineno=18)
    s.ing.record({**_ids("1/0"), "artifact": {"name": "dynamo_graph_break_reason",
                                              "encoding": "string"}},
                 _break(s.user, 18, line, "Unsupported context manager", "GB0142",
                        "Avoid using the unsupported context manager."))
    ds = s.explain()
    breaks = [d for d in ds if d["kind"] == "graph_break"]
    assert len(breaks) == 1 and "non-Tensor" in breaks[0]["reason"], breaks
    (under,) = [c for c in breaks[0]["consequences"] if c["kind"] == "graph_break"]
    assert "Unsupported context manager" in under["reason"], under
