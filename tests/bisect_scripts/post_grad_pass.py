"""A custom post-grad pass changes a constant: CompilerBisector blames inductor /
post_grad_passes (the pass named post_grad_custom_post_pass)."""
import sys

import torch
from torch._inductor import config
from torch._inductor.custom_graph_pass import CustomGraphPass


class CustomPostGradPass(CustomGraphPass):
    def __call__(self, graph: torch.fx.Graph):
        (node,) = graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor)
        node.args = (node.args[0], 2)

    def uuid(self):
        return "compdiag-bisect-post-grad"


def foo(x):
    return x + 1


config.post_grad_custom_post_pass = CustomPostGradPass()
inp = torch.rand([10])
sys.exit(0 if torch.allclose(foo(inp), torch.compile(foo)(inp)) else 1)
