"""A custom op that writes into an input its schema does not declare (issue 29 §4): measured by
running the failed graph op by op in eager. set11/gpu's custom_op_undeclared_mutation
(pytorch#129372, #187319): Inductor dropped the op, and before this change the accuracy
diagnosis pointed at the `x + 1` after it ("first divergent node add"), never at the op or
its missing mutates_args."""

from __future__ import annotations

import torch
import torch.fx

from compdiag.capture import undeclared_mutation
from test_explain import Store


@torch.library.custom_op("cdtest_um::scale_", mutates_args=())
def _scale_(x: torch.Tensor) -> None:
    x.mul_(2)


@torch.library.custom_op("cdtest_um::scaled", mutates_args=())
def _scaled(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@torch.library.custom_op("cdtest_um::scale_declared_", mutates_args=("x",))
def _scale_declared_(x: torch.Tensor) -> None:
    x.mul_(2)


def _graph(op) -> torch.fx.GraphModule:
    g = torch.fx.Graph()
    x = g.placeholder("x")
    g.call_function(op, (x,))
    g.output(g.call_function(torch.ops.aten.add.Tensor, (x, 1)))
    return torch.fx.GraphModule(torch.nn.Module(), g)


def test_the_op_that_wrote_into_its_input_is_found():
    gm = _graph(torch.ops.cdtest_um.scale_.default)
    node = undeclared_mutation.find(gm, [torch.ones(3)])
    assert node is not None and node.target is torch.ops.cdtest_um.scale_.default


def test_a_pure_op_and_a_declared_mutation_are_not_blamed():
    assert undeclared_mutation.find(_graph(torch.ops.cdtest_um.scaled.default),
                                    [torch.ones(3)]) is None
    assert undeclared_mutation.find(_graph(torch.ops.cdtest_um.scale_declared_.default),
                                    [torch.ones(3)]) is None


def test_the_accuracy_diagnosis_names_the_op_and_its_fix(tmp_path):
    s = Store(tmp_path, exit_code=0)
    s.compile("0/0")
    frame = {"filename": str(s.user), "lineno": 26, "line": "line_26 = 26"}
    s.accuracy("0/0", [("output 0", False, 1.0, 0.333, {
        "verdict": "miscompile", "fp64": {"eager_rel": 0.0, "compiled_rel": 0.333},
        "divergent_node": {"node": "scale__default", "op": "cdtest_um::scale_",
                           "user_frame": frame, "undeclared_mutation": True}})])
    top = s.explain()[0]
    assert top["kind"] == "accuracy" and top["user_frame"]["lineno"] == 26, top
    assert "mutates_args" in top["reason"] and "mutates_args=" in top["fix"]


def test_a_schemas_declared_writes_are_read_one_way_for_capture_and_minify() -> None:
    """capture's localiser and undeclared-mutation check and minify's stand-in custom op read
    a schema's writes through one helper (formats/op_schema.py): minify's `mutates_args` for
    a recorded schema are the arguments marked `(a!)`, in order."""
    import torch
    from compdiag.formats.op_schema import declared_write_names, declared_writes

    schema = torch._C.parse_schema(
        "lib::op(Tensor(a!) out, Tensor x, Tensor(b!) buf, float alpha) -> ()")
    assert declared_writes(schema) == [0, 2]
    assert declared_write_names(schema) == ["out", "buf"]
    assert declared_write_names(torch._C.parse_schema("lib::pure(Tensor x) -> Tensor")) == []
