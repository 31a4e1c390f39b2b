"""Failure (runtime, backward): after test/dynamo/test_aot_autograd.py's
test_donated_buffer_with_retain_or_create_graph (probes46d mtl_gradnorm_probe_retain_graph). A
compiled training step whose loss is backpropagated twice (`retain_graph=True`, a GradNorm-style
per-task gradient probe): AOTAutograd donated the saved buffers to the backward, which then
refuses retain_graph. torch's message says what to do; the fix quotes it."""
import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
step = torch.compile(model)
for it in range(2):
    out = step(torch.randn(4, 8))
    loss_a, loss_b = out[:, 0].pow(2).mean(), out[:, 1].abs().mean()
    if it:  # a per-task gradient probe every other step
        loss_a.backward(retain_graph=True)  # <- diagnosis
    (loss_a + loss_b).backward()
print(model[0].weight.grad.norm().item())
