# Eager-mode QAT with torch.ao.quantization: prepare_qat inserts FakeQuantize
# modules, then the prepared model is compiled for the fine-tuning loop.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.ao.quantization as tq

torch.manual_seed(0)


class SensorNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.fc1 = nn.Linear(16, 64)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(64, 4)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu(self.fc1(x))
        x = self.fc2(x)
        return self.dequant(x)


model = SensorNet().train()
model.qconfig = tq.get_default_qat_qconfig("x86")
tq.prepare_qat(model, inplace=True)
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

x = torch.randn(512, 16)
y = (x[:, 0] > 0).long() + 2 * (x[:, 1] > 0).long()
for epoch in range(8):
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch == 5:
        model.apply(tq.disable_observer)
    print(f"epoch {epoch}  loss {loss.item():.4f}")
acc = (compiled(x).argmax(1) == y).float().mean().item()
print(f"train accuracy {acc:.3f}")
