import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)
FEAT, HID, N_INTENTS = 16, 32, 5


class IntentGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(FEAT, HID)
        self.out = nn.Linear(HID, N_INTENTS)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.zeros(x.size(0), HID)
        for t in range(x.size(1)):
            h = self.cell(x[:, t], h)
        return self.out(h)


model = IntentGRU()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

for step in range(5):
    x = torch.randn(8, 7, FEAT)
    y = torch.randint(0, N_INTENTS, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
scripted = torch.jit.script(model)
scripted.save(os.path.join(tempfile.gettempdir(), "intent_gru.pt"))
print("exported", sum(p.numel() for p in scripted.parameters()), "parameters")
