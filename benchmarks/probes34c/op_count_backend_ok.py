"""Count what torch.compile captures in a small GRU-free sequence model's
training step, with a custom backend that records each graph's op count and
then runs the graph unchanged."""
import collections
import torch
import torch.nn as nn

graph_ops = []


def counting_backend(gm: torch.fx.GraphModule, example_inputs):
    ops = collections.Counter(
        str(n.target) for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")
    )
    graph_ops.append(sum(ops.values()))
    return gm.forward


class ConvTagger(nn.Module):
    def __init__(self, vocab=300, dim=32, tags=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim, dim, 5, padding=2)
        self.out = nn.Linear(dim, tags)

    def forward(self, tokens):
        h = self.emb(tokens).transpose(1, 2)
        h = torch.relu(self.conv(h)).transpose(1, 2)
        return self.out(h)


torch.manual_seed(0)
model = ConvTagger()
step_model = torch.compile(model, backend=counting_backend)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
tokens = torch.randint(0, 300, (8, 40))
tags = tokens % 6
for step in range(5):
    logits = step_model(tokens)
    loss = nn.functional.cross_entropy(logits.reshape(-1, 6), tags.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
print(f"{len(graph_ops)} graph(s) captured, op counts {graph_ops}")
