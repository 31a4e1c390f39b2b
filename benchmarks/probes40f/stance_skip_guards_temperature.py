# Serving harness: warm the compiled classifier up on the batch sizes it serves, then switch
# guard evaluation off for the timed loop with
# torch.compiler.set_stance(skip_guard_eval_unsafe=True) (the set_stance docstring: "if this
# assumption fails, there is a risk of silently producing incorrect results").  The timed loop
# also sweeps the calibration temperature, a Python float that Dynamo baked into the graph
# as a constant and would normally guard on.  With guards skipped, every temperature reuses
# the graph traced with temperature=1.0.
import torch
import torch.nn as nn

torch.manual_seed(0)


class CalibratedClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 10))
        self.temperature = 1.0

    def forward(self, x):
        return torch.softmax(self.body(x) / self.temperature, dim=-1)


model = CalibratedClassifier().eval()
cmodel = torch.compile(model)
batches = {bs: torch.randn(bs, 32) for bs in (8, 16, 32)}

with torch.no_grad():
    for bs, x in batches.items():  # warm-up: every batch size we serve
        cmodel(x)

    with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
        for temperature in (1.0, 1.5, 2.0):
            model.temperature = temperature
            x = batches[32]
            probs = cmodel(x)
            ref = model(x)
            print(f"T={temperature}: mean max-prob compiled {probs.max(-1).values.mean().item():.4f} "
                  f"eager {ref.max(-1).values.mean().item():.4f}")
