"""A custom joint-graph pass changes a constant: CompilerBisector blames inductor /
joint_graph_passes (the pass named joint_custom_post_pass)."""
import sys

import torch
from torch._inductor import config
from torch._inductor.custom_graph_pass import CustomGraphPass


class CustomJointPass(CustomGraphPass):
    def __call__(self, graph: torch.fx.Graph):
        (node,) = graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor)
        node.args = (node.args[0], 2)

    def uuid(self):
        return "compdiag-bisect-joint"


def foo(x):
    return x + 1


config.joint_custom_post_pass = CustomJointPass()
inp = torch.rand([10])
sys.exit(0 if torch.allclose(foo(inp), torch.compile(foo)(inp)) else 1)
