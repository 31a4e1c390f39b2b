"""pytorch/pytorch#58093 ("TrilinearBackward takes 98.4% of total computational time, is this
to be expected?", open: "If I use torch.nn.Bilinear it is very slow ... If I implement the
operation myself I get a roughly 3.5x speedup. This is on a GPU.") and the Inductor
missing-ops tracker #93757: nn.Bilinear is aten._trilinear, which Inductor has no lowering or
decomposition for and runs as an eager ATen fallback kernel in the compiled graph
("Using FallbackKernel: torch.ops.aten._trilinear.default", Inductor's perf hint, once per
graph), so the relation scorer's bilinear form is neither fused nor generated; its backward is
_trilinear calls again. The rest of the graph (tanh, the head) is Triton. The program exits 0.

Why it should reproduce on torch 2.11: by design. make_fallback(aten._trilinear) is in
Inductor's lowering.py of the 2.13 wheel (make_fallback refuses ops that have a decomposition, so
none exists), unchanged since Inductor's first fallback list; #58093 is open. TF32 is enabled so
that torch's TF32 hint for the fp32 matmuls plays no part. A CPU run on torch 2.13 (cuda replaced
by cpu) logs the same FallbackKernel hint for the graph, one compile, no graph break."""
import torch

torch.set_float32_matmul_precision("high")


class RelationScorer(torch.nn.Module):
    def __init__(self, d=128, r=64):
        super().__init__()
        self.rel = torch.nn.Bilinear(d, d, r)
        self.head = torch.nn.Linear(r, 1)

    def forward(self, a, b):
        s = self.rel(a, b)
        return self.head(torch.tanh(s)).squeeze(-1)


torch.manual_seed(0)
model = RelationScorer().cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
score = torch.compile(model)
for _ in range(5):
    a = torch.randn(512, 128, device="cuda")
    b = torch.randn(512, 128, device="cuda")
    target = torch.rand(512, device="cuda")
    loss = torch.nn.functional.binary_cross_entropy_with_logits(score(a, b), target)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print(loss.item())
