"""pytorch/torchdynamo#1169 ("Disable cudagraph when _fused_moving_avg_obs_fq_helper exists",
for torchdynamo#1149) and the Inductor missing-ops tracker pytorch/pytorch#93757, which lists
aten._fused_moving_avg_obs_fq_helper among the ops Inductor runs as an eager fallback kernel: a
quantization-aware-training layer that calls torch.fused_moving_avg_obs_fake_quant (the fused
observer + fake-quantize op behind FusedMovingAvgObsFakeQuantize, which updates its running
min/max, scale and zero point in place) is compiled with mode="reduce-overhead". Inductor keeps
the op as a FallbackKernel ("Using FallbackKernel: ...fq_helper_functional") and refuses CUDA
graphs for the whole graph: "skipping cudagraphs due to disabling cudagraphs due to incompatible
op aten._fused_moving_avg_obs_fq_helper_functional.default Found from" the fake-quant line. The
program runs on without CUDA graphs and exits 0. The layer calls the op itself because Dynamo
skips torch.ao's own FakeQuantize modules (a graph break: torch/ao is in MOD_SKIPLIST).

Why it should reproduce on torch 2.11: by design since 2022. The op is in Inductor's forbidden
set (utils.FORBIDDEN_CUDAGRAPH_OPS in the 2.13 wheel, the same names since #1169), and
compile_fx sets the skip reason with the node's stack trace when graph partitioning is off (pinned
off here: with it on, the op would be split out instead). A CPU run on torch 2.13 (cuda replaced
by cpu) finds that node, aten._fused_moving_avg_obs_fq_helper_functional.default, whose stack
trace is this file's fake-quant line, and no graph break."""
import torch

torch._inductor.config.graph_partition = False  # the whole-graph decision: skipped, not split
torch.set_float32_matmul_precision("high")
OBSERVER_ARGS = (0.01, 0, 255, 0, False, False)  # averaging constant, quint8 range, per-tensor


class QATLinear(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = torch.nn.Linear(n, n)
        self.register_buffer("observer_on", torch.tensor([1], dtype=torch.long))
        self.register_buffer("fake_quant_on", torch.tensor([1], dtype=torch.long))
        self.register_buffer("running_min", torch.tensor(float("inf")))
        self.register_buffer("running_max", torch.tensor(float("-inf")))
        self.register_buffer("scale", torch.tensor([1.0]))
        self.register_buffer("zero_point", torch.tensor([0], dtype=torch.int))

    def forward(self, x):
        h = self.fc(x)
        q = (self.observer_on, self.fake_quant_on, self.running_min, self.running_max, self.scale)
        h = torch.fused_moving_avg_obs_fake_quant(h, *q, self.zero_point, *OBSERVER_ARGS)
        return h.relu()


torch.manual_seed(0)
model = QATLinear(256).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
step = torch.compile(model, mode="reduce-overhead")
for _ in range(5):
    x = torch.randn(64, 256, device="cuda")
    loss = step(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print(loss.item(), model.scale.item(), model.zero_point.item())
