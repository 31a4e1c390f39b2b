"""A small text classifier (embedding bag + MLP). The parameter update (gradient clipping that
refuses a NaN/inf norm, then SGD with momentum) is compiled as one function."""
import torch
import torch.nn as nn

torch.manual_seed(0)

VOCAB, DIM, CLASSES = 500, 32, 4


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(VOCAB, DIM, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(DIM, 64), nn.ReLU(), nn.Linear(64, CLASSES))

    def forward(self, tokens):
        return self.mlp(self.emb(tokens))


model = BagClassifier()
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)


@torch.compile
def apply_update():
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, error_if_nonfinite=False)
    opt.step()


tokens = torch.randint(0, VOCAB, (64, 12))
labels = tokens[:, 0] % CLASSES
for step in range(8):
    loss = nn.functional.cross_entropy(model(tokens), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    apply_update()
    print(f"step {step} loss {loss.item():.4f}")
