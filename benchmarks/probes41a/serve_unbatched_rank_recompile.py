"""Digit-style classifier served from a queue of requests.

Most requests arrive as full batches of 8 images (N, C, H, W); the odd
single-image request arrives as a bare (C, H, W) tensor, and forward()
adds the batch dimension itself.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self, n_cls=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, n_cls)

    def forward(self, x):
        if x.dim() == 3:
            x = x.unsqueeze(0)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def request_stream(n_requests=12):
    for i in range(n_requests):
        if i % 4 == 3:
            yield torch.randn(1, 28, 28)          # a single image, no batch dim
        else:
            yield torch.randn(8, 1, 28, 28)       # a full batch


@torch.no_grad()
def serve(model, stream):
    predictor = torch.compile(model)
    served, checksum = 0, 0.0
    for req in stream:
        logits = predictor(req)
        served += logits.shape[0]
        checksum += logits.softmax(-1).max(-1).values.sum().item()
    return served, checksum


def main():
    model = SmallCNN().eval()
    served, checksum = serve(model, request_stream())
    print(f"served {served} images")
    print(f"mean top-1 confidence {checksum / served:.4f}")


if __name__ == "__main__":
    main()
