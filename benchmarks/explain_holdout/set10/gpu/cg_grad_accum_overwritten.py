"""pytorch/pytorch#169545 ("torch.compile + CUDAGraph + gradient accumulation fails",
https://github.com/pytorch/pytorch/issues/169545, open, reproduced by the PT2 repro agent on an
H100): a Linear compiled with mode="reduce-overhead" and fullgraph=True, trained with gradient
accumulation (backward every step, no zero_grad). Although each step is marked with
cudagraph_mark_step_begin() and the outputs are cloned, the second loss.backward() raises
"RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a
subsequent run": the parameters' .grad were allocated as outputs of the recorded backward graph,
and the next replay overwrote them before autograd accumulated into them. The issue's repro
(from the PyTorch forums thread it cites).

Why it should still reproduce on torch 2.11: the issue is open; its only follow-up, PR #184003
(May 2026, after 2.11), changes the error's wording ("accessing gradient tensor output ...") and
not the behaviour."""
import torch
import torch.nn as nn

device = "cuda"
model = nn.Linear(10, 1).to(device)
model = torch.compile(model, fullgraph=True, mode="reduce-overhead")

for _ in range(5):
    torch.compiler.cudagraph_mark_step_begin()

    input = torch.randn((10,), dtype=torch.float32, requires_grad=True, device=device)
    outputs = model(input).clone()
    loss = outputs.sum().clone()
    loss.backward()
torch.cuda.synchronize()
print("finished", model.weight.grad.norm().item())
