"""A custom pre-grad pass changes a constant: CompilerBisector blames inductor / pre_grad_passes
(the pass named pre_grad_custom_pass)."""
import operator
import sys

import torch
from torch._inductor import config
from torch._inductor.custom_graph_pass import CustomGraphPass


class CustomPrePass(CustomGraphPass):
    def __call__(self, graph: torch.fx.Graph):
        (node,) = graph.find_nodes(op="call_function", target=operator.add)
        node.args = (node.args[0], 2)

    def uuid(self):
        return "compdiag-bisect-pre-grad"


def foo(x):
    return x + 1


config.pre_grad_custom_pass = CustomPrePass()
inp = torch.rand([10])
sys.exit(0 if torch.allclose(foo(inp), torch.compile(foo)(inp)) else 1)
