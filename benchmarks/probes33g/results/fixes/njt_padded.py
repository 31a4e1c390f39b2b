import torch
import torch.nn as nn

torch.manual_seed(0)


class ClipEncoder(nn.Module):
    def __init__(self, dim=24):
        super().__init__()
        self.frame = nn.Sequential(nn.Linear(dim, 48), nn.GELU(), nn.Linear(48, 32))
        self.classify = nn.Linear(32, 5)

    def forward(self, clips):
        frames = self.frame(clips)
        pooled = torch.nested.to_padded_tensor(frames, float('-inf')).amax(dim=1)
        return self.classify(pooled)


model = ClipEncoder().eval()
encoder = torch.compile(model)
with torch.no_grad():
    for batch in range(5):
        lengths = torch.randint(4, 40, (6 + batch,)).tolist()
        clips = torch.nested.nested_tensor(
            [torch.randn(n, 24) for n in lengths], layout=torch.jagged
        )
        preds = encoder(clips).argmax(-1)
        print(f"batch {batch} clips {len(lengths)} preds {preds.tolist()}")
