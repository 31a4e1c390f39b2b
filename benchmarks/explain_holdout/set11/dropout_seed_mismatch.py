"""pytorch/pytorch#158643 ("torch.compile() produces inconsistent outputs with models containing
dropout ...", open; its 2026 comment: a CPU-only `F.dropout(training=True)` under the same
`torch.manual_seed` gives different values compiled): Inductor draws dropout's mask from its
own random stream, not eager's, so a seeded reproducibility check of a compiled model in
training mode against eager fails; `torch._inductor.config.fallback_random = True` makes the
compiled model draw as eager does."""
import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Dropout(0.5),
                            torch.nn.Linear(32, 4))
model.train()
compiled = torch.compile(model)
x = torch.randn(16, 8)

torch.manual_seed(0)
expected = model(x)
torch.manual_seed(0)
actual = compiled(x)
torch.testing.assert_close(actual, expected)
print("compiled training step reproduces eager under the same seed")
