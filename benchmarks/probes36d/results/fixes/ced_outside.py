# The whole evaluation routine is compiled, including its set-up line that turns on
# deterministic algorithms for the run; the harness then reports the run's settings.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 3)).eval()


torch.use_deterministic_algorithms(True)


@torch.compile
def evaluate(model, xs):
    torch.set_float32_matmul_precision("highest")
    total = torch.zeros(3)
    for x in xs:
        total = total + model(x).softmax(-1).mean(0)
    return total / len(xs)


xs = [torch.randn(5, 12) for _ in range(3)]
with torch.no_grad():
    probs = evaluate(model, xs)
print("mean probs", [round(v, 4) for v in probs.tolist()])
print("settings: deterministic =", torch.are_deterministic_algorithms_enabled(),
      "matmul precision =", torch.get_float32_matmul_precision())
