"""Prototypical-network episode (few-shot classification), compiled with fullgraph.

Correct cousin of protonet_episode_unique_nway_fullgraph.py: the episode
sampler already knows n_way, so it is passed in as a plain int.

The episode loss infers n_way from the support labels with
`labels.unique().numel()` and builds class prototypes through a one-hot
matrix, as in several public ProtoNet re-implementations.  Dynamo first
refused `unique` (dynamic-shape operator), so the script turned on
capture_dynamic_output_shape_ops as the error hint says; the count is now
an unbacked symbol that F.one_hot needs as a plain int.
Cf. pytorch/pytorch issues on "Could not extract specialized integer from
data-dependent expression" and test/test_dynamic_shapes.py unbacked tests.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch._dynamo.config.capture_dynamic_output_shape_ops = True


class Embed(nn.Module):
    def __init__(self, d_in=20, d=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, d))

    def forward(self, x):
        return self.net(x)


def episode_loss(model, support, s_labels, query, q_labels, n_way: int):
    onehot = F.one_hot(s_labels, n_way).float()          # (n_support, n_way)
    emb_s = model(support)
    protos = (onehot.t() @ emb_s) / onehot.sum(0)[:, None]
    logits = -torch.cdist(model(query), protos)
    return F.cross_entropy(logits, q_labels)


def sample_episode(g, n_way=5, k_shot=3, n_query=4, d_in=20):
    centers = torch.randn(n_way, d_in, generator=g) * 2
    s_labels = torch.arange(n_way).repeat_interleave(k_shot)
    q_labels = torch.arange(n_way).repeat_interleave(n_query)
    support = centers[s_labels] + torch.randn(len(s_labels), d_in, generator=g)
    query = centers[q_labels] + torch.randn(len(q_labels), d_in, generator=g)
    return support, s_labels, query, q_labels


def main():
    torch.manual_seed(0)
    model = Embed()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    step = torch.compile(episode_loss, fullgraph=True)
    g = torch.Generator().manual_seed(4)
    for ep in range(4):
        loss = step(model, *sample_episode(g), 5)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"episode {ep}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
