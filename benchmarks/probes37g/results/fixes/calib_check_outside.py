# A user sanity-checks a fused GELU-MLP block against a float64 reference *inside* the
# compiled function with torch.testing.assert_close (pattern from forum posts that put
# correctness checks in forward while debugging a bf16/fp32 port).
import torch
import torch.nn as nn

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(x)))


model = Block().eval()
ref_model = Block().double().eval()
ref_model.load_state_dict({k: v.double() for k, v in model.state_dict().items()})


@torch.compile
def checked_forward(x):
    y = model(x)
    ref = ref_model(x.double()).float()
    return y.pow(2).mean(), y, ref


with torch.no_grad():
    for step in range(3):
        x = torch.randn(8, 16)
        loss, y, ref = checked_forward(x)
        torch.testing.assert_close(y, ref, atol=1e-4, rtol=1e-4)
        print(step, f"{loss.item():.5f}")
