import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.attn_map = None
        self.attn_grad = None

    def save_attn_grad(self, grad):
        self.attn_grad = grad

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).view(B, N, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1) * (C // self.heads) ** -0.5).softmax(dim=-1)
        self.attn_map = attn.detach()
        attn.register_hook(self.save_attn_grad)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))


class TinyViT(nn.Module):
    def __init__(self, dim=32, depth=3, n_classes=5):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, kernel_size=8, stride=8)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.blocks = nn.ModuleList([Attention(dim, 4) for _ in range(depth)])
        self.norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, n_classes)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.size(0), -1, -1), x], dim=1)
        for norm, blk in zip(self.norms, self.blocks):
            x = x + blk(norm(x))
        return self.head(x[:, 0])


model = TinyViT()
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
images, labels = torch.randn(16, 3, 32, 32), torch.randint(0, 5, (16,))
for step in range(4):
    loss = F.cross_entropy(compiled(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    # gradient-weighted attention rollout for the last block, CLS row
    blk = model.blocks[-1]
    cam = (blk.attn_grad * blk.attn_map).clamp(min=0).mean(dim=1)[:, 0, 1:]
    print(f"step {step}: loss {loss.item():.4f}, cam peak patch {cam[0].argmax().item()}")
