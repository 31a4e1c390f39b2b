"""torchvision 0.28.0 (torch 2.13.0), torchvision.models.resnet18(weights=None) and
torchvision.transforms.v2 (RandomResizedCrop, RandomHorizontalFlip).

A training loop that moves its augmentation into the compiled step, as users do to run the
augmentations on the batch next to the model: `forward_loss` applies a v2.Compose of
RandomResizedCrop and RandomHorizontalFlip to the batch, then the ResNet-18 and the loss. The v2
transforms draw their random parameters in Python: RandomResizedCrop.make_params calls
`torch.empty(1).uniform_(...).item()` (and `torch.randint(...).item()`) for the crop's area and
position, RandomHorizontalFlip branches on `if torch.rand(1) >= self.p`. Dynamo breaks on the
`.item()` inside torchvision at the user's `train_aug(images)`, gives up on Compose.forward (a
graph break inside its loop), breaks again on the flip's data-dependent branch, and the resumed
frames recompile on the crop's integer box (`top == 13`, then `width > height`).
pytorch/vision#8056 (open, "Removing graph breaks in transforms") lists the v2 transforms whose
make_params still break the graph under torch.compile.
"""
import torch
import torch.nn.functional as F
import torchvision
from torchvision.transforms import v2

torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None, num_classes=10)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
train_aug = v2.Compose([
    v2.RandomResizedCrop(48, scale=(0.35, 1.0), antialias=True),
    v2.RandomHorizontalFlip(),
])


@torch.compile
def forward_loss(images, labels):
    images = train_aug(images)  # augment the whole batch inside the compiled step
    return F.cross_entropy(model(images), labels)


images = torch.rand(24, 3, 64, 64)
labels = torch.randint(0, 10, (24,))
for step, start in enumerate(range(0, 24, 8)):
    loss = forward_loss(images[start:start + 8], labels[start:start + 8])
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}")
