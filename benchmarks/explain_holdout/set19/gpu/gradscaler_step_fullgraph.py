"""fp16 training with a GradScaler where the user compiles the optimizer half of the step, as
the compiled-optimizer recipe does for `opt.step()`, but with the AMP calls in it:
`scaler.step(opt)` and `scaler.update()` inside a function under torch.compile(fullgraph=True).
Dynamo does not trace torch/amp (its MOD_SKIPLIST; GradScaler.step reads found_inf with
`.item()` to decide whether to step), so with fullgraph=True the first compiled call fails at
`scaler.step(opt)` (line 33): "Unsupported: Attempted to inline function marked as skipped /
Dynamo developers have intentionally marked that the function `GradScaler.step` should not be
traced" (gb0008). The forward, backward and unscale run eagerly before it. The fix: keep
scaler.step/update outside the compiled function (compile the model, or only `opt.step` after
`scaler.unscale_`), or drop fullgraph=True to take the graph break.

Sources: pytorch/tutorials#2700 (the compiled-optimizer recipe: `@torch.compile() def fn():
opt.step()`) and pytorch/pytorch PR #55562 (GradScaler.update made in place "for better
composability with graph capture", the reason users expect it to capture). Unlike set11's
gradscaler_step_breaks (the whole step in the default mode: graph breaks), here only step and
update are compiled, with fullgraph=True, on CUDA with fp16: a compile-time failure.
Evidence: this script on the CPU (torch 2.13.0+cpu, device "cpu", GradScaler("cpu"), bf16
autocast) fails at line 33 with that message ("skip reason: file matches MOD_SKIPLIST
(.../torch/amp)"). How sure it reproduces on 2.11: sure of the failure and
line (torch.amp has been skipped by Dynamo since 2023, the gb registry wording since 2.8); not
run on a GPU."""
import torch

torch.manual_seed(0)
device = "cuda"
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 1)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")


@torch.compile(fullgraph=True)
def optimizer_step():
    scaler.step(opt)
    scaler.update()


for step in range(3):
    x, y = torch.randn(32, 64, device=device), torch.randn(32, 1, device=device)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    optimizer_step()
    opt.zero_grad(set_to_none=True)
    print(step, float(loss))
