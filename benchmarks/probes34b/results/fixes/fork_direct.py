import torch
import torch.nn as nn

torch.manual_seed(0)
EMB, HID, N_CLASSES = 24, 32, 4


class BiGRUEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fwd_cell = nn.GRUCell(EMB, HID)
        self.bwd_cell = nn.GRUCell(EMB, HID)
        self.head = nn.Linear(2 * HID, N_CLASSES)

    def run_direction(self, cell: nn.GRUCell, x: torch.Tensor) -> torch.Tensor:
        h = x.new_zeros(x.size(0), HID)
        for t in range(x.size(1)):
            h = cell(x[:, t], h)
        return h

    def forward(self, x):
        h_fwd = self.run_direction(self.fwd_cell, x)
        h_bwd = self.run_direction(self.bwd_cell, x.flip(1))
        return self.head(torch.cat([h_fwd, h_bwd], -1))


model = BiGRUEncoder()
compiled = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(5):
    x = torch.randn(12, 9, EMB)
    y = torch.randint(0, N_CLASSES, (12,))
    loss = nn.functional.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
