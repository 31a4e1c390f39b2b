"""PR #161925 ("[dynamo] Graph break on torch.cuda.synchronize",
https://github.com/pytorch/pytorch/pull/161925) and PR #178217 ("Add synchronize_device custom op
for torch.compile", https://github.com/pytorch/pytorch/pull/178217, whose description reads
"torch.cuda.synchronize() currently causes a graph break in torch.compile because torch.cuda is in
MOD_SKIPLIST"): a `torch.cuda.synchronize()` left inside a model's forward (here after the encoder,
put there while chasing an asynchronous CUDA error) splits the compiled forward in two graphs on
every call. The program runs and prints; the cost is the graph break, which nothing prints
without TORCH_LOGS=graph_breaks.

Why it should reproduce on torch 2.11: the graph break was added in #161925 (Sept 2025, before
the 2.10 and 2.11 branch cuts); the in-graph op that removes it came with #178217 (March 2026),
which the torch 2.13 wheel has (torch/_dynamo/variables/torch.py handle_synchronize) and 2.11
should not. Not CPU-checkable: on the CPU the call is another function (torch.cpu.synchronize,
a no-op)."""
import torch

torch.manual_seed(0)


class Denoiser(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(
            torch.nn.Conv1d(8, 32, 5, padding=2), torch.nn.GELU(),
            torch.nn.Conv1d(32, 32, 5, padding=2), torch.nn.GELU(),
        )
        self.decoder = torch.nn.Conv1d(32, 8, 5, padding=2)

    def forward(self, x):
        h = self.encoder(x)
        torch.cuda.synchronize()
        return x - self.decoder(h)


model = Denoiser().cuda()
compiled = torch.compile(model)
signal = torch.randn(16, 8, 512, device="cuda")
with torch.no_grad():
    for step in range(3):
        out = compiled(signal + 0.1 * torch.randn_like(signal))
print("residual", round((out - signal).abs().mean().item(), 4))
