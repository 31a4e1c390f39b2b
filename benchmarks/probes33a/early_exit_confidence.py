"""Early-exit classifier (DeeBERT-style): every encoder layer has an exit head, and inference
stops at the first layer whose prediction is confident enough for the whole batch."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class EarlyExitEncoder(nn.Module):
    def __init__(self, dim=48, depth=6, num_classes=4, threshold=0.275):
        super().__init__()
        self.threshold = threshold
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(dim, 4, 96, dropout=0.0, batch_first=True)
            for _ in range(depth))
        self.exits = nn.ModuleList(nn.Linear(dim, num_classes) for _ in range(depth))

    def forward(self, x):
        for depth, (layer, exit_head) in enumerate(zip(self.layers, self.exits), start=1):
            x = layer(x)
            probs = exit_head(x.mean(dim=1)).softmax(dim=-1)
            confidence = probs.max(dim=-1).values
            if confidence.min().item() >= self.threshold:
                break
        return probs, depth


model = EarlyExitEncoder().eval()
fast_model = torch.compile(model)
with torch.no_grad():
    for i in range(5):
        tokens = torch.randn(8, 20, 48) * (1 + i)
        probs, depth = fast_model(tokens)
        print(f"batch {i}: exited after layer {depth}, top class {probs.argmax(-1).tolist()}")
