import torch, torch.nn.functional as F
torch.manual_seed(0)
batch = torch.randint(0, 256, (4, 3, 90, 120), dtype=torch.uint8).contiguous(memory_format=torch.channels_last)
ref = F.interpolate(batch, size=(56, 56), mode="bilinear", align_corners=False, antialias=False)
def rf(img): return F.interpolate(img.float(), size=(56, 56), mode="bilinear", align_corners=False).round().clamp(0, 255).to(torch.uint8)
for name, f in [('float eager', rf), ('float compiled', torch.compile(rf))]:
    o = f(batch); d = (o.int() - ref.int()).abs()
    print(name, 'ndiff vs eager-u8', int((d > 0).sum()), 'max', int(d.max()), 'sum', int(o.sum()))
