# Embedding extraction: a forward hook on the pooling layer saves the
# penultimate features of a small CNN (the usual `activation[name] = output`
# recipe) while the model, compiled with mode="reduce-overhead", scores a
# stream of image batches; the loop collects the saved features per batch.
import torch
import torch.nn as nn

torch.manual_seed(0)
device = "cuda"


class SmallCNN(nn.Module):
    def __init__(self, n_cls=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        )
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(64, n_cls)

    def forward(self, x):
        return self.head(self.pool(self.features(x)))


model = SmallCNN().to(device).eval()
activation = {"pool": None}


def save_activation(module, inputs, output):
    activation["pool"] = output


model.pool.register_forward_hook(save_activation)
cmodel = torch.compile(model, mode="reduce-overhead")

batches = [torch.randn(32, 3, 32, 32, device=device) for _ in range(6)]
scores, embeddings = [], []
with torch.no_grad():
    for xb in batches:
        logits = cmodel(xb)
        embeddings.append(activation["pool"])
        scores.append(logits.softmax(-1).max(-1).values.mean().item())

print(f"batches scored: {len(scores)}  mean confidence: {sum(scores) / len(scores):.4f}")
emb = torch.cat(embeddings)
emb = nn.functional.normalize(emb, dim=-1)
sim = emb @ emb.T
print(f"embeddings: {tuple(emb.shape)}  mean cosine similarity: {sim.mean().item():.4f}")
