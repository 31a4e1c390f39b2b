# check: a torch.compiler.disable'd resize helper called from a compiled pipeline matches eager;
# torch.compile(disabled_fn) called directly still compiles it (torch 2.13).
import torch, torch.nn.functional as F
torch.manual_seed(0)
imgs = torch.randint(0, 256, (4, 3, 17, 19), dtype=torch.uint8)
@torch.compiler.disable
def resize(img):
    return F.interpolate(img, size=(24, 24), mode="bilinear", align_corners=False)
def plain(img):
    return F.interpolate(img, size=(24, 24), mode="bilinear", align_corners=False)
@torch.compile
def pipeline(img):
    return resize(img).float() / 255
e0 = int(plain(imgs).sum())
a = torch.compile(resize)(imgs)
b = resize(imgs)
p = pipeline(imgs)
print("eager", e0, "compile(disabled)", int(a.sum()), "disabled direct", int(b.sum()), "pipeline", round(float(p.sum()*255)))
