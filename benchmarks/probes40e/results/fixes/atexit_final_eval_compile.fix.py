# Train a small classifier with a compiled model and register the final validation
# report with atexit, so it also runs when training stops early (sys.exit, Ctrl-C).
# The report runs the compiled model in eval mode, under no_grad, on a new batch size.
# Related: huggingface/diffusers#3764 ("cannot schedule new futures after interpreter
# shutdown"). Inductor's compile pool is used when compile_threads > 1 (the default on
# a machine with 2 or more CPUs).
import atexit

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
X_val = torch.randn(100, 16)
y_val = torch.randint(0, 4, (100,))


def final_report():
    model.eval()
    with torch.no_grad():
        logits = cmodel(X_val)
    acc = (logits.argmax(1) == y_val).float().mean().item()
    print(f"final val acc {acc:.3f}")


# fix: run the report before the interpreter shuts down (was: atexit.register(final_report))

for step in range(30):
    x = torch.randn(32, 16)
    y = torch.randint(0, 4, (32,))
    loss = F.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("training done")
final_report()
