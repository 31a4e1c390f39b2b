"""A GRU-cell encoder over padded CUDA batches, compiled, with
torch._dynamo.config.capture_scalar_outputs = True so that the per-batch length
int(lengths.max().item()) no longer breaks the graph. It does not help: the captured value is an
unbacked SymInt, and `for t in range(n)` needs a concrete Python int to unroll the loop, so
Dynamo still breaks there ("Could not extract specialized integer from data-dependent
expression u0") and syncs with the host every call; the loop runs in a resume function, traced
again for every new n. The fix: loop over the padded length T (a static size) and mask the
steps past each sequence's end with torch.where, or run the loop eagerly and compile the cell."""
import torch
import torch.nn as nn

device = "cuda"
torch.manual_seed(0)
torch._dynamo.config.capture_scalar_outputs = True
B, T, D, H = 32, 12, 64, 128
cell = nn.GRUCell(D, H).to(device)
head = nn.Linear(H, 4).to(device)


@torch.compile
def encode(x, lengths):
    n = int(lengths.max().item())
    h = x.new_zeros(x.shape[0], H)
    for t in range(n):
        h_new = cell(x[:, t], h)
        h = torch.where((t < lengths)[:, None], h_new, h)
    return head(h)


xs = torch.randn(4, B, T, D, device=device)
lens = torch.stack([torch.randint(2, T - k, (B,)) for k in range(4)]).to(device)
with torch.no_grad():
    for step in range(8):
        out = encode(xs[step % 4], lens[step % 4])
        if step % 4 == 3:
            print(f"step {step + 1}: max len {int(lens[step % 4].max())} out {out.sum().item():.3f}")
