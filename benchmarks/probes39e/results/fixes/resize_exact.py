import torch, torch.nn.functional as F
torch.manual_seed(0)
batch = torch.randint(0, 256, (4, 3, 90, 120), dtype=torch.uint8).contiguous(memory_format=torch.channels_last)
ref = F.interpolate(batch, size=(56, 56), mode="bilinear", align_corners=False)
exact = F.interpolate(batch.double(), size=(56, 56), mode="bilinear", align_corners=False)
comp = torch.compile(lambda b: F.interpolate(b, size=(56, 56), mode="bilinear", align_corners=False))(batch)
for n, o in [('eager u8', ref), ('compiled u8', comp)]:
    print(n, 'rmse vs f64', (o.double() - exact).pow(2).mean().sqrt().item(), 'ndiff vs round(f64)', int((o != exact.round().to(torch.uint8)).sum()))
