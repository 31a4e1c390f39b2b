"""pytorch/pytorch PR #113791 ("Skip cudagraphs when there is sparsity", "Fix for dlrm
training"): an nn.Embedding with sparse=True makes its weight gradient a sparse COO tensor; the
compiled backward graph's fallback kernel returns it, and CUDA graphs cannot hold sparse
outputs, so reduce-overhead skips CUDA graphs for the backward: "skipping cudagraphs due to
sparsity not handled. Please file issue for sparse inference weights. Found from" the
embedding's line. Should reproduce on torch 2.11: the check is in Inductor's FallbackKernel since
the PR (2023; the 2.13 wheel's ir.py), skipped only when graph partitioning is on (pinned off
here, as partitioning would split around the op instead); a CPU run on torch 2.13 sets exactly
this reason on the backward graph, "Found from" `self.emb(ids)`."""
import torch

torch._inductor.config.graph_partition = False  # the whole-graph decision: skipped, not split


class Recommender(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10000, 64, sparse=True)
        self.head = torch.nn.Linear(64, 1)

    def forward(self, ids):
        h = self.emb(ids).mean(dim=1)
        return self.head(h).squeeze(-1)


model = Recommender().cuda()
sparse_opt = torch.optim.SparseAdam(model.emb.parameters(), lr=1e-2)
dense_opt = torch.optim.Adam(model.head.parameters(), lr=1e-2)
step = torch.compile(model, mode="reduce-overhead")
for _ in range(4):
    ids = torch.randint(0, 10000, (128, 16), device="cuda")
    loss = (step(ids) - 1.0).pow(2).mean()
    loss.backward()
    sparse_opt.step()
    dense_opt.step()
    sparse_opt.zero_grad()
    dense_opt.zero_grad()
torch.cuda.synchronize()
print(model.emb.weight.grad is None, loss.item())
