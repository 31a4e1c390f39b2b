import copy

import torch
import torch.nn as nn

torch._inductor.config.freezing = True
torch.manual_seed(0)


class IntentClassifier(nn.Module):
    def __init__(self, dim=64, n_intents=5):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU())
        self.head = nn.Linear(128, n_intents)

    def forward(self, x):
        return self.head(self.body(x))


model = IntentClassifier().eval()
serving = torch.compile(model)
requests = torch.randn(6, 64)

with torch.no_grad():
    print("v1 intents:", serving(requests).argmax(-1).tolist())

# a newer checkpoint arrives; swap the weights in place
new_weights = copy.deepcopy(model.state_dict())
for k in new_weights:
    new_weights[k] = torch.randn_like(new_weights[k]) * 0.2
model.load_state_dict(new_weights)

with torch.no_grad():
    served = serving(requests)
    reference = model(requests)
print("v2 intents:", served.argmax(-1).tolist())
print("v2 reference:", reference.argmax(-1).tolist())
print(f"max |served - reference| = {(served - reference).abs().max().item():.4f}")
