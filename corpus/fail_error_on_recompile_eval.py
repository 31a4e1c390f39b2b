"""Failure: `torch._dynamo.config.error_on_recompile = True` after the first training step, then
an evaluation pass under torch.no_grad(): the call needs the graph torch compiles once per grad
mode, and the setting turns that expected recompile into a RecompileError. The cause is the
grad mode at the evaluation call, not a failed trace (after pytorch/pytorch#144787 and #139202,
where error_on_recompile and the fail_on_recompile stance met recompiles users did not expect)."""
import torch

model = torch.nn.Linear(8, 2)
step = torch.compile(model, backend="eager")
for i in range(2):
    step(torch.randn(4, 8)).sum().backward()
    torch._dynamo.config.error_on_recompile = True
with torch.no_grad():
    print(step(torch.randn(4, 8)).shape)  # <- diagnosis
