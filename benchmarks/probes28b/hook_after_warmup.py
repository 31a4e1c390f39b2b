"""Train a small CNN on random images; after a short warm-up, start recording the mean
activation of the feature extractor's last ReLU every step for a dead-unit report."""
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
images, labels = torch.randn(8, 16, 3, 16, 16), torch.randint(0, 5, (8, 16))

activation_means = []


def record_activation(module, inputs, output):
    activation_means.append(output.detach().mean().item())


WARMUP = 3
for step in range(8):
    if step == WARMUP:
        model[3].register_forward_hook(record_activation)
    loss = nn.functional.cross_entropy(cmodel(images[step]), labels[step])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

print(f"recorded {len(activation_means)} activation means over {8 - WARMUP} post-warm-up steps")
if activation_means:
    print(f"mean post-ReLU activation {sum(activation_means) / len(activation_means):.4f}")
