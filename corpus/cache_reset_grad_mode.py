# after pytorch/pytorch#191418: Clear the fake tensor dispatch cache in torch._dynamo.reset() (reset "as if you had started a fresh process invocation")
"""Cache: an evaluation harness resets Dynamo after training and compiles the same model again
under torch.no_grad(). Without grad the compile is an inference graph, not the training
forward the first compile cached, so it misses; the miss is explained by the grad mode, at the
line that switched it."""
import torch

model = torch.nn.Linear(8, 8)
torch.compile(model)(torch.randn(2, 8)).sum().backward()
torch._dynamo.reset()
with torch.no_grad():  # <- diagnosis
    torch.compile(model)(torch.randn(2, 8))
print("ok")
