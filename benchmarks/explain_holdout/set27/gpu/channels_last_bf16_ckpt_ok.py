"""A channels_last conv net trained under bf16 autocast with cudnn.benchmark, one stage
activation-checkpointed, compiled; fixed batch and image size (drop_last-style loader).
"""
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
device = "cuda"
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True


def conv_bn(cin, cout, stride=1):
    return torch.nn.Sequential(
        torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False), torch.nn.BatchNorm2d(cout),
        torch.nn.ReLU(inplace=True),
    )


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 32, 2)
        self.stage1 = torch.nn.Sequential(conv_bn(32, 64, 2), conv_bn(64, 64))
        self.stage2 = torch.nn.Sequential(conv_bn(64, 128, 2), conv_bn(128, 128))
        self.head = torch.nn.Linear(128, 100)

    def forward(self, x):
        x = self.stage1(self.stem(x))
        x = checkpoint(self.stage2, x, use_reentrant=False)
        return self.head(x.mean((2, 3)))


model = Net().to(device).to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
cmodel = torch.compile(model)
for step in range(6):
    x = torch.randn(64, 3, 128, 128, device=device).to(memory_format=torch.channels_last)
    y = torch.randint(0, 100, (64,), device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(cmodel(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print("step", step, "loss", round(loss.item(), 4))
