# Child-Sum Tree-LSTM style encoder (Tai et al. 2015), written recursively over a
# Python tree of nodes. Parse trees of long right-branching sentences are deep chains.
import torch
import torch.nn as nn

torch.manual_seed(0)
V, D = 20, 8


class Node:
    def __init__(self, tok, kids=()):
        self.tok = tok
        self.kids = list(kids)


class ChildSumCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.W = nn.Linear(2 * D, D)

    @torch.compiler.disable
    def forward(self, node):
        h = torch.zeros(D)
        for kid in node.kids:
            h = h + self(kid)
        return torch.tanh(self.W(torch.cat([self.emb.weight[node.tok], h])))


def right_branching(n_tokens):
    t = Node(0)
    for i in range(1, n_tokens):
        t = Node(i % V, [t])
    return t


model = ChildSumCell()
encoder = torch.compile(model)
with torch.no_grad():
    for n in [6, 160]:
        tree = right_branching(n)
        print(f"eager    len {n}: {model(tree).sum().item():.4f}")
        print(f"compiled len {n}: {encoder(tree).sum().item():.4f}")
