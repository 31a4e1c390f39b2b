"""pytorch/pytorch#144820 ("[dynamo] Do not always skip code objects unconditionally",
https://github.com/pytorch/pytorch/issues/144820, open): when Dynamo decides to skip a frame
(here a graph break inside a try block, which it cannot resume from), it skips the code object
for every later call, whatever the inputs, until torch._dynamo.reset(). So whether a call is
compiled depends on call order: a training step that prints a banner on step 0 inside a try
block runs in eager for the whole first run, while the same step compiles after a reset when
training resumes from a checkpoint at step 4."""
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile
def step_loss(x, y, banner):
    if banner:
        try:
            print(f"step 0: batch of {x.shape[0]}")
        except OSError:
            pass
    return torch.nn.functional.mse_loss(model(x), y)


def run(first_step, last_step):
    for step in range(first_step, last_step):
        loss = step_loss(torch.randn(8, 16), torch.randn(8, 1), step == 0)
        loss.backward()
        opt.step()
        opt.zero_grad()
    print(f"steps {first_step}-{last_step - 1}: loss {loss.item():.4f}")


run(0, 4)
torch._dynamo.reset()  # a new run, resumed from a checkpoint
run(4, 8)
