# Compiled optimizer step (the "compile the optimizer" recipe) in a loop that
# checkpoints every 3 steps and, after a simulated preemption, resumes from the
# last checkpoint with model.load_state_dict / opt.load_state_dict.
import io
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)


@torch.compile
def opt_step():
    opt.step()


x, y = torch.randn(32, 8), torch.randn(32, 2)
ckpt = None
PREEMPTED_AT = {4, 7}
for step in range(10):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt_step()
    print(f"step {step} loss {loss.item():.5f}")
    if step % 3 == 2:
        ckpt = io.BytesIO()
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, ckpt)
    if step in PREEMPTED_AT:
        ckpt.seek(0)
        state = torch.load(ckpt)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        print(f"resumed at step {step}")
