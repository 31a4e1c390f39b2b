"""pytorch/pytorch#117758 ("torch.compile ignores forward hooks after compilation is triggered",
https://github.com/pytorch/pytorch/issues/117758, labelled dynamo-must-fix): forward hooks
registered on a compiled model's submodules after its first call never run, because the graph
compiled at the first call does not guard on the submodules' hooks (Dynamo skips those guards by
default, torch._dynamo.config.skip_nnmodule_hook_guards); eager runs them, and so does a compile
after torch._dynamo.reset(). Here activation statistics are attached for logging after a warm-up
batch, and the logging step finds none."""
import torch
from torch import nn

torch.manual_seed(0)
model = torch.compile(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)))
batch = torch.randn(64, 16)
model(batch)  # warm-up: compiles

activation_means = {}


@torch.compiler.disable
def record(name, output):
    activation_means[name] = output.detach().abs().mean().item()


for name, layer in model.named_modules():
    if isinstance(layer, nn.Linear):
        layer.register_forward_hook(lambda mod, inp, out, name=name: record(name, out))

model(batch)
print("activation means:", activation_means)
assert activation_means, "no forward hook ran: nothing recorded for the Linear layers"
