"""pytorch/tutorials#2874 (the "compiled optimizer + LR scheduler" recipe: a float lr that a
scheduler changes recompiles the compiled `opt.step()`; "wrap the LR in a tensor"), on CUDA.

An Adam step compiled on its own (the recipe's pattern) while a LambdaLR warms the float lr up
over 20 steps. On the CPU torch 2.13 makes the float lr dynamic after one recompile (Adam's
single-tensor path). On CUDA Dynamo sets capturable=True and Adam takes its foreach path, whose
`torch._foreach_div_(bias_correction1, lr)` cannot take a tensorified float: Dynamo specializes
the lr again (remove_tensorify_specialized_graphargs) and guards
`self.param_groups[0]['lr'] == <value>`, so every warmup step recompiles Adam.step until
torch._dynamo hits config.recompile_limit (8) and runs the step in eager for the rest. The fix
is `lr=torch.tensor(1e-3)` (the recipe's advice). Checked on torch 2.13.0+cpu with
capturable=True, foreach=True (the CUDA path): one recompile per lr value, each guard failure
"self.param_groups[0]['lr'] == 0.002 ... remove_tensorify_specialized_graphargs".
"""
import torch

torch.manual_seed(0)
device = "cuda"
model = torch.nn.Sequential(
    torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)
).to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
warmup_steps = 20
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup_steps))


@torch.compile
def opt_step():
    opt.step()


x = torch.randn(64, 32, device=device)
y = torch.randint(0, 4, (64,), device=device)
for step in range(14):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt_step()
    sched.step()
    opt.zero_grad(set_to_none=True)
print("loss", round(loss.item(), 4), "lr", opt.param_groups[0]["lr"])
